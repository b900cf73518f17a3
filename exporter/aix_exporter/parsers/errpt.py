"""AIX's error log (``errpt``): the detailed report ``errpt -a``, the summary report ``errpt``
and the template list ``errpt -t`` (issue 60).

``errpt -a`` (one entry; entries are separated by a line of dashes, newest first)::

    ---------------------------------------------------------------------------
    LABEL:          TAPE_ERR6
    IDENTIFIER:     ...

    Date/Time:       Mon Dec 15 09:29:00 EST 2014
    Sequence Number: 7256
    Machine Id:      00C8D4F54C00
    Node Id:         tsmsrv01
    Class:           H
    Type:            TEMP
    WPAR:            Global
    Resource Name:   rmt3
    Resource Class:  tape
    Resource Type:   3580
    Location:        U78D3.001.WZS0AJN-P1-C5-T1-W500507630F5A2C0E-L0

    Description
    TAPE DRIVE NEEDS CLEANING
    ...

Format rules (``parse``):

* An entry starts at its ``LABEL:`` line (the dash rule before it is optional: a report cut
  from its first entry has none) and runs to the next; its header is the ``Key: value`` lines
  before ``Description``, whose next line is the entry's description.
* Each entry needs LABEL, IDENTIFIER (8 hex digits), Date/Time (``Www Mmm dd hh:mm:ss ZONE
  yyyy``, the LPAR's local time and its zone's abbreviation, or no zone), Sequence Number (the
  error log's own, growing by one per entry), Class (H hardware, S software, O errlogger,
  U undetermined), Type (PERM, TEMP, PERF, PEND, INFO, UNKN) and Resource Name. Resource
  Class is optional (``NONE`` or absent for software entries; else a word of letters, digits,
  ``_`` and ``-``, up to 32), as are WPAR, Location and the VPD block (indented lines).
* An entry missing one of those, or with one that does not read, is skipped and counted
  (``Report.skipped``, with the first one's reason): one damaged entry never hides the others.
* Anything before the first ``LABEL:`` line that is not blank or a dash rule is an error; an
  empty error log prints nothing, which is no entry.

``errpt`` (``parse_summary``): an optional header ``IDENTIFIER TIMESTAMP T C RESOURCE_NAME
DESCRIPTION`` (its blanks single or aligned), then one row an entry: the identifier, the time
as MMDDhhmmYY, the type's letter (P is PERM, PERF or PEND alike: the summary cannot tell them
apart), the class, the resource and the description cut at 40 characters.

``errpt -t`` (``parse_templates``): ``Id Label Type Class Description`` rows, one a template.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Optional

from . import ParseError, text_lines

COMMAND = "errpt -a"
CLASSES = {"H": "hardware", "S": "software", "O": "errlogger", "U": "undetermined"}
TYPES = ("PERM", "TEMP", "PERF", "PEND", "INFO", "UNKN")
_RULE_RE = re.compile(r"^-{20,}\s*$")
_FIELD_RE = re.compile(r"^([A-Za-z][A-Za-z /]*?):\s?(.*)$")
_ID_RE = re.compile(r"^[0-9A-F]{8}$")
_TIME_RE = re.compile(r"^(?:[A-Z][a-z]{2} )?([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d)(?: ([A-Za-z][A-Za-z0-9+-]{0,9}))? (\d{4})$")
_MONTHS = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                                       "Dec"), 1)}
_LABEL_RE = re.compile(r"^[A-Z0-9_]{1,32}$")
_RESOURCE_RE = re.compile(r"^[A-Za-z0-9_.:/-]{1,64}$")
_CLASS_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")   # tape, disk, adapter, NONE (a label value: bounded)


@dataclass
class Entry:
    label: str                     # TAPE_ERR6
    identifier: str                # 8 hex digits
    time: dt.datetime              # the LPAR's local time as printed (naive)
    zone: str                      # its zone's abbreviation as printed ('' when none)
    sequence: int
    error_class: str               # H, S, O, U
    error_type: str                # PERM, TEMP, PERF, PEND, INFO, UNKN
    resource: str                  # rmt3, hdisk0, SYSPROC
    resource_class: str            # tape, disk, adapter; '' when absent or NONE
    description: str


@dataclass
class Report:
    entries: list                  # newest first, as errpt prints them
    skipped: int = 0               # entries that did not read
    first_problem: str = ""        # why the first of them did not


def _time(value: str) -> tuple:
    m = _TIME_RE.match(value.strip())
    if not m or m.group(1) not in _MONTHS:
        raise ValueError(f"Date/Time {value.strip()!r} is not Www Mmm dd hh:mm:ss ZONE yyyy")
    mon, day, hh, mm, ss, zone, year = m.groups()
    return dt.datetime(int(year), _MONTHS[mon], int(day), int(hh), int(mm), int(ss)), zone or ""


def _entry(fields: dict, description: str) -> Entry:
    def need(key: str) -> str:
        if not fields.get(key):
            raise ValueError(f"no {key}")
        return fields[key]
    label, identifier = need("LABEL"), need("IDENTIFIER")
    if not _LABEL_RE.match(label):
        raise ValueError(f"LABEL {label!r} is not a label")
    if not _ID_RE.match(identifier):
        raise ValueError(f"IDENTIFIER {identifier!r} is not 8 hex digits")
    when, zone = _time(need("Date/Time"))
    sequence = need("Sequence Number")
    if not sequence.isdigit() or not sequence.isascii():
        raise ValueError(f"Sequence Number {sequence!r} is not a number")
    cls, kind, resource = need("Class"), need("Type"), need("Resource Name")
    if cls not in CLASSES:
        raise ValueError(f"Class {cls!r} is not H, S, O or U")
    if kind not in TYPES:
        raise ValueError(f"Type {kind!r} is not one of {', '.join(TYPES)}")
    if not _RESOURCE_RE.match(resource):
        raise ValueError(f"Resource Name {resource!r} is not a resource name")
    rclass = fields.get("Resource Class", "")
    if rclass and not _CLASS_RE.match(rclass):
        raise ValueError(f"Resource Class {rclass!r} is not a resource class")
    return Entry(label=label, identifier=identifier, time=when, zone=zone, sequence=int(sequence), error_class=cls,
                 error_type=kind, resource=resource, resource_class="" if rclass in ("", "NONE") else rclass,
                 description=description)


def parse(text: str) -> Report:
    report = Report(entries=[])
    if not text or text.isspace():   # an empty error log: errpt prints nothing
        return report
    lines = text_lines(text, COMMAND)
    blocks: list = []
    for no, line in enumerate(lines, 1):
        if line.startswith("LABEL:"):
            blocks.append([])
        elif not blocks:
            if line.strip() and not _RULE_RE.match(line):
                raise ParseError(f"{COMMAND}: text before the first entry's LABEL line", no, line)
            continue
        blocks[-1].append(line)
    for block in blocks:
        fields: dict = {}
        description = ""
        for i, line in enumerate(block):
            if line.strip() == "Description":
                description = block[i + 1].strip() if i + 1 < len(block) else ""
                break
            m = _FIELD_RE.match(line)
            if m and not line.startswith((" ", "\t")):
                fields.setdefault(m.group(1).strip(), m.group(2).strip())
        try:
            report.entries.append(_entry(fields, description))
        except ValueError as e:
            report.skipped += 1
            report.first_problem = report.first_problem or f"entry {fields.get('LABEL', '?')}: {e}"
    return report


@dataclass
class SummaryRow:
    identifier: str
    time: dt.datetime      # MMDDhhmmYY, the LPAR's local time
    type_letter: str       # P (PERM, PERF or PEND), T, I, U
    error_class: str
    resource: str
    description: str


_SUMMARY_RE = re.compile(r"^([0-9A-F]{8}) +(\d{10}) ([A-Z]) ([A-Z]) (\S+) +(.*?)\s*$")


def _rows(text: str, command: str, row_re, heading: tuple, form: str) -> list:
    """(line number, line, match) of each row of a report with one row a line and an optional
    heading line (its first two words ``heading``)."""
    out = []
    for no, line in enumerate(text_lines(text, command), 1):
        if not line.strip() or tuple(line.split()[:2]) == heading:
            continue
        m = row_re.match(line)
        if not m:
            raise ParseError(f"{command}: not a {form} row", no, line)
        out.append((no, line, m))
    return out


def parse_summary(text: str) -> list:
    out = []
    for no, line, m in _rows(text, "errpt", _SUMMARY_RE, ("IDENTIFIER", "TIMESTAMP"),
                             "summary (IDENTIFIER TIMESTAMP T C RESOURCE_NAME DESCRIPTION)"):
        stamp = m.group(2)
        try:
            when = dt.datetime(2000 + int(stamp[8:]), int(stamp[:2]), int(stamp[2:4]), int(stamp[4:6]), int(stamp[6:8]))
        except ValueError:
            raise ParseError(f"errpt: {stamp} is not a time as MMDDhhmmYY", no, line) from None
        out.append(SummaryRow(m.group(1), when, m.group(3), m.group(4), m.group(5), m.group(6)))
    return out


@dataclass
class Template:
    identifier: str
    label: str
    error_type: str
    error_class: str
    description: str


_TEMPLATE_RE = re.compile(r"^([0-9A-F]{8}) +([A-Z0-9_]+) +(PERM|TEMP|PERF|PEND|INFO|UNKN) +([HSOU]) +(.*?)\s*$")


def parse_templates(text: str) -> list:
    return [Template(*m.groups()) for _, _, m in _rows(text, "errpt -t", _TEMPLATE_RE, ("Id", "Label"),
                                                        "template (Id Label Type Class Description)")]


def newest(entries: list) -> Optional[Entry]:
    """The entry with the highest sequence number (errpt prints newest first, but a report
    joined from two reads need not be)."""
    return max(entries, key=lambda e: e.sequence, default=None)
