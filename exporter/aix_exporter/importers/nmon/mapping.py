"""nmon sections and columns -> the live exporter's metric names, as data, and the samples of
one snapshot. The mapping table of docs/nmon-import.md and the sections the reader keeps (MAPPED_SECTIONS)
are derived from these tables, so a new row is read, listed and documented at once."""
from __future__ import annotations

from ...parsers import suffixed_number
from ..base import Sample, series

MIB = 1 << 20
PAGE_SECTIONS = {"MEMPAGES4KB": ("4K", 4096), "MEMPAGES64KB": ("64K", 65536), "MEMPAGES16MB": ("16M", 16 << 20),
                 "MEMPAGES16GB": ("16G", 16 << 30)}
FIXED_POOLS = {"16M", "16G"}
VMO_TUNABLES = ("lgpg_regions", "lgpg_size")
BBBP_COMMANDS = ("vmo",)   # the BBBP command outputs the import reads (vmo -L, vmo -F -L)
SPECIAL = {"AAA", "BBBP", "ZZZZ", "ERROR", "TOP"}   # sections that are not data: read apart or counted


# -- the mapping, as data: (section, column) -> (gauge, labels, scale); HELP below ---------
GAUGES = {
    ("CPU_ALL", "User%"): ("aix_vmstat_cpu_ratio", {"mode": "user"}, 0.01),
    ("CPU_ALL", "Sys%"): ("aix_vmstat_cpu_ratio", {"mode": "sys"}, 0.01),
    ("CPU_ALL", "Wait%"): ("aix_vmstat_cpu_ratio", {"mode": "wait"}, 0.01),
    ("CPU_ALL", "Idle%"): ("aix_vmstat_cpu_ratio", {"mode": "idle"}, 0.01),
    ("LPAR", "PhysicalCPU"): ("aix_vmstat_physical_cpus_consumed", {}, 1),
    ("LPAR", "entitled"): ("aix_lpar_entitled_capacity_cpus", {}, 1),
    ("LPAR", "logicalCPUs"): ("aix_lpar_logical_cpus", {}, 1),
    ("MEM", "Real total(MB)"): ("aix_memory_size_bytes", {}, MIB),
    ("MEM", "Real free(MB)"): ("aix_memory_free_bytes", {}, MIB),
    ("LARGEPAGE", "Freepages"): ("aix_vmstat_large_pages_free", {}, 1),
    ("LARGEPAGE", "Usedpages"): ("aix_vmstat_large_pages_active", {}, 1),
    ("PAGE", "pgsin"): ("aix_vmstat_paging_pages_per_second", {"column": "pi"}, 1),
    ("PAGE", "pgsout"): ("aix_vmstat_paging_pages_per_second", {"column": "po"}, 1),
    ("PAGE", "pgin"): ("aix_vmstat_paging_pages_per_second", {"column": "fi"}, 1),
    ("PAGE", "pgout"): ("aix_vmstat_paging_pages_per_second", {"column": "fo"}, 1),
    ("PAGE", "reclaims"): ("aix_vmstat_paging_pages_per_second", {"column": "re"}, 1),
    ("PAGE", "scans"): ("aix_vmstat_paging_pages_per_second", {"column": "sr"}, 1),
    ("PROC", "Runnable"): ("aix_vmstat_runqueue_threads", {}, 1),
    ("PROC", "pswitch"): ("aix_vmstat_context_switches_per_second", {}, 1),
    ("PROC", "syscall"): ("aix_vmstat_syscalls_per_second", {}, 1),
}
# MEMPAGES per-interval event counts -> running counters (their sum since the import's first snapshot)
EVENT_COUNTERS = {
    "pgexct": "aix_memory_page_faults",
    "pageins": "aix_memory_page_ins",
    "pageouts": "aix_memory_page_outs",
    "pgspgins": "aix_memory_paging_space_page_ins",
    "pgspgouts": "aix_memory_paging_space_page_outs",
}
# HELP of the imported families: what each figure covers in an nmon recording (the live
# exporter's HELP names its own command; the metric and its meaning are the same)
HELP = {
    "aix_vmstat_cpu_ratio": "CPU time split of the snapshot's interval (0-1; nmon CPU_ALL User%, Sys%, Wait%, Idle%).",
    "aix_vmstat_physical_cpus_consumed": "Physical processors consumed over the snapshot's interval (nmon LPAR PhysicalCPU).",
    "aix_lpar_entitled_capacity_cpus": "Entitled capacity in processors (nmon LPAR entitled).",
    "aix_lpar_logical_cpus": "Logical CPUs (nmon LPAR logicalCPUs).",
    "aix_memory_size_bytes": "Real memory size (nmon MEM Real total(MB)).",
    "aix_memory_free_bytes": "Real memory free at the snapshot (nmon MEM Real free(MB)).",
    "aix_vmstat_large_pages_free": "Large pages free at the snapshot (nmon LARGEPAGE Freepages).",
    "aix_vmstat_large_pages_active": "Large pages in use at the snapshot (nmon LARGEPAGE Usedpages).",
    "aix_vmstat_paging_pages_per_second": "Pages per second over the snapshot's interval by vmstat column (nmon PAGE: "
                                          "pgsin pi, pgsout po, pgin fi, pgout fo, reclaims re, scans sr).",
    "aix_vmstat_runqueue_threads": "Kernel threads in the run queue over the snapshot's interval (nmon PROC Runnable).",
    "aix_vmstat_context_switches_per_second": "Context switches per second over the snapshot's interval (nmon PROC pswitch).",
    "aix_vmstat_syscalls_per_second": "System calls per second over the snapshot's interval (nmon PROC syscall).",
    "aix_memory_page_inuse_bytes": "Memory in use per page size at the snapshot (nmon MEMPAGES numframes - numfrb).",
    "aix_memory_page_pool_size_bytes": "Size of a fixed page pool (nmon MEMPAGES16MB/16GB numframes).",
    "aix_vmo_tunable": "VMM tunable value (setting=current or boot; lgpg_size in bytes), from the vmo -L copy in nmon BBBP.",
    "aix_memory_page_faults": "Page faults per page size since the first imported snapshot (nmon MEMPAGES pgexct; import only).",
    "aix_memory_page_ins": "Page-ins per page size since the first imported snapshot (nmon MEMPAGES pageins; import only).",
    "aix_memory_page_outs": "Page-outs per page size since the first imported snapshot (nmon MEMPAGES pageouts; import only).",
    "aix_memory_paging_space_page_ins": "Paging-space page-ins per page size since the first imported snapshot "
                                        "(nmon MEMPAGES pgspgins; import only).",
    "aix_memory_paging_space_page_outs": "Paging-space page-outs per page size since the first imported snapshot "
                                         "(nmon MEMPAGES pgspgouts; import only).",
}
# Sections read but not mapped, and why (the summary lists them with their row counts)
NOT_MAPPED = {
    "TOP": "per-process rows of every busy command, not the monitored processes' svmon -P figures",
    "UARG": "process arguments",
    "MEMNEW": "percentages of a different breakdown than svmon -G",
    "MEMUSE": "numperm/minfree tuning percentages: no live metric",
    "POOLS": "shared-pool figures: no live metric",
    "PROCAIO": "AIO servers: no live metric",
    "FILE": "kernel file I/O rates (iget, namei, readch, writech): no live metric",
    "PAGING": "free MB per paging-space device; the live exporter reports paging space as a whole "
              "(svmon -G size and in use), which these rows lack",
}
NOT_MAPPED_PREFIXES = {"CPU": "per-CPU rows", "SCPU": "per-CPU rows", "PCPU": "per-CPU rows",
                       "DISK": "disk rows: no live disk metric", "VG": "volume-group rows: no live metric",
                       "IOADAPT": "adapter rows: no live metric", "NET": "network rows: no live metric",
                       "SEA": "network rows: no live metric", "FC": "adapter rows: no live metric",
                       "JFS": "file system rows: no live metric", "LAN": "network rows: no live metric",
                       "WLM": "workload-manager rows: no live metric"}


def mapping_table() -> str:
    """The mapping as docs/nmon-import.md shows it (between its nmon:start and nmon:end marks)."""
    rows = ["", "| nmon section, column | metric | labels | scale |", "|---|---|---|---|"]
    for (sec, col), (metric, labels, scale) in GAUGES.items():
        lab = ", ".join(f'{k}="{v}"' for k, v in labels.items())
        rows.append(f"| `{sec}` {col} | `{metric}` | {lab} | {'MB to bytes' if scale == MIB else 'x 1/100' if scale == 0.01 else '1'} |")
    for sec, (psize, _) in PAGE_SECTIONS.items():
        rows.append(f"| `{sec}` numframes - numfrb | `aix_memory_page_inuse_bytes` | psize=\"{psize}\" | pages to bytes |")
    for sec, (psize, _) in PAGE_SECTIONS.items():
        if psize in FIXED_POOLS:
            rows.append(f"| `{sec}` numframes | `aix_memory_page_pool_size_bytes` | psize=\"{psize}\" | pages to bytes |")
    for col, metric in EVENT_COUNTERS.items():
        rows.append(f"| `MEMPAGES*` {col} (per interval) | `{metric}_total` | psize | running sum |")
    rows.append("| `BBBP` vmo -L / -F -L lgpg_regions, lgpg_size (CUR, BOOT) | `aix_vmo_tunable` | "
                "tunable, setting=\"current\"/\"boot\" | 16M to bytes |")
    rows.append("")
    rows.append("Not mapped: " + "; ".join(f"`{k}` ({v})" for k, v in NOT_MAPPED.items())
                + "; " + "; ".join(f"`{k}*` ({v})" for k, v in NOT_MAPPED_PREFIXES.items()) + ".")
    return "\n".join(rows) + "\n"



# the sections the reader keeps: derived from the mapping tables, so a new row on a new section
# is read, never silently dropped as unmapped
MAPPED_SECTIONS = frozenset({*PAGE_SECTIONS, *(sec for sec, _ in GAUGES)})


def unmapped(section: str) -> tuple:
    """(the summary's group, its reason) of a section read but not mapped: per-CPU and per-disk
    sections are folded into one group (CPU*, DISK*)."""
    reason = NOT_MAPPED.get(section)
    if reason is not None:
        return section, reason
    for prefix, why in NOT_MAPPED_PREFIXES.items():
        if section.startswith(prefix):
            return prefix + "*", why
    return section, "no live metric of that meaning"


def vmo_tunables(lines: list) -> dict:
    """{tunable: {"current": v, "boot": v}} for lgpg_regions and lgpg_size from the BBBP copy of
    vmo -L / vmo -F -L (rows: NAME CUR DEF BOOT MIN MAX UNIT TYPE; the name at column 0)."""
    out = {}
    for line in lines:
        tokens = line.strip('"').split()
        if len(tokens) >= 4 and tokens[0] in VMO_TUNABLES and not line.startswith((" ", '" ')):
            cur, boot = suffixed_number(tokens[1]), suffixed_number(tokens[3])
            out[tokens[0]] = {"current": cur, "boot": boot}
    return out


# each mapping row's Series, built once
_GAUGE_SERIES: dict = {}   # section -> ((column, ...), [(Series, scale)]), in GAUGES' order
for (_sec, _col), (_metric, _labels, _scale) in GAUGES.items():
    _cols, _out = _GAUGE_SERIES.get(_sec, ((), []))
    _GAUGE_SERIES[_sec] = ((*_cols, _col), [*_out, (series(_metric, "gauge", HELP[_metric], _labels), _scale)])
_PAGE_COLUMNS = ("numframes", "numfrb", *EVENT_COUNTERS)
_PAGE_SERIES = {   # psize -> (in use, pool size or None, [event counter in EVENT_COUNTERS' order])
    psize: (series("aix_memory_page_inuse_bytes", "gauge", HELP["aix_memory_page_inuse_bytes"], {"psize": psize}),
            series("aix_memory_page_pool_size_bytes", "gauge", HELP["aix_memory_page_pool_size_bytes"],
                   {"psize": psize}) if psize in FIXED_POOLS else None,
            [series(metric, "counter", HELP[metric], {"psize": psize}) for metric in EVENT_COUNTERS.values()])
    for psize, _ in PAGE_SECTIONS.values()}
_VMO_SERIES = {(t, s): series("aix_vmo_tunable", "gauge", HELP["aix_vmo_tunable"], {"tunable": t, "setting": s})
               for t in VMO_TUNABLES for s in ("current", "boot")}


def _numbers(row, columns: tuple) -> list:
    """The row's numbers of ``columns``: a DataRow resolves their positions once per header; a
    plain {column: value} (as the unit tests give rows) is read by name."""
    numbers = getattr(row, "numbers", None)
    return numbers(columns) if numbers is not None else [row.get(c) for c in columns]


def samples(rows: dict, vmo: dict, counters: dict) -> list:
    """The samples of one snapshot's rows ({section: DataRow}). ``vmo``: the recording's
    vmo_tunables(); ``counters`` carries the running sums of the MEMPAGES event counts from
    snapshot to snapshot (and file to file of one LPAR). (Each Sample is made by
    ``tuple.__new__``, a third of the cost of ``Sample(...)``: a month of recordings makes 270,000.)"""
    new = tuple.__new__
    out: list = []   # (a list, not a generator: one resume less a sample)
    add = out.append
    for sec, (columns, gauges) in _GAUGE_SERIES.items():
        row = rows.get(sec)
        if row is None:
            continue
        for v, (s, scale) in zip(_numbers(row, columns), gauges):
            if v is not None:   # (a percentage is divided by 100, not multiplied by 0.01: exact decimals)
                add(new(Sample, (s, v / 100 if scale == 0.01 else v * scale)))
    for sec, (psize, size) in PAGE_SECTIONS.items():
        row = rows.get(sec)
        if not row:
            continue
        inuse, pool, events = _PAGE_SERIES[psize]
        frames, free, *counts = _numbers(row, _PAGE_COLUMNS)
        if frames is not None and free is not None:
            add(new(Sample, (inuse, (frames - free) * size)))
        if pool is not None and frames is not None:
            add(new(Sample, (pool, frames * size)))
        for s, v in zip(events, counts):
            if v is None:
                continue
            counters[s] = counters.get(s, 0.0) + v
            add(new(Sample, (s, counters[s])))
    for tunable, values in sorted(vmo.items()):
        for setting in ("current", "boot"):
            if values.get(setting) is not None:
                add(new(Sample, (_VMO_SERIES[(tunable, setting)], values[setting])))
    return out
