"""bcrypt password checks in pure Python, for hosts where the compiled ``bcrypt`` module
cannot be installed (an offline AIX LPAR: bcrypt is a compiled extension and there is no
wheel for AIX on PyPI).

Only verification is offered: the hashes come from ``htpasswd -nBC 10`` (or Python's own
``bcrypt``) on any machine, as exporter-toolkit's web configuration asks. The algorithm is
OpenBSD's ``bcrypt(3)`` (Provos and Mazieres, 1999): EksBlowfish set-up over the password
with a trailing NUL, 2**cost rounds, then "OrpheanBeholderScryDoubt" enciphered 64 times.
``$2a$``, ``$2b$`` and ``$2y$`` are the same for passwords of 72 bytes or fewer, the only
ones the exporter accepts. Blowfish's initial state is the fractional part of pi, computed
here once (Machin's formula) rather than written out as a table.

It is slow: a cost-10 hash takes seconds in CPython (``bench/perf/bcrypt_check.py`` measures it).
The web front checks each credential once and keeps the answer, so this is paid once per
user and password, not per scrape; the compiled module is used whenever it is present.
"""
from __future__ import annotations

import base64
import hmac
import re
from functools import lru_cache
from typing import List, Tuple

_BCRYPT_ALPHABET = b"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_STD_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_TO_STD = bytes.maketrans(_BCRYPT_ALPHABET, _STD_ALPHABET)
_FROM_STD = bytes.maketrans(_STD_ALPHABET, _BCRYPT_ALPHABET)
_HASH = re.compile(rb"^\$2[aby]\$(\d\d)\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$")
_MAGIC = b"OrpheanBeholderScryDoubt"
_WORDS = 18 + 4 * 256      # Blowfish's P-array and four S-boxes
_MASK = 0xFFFFFFFF


class HashError(ValueError):
    """Not a bcrypt hash this module can check."""


def parse(hashed: bytes) -> Tuple[int, bytes, bytes]:
    """(cost, 16-byte salt, 31-character checksum) of a ``$2a$``/``$2b$``/``$2y$`` hash."""
    m = _HASH.match(hashed)
    if not m:
        raise HashError("not a bcrypt hash ($2a$, $2b$ or $2y$, two-digit cost, 53 characters)")
    cost = int(m.group(1))
    if not 4 <= cost <= 31:
        raise HashError(f"bcrypt cost {cost} is outside 4..31")
    return cost, _decode(m.group(2), 16), m.group(3)


def checkpw(password: bytes, hashed: bytes) -> bool:
    """True when ``password`` matches ``hashed``; raises ``HashError`` for a malformed hash."""
    cost, salt, checksum = parse(hashed)
    return hmac.compare_digest(_encode(_raw(password, salt, cost)[:23]), checksum)


def hashpw(password: bytes, salt: bytes, cost: int) -> bytes:
    """The ``$2b$`` hash of ``password`` with a 16-byte salt (for tests and benchmarks)."""
    if len(salt) != 16 or not 4 <= cost <= 31:
        raise ValueError("salt must be 16 bytes and cost 4..31")
    return b"$2b$%02d$" % cost + _encode(salt) + _encode(_raw(password, salt, cost)[:23])


def _decode(text: bytes, size: int) -> bytes:
    std = text.translate(_TO_STD)
    return base64.b64decode(std + b"=" * (-len(std) % 4))[:size]


def _encode(data: bytes) -> bytes:
    return base64.b64encode(data).rstrip(b"=").translate(_FROM_STD)


@lru_cache(maxsize=1)
def _pi_words() -> Tuple[int, ...]:
    """The first 1042 32-bit words of pi's fractional part: Blowfish's P-array, then S-boxes."""
    bits = 32 * _WORDS + 64                      # 64 guard bits against rounding in the series
    one = 1 << bits

    def arctan_inv(x: int) -> int:               # arctan(1/x) * 2**bits
        total = term = one // x
        x2, n, sign = x * x, 1, -1
        while term:
            term //= x2
            n += 2
            total += sign * (term // n)
            sign = -sign
        return total

    pi = 16 * arctan_inv(5) - 4 * arctan_inv(239)
    frac = (pi - (3 << bits)) >> 64
    return tuple((frac >> (32 * (_WORDS - 1 - i))) & _MASK for i in range(_WORDS))


def _words(data: bytes) -> List[int]:
    """``data`` read as a cyclic stream of big-endian words, one full cycle of ``len(data)``
    words long (bcrypt's stream2word wraps around; 4 cycles of bytes make whole words)."""
    n = len(data)
    cyc = data * 4
    return [int.from_bytes(cyc[i * 4:i * 4 + 4], "big") for i in range(n)]


def _stream(words: List[int], count: int) -> List[int]:
    """The first ``count`` words of a word stream that starts at its beginning."""
    return (words * -(-count // len(words)))[:count]


def _blocks(P: List[int], S: List[List[int]]):
    """Where Blowfish's key schedule writes its 521 enciphered blocks: P, then each S-box."""
    return [(P, k) for k in range(0, 18, 2)] + [(box, k) for box in S for k in range(0, 256, 2)]


def _fill(P: List[int], S: List[List[int]], blocks, xor18: List[int], data: List[int]) -> None:
    """Blowfish_expandstate (``data``: the salt stream) or expand0state (``data`` empty):
    P ^= the key stream, then P and the S-boxes replaced in turn by chained encryptions.
    The 16 rounds are written out: this loop is where all of bcrypt's time goes."""
    s0, s1, s2, s3 = S
    M = _MASK
    for i in range(18):
        P[i] ^= xor18[i]
    p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, p16, p17 = P
    l = r = 0
    j = 0
    for table, k in blocks:
        if data:
            l ^= data[j]
            r ^= data[j + 1]
            j += 2
        l ^= p0
        r ^= ((s0[l >> 24] + s1[l >> 16 & 255] ^ s2[l >> 8 & 255]) + s3[l & 255]) & M ^ p1
        l ^= ((s0[r >> 24] + s1[r >> 16 & 255] ^ s2[r >> 8 & 255]) + s3[r & 255]) & M ^ p2
        r ^= ((s0[l >> 24] + s1[l >> 16 & 255] ^ s2[l >> 8 & 255]) + s3[l & 255]) & M ^ p3
        l ^= ((s0[r >> 24] + s1[r >> 16 & 255] ^ s2[r >> 8 & 255]) + s3[r & 255]) & M ^ p4
        r ^= ((s0[l >> 24] + s1[l >> 16 & 255] ^ s2[l >> 8 & 255]) + s3[l & 255]) & M ^ p5
        l ^= ((s0[r >> 24] + s1[r >> 16 & 255] ^ s2[r >> 8 & 255]) + s3[r & 255]) & M ^ p6
        r ^= ((s0[l >> 24] + s1[l >> 16 & 255] ^ s2[l >> 8 & 255]) + s3[l & 255]) & M ^ p7
        l ^= ((s0[r >> 24] + s1[r >> 16 & 255] ^ s2[r >> 8 & 255]) + s3[r & 255]) & M ^ p8
        r ^= ((s0[l >> 24] + s1[l >> 16 & 255] ^ s2[l >> 8 & 255]) + s3[l & 255]) & M ^ p9
        l ^= ((s0[r >> 24] + s1[r >> 16 & 255] ^ s2[r >> 8 & 255]) + s3[r & 255]) & M ^ p10
        r ^= ((s0[l >> 24] + s1[l >> 16 & 255] ^ s2[l >> 8 & 255]) + s3[l & 255]) & M ^ p11
        l ^= ((s0[r >> 24] + s1[r >> 16 & 255] ^ s2[r >> 8 & 255]) + s3[r & 255]) & M ^ p12
        r ^= ((s0[l >> 24] + s1[l >> 16 & 255] ^ s2[l >> 8 & 255]) + s3[l & 255]) & M ^ p13
        l ^= ((s0[r >> 24] + s1[r >> 16 & 255] ^ s2[r >> 8 & 255]) + s3[r & 255]) & M ^ p14
        r ^= ((s0[l >> 24] + s1[l >> 16 & 255] ^ s2[l >> 8 & 255]) + s3[l & 255]) & M ^ p15
        l ^= ((s0[r >> 24] + s1[r >> 16 & 255] ^ s2[r >> 8 & 255]) + s3[r & 255]) & M ^ p16
        l, r = r ^ p17, l
        table[k] = l
        table[k + 1] = r
        if table is P:     # P changes while it is being filled: the next block reads it again
            p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, p16, p17 = P


def _raw(password: bytes, salt: bytes, cost: int) -> bytes:
    key18 = _stream(_words((password + b"\0")[:72]), 18)
    salt_words = _words(salt)          # 4 words: 16 bytes
    pi = _pi_words()
    P = list(pi[:18])
    S = [list(pi[18 + 256 * i:18 + 256 * (i + 1)]) for i in range(4)]
    blocks = _blocks(P, S)
    _fill(P, S, blocks, key18, _stream(salt_words, _WORDS))      # expandstate(salt, key)
    salt18 = _stream(salt_words, 18)
    for _ in range(1 << cost):
        _fill(P, S, blocks, key18, [])                            # expand0state(key)
        _fill(P, S, blocks, salt18, [])                           # expand0state(salt)

    ctext = [int.from_bytes(_MAGIC[i:i + 4], "big") for i in range(0, 24, 4)]
    _encipher_ecb(P, S, ctext, 64)
    return b"".join(w.to_bytes(4, "big") for w in ctext)


def _encipher_ecb(P: List[int], S: List[List[int]], words: List[int], times: int) -> None:
    """Encipher ``words`` (pairs, in place) ``times`` times over: bcrypt's final step, 192
    blocks in all, so a plain loop over the rounds (the key schedule's are written out)."""
    s0, s1, s2, s3 = S
    for _ in range(times):
        for b in range(0, len(words), 2):
            l, r = words[b] ^ P[0], words[b + 1]
            for n in range(1, 17):
                r ^= ((s0[l >> 24] + s1[l >> 16 & 255] ^ s2[l >> 8 & 255]) + s3[l & 255]) & _MASK ^ P[n]
                l, r = r, l
            words[b], words[b + 1] = r ^ P[17], l
