"""The panels whose figures the simulator's model has no value for, by value (issue 48, every
panel): the TSM messages an admin must act on (ANR0358E, ANR9999D), the splat report's age,
the exporter's own health (each collector's success, the seconds since its last success, its
duration), and the before/after board's regime line over a 64 KB LPAR (the case study has
none). Two LPARs' series written here by hand, in a real Prometheus (promtool backfill) and a
real VictoriaMetrics (import API); each panel's query at an instant, against the figures
worked out in the comments."""
import time

import pytest

from tests.lib.stores import store_of_openmetrics
from tests.lib.processes import stop
from tests.e2e.test_dashboard_meaning import panel_target
from tests.e2e.test_dashboard_queries import substitute

MINUTES = 180


def anr9999d(m):
    """tsm1's ANR9999D count: 5 since the exporter started, 2 more at minute 60, then the
    exporter restarts at minute 120 (the counter starts again at 0) and counts 2 at minute 130."""
    return 5 if m < 60 else 7 if m < 120 else 0 if m < 130 else 2


def series(start):
    """{(metric, labels): [value at minute m]}, every minute for MINUTES minutes."""
    r = range(MINUTES)
    return {
        ("aix_tsm_messages_total", 'instance="tsm1:10990",job="aix",msgid="ANR9999D"'): [anr9999d(m) for m in r],
        # one ANR0358E at minute 150: the pool ran out with LARGE_PAGE_DATA=M
        ("aix_tsm_messages_total", 'instance="tsm1:10990",job="aix",msgid="ANR0358E"'): [int(m >= 150) for m in r],
        # ANR8330I (a volume mounted) every minute: not a message the panel shows
        ("aix_tsm_messages_total", 'instance="tsm1:10990",job="aix",msgid="ANR8330I"'): [m for m in r],
        ("aix_tsm_messages_total", 'instance="calm:10990",job="aix",msgid="ANR8330I"'): [3 * m for m in r],
        # a splat report every 15 minutes on tsm1, every 5 on calm: the Unix time it was produced
        ("aix_splat_report_timestamp_seconds", 'instance="tsm1:10990",job="aix"'): [start + 900 * (m // 15) * 1.0
                                                                                     for m in r],
        ("aix_splat_report_timestamp_seconds", 'instance="calm:10990",job="aix"'): [start + 300 * (m // 5) * 1.0
                                                                                     for m in r],
        # tsm1's splat collector fails from minute 170 on; its last success stays at minute 169
        ("aix_exporter_collector_success", 'collector="splat",instance="tsm1:10990",job="aix"'): [int(m < 170)
                                                                                                 for m in r],
        ("aix_exporter_collector_last_success_timestamp_seconds", 'collector="splat",instance="tsm1:10990",job="aix"'):
            [start + 60.0 * min(m, 169) for m in r],
        ("aix_exporter_collector_success", 'collector="vmstat",instance="tsm1:10990",job="aix"'): [1 for m in r],
        ("aix_exporter_collector_last_success_timestamp_seconds", 'collector="vmstat",instance="tsm1:10990",job="aix"'):
            [start + 60.0 * m for m in r],
        ("aix_exporter_collector_duration_seconds", 'collector="splat",instance="tsm1:10990",job="aix"'): [0.75 for m in r],
        ("aix_exporter_collector_duration_seconds", 'collector="vmstat",instance="tsm1:10990",job="aix"'):
            [0.012 for m in r],
        ("aix_exporter_collector_success", 'collector="vmstat",instance="calm:10990",job="aix"'): [1 for m in r],
        ("aix_exporter_collector_last_success_timestamp_seconds", 'collector="vmstat",instance="calm:10990",job="aix"'):
            [start + 60.0 * m - 30 for m in r],
        ("aix_exporter_collector_duration_seconds", 'collector="vmstat",instance="calm:10990",job="aix"'):
            [0.02 for m in r],
        # the recorded regime: tsm1 on IBM's 64 KB start line, then on 16 MB pages from minute 90;
        # calm on 4 KB pages throughout
        ("aix:regime_page_size:bytes", 'instance="tsm1:10990",job="aix"'): [65536 if m < 90 else 16777216 for m in r],
        ("aix:regime_page_size:bytes", 'instance="calm:10990",job="aix"'): [4096 for m in r],
        # the 16 MB pool: tsm1's 160 pages drain by half a page a minute (150 free at minute 0),
        # calm's 64 by a page in 20 minutes (50 at minute 0); idle's 32 fill up again at 4 pages
        # a minute until all are free (the server stopped)
        ("aix:large_pages_pool:count", 'instance="tsm1:10990",job="aix"'): [160 for m in r],
        ("aix:large_pages_free:count", 'instance="tsm1:10990",job="aix"'): [150 - m / 2 for m in r],
        ("aix:large_pages_pool:count", 'instance="calm:10990",job="aix"'): [64 for m in r],
        ("aix:large_pages_free:count", 'instance="calm:10990",job="aix"'): [50 - m / 20 for m in r],
        ("aix:large_pages_pool:count", 'instance="idle:10990",job="aix"'): [32 for m in r],
        ("aix:large_pages_free:count", 'instance="idle:10990",job="aix"'): [min(32, m / 4) for m in r],
    }


def openmetrics(start):
    out, typed = [], set()
    for (metric, labels), values in series(start).items():
        family = (metric[:-len("_total")] if metric.endswith("_total") else metric).replace(":", "_")
        if family not in typed:
            typed.add(family)
            out.append(f"# TYPE {family} {'counter' if metric.endswith('_total') else 'gauge'}")
        out += [f"{metric}{{{labels}}} {v} {start + 60 * m}" for m, v in enumerate(values)]
    return "\n".join(out) + "\n# EOF\n"


@pytest.fixture(scope="module", params=["prometheus", "victoriametrics"])
def store(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"own-{request.param}")
    start = (int(time.time()) // 3600 - 4) * 3600
    om = tmp / "own.om"
    om.write_text(openmetrics(start))
    s = store_of_openmetrics(request.param, tmp, om)
    s.start = start
    yield s
    stop(s.proc)


def values(store, dashboard, title, legend, minute, by):
    """The panel target's value per series at the given minute, keyed by the ``by`` labels."""
    res = store.query(substitute(panel_target(dashboard, title, legend)), store.start + 60 * minute)
    return {tuple(r["metric"].get(k, "") for k in by): float(r["value"][1]) for r in res}


def test_the_anr_panel_counts_the_last_hours_anr0358e_and_anr9999d(store):
    """increase(...[1h]) per LPAR and message: at minute 179 the hour holds tsm1's 2 ANR9999D
    after the restart (the reset from 7 to 0 counts nothing) and its one ANR0358E; calm has
    neither message, and ANR8330I (60 an hour) is not shown. At minute 90 the hour holds the 2
    ANR9999D of minute 60 and no ANR0358E. Tolerance 5 %: Prometheus may extrapolate a
    window's first minute."""
    got = values(store, "aix-large-pages.json", "ANR0358E / ANR9999D per hour", "{{instance}} {{msgid}}", 179,
                 ("instance", "msgid"))
    assert set(got) == {("tsm1:10990", "ANR9999D"), ("tsm1:10990", "ANR0358E")}, got
    assert got[("tsm1:10990", "ANR9999D")] == pytest.approx(2, rel=0.05)
    assert got[("tsm1:10990", "ANR0358E")] == pytest.approx(1, rel=0.05)
    got = values(store, "aix-large-pages.json", "ANR0358E / ANR9999D per hour", "{{instance}} {{msgid}}", 90,
                 ("instance", "msgid"))
    assert got[("tsm1:10990", "ANR9999D")] == pytest.approx(2, rel=0.05)
    assert got[("tsm1:10990", "ANR0358E")] == pytest.approx(0, abs=1e-9)


def test_the_splat_report_age_is_the_seconds_since_the_last_report(store):
    """time() - the report's time at minute 179: tsm1's last report was at minute 165 (840 s
    ago), calm's at minute 175 (240 s)."""
    got = values(store, "aix-lock-contention.json", "splat report age", "{{instance}}", 179, ("instance",))
    assert got == {("tsm1:10990",): pytest.approx(840), ("calm:10990",): pytest.approx(240)}


def test_the_collectors_table_and_durations_are_each_collectors_own(store):
    """At minute 179: tsm1's splat collector has failed since minute 170 (success 0, its last
    success 600 s ago); vmstat succeeded this minute (0 s) on tsm1, 30 s before the minute on
    calm. The duration panel is each collector's last run in seconds, the slowest of the
    selected LPARs (vmstat: calm's 0.02 s, not tsm1's 0.012 s)."""
    targets = [t["expr"] for t in _panel("aix-overview.json", "Collectors")["targets"]]
    assert len(targets) == 2
    success, age = ({(r["metric"]["instance"], r["metric"]["collector"]): float(r["value"][1])
                     for r in store.query(substitute(e), store.start + 60 * 179)} for e in targets)
    assert success == {("tsm1:10990", "splat"): 0, ("tsm1:10990", "vmstat"): 1, ("calm:10990", "vmstat"): 1}
    assert age == {("tsm1:10990", "splat"): pytest.approx(600), ("tsm1:10990", "vmstat"): pytest.approx(0),
                   ("calm:10990", "vmstat"): pytest.approx(30)}
    got = values(store, "aix-overview.json", "Collector duration", "{{collector}}", 179, ("collector",))
    assert got == {("splat",): pytest.approx(0.75), ("vmstat",): pytest.approx(0.02)}


def _panel(dashboard, title):
    from tests.unit.test_dashboards import dashboards
    for p in dashboards()[dashboard]["panels"]:
        for q in [p, *p.get("panels", [])]:
            if q.get("title") == title:
                return q
    raise AssertionError(f"{dashboard}: no panel {title!r}")


def test_the_regime_line_is_0_for_4k_50_for_64k_and_100_for_16m(store):
    """The before/after board's regime line, as its legend says: at minute 60 tsm1 runs on IBM's
    64 KB line (50) and calm on 4 KB pages (0); at minute 179 tsm1 runs on 16 MB pages (100)."""
    legend = "regime: 16 MB (100), 64 KB (50) or 4 KB (0)"
    panel = "$instance: tape MiB/s and the regime"
    assert values(store, "aix-before-after.json", panel, legend, 60, ("instance",)) == {
        ("tsm1:10990",): 50, ("calm:10990",): 0}
    assert values(store, "aix-before-after.json", panel, legend, 179, ("instance",)) == {
        ("tsm1:10990",): 100, ("calm:10990",): 0}


def test_the_pool_forecast_is_the_linear_trend_between_0_and_the_pool(store):
    """The 4 h forecast at minute 179, over the last 2 h (exact lines, so the regression is
    exact): tsm1 has 60.5 pages free and loses 120 in 4 h, so the pool runs out: 0 (not the
    trend's -59.5); calm has 41.05 and loses 12: 29.05; idle's pool is filling up again and
    would pass its 32 pages: 32, its size."""
    title, panel = "Exhaustion forecast: free pages in 4 h", "aix-large-pages.json"
    got = values(store, panel, title, "{{instance}} predicted free (0: runs out)", 179, ("instance",))
    assert got == {("tsm1:10990",): pytest.approx(0, abs=1e-6), ("calm:10990",): pytest.approx(29.05, abs=1e-6),
                   ("idle:10990",): pytest.approx(32, abs=1e-6)}
    got = values(store, panel, title, "{{instance}} free now", 179, ("instance",))
    assert got == {("tsm1:10990",): pytest.approx(60.5), ("calm:10990",): pytest.approx(41.05),
                   ("idle:10990",): pytest.approx(32)}
