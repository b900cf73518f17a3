"""Pure parsers: command text in, typed record out. No I/O, no metrics.

Every parser raises :class:`ParseError` (and nothing else) for input it cannot
read; the error names the offending line so the exporter can log it in one line.
"""
from __future__ import annotations

import re
from collections import deque
from itertools import islice
from typing import Optional


class ParseError(ValueError):
    """Input that is not the command's output format.

    ``line_no`` is 1-based (0 when the problem is not tied to one line).
    """

    def __init__(self, message: str, line_no: int = 0, line: str = ""):
        self.message = message
        self.line_no = line_no
        self.line = line
        super().__init__(self.__str__())

    def __str__(self) -> str:  # one line, always
        if self.line_no:
            shown = self.line if len(self.line) <= 120 else self.line[:117] + "..."
            return f"{self.message} (line {self.line_no}: {shown!r})"
        return self.message


def text_lines(text: str, command: str) -> list[str]:
    """Split command output into lines with trailing blanks and tabs removed.

    Rejects empty output and binary data (NUL bytes or undecodable bytes that the
    source replaced with U+FFFD) with a ParseError.
    """
    if not text or text.isspace():  # (not text.strip(): no copy of a large report)
        raise ParseError(f"{command}: empty output")
    bad = [i for i in (text.find("\x00"), text.find("\ufffd")) if i >= 0]
    if bad:   # the offending line is cut before it is escaped: a 1 GB line of NULs costs nothing
        at = min(bad)
        start = text.rfind("\n", 0, at) + 1
        line = text[start:start + 80]
        raise ParseError(f"{command}: binary data in output", text.count("\n", 0, at) + 1,
                         line.encode("unicode_escape").decode()[:80])
    return [line.rstrip() for line in text.splitlines()]


def consume(iterator, n: int) -> None:
    """Advance an iterator by n items at C speed (the itertools recipe): a parser that read a
    whole table in one pass skips its lines."""
    deque(islice(iterator, n), maxlen=0)


def table_end(lines: list, start: int) -> int:
    """Index of the first blank line at or after ``start`` (``len(lines)`` if none): where a
    table that starts at ``lines[start]`` ends. Lines from text_lines are right-stripped, so a
    blank line is the empty string."""
    try:
        return lines.index("", start)
    except ValueError:
        return len(lines)


def is_digits(token: str) -> bool:
    """Only ASCII digits: a whole number as AIX prints it. (str.isdigit alone also accepts
    superscript and circled digits, which int() rejects.)"""
    return token.isdigit() and token.isascii()


_NUM_RE = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def is_number(token: str) -> bool:
    if not token or not (token[0] in "+-." or token[0].isdigit()):
        return False  # fast reject of words (the regex needs a sign, a dot or a digit first)
    if token.isascii():
        # fast paths for the common shapes: 123, 12.5 (same language as _NUM_RE)
        if token.isdigit() or token.replace(".", "", 1).isdigit():
            return True
    return bool(_NUM_RE.match(token))


_TWO_DOTS_RE = re.compile(r"\.[0-9]*\.")


def all_numbers(tokens) -> bool:
    """``all(is_number(t) for t in tokens)``, decided in a few steps for rows of plain digits and
    decimals: such a token fails only as a lone ``.`` or with a second dot."""
    joined = "".join(tokens)
    if joined.isascii() and joined.replace(".", "").isdigit():
        if "." not in joined:
            return True
        if "." not in tokens and not _TWO_DOTS_RE.search(" ".join(tokens)):
            return True
    return all(is_number(t) for t in tokens)


_INT_RE = re.compile(r"^[+-]?\d+$")


def number(token: str, command: str = "", line_no: int = 0, line: str = "") -> float:
    """A decimal number token; integers stay exact as Python ints."""
    if token.isascii():
        if token.isdigit():
            return int(token)
        if token.replace(".", "", 1).isdigit():
            return float(token)
    if not _NUM_RE.match(token):
        raise ParseError(f"{command}: not a number: {token!r}", line_no, line)
    if _INT_RE.match(token):
        return int(token)
    return float(token)


# Binary multipliers used by AIX tunable tools (vmo -L prints 16M, 8E-1, 4K ...)
_SUFFIX = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50, "E": 1 << 60}
_SUFFIXED_RE = re.compile(r"^(\d+(?:\.\d+)?)([KMGTPE])(-1)?$")


def suffixed_number(token: str) -> Optional[float]:
    """Parse '16777216', '16M', '8E-1' (= 8E minus one, vmo's 'maximum'), '4K'.

    Returns None for 'n/a' and other non-numeric values.
    """
    m = _SUFFIXED_RE.match(token)  # before plain numbers: '8E-1' is not 0.8 here
    if not m:
        return number(token) if is_number(token) else None
    base = float(m.group(1)) * _SUFFIX[m.group(2)]
    value = int(base) if base.is_integer() else base
    if m.group(3):
        value -= 1
    return value
