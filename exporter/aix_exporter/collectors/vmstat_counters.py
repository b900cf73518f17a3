"""vmstat -v and vmstat -s -> gauges and counters.

Naming rules for the 'value label' lines (the label set differs by AIX
release, so unknown labels are named by the same rules instead of dropped):

vmstat -v
* '<x> percentage'             -> aix_vmstat_v_<x>_ratio (gauge, value/100)
* 'percentage of memory used for computational pages' -> aix_vmstat_v_computational_ratio
* '<x> pages'                  -> aix_vmstat_v_<x>_bytes (gauge, 4 KB frames)
* '<what> I/Os blocked with no <buf>' -> aix_vmstat_v_blocked_io_total{io=<what>, buffer=<buf>}
* 'memory pools'               -> aix_vmstat_v_memory_pools (gauge)
* anything else                -> aix_vmstat_v_<label>_total (counter)
vmstat -s
* every line                   -> aix_vmstat_<label>_total (counter), with a
  few labels renamed for clarity (see _S_NAMES). ('aix_vmstat_s_' would read
  as an abbreviated unit, which Prometheus naming rules forbid.)
Labels become names by snake(): 'I/O' -> 'io', other non-alphanumerics -> '_'.
"""
from __future__ import annotations

import re

from ..parsers import vmstat_s, vmstat_v
from . import Collector, Families

FRAME = 4096
_BLOCKED_RE = re.compile(r"^(?:pending )?(.+?) I/Os blocked with no (\w+)$")
_GAUGE_COUNTS = {"memory pools": "aix_vmstat_v_memory_pools"}
_S_NAMES = {
    "total address trans. faults": "address_translation_faults",
    "cpu context switches": "context_switches",
    "zero filled pages faults": "zero_filled_page_faults",
    "executable filled pages faults": "executable_filled_page_faults",
    "total reclaims": "reclaims",
}


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
            f.set(f"aix_vmstat_v_{snake(label[:-len(' percentage')])}_ratio", f"vmstat -v '{label}' as a 0-1 ratio.", round(value / 100.0, 8))
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


def s_families(pairs: list) -> list:
    f = Families()
    for label, value in pairs:
        name = _S_NAMES.get(label, snake(label))
        f.set(f"aix_vmstat_{name}_total", f"vmstat -s '{label}' since boot.", value, counter=True)
    return f.result()


class VmstatVCollector(Collector):
    name = "vmstat_v"
    keys = ("vmstat_v",)
    help = "vmstat -v: pinned/free/file pages, VMM percentages, blocked-I/O counters"

    def collect(self, source) -> list:
        return v_families(vmstat_v.parse(source.read("vmstat_v")))


class VmstatSCollector(Collector):
    name = "vmstat_s"
    keys = ("vmstat_s",)
    help = "vmstat -s: paging, fault, interrupt and syscall counters since boot"

    def collect(self, source) -> list:
        return s_families(vmstat_s.parse(source.read("vmstat_s")))
