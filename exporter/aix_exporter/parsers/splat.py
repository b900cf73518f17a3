"""splat lock reports (``splat -da ...``, from trace/trcrpt or perfpmr).

Sections read (tests/fixtures/splat, ../shared/corpus/splat, seed 000):

* Execution summary: ``Elapsed Real Time: 5.012345`` is the window length.
  Without it the window is the ``Percent Held ( 26.235284s )`` figure of the
  first lock detail.
* Per-lock summary: the table whose header names ``%Miss`` and ``%Total``
  (the header is split over several lines). Each row is
  ``name type acquisitions spins wait|transform %miss %total passes/csec
  cpu elapse spin`` (11 fields, ``N/A`` allowed after the acquisitions, which
  is a whole number).
  ``( ... lines omitted ... )`` lines are skipped.
* Function details: rows under a ``Function Name`` header (optionally
  underlined with ``^``): ``name acquisitions miss-rate spin-count`` followed
  by wait/transform, busy, four percentages and optional return address,
  start address and offset. Rows end at a blank line.
* Lock details: ``[AIX SIMPLE Lock] CLASS: X ADDRESS: Y`` (or ``[PThread
  MUTEX] ADDRESS: Y``) sections; the first ``|``-separated data row gives the
  miss rate (first number of its second cell; its first cell, when numeric,
  is the acquisition count) and ``Total Acquisitions: N`` the acquisitions.
* Gross lock summary: ``Label: total unique acquisitions per-second [spin]``.
* Any row of a table that has too few fields (a report cut in the middle) is
  an error.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional

from . import ParseError, consume, is_digits, is_number, number, table_end, text_lines

COMMAND = "splat"
LOCK_TYPES = {"Q": "runq", "S": "simple", "D": "disabled_simple", "C": "complex", "M": "mutex",
              "V": "condvar", "L": "rwlock", "E": "simple", "K": "krlock"}
_ELAPSED_RE = re.compile(r"^\s*Elapsed Real Time:\s*(\d+(?:\.\d*)?)\s*$", re.ASCII)
_HELD_RE = re.compile(r"Percent Held \(\s*(\d+(?:\.\d*)?)s\s*\)", re.ASCII)
_GROSS_RE = re.compile(r"^\s*([A-Za-z][A-Za-z ()]*?):\s+(\d+)\s+(\d+)\s+(\d+)\s+([0-9.]+)(?:\s+([0-9.]+))?(?:\s+\*)?\s*$")
_DETAIL_RE = re.compile(r"^\s*\[([^\]]+)\]")
_DETAIL_TYPES = {"SIMPLE": "simple", "COMPLEX": "complex", "MUTEX": "mutex", "CONDVAR": "condvar",
                 "RWLOCK": "rwlock", "RUNQ": "runq", "KRLOCK": "krlock"}
_TOTAL_ACQ_RE = re.compile(r"^\s*Total Acquisitions:\s+(\d+)")
# name, acquisitions, miss rate, spin count, then wait/transform, busy and four percentages
_FUNC_RE = re.compile(r"^\s*(\S+)\s+(\d+)\s+(\d+(?:\.\d*)?)\s+(\d+)(?:\s+\d+(?:\.\d*)?){6}(?:\s|$)", re.ASCII)
# The same rule over a block of whole lines, one match per line (a line holds no newline);
# ``\d+\.?\d*`` is ``\d+(?:\.\d*)?`` written so that the regex engine backtracks less.
_DEC = r"\d+\.?\d*"
_FUNC_ROWS_RE = re.compile(
    r"^[ \t]*(\S+)[ \t]+(\d+)[ \t]+(%s)[ \t]+(\d+)%s(?:[ \t].*)?$" % (_DEC, (r"[ \t]+" + _DEC) * 6),
    re.ASCII | re.MULTILINE)
_RULE_RE = re.compile(r"^[\s*=\-^~+]+$")
_RULE_CHARS = "*=-^~+"


def _is_rule(stripped: str) -> bool:
    """A rule line: only rule characters and blanks (the regex decides the rare mixed cases)."""
    return not stripped.strip("*=-^~+ ") or bool(_RULE_RE.match(stripped))


@dataclass
class LockRow:
    name: str
    type: str            # runq simple disabled_simple complex mutex condvar rwlock, or the letter
    acquisitions: int
    spins: Optional[int]
    miss_percent: Optional[float]
    total_percent: float


@dataclass
class FunctionStats:
    """A function's rows under every lock detail of the report, summed while reading (a long
    report has 100,000s of rows and few distinct functions)."""
    name: str
    acquisitions: int = 0
    misses: float = 0.0     # missed acquisitions: the sum of acquisitions x miss rate
    spin_count: int = 0

    @property
    def miss_ratio(self) -> float:
        return self.misses / self.acquisitions if self.acquisitions else 0.0


@dataclass
class SplatReport:
    window_seconds: Optional[float] = None
    locks: list = field(default_factory=list)
    functions: dict = field(default_factory=dict)   # name -> FunctionStats, in order of appearance
    gross: dict = field(default_factory=dict)   # kind -> acquisitions
    details: list = field(default_factory=list)  # LockRow from lock detail sections (spins None)


def _opt(tok, no, line):
    return None if tok == "N/A" else number(tok, COMMAND, no, line)


def _snake(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


@lru_cache(maxsize=64)
def _detail_kind(label: str) -> str:
    """'AIX SIMPLE Lock' -> 'simple', 'PThread MUTEX' -> 'mutex' (a report names few kinds)."""
    label = label.upper()
    return next((v for k, v in _DETAIL_TYPES.items() if k in label), "unknown")


def _detail_name(tokens) -> str:
    """CLASS when the section names one, else ADDRESS."""
    for key in ("CLASS:", "ADDRESS:"):
        if key in tokens[:-1]:
            return tokens[tokens.index(key) + 1]
    return ""


def _add_function_rows(acc: dict, rows) -> None:
    """Sum (name, acquisitions, miss rate %, spin count) rows into acc[name] = [acq, acq x rate, spins]."""
    for name, acq, rate, spins in rows:
        a = int(acq)
        f = acc.get(name)
        if f is None:
            f = acc[name] = [0, 0.0, 0]
        f[0] += a
        f[1] += a * float(rate)
        f[2] += int(spins)


def _function_rows(lines: list, start: int, end: int) -> Optional[list]:
    """The function rows lines[start:end] (after the optional ^ underline) as (name, acquisitions,
    miss rate, spin count) strings in one regex pass, or None when any line is not a plain row
    (the line-by-line path then decides)."""
    while start < end and lines[start].lstrip()[:1] == "^":
        start += 1
    rows = _FUNC_ROWS_RE.findall("\n".join(lines[start:end]))
    if len(rows) != end - start:
        return None
    return rows


def _inert(block: str) -> bool:
    """True when no line of a ThreadID table's block can change the parser's state (none holds
    a section anchor): the table is then skipped to its blank line in one step."""
    return not ("[" in block or "%Miss" in block or "Function" in block or "Elapsed Real Time" in block
                or "Percent Held" in block)


def parse(text: str) -> SplatReport:  # noqa: C901 (issue 46: too complex today, must not grow)
    lines = text_lines(text, COMMAND)
    rep = SplatReport()
    held = None
    state = None        # None | "detail" | "locks" | "functions" | "other_table"
    seen = False
    detail = None
    functions: dict = {}
    func_match = _FUNC_RE.match
    numbered = enumerate(lines, 1)
    for no, line in numbered:
        if not line:  # blank: ends function and thread tables
            if state == "functions" or state == "other_table":
                state = None
            continue
        if state == "functions":   # only when the block pass declined: line by line
            m = func_match(line)
            if m:
                _add_function_rows(functions, (m.groups(),))
                continue
            if line.lstrip()[0] == "^":
                continue
            raise ParseError(f"{COMMAND}: function detail row needs 9 numeric fields", no, line)
        # The checks below run in the order of the format rules; each is gated on the first
        # character it can start with, so that most lines cost a few comparisons.
        stripped = line.lstrip()
        c = stripped[0]
        if c == "E" and "Elapsed Real Time" in line:
            m = _ELAPSED_RE.match(line)
            if m:
                rep.window_seconds = float(m.group(1))
                seen = True
                continue
        if held is None and "Percent Held" in line:
            m = _HELD_RE.search(line)
            if m:
                held = float(m.group(1))
        if c == "[":
            d = _DETAIL_RE.match(line)
            tokens = line.split()
            if d and ("ADDRESS:" in tokens or "CLASS:" in tokens):
                kind = _detail_kind(d.group(1))
                detail = LockRow(name=_detail_name(tokens), type=kind, acquisitions=0, spins=None,
                                 miss_percent=None, total_percent=0.0)
                rep.details.append(detail)
                state = "detail"
                seen = True
                continue
        if state == "detail":
            assert detail is not None   # state "detail" starts with one
            # the address on its own line
            if c == "A" and stripped.startswith("ADDRESS:") and line.split()[0] == "ADDRESS:":
                detail.name = detail.name or _detail_name(line.split())
                continue
            if c == "T" and stripped.startswith("Total Acquisitions:"):
                t = _TOTAL_ACQ_RE.match(line)
                if t:
                    detail.acquisitions = int(t.group(1))
                    continue
            if detail.miss_percent is None and "|" in line:
                cells = line.split("|", 2)
                second = cells[1].split() if len(cells) == 3 else None
                if second and is_number(second[0]):
                    detail.miss_percent = float(second[0])
                    first = cells[0].split()
                    if first and is_digits(first[0]):
                        detail.acquisitions = int(first[0])
                    continue
        if "%Miss" in line and "%Total" in line:
            tokens = line.split()
            if "%Miss" in tokens and "%Total" in tokens:
                state = "locks"
                seen = True
                continue
        if c == "F" and stripped.startswith("Function") and line.split()[:2] == ["Function", "Name"]:
            state = "functions"
            seen = True
            end = table_end(lines, no)
            rows = _function_rows(lines, no, end)
            if rows is not None:
                _add_function_rows(functions, rows)
                consume(numbered, end - no + 1)  # the rows and the blank line that ends them
                state = None
            continue
        if (c == "T" or c == "P") and stripped.startswith(("ThreadID", "PThreadID")) \
                and line.split()[0] in ("ThreadID", "PThreadID"):
            state = "other_table"
            end = table_end(lines, no)
            if _inert("\n".join(lines[no:end])):
                consume(numbered, end - no + 1)
                state = None
            continue
        if (c == "(" and stripped.startswith("( ...")) or (c in _RULE_CHARS and _is_rule(stripped)):
            if state == "locks" and set(stripped) == {"*"} and rep.locks:
                state = None  # closing star rule of the per-lock summary
            continue
        g = _GROSS_RE.match(line) if state is None and ":" in line else None
        if g:
            rep.gross[_snake(g.group(1))] = int(g.group(4))
            seen = True
            continue
        if state == "locks":
            tokens = line.split()
            whole = len(tokens) >= 3 and is_digits(tokens[2])
            if len(tokens) >= 3 and len(tokens[1]) == 1 and tokens[1].isalpha() and (whole or len(tokens) == 11):
                if not whole:
                    raise ParseError(f"{COMMAND}: per-lock row's acquisitions {tokens[2]!r} is not a whole number",
                                     no, line)
                if len(tokens) != 11:
                    raise ParseError(f"{COMMAND}: per-lock row has {len(tokens)} fields, expected 11", no, line)
                spins = _opt(tokens[3], no, line)
                rep.locks.append(LockRow(name=tokens[0], type=LOCK_TYPES.get(tokens[1], tokens[1]),
                                         acquisitions=int(tokens[2]), spins=spins,
                                         miss_percent=_opt(tokens[5], no, line) or 0.0,
                                         total_percent=_opt(tokens[6], no, line) or 0.0))
                continue
            state = None  # the table ended without a rule
    if not seen:
        raise ParseError(f"{COMMAND}: no splat section (execution summary, lock summary, function details) found")
    if rep.window_seconds is None:
        rep.window_seconds = held
    rep.functions = {name: FunctionStats(name, acq, weighted / 100.0, spins)
                     for name, (acq, weighted, spins) in functions.items()}
    for d in rep.details:
        if not d.name:
            raise ParseError(f"{COMMAND}: lock detail without a class or address")
        if d.miss_percent is None:
            raise ParseError(f"{COMMAND}: lock detail {d.name} has no data row (report cut?)")
    return rep
