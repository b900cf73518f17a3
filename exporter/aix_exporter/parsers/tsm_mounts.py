"""Mounted volumes: ``dsmadmc -dataonly=yes query mount`` (IBM Spectrum Protect messages):

    ANR8330I LTO volume A00001L6 is mounted R/W in drive DRIVE1 (/dev/rmt1), status: IN USE.
    ANR8329I LTO volume A00002L6 is mounted R/W in drive DRIVE2 (/dev/rmt2), status: IDLE.
    ANR8331I LTO volume A00003L6 is mounted R/O in drive DRIVE3 (/dev/rmt3), status: DISMOUNTING.
    ANR8379I Mount point in device class LTOCLASS is waiting for the volume mount to complete, status: WAITING FOR VOLUME.
    ANR8334I         4 matches found.

* ANR8329I (idle), ANR8330I (in use) and ANR8331I (dismounting) name the volume, its access,
  the drive and its device; ANR8379I is a mount point still waiting for a volume.
* ``ANR2034E QUERY MOUNT: No match found`` is no mount. ANR8334I (the count) is not a mount.
* Any other line is an error naming it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import ParseError, dsmadmc, text_lines

COMMAND = "dsmadmc query mount"
_MOUNTED_RE = re.compile(r"^\s*(ANR833[01]I|ANR8329I)\s+(\S+)\s+volume\s+(\S+)\s+is mounted\s+(R/W|R/O)\s+in drive\s+"
                         r"(\S+)\s+\(([^)]*)\),\s+status:\s+([A-Z ]+?)\.?\s*$")
_WAITING_RE = re.compile(r"^\s*ANR8379I\s+Mount point in device class\s+(\S+)\s+is waiting for the volume mount "
                         r"to complete,\s+status:\s+([A-Z ]+?)\.?\s*$")


@dataclass
class Mount:
    msgid: str
    drive: str      # '' for a mount point waiting for a volume
    device: str
    status: str     # IN USE, IDLE, DISMOUNTING, WAITING FOR VOLUME ...
    access: str     # R/W, R/O, or '' while waiting
    volume: str = ""  # the volume's name, '' while waiting


def parse(text: str) -> list:
    if dsmadmc.NO_MATCH_RE.search(text or ""):
        return []
    out = []
    for no, line in enumerate(text_lines(text, COMMAND), 1):
        if not line.strip() or line.lstrip().startswith("ANR8334I"):
            continue
        m = _MOUNTED_RE.match(line)
        if m:
            out.append(Mount(m.group(1), m.group(5), m.group(6), m.group(7).strip(), m.group(4), m.group(3)))
            continue
        m = _WAITING_RE.match(line)
        if m:
            out.append(Mount("ANR8379I", "", "", m.group(2).strip(), ""))
            continue
        raise ParseError(f"{COMMAND}: not a mount message", no, line)
    return out
