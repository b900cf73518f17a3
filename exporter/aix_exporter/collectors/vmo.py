"""vmo -L / vmo -a -> aix_vmo_tunable{tunable, setting}."""
from __future__ import annotations

from ..parsers import vmo
from .base import Collector, Families, register


def families_from(tunables: dict) -> list:
    f = Families()
    help_ = "VMM tunable value from vmo (setting=current or boot; lgpg_size in bytes)."
    for name, t in sorted(tunables.items()):
        for setting, value in (("current", t.current), ("boot", t.boot)):
            if value is not None:
                f.set("aix_vmo_tunable", help_, value, {"tunable": name, "setting": setting})
    return f.result()


@register
class VmoCollector(Collector):
    name = "vmo"
    keys = ("vmo",)
    help = "vmo -L: large-page tunables (lgpg_regions, lgpg_size), current and boot values"

    def collect(self, source) -> list:
        return families_from(vmo.parse(source.read("vmo")))
