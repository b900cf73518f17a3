"""The client schedules' events of the last 24 hours from the EVENTS table: ``dsmadmc
-dataonly=yes -comma "select SCHEDULE_NAME,STATUS from events where
scheduled_start>=current_timestamp-24 hours and scheduled_start<=current_timestamp"`` (rules in
parsers/dsmadmc.py):

    DAILY_INCR,Completed
    DAILY_INCR,Missed
    BAR,Not Started

Format rules:

* 2 fields: the schedule and the event's status as QUERY EVENT prints it (Completed, Failed,
  Failed - no restart, Missed, Severed, Started, In Progress, Pending, Restarted, Uncertain,
  Future, Not Started). No event is the no-match answer (ANR2034E): no events.
* The EVENTS table answers for today alone unless the select bounds SCHEDULED_START, so the
  query bounds it on both sides: the last 24 hours, none of the future ones.
* Events are counted by status (``result``: the status in lower case, each run of blanks and
  dashes one ``_``: ``failed_no_restart``); a status outside that list is counted as ``other``
  (the label's values stay a known set) and named by ``unknown``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import dsmadmc

COMMAND = "dsmadmc select from events"
COLUMNS = ("SCHEDULE_NAME", "STATUS")
WHERE = " where scheduled_start>=current_timestamp-24 hours and scheduled_start<=current_timestamp"
RESULTS = ("completed", "failed", "failed_no_restart", "missed", "severed", "started", "in_progress", "pending",
           "restarted", "uncertain", "future", "not_started")


def result(status: str) -> str:
    """A status as the result label: lower case, blanks and dashes one underscore."""
    return re.sub(r"[\s-]+", "_", status.strip().lower())


@dataclass
class Events:
    counts: dict = field(default_factory=dict)   # {result: events}, every result of RESULTS and 'other'
    unknown: list = field(default_factory=list)  # the statuses counted as other, as printed


def parse(text: str) -> Events:
    ev = Events(counts={r: 0 for r in RESULTS + ("other",)})
    for _schedule, status in dsmadmc.rows(text, COMMAND, len(COLUMNS)):
        r = result(status)
        if r not in RESULTS:
            r = "other"
            if status not in ev.unknown:
                ev.unknown.append(status)
        ev.counts[r] += 1
    return ev
