from aix_exporter.collectors import Collector, Families
from aix_exporter.exporter import Exporter
from aix_exporter.parsers import ParseError
from aix_exporter.sources import SourceError
from tests.unit.helpers import samples


class FakeSource:
    name = "fake"
    slow_keys = frozenset({"slow"})

    def read(self, key):
        return key


class Good(Collector):
    name, keys = "good", ("fast",)

    def collect(self, source):
        f = Families()
        f.set("aix_test_value", "test", 42)
        return f.result()


class Slow(Good):
    name, keys = "slow", ("slow",)


def make(exc):
    class Bad(Collector):
        name, keys = "bad", ("vmstat",)

        def collect(self, source):
            raise exc
    return Bad


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def test_failures_of_any_kind_mark_only_that_collector(caplog):
    for exc in (ParseError("vmstat: bad", 3, "x y"), SourceError("timed out"), ZeroDivisionError("bug")):
        e = Exporter(FakeSource(), [Good(), make(exc)()])
        e.collect_all()
        m = samples(e.families())
        assert m[("aix_exporter_collector_success", (("collector", "bad"),))] == 0
        assert m[("aix_exporter_collector_success", (("collector", "good"),))] == 1
        assert m[("aix_test_value", ())] == 42
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 3 and all("collector=bad" in m and "vmstat" in m for m in errors)
    assert "line 3: 'x y'" in errors[0]


def test_background_result_is_dropped_when_older_than_max_age():
    clock = Clock()
    e = Exporter(FakeSource(), [Good(), Slow()], max_age={"slow": 60}, clock=clock)
    assert [c.name for c in e.background] == ["slow"] and [c.name for c in e.on_scrape] == ["good"]
    e.collect_all()
    clock.t += 30
    m = samples(e.families())
    assert m[("aix_exporter_collector_success", (("collector", "slow"),))] == 1
    clock.t += 31
    fams = e.families()
    m = samples(fams)
    assert m[("aix_exporter_collector_success", (("collector", "slow"),))] == 0
    assert m[("aix_exporter_collector_last_success_timestamp_seconds", (("collector", "slow"),))] == 1000.0
    # the fast collector's sample is still there once, the stale one is not served
    assert sum(1 for f in fams for s in f.samples if s.name == "aix_test_value") == 1


def test_merging_families_never_grows_stored_results():
    e = Exporter(FakeSource(), [Good(), Slow()])
    e.collect_all()
    for _ in range(3):
        fams = e.families()
    assert sum(1 for f in fams for s in f.samples if s.name == "aix_test_value") == 2
