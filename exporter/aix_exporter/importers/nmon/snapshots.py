"""nmon records -> snapshots in time order: headers wherever they stand, data rows held until
their snapshot is complete (a later ZZZZ, or the end of the file), dates and times from ZZZZ
and AAA lines."""
from __future__ import annotations

import datetime as dt
import math
import re
from typing import Iterable, Iterator, NamedTuple, Optional

from ..base import Stats
from .dates import TIME_RE, Clock, parse_aaa_date, parse_zzzz_date, zone
from .mapping import MAPPED_SECTIONS
from .records import NmonError, number, read_records

SNAPSHOT_ID = re.compile(r"T\d{4,16}")   # fullmatch: a snapshot id


class Columns(dict):
    """A header's {column: position}, shared by all rows under that header, with the positions
    of the column lists asked for, resolved once per header (``positions``)."""
    __slots__ = ("positions",)

    def __init__(self, names: list):
        super().__init__((c, i) for i, c in reversed(list(enumerate(names))))   # (the first of a repeated name)
        self.positions: dict = {}


class DataRow:
    """One data row: values converted when asked for (most columns are never used).
    ``cols``: its header's Columns."""
    __slots__ = ("cols", "values", "comma")

    def __init__(self, cols: Columns, values: list, comma: bool):
        self.cols, self.values, self.comma = cols, values, comma

    def get(self, column: str) -> Optional[float]:
        i = self.cols.get(column)
        return None if i is None else number(self.values[i], self.comma)

    def numbers(self, columns: tuple) -> list:
        """get() of each of ``columns``, their positions looked up once per header (the import
        asks every row of a section for the same columns)."""
        positions = self.cols.positions.get(columns)
        if positions is None:
            positions = self.cols.positions[columns] = [self.cols.get(c) for c in columns]
        values, comma = self.values, self.comma
        if not comma and None not in positions:   # the common case, in C: every field a finite number
            try:
                got = list(map(float, map(values.__getitem__, positions)))
                if all(map(math.isfinite, got)):
                    return got
            except ValueError:
                pass
        return [None if i is None else number(values[i], comma) for i in positions]


class SnapshotRows(NamedTuple):
    """One complete snapshot as recorded: its id, its time and its mapped sections' rows."""
    id: str
    epoch: float
    rows: dict   # section -> DataRow


def snapshots(lines: Iterable[str], tz: Optional[str], date_order: Optional[str], stats: Stats,  # noqa: C901 (issue 46: too complex today, must not grow)
              bbbp: dict, aaa: Optional[dict] = None) -> Iterator[SnapshotRows]:
    """Snapshots of one recording in time order. ``bbbp``: filled with {command: [lines]} for the
    commands of BBBP_COMMANDS; ``aaa``: with the AAA lines, {name in lower case: value}."""
    headers: dict = {}
    aaa = {} if aaa is None else aaa
    pending: dict = {}      # snapshot id -> {section: DataRow}, until the snapshot is complete
    times: dict = {}        # snapshot id -> epoch, for snapshots whose ZZZZ was read
    timed: list = []        # snapshot ids in ZZZZ order, not yet written
    clock = None
    day = None
    last_time = None
    emitted = set()
    zone_name = tz

    def complete(upto: int):
        """Write the timed snapshots before position ``upto`` of ``timed``: their rows are all
        in once a later snapshot's ZZZZ has been read (or the file has ended)."""
        for sid in timed[:upto]:
            emitted.add(sid)
            stats.snapshots += 1
            yield SnapshotRows(sid, times[sid], pending.pop(sid, {}))
        del timed[:upto]

    for fields, comma in read_records(lines, stats):   # (only special and mapped sections come)
        sec = fields[0].strip()
        if sec in MAPPED_SECTIONS:   # a header or a data row, most records
            if len(fields) < 2:
                stats.skip("line without fields")
                continue
            second = fields[1].strip()
            if not SNAPSHOT_ID.fullmatch(second):
                cols = [f.strip() for f in fields[2:]]   # a header, wherever it stands
                headers[sec] = (len(cols), Columns(cols))
                continue
            header = headers.get(sec)
            if header is None:
                stats.skip("row before its section's header")
                continue
            width, cols = header
            values = fields[2:]
            if len(values) != width:
                stats.skip("field count differs from its header")
                continue
            if second in emitted:
                stats.skip("row after its snapshot was written")
                continue
            pending.setdefault(second, {})[sec] = DataRow(cols, values, comma)
            continue
        if sec == "ERROR":
            stats.skip("ERROR line")
            continue
        if sec == "AAA":
            if len(fields) >= 3:
                aaa[fields[1].strip().lower()] = fields[2].strip()
            continue
        if sec == "BBBP":
            if len(fields) >= 4:
                bbbp.setdefault(fields[2].strip(), []).append(fields[3])
            continue
        if sec == "ZZZZ":
            if len(fields) < 3 or not SNAPSHOT_ID.fullmatch(fields[1].strip()):
                stats.skip("malformed ZZZZ line")
                continue
            sid, tm = fields[1].strip(), TIME_RE.match(fields[2].strip())
            if not tm:
                stats.skip("malformed ZZZZ line")
                continue
            if clock is None:
                named = aaa.get("timezone") or aaa.get("tz")
                if named and zone_name and named != zone_name:
                    raise NmonError(f"the recording names the time zone {named!r} but --tz says {zone_name!r}: "
                                    "leave out --tz, or fix the recording")
                zone_name = zone_name or named
                if not zone_name:
                    raise NmonError("the recording names no time zone: give --tz (the LPAR's zone, such as "
                                    "Europe/Paris or UTC)")
                clock = Clock(zone(zone_name))
            try:
                hms = dt.time(int(tm.group(1)), int(tm.group(2)), int(tm.group(3)))
                zday = parse_zzzz_date(fields[3]) if len(fields) >= 4 and fields[3].strip() else None
            except (ValueError, NmonError):   # 25:61:61 or 31-FEB-2016: that line, not the recording
                stats.skip("malformed ZZZZ line")
                continue
            if zday is not None:
                day = zday
            else:   # old form: AAA,date, and a day later each time the clock goes backwards
                if day is None:
                    if "date" not in aaa:
                        raise NmonError("ZZZZ lines without a date and no AAA,date line")
                    day = parse_aaa_date(aaa["date"], date_order)
                elif last_time is not None and hms < last_time:
                    day += dt.timedelta(days=1)
            last_time = hms
            if sid in times or sid in emitted:
                stats.skip("repeated ZZZZ line")
                continue
            times[sid] = clock.epoch(dt.datetime.combine(day, hms))
            yield from complete(len(timed))
            timed.append(sid)
            continue
    yield from complete(len(timed))
    if pending:
        stats.skip("snapshot without a ZZZZ time (truncated recording)", len(pending))
