"""svmon -P -> per-process memory by page size, 16MB mode and heap segments;
ps eww -> LDR_CNTRL in effect."""
from __future__ import annotations

from ..parsers import ps_env, svmon_p
from ..sources import NotRunning
from . import Collector, Families

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


class _MonitoredProcesses(Collector):
    """Reads a per-process report; no monitored process running is no data, not a failure."""

    @property
    def limit(self) -> int:
        return self.settings.process.max_processes if self.settings else 20

    def read_running(self, source, key):
        try:
            return source.read(key)
        except NotRunning:
            return None


class ProcessCollector(_MonitoredProcesses):
    name = "process"
    keys = ("svmon_P",)
    help = "svmon -P of the monitored processes (dsmserv, dsmsta): page sizes, 16MB mode, heap segments"

    def collect(self, source) -> list:
        text = self.read_running(source, "svmon_P")
        return families_from([] if text is None else svmon_p.parse(text), self.limit)


def ldr_families(envs: list, max_processes: int = 20) -> list:
    f = Families()
    for e in envs[:max_processes]:
        labels = {"command": e.command, "pid": str(e.pid)}
        labels.update({k.lower(): e.ldr_cntrl.get(k, "") for k in ps_env.LDR_KEYS})
        f.set("aix_process_ldr_cntrl_info",
              "LDR_CNTRL in the environment of the monitored process (ps eww); empty strings where unset.",
              1, labels)
    return f.result()


class LdrCntrlCollector(_MonitoredProcesses):
    name = "ldr_cntrl"
    keys = ("ps_env",)
    help = "ps eww of the monitored processes: LDR_CNTRL (LARGE_PAGE_DATA, page sizes) in effect"

    def collect(self, source) -> list:
        text = self.read_running(source, "ps_env")
        return [] if text is None else ldr_families(ps_env.parse(text), self.limit)
