"""Round trip per scenario: model truth -> rendered text -> real parsers/collectors -> metrics == truth."""
import pytest

from aix_exporter.collectors import registry
from aix_exporter.config import Settings
from aix_exporter.exporter import Exporter
from aix_exporter.simulate.model import KERNEL_L, LARGE
from aix_exporter.simulate.scenarios import SCENARIOS
from aix_exporter.sources.simulate import SimulatedSource, parse_spec
from tests.lib.checks import samples


def collect(src):
    s = Settings()
    cols = [c(s) for n, c in registry().items() if not getattr(c, "requires_system", False)]
    e = Exporter(src, cols)
    e.collect_all()
    return samples(e.families())


def at(scenario, t, seed=1):
    src = SimulatedSource(f"{scenario}?seed={seed}")
    src.set_time(t)
    return src, src.model.state(t)


TIMES = {"case-study": [3600, 4 * 3600 + 60, 6 * 3600], "exhaustion": [3600, 9 * 3600, 11 * 3600],
         "fallback": [600, 5 * 3600], "steady": [7200]}
CASES = [(sc, t) for sc, ts in TIMES.items() for t in ts]


@pytest.mark.parametrize("scenario,t", CASES)
def test_round_trip_metrics_equal_model_truth(scenario, t):
    src, st = at(scenario, t)
    m = collect(src)
    ok = lambda c: m[("aix_exporter_collector_success", (("collector", c),))]
    for c in ("vmstat", "memory", "vmo", "vmstat_v", "vmstat_s", "splat", "tape", "tsm"):
        assert ok(c) == 1, c
    assert m[("aix_vmo_tunable", (("setting", "current"), ("tunable", "lgpg_regions")))] == st.lgpg_regions
    assert m[("aix_vmo_tunable", (("setting", "boot"), ("tunable", "lgpg_regions")))] == st.lgpg_regions_boot
    assert m[("aix_vmstat_large_pages_active", ())] == st.pool_inuse
    assert m[("aix_vmstat_large_pages_free", ())] == st.pool_free
    if st.lgpg_regions:
        assert m[("aix_memory_page_pool_size_bytes", (("psize", "16M"),))] == st.lgpg_regions * LARGE
        assert m[("aix_memory_page_inuse_bytes", (("psize", "16M"),))] == st.pool_inuse * LARGE
    else:
        assert ("aix_memory_page_pool_size_bytes", (("psize", "16M"),)) not in m
    assert m[("aix_vmstat_cpu_ratio", (("mode", "user"),))] == pytest.approx(round(st.cpu["us"]) / 100)
    assert m[("aix_vmstat_cpu_ratio", (("mode", "sys"),))] == pytest.approx(round(st.cpu["sy"]) / 100)
    assert m[("aix_splat_function_miss_ratio", (("function", ".pin_seg_range"),))] == pytest.approx(st.miss_ratio, abs=1e-4)
    for d in st.drives:
        lab = (("device", d.name),)
        assert m[("aix_tape_written_bytes_total", lab)] == d.kb_written * 1024
        assert m[("aix_tape_read_bytes_total", lab)] == d.kb_read * 1024
    prev = src.model.state(t - 5)   # the interval iostat -p 5 2 reports on
    for p_, d in zip(prev.drives, st.drives):
        lab = (("device", d.name),)
        # the interval report's figures: one decimal, so within 0.05 of the model's truth
        assert abs(m[("aix_tape_transfers_per_second", lab)] - (d.transfers - p_.transfers) / 5) <= 0.05 + 1e-9
        assert abs(m[("aix_tape_busy_ratio", lab)] - (d.busy_seconds - p_.busy_seconds) / 5) <= 0.0005 + 1e-9
    ids = [msgid for _, msgid, _ in st.log]
    for msgid in ("ANR0358E", "ANR9999D"):
        assert m[("aix_tsm_messages_total", (("msgid", msgid), ("severity", msgid[-1])))] == ids.count(msgid)
    if st.server_up:
        ident = (("command", "dsmserv"), ("pid", str(st.pid)))
        assert m[("aix_process_large_page_info", (("command", "dsmserv"), ("mode", st.mode), ("pid", str(st.pid))))] == 1
        assert m[("aix_process_heap_segments", ident)] == len(st.heap_layout())
        l_key = ("aix_process_inuse_bytes", ident + (("psize", "16M"),))
        if st.lgpg_regions:
            assert m[l_key] == (st.heap_l + KERNEL_L) * LARGE
        heap_4k = sum(p for ps, p in st.heap_layout() if ps == "s")
        assert m[("aix_process_inuse_bytes", ident + (("psize", "4K"),))] >= heap_4k * 4096
        lpd = next((i.split("=")[1] for i in st.ldr_cntrl.split("@") if i.startswith("LARGE_PAGE_DATA=")), "")
        assert any(k[0] == "aix_process_ldr_cntrl_info" and ("large_page_data", lpd) in k[1] for k in m)
    else:
        assert m[("aix_process_monitored", ())] == 0
        assert not any(k[0] == "aix_process_inuse_bytes" for k in m)


def test_case_study_regimes_match_the_seed():
    _, before = at("case-study", 2 * 3600)
    _, after = at("case-study", 6 * 3600)
    assert before.total_mibps == pytest.approx(139, rel=0.05)
    assert after.total_mibps == pytest.approx(378, rel=0.05)
    assert before.miss_ratio == pytest.approx(0.25, abs=0.01) and after.miss_ratio < 0.01
    assert round(before.cpu["us"]) in (2, 3, 4) and 13 <= before.cpu["sy"] <= 17
    assert after.cpu["us"] / before.cpu["us"] >= 8
    assert before.mode == "N" and after.mode == "Y" and after.pool_inuse == 118 and after.lgpg_regions == 160


def test_exhaustion_logs_anr9999d_then_anr0358e_and_the_server_stays_down():
    src, st = at("exhaustion", 12 * 3600)
    te = src.model.exhausted_at
    assert te is not None and 8 * 3600 < te < 10 * 3600
    ids = [(t, msgid) for t, msgid, _ in st.log if msgid in ("ANR9999D", "ANR0358E")]
    assert ids == [(te, "ANR9999D"), (te + 60, "ANR0358E")]
    assert not st.server_up
    _, before = at("exhaustion", te - 600)
    assert before.server_up and before.mode == "M" and before.pool_free <= 2


def test_fallback_shows_y_flat_16m_and_growing_4k_with_contention():
    _, early = at("fallback", 600)
    _, late = at("fallback", 7 * 3600)
    assert early.mode == late.mode == "Y"
    assert early.heap_4k_frames == 0 and late.heap_4k_frames > 0
    assert late.heap_l == early.heap_l + (late.lgpg_regions - KERNEL_L - early.heap_l) and late.pool_free == 0
    assert late.miss_ratio > 0.1 > early.miss_ratio


def test_deterministic_for_a_seed_and_different_across_seeds():
    a = SimulatedSource("case-study?seed=7")
    b = SimulatedSource("case-study?seed=7")
    c = SimulatedSource("case-study?seed=8")
    for s in (a, b, c):
        s.set_time(5000)
    assert a.read("vmstat") == b.read("vmstat") and a.read("iostat_tape") == b.read("iostat_tape")
    assert a.read("iostat_tape") != c.read("iostat_tape")


def test_clock_runs_faster_than_real_time():
    now = [1000.0]
    src = SimulatedSource("steady?speed=60&at=100", clock=lambda: now[0])
    assert src.now() == 100
    now[0] += 10
    assert src.now() == 700


def test_start_anchors_the_clock_at_a_given_wall_time_not_at_the_sources_start():
    """The demo's live exporter continues a history that ends at END: with start=END its clock
    reads `at` at END, however long it took to start (a first run compiling the venv took
    seconds, and the live counters lagged the history's by that much)."""
    now = [1_795_000_012.0]          # the source is made 12 s after the history's end
    src = SimulatedSource("case-study?at=28800&start=1795000000", clock=lambda: now[0])
    assert src.now() == 28812 and src.epoch0 == 1_795_000_000 - 28800
    fast = SimulatedSource("exhaustion?at=20880&speed=60&start=1795000000", clock=lambda: now[0])
    assert fast.now() == 20880 + 12 * 60
    assert parse_spec("steady")["start"] is None
    with pytest.raises(ValueError, match="bad option"):
        SimulatedSource("steady?start=soon")


@pytest.mark.parametrize("spec,message", [("case-study?sped=2", "unknown option"), ("case-study?speed=x", "bad option"),
                                          ("nope", "unknown scenario")])
def test_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        SimulatedSource(spec)


def test_every_scenario_is_listed():
    assert set(SCENARIOS) == {"case-study", "exhaustion", "fallback", "steady", "checklist-trouble", "tight-memory",
                              "ibm-64k", "ibm-64k-quiet", "dirty-drive", "fewer-drives"}
    assert parse_spec("steady")["speed"] == 1.0


# -- the model's state at t is the same whoever asks, in whatever order, from however many threads --
def _texts(model, t, keys=("iostat_tape", "tsm_processes", "tsm_summary", "vmstat", "svmon_p", "splat")):
    from aix_exporter.simulate import render
    ctx = render.Context(model, model.state(t), t, 1_700_000_000.0)
    out = {}
    for k in keys:
        try:
            out[k] = render.render(k, ctx)
        except render.ProcessDown:
            out[k] = None
    return out


SOAK_TIMES = [5.0, 59.0, 60.0, 61.5, 3600.0, 14399.0, 14700.0, 28800.0, 28805.0, 86395.0, 86400.0,
              90000.0 + 2.5, 100000.0, 3 * 86400.0 + 7.0]


@pytest.mark.parametrize("scenario", ["case-study", "exhaustion", "fallback"])
def test_model_reads_out_of_order_and_in_threads_equal_an_in_order_reference(scenario):
    import random
    import threading
    from aix_exporter.simulate.model import Model
    from aix_exporter.simulate.scenarios import get
    ref = {}
    for t in SOAK_TIMES:            # the reference: a fresh model per instant, nothing read before it
        ref[t] = _texts(Model(get(scenario)), t)
    shared = Model(get(scenario))
    bad, errors = [], []
    order = random.Random(7)

    def reader(times):
        try:
            for t in times:
                if _texts(shared, t) != ref[t]:
                    bad.append(t)
        except Exception as e:   # a race that raises must fail the test, not vanish in a thread
            errors.append(repr(e))

    plans = [order.sample(SOAK_TIMES * 3, len(SOAK_TIMES) * 3) for _ in range(6)]
    threads = [threading.Thread(target=reader, args=(p,)) for p in plans]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == [] and bad == []
    # and serially, backwards: the same texts again
    for t in reversed(SOAK_TIMES):
        assert _texts(shared, t) == ref[t]


def test_a_command_renders_the_same_text_whatever_was_rendered_before():
    from aix_exporter.simulate.model import Model
    from aix_exporter.simulate.scenarios import get
    alone = _texts(Model(get("case-study")), 28800.0, keys=("iostat_tape",))
    busy = Model(get("case-study"))
    for t in (90000.0, 10.0, 28795.0, 28801.0, 500.0):
        _texts(busy, t)
    assert _texts(busy, 28800.0, keys=("iostat_tape",)) == alone


def test_tape_counters_are_monotone_and_interval_rates_within_the_drives_bounds():
    from aix_exporter.simulate.model import MIB, T_MAX, Model
    from aix_exporter.simulate.scenarios import get
    m = Model(get("case-study"))
    prev = None
    for t in [k * 7.5 for k in range(0, 4000, 37)] + [86400.0, 86407.5]:
        c = m.counters(t)
        if prev is not None:
            dt = t - prev[0]
            for (kb0, x0, b0), (kb1, x1, b1) in zip(prev[1], c):
                assert kb1 >= kb0 and x1 >= x0 and b1 >= b0
                assert (kb1 - kb0) * 1024 / dt <= T_MAX * 1.03 * MIB + 1e-6   # noise spread 3 %
                assert (b1 - b0) / dt <= 0.99 + 1e-9
        prev = (t, c)


def test_counter_reads_cost_a_bounded_number_of_steps_at_any_simulated_time(monkeypatch):
    """Once the snapshot grid reaches t, a read integrates at most one snapshot interval."""
    from aix_exporter.simulate import model as mod
    from aix_exporter.simulate.scenarios import get
    m = mod.Model(get("case-study"))
    m.counters(3 * 86400.0)            # build the grid once
    calls = [0]
    real = m._drive_rates
    monkeypatch.setattr(m, "_drive_rates", lambda r, step: (calls.__setitem__(0, calls[0] + 1), real(r, step))[1])
    for t in (3600.0 + 59.0, 86400.0 + 59.0, 3 * 86400.0 - 1.0):
        calls[0] = 0
        m._counters(t)
        assert calls[0] <= mod.SNAPSHOT_EVERY / mod.STEP


def test_the_readmes_three_regime_table_is_the_models():
    """docs/simulator.md's model figures at 8 drives (tape, miss ratio, %sys / %usr) for 4 KB, IBM's
    64 KB line and 16 MB pages, from the model itself: case-study's 4 KB hours, ibm-64k-quiet and
    steady, without noise."""
    import re

    from aix_exporter.simulate.model import Model, user_share
    from aix_exporter.simulate.scenarios import get
    from tests.lib import ROOT
    readme = (ROOT / "docs" / "simulator.md").read_text()
    rows = dict(re.findall(r"^\| (4 KB|64 KB|16 MB)[^|]* \| \d+ \| ([\d.]+ \| [\d.]+ % \| [\d.]+ / [\d.]+ = [\d.]+) \|$",
                           readme, re.M))
    got = {}
    for label, scenario in (("4 KB", "case-study"), ("64 KB", "ibm-64k-quiet"), ("16 MB", "steady")):
        model = Model(get(scenario))
        r = model.regime(3600)
        x = 8 * r["per_drive"]
        us, sy = 0.079 * x * user_share(r["miss"], 8), 4 + 0.07 * x + 5 * r["miss"]
        got[label] = f"{x:.1f} | {r['miss'] * 100:.1f} % | {sy:.1f} / {us:.1f} = {sy / us:.2f}"
    assert rows == got
    assert [round(Model(get(s)).regime(3600)["c"]) for s in ("case-study", "ibm-64k-quiet", "steady")] == [64, 4, 1]


def test_ibm_64k_is_contended_at_64k_by_the_plans_limits_and_not_after_the_16m_step():
    from aix_exporter.simulate.model import Model
    from aix_exporter.simulate.scenarios import get
    model = Model(get("ibm-64k"))
    before, after = model.state(2 * 3600), model.state(6 * 3600)
    assert (before.c_eff, after.c_eff) == (4.0, 1.0) and before.heap_64k_pages == 108 * 256 and after.heap_64k_pages == 0
    assert before.miss_ratio > 0.10 and before.cpu["sy"] / before.cpu["us"] > 3
    assert after.miss_ratio < 0.10 and after.total_mibps > 1.4 * before.total_mibps
    assert [s for s, _ in before.heap_layout()] == ["m"] * 8      # the heap's 8 segments in 64 KB pages
