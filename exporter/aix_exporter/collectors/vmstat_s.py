"""vmstat -s -> counters.

* every line -> aix_vmstat_<label>_total (counter), with a few labels renamed for
  clarity (see _S_NAMES). ('aix_vmstat_s_' would read as an abbreviated unit, which
  Prometheus naming rules forbid.) Labels become names by vmstat_v.snake().
"""
from __future__ import annotations

from ..parsers import vmstat_s
from .base import Collector, Families, register
from .vmstat_v import snake

_S_NAMES = {
    "total address trans. faults": "address_translation_faults",
    "cpu context switches": "context_switches",
    "zero filled pages faults": "zero_filled_page_faults",
    "executable filled pages faults": "executable_filled_page_faults",
    "total reclaims": "reclaims",
}


def s_families(pairs: list) -> list:
    f = Families()
    for label, value in pairs:
        name = _S_NAMES.get(label, snake(label))
        f.set(f"aix_vmstat_{name}_total", f"vmstat -s '{label}' since boot.", value, counter=True)
    return f.result()


@register
class VmstatSCollector(Collector):
    name = "vmstat_s"
    keys = ("vmstat_s",)
    help = "vmstat -s: paging, fault, interrupt and syscall counters since boot"

    def collect(self, source) -> list:
        return s_families(vmstat_s.parse(source.read("vmstat_s")))
