"""Format rules shared by the dsmadmc queries (``dsmadmc -dataonly=yes -comma``):

* ``-dataonly=yes`` drops the banner and column headings; ``-comma`` separates a row's
  fields with commas, one row a line (a field that holds a comma comes in double quotes).
* A query that matches nothing prints ``ANR2034E ... No match found using this criteria.``
  (and dsmadmc exits 11): an empty answer, not an error.
* Lines that are ``ANR``/``ANS`` messages are not rows.
* A number in a ``select`` answer is the column's raw value: never a thousands separator, so a
  comma in it is the decimal comma of a server that prints its locale's (``"99,8"``, quoted by
  ``-comma``; treydock/tsm_exporter#26): ``decimal`` reads both.
* A line the csv module refuses (a field longer than its 131,072-character limit) is not a row:
  the answer is an error naming the line, as a row with the wrong field count is.
"""
from __future__ import annotations

import csv
import re

from . import ParseError, is_digits, text_lines

NO_MATCH_RE = re.compile(r"\bANR2034E\b")
MESSAGE_RE = re.compile(r"^\s*AN[RS]\d{4}[IWESD]\b")


def numbered_rows(text: str, command: str, fields) -> list:
    """The rows of a query answer as (line number, line, [``fields`` strings]); ``fields`` a
    number, or a tuple of the numbers a row may have. (The no-match answer ANR2034E is a
    message line, so it gives no row.)"""
    lines = text_lines(text, command)
    allowed = fields if isinstance(fields, tuple) else (fields,)
    out = []
    for no, line in enumerate(lines, 1):
        if not line.strip() or MESSAGE_RE.match(line):
            continue
        try:
            row = next(csv.reader([line]))
        except csv.Error as e:   # a field beyond csv's limit (128 KiB): no name or number is that long
            raise ParseError(f"{command}: not a row of comma-separated fields ({e})", no, line) from None
        if len(row) not in allowed:
            raise ParseError(f"{command}: expected {' or '.join(map(str, allowed))} comma-separated fields", no, line)
        out.append((no, line, [f.strip() for f in row]))
    return out


def rows(text: str, command: str, fields: int) -> list:
    """The rows of a query answer, each a list of ``fields`` strings."""
    return [row for _, _, row in numbered_rows(text, command, fields)]


_DECIMAL_RE = re.compile(r"^[+-]?\d+(?:[.,]\d+)?$")


def decimal(token: str, command: str, line: str, no: int) -> float:
    """A number of a select answer: digits with a decimal point or a decimal comma (the
    module's rule); anything else, a thousands separator included, is an error naming the line."""
    if not _DECIMAL_RE.match(token) or not token.isascii():
        raise ParseError(f"{command}: {token!r} is not a number", no, line)
    return float(token.replace(",", "."))


def whole(token: str, command: str, line: str, no: int) -> int:
    if not is_digits(token):
        raise ParseError(f"{command}: {token!r} is not a whole number", no, line)
    return int(token)


def records(text: str, command: str, cls, kinds: str) -> list:
    """Rows as ``cls`` instances; ``kinds`` names each field's type in order: ``i`` a whole
    number (an empty sum counts 0), ``s`` text (an empty name is '-'). A field that is not a
    whole number is an error naming its line."""
    out = []
    for no, line, row in numbered_rows(text, command, len(kinds)):
        out.append(cls(*(whole(v or "0", command, line, no) if k == "i" else (v or "-") for k, v in zip(kinds, row))))
    return out
