"""splat lock reports (``splat -da ...``, from trace/trcrpt or perfpmr).

Sections read (tests/fixtures/splat, ../shared/corpus/splat, seed 000):

* Execution summary: ``Elapsed Real Time: 5.012345`` is the window length.
  Without it the window is the ``Percent Held ( 26.235284s )`` figure of the
  first lock detail.
* Per-lock summary: the table whose header names ``%Miss`` and ``%Total``
  (the header is split over several lines). Each row is
  ``name type acquisitions spins wait|transform %miss %total passes/csec
  cpu elapse spin`` (11 fields, ``N/A`` allowed after the acquisitions).
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
from typing import Optional

from . import ParseError, is_number, number, text_lines

COMMAND = "splat"
LOCK_TYPES = {"Q": "runq", "S": "simple", "D": "disabled_simple", "C": "complex", "M": "mutex",
              "V": "condvar", "L": "rwlock", "E": "simple", "K": "krlock"}
_ELAPSED_RE = re.compile(r"^\s*Elapsed Real Time:\s*([0-9.]+)\s*$")
_HELD_RE = re.compile(r"Percent Held \(\s*([0-9.]+)s\s*\)")
_GROSS_RE = re.compile(r"^\s*([A-Za-z][A-Za-z ()]*?):\s+(\d+)\s+(\d+)\s+(\d+)\s+([0-9.]+)(?:\s+([0-9.]+))?(?:\s+\*)?\s*$")
_DETAIL_RE = re.compile(r"^\s*\[([^\]]+)\]")
_DETAIL_TYPES = {"SIMPLE": "simple", "COMPLEX": "complex", "MUTEX": "mutex", "CONDVAR": "condvar",
                 "RWLOCK": "rwlock", "RUNQ": "runq", "KRLOCK": "krlock"}
_TOTAL_ACQ_RE = re.compile(r"^\s*Total Acquisitions:\s+(\d+)")
# name, acquisitions, miss rate, spin count, then wait/transform, busy and four percentages
_FUNC_RE = re.compile(r"^\s*(\S+)\s+(\d+)\s+(\d+(?:\.\d*)?)\s+(\d+)(?:\s+\d+(?:\.\d*)?){6}(?:\s|$)", re.ASCII)
_RULE_RE = re.compile(r"^[\s*=\-^~+]+$")


@dataclass
class LockRow:
    name: str
    type: str            # runq simple disabled_simple complex mutex condvar rwlock, or the letter
    acquisitions: int
    spins: Optional[int]
    miss_percent: float
    total_percent: float


@dataclass
class FunctionRow:
    name: str
    acquisitions: int
    miss_rate: float     # percent
    spin_count: int


@dataclass
class SplatReport:
    window_seconds: Optional[float] = None
    locks: list = field(default_factory=list)
    functions: list = field(default_factory=list)
    gross: dict = field(default_factory=dict)   # kind -> acquisitions
    details: list = field(default_factory=list)  # LockRow from lock detail sections (spins None)


def _opt(tok, no, line):
    return None if tok == "N/A" else number(tok, COMMAND, no, line)


def _snake(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def _detail_name(tokens) -> str:
    """CLASS when the section names one, else ADDRESS."""
    for key in ("CLASS:", "ADDRESS:"):
        if key in tokens[:-1]:
            return tokens[tokens.index(key) + 1]
    return ""


def parse(text: str) -> SplatReport:
    lines = text_lines(text, COMMAND)
    rep = SplatReport()
    held = None
    state = None        # None | "locks" | "functions" | "other_table"
    seen = False
    functions = rep.functions
    func_match = _FUNC_RE.match
    for no, line in enumerate(lines, 1):
        if state == "functions":   # the bulk of a -da report: function detail rows
            m = func_match(line)
            if m:
                functions.append(FunctionRow(m.group(1), int(m.group(2)), float(m.group(3)), int(m.group(4))))
                continue
            st = line.strip()
            if not st:
                state = None
                continue
            if st[0] == "^":
                continue
            raise ParseError(f"{COMMAND}: function detail row needs 9 numeric fields", no, line)
        tokens = line.split()
        stripped = line.strip()
        if "Elapsed Real Time" in line:
            m = _ELAPSED_RE.match(line)
            if m:
                rep.window_seconds = float(m.group(1))
                seen = True
                continue
        if held is None and "Percent Held" in line:
            m = _HELD_RE.search(line)
            if m:
                held = float(m.group(1))
        d = _DETAIL_RE.match(line) if stripped[:1] == "[" else None
        if d and ("ADDRESS:" in tokens or "CLASS:" in tokens):
            kind = next((v for k, v in _DETAIL_TYPES.items() if k in d.group(1).upper()), "unknown")
            detail = LockRow(name=_detail_name(tokens), type=kind, acquisitions=0, spins=None,
                             miss_percent=None, total_percent=0.0)
            rep.details.append(detail)
            state = "detail"
            seen = True
            continue
        if state == "detail" and tokens[:1] == ["ADDRESS:"]:  # the address on its own line
            detail.name = detail.name or _detail_name(tokens)
            continue
        if state == "detail":
            t = _TOTAL_ACQ_RE.match(line)
            if t:
                detail.acquisitions = int(t.group(1))
                continue
            cells = line.split("|")
            if detail.miss_percent is None and len(cells) >= 3 and cells[1].split() and is_number(cells[1].split()[0]):
                detail.miss_percent = float(cells[1].split()[0])
                first = cells[0].split()
                if first and first[0].isdigit():
                    detail.acquisitions = int(first[0])
                continue
        if "%Miss" in tokens and "%Total" in tokens:
            state = "locks"
            seen = True
            continue
        if tokens[:2] == ["Function", "Name"]:
            state = "functions"
            seen = True
            continue
        if tokens and tokens[0] in ("ThreadID", "PThreadID"):
            state = "other_table"
            continue
        if not stripped:
            if state in ("functions", "other_table"):
                state = None
            continue
        if stripped.startswith("( ...") or (stripped[0] in "*=-^~+" and _RULE_RE.match(line)):
            if state == "locks" and set(stripped) == {"*"} and rep.locks:
                state = None  # closing star rule of the per-lock summary
            continue
        g = _GROSS_RE.match(line) if state is None and ":" in line else None
        if g:
            rep.gross[_snake(g.group(1))] = int(g.group(4))
            seen = True
            continue
        if state == "locks":
            if len(tokens) >= 3 and len(tokens[1]) == 1 and tokens[1].isalpha() and tokens[2].isdigit():
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
    for d in rep.details:
        if not d.name:
            raise ParseError(f"{COMMAND}: lock detail without a class or address")
        if d.miss_percent is None:
            raise ParseError(f"{COMMAND}: lock detail {d.name} has no data row (report cut?)")
    return rep
