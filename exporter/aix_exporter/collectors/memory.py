"""svmon -G -> memory, paging space and per-page-size pools (bytes)."""
from __future__ import annotations

from ..parsers import svmon_g
from .base import Collector, Families, register


_PAGE_SIZE_VALUES = (
    ("inuse", "aix_memory_page_inuse_bytes", "Memory in use per page size (svmon -G PageSize inuse)."),
    ("pin", "aix_memory_page_pinned_bytes", "Pinned memory per page size (svmon -G PageSize pin)."),
    ("virtual", "aix_memory_page_virtual_bytes", "Virtual memory per page size (svmon -G PageSize virtual)."),
    ("pgsp", "aix_memory_page_pgsp_bytes", "Paging space used per page size (svmon -G PageSize pgsp)."),
)


def families_from(rec: svmon_g.SvmonGlobal) -> list:
    f = Families()
    mem = {
        "size": ("aix_memory_size_bytes", "Real memory size (svmon -G memory size)."),
        "inuse": ("aix_memory_inuse_bytes", "Real memory in use (svmon -G memory inuse)."),
        "free": ("aix_memory_free_bytes", "Real memory free (svmon -G memory free)."),
        "pin": ("aix_memory_pinned_bytes", "Real memory pinned (svmon -G memory pin)."),
        "virtual": ("aix_memory_virtual_bytes", "Virtual memory in use (svmon -G memory virtual)."),
        "available": ("aix_memory_available_bytes", "Memory available for new work (svmon -G -O available)."),
    }
    for key, (name, help_) in mem.items():
        if key in rec.memory:
            f.set(name, help_, rec.memory[key])
    if rec.mode:
        f.set("aix_memory_mode_info", "Memory mode of the LPAR (svmon -G mmode: Ded, Ded-E for AME, Shar).",
              1, {"mode": rec.mode})
    if "size" in rec.paging_space:
        f.set("aix_paging_space_size_bytes", "Paging space size (svmon -G pg space).", rec.paging_space["size"])
    if "inuse" in rec.paging_space:
        f.set("aix_paging_space_inuse_bytes", "Paging space in use (svmon -G pg space).", rec.paging_space["inuse"])
    for row, name, help_ in (("inuse", "aix_memory_segment_inuse_bytes", "Memory in use by segment type (work, pers, clnt)."),
                             ("pin", "aix_memory_segment_pinned_bytes", "Pinned memory by segment type (work, pers, clnt, other).")):
        for seg, value in rec.segments.get(row, {}).items():
            f.set(name, help_, value, {"type": seg})
    for ps in rec.page_sizes:
        lab = {"psize": ps.psize}
        for key, name, help_ in _PAGE_SIZE_VALUES:
            f.set(name, help_, getattr(ps, key), lab)
        if ps.pool_size is not None:
            f.set("aix_memory_page_pool_size_bytes",
                  "Size of a fixed page pool (svmon -G PoolSize; the 16 MB pool set by lgpg_regions).",
                  ps.pool_size, lab)
    return f.result()


@register
class MemoryCollector(Collector):
    name = "memory"
    keys = ("svmon_g",)
    help = "svmon -G: memory, paging space, page-size pools (16 MB large-page pool)"

    def collect(self, source) -> list:
        return families_from(svmon_g.parse(source.read("svmon_g")))
