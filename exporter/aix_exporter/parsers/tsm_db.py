"""The server's database from the DB table: ``dsmadmc -dataonly=yes -comma "select
BUFF_HIT_RATIO,DATABASE_NAME,FREE_PAGES,FREE_SPACE_MB,LAST_BACKUP_DATE,PKG_HIT_RATIO,
SORT_OVERFLOW,TOTAL_BUFF_REQ,TOTAL_PAGES,TOT_FILE_SYSTEM_MB,USABLE_PAGES,USED_DB_SPACE_MB,
USED_PAGES,CURRENT_TIMESTAMP from db"`` (rules in parsers/dsmadmc.py).

    88.6,TSMDB1,3092796,1453663,2020-05-22 08:10:00.000000,98.3,0,11607707032,28836868,2096672,
    28836092,642976,25743296,2020-05-23 06:00:00.000000      (one line)

Format rules:

* The columns in that order (the names sorted, as treydock/tsm_exporter selects them, so its
  captured answers read the same), then the server's CURRENT_TIMESTAMP: 14 fields. An answer of
  the first 13 alone (a query without the server's clock) is read too.
* ``LAST_BACKUP_DATE`` is ``YYYY-MM-DD HH:MM:SS.ffffff`` in the server's local time, empty when
  the database was never backed up. With CURRENT_TIMESTAMP in the same answer, the backup's age
  is exact whatever the zones: the server's clock minus the backup, both in its time. A backup
  later than the server's own now is not an answer (it would hide an overdue backup): an error.
* Sizes are MB (MiB) with a decimal point or comma; page counts and requests are whole numbers.
* One row (one database per server); none is an error.
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Optional

from . import ParseError
from . import dsmadmc

COMMAND = "dsmadmc select from db"
COLUMNS = ("BUFF_HIT_RATIO", "DATABASE_NAME", "FREE_PAGES", "FREE_SPACE_MB", "LAST_BACKUP_DATE", "PKG_HIT_RATIO",
           "SORT_OVERFLOW", "TOTAL_BUFF_REQ", "TOTAL_PAGES", "TOT_FILE_SYSTEM_MB", "USABLE_PAGES", "USED_DB_SPACE_MB",
           "USED_PAGES", "CURRENT_TIMESTAMP")
MB = 1 << 20


@dataclass
class Db:
    name: str
    total_bytes: float              # TOT_FILE_SYSTEM_MB: the file systems the database is on
    used_bytes: float               # USED_DB_SPACE_MB: used by the database
    free_bytes: float               # FREE_SPACE_MB: free for it in those file systems
    buffer_hit_ratio: float         # BUFF_HIT_RATIO / 100
    last_backup: Optional[datetime.datetime]   # the server's local time; None: never backed up
    server_now: Optional[datetime.datetime]    # CURRENT_TIMESTAMP, the server's local time

    def backup_age_seconds(self) -> Optional[float]:
        """Seconds since the last backup by the server's own clock (None without both)."""
        if self.last_backup is None or self.server_now is None:
            return None
        return (self.server_now - self.last_backup).total_seconds()


def timestamp(token: str, command: str, line: str, no: int) -> Optional[datetime.datetime]:
    """A DB2 timestamp of a select answer (``YYYY-MM-DD HH:MM:SS[.ffffff]``), None when empty."""
    if not token:
        return None
    try:
        return datetime.datetime.strptime(token, "%Y-%m-%d %H:%M:%S.%f" if "." in token else "%Y-%m-%d %H:%M:%S")
    except ValueError:
        raise ParseError(f"{command}: {token!r} is not a timestamp", no, line) from None


def parse(text: str) -> Db:
    found = dsmadmc.numbered_rows(text, COMMAND, (len(COLUMNS), len(COLUMNS) - 1))
    if len(found) != 1:
        raise ParseError(f"{COMMAND}: expected one row (one database), got {len(found)}")
    no, line, row = found[0]
    v = dict(zip(COLUMNS, row))
    num = lambda k: dsmadmc.decimal(v[k], COMMAND, line, no)
    last = timestamp(v["LAST_BACKUP_DATE"], COMMAND, line, no)
    now = timestamp(v.get("CURRENT_TIMESTAMP", ""), COMMAND, line, no)
    if last is not None and now is not None and last > now:
        raise ParseError(f"{COMMAND}: the last backup {last} is later than the server's now {now}", no, line)
    return Db(name=v["DATABASE_NAME"] or "-", total_bytes=num("TOT_FILE_SYSTEM_MB") * MB,
              used_bytes=num("USED_DB_SPACE_MB") * MB, free_bytes=num("FREE_SPACE_MB") * MB,
              buffer_hit_ratio=num("BUFF_HIT_RATIO") / 100,
              last_backup=last, server_now=now)
