"""asoo -a -> aix_aso_active: whether the Active System Optimizer may change the LPAR on its own.

Active, ASO (with the Dynamic System Optimizer's large-page optimization) can promote a
workload's shared-memory segments to 16 MB pages, which come from the same pool as
LARGE_PAGE_DATA's: the plan warns, the census and the large-pages dashboard show it.
"""
from __future__ import annotations

from ..parsers import asoo
from .base import Collector, Families, register


def families_from(tunables: dict) -> list:
    f = Families()
    f.set("aix_aso_active", "1 when the Active System Optimizer is active (asoo aso_active=1), 0 when not.",
          1 if tunables["aso_active"].current else 0)
    return f.result()


@register
class AsoCollector(Collector):
    name = "aso"
    keys = ("asoo",)
    help = "asoo -a: whether the Active System Optimizer (which can move segments to 16 MB pages) is active"

    def collect(self, source) -> list:
        return families_from(asoo.parse(source.read("asoo")))
