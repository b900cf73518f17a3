"""exposition.py writes what prometheus_client writes, byte for byte, in both formats Prometheus
negotiates (text 0.0.4, OpenMetrics 1.0.0), gzip or not (issue 47: its encoder, not the parse,
was the largest cost of a scrape). Checked for every scenario of the simulator at three times,
the replay fixture, many processes, and families with hostile label values and names; the text
passes `promtool check metrics`."""
import gzip
import shutil
import subprocess

import pytest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.openmetrics import exposition as om
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om
from prometheus_client.parser import text_string_to_metric_families as parse_text

from aix_exporter import exposition
from aix_exporter.collectors import registry as collectors
from aix_exporter.config import Settings
from aix_exporter.exporter import Exporter
from aix_exporter.simulate.scenarios import SCENARIOS
from aix_exporter.sources import open_source
from tests.lib import FIXTURES
from tests.lib.attacks import frozen_registry


def exporter_registry(spec):
    settings = Settings()
    source = open_source(spec, settings)
    ex = Exporter(source, [cls(settings) for cls in collectors().values() if not cls.requires_system])
    ex.collect_all()
    # frozen: the self metrics (the exporter's own CPU time) change between two collect() calls
    return registry_of(list(ex.registry().collect()))


registry_of = frozen_registry   # (the benchmark's too, bench/perf/exposition.py)


def assert_same(reg):
    text, om_bytes = exposition.text(reg), exposition.openmetrics(reg)
    assert text == generate_latest(reg)
    assert om_bytes == om.generate_latest(reg)
    assert gzip.decompress(gzip.compress(text, compresslevel=1)) == text
    return text, om_bytes


SPECS = [f"simulate:{name}?at={at}" for name in sorted(SCENARIOS) for at in (0, 3600, 20000)]


@pytest.mark.parametrize("spec", SPECS + [f"replay:{FIXTURES / 'replay' / 'tsm-lpar'}",
                                          "simulate:case-study?at=20000&processes=300"])
def test_every_scenario_and_the_replay_encode_as_prometheus_client_does(spec):
    text, om_bytes = assert_same(exporter_registry(spec))
    assert text.count(b"\n") > 100 and om_bytes.endswith(b"# EOF\n")


HOSTILE = ['say "hi"', "back\\slash", "new\nline", "tab\there", "ümlaut ÄÖ €", "", "}{,=", "\\n literal", "x" * 500,
           "trailing\\", '"', "\u2028sep", "emoji \U0001F600"]


def hostile_families():
    g = GaugeMetricFamily("aix_test_gauge", 'help with "quotes", a \\ and a\nnewline', labels=["value", "other"])
    for i, v in enumerate(HOSTILE):
        g.add_metric([v, str(i)], float(i) / 3)
    c = CounterMetricFamily("aix_test_events", "events", labels=["what"])
    for v in HOSTILE:
        c.add_metric([v], 1e21)
    c.add_metric(["created"], 5.0, created=1_700_000_000.5)
    c.add_metric(["stamped"], 7.0, timestamp=1_800_000_000.25)
    special = GaugeMetricFamily("aix_test_special", "special values", labels=["v"])
    for name, value in (("inf", float("inf")), ("-inf", float("-inf")), ("nan", float("nan")), ("big", 1234567.0),
                        ("small", 1e-9), ("neg", -0.0), ("int", 3.0)):
        special.add_metric([name], value)
    info = InfoMetricFamily("aix_test", "an info metric", labels=["k"])
    info.add_metric(["a"], {"version": 'v"1"\n'})
    odd = Metric("aix-odd.name:x", "a name outside the legacy set", "gauge")
    odd.add_sample("aix-odd.name:x", {"bad-label": "1", "9lead": "3"}, 1.0)
    unit = GaugeMetricFamily("aix_test_seconds", "with a unit", unit="seconds")
    unit.add_metric([], 2.5)
    return [g, c, special, info, odd, unit]


def test_hostile_label_values_and_names_encode_as_prometheus_client_does():
    text, om_bytes = assert_same(registry_of(hostile_families()))
    # and they read back as the same values
    got = {(s.name, tuple(sorted(s.labels.items()))): s.value
           for f in parse_text(text.decode()) for s in f.samples if s.name == "aix_test_gauge"}
    assert got[("aix_test_gauge", (("other", "1"), ("value", "back\\slash")))] == pytest.approx(1 / 3)
    assert got[("aix_test_gauge", (("other", "2"), ("value", "new\nline")))] == pytest.approx(2 / 3)
    om_values = {tuple(sorted(s.labels.items())) for f in parse_om(om_bytes.decode())
                 for s in f.samples if s.name == "aix_test_gauge"}
    assert (("other", "0"), ("value", 'say "hi"')) in om_values


def test_what_it_does_not_write_goes_to_prometheus_client():
    from prometheus_client.samples import Exemplar
    c = CounterMetricFamily("aix_test_ex", "with an exemplar", labels=["a"])
    c.add_metric(["1"], 1.0)
    c.samples[0] = c.samples[0]._replace(exemplar=Exemplar({"trace": "t"}, 1.0, 1.5))
    reg = registry_of([c])
    assert exposition.openmetrics(reg) == om.generate_latest(reg) and b"# {trace=\"t\"}" in exposition.openmetrics(reg)
    assert exposition.text(reg) == generate_latest(reg)


@pytest.mark.parametrize("accept,ours", [
    (None, "text"), ("", "text"), ("text/plain;version=0.0.4", "text"), ("*/*", "text"),
    ("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5", "openmetrics"),
    ("application/openmetrics-text; version=0.0.1,text/plain;version=0.0.4;q=0.5", "text"),
    ("application/openmetrics-text;version=1.0.0;escaping=allow-utf-8", None),
    ("application/openmetrics-text;version=2.0.0", None),
    ("text/plain;version=1.0.0;escaping=underscores", None),
])
def test_the_negotiation_is_prometheus_clients_and_the_encoder_ours_where_it_can_be(accept, ours):
    from prometheus_client.exposition import choose_encoder
    encoder, ctype = exposition.choose(accept)
    assert ctype == choose_encoder(accept)[1]
    if ours:
        assert encoder is getattr(exposition, ours)
    else:
        assert getattr(encoder, "func", encoder).__module__.startswith("prometheus_client")


def test_promtool_checks_the_text(tmp_path):
    promtool = shutil.which("promtool")
    if not promtool:
        pytest.skip("promtool not installed (Debian package prometheus)")
    text = exposition.text(exporter_registry("simulate:case-study?at=20000"))
    r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, timeout=60)
    # promtool's lint notes (e.g. a counter without _total in its HELP) are not errors: exit 0 or 3
    assert r.returncode in (0, 3) and b"error" not in r.stderr.lower(), r.stderr


def test_a_reserved_label_name_is_written_as_prometheus_client_writes_it():
    odd = Metric("aix_odd", "reserved", "gauge")
    odd.add_sample("aix_odd", {"__reserved": "2", "ok": "1"}, 1.0)
    assert_same(registry_of([odd]))
