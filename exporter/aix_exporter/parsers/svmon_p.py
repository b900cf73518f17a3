"""Process report: ``svmon -P [pid ...]`` (also ``-O`` styles).

Format rules (tests/fixtures/svmon_P, ../shared/corpus/svmon-P, seed 000):

* Each process starts under a header ``Pid Command Inuse Pin Pgsp Virtual``
  followed by optional flag columns: ``64-bit Mthrd 16MB`` (5.3/6.1),
  ``64-bit Mthrd LPage`` / ``LPageCap`` (5.3), none (7.x, ``-O``). Several
  process rows may follow one header (``-O summary=basic``). The process row's
  values are in 4 KB frames (or in the ``Unit:`` of ``-O unit=...``).
* The large-page mode is the ``16MB`` column (``N``, ``Y``, ``M``), else the
  ``LPage`` column; without either the mode is ``unknown``.
* An optional ``PageSize Inuse Pin Pgsp Virtual`` table: rows ``s 4 KB``,
  ``m 64 KB``, ``L 16 MB``, ``S 16 GB``; values in that row's page size
  (without ``Unit:``), e.g. 42 + 16x1012 + 4096x18 = 89962 frames.
* Segment rows under ``Vsid Esid Type Description [PSize|LPage] Inuse Pin Pgsp
  Virtual [Addr Range]`` (the header says how many fields follow the description): Esid may be ``-`` or ``* -`` (two tokens), the
  description may be empty or several words, ``-`` in Pgsp/Virtual means none.
  Read from both ends: Vsid, Esid.., Type (work pers clnt mmap rmap), then
  from the right Virtual Pgsp Pin Inuse [PSize]. Values are in the segment's
  page size (``sm`` segments in 4 KB units). Continuation lines
  (``source(s)=``, ``children=``, address ranges) are skipped.
* Work segments described ``text data BSS heap`` are the process heap
  segments that the case study's sizing rule counts (segments x 16 + 32).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from . import PAGE_SIZE_UNITS, ParseError, is_number, number, psize_label, svmon_unit, text_lines

COMMAND = "svmon -P"
FRAME = 4096
PSIZE_LETTER = {"s": ("4K", 4096), "m": ("64K", 65536), "L": ("16M", 16 << 20), "S": ("16G", 16 << 30),
                "sm": ("4K", 4096)}
_SEG_TYPES = {"work", "pers", "clnt", "mmap", "rmap"}
_PS_ROW_RE = re.compile(r"^\s*([smLS])\s+(\d+)\s*(KB|MB|GB)\s+(.*)$")
_RANGE_RE = re.compile(r"^\d+\.\.\d+:?$")
HEAP_DESCRIPTION = "text data BSS heap"


@dataclass
class Segment:
    vsid: str
    esid: str
    type: str
    description: str
    psize: Optional[str]   # s m L S sm, None in old formats
    inuse: float
    pin: float
    pgsp: float
    virtual: float


@dataclass
class Process:
    pid: int
    command: str
    inuse: float        # bytes
    pin: float
    pgsp: float
    virtual: float
    large_page_mode: str = "unknown"   # N, Y, M or unknown
    unit_report: bool = False          # -O unit=...: no page-size detail unless tables say so
    page_sizes: dict = field(default_factory=dict)  # psize -> {"inuse","pin","pgsp","virtual"} bytes
    segments: list = field(default_factory=list)

    @property
    def heap_segments(self) -> int:
        return sum(1 for s in self.segments
                   if s.type == "work" and s.description.rstrip(",").startswith(HEAP_DESCRIPTION))

    def by_psize(self) -> dict:
        """Bytes per page size: the PageSize table, else the segment rows' PSize.

        Old-format rule: a report without a ``Unit:`` banner that has neither a
        PageSize table nor a PSize column predates multiple page sizes, so all
        of it is 4 KB. ``-O`` summaries without either carry no page-size detail.
        """
        if self.page_sizes:
            return self.page_sizes
        if not self.unit_report and not any(s.psize for s in self.segments):
            return {"4K": {"inuse": self.inuse, "pin": self.pin, "pgsp": self.pgsp, "virtual": self.virtual}}
        out: dict = {}
        for s in self.segments:
            if s.psize is None:
                continue
            label, size = PSIZE_LETTER[s.psize]
            acc = out.setdefault(label, {"inuse": 0, "pin": 0, "pgsp": 0, "virtual": 0})
            for k in acc:
                acc[k] += getattr(s, k) * size
        return out


def _val(tok, no, line, unit_bytes):
    if tok.isdigit() and tok.isascii():
        return int(tok)
    if tok == "-":
        return 0
    v = number(tok, COMMAND, no, line)
    if unit_bytes is None and isinstance(v, float):
        raise ParseError(f"{COMMAND}: fractional value {tok!r} without a 'Unit:' banner", no, line)
    return v


_HEADS = {"Pid", "PageSize", "Vsid"}


def _is_rule(token: str) -> bool:
    return token[0] in "-=" and token.strip(token[0]) == ""


def parse(text: str) -> list:
    lines = text_lines(text, COMMAND)
    unit_bytes, banner = svmon_unit(lines, text, COMMAND)
    frame = unit_bytes or FRAME
    procs: list = []
    proc_cols = None
    seg_cols = None
    has_psize = has_addr = False
    tail = 4
    in_pagesize = False
    cur: Optional[Process] = None
    for no, line in enumerate(lines, 1):
        tokens = line.split()
        if not tokens:
            continue
        t0 = tokens[0]
        if seg_cols is not None and t0 not in _HEADS and t0 != "Unit:":
            # the bulk of a report: segment rows
            if _is_rule(t0):
                continue
            if ".." in t0 or "=" in t0:
                continue  # continuation: address range, source(s)=, children=
            cur.segments.append(_segment_row(has_psize, has_addr, tail, tokens, no, line, unit_bytes))
            continue
        if _is_rule(t0) or t0 == "Unit:":
            continue
        if t0 == "Pid" and tokens[1:2] == ["Command"]:
            proc_cols = tokens[2:]
            seg_cols = None
            in_pagesize = False
            continue
        if t0 == "PageSize":
            in_pagesize = True
            continue
        if t0 == "Vsid" and tokens[1:2] == ["Esid"]:
            if cur is None:
                raise ParseError(f"{COMMAND}: segment table before any process row", no, line)
            seg_cols = tokens
            has_psize, has_addr = "PSize" in tokens, "Addr" in tokens
            # fields after the description: PSize (or 5.3's per-segment LPage flag) and four values
            tail = len(tokens) - tokens.index("Description") - 1 - (2 if has_addr else 0) \
                if "Description" in tokens else (5 if has_psize else 4)
            in_pagesize = False
            continue
        if proc_cols is not None and not in_pagesize and t0.isascii() and t0.isdigit() \
                and len(tokens) >= 6 and all(is_number(t) for t in tokens[2:6]):
            cur = _process_row(proc_cols, tokens, no, line, unit_bytes, frame, banner)
            procs.append(cur)
            continue
        if in_pagesize:
            m = _PS_ROW_RE.match(line)
            if m:
                if cur is None:
                    raise ParseError(f"{COMMAND}: PageSize row before any process row", no, line)
                size = int(m.group(2)) * PAGE_SIZE_UNITS[m.group(3)]
                vals = m.group(4).split()
                if len(vals) != 4:
                    raise ParseError(f"{COMMAND}: PageSize row needs Inuse Pin Pgsp Virtual", no, line)
                mult = unit_bytes or size
                v = [_val(t, no, line, unit_bytes) * mult for t in vals]
                cur.page_sizes[psize_label(int(m.group(2)), m.group(3))] = dict(zip(("inuse", "pin", "pgsp", "virtual"), v))
                continue
        # anything else (prompts, prose) before a table is ignored
    if not procs:
        raise ParseError(f"{COMMAND}: no process rows found (no 'Pid Command' header with a row)")
    return procs


def _process_row(cols, tokens, no, line, unit_bytes, frame, banner) -> Process:
    vals = tokens[2:]
    if len(vals) != len(cols):
        raise ParseError(f"{COMMAND}: process row has {len(vals)} fields for {len(cols)} columns", no, line)
    row = dict(zip(cols, vals))
    try:
        nums = {k: _val(row[k], no, line, unit_bytes) * frame for k in ("Inuse", "Pin", "Pgsp", "Virtual")}
    except KeyError as e:
        raise ParseError(f"{COMMAND}: process header lacks column {e.args[0]}", no, line) from None
    mode = row.get("16MB", row.get("LPage", "unknown"))
    if mode not in ("N", "Y", "M", "unknown"):
        raise ParseError(f"{COMMAND}: unknown large-page mode {mode!r}", no, line)
    return Process(pid=int(tokens[0]), command=tokens[1], inuse=nums["Inuse"], pin=nums["Pin"],
                   pgsp=nums["Pgsp"], virtual=nums["Virtual"], large_page_mode=mode,
                   unit_report=banner)


def _segment_row(has_psize, has_addr, tail, tokens, no, line, unit_bytes) -> Segment:
    if has_addr:  # old format: trailing address range(s)
        while tokens and (_RANGE_RE.match(tokens[-1]) or tokens[-1] == ":"):
            tokens = tokens[:-1]
    n = len(tokens)
    if n > 2 and tokens[2] in _SEG_TYPES:
        t_idx = 2
    elif n > 1 and tokens[1] in _SEG_TYPES:
        t_idx = 1
    elif n > 3 and tokens[3] in _SEG_TYPES:
        t_idx = 3
    else:
        raise ParseError(f"{COMMAND}: segment row without a segment type", no, line)
    if n < t_idx + 1 + tail:
        raise ParseError(f"{COMMAND}: segment row too short", no, line)
    psize = tokens[n - 5] if has_psize else None
    if psize is not None and psize not in PSIZE_LETTER:
        raise ParseError(f"{COMMAND}: unknown PSize {psize!r}", no, line)
    a, b, c, d = tokens[n - 4:]
    return Segment(tokens[0], " ".join(tokens[1:t_idx]), tokens[t_idx], " ".join(tokens[t_idx + 1:n - tail]), psize,
                   _val(a, no, line, unit_bytes), _val(b, no, line, unit_bytes),
                   _val(c, no, line, unit_bytes), _val(d, no, line, unit_bytes))
