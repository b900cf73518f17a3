"""nmon recordings (``topas_nmon -f``, ``nmon -f``) -> samples on the exporter's metric names.

Format rules (../shared/corpus/nmon and SOURCES.md; tests/fixtures/nmon):

* One record a line: ``SECTION,field,...``. A **header** names a section's columns
  (``CPU_ALL,CPU Total host,User%,Sys%,...``); a **data row** has a snapshot id instead of
  the description (``CPU_ALL,T0001,32.2,...``). Snapshot ids are ``T`` and 4 to 16 digits.
  Headers may come anywhere in the file, also after other sections' rows; a row before its
  section's header is skipped and counted. Header fields lose the blanks around them.
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

Modules, one concern each: ``records`` (lines and fields), ``dates`` (AAA/ZZZZ dates, the
time zone, DST), ``snapshots`` (records -> snapshots in time order), ``mapping`` (the tables
below, the samples of a snapshot). ``IMPORTER`` is what ``aix-exporter import nmon`` uses.

Mapping (names are the live exporter's, so imported history and live data are one series set):
"""
from __future__ import annotations

import argparse
import functools
from typing import Iterator, TextIO

from ... import domains
from ..base import Snapshot, Stats
from . import dates, mapping, records
from .mapping import GAUGES, MAPPED_SECTIONS, NOT_MAPPED, NOT_MAPPED_PREFIXES, PAGE_SECTIONS, samples, vmo_tunables
from .records import NmonError, read_records
from .snapshots import SnapshotRows, snapshots

__all__ = ["GAUGES", "IMPORTER", "MAPPED_SECTIONS", "NOT_MAPPED", "NOT_MAPPED_PREFIXES", "PAGE_SECTIONS", "NmonError",
           "NmonImporter", "SnapshotRows", "Stats", "dates", "mapping", "read_records", "records", "samples",
           "snapshots", "vmo_tunables"]


_bounds = functools.lru_cache(maxsize=None)(domains.bounds)   # per metric name, of a few dozen


class NmonImporter:
    name = "nmon"
    summary = "topas_nmon / nmon recordings (aix-exporter import nmon --help)"
    usage = "[--tz ZONE] [--date-order dmy|mdy]"
    option_defaults = {"tz": None, "date_order": None}

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--tz", help="the LPAR's time zone (IANA name, e.g. Europe/Paris); required unless the "
                                         "recording names one")
        parser.add_argument("--date-order", choices=["dmy", "mdy"], help="how to read an old numeric AAA,date")

    def first(self, text: TextIO, options: dict) -> tuple:
        aaa: dict = {}
        for snap in snapshots(text, options["tz"], options["date_order"], Stats(), {}, aaa):
            return snap.epoch, aaa.get("host")
        return None, aaa.get("host")

    def snapshots(self, text: TextIO, options: dict, stats: Stats, state: dict) -> Iterator[Snapshot]:
        counters = state.setdefault("counters", {})   # the LPAR's running MEMPAGES event sums
        bbbp: dict = {}
        vmo = None
        for snap in snapshots(text, options["tz"], options["date_order"], stats, bbbp):
            if vmo is None:   # (BBBP lines come before the first snapshot)
                vmo = vmo_tunables(bbbp.get("vmo -F -L", []) + bbbp.get("vmo -L", []))
            good = []
            for s in samples(snap.rows, vmo, counters):
                low, high = _bounds(s.series.name)
                if low <= s.value <= high:   # (domains.why as one comparison)
                    good.append(s)
                else:   # counted and skipped, as a bad row is: the summary says how many and why
                    reason = domains.why(s.series.name, s.value) or ""
                    stats.skip(f"impossible value in {s.series.name} ({reason.split(' is ', 1)[1]})")
            yield Snapshot(snap.epoch, good)

    def unmapped(self, section: str) -> tuple:
        return mapping.unmapped(section)

    def mapping_table(self) -> str:
        return mapping.mapping_table()


IMPORTER = NmonImporter()
__doc__ = (__doc__ or "") + mapping.mapping_table()
