"""The server's drives from the DRIVES table: ``dsmadmc -dataonly=yes -comma "select
LIBRARY_NAME,DRIVE_NAME,ONLINE,DRIVE_STATE,VOLUME_NAME from drives"`` (rules in
parsers/dsmadmc.py):

    LIB1,TAPE10,YES,LOADED,FOO1
    LIBENC,TAPE01,NO,EMPTY,

Format rules:

* 5 fields: the library, the drive, ONLINE (YES or NO), the drive's state (LOADED, EMPTY,
  UNAVAILABLE, UNKNOWN, ...) and the volume in it (empty when none). No drive is the no-match
  answer (ANR2034E): an empty list.
* ONLINE other than YES or NO is an error naming the line.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import ParseError
from . import dsmadmc

COMMAND = "dsmadmc select from drives"
COLUMNS = ("LIBRARY_NAME", "DRIVE_NAME", "ONLINE", "DRIVE_STATE", "VOLUME_NAME")


def yes_no(token: str, command: str, line: str, no: int) -> bool:
    """The server's YES/NO (any case)."""
    if token.upper() not in ("YES", "NO"):
        raise ParseError(f"{command}: ONLINE {token!r} is neither YES nor NO", no, line)
    return token.upper() == "YES"


@dataclass
class Drive:
    library: str
    name: str
    online: bool
    state: str
    volume: str   # '' when none


def parse(text: str) -> list:
    return [Drive(library=lib, name=name, online=yes_no(online, COMMAND, line, no), state=state or "-", volume=volume)
            for no, line, (lib, name, online, state, volume) in dsmadmc.numbered_rows(text, COMMAND, len(COLUMNS))]
