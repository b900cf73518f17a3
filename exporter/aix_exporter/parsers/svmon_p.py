"""Process report: ``svmon -P [pid ...]`` (also ``-O`` styles).

Format rules (tests/fixtures/svmon_p, ../shared/corpus/svmon-P, seed 000):

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
  Virtual [Addr Range]`` (the header says how many fields follow the
  description, at least the four values and the PSize when there is one):
  Esid may be ``-`` or ``* -`` (two tokens), the
  description may be empty or several words, ``-`` in Pgsp/Virtual means none.
  Read from both ends: Vsid, Esid.., Type (work pers clnt mmap rmap), then
  from the right Virtual Pgsp Pin Inuse [PSize]. Values are in the segment's
  page size (``sm`` segments in 4 KB units), or in the ``Unit:`` of ``-O unit=...``
  (read as pages of the segment's size). Continuation lines
  (``source(s)=``, ``children=``, address ranges) are skipped.
* Work segments described ``text data BSS heap`` are the process heap
  segments that the case study's sizing rule counts (segments x 16 + 32).

The record sums the segment rows of each process while reading (their count,
the heap segments, and Inuse Pin Pgsp Virtual per PSize): a report lists about
ten segments per process and no metric is per segment.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional

from . import ParseError, all_numbers, is_digits, number, text_lines
from .svmon import PAGE_SIZE_UNITS, PS_ROW_RE, PSIZE_LETTER, psize_label, svmon_unit

COMMAND = "svmon -P"
FRAME = 4096
_SEG_TYPES = {"work", "pers", "clnt", "mmap", "rmap"}
_RANGE_RE = re.compile(r"^\d+\.\.\d+:?$")
HEAP_DESCRIPTION = "text data BSS heap"


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
    # Segment rows are summed while reading (a report lists ~10 per process; no metric is per segment):
    segment_count: int = 0             # segment rows read; 0 when the report has no segment table
    heap_segments: int = 0             # work segments described 'text data BSS heap'
    segment_pages: dict = field(default_factory=dict)  # PSize letter -> [inuse, pin, pgsp, virtual] in that size

    def by_psize(self) -> dict:
        """Bytes per page size: the PageSize table, else the segment rows' PSize.

        Old-format rule: a report without a ``Unit:`` banner that has neither a
        PageSize table nor a PSize column predates multiple page sizes, so all
        of it is 4 KB. ``-O`` summaries without either carry no page-size detail.
        """
        if self.page_sizes:
            return self.page_sizes
        if not self.unit_report and not self.segment_pages:
            return {"4K": {"inuse": self.inuse, "pin": self.pin, "pgsp": self.pgsp, "virtual": self.virtual}}
        out: dict = {}
        for letter, sums in self.segment_pages.items():
            label, size = PSIZE_LETTER[letter]
            acc = out.setdefault(label, {"inuse": 0, "pin": 0, "pgsp": 0, "virtual": 0})
            for k, v in zip(("inuse", "pin", "pgsp", "virtual"), sums):
                acc[k] += v * size
        return out


def _val(tok, no, line, unit_bytes):
    if is_digits(tok):
        return int(tok)
    if tok == "-":
        return 0
    v = number(tok, COMMAND, no, line)
    if unit_bytes is None and isinstance(v, float):
        raise ParseError(f"{COMMAND}: fractional value {tok!r} without a 'Unit:' banner", no, line)
    return v


def _vals(toks, no, line, unit_bytes) -> list:
    """Value tokens as numbers: plain digits (the common case) checked in one step."""
    if is_digits("".join(toks)):
        return list(map(int, toks))
    return [_val(t, no, line, unit_bytes) for t in toks]


_HEADS = {"Pid", "PageSize", "Vsid"}
_VALUE_COLUMNS = ("Inuse", "Pin", "Pgsp", "Virtual")
_PS_LETTERS = {"s", "m", "L", "S"}


def _is_rule(token: str) -> bool:
    return token[0] in "-=" and token.strip(token[0]) == ""


@lru_cache(maxsize=32)
def _process_layout(cols: tuple) -> dict:
    """(column -> position, the last one of a repeated name) of a ``Pid Command ...`` header;
    a report repeats one header per process."""
    return {c: i for i, c in enumerate(cols)}


@lru_cache(maxsize=32)
def _segment_layout(cols: tuple) -> tuple:
    """(has PSize, has Addr Range, fields after the description) of a ``Vsid Esid ...`` header."""
    has_psize, has_addr = "PSize" in cols, "Addr" in cols
    # fields after the description: PSize (or 5.3's per-segment LPage flag) and four values
    tail = len(cols) - cols.index("Description") - 1 - (2 if has_addr else 0) \
        if "Description" in cols else 0
    return has_psize, has_addr, max(tail, 5 if has_psize else 4)


def parse(text: str) -> list:  # noqa: C901 (issue 46: too complex today, must not grow)
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
            if t0[0] in "-=" and _is_rule(t0):
                continue
            if ".." in t0 or "=" in t0:
                continue  # continuation: address range, source(s)=, children=
            assert cur is not None   # a segment table needs a process row (checked at its header)
            _add_segment(cur, has_psize, has_addr, tail, tokens, no, line, unit_bytes)
            continue
        if t0 == "Pid" and tokens[1:2] == ["Command"]:
            proc_cols = tuple(tokens[2:])
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
            has_psize, has_addr, tail = _segment_layout(tuple(tokens))
            continue
        if proc_cols is not None and not in_pagesize and is_digits(t0) \
                and len(tokens) >= 6 and all_numbers(tokens[2:6]):
            cur = _process_row(proc_cols, tokens, no, line, unit_bytes, frame, banner)
            procs.append(cur)
            continue
        if in_pagesize:
            if len(tokens) == 7 and t0 in _PS_LETTERS and tokens[2] in PAGE_SIZE_UNITS \
                    and is_digits(tokens[1]):
                size, unit, vals = tokens[1], tokens[2], tokens[3:]   # 's 4 KB v v v v' (the regex's common case)
            else:
                m = PS_ROW_RE.match(line)
                if not m:
                    continue
                size, unit, vals = m.group(2), m.group(3), m.group(4).split()
            if cur is None:
                raise ParseError(f"{COMMAND}: PageSize row before any process row", no, line)
            if len(vals) != 4:
                raise ParseError(f"{COMMAND}: PageSize row needs Inuse Pin Pgsp Virtual", no, line)
            mult = unit_bytes or int(size) * PAGE_SIZE_UNITS[unit]
            cur.page_sizes[psize_label(int(size), unit)] = dict(
                zip(("inuse", "pin", "pgsp", "virtual"), [v * mult for v in _vals(vals, no, line, unit_bytes)]))
            continue
        # anything else (rules, the Unit: banner, prompts, prose) outside the segment rows is ignored
    if not procs:
        raise ParseError(f"{COMMAND}: no process rows found (no 'Pid Command' header with a row)")
    return procs


def _process_row(cols, tokens, no, line, unit_bytes, frame, banner) -> Process:
    if len(tokens) - 2 != len(cols):
        raise ParseError(f"{COMMAND}: process row has {len(tokens) - 2} fields for {len(cols)} columns", no, line)
    pos = _process_layout(cols)
    try:
        inuse, pin, pgsp, virtual = _vals([tokens[2 + pos[k]] for k in _VALUE_COLUMNS], no, line, unit_bytes)
    except KeyError as e:
        raise ParseError(f"{COMMAND}: process header lacks column {e.args[0]}", no, line) from None
    flag = pos.get("16MB", pos.get("LPage"))
    mode = "unknown" if flag is None else tokens[2 + flag]
    if mode not in ("N", "Y", "M", "unknown"):
        raise ParseError(f"{COMMAND}: unknown large-page mode {mode!r}", no, line)
    return Process(pid=int(tokens[0]), command=tokens[1], inuse=inuse * frame, pin=pin * frame,
                   pgsp=pgsp * frame, virtual=virtual * frame, large_page_mode=mode,
                   unit_report=banner)


def _add_segment(proc: Process, has_psize, has_addr, tail, tokens, no, line, unit_bytes) -> None:
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
    a, b, c, d = tokens[n - 4:]
    if c == "-":   # no paging space / virtual (pers, clnt, mmap segments): none, as _val reads it
        c = "0"
    if d == "-":
        d = "0"
    if is_digits(a + b + c + d):   # _vals' fast path inline: the bulk of a report takes it
        a, b, c, d = int(a), int(b), int(c), int(d)
    else:
        a, b, c, d = _vals((a, b, c, d), no, line, unit_bytes)
    proc.segment_count += 1
    if tokens[t_idx] == "work" and tokens[t_idx + 1] == "text" \
            and " ".join(tokens[t_idx + 1:n - tail]).rstrip(",").startswith(HEAP_DESCRIPTION):
        proc.heap_segments += 1
    if has_psize:
        psize = tokens[n - 5]
        sums = proc.segment_pages.get(psize)
        if sums is None:
            if psize not in PSIZE_LETTER:
                raise ParseError(f"{COMMAND}: unknown PSize {psize!r}", no, line)
            sums = proc.segment_pages[psize] = [0, 0, 0, 0]
        if unit_bytes:   # -O unit=KB|MB|GB: values in that unit; the sums are pages of the segment's size
            per_page = unit_bytes / PSIZE_LETTER[psize][1]
            a, b, c, d = a * per_page, b * per_page, c * per_page, d * per_page
        sums[0] += a
        sums[1] += b
        sums[2] += c
        sums[3] += d
