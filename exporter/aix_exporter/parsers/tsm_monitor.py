"""The server's own status monitor: ``dsmadmc -dataonly=yes -comma query monitorstatus`` (the
active rows; rules in parsers/dsmadmc.py). The standard format's fields, in the order of IBM's
documented example (QUERY MONITORSTATUS: Server Name, Activity Date, Activity Name, Element
Name, Element Numeric Value, Element String Value, Element State):

    SERVER1,03/05/2013 15:57:37,CAPACITY OF PRIMARY DISK AND FILE STORAGE,CAPACITY OF PRIMARY DISK AND FILE STORAGE,0,,NORMAL

Format rules:

* 7 fields. The server refreshes the rows on its status-monitor interval (5 minutes by default);
  with the status monitor off, or nothing active, the answer is the no-match one (ANR2034E): no
  rows.
* A row is named by its activity; where its element is not the activity itself (a storage pool,
  a node), by ``ACTIVITY (ELEMENT)``: the name (``row_name``) tells the rows apart.
* The state is NORMAL, WARNING or ERROR (any case); anything else is an error naming the line.
* The numeric value is a number, with a decimal point or comma, or empty when the row has none.
* Two active rows of one name keep the worse state (ERROR over WARNING over NORMAL) and that
  row's value.
* Each row becomes label values (``activity``), so the rows served are bounded (``bounded``):
  a server prints a few dozen activities, one per storage pool or node where the activity names
  elements; beyond ``MAX_ROWS`` (a broken or hostile answer) the worst states are kept first and
  the rest counted.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from . import ParseError
from . import dsmadmc

COMMAND = "dsmadmc query monitorstatus"
STATES = ("normal", "warning", "error")   # in order of severity
MAX_ROWS = 500                            # rows served: each is a label value of two series


@dataclass
class Row:
    name: str                 # the activity, or ACTIVITY (ELEMENT)
    state: str                # normal, warning or error
    value: Optional[float]    # the element's numeric value; None when empty


def row_name(activity: str, element: str) -> str:
    return activity if not element or element == activity else f"{activity} ({element})"


def parse(text: str) -> list:
    rows: dict = {}
    for no, line, (_server, _date, activity, element, number, _string, state) in dsmadmc.numbered_rows(
            text, COMMAND, 7):
        st = state.lower()
        if st not in STATES:
            raise ParseError(f"{COMMAND}: element state {state!r} is not NORMAL, WARNING or ERROR", no, line)
        value = dsmadmc.decimal(number, COMMAND, line, no) if number else None
        row = Row(name=row_name(activity or "-", element), state=st, value=value)
        old = rows.get(row.name)
        if old is None or STATES.index(st) > STATES.index(old.state):
            rows[row.name] = row
    return list(rows.values())


def bounded(rows: list, limit: int = MAX_ROWS) -> tuple:
    """(the rows to serve, how many were left out): all of them up to ``limit``; beyond it the
    worst states first (ERROR, WARNING, NORMAL), by name within a state."""
    if len(rows) <= limit:
        return rows, 0
    ordered = sorted(rows, key=lambda r: (-STATES.index(r.state), r.name))
    return ordered[:limit], len(rows) - limit
