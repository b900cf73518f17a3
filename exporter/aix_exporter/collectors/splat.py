"""splat report -> per-function and per-lock contention (top N), window length, report age."""
from __future__ import annotations

from ..parsers import splat
from .base import Collector, Families, register


def rank_functions(functions: dict) -> list:
    """Functions by lock misses, then acquisitions: the contended pin routine comes first."""
    return sorted(functions.values(), key=lambda f: (-f.misses, -f.acquisitions, f.name))


def families_from(rep: splat.SplatReport, top_n: int = 10, report_time=None) -> list:
    f = Families()
    if rep.window_seconds is not None:
        f.set("aix_splat_window_seconds", "Length of the traced window the splat report covers.", rep.window_seconds)
    if report_time is not None:
        f.set("aix_splat_report_timestamp_seconds", "Unix time the splat report was produced.", report_time)
    for fn in rank_functions(rep.functions)[:top_n]:
        lab = {"function": fn.name}
        f.set("aix_splat_function_acquisitions", "Lock acquisitions by the function in the window (splat -da).",
              fn.acquisitions, lab)
        f.set("aix_splat_function_miss_ratio", "Share of the function's lock acquisitions that missed (0-1).",
              round(fn.miss_ratio, 8), lab)
        f.set("aix_splat_function_spin_count", "Spins of the function on the lock in the window.", fn.spin_count, lab)
    locks = rep.locks or rep.details
    for l in sorted(locks, key=lambda l: -l.acquisitions)[:top_n]:
        lab = {"lock": l.name, "type": l.type}
        f.set("aix_splat_lock_acquisitions", "Acquisitions of the lock in the window (splat).", l.acquisitions, lab)
        f.set("aix_splat_lock_miss_ratio", "Share of the lock's acquisitions that missed (0-1).",
              round((l.miss_percent or 0.0) / 100.0, 8), lab)
    for kind, acq in rep.gross.items():
        f.set("aix_splat_gross_acquisitions", "Acquisitions by lock class (splat gross lock summary).", acq, {"kind": kind})
    return f.result()


@register
class SplatCollector(Collector):
    name = "splat"
    keys = ("splat",)
    help = "splat lock report (trace window or watched directory): pin-lock miss ratio, top locks"
    settings_section = "splat"

    @classmethod
    def configured(cls, settings) -> bool:
        """On a real system splat needs a watched directory or the trace window."""
        return bool(settings.splat.report_dir or settings.splat.enabled_trace)

    def period(self) -> float:
        return self.config.every_minutes * 60

    def max_age(self):
        return self.config.max_age_seconds

    def collect(self, source) -> list:
        top_n = self.config.top_n
        text = source.read("splat")
        when = source.report_time("splat")
        return families_from(splat.parse(text), top_n, when)
