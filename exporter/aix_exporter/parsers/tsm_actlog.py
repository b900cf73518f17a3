"""TSM / Spectrum Protect activity log (``dsmadmc q actlog`` or the server console log).

Format rules (tests/fixtures/tsm_actlog, ../shared/corpus/tsm-actlog):

* A message starts with a date and time, one or more spaces, and the message
  id: ``01/22/2009 06:13:05  ANR0407I Session 141 started ...``. Dates are
  ``MM/DD/YYYY`` or ``MM/DD/YY``.
* The id is three letters, four digits and the severity letter (I W E S D);
  ``ANR9999D_2697328974 CheckPosition(pvrntp.c:1234) Thread<12>:`` carries a
  suffix after ``_`` that is not part of the id.
* The server **console log** (dsmserv's own output) prints messages with no date:
  ``ANR1794W ...``, ``ANR9999D_0123456789 func(file.c:123) Thread<12>: ...``. A line that
  starts with a message id is such an undated message (``date`` and ``time`` empty: it takes
  the time it was read).
* Lines that start with neither a date nor a message id continue the previous message
  (wrapped text, indented or not) and are not counted. Before the first message they are a
  banner or a preamble, and are skipped.
* A dated line without a message id is an odd line: skipped and reported (``odd``), never a
  reason to drop the rest of the read. Binary data is an error.
* ``(SESSION: n)`` / ``(PROCESS: n)`` tags can follow the text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import ParseError, text_lines

COMMAND = "tsm activity log"
# date (MM/DD/YYYY or MM/DD/YY), time, id and its severity letter (match() anchors it;
# (?:\d\d)?\d\d is \d{4}|\d{2} in the form the regex engine runs fastest)
_MSG_RE = re.compile(
    r"\s*(\d\d/\d\d/(?:\d\d)?\d\d)\s+(\d\d:\d\d:\d\d)\s+([A-Z]{3}\d{4}([IWESD]))(?:_\w+)?(?:\s|$)")
_BARE_ID_RE = re.compile(r"\s*([A-Z]{3}\d{4}([IWESD]))(?:_\w+)?(?:\s|$)")
# the date and time that start a message line (the one date grammar of the log)
_DATED_RE = re.compile(r"\s*(\d\d)/(\d\d)/((?:\d\d)?\d\d)\s+(\d\d):(\d\d):(\d\d)\b")


def timestamp_key(line: str):
    """'YYYYMMDDhhmmss' of a line that starts with a date and time (two-digit years are
    20YY), or None for a continuation line: sortable, for deduplicating queries."""
    m = _DATED_RE.match(line)
    if not m:
        return None
    month, day, year, hh, mm, ss = m.groups()
    return f"{year if len(year) == 4 else '20' + year}{month}{day}{hh}{mm}{ss}"


@dataclass
class Message:
    __slots__ = ("date", "time", "msgid", "severity", "line_no")   # a long log has 100,000s
    date: str
    time: str
    msgid: str
    severity: str   # I W E S D
    line_no: int


def parse(text: str) -> list:
    """Messages in order; a ParseError only for text that is no log at all (binary data,
    or odd lines and not a single message)."""
    messages, odd = parse_lenient(text)
    if odd and not messages:
        raise odd[0]
    return messages


def parse_lenient(text: str) -> tuple:
    """(messages, odd lines as ParseErrors): every good message is kept, so a live log with
    one odd line still counts the rest. Leading continuation lines (a read that starts at an
    offset inside a message) are skipped like a banner."""
    if not text or text.isspace():
        return [], []
    try:
        lines = text_lines(text, COMMAND)
    except ParseError as e:
        return [], [e]
    out, odd = [], []
    match = _MSG_RE.match
    bare = _BARE_ID_RE.match
    for no, line in enumerate(lines, 1):
        if not line:  # (lines are right-stripped)
            continue
        st = line.lstrip()
        if st[0].isdigit():
            m = match(line)
            if m:
                out.append(Message(m[1], m[2], m[3], m[4], no))
            elif _DATED_RE.match(line):
                odd.append(ParseError(f"{COMMAND}: dated line without a message id", no, line))
            continue
        if st[:3].isupper() and st[3:4].isdigit():
            m = bare(line)
            if m:   # an undated console-log message
                out.append(Message("", "", m.group(1), m.group(2), no))
        # anything else continues a message, or is a banner before the first one
    return out, odd
