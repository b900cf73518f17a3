"""Global memory report: ``svmon -G`` (also ``-G -i N``, ``-G -O unit=..``).

Format rules (tests/fixtures/svmon_g and ../shared/corpus/svmon-G*):

* Unit: without a ``Unit:`` banner, the ``memory``/``pg space``/``pin``/
  ``in use`` rows are in 4 KB frames and each ``PageSize`` row is in that
  row's own page size (``L 16 MB 5 ...`` means five 16 MB pages).
  With ``-O unit=KB|MB|GB`` the banner ``Unit: KB`` applies to every value.
  Fractional values only exist in KB/MB/GB units: fractional values without a
  banner (a report cut by ``tail``) are rejected, because their unit is unknown.
* The memory header names its columns (``size inuse free pin virtual``
  [``available``] [``mmode``]); the ``memory`` row follows it, the mode
  (``Ded``, ``Ded-E``, ``Shar``) is its last, non-numeric field.
* ``pg space`` has size and inuse. The segment table (``work pers clnt``
  [``other``]) has rows ``pin`` and ``in use`` (``in use`` has no ``other``).
* ``PageSize PoolSize inuse pgsp pin virtual``: rows ``s 4 KB``, ``m 64 KB``,
  ``L 16 MB``, ``S 16 GB``; PoolSize is ``-`` for pools that are not fixed.
* ``-i``: the report repeats; the last report is the current one.
* Lines outside these tables are ignored; a report without a readable
  ``memory`` row is rejected.
* Cut short: the table layouts print the ``pg space`` row after the memory row (the longreal
  summary is one row, whole), and a ``PageSize`` header is followed by at least one page-size
  row: a report with a memory row but no ``pg space`` row, or a ``PageSize`` header with no
  row, was cut (a full disk, a killed command) and is rejected, not served in part.
* Pool rows: plain ``svmon -G`` (no ``Unit:`` banner: what the exporter runs) from AIX 6.1 on
  (a memory header with ``mmode``, 7.1 on, or a segment table with ``other``, 6.1 on) prints
  the ``PageSize`` table after the segment table; such a report without it was cut (after its
  third line, or after ``in use``) and is rejected: served, it would say "no 16 MB pool" where
  the pool was only not read. The AIX 5.3 layout (neither column) may have none (before TL04
  there was one page size). With ``-O`` (a ``Unit:`` banner) the table is optional
  (``-O pgsz=on`` adds it).
* ``-O summary=longreal``: a ``Memory`` banner over ``Size Inuse Free Pin
  Virtual Available Pgsp`` and one row of numbers (``Pgsp`` = paging space size).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from . import ParseError, is_number, number, text_lines
from .svmon import PAGE_SIZE_UNITS, PS_ROW_RE, psize_label, svmon_unit

COMMAND = "svmon -G"
FRAME_BYTES = 4096
_MEM_COLS = {"size", "inuse", "free", "pin", "virtual", "available", "mmode"}


@dataclass
class PageSizeRow:
    letter: str
    psize: str          # 4K 64K 16M 16G
    page_bytes: int
    pool_size: Optional[float]  # None where PoolSize is '-'
    inuse: float
    pgsp: float
    pin: float
    virtual: float


@dataclass
class SvmonGlobal:
    """Values in bytes."""
    memory: dict = field(default_factory=dict)        # size inuse free pin virtual [available]
    mode: Optional[str] = None                        # mmode: Ded, Ded-E, Shar ...
    paging_space: dict = field(default_factory=dict)  # size inuse
    segments: dict = field(default_factory=dict)      # {"pin": {"work":..}, "inuse": {...}}
    page_sizes: list = field(default_factory=list)    # PageSizeRow, values in bytes
    unit: str = "page"
    reports: int = 0


def _split_reports(lines):
    """Start a new report at every memory header (svmon -G -i repeats it)."""
    reports: list = []
    cur: list = []
    for no, line in enumerate(lines, 1):
        tokens = line.split()
        if tokens and tokens[0] == "size" and set(tokens) <= _MEM_COLS and cur and any(
                l.split()[:1] == ["size"] for _, l in cur):
            reports.append(cur)
            cur = []
        cur.append((no, line))
    reports.append(cur)
    return reports


def parse(text: str) -> SvmonGlobal:
    lines = text_lines(text, COMMAND)
    unit_bytes, banner = svmon_unit(lines, text, COMMAND)
    reports = _split_reports(lines)
    rec = _parse_report(reports[-1], unit_bytes)
    if not banner and not rec.page_sizes and (rec.mode is not None or "other" in rec.segments.get("pin", {})):
        raise ParseError(f"{COMMAND}: a report without its PageSize table (its pool rows): the output was cut short")
    rec.unit = {None: "page", 1 << 10: "kb", 1 << 20: "mb", 1 << 30: "gb"}[unit_bytes]
    rec.reports = len(reports)
    return rec


def _values(tokens, no, line, unit_bytes):
    out = []
    for t in tokens:
        v = number(t, COMMAND, no, line)
        if unit_bytes is None and isinstance(v, float):
            raise ParseError(f"{COMMAND}: fractional value {t!r} without a 'Unit:' banner: unit unknown", no, line)
        out.append(v)
    return out


def _parse_report(report, unit_bytes) -> SvmonGlobal:  # noqa: C901 (issue 46: too complex today, must not grow)
    rec = SvmonGlobal()
    frame = unit_bytes or FRAME_BYTES
    mem_cols = seg_cols = None
    in_pagesize = pagesize_header = longreal_seen = False
    longreal_cols: Union[None, str, list] = None   # "pending" after 'Memory', then the columns
    for no, line in report:
        tokens = line.split()
        if not tokens:   # (rules and the Unit: banner match no table rule below: ignored)
            continue
        first = tokens[0]
        if first == "size" and set(tokens) <= _MEM_COLS:
            mem_cols = tokens
            in_pagesize = False
        elif first == "memory" and len(tokens) > 1:
            if mem_cols is None:
                raise ParseError(f"{COMMAND}: memory row without its column header", no, line)
            fields = tokens[1:]
            cols = [c for c in mem_cols if c != "mmode"]
            if "mmode" in mem_cols and fields and not is_number(fields[-1]):
                rec.mode = fields.pop()
            if len(fields) != len(cols):
                raise ParseError(f"{COMMAND}: memory row has {len(fields)} values for {len(cols)} columns", no, line)
            rec.memory = {c: v * frame for c, v in zip(cols, _values(fields, no, line, unit_bytes))}
        elif tokens[:2] == ["pg", "space"]:
            vals = _values(tokens[2:], no, line, unit_bytes)
            if len(vals) != 2:
                raise ParseError(f"{COMMAND}: pg space row needs size and inuse", no, line)
            rec.paging_space = {"size": vals[0] * frame, "inuse": vals[1] * frame}
        elif first == "work" and set(tokens) <= {"work", "pers", "clnt", "other"}:
            seg_cols = tokens
            in_pagesize = False
        elif first == "pin" or tokens[:2] == ["in", "use"]:
            if seg_cols is None:
                raise ParseError(f"{COMMAND}: segment row without the work/pers/clnt header", no, line)
            key, fields = ("pin", tokens[1:]) if first == "pin" else ("inuse", tokens[2:])
            if not 0 < len(fields) <= len(seg_cols):
                raise ParseError(f"{COMMAND}: {key} row has {len(fields)} values for {len(seg_cols)} columns", no, line)
            rec.segments[key] = {c: v * frame for c, v in zip(seg_cols, _values(fields, no, line, unit_bytes))}
        elif first == "PageSize":
            in_pagesize = pagesize_header = True
        elif in_pagesize and (m := PS_ROW_RE.match(line)):
            size, unit = int(m.group(2)), m.group(3)
            page_bytes = size * PAGE_SIZE_UNITS[unit]
            fields = m.group(4).split()
            if len(fields) != 5:
                raise ParseError(f"{COMMAND}: PageSize row needs PoolSize inuse pgsp pin virtual", no, line)
            pool = None if fields[0] == "-" else _values(fields[:1], no, line, unit_bytes)[0]
            inuse, pgsp, pin, virtual = _values(fields[1:], no, line, unit_bytes)
            mult = unit_bytes or page_bytes
            rec.page_sizes.append(PageSizeRow(
                letter=m.group(1), psize=psize_label(size, unit), page_bytes=page_bytes,
                pool_size=None if pool is None else pool * mult,
                inuse=inuse * mult, pgsp=pgsp * mult, pin=pin * mult, virtual=virtual * mult))
        elif first == "Memory" and len(tokens) == 1:
            longreal_cols = "pending"
        elif longreal_cols == "pending" and first == "Size":
            longreal_cols = [t.lower() for t in tokens]
        elif isinstance(longreal_cols, list) and all(is_number(t) for t in tokens):
            if len(tokens) != len(longreal_cols):
                raise ParseError(f"{COMMAND}: summary row has {len(tokens)} values for {len(longreal_cols)} columns", no, line)
            vals = dict(zip(longreal_cols, _values(tokens, no, line, unit_bytes)))
            pgsp = vals.pop("pgsp", None)
            rec.memory = {c: v * frame for c, v in vals.items()}
            if pgsp is not None:
                rec.paging_space = {"size": pgsp * frame}
            longreal_cols, longreal_seen = None, True   # (the summary is whole: no 'pg space' row follows)
        # Other lines (sections added by later AIX releases, prompts) are ignored:
        # the report is only accepted when its memory row was read.
    if not rec.memory:
        raise ParseError(f"{COMMAND}: no memory row found")
    if not rec.paging_space and not longreal_seen:
        raise ParseError(f"{COMMAND}: no 'pg space' row after the memory row: the output was cut short")
    if pagesize_header and not rec.page_sizes:
        raise ParseError(f"{COMMAND}: a PageSize header without a page-size row: the output was cut short")
    return rec
