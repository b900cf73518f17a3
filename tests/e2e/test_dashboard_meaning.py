"""Dashboards mean what they say: the key panels' queries over the backfilled case study
equal the simulator model's own figure for the quantity their title and legend name.

Each panel query is averaged over 10 minutes (`avg_over_time((Q)[10m:1m])`) at an instant
in the steady 4 KB regime (2 h into the history) and in the steady 16 MB regime (7 h in),
and compared with the model's figure averaged over the same minutes (the model's own noise
is a few per cent a minute). Tolerances: 6 % for rates (a 5-minute rate spans minutes
before the window), 0.01 for CPU ratios (vmstat prints whole percents), 1 % for memory and
pages (svmon figures are exact; the model's need grows slowly). A panel that swapped read for
written, user for sys or 4 KB for 16 MB is off by far more than that.
"""
import statistics

import pytest

from aix_exporter.simulate.model import Model
from aix_exporter.simulate.model import ENT, PGSP_FRAMES
from aix_exporter.simulate.render import cpus, mem_frames, memory_frames, process_pages, system_pages
from aix_exporter.simulate.scenarios import SCENARIOS
from tests.e2e.test_dashboard_queries import substitute
from tests.unit.test_dashboards import dashboards

MIB = 1 << 20
INSTANCE = 'instance=~"tsmsrv01:10990"'
AT = {"4K": 2 * 3600, "16M": 7 * 3600}   # seconds into the 8 h case study: steady regimes


def panel_target(dashboard, title, legend):
    def walk(panels):
        for p in panels:
            yield p
            yield from walk(p.get("panels", []))
    for p in walk(dashboards()[dashboard]["panels"]):
        if p.get("title") == title:
            for t in p["targets"]:
                if t.get("legendFormat", "") == legend:
                    return t["expr"]
    raise AssertionError(f"{dashboard}: no panel {title!r} with legend {legend!r}")


def panel_value(p, expr, when, match=None):
    """The panel query averaged over the 10 minutes before ``when``; one series (``match``:
    the labels that pick it), or None when the panel has no such series."""
    q = "avg_over_time((%s)[10m:1m])" % substitute(expr).replace('instance=~".*"', INSTANCE)
    res = p.query(q, when)
    if match:
        res = [r for r in res if all(r["metric"].get(k) == v for k, v in match.items())]
    assert len(res) <= 1, (expr, match, res)
    return float(res[0]["value"][1]) if res else None


def model_value(p, fn, when):
    sc = SCENARIOS["case-study"]()
    start = p.end - sc.duration
    m = Model(sc, seed=1)
    return statistics.mean(fn(m.state(when - start - 60 * k)) for k in range(10))


def reader_mibps(s):
    return sum(d.mibps for d in s.drives if d.reader) * MIB


def writer_mibps(s):
    return sum(d.mibps for d in s.drives if not d.reader) * MIB


# (dashboard, panel title, legend, labels that pick the series, the model's figure, tolerance)
PANELS = [
    ("aix-tape.json", "Read and written", "{{instance}} read", None, reader_mibps, ("rel", 0.06)),
    ("aix-tape.json", "Read and written", "{{instance}} written", None, writer_mibps, ("rel", 0.06)),
    ("aix-tape.json", "Total throughput", "{{instance}}", None, lambda s: s.total_mibps * MIB, ("rel", 0.06)),
    ("aix-tape.json", "Busy", "{{instance}} {{device}}", {"device": "rmt0"}, lambda s: s.drives[0].busy, ("abs", 0.02)),
    ("aix-overview.json", "CPU (vmstat)", "{{instance}} {{mode}}", {"mode": "user"}, lambda s: s.cpu["us"] / 100, ("abs", 0.01)),
    ("aix-overview.json", "CPU (vmstat)", "{{instance}} {{mode}}", {"mode": "sys"}, lambda s: s.cpu["sy"] / 100, ("abs", 0.01)),
    ("aix-overview.json", "CPU (vmstat)", "{{instance}} {{mode}}", {"mode": "wait"}, lambda s: s.cpu["wa"] / 100, ("abs", 0.01)),
    ("aix-overview.json", "Memory by page size", "{{instance}} {{psize}}", {"psize": "4K"},
     lambda s: system_pages(s)["s"]["inuse"] * 4096, ("rel", 0.01)),
    ("aix-overview.json", "Memory by page size", "{{instance}} {{psize}}", {"psize": "16M"},
     lambda s: system_pages(s).get("L", {"inuse": 0})["inuse"] * 16 * MIB, ("abs", 16 * MIB)),
    # issue 48: a ratio with the wrong denominator (paging space over real memory) passed every
    # dashboard test. svmon -G's "pg space" row: 81,920 of 4,194,304 frames in use = 1.953125 %
    ("aix-overview.json", "Paging space used", "{{instance}}", None, lambda s: 81920 / PGSP_FRAMES, ("rel", 0.001)),
    ("aix-overview.json", "Real memory", "{{instance}} size", None, lambda s: mem_frames(s) * 4096, ("rel", 0.001)),
    ("aix-overview.json", "Real memory", "{{instance}} in use", None, lambda s: memory_frames(s)["inuse"] * 4096,
     ("rel", 0.01)),
    ("aix-overview.json", "Physical CPUs consumed vs entitled", "{{instance}} entitled", None, lambda s: ENT,
     ("abs", 0.001)),
    ("aix-large-pages.json", "Pool: size, in use, free (pages)", "{{instance}} pool", None, lambda s: s.lgpg_regions, ("abs", 0.5)),
    ("aix-large-pages.json", "Pool: size, in use, free (pages)", "{{instance}} in use", None,
     lambda s: s.pool_inuse if s.lgpg_regions else 0, ("abs", 1.0)),
    ("aix-large-pages.json", "Pool: size, in use, free (pages)", "{{instance}} free", None,
     lambda s: s.pool_free if s.lgpg_regions else 0, ("abs", 1.0)),
    ("aix-lock-contention.json", "pin_seg_range miss ratio", "{{instance}}", None, lambda s: s.miss_ratio, ("abs", 0.01)),
    ("aix-before-after.json", "$instance: tape MiB/s and the regime", "tape MiB/s", None, lambda s: s.total_mibps,
     ("rel", 0.06)),
    ("aix-before-after.json", "$instance: tape MiB/s and the regime", "regime: 16 MB (100), 64 KB (50) or 4 KB (0)", None,
     lambda s: 100 if s.lgpg_regions else 0, ("abs", 0.5)),
    ("aix-before-after.json", "$instance: user and system CPU", "{{mode}}", {"mode": "user"}, lambda s: s.cpu["us"] / 100,
     ("abs", 0.01)),
    ("aix-before-after.json", "$instance: user and system CPU", "{{mode}}", {"mode": "sys"}, lambda s: s.cpu["sy"] / 100,
     ("abs", 0.01)),
]



def transfers_per_second(s, device=0, interval=5):
    """iostat -p's tps of the drive over the interval that ends at s.t (render.iostat_tape)."""
    prev = s.model.state(max(0.0, s.t - interval))
    return (s.drives[device].transfers - prev.drives[device].transfers) / interval


def sys_per_user(s):
    """vmstat prints whole percents: the ratio of the rounded figures, user at least 1 %
    (aix:cpu_sys_per_user:ratio's clamp_min of 0.01)."""
    return round(s.cpu["sy"]) / max(1, round(s.cpu["us"]))


# issue 48, every panel by value: the panels that show one metric or one recorded figure,
# each against the model's own figure for it (the renderers in simulate/render.py say how the
# model becomes each command's text: vmstat r = 3 + tape I/Os per s // 200 with 256 KB I/Os,
# b = miss ratio x 8, ec = (us + sy) x VCPU / ENT; the TSM sessions receive 12, 17 and
# 22 MiB/s; splat's .xlpin misses 0.38 x the pin_seg_range ratio)
PANELS += [
    ("aix-overview.json", "Run queue and blocked threads", "{{instance}} run queue", None,
     lambda s: 3 + int(s.total_mibps * 4 // 200), ("abs", 0.5)),
    ("aix-overview.json", "Run queue and blocked threads", "{{instance}} blocked", None,
     lambda s: int(s.miss_ratio * 8), ("abs", 0.5)),
    ("aix-overview.json", "Entitlement consumed", "{{instance}} ec", None,
     lambda s: (s.cpu["us"] + s.cpu["sy"]) / 100 * cpus(s)[2] / cpus(s)[1], ("abs", 0.01)),
    ("aix-overview.json", "Logical CPUs", "{{instance}}", None, lambda s: cpus(s)[0], ("abs", 0.01)),
    ("aix-overview.json", "Free list", "{{instance}} fre", None, lambda s: memory_frames(s)["free"] * 4096,
     ("rel", 0.01)),
    ("aix-overview.json", "Paging space page-outs", "{{instance}}", None, lambda s: 0.0, ("abs", 1e-9)),
    ("aix-overview.json", "%sys per %usr", "{{instance}}", None, sys_per_user, ("rel", 0.06)),
    ("aix-overview.json", "Collectors", "", {"collector": "vmstat"}, lambda s: 1.0, ("abs", 1e-9)),
    ("aix-lock-contention.json", "%sys per %usr", "{{instance}}", None, sys_per_user, ("rel", 0.06)),
    ("aix-lock-contention.json", "Function miss ratio", "{{instance}} {{function}}", {"function": ".xlpin"},
     lambda s: s.miss_ratio * 0.38, ("abs", 0.006)),
    ("aix-lock-contention.json", "Top locks: miss ratio", "{{instance}} {{lock}} {{type}}",
     {"lock": "F10007165096B6F8"}, lambda s: s.miss_ratio, ("abs", 0.006)),
    ("aix-lock-contention.json", "Trace window", "{{instance}}", None, lambda s: 5.0, ("abs", 0.01)),
    ("aix-large-pages.json", "vmstat -l: active and free large pages", "{{instance}} alp", None,
     lambda s: s.pool_inuse, ("abs", 1.0)),
    ("aix-large-pages.json", "vmstat -l: active and free large pages", "{{instance}} flp", None,
     lambda s: s.pool_free, ("abs", 1.0)),
    ("aix-large-pages.json", "Configured vs recommended (segments x 16 + 32)", "{{instance}} lgpg_regions {{setting}}",
     {"setting": "current"}, lambda s: s.lgpg_regions, ("abs", 0.5)),
    ("aix-large-pages.json", "Configured vs recommended (segments x 16 + 32)", "{{instance}} lgpg_regions {{setting}}",
     {"setting": "boot"}, lambda s: s.lgpg_regions_boot, ("abs", 0.5)),
    ("aix-large-pages.json", "Configured vs recommended (segments x 16 + 32)", "{{instance}} recommended", None,
     lambda s: s.heap_segments * 16 + 32, ("abs", 0.5)),
    ("aix-large-pages.json", "Exhaustion forecast: free pages in 4 h", "{{instance}} free now", None,
     lambda s: s.pool_free, ("abs", 1.0)),
    ("aix-large-pages.json", "Active System Optimizer (asoo aso_active)", "{{instance}}", None,
     lambda s: 1.0 if s.model.sc.aso_active else 0.0, ("abs", 1e-9)),
    ("aix-large-pages.json", "Heap segments (text data BSS heap)", "{{instance}} {{command}} {{pid}}", None,
     lambda s: s.heap_segments, ("abs", 0.5)),
    ("aix-large-pages.json", "Memory per page size of the monitored processes",
     "{{instance}} {{command}} {{pid}} {{psize}}", {"psize": "4K"}, lambda s: process_pages(s)["s"]["inuse"] * 4096,
     ("rel", 0.01)),
    ("aix-tape.json", "Throughput per drive", "{{instance}} {{device}}", {"device": "rmt0"},
     lambda s: s.drives[0].mibps * MIB, ("rel", 0.06)),
    ("aix-tape.json", "Transfers per second", "{{instance}} {{device}}", {"device": "rmt0"}, transfers_per_second,
     ("rel", 0.06)),
    ("aix-tape.json", "Drives", "{{instance}}", None, lambda s: len(s.drives), ("abs", 1e-9)),
    ("aix-tape.json", "TSM: received per client", "{{instance}} {{client}}", {"client": "TSMCLI02"},
     lambda s: 17 * MIB, ("rel", 0.01)),
    ("aix-4k-vs-16m.json", "Page-size regime: 1 = 4 KB, 2 = 64 KB, 3 = 16 MB pages hold most of the data",
     "{{instance}}", None, lambda s: 3 if s.heap_l else 1, ("abs", 1e-9)),
    # the pool is flat in both steady regimes: the forecast is the free pages now
    ("aix-large-pages.json", "Exhaustion forecast: free pages in 4 h", "{{instance}} predicted free (0: runs out)",
     None, lambda s: s.pool_free, ("abs", 1.0)),
    # splat -da over a 5 s window: pin_seg_range acquired 2 x c_eff per 256 KB I/O, missing at the model's ratio
    ("aix-lock-contention.json", "Top functions by lock misses", "{{instance}} {{function}}",
     {"function": ".pin_seg_range"}, lambda s: int(s.total_mibps * 4 * s.c_eff * 2 * 5) * s.miss_ratio,
     ("rel", 0.08)),
    ("aix-lock-contention.json", "Top locks: acquisitions", "{{instance}} {{lock}} {{type}}",
     {"lock": "F10007165096B6F8"}, lambda s: int(s.total_mibps * 4 * s.c_eff * 2 * 5), ("rel", 0.06)),
]


@pytest.mark.parametrize("regime", ["4K", "16M"])
def test_the_tsm_process_panel_is_the_tape_rate_of_the_running_process(case_study_store, regime):
    """The tape dashboard's per-server-process rate: the simulated BACKUP STORAGE POOL process
    (a new one every 30 minutes, render.PROCESS_START) moves what every drive moves. Checked 15
    minutes before each regime's instant, so the 10 minutes averaged lie within one process."""
    p = case_study_store
    when = p.end - 8 * 3600 + AT[regime] - 900
    got = panel_value(p, panel_target("aix-tape.json", "TSM: per server process",
                                      "{{instance}} {{process}} {{process_num}}"), when)
    want = model_value(p, lambda s: s.total_mibps * MIB, when)
    assert got == pytest.approx(want, rel=0.06), (got, want)

@pytest.mark.parametrize("regime", ["4K", "16M"])
def test_the_info_panels_name_the_models_mode_and_ldr_cntrl(case_study_store, regime):
    """The large-pages dashboard's two tables of facts: svmon -P's 16MB mode and the
    LDR_CNTRL of ps eww, as labels of one series each, are the model's in each regime (4 KB:
    mode N and no LARGE_PAGE_DATA; 16 MB: mode Y and LARGE_PAGE_DATA=Y)."""
    p = case_study_store
    when = p.end - 8 * 3600 + AT[regime]
    sc = SCENARIOS["case-study"]()
    s = Model(sc, seed=1).state(AT[regime])

    def labels(title):
        expr = substitute(panel_target("aix-large-pages.json", title, "")).replace('instance=~".*"', INSTANCE)
        return [r["metric"] for r in p.query(expr, when)]
    (mode,) = labels("16MB mode (svmon -P)")
    assert (mode["command"], mode["pid"], mode["mode"]) == ("dsmserv", str(s.pid), s.mode)
    (ldr,) = labels("LDR_CNTRL in effect (ps eww)")
    want = dict(kv.split("=", 1) for kv in s.ldr_cntrl.split("@")) if s.ldr_cntrl else {}
    assert ldr.get("large_page_data", "") == want.get("LARGE_PAGE_DATA", "")   # (an empty label is no label)
    assert ldr.get("datapsize", "") == want.get("DATAPSIZE", "")
    assert s.mode == {"4K": "N", "16M": "Y"}[regime]
    # the tape dashboard's mounts: one series a drive, DRIVEn on /dev/rmtn, in use (ANR8330I)
    expr = substitute(panel_target("aix-tape.json", "TSM: volumes mounted per drive", "")).replace(
        'instance=~".*"', INSTANCE)
    mounts = sorted((r["metric"]["drive"], r["metric"]["device"], r["metric"]["status"]) for r in p.query(expr, when))
    assert mounts == [(f"DRIVE{i}", f"/dev/{d.name}", "in_use") for i, d in enumerate(s.drives)]

@pytest.mark.parametrize("regime", ["4K", "16M"])
@pytest.mark.parametrize("dashboard,title,legend,match,fn,tol", PANELS,
                         ids=[f"{d}:{t}:{l}:{m}" for d, t, l, m, _, _ in PANELS])
def test_panel_value_is_the_models_figure(case_study_store, regime, dashboard, title, legend, match, fn, tol):
    """In each store: Prometheus (promtool backfill) and VictoriaMetrics (import API, vmalert
    -replay of the recording rules), the same figure within the same tolerance."""
    p = case_study_store
    when = p.end - 8 * 3600 + AT[regime]
    got = panel_value(p, panel_target(dashboard, title, legend), when, match)
    want = model_value(p, fn, when)
    pool = model_value(p, lambda s: s.lgpg_regions, when)
    if pool == 0 and (title.startswith(("Pool", "Exhaustion forecast")) or (match or {}).get("psize") == "16M"):
        # no 16 MB pool (the 4 KB regime): svmon -G prints no 16 MB line, so the panel shows
        # nothing, never a made-up 0
        assert got is None, f"{dashboard} {title} {legend}: {got} without a 16 MB pool"
        return
    assert got is not None, f"{dashboard} {title} {legend} {match}: no data"
    kind, amount = tol
    assert got == (pytest.approx(want, rel=amount) if kind == "rel" else pytest.approx(want, abs=amount)), \
        f"{dashboard} {title} {legend} {match}: panel {got}, model {want}"


def test_the_figures_differ_so_a_swap_would_show():
    """The pairs the panels could confuse differ by more than the tolerances in both regimes."""
    sc = SCENARIOS["case-study"]()
    m = Model(sc, seed=1)
    for t in AT.values():
        s = m.state(t)
        assert abs(reader_mibps(s) - writer_mibps(s)) > 0.2 * writer_mibps(s)
        assert abs(s.cpu["us"] - s.cpu["sy"]) > 2
        pages = system_pages(s)
        assert abs(pages["s"]["inuse"] * 4096 - pages.get("L", {"inuse": 0})["inuse"] * 16 * MIB) > 0.1 * pages["s"]["inuse"] * 4096


def test_every_row_of_the_regime_table_is_the_models_figure_for_that_regime(case_study_prometheus):
    """The before/after-by-regime table (dashboard aix-before-after): each row's before (4 KB)
    and after (16 MB) value against the model's average over the minutes of that regime.
    Tolerances: 6 % for tape and memory, 1.0 percentage point for CPU, 0.01 for the miss ratio."""
    p = case_study_prometheus
    table = dashboards()["aix-before-after.json"]["panels"][0]

    def column(k):
        expr = substitute(table["targets"][k]["expr"]).replace('instance=~".*"', INSTANCE)
        return {r["metric"]["figure"]: float(r["value"][1]) for r in p.query(expr, p.end)}
    got = {"4K": column(0), "16M": column(1)}
    m = Model(SCENARIOS["case-study"](), seed=1)
    minutes = {"4K": [60 * k for k in range(1, 240)], "16M": [4 * 3600 + 300 + 60 * k for k in range(1, 235)]}
    for regime, ts in minutes.items():
        states = [m.state(t) for t in ts]

        def mean(fn, states=states):
            return statistics.mean(fn(s) for s in states)
        row = got[regime]
        assert row["1 Tape throughput (MiB/s)"] == pytest.approx(mean(lambda s: s.total_mibps), rel=0.06)
        assert row["3 User CPU (%)"] == pytest.approx(mean(lambda s: s.cpu["us"]), abs=1.0)
        assert row["4 System CPU (%)"] == pytest.approx(mean(lambda s: s.cpu["sy"]), abs=1.0)
        assert row["5 Wait (%)"] == pytest.approx(mean(lambda s: s.cpu["wa"]), abs=1.0)
        assert row["8 pin_seg_range miss ratio"] == pytest.approx(mean(lambda s: s.miss_ratio), abs=0.01)
        assert row["9 Memory in 4 KB pages (GiB)"] == pytest.approx(
            mean(lambda s: system_pages(s)["s"]["inuse"] * 4096) / (1 << 30), rel=0.06)
        # the pool resized while the server was down counts for neither regime (the 4 KB one read 0.66 before)
        assert row["11 lgpg_regions"] == pytest.approx(mean(lambda s: s.lgpg_regions), abs=0.5)
    assert got["16M"]["10 Memory in 16 MB pages (GiB)"] == pytest.approx(
        statistics.mean(system_pages(m.state(t))["L"]["inuse"] for t in minutes["16M"]) * 16 / 1024, rel=0.06)
    # the minutes while the server was down (pool already 160 pages, the kernel segment's 16 in use) count for
    # neither regime: the 4 KB column has no 16 MB memory and no pool, as the report says (0 -> 160, "new")
    assert got["4K"]["10 Memory in 16 MB pages (GiB)"] == 0 and got["4K"]["11 lgpg_regions"] == 0
    # the columns are not swapped: before is the slow, contended regime
    assert got["4K"]["1 Tape throughput (MiB/s)"] < got["16M"]["1 Tape throughput (MiB/s)"]


# the 4K-versus-16M dashboard's stat panels at the history's end: window 1h ended 5h30m ago
# (4 KB regime) and 30m ago (16 MB regime), as tests/e2e/test_dashboard_queries.VARS sets them
STATS = [
    ("Tape MiB/s - before", 5.5, lambda s: s.total_mibps, ("rel", 0.04)),
    ("Tape MiB/s - after", 0.5, lambda s: s.total_mibps, ("rel", 0.04)),
    ("User CPU % - before", 5.5, lambda s: s.cpu["us"], ("abs", 0.6)),
    ("User CPU % - after", 0.5, lambda s: s.cpu["us"], ("abs", 0.6)),
    ("pin miss ratio - before", 5.5, lambda s: s.miss_ratio, ("abs", 0.01)),
    ("pin miss ratio - after", 0.5, lambda s: s.miss_ratio, ("abs", 0.01)),
]


@pytest.mark.parametrize("title,ended_hours_ago,fn,tol", STATS, ids=[s[0] for s in STATS])
def test_4k_vs_16m_stat_panels_are_the_models_figure_over_their_window(case_study_store, title, ended_hours_ago, fn, tol):
    p = case_study_store
    expr = substitute(panel_target("aix-4k-vs-16m.json", title, "{{instance}}")).replace('instance=~".*"', INSTANCE)
    res = p.query(expr, p.end)
    assert len(res) == 1, res
    got = float(res[0]["value"][1])
    m = Model(SCENARIOS["case-study"](), seed=1)
    end = 8 * 3600 - ended_hours_ago * 3600
    want = statistics.mean(fn(m.state(end - 60 * k)) for k in range(60))
    kind, amount = tol
    assert got == (pytest.approx(want, rel=amount) if kind == "rel" else pytest.approx(want, abs=amount)), (title, got, want)


# the 4K-versus-16M dashboard's two charts of "now" against "$before earlier" (5h30m): each
# series 30 minutes before the history's end (16 MB pages) is the model's figure then, and its
# earlier series the model's figure 5h30m before that (4 KB pages)
SHIFTED = [
    ("Tape throughput: now and $before earlier", "{{instance}} now", None, 0, lambda s: s.total_mibps * MIB, ("rel", 0.06)),
    ("Tape throughput: now and $before earlier", "{{instance}} $before earlier", None, 5.5,
     lambda s: s.total_mibps * MIB, ("rel", 0.06)),
    ("CPU user and sys: now and $before earlier", "{{instance}} {{mode}} now", {"mode": "user"}, 0,
     lambda s: s.cpu["us"] / 100, ("abs", 0.01)),
    ("CPU user and sys: now and $before earlier", "{{instance}} {{mode}} now", {"mode": "sys"}, 0,
     lambda s: s.cpu["sy"] / 100, ("abs", 0.01)),
    ("CPU user and sys: now and $before earlier", "{{instance}} {{mode}} $before earlier", {"mode": "user"}, 5.5,
     lambda s: s.cpu["us"] / 100, ("abs", 0.01)),
    ("CPU user and sys: now and $before earlier", "{{instance}} {{mode}} $before earlier", {"mode": "sys"}, 5.5,
     lambda s: s.cpu["sy"] / 100, ("abs", 0.01)),
]


@pytest.mark.parametrize("title,legend,match,hours_earlier,fn,tol", SHIFTED,
                         ids=[f"{t}:{l}:{m}" for t, l, m, _, _, _ in SHIFTED])
def test_now_and_earlier_series_are_the_models_figures_then(case_study_store, title, legend, match, hours_earlier,
                                                             fn, tol):
    p = case_study_store
    when = p.end - 1800
    got = panel_value(p, panel_target("aix-4k-vs-16m.json", title, legend), when, match)
    want = model_value(p, fn, when - hours_earlier * 3600)
    assert got is not None, (title, legend, match)
    kind, amount = tol
    assert got == (pytest.approx(want, rel=amount) if kind == "rel" else pytest.approx(want, abs=amount)), \
        (title, legend, match, got, want)


def test_the_regime_tables_verdict_and_the_fleet_ratios(case_study_prometheus):
    """The before/after-by-regime dashboard's verdict column (1: moved the good way beyond the
    "same" band, -1: the bad way, 0: within it or a figure that does not decide) and its fleet
    table of after/before ratios, on the case study: tape up 2.7 times (higher is better),
    system per user CPU down to a fifth and the pin miss ratio to a fiftieth (lower is
    better): all three deciding figures say better; user CPU went up about ten times."""
    p = case_study_prometheus
    board = dashboards()["aix-before-after.json"]["panels"]

    def values(panel, k, key):
        expr = substitute(panel["targets"][k]["expr"]).replace('instance=~".*"', INSTANCE)
        return {r["metric"].get(key, r["metric"].get("instance")): float(r["value"][1]) for r in p.query(expr, p.end)}
    verdict = values(board[0], 3, "figure")
    assert verdict == {"1 Tape throughput (MiB/s)": 1, "2 Tape transfers (/s)": 0, "3 User CPU (%)": 0, "4 System CPU (%)": 0,
                       "5 Wait (%)": 0, "6 System / user CPU": 1, "7 Physical CPU seconds per GiB to tape": 0,
                       "8 pin_seg_range miss ratio": 1, "9 Memory in 4 KB pages (GiB)": 0,
                       "10 Memory in 16 MB pages (GiB)": 0, "11 lgpg_regions": 0}
    fleet = next(x for x in board if x["title"].startswith("Fleet"))
    tape, user = values(fleet, 0, "instance"), values(fleet, 1, "instance")
    assert tape == {"tsmsrv01:10990": pytest.approx(378 / 139, rel=0.06)}
    assert user == {"tsmsrv01:10990": pytest.approx(29.3 / 3.0, rel=0.1)}


def test_the_census_stat_counts_each_state_once(case_study_prometheus):
    """The fleet census dashboard's stat panel, one count per state, at the case study's end:
    its one LPAR runs on 16 MB pages; every other state counts 0 (not missing, not 1)."""
    p = case_study_prometheus
    panel = next(x for x in dashboards()["aix-fleet-census.json"]["panels"] if x["type"] == "stat")
    got = {t["legendFormat"]: [float(r["value"][1]) for r in p.query(substitute(t["expr"]), p.end)] for t in panel["targets"]}
    assert got == {"down after ANR0358E": [0], "mandatory at risk": [0], "falling back": [0], "16 MB pages": [1],
                   "64 KB pages": [0], "4 KB pages": [0]}


def test_the_regime_tables_figures_are_the_reports_over_the_same_windows(case_study_prometheus):
    """Each before/after figure of the regime dashboard equals the report's (report --auto) for
    the same windows: the dashboard's before column evaluated with the report's before window as
    its range, the after column with its after window. Tolerance 2 % (the dashboard averages the
    per-minute recorded figures, the report reads the raw series over the window) or 0.01 where
    the figure is near 0; both say 0 for the 4 KB regime's 16 MB memory and pool."""
    from aix_exporter.report.compare import Prometheus, compare, find_regimes
    p = case_study_prometheus
    prom = Prometheus(p.url)
    before, after, change, names = find_regimes(prom, "tsmsrv01:10990", p.end - 8 * 3600, p.end, 600)
    assert names == ("4 KB", "16 MB")
    report = {r.figure.row: (r.before, r.after) for r in compare(prom, "tsmsrv01:10990", before, after, change).rows}
    table = dashboards()["aix-before-after.json"]["panels"][0]
    got: dict = {}
    for k, w in ((0, before), (1, after)):
        expr = substitute(table["targets"][k]["expr"]).replace('instance=~".*"', INSTANCE)
        expr = expr.replace("[8h]", f"[{int(w.end - w.start)}s]")
        for r in p.query(expr, w.end):
            got.setdefault(r["metric"]["figure"].split(" ", 1)[1], [None, None])[k] = float(r["value"][1])
    assert set(got) == set(report)
    for row, (b, a) in report.items():
        for mine, theirs in zip(got[row], (b, a)):
            assert mine == pytest.approx(theirs, rel=0.02, abs=0.01), (row, got[row], (b, a))
    assert report["Memory in 16 MB pages (GiB)"][0] == 0 and report["lgpg_regions"][0] == 0
