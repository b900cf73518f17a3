"""svmon -P -> per-process memory by page size, 16MB mode and heap segments."""
from __future__ import annotations

from ..parsers import svmon_p
from .base import Collector, Families, register

_VALUES = (("inuse", "aix_process_inuse_bytes", "Memory in use by the process per page size (svmon -P)."),
           ("pin", "aix_process_pinned_bytes", "Pinned memory of the process per page size (svmon -P)."),
           ("pgsp", "aix_process_pgsp_bytes", "Paging space used by the process per page size (svmon -P)."),
           ("virtual", "aix_process_virtual_bytes", "Virtual memory of the process per page size (svmon -P)."))
_TOTALS = (("inuse", "aix_process_total_inuse_bytes", "Memory in use by the process, all page sizes (svmon -P)."),
           ("pin", "aix_process_total_pinned_bytes", "Pinned memory of the process, all page sizes (svmon -P)."),
           ("pgsp", "aix_process_total_pgsp_bytes", "Paging space used by the process (svmon -P)."),
           ("virtual", "aix_process_total_virtual_bytes", "Virtual memory of the process, all page sizes (svmon -P)."))


def families_from(procs: list, max_processes: int = 20) -> list:
    f = Families()
    f.set("aix_process_monitored", "Monitored processes found (svmon -P).", min(len(procs), max_processes))
    for p in sorted(procs, key=lambda p: -p.inuse)[:max_processes]:
        ident = {"command": p.command, "pid": str(p.pid)}
        for key, name, help_ in _TOTALS:
            f.set(name, help_, getattr(p, key), ident)
        for psize, vals in sorted(p.by_psize().items()):
            for key, name, help_ in _VALUES:
                f.set(name, help_, vals[key], {**ident, "psize": psize})
        f.set("aix_process_large_page_info",
              "Large-page mode of the process from svmon -P's 16MB column: N, Y, M (mandatory) or unknown.",
              1, {**ident, "mode": p.large_page_mode})
        if p.segment_count:
            f.set("aix_process_heap_segments",
                  "Work segments described 'text data BSS heap' (sizing rule: segments x 16 + 32 large pages).",
                  p.heap_segments, ident)
    return f.result()


@register
class ProcessCollector(Collector):
    name = "process"
    keys = ("svmon_p",)
    help = "svmon -P of the monitored processes (dsmserv, dsmsta): page sizes, 16MB mode, heap segments"
    settings_section = "process"

    def no_data(self) -> list:
        return families_from([])   # aix_process_monitored 0

    def collect(self, source) -> list:
        limit = self.config.max_processes
        return families_from(svmon_p.parse(source.read("svmon_p")), limit)
