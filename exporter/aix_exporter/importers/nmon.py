"""nmon recordings (``topas_nmon -f``, ``nmon -f``) -> samples on the exporter's metric names.

Format rules (../shared/corpus/nmon and SOURCES.md; tests/fixtures/nmon):

* One record a line: ``SECTION,field,...``. A **header** names a section's columns
  (``CPU_ALL,CPU Total host,User%,Sys%,...``); a **data row** has a snapshot id instead of
  the description (``CPU_ALL,T0001,32.2,...``). Snapshot ids are ``T`` and 4 to 16 digits.
  Headers may come anywhere in the file, also after other sections' rows; a row before its
  section's header is skipped and counted. Header fields lose trailing spaces.
* ``TOP`` rows put the PID before the snapshot id (``TOP,2555992,T0002,...``).
* ``ZZZZ,T0001,17:28:10,10-FEB-2016`` gives a snapshot's local time and date; the old form
  ``ZZZZ,T0001,17:28:10`` has no date: the date is ``AAA,date`` and advances by a day each
  time the clock goes backwards (a recording that crosses midnight). ``AAA,date`` in the
  numeric forms ``DD/MM/YY`` and ``MM/DD/YY`` is ambiguous when both readings are valid
  dates: ``date_order`` ('dmy' or 'mdy') decides, and without it the import stops and says so.
* Times are local with no zone in the file: ``tz`` (an IANA name) is required unless an AAA
  line names one (``AAA,timezone,Europe/Paris`` or ``AAA,TZ,...``). A local time that
  occurs twice (DST ends) takes its first occurrence unless the snapshots' order needs the
  second; a local time that does not exist (DST starts) is an error, never a silent shift.
* A data row whose field count differs from its header's is skipped and counted, never
  misaligned. ``ERROR`` lines are counted and skipped. A snapshot that never got its ZZZZ
  line (a truncated last snapshot) is dropped and counted.
* ``;``-delimited files (converted by spreadsheets) use decimal commas: the delimiter is
  read off the first line. CRLF line ends are accepted.
* ``BBBP`` lines carry command outputs captured at the start: ``vmo -L`` / ``vmo -F -L`` rows
  give ``lgpg_regions`` and ``lgpg_size`` (CUR and BOOT columns, values like ``16M``).

Mapping (names are the live exporter's, so imported history and live data are one series set):
"""
from __future__ import annotations

import codecs
import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional

from ..parsers import suffixed_number

SNAPSHOT_ID = re.compile(r"T\d{4,16}")   # fullmatch: a snapshot id
_TIME_RE = re.compile(r"^(\d{1,2}):(\d\d):(\d\d)$")
_MONTHS = {m: i for i, m in enumerate(("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT",
                                       "NOV", "DEC"), 1)}
MIB = 1 << 20
PAGE_SECTIONS = {"MEMPAGES4KB": ("4K", 4096), "MEMPAGES64KB": ("64K", 65536), "MEMPAGES16MB": ("16M", 16 << 20),
                 "MEMPAGES16GB": ("16G", 16 << 30)}
FIXED_POOLS = {"16M", "16G"}
VMO_TUNABLES = ("lgpg_regions", "lgpg_size")
BBBP_COMMANDS = ("vmo",)   # the BBBP command outputs the import reads (vmo -L, vmo -F -L)


class NmonError(ValueError):
    """A recording that cannot be imported as it stands (the message says why and where)."""


# -- the mapping, as data: (section, column) -> (metric, type, help, labels, scale) --------
GAUGES = {
    ("CPU_ALL", "User%"): ("aix_vmstat_cpu_ratio", {"mode": "user"}, 0.01),
    ("CPU_ALL", "Sys%"): ("aix_vmstat_cpu_ratio", {"mode": "sys"}, 0.01),
    ("CPU_ALL", "Wait%"): ("aix_vmstat_cpu_ratio", {"mode": "wait"}, 0.01),
    ("CPU_ALL", "Idle%"): ("aix_vmstat_cpu_ratio", {"mode": "idle"}, 0.01),
    ("LPAR", "PhysicalCPU"): ("aix_vmstat_physical_cpus_consumed", {}, 1),
    ("LPAR", "entitled"): ("aix_lpar_entitled_capacity_cpus", {}, 1),
    ("LPAR", "logicalCPUs"): ("aix_lpar_logical_cpus", {}, 1),
    ("MEM", "Real total(MB)"): ("aix_memory_size_bytes", {}, MIB),
    ("MEM", "Real free(MB)"): ("aix_memory_free_bytes", {}, MIB),
    ("LARGEPAGE", "Freepages"): ("aix_vmstat_large_pages_free", {}, 1),
    ("LARGEPAGE", "Usedpages"): ("aix_vmstat_large_pages_active", {}, 1),
    ("PAGE", "pgsin"): ("aix_vmstat_paging_pages_per_second", {"column": "pi"}, 1),
    ("PAGE", "pgsout"): ("aix_vmstat_paging_pages_per_second", {"column": "po"}, 1),
    ("PAGE", "pgin"): ("aix_vmstat_paging_pages_per_second", {"column": "fi"}, 1),
    ("PAGE", "pgout"): ("aix_vmstat_paging_pages_per_second", {"column": "fo"}, 1),
    ("PAGE", "reclaims"): ("aix_vmstat_paging_pages_per_second", {"column": "re"}, 1),
    ("PAGE", "scans"): ("aix_vmstat_paging_pages_per_second", {"column": "sr"}, 1),
    ("PROC", "Runnable"): ("aix_vmstat_runqueue_threads", {}, 1),
    ("PROC", "pswitch"): ("aix_vmstat_context_switches_per_second", {}, 1),
    ("PROC", "syscall"): ("aix_vmstat_syscalls_per_second", {}, 1),
}
# MEMPAGES per-interval event counts -> running counters (their sum since the import's first snapshot)
EVENT_COUNTERS = {
    "pgexct": "aix_memory_page_faults",
    "pageins": "aix_memory_page_ins",
    "pageouts": "aix_memory_page_outs",
    "pgspgins": "aix_memory_paging_space_page_ins",
    "pgspgouts": "aix_memory_paging_space_page_outs",
}
# HELP of the imported families: what each figure covers in an nmon recording (the live
# exporter's HELP names its own command; the metric and its meaning are the same)
HELP = {
    "aix_vmstat_cpu_ratio": "CPU time split of the snapshot's interval (0-1; nmon CPU_ALL User%, Sys%, Wait%, Idle%).",
    "aix_vmstat_physical_cpus_consumed": "Physical processors consumed over the snapshot's interval (nmon LPAR PhysicalCPU).",
    "aix_lpar_entitled_capacity_cpus": "Entitled capacity in processors (nmon LPAR entitled).",
    "aix_lpar_logical_cpus": "Logical CPUs (nmon LPAR logicalCPUs).",
    "aix_memory_size_bytes": "Real memory size (nmon MEM Real total(MB)).",
    "aix_memory_free_bytes": "Real memory free at the snapshot (nmon MEM Real free(MB)).",
    "aix_vmstat_large_pages_free": "Large pages free at the snapshot (nmon LARGEPAGE Freepages).",
    "aix_vmstat_large_pages_active": "Large pages in use at the snapshot (nmon LARGEPAGE Usedpages).",
    "aix_vmstat_paging_pages_per_second": "Pages per second over the snapshot's interval by vmstat column (nmon PAGE: "
                                          "pgsin pi, pgsout po, pgin fi, pgout fo, reclaims re, scans sr).",
    "aix_vmstat_runqueue_threads": "Kernel threads in the run queue over the snapshot's interval (nmon PROC Runnable).",
    "aix_vmstat_context_switches_per_second": "Context switches per second over the snapshot's interval (nmon PROC pswitch).",
    "aix_vmstat_syscalls_per_second": "System calls per second over the snapshot's interval (nmon PROC syscall).",
    "aix_memory_page_inuse_bytes": "Memory in use per page size at the snapshot (nmon MEMPAGES numframes - numfrb).",
    "aix_memory_page_pool_size_bytes": "Size of a fixed page pool (nmon MEMPAGES16MB/16GB numframes).",
    "aix_vmo_tunable": "VMM tunable value (setting=current or boot; lgpg_size in bytes), from the vmo -L copy in nmon BBBP.",
    "aix_memory_page_faults": "Page faults per page size since the first imported snapshot (nmon MEMPAGES pgexct; import only).",
    "aix_memory_page_ins": "Page-ins per page size since the first imported snapshot (nmon MEMPAGES pageins; import only).",
    "aix_memory_page_outs": "Page-outs per page size since the first imported snapshot (nmon MEMPAGES pageouts; import only).",
    "aix_memory_paging_space_page_ins": "Paging-space page-ins per page size since the first imported snapshot "
                                        "(nmon MEMPAGES pgspgins; import only).",
    "aix_memory_paging_space_page_outs": "Paging-space page-outs per page size since the first imported snapshot "
                                         "(nmon MEMPAGES pgspgouts; import only).",
}
# Sections read but not mapped, and why (the summary lists them with their row counts)
NOT_MAPPED = {
    "TOP": "per-process rows of every busy command, not the monitored processes' svmon -P figures",
    "UARG": "process arguments",
    "MEMNEW": "percentages of a different breakdown than svmon -G",
    "MEMUSE": "numperm/minfree tuning percentages: no live metric",
    "POOLS": "shared-pool figures: no live metric",
    "PROCAIO": "AIO servers: no live metric",
    "FILE": "kernel file I/O rates (iget, namei, readch, writech): no live metric",
    "PAGING": "free MB per paging-space device; the live exporter reports paging space as a whole "
              "(svmon -G size and in use), which these rows lack",
}
NOT_MAPPED_PREFIXES = {"CPU": "per-CPU rows", "SCPU": "per-CPU rows", "PCPU": "per-CPU rows",
                       "DISK": "disk rows: no live disk metric", "VG": "volume-group rows: no live metric",
                       "IOADAPT": "adapter rows: no live metric", "NET": "network rows: no live metric",
                       "SEA": "network rows: no live metric", "FC": "adapter rows: no live metric",
                       "JFS": "file system rows: no live metric", "LAN": "network rows: no live metric",
                       "WLM": "workload-manager rows: no live metric"}


def _doc_mapping() -> str:
    rows = ["", "| nmon section, column | metric | labels | scale |", "|---|---|---|---|"]
    for (sec, col), (metric, labels, scale) in GAUGES.items():
        lab = ", ".join(f'{k}="{v}"' for k, v in labels.items())
        rows.append(f"| `{sec}` {col} | `{metric}` | {lab} | {'MB to bytes' if scale == MIB else 'x 1/100' if scale == 0.01 else '1'} |")
    for sec, (psize, _) in PAGE_SECTIONS.items():
        rows.append(f"| `{sec}` numframes - numfrb | `aix_memory_page_inuse_bytes` | psize=\"{psize}\" | pages to bytes |")
    for sec, (psize, _) in PAGE_SECTIONS.items():
        if psize in FIXED_POOLS:
            rows.append(f"| `{sec}` numframes | `aix_memory_page_pool_size_bytes` | psize=\"{psize}\" | pages to bytes |")
    for col, metric in EVENT_COUNTERS.items():
        rows.append(f"| `MEMPAGES*` {col} (per interval) | `{metric}_total` | psize | running sum |")
    rows.append("| `BBBP` vmo -L / -F -L lgpg_regions, lgpg_size (CUR, BOOT) | `aix_vmo_tunable` | "
                "tunable, setting=\"current\"/\"boot\" | 16M to bytes |")
    rows.append("")
    rows.append("Not mapped: " + "; ".join(f"`{k}` ({v})" for k, v in NOT_MAPPED.items())
                + "; " + "; ".join(f"`{k}*` ({v})" for k, v in NOT_MAPPED_PREFIXES.items()) + ".")
    return "\n".join(rows) + "\n"


__doc__ += _doc_mapping()


@dataclass
class Stats:
    files: int = 0
    snapshots: int = 0
    rows_skipped: dict = field(default_factory=dict)     # reason -> count
    sections_unmapped: dict = field(default_factory=dict)   # section -> rows

    def skip(self, reason: str, n: int = 1):
        self.rows_skipped[reason] = self.rows_skipped.get(reason, 0) + n


class DataRow:
    """One data row: values converted when asked for (most columns are never used).
    ``cols``: the header's {column: position}, shared by all rows under that header."""
    __slots__ = ("cols", "values", "comma")

    def __init__(self, cols: dict, values: list, comma: bool):
        self.cols, self.values, self.comma = cols, values, comma

    def get(self, column: str) -> Optional[float]:
        i = self.cols.get(column)
        return None if i is None else _number(self.values[i], self.comma)


@dataclass
class Snapshot:
    id: str
    epoch: float
    rows: dict   # section -> {column: value}


def _number(token: str, decimal_comma: bool) -> Optional[float]:
    """A finite number, or None (empty, not a number, NaN or infinite). float() itself
    ignores the blanks around a field."""
    if decimal_comma:
        token = token.replace(",", ".")
    try:
        v = float(token)
    except ValueError:
        return None
    return v if v - v == 0 else None   # (NaN and the infinities give NaN)


def _split(line: str, delim: str) -> list:
    """Fields of a line; a field in double quotes may hold the delimiter (BBBP command output)."""
    if '"' not in line:
        return line.split(delim)
    out: list = []
    cur: list = []
    quoted = False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif ch == delim and not quoted:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


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


def _zone(name: str):
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
        if e1 != e0 and self.last is not None and e0 <= self.last < e1:
            e0 = e1   # the repeated hour: the snapshots' order says this is its second occurrence
        self.last = e0
        return e0


_SPECIAL = {"AAA", "BBBP", "ZZZZ", "ERROR", "TOP"}
# the sections the reader keeps: derived from the mapping tables, so a new row on a new section
# is read, never silently dropped as unmapped
MAPPED_SECTIONS = frozenset({*PAGE_SECTIONS, *(sec for sec, _ in GAUGES)})
_BLOCK_BYTES = 1 << 20   # bytes of a recording matched at a time
_BLOCK_LINES = 8192   # lines, when given lines


def _patterns(delim: str):
    """Per delimiter, over a block of text that starts with a newline: the lines the import
    reads (special and mapped sections, a section name padded with blanks included; of BBBP
    only the lines of BBBP_COMMANDS), the
    section names of data rows (``SECTION,Tnnnn``, to count the unmapped ones), and TOP rows
    (``TOP,pid,Tnnnn``). Each starts with a literal newline, which re searches for fast."""
    d = re.escape(delim)
    names = "|".join(sorted((re.escape(n) for n in (_SPECIAL - {"TOP", "BBBP"}) | MAPPED_SECTIONS), key=len,
                            reverse=True))
    bbbp = rf"BBBP{d}[^{d}\n]*{d}[ \t]*(?:{'|'.join(BBBP_COMMANDS)})[ {d}][^\n]*"
    wanted = re.compile(rf"\n((?:[ \t]*(?:{names})[ \t]*(?:{d}[^\n]*)?)|{bbbp})\r?(?=\n)")
    row = re.compile(rf"\n([^{d}\n]*){d}T\d{{4,16}}(?=[{d}\r\n])")
    top = re.compile(rf"\n[ \t]*TOP[ \t]*{d}[^{d}\n]*{d}[ \t]*T\d{{4,16}}[ \t]*(?=[{d}\r\n])")
    return wanted, row, top


_PATTERNS = {",": _patterns(","), ";": _patterns(";")}


def _blocks(lines: Iterable[str]) -> Iterator[str]:
    """Text of whole lines, a block at a time, each starting with a newline (the patterns
    anchor on it). A text stream is read underneath, from its binary buffer with read1 (one
    read at a time, so a truncated gzip yields everything decompressed before the failure,
    then raises); any other iterable of lines is joined in batches."""
    raw = getattr(lines, "buffer", None)
    if raw is not None and hasattr(raw, "read1"):
        decoder = codecs.getincrementaldecoder(getattr(lines, "encoding", None) or "utf-8")(errors="replace")
        carry = "\n"
        size = min(1 << 16, _BLOCK_BYTES)   # small first, so reading only the first snapshot reads little
        try:
            while True:
                chunk = raw.read1(size)
                size = min(2 * size, _BLOCK_BYTES)
                if not chunk:
                    break
                text = carry + decoder.decode(chunk)
                cut = text.rfind("\n")
                if cut <= 0:
                    carry = text
                    continue
                yield text[:cut + 1]
                carry = text[cut:]
            carry += decoder.decode(b"", final=True)
        except (OSError, EOFError):
            if carry.strip():
                yield carry + "\n"   # (a last line cut short has no newline of its own)
            raise
        if carry.strip():
            yield carry + "\n"
        return
    batch: list = ["\n"]
    for line in lines:
        batch.append(line.rstrip("\r\n") + "\n")
        if len(batch) >= _BLOCK_LINES:
            yield "".join(batch)
            batch = ["\n"]
    if len(batch) > 1:
        yield "".join(batch)


def read_records(lines: Iterable[str], stats: Optional[Stats] = None) -> Iterator[tuple]:
    """Split lines into field lists (delimiter and decimal commas from the first line).

    With ``stats``, only the lines of the special and mapped sections are split; the data rows
    of other sections (most of a recording: per-CPU and per-disk rows) and TOP rows are only
    counted, in ``stats.sections_unmapped``, by regular expressions over blocks of text."""
    if stats is None:
        delim, comma = None, False
        for raw in lines:
            line = raw.rstrip("\r\n")
            if not line:
                continue
            if delim is None:
                delim = ";" if line.startswith("AAA;") else ","
                comma = delim == ";"
            yield _split(line, delim), comma
        return
    delim = None
    unmapped = stats.sections_unmapped
    for block in _blocks(lines):
        if delim is None:
            first = next((ln for ln in block.split("\n", 64) if ln.strip("\r")), None)
            if first is None:
                continue
            delim = ";" if first.startswith("AAA;") else ","
            comma = delim == ";"
            wanted, row, top = _PATTERNS[delim]
        for sec, n in Counter(row.findall(block)).items():
            sec = sec.strip()
            if sec not in _SPECIAL and sec not in MAPPED_SECTIONS:
                unmapped[sec] = unmapped.get(sec, 0) + n
        tops = len(top.findall(block))
        if tops:
            unmapped["TOP"] = unmapped.get("TOP", 0) + tops
        for line in wanted.findall(block):
            line = line.rstrip("\r")
            if line.lstrip(" \t").startswith("BBBP"):   # BBBP,NNN,command,"text" (the text may hold the delimiter)
                fields = line.split(delim, 3)
                if len(fields) == 4:
                    fields[3] = fields[3].strip('"')
                yield fields, comma
            else:
                yield line.split(delim), comma


def snapshots(lines: Iterable[str], tz: Optional[str], date_order: Optional[str], stats: Stats,
              bbbp: dict) -> Iterator[Snapshot]:
    """Snapshots of one recording in time order. ``bbbp``: filled with {command: [lines]} for the
    commands of BBBP_COMMANDS."""
    headers: dict = {}
    aaa: dict = {}
    pending: dict = {}      # snapshot id -> {section: {column: value}}, until the snapshot is complete
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
            yield Snapshot(sid, times[sid], pending.pop(sid, {}))
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
                headers[sec] = (len(cols), {c: i for i, c in reversed(list(enumerate(cols)))})
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
            sid, tm = fields[1].strip(), _TIME_RE.match(fields[2].strip())
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
                clock = Clock(_zone(zone_name))
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



def vmo_tunables(lines: list) -> dict:
    """{tunable: {"current": v, "boot": v}} for lgpg_regions and lgpg_size from the BBBP copy of
    vmo -L / vmo -F -L (rows: NAME CUR DEF BOOT MIN MAX UNIT TYPE; the name at column 0)."""
    out = {}
    for line in lines:
        tokens = line.strip('"').split()
        if len(tokens) >= 4 and tokens[0] in VMO_TUNABLES and not line.startswith((" ", '" ')):
            cur, boot = suffixed_number(tokens[1]), suffixed_number(tokens[3])
            out[tokens[0]] = {"current": cur, "boot": boot}
    return out


_PSIZE_LABELS = {psize: {"psize": psize} for psize, _ in PAGE_SECTIONS.values()}
_GAUGES_BY_SECTION: dict = {}   # GAUGES grouped by section, in GAUGES' order
for (_sec, _col), (_metric, _labels, _scale) in GAUGES.items():
    _GAUGES_BY_SECTION.setdefault(_sec, []).append((_col, _metric, _labels, _scale, HELP[_metric]))
_VMO_LABELS: dict = {}


def samples(snap: Snapshot, vmo: dict, counters: dict) -> Iterator[tuple]:
    """(metric family, type, help, sample name, labels, value) of one snapshot; the labels of
    a series are the same dict object every time (callers may cache by it; never mutate it).
    ``counters``
    carries the running sums of the MEMPAGES event counts from snapshot to snapshot."""
    rows = snap.rows
    for sec, gauges in _GAUGES_BY_SECTION.items():
        row = rows.get(sec)
        if row is None:
            continue
        for col, metric, labels, scale, help_ in gauges:
            v = row.get(col)
            if v is not None:   # (a percentage is divided by 100, not multiplied by 0.01: exact decimals)
                yield metric, "gauge", help_, metric, labels, v / 100 if scale == 0.01 else v * scale
    for sec, (psize, size) in PAGE_SECTIONS.items():
        row = snap.rows.get(sec)
        if not row:
            continue
        frames, free = row.get("numframes"), row.get("numfrb")
        if frames is not None and free is not None:
            yield ("aix_memory_page_inuse_bytes", "gauge", HELP["aix_memory_page_inuse_bytes"],
                   "aix_memory_page_inuse_bytes", _PSIZE_LABELS[psize], (frames - free) * size)
        if psize in FIXED_POOLS and frames is not None:
            yield ("aix_memory_page_pool_size_bytes", "gauge", HELP["aix_memory_page_pool_size_bytes"],
                   "aix_memory_page_pool_size_bytes", _PSIZE_LABELS[psize], frames * size)
        for col, metric in EVENT_COUNTERS.items():
            v = row.get(col)
            if v is None:
                continue
            key = (metric, psize)
            counters[key] = counters.get(key, 0.0) + v
            yield metric, "counter", HELP[metric], metric + "_total", _PSIZE_LABELS[psize], counters[key]
    for tunable, values in sorted(vmo.items()):
        for setting in ("current", "boot"):
            if values.get(setting) is not None:
                labels = _VMO_LABELS.setdefault((tunable, setting), {"tunable": tunable, "setting": setting})
                yield "aix_vmo_tunable", "gauge", HELP["aix_vmo_tunable"], "aix_vmo_tunable", labels, values[setting]


def host_of(lines: Iterable[str]) -> Optional[str]:
    for fields, _ in read_records(lines):
        if fields[0] == "AAA" and len(fields) >= 3 and fields[1].strip() == "host":
            return fields[2].strip()
        if fields[0] not in ("AAA",):
            break
    return None
