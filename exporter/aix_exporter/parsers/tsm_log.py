"""The server's recovery log from the LOG table: ``dsmadmc -dataonly=yes -comma "select
FREE_SPACE_MB,TOTAL_SPACE_MB,USED_SPACE_MB,ARCHLOG_FREE_FS_MB,ARCHLOG_TOL_FS_MB,
ARCHLOG_USED_FS_MB from log"`` (rules in parsers/dsmadmc.py).

    32426.00,32768.00,342.00,812000.00,1048576.00,236576.00

Format rules:

* The active log's free, total and used space (MB, as treydock/tsm_exporter selects them, so its
  captured answers read the same), then the archive log's file system free, total and used: 6
  fields; an answer of the first 3 alone (a query without the archive columns) is read too.
* MB with a decimal point or comma. One row; none is an error.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from . import ParseError
from . import dsmadmc

COMMAND = "dsmadmc select from log"
COLUMNS = ("FREE_SPACE_MB", "TOTAL_SPACE_MB", "USED_SPACE_MB", "ARCHLOG_FREE_FS_MB", "ARCHLOG_TOL_FS_MB",
           "ARCHLOG_USED_FS_MB")
MB = 1 << 20


@dataclass
class Space:
    total_bytes: float
    used_bytes: float
    free_bytes: float


@dataclass
class Log:
    active: Space
    archive: Optional[Space]   # None: the answer has no archive columns


def parse(text: str) -> Log:
    found = dsmadmc.numbered_rows(text, COMMAND, (6, 3))
    if len(found) != 1:
        raise ParseError(f"{COMMAND}: expected one row (one recovery log), got {len(found)}")
    no, line, row = found[0]
    mb = [dsmadmc.decimal(x, COMMAND, line, no) * MB for x in row]
    return Log(active=Space(total_bytes=mb[1], used_bytes=mb[2], free_bytes=mb[0]),
               archive=Space(total_bytes=mb[4], used_bytes=mb[5], free_bytes=mb[3]) if len(mb) == 6 else None)
