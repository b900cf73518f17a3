"""Reading an nmon recording's lines: the delimiter (``,``, or ``;`` with decimal commas), the
fields of each record, and, for whole recordings, only the lines of the sections the import
maps, found by regular expressions over blocks of text; the other sections' data rows are
only counted."""
from __future__ import annotations

import codecs
import re
from collections import Counter
from typing import Iterable, Iterator, Optional

from ..base import RecordingError, Stats
from .mapping import BBBP_COMMANDS, MAPPED_SECTIONS, SPECIAL


class NmonError(RecordingError):
    """An nmon recording that cannot be imported as it stands (the message says why and where)."""


def number(token: str, decimal_comma: bool) -> Optional[float]:
    """A finite number, or None (empty, not a number, NaN or infinite). float() itself
    ignores the blanks around a field."""
    if decimal_comma:
        token = token.replace(",", ".")
    try:
        v = float(token)
    except ValueError:
        return None
    return v if v - v == 0 else None   # (NaN and the infinities give NaN)


_BLOCK_BYTES = 1 << 20   # bytes of a recording matched at a time
_BLOCK_LINES = 8192   # lines, when given lines
# nmon's longest lines (BBBP copies, TOP with its command) are a few KB. A guard on memory, not a
# format rule: a line is refused once more than this much of it is read without its end, which
# a block's end shows (so a line up to a block longer may pass whole)
MAX_LINE_BYTES = 1 << 20
MAX_RECORDING_BYTES = 4 << 30   # a day of nmon on a large LPAR is well under 1 GB, decompressed


def _size(n: int) -> str:
    """A limit as its message says it: '4 GiB', '1 MiB', else bytes."""
    for unit, shift in (("GiB", 30), ("MiB", 20)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def _unfinished(length: int) -> None:
    """Refuse a line of which ``length`` characters are read without its end yet."""
    if length > MAX_LINE_BYTES:
        raise NmonError(f"a line longer than {_size(MAX_LINE_BYTES)}: not an nmon recording")


def _patterns(delim: str):
    """Per delimiter, over a block of text that starts with a newline: the lines the import
    reads (special and mapped sections, a section name padded with blanks included; of BBBP
    only the lines of BBBP_COMMANDS), the
    section names of data rows (``SECTION,Tnnnn``, to count the unmapped ones), and TOP rows
    (``TOP,pid,Tnnnn``). Each starts with a literal newline, which re searches for fast."""
    d = re.escape(delim)
    names = "|".join(sorted((re.escape(n) for n in (SPECIAL - {"TOP", "BBBP"}) | MAPPED_SECTIONS), key=len,
                            reverse=True))
    bbbp = rf"BBBP{d}[^{d}\n]*{d}[ \t]*(?:{'|'.join(BBBP_COMMANDS)})[ {d}][^\n]*"
    wanted = re.compile(rf"\n((?:[ \t]*(?:{names})[ \t]*(?:{d}[^\n]*)?)|{bbbp})\r?(?=\n)")
    row = re.compile(rf"\n([^{d}\n]*){d}T\d{{4,16}}(?=[{d}\r\n])")
    top = re.compile(rf"\n[ \t]*TOP[ \t]*{d}[^{d}\n]*{d}[ \t]*T\d{{4,16}}[ \t]*(?=[{d}\r\n])")
    return wanted, row, top


_PATTERNS = {",": _patterns(","), ";": _patterns(";")}


def _blocks(lines: Iterable[str]) -> Iterator[str]:
    """Text of whole lines, a block at a time, each starting with a newline (the patterns
    anchor on it). A text stream is read underneath, from its binary buffer with read1 (one
    read at a time, so a truncated gzip yields everything decompressed before the failure,
    then raises); any other iterable of lines is joined in batches."""
    raw = getattr(lines, "buffer", None)
    if raw is not None and hasattr(raw, "read1"):
        decoder = codecs.getincrementaldecoder(getattr(lines, "encoding", None) or "utf-8")(errors="replace")
        carry = "\n"
        size = min(1 << 16, _BLOCK_BYTES)   # small first, so reading only the first snapshot reads little
        total = 0
        pieces: list = []   # of a line longer than a block, joined once it ends (no quadratic re-copy)
        try:
            while True:
                chunk = raw.read1(size)
                size = min(2 * size, _BLOCK_BYTES)
                if not chunk:
                    break
                total += len(chunk)
                if total > MAX_RECORDING_BYTES:
                    raise NmonError(f"more than {_size(MAX_RECORDING_BYTES)} decompressed: not an nmon recording "
                                    "(or a compression bomb)")
                piece = decoder.decode(chunk)
                if "\n" not in piece:
                    pieces.append(piece)
                    _unfinished(len(carry) - 1 + sum(map(len, pieces)))   # (carry starts with "\n")
                    continue
                text = carry + "".join(pieces) + piece
                pieces = []
                cut = text.rfind("\n")
                yield text[:cut + 1]
                carry = text[cut:]
                _unfinished(len(carry) - 1)
            carry += "".join(pieces) + decoder.decode(b"", final=True)
        except (OSError, EOFError):
            carry += "".join(pieces)
            if carry.strip():
                yield carry + "\n"   # (a last line cut short has no newline of its own)
            raise
        if carry.strip():
            yield carry + "\n"
        return
    batch: list = ["\n"]
    for line in lines:
        batch.append(line.rstrip("\r\n") + "\n")
        if len(batch) >= _BLOCK_LINES:
            yield "".join(batch)
            batch = ["\n"]
    if len(batch) > 1:
        yield "".join(batch)


def read_records(lines: Iterable[str], stats: Stats) -> Iterator[tuple]:
    """(fields, decimal comma) of the lines of the special and mapped sections (the delimiter
    and decimal commas read off the first line). The data rows of other sections (most of a
    recording: per-CPU and per-disk rows) and TOP rows are only counted, in
    ``stats.sections_unmapped``, by regular expressions over blocks of text."""
    delim = None
    unmapped = stats.sections_unmapped
    for block in _blocks(lines):
        if delim is None:
            first = next((ln for ln in block.split("\n", 64) if ln.strip("\r")), None)
            if first is None:
                continue
            delim = ";" if first.startswith("AAA;") else ","
            comma = delim == ";"
            wanted, row, top = _PATTERNS[delim]
        for sec, n in Counter(row.findall(block)).items():
            sec = sec.strip()
            if sec not in SPECIAL and sec not in MAPPED_SECTIONS:
                unmapped[sec] = unmapped.get(sec, 0) + n
        tops = len(top.findall(block))
        if tops:
            unmapped["TOP"] = unmapped.get("TOP", 0) + tops
        for line in wanted.findall(block):
            line = line.rstrip("\r")
            if line.lstrip(" \t").startswith("BBBP"):   # BBBP,NNN,command,"text" (the text may hold the delimiter)
                fields = line.split(delim, 3)
                if len(fields) == 4:
                    fields[3] = fields[3].strip('"')
                yield fields, comma
            else:
                yield line.split(delim), comma
