"""One metric family, one collector: exporter._merge joins families of the same name, so two
collectors emitting one name would mix their samples (and their HELP) silently. Every
collector runs here on every source we have (each simulated scenario, the replay fixture),
and no family name comes from two of them; the exporter's own families come from none."""
from aix_exporter.collectors import registry
from aix_exporter.config import Settings
from aix_exporter.exporter import Exporter
from aix_exporter.simulate.scenarios import SCENARIOS
from aix_exporter.sources.replay import ReplaySource
from aix_exporter.sources.simulate import SimulatedSource
from tests.lib import FIXTURES


def sources():
    out = []
    for name in sorted(SCENARIOS):
        for t in (3600.0, 5 * 3600.0, 11 * 3600.0):
            src = SimulatedSource(name)
            src.set_time(t)
            out.append(src)
    out.append(ReplaySource(str(FIXTURES / "replay" / "tsm-lpar")))
    return out


def test_no_family_is_emitted_by_two_collectors():
    settings = Settings()
    owners: dict = {}
    for src in sources():
        for name, cls in registry().items():
            if getattr(cls, "requires_system", False):
                continue
            exp = Exporter(src, [cls(settings)])
            exp.collect_all()
            for fam in exp.results[name].families:
                owners.setdefault(fam.name, set()).add(name)
    shared = {fam: sorted(cols) for fam, cols in owners.items() if len(cols) > 1}
    assert shared == {}
    assert len(owners) > 60   # the collectors did emit their families
    assert not any(f.startswith("aix_exporter_") for f in owners)   # the exporter's own are not a collector's
