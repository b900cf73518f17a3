"""The built-in bcrypt verifier (for hosts without the compiled module) against published
vectors and against the compiled module itself."""
import os

import pytest

from aix_exporter import purebcrypt

# Openwall crypt_blowfish's test vectors (wrapper.c), $2a$ at cost 5
VECTORS = [
    (b"U*U", b"$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"),
    (b"U*U*", b"$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK"),
    (b"U*U*U", b"$2a$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a"),
    (b"", b"$2a$05$CCCCCCCCCCCCCCCCCCCCC.7uG0VCzI2bS7j6ymqJi9CdcdxiRTWNy"),
    (b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
     b"$2a$05$abcdefghijklmnopqrstuu5s2v8.iXieOjg/.AySBTTZIIVFJeBui"),
]


@pytest.mark.parametrize("password,hashed", VECTORS)
def test_published_vectors(password, hashed):
    assert purebcrypt.checkpw(password, hashed)
    assert not purebcrypt.checkpw(b"!" + password, hashed)
    for prefix in (b"$2b$", b"$2y$"):          # the same algorithm for passwords of 72 bytes or fewer
        assert purebcrypt.checkpw(password, prefix + hashed[4:])


def test_blowfish_state_is_pi():
    words = purebcrypt._pi_words()
    assert len(words) == 1042
    assert (words[0], words[17]) == (0x243F6A88, 0x8979FB1B)           # P-array, first and last
    assert (words[18], words[18 + 255]) == (0xD1310BA6, 0x6E85076A)    # S-box 1
    assert words[-1] == 0x3AC372E6                                     # S-box 4, last


@pytest.mark.parametrize("cost", [4, 6])
def test_same_hashes_as_the_compiled_module(cost):
    bcrypt = pytest.importorskip("bcrypt")
    for password in (b"a", b"s3cret", "pässwörd".encode(), os.urandom(40).replace(b"\0", b"x"), b"z" * 72):
        salt = os.urandom(16)
        ours = purebcrypt.hashpw(password, salt, cost)
        assert ours == bcrypt.hashpw(password, ours[:29])
        assert bcrypt.checkpw(password, ours)


NOT_A_HASH = "not a bcrypt hash ($2a$, $2b$ or $2y$, two-digit cost, 53 characters)"


@pytest.mark.parametrize("hashed,why", [
    (b"$2b$10$short", NOT_A_HASH),
    (b"$2x$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", NOT_A_HASH),
    (b"$2a$03$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", "bcrypt cost 3 is outside 4..31"),
    (b"$2a$32$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", "bcrypt cost 32 is outside 4..31"),
    (b"$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOe", NOT_A_HASH),
    (b"$2a$05$CCCCCCCCCCCCCCCCCCCCC!E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", NOT_A_HASH),
])
def test_malformed_hashes_are_refused(hashed, why):
    with pytest.raises(purebcrypt.HashError) as e:
        purebcrypt.checkpw(b"x", hashed)
    assert str(e.value) == why


def test_hashpw_takes_costs_4_to_31_and_a_16_byte_salt(monkeypatch):
    monkeypatch.setattr(purebcrypt, "_raw", lambda password, salt, cost: bytes(24))   # the cost's time left out
    salt = bytes(16)
    assert purebcrypt.hashpw(b"x", salt, 31).startswith(b"$2b$31$")
    assert purebcrypt.hashpw(b"x", salt, 4).startswith(b"$2b$04$")
    for bad_salt, cost in ((salt, 32), (salt, 3), (bytes(15), 10), (bytes(17), 10)):
        with pytest.raises(ValueError) as e:
            purebcrypt.hashpw(b"x", bad_salt, cost)
        assert str(e.value) == "salt must be 16 bytes and cost 4..31"


def test_the_bcrypt_alphabet_without_padding():
    # 00 00 17: 6-bit groups 0, 0, 0, 23; the standard alphabet's AAAX is bcrypt's ...V
    assert purebcrypt._encode(b"\x00\x00\x17") == b"...V"
    assert purebcrypt._encode(b"\xff") == b"9u"                  # 111111 11(0000): 63, 48 and no '='
    assert purebcrypt._decode(b"...V", 3) == b"\x00\x00\x17"


def test_a_hash_of_cost_31_is_read():
    cost, salt, checksum = purebcrypt.parse(b"$2a$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")
    assert (cost, len(salt), checksum) == (31, 16, b"E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")


def test_a_password_is_read_up_to_72_bytes_as_bcrypt_does():
    salt = bytes(range(16))
    at_72 = purebcrypt.hashpw(b"a" * 72, salt, 4)
    assert purebcrypt.hashpw(b"a" * 72 + b"X", salt, 4) == at_72 == purebcrypt.hashpw(b"a" * 72 + b"YZ", salt, 4)
    assert purebcrypt.hashpw(b"a" * 71, salt, 4) != at_72

