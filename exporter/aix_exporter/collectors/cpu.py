"""aix_cpu_seconds_total{mode} from psutil (system source only)."""
from __future__ import annotations

from .base import Collector, Families, register

_MODES = {"user": "user", "system": "sys", "idle": "idle", "iowait": "wait", "nice": "nice",
          "irq": "irq", "softirq": "softirq", "steal": "steal"}


@register
class CpuCollector(Collector):
    name = "cpu"
    keys = ()
    help = "CPU seconds by mode from psutil (only with --source system)"
    requires_system = True
    requires_module = "psutil"   # optional on AIX (AIX Toolbox: dnf install python3-psutil)
    metrics = ("aix_cpu_seconds_total",)

    def collect(self, source) -> list:
        import psutil
        times = psutil.cpu_times()
        f = Families()
        for field, mode in _MODES.items():
            if hasattr(times, field):
                f.set("aix_cpu_seconds_total", "CPU time spent in each mode since boot (psutil).",
                      getattr(times, field), {"mode": mode}, counter=True)
        return f.result()
