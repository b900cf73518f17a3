"""``vmstat -v``: VMM counts and percentages, one '<value> <label>' per line.

Pages are 4 KB frames; '... percentage' values are percents; the
'... I/Os blocked with no <buf>' lines are counters since boot.
"""
from __future__ import annotations

from .labelled import parse_labelled

COMMAND = "vmstat -v"


def parse(text: str) -> list:
    """Return [(label, value), ...] in output order."""
    return parse_labelled(text, COMMAND)
