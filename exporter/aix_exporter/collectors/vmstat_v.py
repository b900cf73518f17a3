"""vmstat -v -> gauges and counters.

Naming rules for the 'value label' lines (the label set differs by AIX
release, so unknown labels are named by the same rules instead of dropped):

* '<x> percentage'             -> aix_vmstat_v_<x>_ratio (gauge, value/100)
* 'percentage of memory used for computational pages' -> aix_vmstat_v_computational_ratio
* '<x> pages'                  -> aix_vmstat_v_<x>_bytes (gauge, 4 KB frames)
* '<what> I/Os blocked with no <buf>' -> aix_vmstat_v_blocked_io_total{io=<what>, buffer=<buf>}
* 'memory pools'               -> aix_vmstat_v_memory_pools (gauge)
* anything else                -> aix_vmstat_v_<label>_total (counter)

Labels become names by snake(): 'I/O' -> 'io', other non-alphanumerics -> '_'.
"""
from __future__ import annotations

import re

from ..parsers import vmstat_v
from .base import Collector, Families, register

FRAME = 4096
_BLOCKED_RE = re.compile(r"^(?:pending )?(.+?) I/Os blocked with no (\w+)$")
_GAUGE_COUNTS = {"memory pools": "aix_vmstat_v_memory_pools"}


def snake(label: str) -> str:
    """'pending I/O waits' -> 'pending_io_waits'; 'mpc-sent interrupts' -> 'mpc_sent_interrupts'."""
    label = label.replace("I/O", "io")
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def v_families(pairs: list) -> list:
    f = Families()
    for label, value in pairs:
        m = _BLOCKED_RE.match(label)
        if label == "percentage of memory used for computational pages":
            f.set("aix_vmstat_v_computational_ratio", "Memory used for computational pages (vmstat -v, 0-1).", round(value / 100.0, 8))
        elif label.endswith(" percentage"):
            f.set(f"aix_vmstat_v_{snake(label[:-len(' percentage')])}_ratio", f"vmstat -v '{label}' as a 0-1 ratio.",
                  round(value / 100.0, 8))
        elif label in _GAUGE_COUNTS:
            f.set(_GAUGE_COUNTS[label], f"vmstat -v '{label}'.", value)
        elif label.endswith(" pages"):
            f.set(f"aix_vmstat_v_{snake(label[:-len(' pages')])}_bytes", f"vmstat -v '{label}' in bytes (4 KB frames).", value * FRAME)
        elif m:
            f.set("aix_vmstat_v_blocked_io_total", "I/Os blocked for lack of a buffer since boot (vmstat -v).",
                  value, {"io": snake(m.group(1)), "buffer": m.group(2)}, counter=True)
        else:
            f.set(f"aix_vmstat_v_{snake(label)}_total", f"vmstat -v '{label}' since boot.", value, counter=True)
    return f.result()


@register
class VmstatVCollector(Collector):
    name = "vmstat_v"
    keys = ("vmstat_v",)
    help = "vmstat -v: pinned/free/file pages, VMM percentages, blocked-I/O counters"

    def collect(self, source) -> list:
        return v_families(vmstat_v.parse(source.read("vmstat_v")))
