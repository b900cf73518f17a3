"""iostat -p -> tape bytes read/written, transfers, busy ratio.

Kb_read/Kb_wrtn of a since-boot report are totals (counters). The report has
no transfer or busy-time total, so both are derived from the same report: the
report's elapsed time is (Kb_read + Kb_wrtn) / Kbps, transfers = tps x elapsed,
busy seconds = % tm_act/100 x elapsed (so rate() of it is the current busy
ratio). The collector keeps each derived counter from ever going backwards
while the device's byte counters do not reset (the derivation rounds).
"""
from __future__ import annotations

from ..parsers import iostat_tape
from .base import Collector, Families, register


def elapsed(row) -> float:
    """Seconds the report covers, from its own figures: (Kb_read + Kb_wrtn) / Kbps."""
    kb = row.kb_read + row.kb_written
    if row.kbps <= 0 or kb <= 0:
        return 0.0
    return kb / row.kbps


def transfers(row) -> float:
    return round(row.tps * elapsed(row))


def busy_seconds(row) -> float:
    return round(row.busy_percent / 100.0 * elapsed(row), 1)


@register
class TapeCollector(Collector):
    name = "tape"
    keys = ("iostat_tape",)
    help = "iostat -p: tape drive throughput (rmt*), transfers, busy"

    def __init__(self, settings=None):
        super().__init__(settings)
        self._last: dict = {}   # device -> (kb total, transfers, busy seconds)

    def families_from(self, rows: dict) -> list:
        f = Families()
        f.set("aix_tape_devices", "Tape drives in the iostat -p report.", len(rows))
        for dev, r in sorted(rows.items()):
            lab = {"device": dev}
            kb = r.kb_read + r.kb_written
            xfers, busy = transfers(r), busy_seconds(r)
            prev = self._last.get(dev)
            if prev and kb >= prev[0]:
                xfers, busy = max(xfers, prev[1]), max(busy, prev[2])
            self._last[dev] = (kb, xfers, busy)
            f.set("aix_tape_read_bytes_total", "Bytes read from the tape drive (iostat -p Kb_read).", r.kb_read * 1024, lab, counter=True)
            f.set("aix_tape_written_bytes_total", "Bytes written to the tape drive (iostat -p Kb_wrtn).", r.kb_written * 1024, lab, counter=True)
            f.set("aix_tape_transfers_total", "Transfers to the tape drive (derived from tps over the report's elapsed time).", xfers, lab, counter=True)
            f.set("aix_tape_busy_seconds_total", "Seconds the tape drive was busy (derived: % tm_act x the report's elapsed time).",
                  busy, lab, counter=True)
            f.set("aix_tape_busy_ratio", "Share of time the tape drive was busy over the report's interval (% tm_act/100).",
                  round(r.busy_percent / 100.0, 8), lab)
        return f.result()

    def collect(self, source) -> list:
        return self.families_from(iostat_tape.parse(source.read("iostat_tape")))
