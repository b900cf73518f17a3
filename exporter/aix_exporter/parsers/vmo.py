"""VMM tunables: ``vmo -L [tunable ...]`` and ``vmo -a``.

Format rules (tests/fixtures/vmo and ../shared/corpus/vmo-lgpg):

* ``vmo -L``: a header ``NAME CUR DEF BOOT MIN MAX UNIT TYPE`` followed by an
  indented ``DEPENDENCIES`` line and dashed rules. Each tunable row starts in
  column 0; indented lines under it are its dependencies. Cells can be empty,
  so cells are assigned to columns by position: a token belongs to the column
  whose header span contains the token's first character.
  Every tunable block is closed by a dashed rule: output that ends without
  one was cut. Values may carry binary suffixes (``16M``; ``8E-1`` is 8 EiB minus one) or be
  ``n/a``.
* ``vmo -a``: ``name = value`` lines, current values only (the first line may
  start with a TAB).
* The range rule: every value the framework shows is a whole number from -1 (a tunable's
  "not set" or "automatic") to ``8E-1`` (2^63 - 1); under ``-L`` the current, default and boot
  values also lie within the tunable's own MIN and MAX where the row gives both. A value
  outside (``1e308``, ``-160``, a boot value above MAX) is output garbled or misread, refused
  with the tunable's line, never served (domains.py: what a value can be).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Optional

from . import ParseError, suffixed_number, text_lines

COMMAND = "vmo"
LOWEST, HIGHEST = -1, (1 << 63) - 1   # the tuning framework's values: -1, or 0 to 8E-1
_HEADER = ["NAME", "CUR", "DEF", "BOOT", "MIN", "MAX", "UNIT", "TYPE"]
_ASSIGN_RE = re.compile(r"^\s*([A-Za-z0-9_%]+)\s*=\s*(\S*)\s*$")
_NAME_RE = re.compile(r"^[A-Za-z0-9_%]+$")


@dataclass
class Tunable:
    name: str
    current: Optional[float]
    default: Optional[float] = None
    boot: Optional[float] = None
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    unit: str = ""
    type: str = ""
    dependencies: tuple = ()


def parse(text: str) -> dict:
    """Return {name: Tunable}."""
    return parse_tunables(text, COMMAND)


def parse_tunables(text: str, command: str) -> dict:
    """The tuning framework's display, shared by vmo, asoo (and ioo, schedo, no): ``-L`` or ``-a``."""
    lines = [l.expandtabs(8) for l in text_lines(text, command)]
    for no, line in enumerate(lines, 1):
        if line.split()[:len(_HEADER)] == _HEADER and line.startswith("NAME"):
            return _parse_L(lines, no, command)
    return _parse_a(lines, command)


def _parse_a(lines, command: str) -> dict:
    out = {}
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        m = _ASSIGN_RE.match(line)
        if not m:
            raise ParseError(f"{command}: neither a '{command} -L' table nor 'name = value'", no, line)
        out[m.group(1)] = _in_range(Tunable(name=m.group(1), current=suffixed_number(m.group(2))), command, no, line)
    return out   # not empty: text_lines rejects output without a non-blank line


def _spans(header: str):
    starts = [(m.start(), m.group()) for m in re.finditer(r"\S+", header)]
    spans = []
    for i, (start, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else 10 ** 6
        spans.append((name, start, end))
    return spans


def _parse_L(lines, header_no, command: str) -> dict:
    spans = _spans(lines[header_no - 1])
    out: dict = {}
    current: Optional[Tunable] = None
    closed = True
    for no in range(header_no + 1, len(lines) + 1):
        line = lines[no - 1]
        stripped = line.strip()
        if not stripped:
            continue
        if set(stripped) <= {"-"}:
            closed = True
            continue
        if stripped == "DEPENDENCIES":  # second header line, indented in real output
            continue
        if line[0].isspace():
            if current is None:
                raise ParseError(f"{command}: dependency line before any tunable", no, line)
            current.dependencies += tuple(stripped.split())
            continue
        cells: dict = {name: [] for name, _, _ in spans}
        for m in re.finditer(r"\S+", line):
            for name, start, end in spans:
                if start <= m.start() < end:
                    cells[name].append(m.group())
                    break
        name = " ".join(cells["NAME"])
        if not _NAME_RE.match(name):
            raise ParseError(f"{command}: bad tunable name {name!r}", no, line)

        def val(col, cells=cells):
            return suffixed_number(" ".join(cells[col])) if cells[col] else None

        current = Tunable(name=name, current=val("CUR"), default=val("DEF"), boot=val("BOOT"),
                          minimum=val("MIN"), maximum=val("MAX"), unit=" ".join(cells["UNIT"]),
                          type=" ".join(cells["TYPE"]))
        out[name] = _in_range(current, command, no, line)
        closed = False
    if not out:
        raise ParseError(f"{command}: {command} -L header without tunable rows")
    if not closed:
        raise ParseError(f"{command}: the last tunable block has no closing rule (output cut?)")
    return out


def _in_range(t: Tunable, command: str, no: int, line: str) -> Tunable:
    """The range rule (module text): the tunable as it is, or ParseError naming its line."""
    for what, value in (("current", t.current), ("default", t.default), ("boot", t.boot)):
        if value is None:
            continue
        if not math.isfinite(value) or value != int(value):
            raise ParseError(f"{command}: {t.name} {what} value {value!r} is not a whole number", no, line)
        if not LOWEST <= value <= HIGHEST:
            raise ParseError(f"{command}: {t.name} {what} value {value:g} is outside -1..8E-1", no, line)
        if t.minimum is not None and t.maximum is not None and value != -1 and not t.minimum <= value <= t.maximum:
            raise ParseError(f"{command}: {t.name} {what} value {value:g} is outside its own range "
                             f"{t.minimum:g}..{t.maximum:g}", no, line)
    return t
