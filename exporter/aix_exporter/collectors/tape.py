"""iostat -p INTERVAL 2 -> tape bytes since boot, and the last interval's throughput,
transfers and busy share.

The command prints two reports: the first covers the time since boot, the second the
interval just ended (iostat -p's documented semantics; parsers/iostat_tape.py).

* Counters, exact: ``aix_tape_read_bytes_total`` / ``aix_tape_written_bytes_total`` are the
  since-boot report's Kb_read / Kb_wrtn plus every later report's (whole KB, x 1024).
* Gauges of the last interval only, from the interval report: ``aix_tape_busy_ratio``
  (% tm_act / 100), ``aix_tape_transfers_per_second`` (tps),
  ``aix_tape_throughput_bytes_per_second`` (Kbps x 1024); the interval is
  ``tape.interval_seconds``.
  A since-boot report alone (a replay of plain ``iostat -p``) gives the counters only:
  its rates are averages since boot, not the current figures those names promise.

No counter is derived from the one-decimal rates (tps, % tm_act): over days of uptime each
0.1 step would add thousands of transfers or hundreds of busy seconds at once.
"""
from __future__ import annotations

from ..parsers import iostat_tape
from .base import Collector, Families, register


def families_from(reports: list) -> list:
    f = Families()
    if not reports:
        f.set("aix_tape_devices", "Tape drives in the iostat -p report.", 0)
        return f.result()
    devices = sorted({dev for rep in reports for dev in rep})
    f.set("aix_tape_devices", "Tape drives in the iostat -p report.", len(devices))
    last = reports[-1] if len(reports) > 1 else {}
    for dev in devices:
        lab = {"device": dev}
        kb_read = sum(rep[dev].kb_read for rep in reports if dev in rep)
        kb_written = sum(rep[dev].kb_written for rep in reports if dev in rep)
        f.set("aix_tape_read_bytes_total", "Bytes read from the tape drive since boot (iostat -p Kb_read: the "
              "since-boot report plus each interval report).", kb_read * 1024, lab, counter=True)
        f.set("aix_tape_written_bytes_total", "Bytes written to the tape drive since boot (iostat -p Kb_wrtn: the "
              "since-boot report plus each interval report).", kb_written * 1024, lab, counter=True)
        row = last.get(dev)
        if row is None:
            continue
        f.set("aix_tape_busy_ratio", "Share of the last interval the tape drive was busy (iostat -p INTERVAL "
              "interval report, % tm_act / 100).", round(row.busy_percent / 100.0, 8), lab)
        f.set("aix_tape_transfers_per_second", "Transfers per second to the tape drive over the last interval "
              "(iostat -p INTERVAL interval report, tps).", row.tps, lab)
        f.set("aix_tape_throughput_bytes_per_second", "Bytes per second read and written over the last interval "
              "(iostat -p INTERVAL interval report, Kbps x 1024).", row.kbps * 1024, lab)
    return f.result()


@register
class TapeCollector(Collector):
    name = "tape"
    keys = ("iostat_tape",)
    help = "iostat -p INTERVAL 2: tape bytes since boot; throughput, transfers and busy of the last interval"
    settings_section = "tape"

    def period(self) -> float:
        return self.config.interval_seconds * 2

    def max_age(self):
        return self.config.max_age_seconds

    def collect(self, source) -> list:
        reports = iostat_tape.parse_reports(source.read("iostat_tape"))
        return families_from(reports)
