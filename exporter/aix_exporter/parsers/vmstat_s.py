"""``vmstat -s``: counters since boot, one '<value> <label>' per line."""
from __future__ import annotations

from .labelled import parse_labelled

COMMAND = "vmstat -s"


def parse(text: str) -> list:
    """Return [(label, value), ...] in output order; every value is a counter."""
    return parse_labelled(text, COMMAND)
