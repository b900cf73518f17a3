"""The library's volumes counted by status from the LIBVOLUMES table: ``dsmadmc -dataonly=yes
-comma "select MEDIATYPE,STATUS,LIBRARY_NAME,COUNT(*) from libvolumes group by
(MEDIATYPE,STATUS,LIBRARY_NAME)"`` (rules in parsers/dsmadmc.py):

    LTO-7,Private,LIB1,1082
    LTO-7,Scratch,LIB1,153

Format rules:

* 4 fields: the media type, the status (Scratch, Private), the library and the count. No
  volume at all is the no-match answer (ANR2034E): an empty list.
* The counts of one library and status are summed over the media types (scratch tapes of
  any generation the library holds); the status is given in lower case.
"""
from __future__ import annotations

from . import dsmadmc

COMMAND = "dsmadmc select from libvolumes"
COLUMNS = ("MEDIATYPE", "STATUS", "LIBRARY_NAME", "COUNT(*)")


def parse(text: str) -> dict:
    """{(library, status): volumes}."""
    out: dict = {}
    for no, line, (_media, status, library, count) in dsmadmc.numbered_rows(text, COMMAND, len(COLUMNS)):
        key = (library or "-", (status or "-").lower())
        out[key] = out.get(key, 0) + dsmadmc.whole(count, COMMAND, line, no)
    return out
