"""Format rules shared by every svmon report (-G, -P, -C, -U): the Unit banner, the
page-size letters and the PageSize rows. One place, used by svmon_g.py and svmon_p.py.

* ``-O unit=KB|MB|GB`` prints a banner ``Unit: KB`` that sets the unit of every value in
  the report; without it values are in 4 KB frames (summary rows) or in each PageSize
  row's own page size.
* Page sizes are named by a letter and a size: ``s 4 KB``, ``m 64 KB``, ``L 16 MB``,
  ``S 16 GB``; the exporter's ``psize`` label is ``4K``, ``64K``, ``16M``, ``16G``.
"""
from __future__ import annotations

import re

from . import ParseError

PAGE_SIZE_UNITS = {"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}
# the page-size letter of svmon's PSize column and PageSize rows -> (psize label, bytes)
# (``sm`` in a segment's PSize column: a segment of mixed 4 KB and 64 KB pages, in 4 KB units)
PSIZE_LETTER = {"s": ("4K", 4096), "m": ("64K", 65536), "L": ("16M", 16 << 20), "S": ("16G", 16 << 30),
                "sm": ("4K", 4096)}
# a PageSize row: letter, size, unit, then the values
PS_ROW_RE = re.compile(r"^\s*([smLS])\s+(\d+)\s*(KB|MB|GB)\s+(.*)$")


def psize_label(size: int, unit: str) -> str:
    """'4', 'KB' -> '4K'; '16', 'MB' -> '16M' (the psize label vocabulary)."""
    return f"{size}{unit[0].upper()}"


# svmon -O unit=...: a "Unit: KB" banner sets the unit of every value in the report.
UNIT_RE = re.compile(r"^\s*Unit:\s*(\w+)\s*$", re.IGNORECASE)
_SVMON_UNITS = {"PAGE": None, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}


def svmon_unit(lines: list, text: str, command: str) -> tuple:
    """(bytes per unit or None for page units, whether a Unit: banner was present)."""
    unit_bytes, banner = None, False
    if "Unit:" not in text:
        return unit_bytes, banner
    for no, line in enumerate(lines, 1):
        m = UNIT_RE.match(line)
        if m:
            banner = True
            unit = m.group(1).upper()
            if unit not in _SVMON_UNITS:
                raise ParseError(f"{command}: unsupported unit {m.group(1)!r} (use page, KB, MB or GB)", no, line)
            unit_bytes = _SVMON_UNITS[unit]
    return unit_bytes, banner
