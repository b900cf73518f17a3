"""The report's comparison at unit level, against a stand-in Prometheus that answers each query
from a table: the ratio and verdict of a figure from both sides of the 5 % band, the verdict
sentences of the whole report, the windows --auto finds, the share of a window with data, each
check that keeps a window's figure from being judged, and the times a user types. Expected
values are written by hand from the inputs."""
import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from aix_exporter import promapi
from aix_exporter.figures import FIGURES
from aix_exporter.report import compare as c
from tests.lib.checks import local_zone

SEL = 'job=~"aix.*",instance="tsmsrv01:10990"'
FIG = {f.key: f for f in FIGURES}


def row(key, before, after, problems=((), ())):
    return c.FigureRow(FIG[key], before, after, tuple(c.Check(1.0, list(p)) for p in problems))


# ---------------------------------------------------------------- one figure: ratio and verdict

def test_a_ratio_exactly_at_the_band_edge_has_moved(monkeypatch):
    # 0.05 has no exact double: the edge is pinned with a band that has (a quarter), the
    # same rule as the summary sentences, which count a figure as moved at abs(r - 1) >= band
    monkeypatch.setattr(c, "SAME_BAND", 0.25)
    assert row("tape", 100.0, 125.0).ratio == 1.25 and row("tape", 100.0, 125.0).verdict == "better"
    assert row("tape", 100.0, 75.0).verdict == "worse"
    assert row("tape", 100.0, 124.0).verdict == "same" and row("tape", 100.0, 76.0).verdict == "same"


def test_a_comparison_shows_its_times_in_utc_unless_given_a_zone():
    with local_zone("Asia/Tokyo"):              # a local zone that is not UTC
        cmp = c.Comparison("a", c.Window(0.0, 3600.0), c.Window(7200.0, 10800.0), [])
        assert cmp.window(cmp.before) == "1970-01-01 00:00 UTC .. 1970-01-01 01:00 UTC"
        assert cmp.at(10800.0) == "1970-01-01 03:00 UTC"
        cmp.tz = None                           # None: the local zone
        assert cmp.at(10800.0) == "1970-01-01 12:00 JST"


def test_ratio_and_its_text():
    assert row("tape", 139.0, 378.0).ratio_text == "2.72"
    assert row("tape", 200.0, 100.0).ratio == 0.5
    assert row("tape", None, 100.0).ratio is None and row("tape", None, 100.0).ratio_text == "n/a"
    assert row("tape", 100.0, None).ratio is None and row("tape", 100.0, None).ratio_text == "n/a"
    assert row("tape", 0.0, 5.0).ratio is None and row("tape", 0.0, 5.0).ratio_text == "new"
    assert row("tape", 0.0, 0.0).ratio_text == "-"


@pytest.mark.parametrize("key,before,after,verdict", [
    ("tape", 100.0, 104.0, "same"), ("tape", 100.0, 106.0, "better"), ("tape", 100.0, 94.0, "worse"),
    ("tape", 100.0, 96.0, "same"),
    ("sys_per_user", 1.0, 0.94, "better"), ("sys_per_user", 1.0, 1.06, "worse"), ("sys_per_user", 1.0, 0.96, "same"),
    ("pin_miss", 0.25, 0.01, "better"), ("pin_miss", 0.0, 0.01, ""),
    ("sys", 40.0, 15.0, ""), ("transfers", 10.0, 20.0, ""),     # shown, not judged
])
def test_verdict_from_both_sides_of_the_band(key, before, after, verdict):
    assert row(key, before, after).verdict == verdict


def test_a_problem_in_either_window_keeps_the_figure_from_being_judged():
    r = row("tape", 100.0, 200.0, (["counter reset"], []))
    assert (r.verdict, r.judged, r.problems) == ("not judged", False, ["before: counter reset"])
    r = row("tape", 100.0, 200.0, (["a"], ["b", "c"]))
    assert r.problems == ["before: a", "after: b", "after: c"]
    assert row("tape", 100.0, 200.0).judged is True
    assert row("sys", 40.0, 15.0).judged is False             # does not decide
    assert row("tape", None, 200.0).judged is False


def test_values_are_shown_with_the_figures_digits_and_thousands():
    assert row("tape", 1234.56, 1.0).fmt(1234.56) == "1,234.6"           # 1 digit
    assert row("sys_per_user", 1, 1).fmt(4.0) == "4.00"                  # 2 digits
    assert row("pin_miss", 1, 1).fmt(0.25) == "0.2500"                   # 4 digits
    assert row("transfers", 1, 1).fmt(1234.4) == "1,234"                 # 0 digits
    assert row("tape", 1, 1).fmt(None) == "n/a"


# ---------------------------------------------------------------- the report's verdict sentences

def comparison(values, problems=None, usable=None):
    """A Comparison with every figure; values: key -> (before, after), the others n/a."""
    rows = []
    for f in FIGURES:
        b, a = values.get(f.key, (None, None))
        p = (problems or {}).get(f.key, ((), ()))
        u = (usable or {}).get(f.key, (1.0, 1.0))
        rows.append(c.FigureRow(f, b, a, (c.Check(u[0], list(p[0])), c.Check(u[1], list(p[1])))))
    return c.Comparison("tsmsrv01:10990", c.Window(0, 3600), c.Window(7200, 10800), rows)


CASE_STUDY = {"tape": (139.0, 378.0), "sys_per_user": (4.0, 0.5), "pin_miss": (0.25, 0.01),
              "user": (10.0, 30.0), "sys": (40.0, 15.0)}


def test_the_case_study_reads_as_a_change_that_helped():
    assert comparison(CASE_STUDY).verdict() == (
        "Tape throughput went from 139.0 to 378.0 MiB/s (2.72x). "
        "System CPU per user CPU went from 4.00 to 0.50: the kernel spends less time per unit of application work. "
        "The pin_seg_range lock missed 25.0% of its acquisitions before and 1.0% after. "
        "Every deciding figure that moved improved: the change helped. "
        "System CPU went from 40.0 % to 15.0 % and user CPU from 10.0 % to 30.0 %: "
        "more of the CPU is the application's own work.")


def test_the_case_study_backwards_reads_as_a_change_that_did_not_help():
    back = {k: (a, b) for k, (b, a) in CASE_STUDY.items()}
    assert comparison(back).verdict() == (
        "Tape throughput went from 378.0 to 139.0 MiB/s (0.37x). "
        "System CPU per user CPU went from 0.50 to 4.00: the kernel spends more time per unit of application work. "
        "The pin_seg_range lock missed 1.0% of its acquisitions before and 25.0% after. "
        "Worse: Tape throughput, read + written, System / user CPU, pin_seg_range lock miss ratio. "
        "The change did not help. "
        "System CPU went from 15.0 % to 40.0 % and user CPU from 30.0 % to 10.0 %: the kernel's share of the CPU grew.")


def test_mixed_same_and_unjudged_verdicts():
    mixed = comparison({"tape": (100.0, 200.0), "pin_miss": (0.01, 0.02)})
    assert mixed.verdict() == ("Tape throughput went from 100.0 to 200.0 MiB/s (2.00x). "
                               "The pin_seg_range lock missed 1.0% of its acquisitions before and 2.0% after. "
                               "Better: Tape throughput, read + written. Worse: pin_seg_range lock miss ratio. "
                               "Judged on Tape throughput, read + written and pin_seg_range lock miss ratio only: "
                               "System / user CPU has no data in these windows.")
    same = comparison({"tape": (100.0, 103.0)})
    assert same.verdict() == ("Tape throughput went from 100.0 to 103.0 MiB/s (1.03x). "
                              "No deciding figure moved by more than 5%. "
                              "Judged on Tape throughput, read + written only: System / user CPU and pin_seg_range "
                              "lock miss ratio have no data in these windows.")
    assert comparison({}).verdict() == "No deciding figure can be judged from this data."


def test_figures_the_data_cannot_support_are_named_with_their_reasons():
    cmp = comparison({"tape": (100.0, 200.0), "pin_miss": (0.25, 0.01)},
                     problems={"tape": (["counter x reset 1 time"], ["only 50% of the window has data"])})
    assert cmp.verdict() == (
        "The pin_seg_range lock missed 25.0% of its acquisitions before and 1.0% after. "
        "Every deciding figure that moved improved: the change helped. "
        "Judged on pin_seg_range lock miss ratio only: System / user CPU has no data in these windows. "
        "Not judged, the data cannot support it: Tape throughput, read + written "
        "(before: counter x reset 1 time, after: only 50% of the window has data).")


def test_two_figures_the_data_cannot_support_are_named_apart():
    cmp = comparison({"tape": (100.0, 200.0), "pin_miss": (0.25, 0.01), "sys_per_user": (4.0, 0.5)},
                     problems={"tape": (["a"], []), "sys_per_user": ([], ["b"])})
    assert cmp.verdict().endswith("Not judged, the data cannot support it: Tape throughput, read + written "
                                  "(before: a); System / user CPU (after: b).")


def test_cpu_and_context_sentences_exactly_at_the_band_edge(monkeypatch):
    # at abs(r - 1) == band a figure has moved; the band is a quarter here, which a double holds exactly
    monkeypatch.setattr(c, "SAME_BAND", 0.25)
    assert comparison({"user": (10.0, 10.0), "sys": (20.0, 25.0), "transfers": (100.0, 125.0)}).verdict() == (
        "No deciding figure can be judged from this data. "
        "System CPU went from 20.0 % to 25.0 % and user CPU from 10.0 % to 10.0 %: the kernel's share of the CPU grew. "
        "Shown, not judged, as their direction depends on the workload: Tape transfers 100 to 125 /s.")
    assert comparison({"user": (10.0, 10.0), "sys": (20.0, 24.0), "transfers": (100.0, 124.0)}).verdict() == \
        "No deciding figure can be judged from this data."


def test_cpu_and_context_sentences_from_both_sides_of_the_band():
    # system CPU moved by exactly 5 %: said; by 4 %: not
    assert comparison({"user": (10.0, 10.0), "sys": (20.0, 21.0)}).verdict() == (
        "No deciding figure can be judged from this data. "
        "System CPU went from 20.0 % to 21.0 % and user CPU from 10.0 % to 10.0 %: the kernel's share of the CPU grew.")
    assert comparison({"user": (10.0, 10.0), "sys": (25.0, 26.0)}).verdict() == \
        "No deciding figure can be judged from this data."
    # figures with a direction that do not decide are shown with their unit when they moved 5 % or more
    assert comparison({"transfers": (100.0, 200.0), "wait": (2.0, 2.05), "cpu_per_gib": (4.0, 2.0),
                       "mem_4k": (10.0, 2.0)}).verdict() == (
        "No deciding figure can be judged from this data. "
        "Shown, not judged, as their direction depends on the workload: Tape transfers 100 to 200 /s, "
        "Physical CPU seconds (physc) per GiB moved to tape 4.000 to 2.000 s/GiB.")
    # system CPU already said is not shown again among them
    said = comparison({"user": (10.0, 30.0), "sys": (40.0, 15.0), "wait": (1.0, 2.0)}).verdict()
    assert said.endswith("more of the CPU is the application's own work. "
                         "Shown, not judged, as their direction depends on the workload: I/O wait 1.0 to 2.0 %.")


def test_the_usable_share_is_the_least_of_the_deciding_figures():
    cmp = comparison({}, usable={"tape": (0.9, 0.99), "pin_miss": (0.97, 0.5), "sys": (0.1, 0.1)})
    assert (cmp.usable(0), cmp.usable(1)) == (0.9, 0.5)
    cmp = comparison({}, usable={f.key: (None, None) for f in FIGURES})
    assert (cmp.usable(0), cmp.usable(1)) == (None, None)


def test_zone_names_and_windows_as_printed():
    cmp = comparison({})
    cmp.tz = ZoneInfo("Europe/Berlin")
    assert cmp.zone_name == "Europe/Berlin"
    assert cmp.window(cmp.before) == "1970-01-01 01:00 CET .. 1970-01-01 02:00 CET"
    assert cmp.at(1_700_000_000) == "2023-11-14 23:13 CET"
    cmp.tz = dt.timezone.utc
    assert cmp.zone_name == "UTC"
    assert c.Window(0, 3600).label() == "1970-01-01 00:00 UTC .. 1970-01-01 01:00 UTC"
    assert c.utc(1_700_000_000) == "2023-11-14 22:13 UTC"
    assert cmp.row("pin_miss").figure.key == "pin_miss"


def test_a_window_is_at_least_a_minute_and_whole_seconds():
    assert c.Window(0, 30).seconds == 60
    assert c.Window(0, 60).seconds == 60
    assert c.Window(0, 90.9).seconds == 90
    assert c.Window(100, 3700).seconds == 3600


# ---------------------------------------------------------------- the times a user types

def test_times_typed_as_unix_times_or_iso_in_the_zone_given():
    assert c.parse_time("1700000000") == 1_700_000_000.0
    assert c.parse_time(" 1700000000.5 ") == 1_700_000_000.5
    assert c.parse_time("2023-11-14T22:13:20") == 1_700_000_000.0                # UTC by default
    assert c.parse_time("2023-11-14T22:13:20Z") == 1_700_000_000.0
    assert c.parse_time("2023-11-14 23:13:20+01:00") == 1_700_000_000.0
    assert c.parse_time("2023-11-14T23:13:20", ZoneInfo("Europe/Berlin")) == 1_700_000_000.0
    assert c.parse_time("2023-11-14T23:13:20+00:00", ZoneInfo("Europe/Berlin")) == 1_700_000_000.0 + 3600
    with pytest.raises(c.ReportError) as e:
        c.parse_time("yesterday")
    assert str(e.value) == ("'yesterday': not a date-time (2026-11-20T08:00, 2026-11-20 08:00+01:00) "
                            "or a Unix time")


def test_windows_typed_from_to():
    w = c.parse_window("1700000000..1700003600")
    assert (w.start, w.end) == (1_700_000_000.0, 1_700_003_600.0)
    w = c.parse_window("2023-11-14T23:00..2023-11-15T01:00", ZoneInfo("Europe/Berlin"))
    assert (w.start, w.end) == (1_699_999_200.0, 1_700_006_400.0)
    for text, why in [("1700000000", "expected FROM..TO"), ("1700003600..1700000000", "its end is not after its start"),
                      ("1700000000..1700000000", "its end is not after its start")]:
        with pytest.raises(c.ReportError) as e:
            c.parse_window(text)
        assert str(e.value) == f"window {text!r}: {why}"
    # a third end is not a window: the second end is read whole, and refused as a time
    with pytest.raises(c.ReportError) as e:
        c.parse_window("1700000000..1700003600..1700007200")
    assert str(e.value) == ("'1700003600..1700007200': not a date-time (2026-11-20T08:00, 2026-11-20 08:00+01:00) "
                            "or a Unix time")


def test_time_zones_by_name():
    assert c.zone(None) is None and c.zone("") is None and c.zone("local") is None
    assert c.zone("UTC") is dt.timezone.utc and c.zone("utc") is dt.timezone.utc
    assert c.zone("Europe/Berlin") == ZoneInfo("Europe/Berlin")
    with pytest.raises(c.ReportError) as e:
        c.zone("Mars/Olympus_Mons")
    assert str(e.value) == "--tz 'Mars/Olympus_Mons': not a time zone name (Europe/Berlin, America/Chicago, UTC)"


# ---------------------------------------------------------------- a stand-in Prometheus

class Fake:
    """Answers scalar queries by the first (text, value) whose text is in the query (value may
    be a function of the query's time), sample_times with ``times``, range queries with
    ``ranges`` (a function of the query); records every query."""

    def __init__(self, scalars=(), times=None, ranges=None, instances=("tsmsrv01:10990",), instants=None):
        self.scalars, self.times, self.ranges, self.instances = list(scalars), times, ranges, instances
        self.instants = instants
        self.asked: list = []

    def label_values(self, label, match, start, end):
        """The instances of the AIX series: those of ``instances`` that ``match`` names, or all."""
        self.asked.append(("labels", label, match, start, end))
        return [i for i in self.instances if f'instance="{i}"' in match or "instance=" not in match]

    def scalar(self, expr, at):
        self.asked.append(("scalar", expr, at))
        for text, value in self.scalars:
            if text in expr:
                return value(at) if callable(value) else value
        return None

    def instant(self, expr, at):
        """The comparability's queries (report/comparability.py): no answer unless ``instants``
        (a function of the query) gives one."""
        self.asked.append(("instant", expr, at))
        return self.instants(expr, at) if self.instants else []

    def sample_times(self, expr, length, at):
        self.asked.append(("times", expr, length, at))
        return self.times(expr, length, at) if callable(self.times) else (self.times or [])

    def range(self, expr, start, end, step):
        self.asked.append(("range", expr, start, end, step))
        return self.ranges(expr, start, end, step) if self.ranges else []


PAGE = {0: 4096, 1: 16777216, 64: 65536}   # the runs' regimes: 0 4 KB, 1 16 MB, 64 64 KB pages


def regimes(runs, step=60):
    """A range answer of aix:regime_page_size:bytes from [(regime, first t, last t)]."""
    def answer(expr, start, end, s):
        assert s == 60
        values = [[t, str(PAGE[v])] for v, a, b in runs for t in range(a, b + 1, step)]
        return [{"metric": {"instance": "tsmsrv01:10990"}, "values": values}] if values else []
    return answer


def test_auto_finds_the_last_4k_run_before_the_last_16m_run_trimmed_by_the_margin():
    fake = Fake(ranges=regimes([(0, 0, 7200), (1, 7260, 14400)]))
    before, after, change, names = c.find_regimes(fake, "tsmsrv01:10990", 0, 14400, 600)
    assert fake.asked == [("range", 'aix:regime_page_size:bytes{job=~"aix.*",instance="tsmsrv01:10990"}', 0, 14400,
                           60)]
    assert (before.start, before.end, after.start, after.end, change) == (600, 6600, 7860, 13800, 7200)
    assert names == ("4 KB", "16 MB")


@pytest.mark.parametrize("first,second,names", [
    (64, 1, ("64 KB", "16 MB")), (0, 64, ("4 KB", "64 KB")), (1, 64, ("16 MB", "64 KB")), (1, 0, ("16 MB", "4 KB")),
    (64, 0, ("64 KB", "4 KB"))])
def test_auto_finds_a_change_between_any_two_regimes(first, second, names):
    fake = Fake(ranges=regimes([(first, 0, 7200), (second, 7260, 14400)]))
    before, after, change, found = c.find_regimes(fake, "tsmsrv01:10990", 0, 14400, 600)
    assert (before.start, before.end, after.start, after.end, change, found) == (600, 6600, 7860, 13800, 7200, names)


def test_auto_compares_the_last_two_runs_of_three_regimes():
    runs = [(0, 0, 3600), (64, 3660, 7200), (1, 7260, 14400)]
    before, after, change, names = c.find_regimes(Fake(ranges=regimes(runs)), "tsmsrv01:10990", 0, 14400, 600)
    assert (before.start, before.end, after.start, after.end, change, names) == (
        4260, 6600, 7860, 13800, 7200, ("64 KB", "16 MB"))


def test_auto_takes_the_last_change_and_bridges_gaps():
    runs = [(1, 0, 3600), (0, 3660, 7200), (1, 7260, 10800), (0, 10860, 14400), (1, 14460, 18000),
            (1, 25200, 28800)]        # 16 MB pages again after a two-hour gap: one run
    before, after, change, names = c.find_regimes(Fake(ranges=regimes(runs)), "tsmsrv01:10990", 0, 28800, 600)
    assert (before.start, before.end, after.start, after.end, change) == (11460, 13800, 15060, 28200, 14400)
    assert names == ("4 KB", "16 MB")


def test_a_short_16m_run_is_kept_whole():
    runs = [(0, 0, 7200), (1, 7260, 9000)]                              # 1,740 s: less than 3 margins
    before, after, _, _ = c.find_regimes(Fake(ranges=regimes(runs)), "tsmsrv01:10990", 0, 9000, 600)
    assert (before.start, before.end, after.start, after.end) == (600, 6600, 7260, 9000)


def test_runs_at_unix_times_are_trimmed_by_their_length():
    t0 = 1_800_000_000
    runs = [(0, t0, t0 + 1740), (1, t0 + 1800, t0 + 9000)]            # a short 4 KB run: kept whole
    before, after, _, _ = c.find_regimes(Fake(ranges=regimes(runs)), "tsmsrv01:10990", t0, t0 + 9000, 600)
    assert (before.start, before.end, after.start, after.end) == (t0, t0 + 1740, t0 + 2400, t0 + 8400)


def test_auto_trims_only_runs_longer_than_three_margins():
    # the 4 KB run is exactly 3 margins long (kept whole), the 16 MB run a minute longer (trimmed)
    runs = [(0, 0, 1800), (1, 1860, 3720)]
    before, after, _, _ = c.find_regimes(Fake(ranges=regimes(runs)), "tsmsrv01:10990", 0, 3720, 600)
    assert (before.start, before.end) == (0, 1800)
    assert (after.start, after.end) == (2460, 3120)
    # and the other way round: the 16 MB run exactly 3 margins long is kept whole
    runs = [(0, 0, 1860), (1, 1920, 3720)]
    before, after, _, _ = c.find_regimes(Fake(ranges=regimes(runs)), "tsmsrv01:10990", 0, 3720, 600)
    assert (before.start, before.end) == (600, 1260)
    assert (after.start, after.end) == (1920, 3720)


@pytest.mark.parametrize("runs,why", [
    ([], "no aix:regime_page_size:bytes for instance 'tsmsrv01:10990' between the given times: are the recording "
         "rules loaded and backfilled?"),
    ([(1, 0, 3600)], "no change of page-size regime found for 'tsmsrv01:10990' (only 16 MB pages); give --before "
                     "and --after"),
    ([(0, 0, 3600)], "no change of page-size regime found for 'tsmsrv01:10990' (only 4 KB pages); give --before "
                     "and --after"),
    ([(64, 0, 3600), (64, 5400, 7200)], "no change of page-size regime found for 'tsmsrv01:10990' (only 64 KB "
                                        "pages); give --before and --after"),
])
def test_auto_without_a_change_says_so(runs, why):
    with pytest.raises(c.ReportError) as e:
        c.find_regimes(Fake(ranges=regimes(runs)), "tsmsrv01:10990", 0, 7200, 600)
    assert str(e.value) == why


@pytest.mark.parametrize("instances,why", [
    (("tsmsrv01:10990", "tsmsrv02:10990"), "no instance 'tsm01:10990' among the AIX series (job=~\"aix.*\") between "
                                           "the given times; the instances there: tsmsrv01:10990, tsmsrv02:10990"),
    (tuple(f"lpar{i:02}:10990" for i in range(10)), "no instance 'tsm01:10990' among the AIX series (job=~\"aix.*\") "
     "between the given times; the instances there: lpar00:10990, lpar01:10990, lpar02:10990, lpar03:10990, "
     "lpar04:10990, lpar05:10990, lpar06:10990, lpar07:10990 and 2 more"),
    ((), "no instance 'tsm01:10990' among the AIX series (job=~\"aix.*\") between the given times; there are none: "
         "is the exporter scraped?"),
])
def test_a_mistyped_instance_is_said_with_the_instances_there(instances, why):
    """Issue 46: a mistyped --instance got "are the recording rules loaded and backfilled?"."""
    with pytest.raises(c.ReportError) as e:
        c.find_regimes(Fake(instances=instances), "tsm01:10990", 0, 7200, 600, 'job=~"aix.*"')
    assert str(e.value) == why


# ---------------------------------------------------------------- the share of a window with data

def test_coverage_of_a_window():
    every_minute = list(range(0, 3601, 60))
    assert c.coverage(every_minute, 0, 3600) == 1.0
    assert c.coverage([], 0, 3600) == 0.0
    assert c.coverage([1800], 0, 3600) == 1.0                       # one sample: no spacing to judge by
    gap = list(range(0, 1201, 60)) + list(range(2400, 3601, 60))   # 1,200 s gap: 1,140 s beyond the usual 60
    assert c.coverage(gap, 0, 3600) == 1 - 1140 / 3600
    assert c.coverage(list(range(600, 3601, 60)), 0, 3600) == 1 - 540 / 3600    # an empty head
    assert c.coverage(list(range(0, 3001, 60)), 0, 3600) == 1 - 540 / 3600      # an empty tail
    # a gap of exactly 3 spacings is not a gap, a second more is
    assert c.coverage([0, 60, 120, 300, 360], 0, 360) == 1.0
    assert c.coverage([0, 60, 120, 301, 361], 0, 361) == 1 - 121 / 361
    assert c.coverage(list(range(180, 3601, 60)), 0, 3600) == 1.0             # head of exactly 3 spacings
    assert c.coverage(list(range(181, 3601, 60)), 0, 3600) == pytest.approx(1 - 121 / 3600)
    assert c.coverage([0, 3600], 0, 3600) == 1.0                               # the spacing is the usual one
    assert c.coverage([0, 10, 20, 3600], 0, 3600) == 1 - 3570 / 3600           # the median spacing rules
    # an empty head and an empty tail both count
    assert c.coverage(list(range(600, 3001, 60)), 0, 3600) == 1 - 1080 / 3600


def test_coverage_of_a_window_shorter_than_two_seconds():
    # a 1.5 s window sampled 3 times in its first 0.2 s: 1.2 s missing of 1.5 (the floor is 1 s, not more)
    assert c.coverage([0, 0.1, 0.2], 0, 1.5) == pytest.approx(1 - 1.2 / 1.5)


def test_coverage_of_a_window_at_real_times():
    t0 = 1_800_000_000          # a window is Unix times: only its length counts
    assert c.coverage(list(range(t0, t0 + 3601, 60)), t0, t0 + 3600) == 1.0
    gap = list(range(t0, t0 + 1201, 60)) + list(range(t0 + 2400, t0 + 3601, 60))
    assert c.coverage(gap, t0, t0 + 3600) == 1 - 1140 / 3600
    assert c.coverage(list(range(t0 + 600, t0 + 3001, 60)), t0, t0 + 3600) == 1 - 1080 / 3600
    # spacings 10, 20, 30, 3540: the usual one is the middle of the sorted four's upper half (30)
    assert c.coverage([0, 10, 30, 60, 3600], 0, 3600) == 1 - 3510 / 3600


# ---------------------------------------------------------------- the checks of a window

def part(key):
    return next(p for f in FIGURES for p in f.parts if p.part == key)


W = c.Window(0, 3600)
DENSE = list(range(0, 3601, 60))


def test_a_clean_window_has_no_problems_and_its_queries_are_the_parts():
    fake = Fake([("sum_over_time", 1.0), ("resets", 0.0), ("max_over_time((sum", 1.0e8)], times=DENSE)
    check = c.check_part(fake, part("tape_bytes"), SEL, W)
    assert (check.usable, check.problems) == (1.0, [])
    assert fake.asked == [
        ("times", f"aix_tape_written_bytes_total{{{SEL}}}", 3600, 3600),
        ("scalar", f"sum(resets(aix_tape_read_bytes_total{{{SEL}}}[3600s] @ 3600))", 3600),
        ("scalar", f"sum(resets(aix_tape_written_bytes_total{{{SEL}}}[3600s] @ 3600))", 3600),
        ("scalar", f"sum(sum_over_time(aix_exporter_collector_success{{{SEL},collector=\"tape\"}}[3600s] @ 3600)) / "
                   f"sum(count_over_time(aix_exporter_collector_success{{{SEL},collector=\"tape\"}}[3600s] @ 3600))",
         3600),
        ("scalar", f"max(max_over_time((sum by (instance, job, device) (rate(aix_tape_read_bytes_total{{{SEL}}}[5m])) "
                   f"+ sum by (instance, job, device) (rate(aix_tape_written_bytes_total{{{SEL}}}[5m])))"
                   f"[3600s:1m] @ 3600))", 3600),
    ]


def test_no_samples_is_no_data_not_a_problem():
    fake = Fake(times=[])
    assert c.check_part(fake, part("cpu"), SEL, W) == c.Check(None, [])
    assert len(fake.asked) == 1


def test_counter_resets_are_named_with_their_count():
    fake = Fake([("resets(aix_tape_read", 1.0), ("resets(aix_tape_written", 3.0), ("sum_over_time", 1.0)],
                times=DENSE)
    assert c.check_part(fake, part("tape_bytes"), SEL, W).problems == [
        "counter aix_tape_read_bytes_total reset 1 time", "counter aix_tape_written_bytes_total reset 3 times"]


def test_failing_collections_are_named_and_lower_the_usable_share():
    fake = Fake([("sum_over_time", 0.9)], times=DENSE)
    check = c.check_part(fake, part("memory"), SEL, W)
    assert check.usable == pytest.approx(0.1 * 9)
    assert check.problems == ["collector memory failed in 10.0% of its collections",
                              "only 90% of the window has data (gaps or failing collections)"]
    # exactly the least usable share is usable; imported history has no self-metrics at all
    fake = Fake([("sum_over_time", 0.95)], times=DENSE)
    assert c.check_part(fake, part("memory"), SEL, W).problems == ["collector memory failed in 5.0% of its collections"]
    assert c.check_part(Fake(times=DENSE), part("memory"), SEL, W) == c.Check(1.0, [])


def test_gaps_below_the_least_usable_share_are_a_problem():
    # 95 % of the hour has data: judged; 94 %: not
    at95 = list(range(0, 1801, 60)) + list(range(1800 + 60 + 180, 3601, 60))   # 240 s gap: 180 s missing
    assert c.check_part(Fake(times=at95), part("memory"), SEL, W).problems == []
    at94 = list(range(0, 1801, 60)) + list(range(1800 + 60 + 216, 3601, 60))
    check = c.check_part(Fake(times=at94), part("memory"), SEL, W)
    assert check.problems == ["only 94% of the window has data (gaps or failing collections)"]


@pytest.mark.parametrize("lo,hi,problem", [
    (0.0, 1.0, None), (-0.01, 0.5, "values outside 0..1 (-0.01 to 0.5): not physical"),
    (0.1, 1.01, "values outside 0..1 (0.1 to 1.01): not physical"), (None, None, None),
])
def test_values_outside_physical_bounds(lo, hi, problem):
    fake = Fake([("min(min_over_time", lo), ("max(max_over_time", hi)], times=DENSE)
    assert c.check_part(fake, part("cpu"), SEL, W).problems == ([problem] if problem else [])
    assert [q[1] for q in fake.asked if q[0] == "scalar" and "_over_time(aix_vmstat" in q[1]] == [
        f"min(min_over_time(aix_vmstat_cpu_ratio{{{SEL}}}[3600s] @ 3600))",
        f"max(max_over_time(aix_vmstat_cpu_ratio{{{SEL}}}[3600s] @ 3600))"]


def test_a_lower_bound_only():
    fake = Fake([("min(min_over_time", -1.0), ("max(max_over_time", 5e9)], times=DENSE)
    assert c.check_part(fake, part("memory"), SEL, W).problems == ["values outside 0.. (-1 to 5e+09): not physical"]
    fake = Fake([("min(min_over_time", 0.0), ("max(max_over_time", 5e9)], times=DENSE)
    assert c.check_part(fake, part("memory"), SEL, W).problems == []


def test_a_drive_faster_than_any_drive_is_not_physical():
    fast = Fake([("max_over_time((sum", 1.3e9)], times=DENSE)
    assert c.check_part(fast, part("tape_bytes"), SEL, W).problems == [
        "a drive's bytes per second reached 1,300 MB/s, more than a drive can move (1,250 MB/s): not physical"]
    at_limit = Fake([("max_over_time((sum", 1.25e9)], times=DENSE)
    assert c.check_part(at_limit, part("tape_bytes"), SEL, W).problems == []


def test_a_figures_parts_combine_to_their_least_share_and_every_problem_once():
    got = c._combined([c.Check(0.9, ["a", "b"]), c.Check(None, []), c.Check(0.97, ["b", "c"])])
    assert got == c.Check(0.9, ["a", "b", "c"])
    assert c._combined([c.Check(), c.Check()]) == c.Check(None, [])


# ---------------------------------------------------------------- the whole comparison

def test_compare_reads_each_figure_in_each_window_and_checks_each_part_once():
    before, after = c.Window(0, 3600), c.Window(7200, 10800)
    values = {3600: 100.0, 10800: 250.0}
    seen = []

    def times(expr, length, at):
        seen.append((expr.split("{")[0], at))
        return list(range(int(at) - length, int(at) + 1, 60))

    fake = Fake([("@ 3600", lambda at: values[at]), ("@ 10800", lambda at: values[at])], times=times,
                ranges=lambda expr, start, end, step: [
                    {"metric": {"mode": "user"}, "values": [[start, "1"], [end, "2"]]},
                    {"metric": {"what": "free"}, "values": [[start, "3"]]}, {"metric": {}, "values": []}])
    said = []
    cmp = c.compare(fake, "tsmsrv01:10990", before, after, change_at=3600, progress=said.append)
    assert [r.figure.key for r in cmp.rows] == [f.key for f in FIGURES]
    assert all((r.before, r.after) == (100.0, 250.0) for r in cmp.rows)
    # the tape figure in the first window: figures.json's part in parentheses, then its scale
    tape = [q[1] for q in fake.asked if q[0] == "scalar" and q[1].startswith("(sum by (instance, job) (rate(aix_tape_read")]
    assert tape[0] == (f"(sum by (instance, job) (rate(aix_tape_read_bytes_total{{{SEL}}}[3600s] @ 3600)) + sum by "
                       f"(instance, job) (rate(aix_tape_written_bytes_total{{{SEL}}}[3600s] @ 3600))) / 1048576")
    assert (cmp.instance, cmp.change_at, cmp.before, cmp.after) == ("tsmsrv01:10990", 3600, before, after)
    # seven parts, each checked once per window, whatever number of figures read it
    assert len(seen) == 14 and len(set(seen)) == 14
    assert said[0] == "figure 1/11: Tape throughput, read + written"
    assert said[10] == "figure 11/11: lgpg_regions (16 MB pages configured)"
    assert said[11:] == [f"series: {title}" for title, _ in c.SERIES.values()]
    # the plots span both windows at a step of at least a minute (10,800 s / 400 is 27 s)
    ranges = [q for q in fake.asked if q[0] == "range"]
    assert [q[2:] for q in ranges] == [(0, 10800, 60)] * 4
    assert ranges[0][1] == c.SERIES["tape"][1].format(sel=SEL)
    assert cmp.series["cpu"] == ("CPU %: user and system", [("user", [(0.0, 1.0), (10800.0, 2.0)]),
                                                           ("free", [(0.0, 3.0)]), ("cpu", [])])


EVERY = [("", 1.0)]   # every figure has a value in both windows


def test_the_plot_step_over_long_windows_and_no_plots_when_not_asked():
    fake = Fake(scalars=EVERY, times=[])
    c.compare(fake, "a", c.Window(0, 86400), c.Window(86400, 2 * 86400))
    assert {q[4] for q in fake.asked if q[0] == "range"} == {432}     # 172,800 s in 400 steps
    fake = Fake(scalars=EVERY, times=[])
    cmp = c.compare(fake, "a", c.Window(0, 3600), c.Window(7200, 10800), plots=False)
    assert cmp.series == {} and not [q for q in fake.asked if q[0] == "range"]
    assert all(r.checks == (c.Check(), c.Check()) for r in cmp.rows)


def test_the_plot_step_of_windows_at_unix_times():
    t0 = 1_800_000_000
    fake = Fake(scalars=EVERY, times=[])
    c.compare(fake, "a", c.Window(t0, t0 + 86400), c.Window(t0 + 86400, t0 + 2 * 86400))
    assert {q[4] for q in fake.asked if q[0] == "range"} == {432}     # 172,800 s in 400 steps, wherever they lie
    fake = Fake(scalars=EVERY, times=[])
    c.compare(fake, "a", c.Window(t0, t0 + 3600), c.Window(t0 + 7200, t0 + 10800))
    assert {q[4] for q in fake.asked if q[0] == "range"} == {60}      # never under a minute


def test_compare_reads_with_the_selector_given():
    fake = Fake(scalars=EVERY, times=[])
    c.compare(fake, "a", c.Window(0, 3600), c.Window(7200, 10800), plots=False, base='job="lpar"')
    assert all('job="lpar",instance="a"' in q[1] for q in fake.asked)


def test_the_plotted_series_queries():
    assert {k: (title, expr.format(sel="S")) for k, (title, expr) in c.SERIES.items()} == {
        "tape": ("Tape MiB/s (read + written)",
                 "(sum(rate(aix_tape_read_bytes_total{S}[5m])) + sum(rate(aix_tape_written_bytes_total{S}[5m]))) "
                 "/ 1048576"),
        "cpu": ("CPU %: user and system", 'avg by (mode) (aix_vmstat_cpu_ratio{S,mode=~"user|sys"}) * 100'),
        "pin_miss": ("pin_seg_range miss ratio",
                     'max(aix_splat_function_miss_ratio{S,function=~"\\\\.?pin_seg_range"})'),
        "pool": ("16 MB pages: configured, in use, free",
                 'label_replace(aix:large_pages_configured:count{S}, "what", "configured", "", "") '
                 'or label_replace(sum by (instance) (aix_vmstat_large_pages_active{S}), "what", "in use", "", "") '
                 'or label_replace(sum by (instance) (aix_vmstat_large_pages_free{S}), "what", "free", "", "")'),
    }


def test_system_per_user_cpu_unchanged_or_not_judged():
    same = comparison({"sys_per_user": (2.0, 2.0)}).verdict()
    assert same.startswith("System CPU per user CPU went from 2.00 to 2.00: the kernel spends the same time per "
                           "unit of application work.")
    refused = comparison({"sys_per_user": (4.0, 0.5)}, problems={"sys_per_user": (["counter reset"], [])}).verdict()
    assert "System CPU per user CPU went from" not in refused
    assert refused.endswith("Not judged, the data cannot support it: System / user CPU (before: counter reset).")


def test_system_and_user_cpu_that_moved_alike_keep_their_split():
    assert comparison({"user": (10.0, 20.0), "sys": (20.0, 40.0)}).verdict() == (
        "No deciding figure can be judged from this data. System CPU went from 20.0 % to 40.0 % and user CPU "
        "from 10.0 % to 20.0 %: their split is unchanged.")
    assert comparison({"user": (10.0, 30.0), "sys": (20.0, 40.0)}).verdict().endswith(
        "more of the CPU is the application's own work.")


def test_a_pin_miss_ratio_the_data_cannot_support_is_not_told():
    refused = comparison({"pin_miss": (0.25, 0.01)}, problems={"pin_miss": ([], ["counter reset"])}).verdict()
    assert refused == ("No deciding figure can be judged from this data. Not judged, the data cannot support it: "
                       "pin_seg_range lock miss ratio (after: counter reset).")


def test_two_better_and_one_worse_are_listed():
    cmp = comparison({"tape": (100.0, 200.0), "sys_per_user": (4.0, 1.0), "pin_miss": (0.01, 0.02)})
    assert "Better: Tape throughput, read + written, System / user CPU. Worse: pin_seg_range lock miss ratio." in \
        cmp.verdict()
    cmp = comparison({"tape": (200.0, 100.0), "sys_per_user": (1.0, 4.0), "pin_miss": (0.02, 0.01)})
    assert ("Better: pin_seg_range lock miss ratio. Worse: Tape throughput, read + written, System / user CPU."
            in cmp.verdict())


def error(body, code=502):
    """The start of an error answer's body as httpclient keeps it (None: the body is gone)."""
    return body if body is not None else b""


def test_the_servers_own_reason_from_an_error_body():
    assert promapi._server_error(error(b'{"status": "error", "error": " too many samples "}')) == "too many samples"
    assert promapi._server_error(error(b"<html>\n 502  Bad\n Gateway</html>")) == "<html> 502 Bad Gateway</html>"
    assert promapi._server_error(error(b"\xff\xfe bad bytes")) == "\ufffd\ufffd bad bytes"
    assert promapi._server_error(error(None)) == ""                               # the body is gone
    assert promapi._server_error(error(b"x" * 400)) == "x" * 300
    # at most 4 KiB of it is read: a JSON answer one byte longer is no JSON
    pad = 4097 - len(b'{"error": "e", "pad": ""}')
    body = b'{"error": "e", "pad": "' + b"p" * pad + b'"}'
    assert len(body) == 4097 and promapi._server_error(error(body)) == body[:300].decode()
    body = body[:-2 - 1] + b'"}'
    assert len(body) == 4096 and promapi._server_error(error(body)) == "e"


def test_an_answer_is_256_mib_at_most():
    assert c.Prometheus.MAX_BODY == 256 << 20


@pytest.mark.parametrize("which", ["before", "after"])
def test_a_window_without_any_figure_is_an_error_not_a_report_of_dashes(which):
    """Issue 46: windows outside the history made a report of dashes, exit 0."""
    t = {"before": lambda at: None if at <= 3600 else 1.0, "after": lambda at: None if at > 3600 else 1.0}[which]
    with pytest.raises(c.ReportError) as e:
        c.compare(Fake(scalars=[("", t)]), "a", c.Window(0, 3600), c.Window(7200, 10800), plots=False)
    span = "0..3600" if which == "before" else "7200..10800"
    assert str(e.value) == (f"no data for instance 'a' in the {which} window ({span}, Unix times): is the window in "
                            "the history Prometheus keeps, and the instance spelled as it has it?")
    # one figure is enough for a report
    one = [("aix_tape", 5.0)]
    assert c.compare(Fake(scalars=one), "a", c.Window(0, 3600), c.Window(7200, 10800), plots=False).rows[0].after == 5.0


def test_a_verdict_on_nmon_history_says_what_it_judged_and_what_it_could_not():
    """Issue 58, item 3: nmon records neither tape nor pin-lock misses; the verdict said "the
    change helped" on System / user CPU alone without saying so."""
    nmon = comparison({"sys_per_user": (4.0, 0.5)})
    assert nmon.verdict().endswith(
        "Every deciding figure that moved improved: the change helped. Judged on System / user CPU only: Tape "
        "throughput, read + written and pin_seg_range lock miss ratio have no data in these windows (nmon "
        "recordings have no tape or pin-lock data).")
    whole = comparison({"tape": (100.0, 200.0), "pin_miss": (0.25, 0.01), "sys_per_user": (4.0, 0.5)})
    assert "Judged on" not in whole.verdict()


def test_a_deciding_figure_without_data_reads_no_data_in_the_table_and_the_csv():
    from aix_exporter.report.render import csv_text
    nmon = comparison({"sys_per_user": (4.0, 0.5)})
    assert [(r.figure.key, r.verdict) for r in nmon.rows if r.figure.decides] == [
        ("tape", "no data"), ("sys_per_user", "better"), ("pin_miss", "no data")]
    rows = {line.split(",")[1]: line.split(",")[5:7] for line in csv_text(nmon).splitlines()[1:]}
    assert (rows["tape"], rows["pin_miss"], rows["sys_per_user"], rows["user"]) == (
        ["n/a", "no data"], ["n/a", "no data"], ["0.12", "better"], ["n/a", ""])
