"""Times of an nmon recording: AAA and ZZZZ dates, the LPAR's time zone, and a clock that turns
local wall-clock times into Unix time across DST changes without ever shifting one silently."""
from __future__ import annotations

import datetime as dt
import re
from typing import Optional

from .records import NmonError

TIME_RE = re.compile(r"^(\d{1,2}):(\d\d):(\d\d)$")
_MONTHS = {m: i for i, m in enumerate(("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT",
                                       "NOV", "DEC"), 1)}

def parse_aaa_date(value: str, date_order: Optional[str]) -> dt.date:
    """``10-FEB-2016``; or numeric ``DD/MM/YY[YY]`` / ``MM/DD/YY[YY]`` (decided by date_order
    when both readings are dates)."""
    value = value.strip()
    m = re.match(r"^(\d{1,2})-([A-Za-z]{3})-(\d{4})$", value)
    if m and m.group(2).upper() in _MONTHS:
        try:
            return dt.date(int(m.group(3)), _MONTHS[m.group(2).upper()], int(m.group(1)))
        except ValueError:
            raise NmonError(f"AAA,date {value!r}: no such day") from None
    m = re.match(r"^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})$", value)
    if not m:
        raise NmonError(f"AAA,date {value!r}: not a date nmon writes (DD-MON-YYYY, DD/MM/YY or MM/DD/YY)")
    a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
    y = y + 2000 if y < 100 else y
    readings = {}
    for order, (d, mo) in (("dmy", (a, b)), ("mdy", (b, a))):
        try:
            readings[order] = dt.date(y, mo, d)
        except ValueError:
            pass
    if not readings:
        raise NmonError(f"AAA,date {value!r}: no valid date in either day/month order")
    if date_order:
        if date_order not in readings:
            raise NmonError(f"AAA,date {value!r} is not a valid date in {date_order} order")
        return readings[date_order]
    if len(set(readings.values())) > 1:
        raise NmonError(f"AAA,date {value!r} reads as {readings['dmy']} (dmy) or {readings['mdy']} (mdy): "
                        "say which with --date-order dmy|mdy")
    return next(iter(readings.values()))


def parse_zzzz_date(value: str) -> dt.date:
    m = re.match(r"^(\d{1,2})-([A-Za-z]{3})-(\d{4})$", value.strip())
    if not m or m.group(2).upper() not in _MONTHS:
        raise NmonError(f"ZZZZ date {value!r}: expected DD-MON-YYYY")
    return dt.date(int(m.group(3)), _MONTHS[m.group(2).upper()], int(m.group(1)))


def zone(name: str):
    try:
        from zoneinfo import ZoneInfo
        return ZoneInfo(name)
    except Exception:   # ZoneInfoNotFoundError, ValueError for odd names: never fall back silently
        raise NmonError(f"unknown time zone {name!r} (an IANA name such as Europe/Paris or UTC)") from None


class Clock:
    """Local wall-clock times of one recording -> Unix time, DST handled, never shifted silently."""

    def __init__(self, zone):
        self.zone = zone
        self.last = None

    def epoch(self, when: dt.datetime) -> float:
        first = when.replace(tzinfo=self.zone, fold=0)
        second = when.replace(tzinfo=self.zone, fold=1)
        for cand in (first, second):
            back = cand.astimezone(dt.timezone.utc).astimezone(self.zone).replace(tzinfo=None)
            if back != when:   # a time skipped by a DST change does not survive the round trip
                raise NmonError(f"local time {when} does not exist in {self.zone.key} (a DST gap): "
                                "check --tz")
        e0 = first.astimezone(dt.timezone.utc).timestamp()
        e1 = second.astimezone(dt.timezone.utc).timestamp()
        if self.last is not None and e0 <= self.last:
            e0 = e1   # the repeated hour: the snapshots' order says this is its second occurrence
        self.last = e0
        return e0
