"""The server's paths from the PATHS table: ``dsmadmc -dataonly=yes -comma "select
SOURCE_NAME,DESTINATION_NAME,DESTINATION_TYPE,LIBRARY_NAME,DEVICE,ONLINE from paths"`` (rules in
parsers/dsmadmc.py). No public capture of this select exists: the columns are those QUERY PATH
FORMAT=DETAILED shows (IBM's QUERY PATH reference: Source Name, Destination Name, Destination
Type, Library, Device, On-Line), and tests/fixtures/tsm_paths is written in the form the other
selects of ../shared/corpus/tsm-dsmadmc take:

    TSMSRV01,DRIVE0,DRIVE,TS4500,/dev/rmt0,YES
    TSMSRV01,TS4500,LIBRARY,,/dev/smc0,YES

Format rules:

* 6 fields: the source (the server or a storage agent), the destination (a drive or a library),
  its type (DRIVE, LIBRARY), the library a drive is in (empty for a library), the device as the
  source opens it (``/dev/rmtN`` on AIX: the key that joins the server's drive to iostat's) and
  ONLINE (YES or NO). No path is the no-match answer (ANR2034E): an empty list.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import dsmadmc
from .tsm_drives import yes_no

COMMAND = "dsmadmc select from paths"
COLUMNS = ("SOURCE_NAME", "DESTINATION_NAME", "DESTINATION_TYPE", "LIBRARY_NAME", "DEVICE", "ONLINE")


@dataclass
class Path:
    source: str
    destination: str
    destination_type: str
    library: str     # '' for a library's own path
    device: str
    online: bool


def parse(text: str) -> list:
    return [Path(source=src, destination=dest, destination_type=kind.upper(), library=lib, device=device,
                 online=yes_no(online, COMMAND, line, no))
            for no, line, (src, dest, kind, lib, device, online) in dsmadmc.numbered_rows(text, COMMAND, len(COLUMNS))]
