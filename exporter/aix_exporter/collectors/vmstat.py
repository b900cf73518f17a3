"""vmstat interval report -> CPU split, run queue, memory, paging, large pages, LPAR config."""
from __future__ import annotations

from ..parsers import vmstat
from .base import Collector, Families, register

FRAME = 4096
_CPU = {"us": "user", "sy": "sys", "id": "idle", "wa": "wait"}
_PAGING = ("re", "pi", "po", "fr", "sr", "fi", "fo")


def families_from(rec: vmstat.VmstatRecord) -> list:
    f = Families()
    row = rec.row
    for col, mode in _CPU.items():
        if col in row:
            f.set("aix_vmstat_cpu_ratio", "CPU time split of the last vmstat interval (0-1).",
                  round(row[col] / 100.0, 8), {"mode": mode})
    simple = [
        ("r", "aix_vmstat_runqueue_threads", "Kernel threads in the run queue, average over the last vmstat interval (vmstat r).", 1),
        ("b", "aix_vmstat_blocked_threads", "Kernel threads in the VMM wait queue, average over the last vmstat interval (vmstat b).", 1),
        ("p", "aix_vmstat_raw_io_blocked_threads", "Threads waiting on raw I/O, average over the last vmstat interval (vmstat -I p).", 1),
        ("avm", "aix_vmstat_active_virtual_bytes", "Active virtual memory at the last vmstat row (vmstat avm).", FRAME),
        ("fre", "aix_vmstat_free_list_bytes", "Size of the free list at the last vmstat row (vmstat fre).", FRAME),
        ("pc", "aix_vmstat_physical_cpus_consumed",
         "Physical processors consumed over the last vmstat interval (shared LPARs; vmstat pc).", 1),
        ("ec", "aix_vmstat_entitlement_consumed_ratio",
         "Entitled capacity consumed over the last vmstat interval (ec/100; above 1 when uncapped).", None),
        ("alp", "aix_vmstat_large_pages_active", "Large pages in use at the last vmstat row (vmstat -l alp).", 1),
        ("flp", "aix_vmstat_large_pages_free", "Large pages on the free list at the last vmstat row (vmstat -l flp).", 1),
        ("in", "aix_vmstat_interrupts_per_second", "Device interrupts per second over the last vmstat interval (vmstat in).", 1),
        ("syscalls", "aix_vmstat_syscalls_per_second", "System calls per second over the last vmstat interval (vmstat faults sy).", 1),
        ("cs", "aix_vmstat_context_switches_per_second", "Context switches per second over the last vmstat interval (vmstat cs).", 1),
    ]
    for col, name, help_, mult in simple:
        if col in row:
            f.set(name, help_, round(row[col] / 100.0, 8) if mult is None else row[col] * mult)
    for col in _PAGING:
        if col in row:
            f.set("aix_vmstat_paging_pages_per_second",
                  "Pages per second over the last vmstat interval, by vmstat column (re pi po fr sr fi fo).", row[col], {"column": col})
    cfg = rec.config
    if "lcpu" in cfg:
        f.set("aix_lpar_logical_cpus", "Logical CPUs (vmstat System configuration lcpu).", cfg["lcpu"])
    if "mem_bytes" in cfg:
        f.set("aix_lpar_memory_bytes", "LPAR memory (vmstat System configuration mem).", cfg["mem_bytes"])
    if "ent" in cfg:
        f.set("aix_lpar_entitled_capacity_cpus", "Entitled capacity in processors (System configuration ent).", cfg["ent"])
    return f.result()


@register
class VmstatCollector(Collector):
    name = "vmstat"
    keys = ("vmstat",)
    help = "vmstat interval report: CPU, run queue, memory, paging, large pages (-l), pc/ec"
    settings_section = "vmstat"

    def period(self) -> float:
        return self.config.interval_seconds * 2     # vmstat INTERVAL 2 takes two intervals

    def max_age(self):
        return self.config.max_age_seconds

    def collect(self, source) -> list:
        return families_from(vmstat.parse(source.read("vmstat")))
