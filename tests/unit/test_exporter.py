import pytest

from aix_exporter.collectors import Collector, Families
from aix_exporter.config import Settings
from aix_exporter.exporter import Exporter
from aix_exporter.parsers import ParseError
from aix_exporter.sources import SourceError
from tests.lib.checks import samples


SETTINGS = Settings()   # collectors need their settings


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


@pytest.fixture
def monotonic(monkeypatch) -> Clock:
    """The exporter's monotonic clock, stood in by a Clock the test moves (Unix time stays real)."""
    import types
    from aix_exporter import exporter as ex
    clock = Clock()
    monkeypatch.setattr(ex, "time", types.SimpleNamespace(monotonic=clock, time=time.time))
    return clock


def test_failures_of_any_kind_mark_only_that_collector(caplog):
    for exc in (ParseError("vmstat: bad", 3, "x y"), SourceError("timed out"), ZeroDivisionError("bug")):
        e = Exporter(FakeSource(), [Good(SETTINGS), make(exc)(SETTINGS)])
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
    e = Exporter(FakeSource(), [Good(SETTINGS), Slow(SETTINGS)], max_age={"slow": 60}, clock=clock)
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
    e = Exporter(FakeSource(), [Good(SETTINGS), Slow(SETTINGS)])
    e.collect_all()
    for _ in range(3):
        fams = e.families()
    assert sum(1 for f in fams for s in f.samples if s.name == "aix_test_value") == 2


import threading  # noqa: E402
import time  # noqa: E402


class Hanging(Collector):
    name, keys = "hanging", ("svmon_g",)

    def __init__(self, settings):
        super().__init__(settings)
        self.release = threading.Event()
        self.calls = 0

    def collect(self, source):
        self.calls += 1
        self.release.wait(10)
        f = Families()
        f.set("aix_late_value", "test", 1)
        return f.result()


def test_scrape_deadline_reports_a_slow_collector_failed_and_never_starts_it_twice(caplog):
    slow = Hanging(SETTINGS)
    e = Exporter(FakeSource(), [Good(SETTINGS), slow])
    t0 = time.monotonic()
    assert e.scrape(deadline=0.3) is True
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == [
        "msg=still running after the 0.3s scrape deadline collector=hanging command='svmon -G'"]
    assert time.monotonic() - t0 < 2
    m = samples(e.families())
    assert m[("aix_exporter_collector_success", (("collector", "hanging"),))] == 0
    assert m[("aix_exporter_collector_success", (("collector", "good"),))] == 1
    assert ("aix_late_value", ()) not in m
    e.scrape(deadline=0.3)          # still in flight: not started again
    assert slow.calls == 1
    slow.release.set()
    time.sleep(0.3)
    e.scrape(deadline=2)
    assert samples(e.families())[("aix_late_value", ())] == 1
    e.stop()


def test_scrapes_within_min_interval_share_one_collection_and_render():
    from prometheus_client.exposition import generate_latest

    calls = []

    class Counting(Good):
        def collect(self, source):
            calls.append(1)
            return super().collect(source)

    e = Exporter(FakeSource(), [Counting(SETTINGS)], min_interval=60)
    a = e.render(generate_latest, "text/plain", False)
    b = e.render(generate_latest, "text/plain", False)
    assert a is b and len(calls) == 1
    gz = e.render(generate_latest, "text/plain", True)
    assert gz[:2] == b"\x1f\x8b" and len(calls) == 1
    e.min_interval = 0
    e.render(generate_latest, "text/plain", False)
    assert len(calls) == 2


def test_families_bind_labels_by_name_not_position():
    import pytest
    f = Families()
    f.set("aix_test_info", "t", 1, {"a": "1", "b": "2"})
    f.set("aix_test_info", "t", 1, {"b": "4", "a": "3"})
    assert sorted(tuple(sorted(s.labels.items())) for s in f.result()[0].samples) == [
        (("a", "1"), ("b", "2")), (("a", "3"), ("b", "4"))]
    with pytest.raises(ValueError, match="labels"):
        f.set("aix_test_info", "t", 1, {"a": "5", "c": "6"})


def test_no_monitored_process_is_no_data_and_success():
    from aix_exporter.sources import NotRunning

    class Down(Collector):
        name, keys = "down", ("svmon_p",)

        def no_data(self):
            f = Families()
            f.set("aix_test_monitored", "t", 0)
            return f.result()

        def collect(self, source):
            raise NotRunning("dsmserv is not running")

    e = Exporter(FakeSource(), [Down(SETTINGS)])
    e.collect_all()
    m = samples(e.families())
    assert m[("aix_exporter_collector_success", (("collector", "down"),))] == 1
    assert m[("aix_test_monitored", ())] == 0


def test_landing_page_shows_the_source_and_a_banner_when_simulated():
    from aix_exporter.web import landing_page
    sim = landing_page("simulate:case-study", "/metrics")
    assert "SIMULATED DATA" in sim and "<code>simulate:case-study</code>" in sim
    real = landing_page("system", "/metrics")
    assert "SIMULATED" not in real and "<code>system</code>" in real


def test_announced_scrape_timeout_is_clamped_and_non_finite_values_ignored():
    from aix_exporter.web import DEFAULT_DEADLINE, MARGIN, scrape_deadline
    h = lambda v: {"X-Prometheus-Scrape-Timeout-Seconds": v}
    assert scrape_deadline(h("10")) == 10 - MARGIN
    assert scrape_deadline(h("1e9")) == 60 - MARGIN                 # clamped to the default maximum
    assert scrape_deadline(h("1e9"), max_timeout=20) == 20 - MARGIN
    for bad in ("inf", "-inf", "nan", "0", "-5", "abc", ""):
        assert scrape_deadline(h(bad)) == DEFAULT_DEADLINE, bad
    assert scrape_deadline(h("inf"), max_timeout=5) == 5
    assert scrape_deadline(h("0.2")) == 0.1


def test_a_short_deadline_never_waits_behind_a_long_one_and_its_cut_off_rendering_is_not_shared():
    from concurrent.futures import ThreadPoolExecutor as Pool

    from prometheus_client.exposition import generate_latest
    slow = Hanging(SETTINGS)
    e = Exporter(FakeSource(), [Good(SETTINGS), slow], min_interval=60)
    with Pool(2) as pool:
        long_one = pool.submit(e.render, generate_latest, "text/plain", False, 5.0)
        time.sleep(0.2)                         # the long scraper is waiting on the hanging collector
        t0 = time.monotonic()
        short = e.render(generate_latest, "text/plain", False, 0.3)
        assert time.monotonic() - t0 < 1.5      # it waited its own 0.3 s, not behind the 5 s one
        assert b'aix_exporter_collector_success{collector="hanging"} 0.0' in short
        slow.release.set()
        body = long_one.result(10)
    assert slow.calls == 1                      # one collection, shared by both scrapers
    assert b'aix_exporter_collector_success{collector="hanging"} 1.0' in body and b"aix_late_value 1.0" in body
    # the complete collection is the one cached for later scrapers, not the cut-off one
    assert e.render(generate_latest, "text/plain", False, 0.3) is body
    e.stop()


def test_landing_page_lists_each_collector_with_its_state_and_last_error():
    from aix_exporter.web import landing_page
    clock = Clock()
    e = Exporter(FakeSource(), [Good(SETTINGS), make(SourceError("svmon -G: exit status 1: not privileged"))(SETTINGS), Slow(SETTINGS)],
                 clock=clock)
    e.run_collector(e.collectors[0])
    e.run_collector(e.collectors[1])
    clock.t += 42
    page = landing_page("system", "/metrics", e.status())
    assert "<tr><td>good</td><td>on scrape</td><td>ok</td><td>42 s ago</td><td><code></code></td></tr>" in page
    assert ("<tr><td>bad</td><td>on scrape</td><td>failing</td><td>never</td>"
            "<td><code>source error: svmon -G: exit status 1: not privileged</code></td></tr>") in page
    assert "<tr><td>slow</td><td>background</td><td>not run yet</td><td>never</td>" in page


def test_the_failure_log_lines_name_the_kind_the_collector_and_the_command(caplog):
    for exc, said in ((ParseError("vmstat: bad", 3, "x y"), "parse error: "), (SourceError("timed out"),
                                                                             "source error: timed out"),
                      (ZeroDivisionError("bug"), "failed: ZeroDivisionError: bug")):
        caplog.clear()
        e = Exporter(FakeSource(), [make(exc)(SETTINGS)])
        e.collect_all()
        (line,) = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
        assert line.startswith("msg=collection failed collector=bad command='vmstat' error=" + said)
        assert e.results["bad"].error == line.split("error=", 1)[1]
        assert e.status()[0]["error"] == e.results["bad"].error


def test_a_background_result_exactly_at_its_max_age_is_still_fresh():
    clock = Clock()
    e = Exporter(FakeSource(), [Slow(SETTINGS)], max_age={"slow": 60}, clock=clock)
    e.collect_all()
    clock.t += 60
    assert samples(e.families())[("aix_exporter_collector_success", (("collector", "slow"),))] == 1
    clock.t += 0.5
    assert samples(e.families())[("aix_exporter_collector_success", (("collector", "slow"),))] == 0


def test_an_on_scrape_result_has_no_max_age_and_a_collectors_own_max_age_is_used():
    clock = Clock()
    e = Exporter(FakeSource(), [Good(SETTINGS), Slow(SETTINGS)], clock=clock)
    assert e.max_age == {"good": Good(SETTINGS).max_age(), "slow": Slow(SETTINGS).max_age()}
    e.collect_all()
    clock.t += 10 ** 6
    m = samples(e.families())
    assert m[("aix_exporter_collector_success", (("collector", "good"),))] == 1


def test_the_self_metrics_before_and_after_a_first_run():
    clock = Clock()
    e = Exporter(FakeSource(), [Good(SETTINGS), make(SourceError("x"))(SETTINGS)], clock=clock)
    fams = {f.name: f for f in e.families()}
    assert fams["aix_exporter_collector_success"].documentation == \
        "1 when the collector's last run succeeded and its data is current."
    assert [s.value for s in fams["aix_exporter_collector_success"].samples] == [0.0, 0.0]
    assert fams["aix_exporter_collector_duration_seconds"].documentation == "Duration of the collector's last run."
    assert fams["aix_exporter_collector_last_success_timestamp_seconds"].documentation == \
        "Unix time of the collector's last successful run."
    assert fams["aix_exporter_source_info"].documentation == (
        "Where the command text comes from: system (the AIX commands), replay:DIR (captured output), "
        "simulate:SCENARIO (the simulator, not a real LPAR), ssh://USER@HOST:PORT (the commands run on that LPAR "
        "over SSH) or targets (an exporter serving /probe targets: its own metrics only).")
    assert fams["aix_exporter_collector_last_success_timestamp_seconds"].samples == []   # none yet
    assert [(s.labels, s.value) for s in fams["aix_exporter_source_info"].samples] == [({"source": "fake"}, 1.0)]
    from aix_exporter import __version__
    assert [(s.labels, s.value) for s in fams["aix_exporter_build_info"].samples] == [({"version": __version__}, 1.0)]
    assert fams["aix_exporter_build_info"].documentation == "Build information of aix_exporter."
    e.collect_all()
    clock.t += 5
    fams = {f.name: f for f in e.families()}
    assert [(s.labels["collector"], s.value) for s in
            fams["aix_exporter_collector_last_success_timestamp_seconds"].samples] == [("good", 1000.0)]
    status = {s["name"]: s for s in e.status()}
    assert status["good"] == {"name": "good", "schedule": "on scrape", "ok": True, "ran": True, "age": 5.0, "error": ""}
    clock.t -= 4.5
    assert {s["name"]: s["age"] for s in e.status()}["good"] == 0.5          # under a second
    clock.t -= 3
    assert {s["name"]: s["age"] for s in e.status()}["good"] == 0.0          # a clock set back: never negative
    clock.t += 7.5
    assert (status["bad"]["ok"], status["bad"]["ran"], status["bad"]["age"]) == (False, True, None)
    assert {"aix_exporter_command_cpu_seconds", "aix_exporter_command_duration_seconds", "aix_exporter_command_runs",
            "aix_exporter_cpu_seconds", "aix_exporter_max_resident_memory_bytes"} <= set(fams)


def test_a_later_success_keeps_the_last_error_and_a_failure_keeps_the_last_success():
    clock = Clock()

    class Flaky(Collector):
        name, keys = "flaky", ("vmstat",)
        fail = False

        def collect(self, source):
            if Flaky.fail:
                raise SourceError("gone")
            f = Families()
            f.set("aix_test_value", "test", 1)
            return f.result()
    e = Exporter(FakeSource(), [Flaky(SETTINGS)], clock=clock)
    e.collect_all()
    Flaky.fail, clock.t = True, 1010.0
    e.collect_all()
    assert (e.results["flaky"].last_success, e.results["flaky"].error) == (1000.0, "source error: gone")
    Flaky.fail, clock.t = False, 1020.0
    e.collect_all()
    assert (e.results["flaky"].last_success, e.results["flaky"].error) == (1020.0, "source error: gone")


def test_a_collectors_command_titles():
    from aix_exporter.exporter import _command

    class Two(Collector):
        name, keys = "two", ("svmon_g", "unknown_key")

    class Nothing(Collector):
        name, keys = "nothing", ()
    assert _command(Two(SETTINGS)) == "svmon -G, unknown_key"
    assert _command(Nothing(SETTINGS)) == "nothing"


def test_scrape_says_whether_it_collected():
    e = Exporter(FakeSource(), [Good(SETTINGS)])                     # no minimum interval by default
    assert [e.scrape(deadline=2) for _ in range(3)] == [True, True, True]
    e = Exporter(FakeSource(), [Good(SETTINGS)], min_interval=60)
    assert [e.scrape(deadline=2) for _ in range(3)] == [True, False, False]
    e.stop()


def test_a_deadline_of_0_waits_for_nothing():
    import threading

    class Gated(Good):
        name = "gated"
        gate = threading.Event()

        def collect(self, source):
            Gated.gate.wait(10)
            return super().collect(source)
    e = Exporter(FakeSource(), [Gated(SETTINGS)])
    timer = threading.Timer(0.3, Gated.gate.set)
    timer.start()
    try:
        e.scrape(deadline=0)
        assert samples(e.families())[("aix_exporter_collector_success", (("collector", "gated"),))] == 0
    finally:
        Gated.gate.set()
        timer.cancel()
        e.stop()


def test_a_background_collector_runs_on_its_period_until_stopped():

    class Often(Slow):
        runs = 0

        def period(self):
            return 0.05

        def collect(self, source):
            Often.runs += 1
            return super().collect(source)
    e = Exporter(FakeSource(), [Often(SETTINGS)])
    assert [c.name for c in e.background] == ["slow"]
    e.start_background()
    deadline = time.monotonic() + 10
    while Often.runs < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert Often.runs >= 3 and e.results["slow"].success
    e.stop()
    time.sleep(0.2)
    runs = Often.runs
    time.sleep(0.2)
    assert Often.runs == runs                                       # stopped: no more runs
    for t in e._threads:
        t.join(2)
        assert not t.is_alive()


def test_stop_does_not_wait_for_a_collector_that_hangs():
    import threading
    slow = Hanging(SETTINGS)
    e = Exporter(FakeSource(), [slow])
    e.scrape(deadline=0.1)
    stopper = threading.Thread(target=e.stop)
    stopper.start()
    stopper.join(5)
    assert not stopper.is_alive()
    slow.release.set()


def test_the_costs_families_name_help_labels_and_units(monkeypatch):
    from aix_exporter import exporter as ex

    class Usage:
        ru_utime, ru_stime, ru_maxrss = 1.5, 0.25, 1000
    monkeypatch.setattr(ex.resource, "getrusage", lambda who: Usage())
    monkeypatch.setattr("aix_exporter.sources.system.command_costs", lambda: {"vmstat": (0.5, 2.0, 3)})
    fams = {f.name: f for f in ex.cost_families()}
    assert {n: (f.type, f.documentation) for n, f in fams.items()} == {
        "aix_exporter_command_cpu_seconds": ("counter", "CPU time (user + system) of the command's own process, "
                                                        "over every run since the exporter started."),
        "aix_exporter_command_duration_seconds": ("counter", "Wall time of the command's runs since the exporter "
                                                             "started."),
        "aix_exporter_command_runs": ("counter", "Runs of the command since the exporter started."),
        "aix_exporter_cpu_seconds": ("counter", "CPU time (user + system) of the exporter process itself since it "
                                                "started (its commands not included)."),
        "aix_exporter_max_resident_memory_bytes": ("gauge", "Peak resident memory of the exporter process since it "
                                                            "started."),
    }
    assert [(s.name, s.labels, s.value) for f in fams.values() for s in f.samples] == [
        ("aix_exporter_command_cpu_seconds_total", {"command": "vmstat"}, 0.5),
        ("aix_exporter_command_duration_seconds_total", {"command": "vmstat"}, 2.0),
        ("aix_exporter_command_runs_total", {"command": "vmstat"}, 3),
        ("aix_exporter_cpu_seconds_total", {}, 1.75),
        ("aix_exporter_max_resident_memory_bytes", {}, 1_024_000.0)]       # ru_maxrss is in KiB


def test_a_source_without_a_name_is_unknown():
    class Nameless:
        slow_keys = frozenset()
    fams = {f.name: f for f in Exporter(Nameless(), [Good(SETTINGS)]).families()}
    assert [s.labels for s in fams["aix_exporter_source_info"].samples] == [{"source": "unknown"}]


def test_the_source_info_help_and_durations_before_a_run():
    e = Exporter(FakeSource(), [Good(SETTINGS)])
    fams = {f.name: f for f in e.families()}
    assert fams["aix_exporter_source_info"].documentation == (
        "Where the command text comes from: system (the AIX commands), replay:DIR (captured output), "
        "simulate:SCENARIO (the simulator, not a real LPAR), ssh://USER@HOST:PORT (the commands run on that LPAR "
        "over SSH) or targets (an exporter serving /probe targets: its own metrics only).")
    assert [(s.labels, s.value) for s in fams["aix_exporter_collector_duration_seconds"].samples] == [
        ({"collector": "good"}, 0.0)]


def test_failures_are_logged_by_the_aix_exporter_logger(caplog):
    e = Exporter(FakeSource(), [make(SourceError("x"))(SETTINGS)])
    e.collect_all()
    assert [r.name for r in caplog.records if r.levelname == "ERROR"] == ["aix_exporter"]


def test_a_collection_exactly_min_interval_old_is_collected_again(monotonic):
    clock = monotonic
    clock.t = 500.0
    e = Exporter(FakeSource(), [Good(SETTINGS)], min_interval=60)
    assert e.scrape(deadline=2) is True                  # collected at 500.0
    clock.t = 559.5
    assert e.scrape(deadline=2) is False                 # 59.5 s old: reused
    clock.t = 560.0
    assert e.scrape(deadline=2) is True                  # exactly 60 s old: collected again
    e.stop()


def test_a_background_collector_waits_its_period_less_the_time_its_run_took(monkeypatch, monotonic):
    clock = monotonic
    clock.t = 100.0

    class Takes3s(Slow):
        def period(self):
            return 10.0

        def collect(self, source):
            clock.t += 3.0          # the run takes 3 s of the period
            return super().collect(source)
    e = Exporter(FakeSource(), [Takes3s(SETTINGS)])
    waits = []

    def wait(timeout):
        waits.append(timeout)
        clock.t += timeout
        if len(waits) == 2:
            e._stop.set()
        return e._stop.is_set()
    monkeypatch.setattr(e._stop, "wait", wait)
    e._loop(e.background[0], 10.0)
    assert waits == [7.0, 7.0]
    assert clock.t == 100.0 + 2 * 10.0


def test_background_threads_are_named_after_their_collector():
    import threading
    e = Exporter(FakeSource(), [Good(SETTINGS), Slow(SETTINGS)])
    e.start_background()
    try:
        assert [t.name for t in e._threads] == ["bg-slow"]
        assert [t.daemon for t in e._threads] == [True]      # never holds the process at exit
        assert "bg-slow" in [t.name for t in threading.enumerate()]
    finally:
        e.stop()
        for t in e._threads:
            t.join(2)


def test_a_background_run_longer_than_its_period_is_followed_at_once(monkeypatch, monotonic):
    clock = monotonic

    class Takes12s(Slow):
        def collect(self, source):
            clock.t += 12.0         # longer than its 10 s period
            return super().collect(source)
    e = Exporter(FakeSource(), [Takes12s(SETTINGS)])
    waits = []

    def wait(timeout):
        waits.append(timeout)
        e._stop.set()
        return True
    monkeypatch.setattr(e._stop, "wait", wait)
    e._loop(e.background[0], 10.0)
    assert waits == [0.0]


def test_a_runs_duration_is_measured_on_the_monotonic_clock(monotonic):
    clock = monotonic
    clock.t = 500.0

    class Takes(Good):
        def collect(self, source):
            clock.t += 0.25
            return super().collect(source)
    e = Exporter(FakeSource(), [Takes(SETTINGS)], clock=lambda: 1.0)
    e.collect_all()
    assert e.results["good"].duration == 0.25
    fams = {f.name: f for f in e.families()}
    assert [s.value for s in fams["aix_exporter_collector_duration_seconds"].samples] == [0.25]
    # finished at Unix time 1.0 (a clock the test sets): it ran
    assert e.status() == [{"name": "good", "schedule": "on scrape", "ok": True, "ran": True, "age": 0.0, "error": ""}]


def test_the_status_of_collectors_that_have_not_run():
    e = Exporter(FakeSource(), [Good(SETTINGS), Slow(SETTINGS)])
    assert e.status() == [
        {"name": "good", "schedule": "on scrape", "ok": False, "ran": False, "age": None, "error": ""},
        {"name": "slow", "schedule": "background", "ok": False, "ran": False, "age": None, "error": ""}]


def test_on_scrape_collectors_run_on_the_collect_pool():
    names = []

    class Where(Good):
        def collect(self, source):
            names.append(threading.current_thread().name)
            return super().collect(source)
    e = Exporter(FakeSource(), [Where(SETTINGS)])
    try:
        assert e.scrape(deadline=5) is True
        assert names == ["collect_0"]
    finally:
        e.stop()


class InlineSource(FakeSource):
    concurrent_reads = False   # as a replay or the simulator: reading is this process's own work


def test_on_a_source_whose_reads_do_not_wait_collectors_run_in_the_scraping_thread_in_order():
    ran = []

    def where(name_):
        class Where(Good):
            name = name_

            def collect(self, source):
                ran.append((self.name, threading.current_thread().name))
                return super().collect(source)
        return Where(SETTINGS)
    e = Exporter(InlineSource(), [where("a"), where("b"), where("c")])
    try:
        threading.Thread(target=e.scrape, kwargs={"deadline": 5}, name="scraper").start()
        wait_for = time.monotonic() + 5
        while len(ran) < 3 and time.monotonic() < wait_for:
            time.sleep(0.01)
        assert ran == [("a", "scraper"), ("b", "scraper"), ("c", "scraper")]
    finally:
        e.stop()


def test_a_second_scraper_waits_for_a_collector_running_inline_and_never_runs_it_twice():
    slow = Hanging(SETTINGS)
    e = Exporter(InlineSource(), [slow])
    first = threading.Thread(target=e.scrape, kwargs={"deadline": 10})
    first.start()
    try:
        wait_for = time.monotonic() + 5
        while slow.calls == 0 and time.monotonic() < wait_for:
            time.sleep(0.01)
        assert e.scrape(deadline=0.2) is True       # cut off: the first scraper's run is in flight
        assert slow.calls == 1
        assert samples(e.families(frozenset({"hanging"})))[("aix_exporter_collector_success",
                                                            (("collector", "hanging"),))] == 0
        slow.release.set()
        first.join(5)
        e.scrape(deadline=2)                         # a new run, after the first one ended
        assert slow.calls == 2
        assert samples(e.families())[("aix_late_value", ())] == 1
    finally:
        slow.release.set()
        e.stop()


def test_which_sources_read_concurrently():
    from aix_exporter.sources.replay import ReplaySource
    from aix_exporter.sources.simulate import SimulatedSource
    from aix_exporter.sources.ssh import SshSource
    from aix_exporter.sources.system import SystemSource
    assert (ReplaySource.concurrent_reads, SimulatedSource.concurrent_reads) == (False, False)
    assert (SystemSource.concurrent_reads, SshSource.concurrent_reads) == (True, True)


class CountedSlow(Slow):
    runs = 0

    def period(self):
        return 0.05

    def collect(self, source):
        type(self).runs += 1
        return super().collect(source)


@pytest.mark.parametrize("paced", [True, False])
def test_a_paced_targets_background_runs_once_before_each_scrape(monkeypatch, paced):
    """Issue 57, item 8: a /probe target's background collectors (vmstat, iostat, the splat
    report) ran back to back, six to twelve times between two probes a minute apart; paced, they
    run once before each expected scrape, and their result is fresh at it."""
    from aix_exporter import exporter as ex_module
    monkeypatch.setattr(ex_module, "PACE_MARGIN", 0.2)

    class Counted(CountedSlow):
        runs = 0

    ex = Exporter(FakeSource(), [Good(SETTINGS), Counted(SETTINGS)], paced=paced)
    ex.start_background()
    try:
        for _ in range(3):            # scrapes 0.6 s apart: the pace is learnt
            ex.scrape(1.0)
            time.sleep(0.6)
        before = Counted.runs
        for _ in range(4):
            ex.scrape(1.0)
            assert ex.current()["slow"], "a background result not fresh at its scrape"
            time.sleep(0.6)
        during = Counted.runs - before
    finally:
        ex.stop()
    if paced:
        assert 2 <= during <= 6, during   # once an interval (4 intervals), give or take one at each end
    else:
        assert during >= 20, during       # back to back, every 0.05 s


@pytest.mark.parametrize("served, last, now, then", [
    (None, 2.0, 2.2, 2.6),      # no run yet: the scrape after the last
    (2.4, 1.8, 2.2, 3.0),       # on time: the run at 2.2 was for 2.4; the next is for 3.0
    (2.4, 2.0, 2.2, 3.2),       # the 2.4 scrape came early at 2.0: still one run for it, the next for 3.2 (not 2.6)
    (2.4, 2.7, 2.9, 3.3),       # a scrape late at 2.7: the next run for the one after it
    (None, 2.0, 2.5, 3.2),      # no time left before 2.6 (0.2 s margin): for the one after it
])
def test_a_paced_run_is_for_a_scrape_half_an_interval_past_the_last_one_it_was_for(monkeypatch, served, last, now,
                                                                                 then):
    """Scrapes that jitter (a loaded Prometheus, or test machine): a scrape that came before the
    run planned for it has been served; the next run is for a scrape at least half an interval
    after the one the last run was for, not one now and another before the next scrape (7 runs
    in 4 intervals were seen on a loaded machine). Cadence 0.6 s, margin 0.2 s, a run of 0 s."""
    from aix_exporter import exporter as ex_module
    monkeypatch.setattr(ex_module, "PACE_MARGIN", 0.2)
    ex = Exporter(FakeSource(), [Good(SETTINGS)], paced=True)
    ex._scrapes = [last - 1.8, last - 1.2, last - 0.6, last]
    wait, target = ex._until_ready_for_next_scrape(0.0, served, now=now)
    assert (round(wait, 6), round(target, 6)) == (round(then - 0.2 - now, 6), then)


def test_a_failure_is_said_once_until_it_changes_or_the_collector_recovers(caplog):
    """A collector failing the same way at every scrape (the TSM server down, the simulator's
    collectors run on each scrape) logs one line, not one a run: a stream of them filled a
    pipe that nobody read and stopped the exporter. A new error, and the recovery, are said."""
    import logging
    errors = [SourceError("down"), SourceError("down"), SourceError("refused"), None, SourceError("down")]

    class Flaky(Collector):
        name = "flaky"
        keys = ("vmstat",)

        def collect(self, source):
            e = errors.pop(0)
            if e:
                raise e
            return []

    e = Exporter(FakeSource(), [Flaky(SETTINGS)])
    with caplog.at_level(logging.INFO, logger="aix_exporter"):
        for _ in range(5):
            e.collect_all()
    said = [(r.levelname, r.getMessage().split(" command=")[0], r.getMessage().split("error=")[-1])
            for r in caplog.records if "collector=flaky" in r.getMessage()]
    assert said == [("ERROR", "msg=collection failed collector=flaky", "source error: down"),
                    ("ERROR", "msg=collection failed collector=flaky", "source error: refused"),
                    ("INFO", "msg=collection recovered collector=flaky", "msg=collection recovered collector=flaky command='vmstat'"),
                    ("ERROR", "msg=collection failed collector=flaky", "source error: down")]
    assert [e.results["flaky"].success] == [False]
