"""ps eww -> LDR_CNTRL in effect for each monitored process."""
from __future__ import annotations

from ..parsers import ps_env
from .base import Collector, Families, register


def ldr_families(envs: list, max_processes: int = 20) -> list:
    f = Families()
    for e in envs[:max_processes]:
        labels = {"command": e.command, "pid": str(e.pid)}
        labels.update({k.lower(): e.ldr_cntrl.get(k, "") for k in ps_env.LDR_KEYS})
        f.set("aix_process_ldr_cntrl_info",
              "LDR_CNTRL in the environment of the monitored process (ps eww); empty strings where unset.",
              1, labels)
    return f.result()


@register
class LdrCntrlCollector(Collector):
    name = "ldr_cntrl"
    keys = ("ps_env",)
    help = "ps eww of the monitored processes: LDR_CNTRL (LARGE_PAGE_DATA, page sizes) in effect"
    settings_section = "process"

    def collect(self, source) -> list:
        limit = self.config.max_processes
        return ldr_families(ps_env.parse(source.read("ps_env")), limit)
