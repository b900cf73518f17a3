"""`aix-exporter report` and `aix-exporter plan` at unit level: what each option and its default
hands to the comparison (the look-back, the margin, the windows, the zone, the selector, the end
of blocks), the format chosen from the file's name, every refusal of a wrong combination, and
what is written and printed; the Prometheus behind them is a stand-in, the reading of the data
is pinned by test_report_compare and test_plan."""
import datetime as dt
import time
from zoneinfo import ZoneInfo

import pytest

from aix_exporter.figures import FIGURES
from aix_exporter import cli as commands
from aix_exporter.cli import _options
from aix_exporter.cli import report as report_cli
from aix_exporter.report import census, plan
from aix_exporter.report.compare import Check, Comparison, FigureRow, ReportError, Window
from aix_exporter.tools import tempprom
from tests.lib.checks import Terminal
from tests.unit.test_plan import facts, on_16m

NOW = 1_800_000_000.0
DAY = 86400
SELECTOR = 'job=~"aix.*"'


@pytest.mark.parametrize("text,seconds", [("30d", 30 * DAY), ("12h", 43200), ("600s", 600), ("10m", 600),
                                          ("1w", 604800), ("1.5h", 5400), ("5y", 5 * 365 * 86400)])
def test_durations(text, seconds):
    assert _options.duration(text) == seconds


@pytest.mark.parametrize("text", ["5x", "", "h", "tenm"])
def test_a_duration_that_is_none_says_what_one_is(text):
    with pytest.raises(Exception) as e:
        _options.duration(text)
    assert str(e.value) == f"{text!r}: a duration such as 30d, 12h, 600s"


@pytest.mark.parametrize("text", ["1", "24", "90", "1.5"])
def test_a_bare_number_is_refused_saying_a_unit_is_needed(text):
    """Issue 58, item 2: `plan --window 1` (meant: an hour) averaged over one second."""
    with pytest.raises(Exception) as e:
        _options.duration(text)
    assert str(e.value) == (f"{text!r}: a duration needs its unit, such as 30d, 12h, 90m or 600s (a bare number is "
                            "not taken as seconds)")


class Calls:
    """The stand-ins' record: the Prometheus URL, find_regimes' and compare's arguments."""

    def __init__(self, monkeypatch, change=True, error=None):
        self.urls, self.regimes, self.compared = [], [], []

        def prometheus(url):
            self.urls.append(url)
            return "prom"

        def find_regimes(prom, instance, start, end, margin, base):
            if error:
                raise ReportError(error)
            self.regimes.append((prom, instance, start, end, margin, base))
            return (Window(NOW - 7200, NOW - 3600), Window(NOW - 3000, NOW - 600), NOW - 3600 if change else None,
                    ("4 KB", "16 MB") if change else ())

        def compare(prom, instance, before, after, change, progress, plots, base):
            self.compared.append((prom, instance, before, after, change, plots, base))
            progress("figure 1/11: Tape throughput, read + written")
            rows = [FigureRow(f, {"tape": 139.0}.get(f.key), {"tape": 378.0}.get(f.key), (Check(1.0), Check(1.0)))
                    for f in FIGURES]
            return Comparison(instance, before, after, rows, change)
        monkeypatch.setattr(_options, "Prometheus", prometheus)
        monkeypatch.setattr(report_cli, "find_regimes", find_regimes)
        monkeypatch.setattr(report_cli, "compare", compare)
        monkeypatch.setattr(time, "time", lambda: NOW)


def report(tmp_path, *args, out="r.md"):
    return commands.main(["report", *args, "--out", str(tmp_path / out)])


def test_auto_on_a_live_prometheus_looks_back_30_days_from_now_with_10_minute_margins(tmp_path, monkeypatch, capsys):
    calls = Calls(monkeypatch)
    assert report(tmp_path, "--prometheus", "http://prom:9090", "--instance", "tsmsrv01:10990", "--auto") == 0
    assert calls.urls == ["http://prom:9090"]
    assert calls.regimes == [("prom", "tsmsrv01:10990", NOW - 30 * DAY, NOW, 600, SELECTOR)]
    prom, inst, before, after, change, plots, base = calls.compared[0]
    assert (prom, inst, before, after, change, plots, base) == (
        "prom", "tsmsrv01:10990", Window(NOW - 7200, NOW - 3600), Window(NOW - 3000, NOW - 600), NOW - 3600, False,
        SELECTOR)
    text = (tmp_path / "r.md").read_text()
    assert text.startswith("# ") and "| Tape throughput, read + written | MiB/s | 139.0 | 378.0 | 2.72 | better |" in text
    out, err = capsys.readouterr()
    assert out.splitlines()[0].startswith(f"wrote {tmp_path / 'r.md'}: tsmsrv01:10990, before ")
    assert out.splitlines()[1] == ("From 4 KB to 16 MB pages. Tape throughput went from 139.0 to 378.0 MiB/s (2.72x). "
                                   "Every deciding figure that moved improved: the change helped. "
                                   # (issue 58, item 3: a verdict on some deciding figures says which)
                                   "Judged on Tape throughput, read + written only: System / user CPU and "
                                   "pin_seg_range lock miss ratio have no data in these windows.")
    assert err == "querying http://prom:9090: figure 1/11: Tape throughput, read + written\n"


def test_the_options_reach_the_comparison(tmp_path, monkeypatch, capsys):
    calls = Calls(monkeypatch)
    assert report(tmp_path, "--prometheus", "http://prom:9090", "--instance", "a", "--auto", "--lookback", "7d",
                  "--margin", "5m", "--end", "2027-01-15T08:00", "--tz", "UTC", "--selector", 'job="lpar"',
                  "--title", "CHG0042", "--note", "16 MB pages", out="r.csv") == 0
    end = dt.datetime(2027, 1, 15, 8, 0, tzinfo=dt.timezone.utc).timestamp()
    assert calls.regimes == [("prom", "a", end - 7 * DAY, end, 300, 'job="lpar"')]
    assert calls.compared[0][6] == 'job="lpar"'
    assert (tmp_path / "r.csv").read_text().startswith("instance,figure,unit,before,after,ratio,verdict,")


def test_windows_typed_in_the_zone_given(tmp_path, monkeypatch, capsys):
    calls = Calls(monkeypatch)
    assert report(tmp_path, "--prometheus", "http://p", "--instance", "a", "--tz", "Europe/Berlin",
                  "--before", "2027-01-15T08:00..2027-01-15T09:00", "--after", "1800000000..1800003600") == 0
    assert calls.regimes == []
    _, _, before, after, change, _, _ = calls.compared[0]
    berlin = ZoneInfo("Europe/Berlin")
    assert before == Window(dt.datetime(2027, 1, 15, 8, tzinfo=berlin).timestamp(),
                            dt.datetime(2027, 1, 15, 9, tzinfo=berlin).timestamp())
    assert (after, change) == (Window(1_800_000_000.0, 1_800_003_600.0), None)
    assert "Europe/Berlin" in (tmp_path / "r.md").read_text()


@pytest.mark.parametrize("out,fmt", [("r.csv", "instance,figure,"), ("r.MD", "# "), ("r.markdown", "# "),
                                     ("r.html", "<!DOCTYPE html>"), ("r.htm", "<!DOCTYPE html>"),
                                     ("report", "<!DOCTYPE html>")])
def test_the_format_follows_the_files_name(tmp_path, monkeypatch, out, fmt):
    calls = Calls(monkeypatch)
    assert report(tmp_path, "--prometheus", "http://p", "--instance", "a", "--auto", out=out) == 0
    assert (tmp_path / out).read_text().lstrip().startswith(fmt)
    assert calls.compared[0][5] is (fmt == "<!DOCTYPE html>")      # plots only for the page that shows them


def test_the_html_page_names_the_prometheus_it_asked(tmp_path, monkeypatch):
    Calls(monkeypatch)
    assert report(tmp_path, "--prometheus", "http://prom.example:9090", "--instance", "a", "--auto",
                  out="r.html") == 0
    assert "Prometheus: http://prom.example:9090 &middot;" in (tmp_path / "r.html").read_text()
    blocks_at(monkeypatch, NOW - DAY, NOW)
    assert report(tmp_path, "--tsdb", str(tmp_path), "--instance", "a", "--auto", out="b.html") == 0
    assert f"Prometheus: {tmp_path} (blocks) &middot;" in (tmp_path / "b.html").read_text()


def test_html_without_the_report_extra_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    from aix_exporter.report import render
    Calls(monkeypatch)

    def no_jinja(*a):
        raise ImportError("No module named 'jinja2'")
    monkeypatch.setattr(render, "html", no_jinja)
    assert report(tmp_path, "--prometheus", "http://p", "--instance", "a", "--auto", out="r.html") == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        "aix-exporter report: HTML needs the report extra (Jinja2, matplotlib): in the checkout, "
        ".venv/bin/pip install -e '.[report]'; or --format markdown or csv (No module named 'jinja2')")
    assert not (tmp_path / "r.html").exists()


def test_the_title_and_note_head_the_report(tmp_path, monkeypatch):
    Calls(monkeypatch)
    assert report(tmp_path, "--prometheus", "http://p", "--instance", "a", "--auto", "--title", "CHG0042",
                  "--note", "16 MB pages for dsmserv") == 0
    assert (tmp_path / "r.md").read_text().splitlines()[:5] == ["# CHG0042", "", "LPAR: a", "",
                                                                "16 MB pages for dsmserv"]
    assert report(tmp_path, "--prometheus", "http://p", "--instance", "a", "--auto", "--tz", "UTC") == 0
    assert (tmp_path / "r.md").read_text().splitlines()[:3] == [
        "# Before/after: a, 4 KB to 16 MB pages", "", "* Base run (before): 2027-01-15 06:00 UTC .. 2027-01-15 07:00 UTC"]


def test_the_format_asked_for_wins_over_the_name(tmp_path, monkeypatch):
    Calls(monkeypatch)
    assert report(tmp_path, "--prometheus", "http://p", "--instance", "a", "--auto", "--format", "csv",
                  out="r.html") == 0
    assert (tmp_path / "r.html").read_text().startswith("instance,figure,unit,before,after,ratio,verdict,")


def blocks_at(monkeypatch, first, last, served=None):
    """--tsdb DIR with blocks from ``first`` to ``last``, served by a stand-in temporary
    Prometheus at http://127.0.0.1:1 (``served``: the directories it served, then 'stopped')."""
    monkeypatch.setattr(tempprom, "block_range", lambda d: (first, last))

    class Serve:
        def __init__(self, d):
            if served is not None:
                served.append(d)

        def __enter__(self):
            return "http://127.0.0.1:1"

        def __exit__(self, *a):
            if served is not None:
                served.append("stopped")
    monkeypatch.setattr(tempprom, "serve", Serve)


def test_blocks_are_read_over_their_whole_range(tmp_path, monkeypatch):
    calls = Calls(monkeypatch)
    served: list = []
    blocks_at(monkeypatch, NOW - 10 * DAY, NOW - DAY, served)
    assert report(tmp_path, "--tsdb", str(tmp_path), "--instance", "a", "--auto") == 0
    assert served == [str(tmp_path), "stopped"] and calls.urls == ["http://127.0.0.1:1"]
    # from the first sample to a minute after the last, and a minute before the first
    end = NOW - DAY + 60
    assert calls.regimes == [("prom", "a", end - (end - (NOW - 10 * DAY) + 60), end, 600, SELECTOR)]
    calls.regimes.clear()
    assert report(tmp_path, "--tsdb", str(tmp_path), "--instance", "a", "--auto", "--lookback", "2d",
                  "--end", str(NOW)) == 0
    assert calls.regimes == [("prom", "a", NOW - 2 * DAY, NOW, 600, SELECTOR)]


def test_a_directory_without_blocks_is_one_line(tmp_path, monkeypatch, capsys):
    Calls(monkeypatch)
    monkeypatch.setattr(tempprom, "block_range", lambda d: (None, None))
    assert report(tmp_path, "--tsdb", str(tmp_path), "--instance", "a", "--auto") == 1
    assert capsys.readouterr().err == f"aix-exporter report: {tmp_path}: no Prometheus blocks in it\n"
    assert report(tmp_path, "--tsdb", str(tmp_path / "none"), "--instance", "a", "--auto") == 1
    assert capsys.readouterr().err == f"aix-exporter report: {tmp_path / 'none'}: no Prometheus blocks in it\n"
    assert not (tmp_path / "r.md").exists()


def test_a_report_error_is_one_line_and_no_file(tmp_path, monkeypatch, capsys):
    Calls(monkeypatch, error="no change from 4 KB to 16 MB pages found for 'a'; give --before and --after")
    assert report(tmp_path, "--prometheus", "http://p", "--instance", "a", "--auto") == 1
    assert capsys.readouterr().err == ("aix-exporter report: no change from 4 KB to 16 MB pages found for 'a'; "
                                       "give --before and --after\n")
    assert not (tmp_path / "r.md").exists()


def test_on_a_terminal_progress_is_one_line_rewritten_and_ended(tmp_path, monkeypatch, capsys):
    Calls(monkeypatch)
    term = Terminal()
    monkeypatch.setattr(report_cli.sys, "stderr", term)
    assert report(tmp_path, "--prometheus", "http://p", "--instance", "a", "--auto") == 0
    assert term.text == "\rquerying http://p: figure 1/11: Tape throughput, read + written" + " " * 20 + "\n"
    # each progress line is flushed as written: a terminal shows it while the queries run
    progress_line = term.text[:-1]
    term.text = term.flushed = ""
    commands.main(["report", "--prometheus", "http://p", "--instance", "a", "--auto", "--out", str(tmp_path / "q.csv")])
    assert term.flushed == progress_line
    Calls(monkeypatch, error="no change")
    term.text = ""
    assert report(tmp_path, "--prometheus", "http://p", "--instance", "a", "--auto") == 1
    assert term.text == "\naix-exporter report: no change\n"


@pytest.mark.parametrize("args,message", [
    (["--instance", "a"], "give --auto, or both --before FROM..TO and --after FROM..TO"),
    (["--instance", "a", "--auto", "--before", "1..2"], "give --auto, or both --before FROM..TO and --after FROM..TO"),
    (["--instance", "a", "--before", "1..2"], "give --auto, or both --before FROM..TO and --after FROM..TO"),
    (["--instance", "a", "--after", "1..2"], "give --auto, or both --before FROM..TO and --after FROM..TO"),
    (["--auto"], "give --instance INST (one LPAR's before/after) or --census (every LPAR)"),
    (["--census", "--instance", "a"], "--census ranks every LPAR: without --instance, --auto, --before or --after"),
    (["--census", "--auto"], "--census ranks every LPAR: without --instance, --auto, --before or --after"),
    (["--census", "--before", "1..2"], "--census ranks every LPAR: without --instance, --auto, --before or --after"),
    (["--census", "--after", "1..2"], "--census ranks every LPAR: without --instance, --auto, --before or --after"),
    (["--instance", "a", "--auto", "--tz", "Mars/Base"],
     "--tz 'Mars/Base': not a time zone name (Europe/Berlin, America/Chicago, UTC)"),
    (["--instance", "a", "--auto", "--margin", "5x"], "argument --margin: '5x': a duration such as 30d, 12h, 600s"),
    (["--instance", "a", "--auto", "--window", "24"], "argument --window: '24': a duration needs its unit, such as 30d, "
                                                     "12h, 90m or 600s (a bare number is not taken as seconds)"),
])
def test_wrong_combinations_are_refused_with_the_reason(tmp_path, monkeypatch, capsys, args, message):
    Calls(monkeypatch)
    with pytest.raises(SystemExit) as e:
        report(tmp_path, "--prometheus", "http://p", *args)
    assert e.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"aix-exporter report: error: {message}"


def test_the_census_is_markdown_or_csv_only(tmp_path, monkeypatch, capsys):
    with pytest.raises(SystemExit):
        report(tmp_path, "--prometheus", "http://p", "--census", out="c.html")
    assert capsys.readouterr().err.splitlines()[-1] == \
        "aix-exporter report: error: --census writes Markdown or CSV: --out census.md or census.csv"


def census_at(monkeypatch, rows):
    asked = []

    def fake(prom, end, window, selector):
        asked.append((prom, end, window, selector))
        return rows
    monkeypatch.setattr(census, "census", fake)
    monkeypatch.setattr(_options, "Prometheus", lambda url: "prom")
    monkeypatch.setattr(time, "time", lambda: NOW)
    return asked


def test_the_census_ranks_now_over_the_last_day_by_default(tmp_path, monkeypatch, capsys):
    asked = census_at(monkeypatch, [census.Lpar("b:1", "aix", 3.0, 5.0), census.Lpar("a:1", "aix", 0.0, 1.0)])
    assert report(tmp_path, "--prometheus", "http://p", "--census", "--tz", "UTC", out="c.md") == 0
    assert asked == [("prom", NOW, 86400, SELECTOR)]
    assert (tmp_path / "c.md").read_text().splitlines()[:3] == [
        "# Fleet census: 2 LPARs", "",
        "State at 2027-01-15 08:00 UTC; contention and tape averaged over the 24 h before it. Worst first."]
    assert capsys.readouterr().out == f"wrote {tmp_path / 'c.md'}: 2 LPARs; worst: b:1 ({census.STATES[3]})\n"
    asked.clear()
    assert report(tmp_path, "--prometheus", "http://p", "--census", "--window", "6h", "--end", "1800000600",
                  "--selector", 'job="lpar"', out="c.csv") == 0
    assert asked == [("prom", 1_800_000_600.0, 21600, 'job="lpar"')]
    assert (tmp_path / "c.csv").read_text().splitlines()[0] == \
        "instance,job,state,state_code,sys_per_user,pin_miss,pin_misses_s,tape_mib_s,aso_active,tsm_health"


def test_a_census_without_recording_rules_says_so(tmp_path, monkeypatch, capsys):
    census_at(monkeypatch, [])
    assert report(tmp_path, "--prometheus", "http://p", "--census", "--tz", "UTC", out="c.md") == 1
    assert capsys.readouterr().err == (
        'aix-exporter report: no LPAR has aix:census_regime:code{job=~"aix.*"} at 2027-01-15 08:00 UTC: '
        "are the recording rules loaded (alerts/aix-rules.yml)?\n")
    assert not (tmp_path / "c.md").exists()


def test_a_census_of_blocks_is_at_their_last_sample(tmp_path, monkeypatch):
    asked = census_at(monkeypatch, [census.Lpar("a:1", "aix", 0.0)])
    blocks_at(monkeypatch, NOW - DAY, NOW - 3600)
    assert report(tmp_path, "--tsdb", str(tmp_path), "--census", out="c.md") == 0
    assert asked == [("prom", NOW - 3600, 86400, SELECTOR)]


# ---------------------------------------------------------------- aix-exporter plan

def planned(monkeypatch, f):
    asked = []

    def gather(prom, instance, at, window, selector):
        asked.append((prom, instance, at, window, selector))
        return f
    monkeypatch.setattr(plan, "gather", gather)
    monkeypatch.setattr(_options, "Prometheus", lambda url: "prom")
    monkeypatch.setattr(time, "time", lambda: NOW)
    return asked


def test_a_recommended_plan_exits_0_and_prints_markdown_by_default(monkeypatch, capsys):
    asked = planned(monkeypatch, facts())
    assert commands.main(["plan", "--prometheus", "http://p", "--instance", "tsmsrv01:10990"]) == 0
    assert asked == [("prom", "tsmsrv01:10990", NOW, 3600, SELECTOR)]
    out, err = capsys.readouterr()
    assert out.startswith("# ") and "--prometheus http://p" in out
    assert err == "tsmsrv01:10990: recommended: lgpg_regions=160 (16 MB pages) and LARGE_PAGE_DATA=Y for dsmserv\n"


def test_a_plan_not_recommended_exits_2_and_names_why(tmp_path, monkeypatch, capsys):
    asked = planned(monkeypatch, facts(pin_miss=0.02, sys_per_user=1.2))
    out = tmp_path / "plan.md"
    assert commands.main(["plan", "--prometheus", "http://p", "--instance", "a", "--at", "1800000600", "--window", "30m",
                          "--selector", 'job="lpar"', "--out", str(out)]) == 2
    assert asked == [("prom", "a", 1_800_000_600.0, 1800, 'job="lpar"')]
    printed = capsys.readouterr().out
    assert printed.startswith(f"wrote {out}: a: not recommended: ")
    assert out.read_text().startswith("# ")


def test_a_plan_as_html_from_the_files_name(tmp_path, monkeypatch):
    planned(monkeypatch, on_16m(144))
    out = tmp_path / "plan.html"
    assert commands.main(["plan", "--prometheus", "http://p", "--instance", "tsmsrv01:10990", "--out", str(out)]) == 2
    assert out.read_text().lstrip().startswith("<!DOCTYPE html>")
    assert "<title>Large-page change plan: tsmsrv01:10990</title>" in out.read_text()


def test_a_plan_as_html_without_jinja2_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    planned(monkeypatch, facts())

    def no_jinja(*a):
        raise ImportError("No module named 'jinja2'")
    monkeypatch.setattr(plan, "html", no_jinja)
    out = tmp_path / "plan.html"
    assert commands.main(["plan", "--prometheus", "http://p", "--instance", "a", "--out", str(out)]) == 1
    assert capsys.readouterr().err == ("aix-exporter plan: HTML needs the report extra (Jinja2); or --out plan.md "
                                       "(No module named 'jinja2')\n")
    assert not out.exists()


def test_a_plan_without_any_series_is_an_error(monkeypatch, capsys):
    f = facts(processes=[], memory_bytes=None, sys_per_user=None)
    planned(monkeypatch, f)
    asked = []

    class Known:   # the instances Prometheus has, as report names them (issue 58: plan did not)
        def label_values(self, label, match, start, end):
            asked.append((label, match, start, end))
            return ["tsmsrv02:10990", "tsmsrv01:10990"]
    monkeypatch.setattr(_options, "Prometheus", lambda url: Known())
    assert commands.main(["plan", "--prometheus", "http://p", "--instance", "x", "--tz", "UTC"]) == 1
    assert capsys.readouterr().err == ("aix-exporter plan: no series of instance 'x' (job=~\"aix.*\") at "
                                       "2027-01-15 08:00 UTC; the instances there: tsmsrv01:10990, tsmsrv02:10990\n")
    assert asked == [("instance", '{__name__=~"aix_.+",job=~"aix.*"}', NOW - 3600, NOW)]
    monkeypatch.setattr(_options, "Prometheus", lambda url: "prom")
    # any one of them is enough to plan with
    for kw in ({"memory_bytes": None, "sys_per_user": None}, {"processes": [], "sys_per_user": None},
               {"processes": [], "memory_bytes": None}):
        planned(monkeypatch, facts(**kw))
        assert commands.main(["plan", "--prometheus", "http://p", "--instance", "x"]) in (0, 2)


def test_a_plan_error_is_one_line(monkeypatch, capsys):
    def gather(*a):
        raise ReportError("http://p: HTTP 502 Bad Gateway")
    monkeypatch.setattr(plan, "gather", gather)
    monkeypatch.setattr(_options, "Prometheus", lambda url: "prom")
    assert commands.main(["plan", "--prometheus", "http://p", "--instance", "x"]) == 1
    assert capsys.readouterr().err == "aix-exporter plan: http://p: HTTP 502 Bad Gateway\n"
    with pytest.raises(SystemExit):
        commands.main(["plan", "--prometheus", "http://p", "--instance", "x", "--tz", "Nowhere/Land"])


def test_a_census_error_is_one_line(tmp_path, monkeypatch, capsys):
    def fails(*a):
        raise ReportError("http://p: HTTP 503: Service Unavailable")
    monkeypatch.setattr(census, "census", fails)
    monkeypatch.setattr(_options, "Prometheus", lambda url: "prom")
    assert report(tmp_path, "--prometheus", "http://p", "--census", out="c.md") == 1
    assert capsys.readouterr().err == "aix-exporter report: http://p: HTTP 503: Service Unavailable\n"
    assert not (tmp_path / "c.md").exists()


def test_a_plan_names_its_source_and_the_report_command_reads_the_same(tmp_path, monkeypatch, capsys):
    planned(monkeypatch, facts())
    assert commands.main(["plan", "--prometheus", "http://p:9090", "--instance", "tsmsrv01:10990", "--format", "markdown"]) == 0
    doc = capsys.readouterr().out
    assert "Source: http://p:9090." in doc
    assert ("aix-exporter report --prometheus http://p:9090 --instance tsmsrv01:10990 --auto --out "
            "after-the-change.html") in doc
    blocks_at(monkeypatch, NOW - DAY, NOW)
    out = tmp_path / "plan.markdown"
    assert commands.main(["plan", "--tsdb", str(tmp_path), "--instance", "tsmsrv01:10990", "--out", str(out)]) == 0
    doc = out.read_text()
    assert doc.startswith("# ") and f"Source: {tmp_path} (blocks)." in doc
    # the verification reads a live Prometheus (issue 58): the frozen blocks never hold the after-change data
    assert f"aix-exporter report --tsdb {tmp_path}" not in doc
    assert "aix-exporter report --prometheus http://PROMETHEUS:9090 --instance tsmsrv01:10990 --auto" in doc
    assert ("http://PROMETHEUS:9090 stands for the Prometheus that scrapes this LPAR: this plan read Prometheus "
            "blocks, which will never hold what comes after the change.") in doc
