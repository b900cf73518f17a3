"""TSM / Spectrum Protect activity log (``dsmadmc q actlog`` or the server console log).

Format rules (tests/fixtures/tsm_actlog, ../shared/corpus/tsm-actlog):

* A message starts with a date and time, one or more spaces, and the message
  id: ``01/22/2009 06:13:05  ANR0407I Session 141 started ...``. Dates are
  ``MM/DD/YYYY`` or ``MM/DD/YY``.
* The id is three letters, four digits and the severity letter (I W E S D);
  ``ANR9999D_2697328974 CheckPosition(pvrntp.c:1234) Thread<12>:`` carries a
  suffix after ``_`` that is not part of the id.
* Lines that do not start with a date continue the previous message (wrapped
  text, indented or not) and are not counted.
* A line that starts with a message id but has no date is an error (the log
  was edited or is not an activity log); so is a first line that is neither.
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
_BARE_ID_RE = re.compile(r"^\s*[A-Z]{3}\d{4}[IWESD](?:_\w+)?\s")
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


def parse(text: str, allow_leading_continuation: bool = False) -> list:
    """Messages in order; raises ParseError at the first bad line."""
    messages, error = parse_lenient(text, allow_leading_continuation)
    if error:
        raise error
    return messages


def parse_lenient(text: str, allow_leading_continuation: bool = False) -> tuple:
    """(messages, first ParseError or None): every good message is kept, so a live
    log with one bad line still counts the rest. ``allow_leading_continuation``:
    the text starts mid-message (an incremental read), lines before the first
    dated one are skipped."""
    if not text or text.isspace():
        return [], None
    try:
        lines = text_lines(text, COMMAND)
    except ParseError as e:
        return [], e
    out, error = [], None
    match = _MSG_RE.match
    for no, line in enumerate(lines, 1):
        if not line:  # (lines are right-stripped)
            continue
        st = line.lstrip()
        if st[0].isdigit():
            m = match(line)
            if m:
                out.append(Message(*m.groups(), no))
                continue
            bad = "dated line without a message id" if _DATED_RE.match(line) else None
        elif st[:3].isupper() and st[3:4].isdigit() and _BARE_ID_RE.match(line):
            bad = "message without a date and time"
        else:
            bad = None   # a continuation line
        if bad is None and not out and not allow_leading_continuation:
            bad = "text before the first dated message"
        if bad and error is None:
            error = ParseError(f"{COMMAND}: {bad}", no, line)
    return out, error
