"""vmstat interval report: ``vmstat [-w] [-t] [-l] [-I] interval count``.

Format rules (all seen in real AIX output, see tests/fixtures/vmstat and
../shared/corpus/vmstat*):

* An optional ``System configuration: lcpu=8 mem=4096MB ent=0.20`` line
  (AIX also prints ``System Configuration:``), usually after a blank line.
* Group banners (``kthr memory page ...``) and dashed rules are ignored.
* The column header starts with ``r`` and names ``avm``/``fre`` or ``us``/``sy``.
  ``sy`` appears twice: the first (faults group) is renamed ``syscalls``.
  ``hr mi se`` (-t) is one data token ``HH:MM:SS`` and becomes column ``time``.
* Data rows are whitespace separated: values that overflow their column
  (7-digit avm, 19-digit garbage counters) still parse. Every row must have
  exactly as many fields as the header; the last row is the current one.
* Headerless rule: output reduced to bare data rows (``vmstat 1 2 | tail -1``)
  is read with the default layout when every line is a data row and the field
  count is 17 (dedicated) or 19 (shared LPAR: ``pc ec``), plus a time field.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Optional

from . import ParseError, all_numbers, is_number, number, text_lines

COMMAND = "vmstat"

DEFAULT_COLUMNS = "r b avm fre re pi po fr sr cy in syscalls cs us sy id wa".split()
SHARED_COLUMNS = DEFAULT_COLUMNS + ["pc", "ec"]

_CONFIG_RE = re.compile(r"^\s*system configuration:\s*(.*)$", re.IGNORECASE)
_TIME_RE = re.compile(r"^\d{1,2}:\d{2}:\d{2}$")
_MEM_RE = re.compile(r"^(\d+(?:\.\d+)?)(KB|MB|GB|TB)?$", re.IGNORECASE)
_MEM_UNIT = {"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}


@dataclass
class VmstatRecord:
    config: dict = field(default_factory=dict)  # lcpu (int), mem_bytes (int), ent (float), other keys raw
    columns: list = field(default_factory=list)
    row: dict = field(default_factory=dict)  # column -> number of the last data row; 'time' -> str
    rows: int = 0


def parse_config(line: str, line_no: int) -> dict:
    m = _CONFIG_RE.match(line)
    assert m is not None   # the caller matched it
    body = m.group(1)
    out: dict = {}
    for item in body.split():
        if "=" not in item:
            raise ParseError(f"{COMMAND}: System configuration item without '='", line_no, line)
        key, value = item.split("=", 1)
        key = key.lower()
        if key == "mem":
            m = _MEM_RE.match(value)
            if not m:
                raise ParseError(f"{COMMAND}: unreadable mem= value {value!r}", line_no, line)
            mult = _MEM_UNIT[(m.group(2) or "MB").upper()]
            size = float(m.group(1)) * mult
            if not math.isfinite(size):
                raise ParseError(f"{COMMAND}: mem= value {value!r} out of range", line_no, line)
            out["mem_bytes"] = int(size)
        elif key in ("lcpu", "ent", "drives", "psize", "smt"):
            if not is_number(value):
                raise ParseError(f"{COMMAND}: unreadable {key}= value {value!r}", line_no, line)
            out[key] = number(value)
        else:
            out[key] = value
    return out


def _header_columns(tokens: list) -> Optional[list]:
    if not tokens or tokens[0] != "r":
        return None
    if not (("avm" in tokens and "fre" in tokens) or ("us" in tokens and "sy" in tokens)):
        return None
    cols = []
    i = 0
    while i < len(tokens):
        if tokens[i:i + 3] == ["hr", "mi", "se"]:
            cols.append("time")
            i += 3
            continue
        cols.append(tokens[i])
        i += 1
    if cols.count("sy") == 2:
        cols[cols.index("sy")] = "syscalls"
    if len(set(cols)) != len(cols):
        return None
    return cols


def _is_data(tokens: list) -> bool:
    return bool(tokens) and all(is_number(t) or _TIME_RE.match(t) for t in tokens)


def _check_row(cols, tokens, numeric, line_no, line) -> None:
    """The checks _row_values makes, without converting: a row that is not the last one is
    only counted. When every field is a number and no column is a time, only the count can fail."""
    if not numeric or "time" in cols:
        _row_values(cols, tokens, line_no, line)
    elif len(tokens) != len(cols):
        raise ParseError(f"{COMMAND}: row has {len(tokens)} fields, header has {len(cols)}", line_no, line)


def _row_values(cols, tokens, line_no, line) -> dict:
    if len(tokens) != len(cols):
        raise ParseError(
            f"{COMMAND}: row has {len(tokens)} fields, header has {len(cols)}", line_no, line)
    row = {}
    for col, tok in zip(cols, tokens):
        if col == "time":
            if not _TIME_RE.match(tok):
                raise ParseError(f"{COMMAND}: bad time field {tok!r}", line_no, line)
            row[col] = tok
        else:
            row[col] = number(tok, COMMAND, line_no, line)
    return row


def _default_layout(tokens: list) -> Optional[list]:
    n = len(tokens)
    has_time = bool(tokens) and bool(_TIME_RE.match(tokens[-1]))
    base = n - 1 if has_time else n
    cols = {17: DEFAULT_COLUMNS, 19: SHARED_COLUMNS}.get(base)
    if cols is None:
        return None
    return cols + (["time"] if has_time else [])


def parse(text: str) -> VmstatRecord:
    lines = text_lines(text, COMMAND)
    rec = VmstatRecord()
    cols: Optional[list] = None
    current = None          # (columns, tokens, line number, line) of the last row under a header
    other_line = False      # a line that is neither a data row nor a header
    data_lines = 0
    last_data: Optional[tuple] = None
    for no, line in enumerate(lines, 1):
        if not line:  # (lines are right-stripped)
            continue
        if line.lstrip()[0] in "sS" and _CONFIG_RE.match(line):
            rec.config = parse_config(line, no)
            other_line = True
            continue
        tokens = line.split()
        header = _header_columns(tokens) if tokens[0] == "r" else None
        if header is not None:
            cols = header   # (the headerless rule below is then not used)
            continue
        numeric = all_numbers(tokens)
        if numeric or _is_data(tokens):
            data_lines += 1
            last_data = (no, line, tokens)
            if cols is not None:
                _check_row(cols, tokens, numeric, no, line)
                current = (cols, tokens, no, line)
                rec.rows += 1
            continue
        other_line = True  # banners, dashed rules, prompts
    if cols is None:
        # Headerless rule: bare data rows only (e.g. "vmstat 1 2 | tail -1").
        if other_line or not data_lines:
            raise ParseError(f"{COMMAND}: no column header line (r b avm fre ...) found")
        assert last_data is not None   # data_lines is not empty
        no, line, tokens = last_data
        cols = _default_layout(tokens)
        if cols is None:
            raise ParseError(
                f"{COMMAND}: headerless row with {len(tokens)} fields matches no default layout", no, line)
        current = (cols, tokens, no, line)
        rec.rows = data_lines
    if current is None:
        raise ParseError(f"{COMMAND}: header without data rows")
    rec.columns = cols
    rec.row = _row_values(*current)
    return rec
