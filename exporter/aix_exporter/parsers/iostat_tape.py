"""Tape utilization report: ``iostat -p`` (AIX).

Written from the AIX iostat documentation; no real capture of this report is
public yet, so the parser is strict about its header (docs/aix.md: awaits
confirmation on a real drive). The report follows the disk report's layout:

    System configuration: lcpu=16 drives=4 ent=4.00 paths=8 vdisks=0 tapes=2

    Tapes:       % tm_act     Kbps      tps    Kb_read   Kb_wrtn
    rmt0            88.0  131072.0    512.0  104857600  943718400

* ``% tm_act``: percent of time the drive was busy; ``Kbps``, ``tps``: rates
  over the report's interval (since boot for the first report);
  ``Kb_read``/``Kb_wrtn``: whole KB transferred in that interval (since boot:
  totals).
* With an interval (``iostat -p INTERVAL COUNT``) the report repeats: the first covers the
  time since boot, each later one the interval since the report before it (Kb_read and
  Kb_wrtn too), so since-boot totals are the first report's plus every later one's.
* ``No tapes found`` (or ``tapes=0`` and no table) is a system without tapes,
  not an error.
"""
from __future__ import annotations

import re
from typing import Optional
from dataclasses import dataclass

from . import ParseError, all_numbers, is_digits, number, text_lines

COMMAND = "iostat -p"
HEADER = ["Tapes:", "%", "tm_act", "Kbps", "tps", "Kb_read", "Kb_wrtn"]
_DEVICE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_NO_TAPES_RE = re.compile(r"no tapes? (were )?found|tapes=0\b", re.IGNORECASE)


@dataclass
class TapeRow:
    device: str
    busy_percent: float
    kbps: float
    tps: float
    kb_read: int
    kb_written: int


def parse(text: str) -> dict:
    """Return {device: TapeRow} of the last report ({} when the system has no tapes)."""
    reports = parse_reports(text)
    return reports[-1] if reports else {}


def parse_reports(text: str) -> list:
    """Every report in order, each {device: TapeRow}: the first since boot, later ones one
    interval each ([] when the system has no tapes)."""
    lines = text_lines(text, COMMAND)
    reports: list = []
    current: Optional[dict] = None
    no_tapes = False
    devices: set = set()
    for no, line in enumerate(lines, 1):
        tokens = line.split()
        if not tokens:
            continue
        if "tape" in line.lower() and _NO_TAPES_RE.search(line):   # (both alternatives name tapes)
            no_tapes = True
        if tokens[0] == "Tapes:":
            if tokens != HEADER:
                cols = " ".join(tokens[1:]).replace("% tm_act", "%_tm_act").split()
                known = {"%_tm_act", "Kbps", "tps", "Kb_read", "Kb_wrtn"}
                unknown = [c for c in cols if c not in known]
                what = f"unknown column(s) {', '.join(unknown)}" if unknown else "columns missing or out of order"
                raise ParseError(f"{COMMAND}: unexpected tape header: {what} (expected '{' '.join(HEADER)}')",
                                 no, line)
            current = {}
            reports.append(current)
            continue
        if current is None:
            continue   # System configuration, tty/cpu or disk report
        if tokens[0].endswith(":"):
            current = None  # another report section (Disks:, tty:) ends the tape table
            continue
        if len(tokens) != 6 or (tokens[0] not in devices and not _DEVICE_RE.match(tokens[0])) \
                or not all_numbers(tokens[1:]):
            raise ParseError(f"{COMMAND}: tape row needs device and 5 numbers", no, line)
        if not (is_digits(tokens[4]) and is_digits(tokens[5])):
            raise ParseError(f"{COMMAND}: Kb_read and Kb_wrtn are whole KB", no, line)
        current[tokens[0]] = tokens   # converted when its report turns out to be the last one
        devices.add(tokens[0])         # a name already checked (every interval lists the same drives)
    if reports:
        return [{dev: TapeRow(device=dev, busy_percent=float(number(t[1])), kbps=float(number(t[2])),
                              tps=float(number(t[3])), kb_read=int(t[4]), kb_written=int(t[5]))
                 for dev, t in rep.items()} for rep in reports]
    if no_tapes:
        return []
    raise ParseError(f"{COMMAND}: no 'Tapes:' report and no 'No tapes found'")
