"""Shared reader for AIX 'value label' reports (``vmstat -v``, ``vmstat -s``).

Each line is a right-aligned number followed by a label; the set of labels
differs by AIX release, so the record keeps every pair in order.
"""
from __future__ import annotations

import re

from . import ParseError, number, text_lines

_LINE_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s+(\S.*?)\s*$")


def parse_labelled(text: str, command: str) -> list:
    pairs = []
    for no, line in enumerate(text_lines(text, command), 1):
        if not line.strip():
            continue
        m = _LINE_RE.match(line)
        if not m:
            raise ParseError(f"{command}: expected '<number> <label>'", no, line)
        pairs.append((m.group(2), number(m.group(1), command, no, line)))
    return pairs   # not empty: text_lines rejects output without a non-blank line
