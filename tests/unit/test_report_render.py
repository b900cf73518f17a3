"""The report's page (issue 30): plots only with data, all on one aligned time axis, a y axis
that starts at 0, times in the zone asked for."""
import datetime as dt
import io
import re

import pytest

from aix_exporter.report import render
from aix_exporter.report.compare import Comparison, ReportError, Window, parse_time, zone
from tests.lib.checks import local_zone

pytest.importorskip("matplotlib")


def comparison(series, tz=dt.timezone.utc):
    return Comparison("lpar:10990", Window(0, 3600), Window(7200, 10800), [], change_at=5000.0, series=series, tz=tz)


def test_only_plots_with_data_and_all_axes_aligned():
    c = comparison({"a": ("A", [("x", [(0, 1.0), (10800, 2.0)])]),
                    "b": ("B", [("y", [(0, 1_000_000.0), (10800, 2.0)])]),     # wide tick labels
                    "c": ("C", [("z", [])])})
    drawn = render.plots(c)
    assert [k for k, _ in drawn] == ["a", "b"] and render.empty_plots(c) == ["C"]
    boxes = [re.search(r'<g id="axes_1">\s*<g id="patch_2">\s*<path d="M ([0-9.]+) ([0-9.]+)\s*L ([0-9.]+) ', svg).groups()
             for _, svg in drawn]
    assert boxes[0] == boxes[1]


@pytest.mark.parametrize("values,limits", [([0.0, 0.0], (0.0, 1.0)), ([0.0, 2.0], (0.0, 2.2)), ([-1.0, 2.0], None),
                                           ([], None)])
def test_y_axis_from_zero(values, limits):
    assert render.y_range(values) == (pytest.approx(limits) if limits else None)


def test_times_typed_and_shown_in_the_zone_asked_for():
    berlin = zone("Europe/Berlin")
    assert parse_time("2026-11-20T08:00", berlin) == parse_time("2026-11-20T07:00Z")
    assert parse_time("2026-07-20T08:00", berlin) == parse_time("2026-07-20T06:00Z")     # summer time
    assert parse_time("2026-11-20T08:00+00:00", berlin) == parse_time("2026-11-20T08:00Z")   # a zone given wins
    c = comparison({}, berlin)
    assert c.at(parse_time("2026-11-20T07:00Z")) == "2026-11-20 08:00 CET" and c.zone_name == "Europe/Berlin"
    with pytest.raises(ReportError, match="not a time zone name"):
        zone("Mars/Olympus")


# ---------------------------------------------------------------- every column of each table

def figures(values, problems=None, usable=(1.0, 1.0), **kw):
    """A Comparison of every figure: values key -> (before, after), the others n/a."""
    from aix_exporter.figures import FIGURES
    from aix_exporter.report.compare import Check, FigureRow
    rows = [FigureRow(f, *values.get(f.key, (None, None)),
                      tuple(Check(u, list((problems or {}).get(f.key, ((), ()))[k])) for k, u in enumerate(usable)))
            for f in FIGURES]
    return Comparison("tsmsrv01:10990", Window(1_800_000_000, 1_800_003_600), Window(1_800_007_200, 1_800_010_800),
                      rows, tz=dt.timezone.utc, **kw)


CASE = {"tape": (139.0, 378.0), "sys_per_user": (4.0, 0.5), "pin_miss": (0.25, 0.01), "user": (10.0, 30.0),
        "sys": (40.0, 15.0), "transfers": (0.0, 20.0), "lgpg_regions": (0.0, 0.0)}


def test_every_column_of_the_markdown_table():
    text = render.markdown(figures(CASE, change_at=1_800_005_000.0))
    lines = text.splitlines()
    assert lines[:6] == ["# Before/after: tsmsrv01:10990", "",
                         "* Base run (before): 2027-01-15 08:00 UTC .. 2027-01-15 09:00 UTC",
                         "* New run (after): 2027-01-15 10:00 UTC .. 2027-01-15 11:00 UTC",
                         "* Regime change (end of the run before the change): 2027-01-15 09:23 UTC",
                         "* Usable data (deciding figures): before 100%, after 100%"]
    assert lines[7].startswith("Tape throughput went from 139.0 to 378.0 MiB/s (2.72x).")
    assert lines[9] == "| figure | unit | before | after | after/before | verdict | what it means |"
    cells = {line.split(" | ")[0][2:]: line.split(" | ")[1:6] for line in lines[11:22]}
    assert cells["Tape throughput, read + written"] == ["MiB/s", "139.0", "378.0", "2.72", "better"]
    assert cells["Tape transfers"] == ["/s", "0", "20", "new", "-"]
    assert cells["User CPU"] == ["%", "10.0", "30.0", "3.00", "-"]
    assert cells["System CPU"] == ["%", "40.0", "15.0", "0.38", "-"]
    assert cells["System / user CPU"] == ["x", "4.00", "0.50", "0.12", "better"]
    assert cells["pin_seg_range lock miss ratio"] == ["", "0.2500", "0.0100", "0.04", "better"]
    assert cells["Memory in 4 KB pages"] == ["GiB", "n/a", "n/a", "n/a", "-"]
    assert cells["lgpg_regions (16 MB pages configured)"] == ["", "0", "0", "-", "-"]
    assert lines[-1] == ('Times in UTC. "n/a": no data for the figure in that window; "new": it was 0 before. '
                         'CPU seconds are physical processors consumed (physc).')
    assert "Data problems" not in text


def test_the_markdown_title_note_and_problems():
    c = figures({"tape": (100.0, 200.0)}, problems={"tape": (["counter x reset 1 time"], ["only 50% of the window"])},
                usable=(0.97, 0.5), title="CHG0042 16 MB pages", note="dsmserv restarted at 09:30")
    lines = render.markdown(c).splitlines()
    assert lines[:6] == ["# CHG0042 16 MB pages", "", "LPAR: tsmsrv01:10990", "", "dsmserv restarted at 09:30", ""]
    assert lines[8] == "* Usable data (deciding figures): before 97%, after 50%"
    assert "| Tape throughput, read + written | MiB/s | 100.0 | 200.0 | 2.00 | not judged |" in render.markdown(c)
    i = lines.index("Data problems (a deciding figure with any is not judged):")
    assert lines[i + 2:i + 3] == [
        "* Tape throughput, read + written: before: counter x reset 1 time; after: only 50% of the window"]


def test_every_column_of_the_csv():
    import csv
    rows = list(csv.reader(io.StringIO(render.csv_text(figures(CASE, usable=(0.987654, None))))))
    assert rows[0] == ["instance", "figure", "unit", "before", "after", "ratio", "verdict", "before_window",
                       "after_window", "usable_before", "usable_after", "problems"]
    by = {r[1]: r for r in rows[1:]}
    assert len(by) == 11
    windows = ["2027-01-15 08:00 UTC .. 2027-01-15 09:00 UTC", "2027-01-15 10:00 UTC .. 2027-01-15 11:00 UTC"]
    assert by["tape"] == ["tsmsrv01:10990", "tape", "MiB/s", "139.0", "378.0", "2.72", "better", *windows,
                          "0.9877", "", ""]
    assert by["transfers"] == ["tsmsrv01:10990", "transfers", "/s", "0.0", "20.0", "new", "", *windows,
                               "0.9877", "", ""]
    assert by["mem_16m"][3:7] == ["", "", "n/a", ""]
    c = figures({"pin_miss": (0.25, 0.01)}, problems={"pin_miss": (["a"], ["b", "c"])})
    pin = next(r for r in csv.reader(io.StringIO(render.csv_text(c))) if r[1] == "pin_miss")
    assert pin[5:7] == ["0.04", "not judged"] and pin[-1] == "before: a; after: b; after: c"


def test_the_html_page_says_what_the_markdown_says():
    c = figures(CASE, change_at=1_800_005_000.0, title="CHG0042", note="a <note>", regimes=("4 KB", "16 MB"))
    c.series = {"tape": ("Tape MiB/s", [("tape", [(1_800_000_000.0, 139.0), (1_800_010_800.0, 378.0)])]),
                "pool": ("16 MB pages", [("free", [])])}
    page = render.html(c, "http://prom:9090")
    assert "<title>CHG0042</title>" in page and "<h1>CHG0042</h1>" in page
    assert '<p class="note">a &lt;note&gt;</p>' in page
    assert "LPAR: tsmsrv01:10990<br>Base run (before): 2027-01-15 08:00 UTC .. 2027-01-15 09:00 UTC" in page
    assert "Regime change (end of the last 4 KB run): 2027-01-15 09:23 UTC" in page
    assert "Usable data (deciding figures): before 100%, after 100%" in page
    assert "Times in UTC &middot; Prometheus: http://prom:9090 &middot; generated " in page
    assert ('<td class="n">139.0</td><td class="n">378.0</td>\n<td class="n better">2.72</td>\n'
            '<td class="better">better</td>') in page
    assert '<div class="plot" id="plot-tape"><svg' in page and 'id="plot-pool"' not in page
    assert "No data in this history for: 16 MB pages (not drawn)." in page


def test_percent():
    assert (render.percent(None), render.percent(0.954), render.percent(1.0)) == ("n/a", "95%", "100%")


def test_every_plot_is_10_by_2_4_inches_with_its_windows_and_a_y_axis_from_0():
    c = comparison({"tape": ("Tape MiB/s", [("tape", [(0, 100.0), (10800, 110.0)])])})
    (key, svg), = render.plots(c)
    assert key == "tape" and 'width="720pt" height="172.8pt"' in svg[:400]       # 10 x 2.4 inches at 72 pt
    assert "<!-- before window -->" in svg and "<!-- after window -->" in svg and "<!-- regime change -->" in svg
    assert "<!-- 0 -->" in svg                                                   # the axis starts at 0
    assert "<!-- time (UTC) -->" in svg


def test_the_markdown_blank_lines_around_the_verdict_and_the_problems():
    c = figures({"tape": (100.0, 200.0)}, problems={"tape": (["x"], [])})
    lines = render.markdown(c).splitlines()
    v = lines.index(c.verdict())
    assert lines[v - 1] == "" and lines[v + 1] == "" and lines[v + 2].startswith("| figure |")
    p = lines.index("Data problems (a deciding figure with any is not judged):")
    assert lines[p - 1] == "" and lines[p + 1] == "" and lines[p + 2].startswith("* ")


def _at(svg, comment):
    """(x, y, scale) of the text drawn after ``<!-- comment -->`` in a plot's SVG."""
    m = re.search(re.escape(f"<!-- {comment} -->") + r'\s*<g transform="translate\(([0-9.]+) ([0-9.]+)\) '
                  r'scale\(([0-9.]+) -[0-9.]+\)">', svg)
    assert m, comment
    return tuple(float(g) for g in m.groups())


def test_every_plot_has_the_same_margins_tick_labels_and_legend_right_of_the_axes():
    c = comparison({"tape": ("Tape MiB/s", [("tape", [(0, 100.0), (10800, 110.0)])])})
    (_, svg), = render.plots(c)
    # the axes: 0.075 .. 0.80 of 720 pt across, 0.17 .. 0.86 of 172.8 pt up (y counts down in SVG)
    assert re.search(r'<g id="patch_2">\s*<path d="M 54 143.424 \s*L 576 143.424 \s*L 576 24.192 \s*L 54 24.192 ', svg)
    assert _at(svg, "0")[2] == 0.08 and _at(svg, "01-01 01:00")[2] == 0.08             # tick labels: 8 pt
    x, y, scale = _at(svg, "before window")                                          # the legend: 7 pt,
    assert scale == 0.07 and 576 < x < 720 and 24.192 < y < 143.424                  # beside the axes' top


def test_an_empty_series_first_leaves_the_others_drawn():
    c = comparison({"pool": ("16 MB pages", [("free", [])]), "tape": ("Tape MiB/s", [("tape", [(0, 1.0)])])})
    assert [k for k, _ in render.plots(c)] == ["tape"] and render.empty_plots(c) == ["16 MB pages"]


def test_plot_times_in_the_zone_asked_for_and_else_the_machines():
    with local_zone("Asia/Tokyo"):                      # the machine's zone is not the one asked for
        series = {"tape": ("Tape MiB/s", [("tape", [(0, 100.0), (10800, 110.0)])])}
        (_, utc), = render.plots(comparison(series))
        assert "<!-- 01-01 01:00 -->" in utc and "<!-- 01-01 10:00 -->" not in utc
        (_, local), = render.plots(comparison(series, tz=None))
        assert "<!-- 01-01 10:00 -->" in local and "<!-- 01-01 01:00 -->" not in local


def test_a_y_axis_under_1_keeps_its_own_scale():
    assert render.y_range([0.0, 0.5]) == (0.0, pytest.approx(0.55))


def test_the_markdown_table_head_and_the_closing_line():
    lines = render.markdown(figures(CASE)).splitlines()
    i = lines.index("| figure | unit | before | after | after/before | verdict | what it means |")
    assert lines[i + 1] == "|---|---|---:|---:|---:|---|---|"
    assert lines[-2] == "" and lines[-1].startswith("Times in UTC. ")


def test_plot_times_in_the_machines_zone_stay_in_order_across_the_autumn_clock_change():
    with local_zone("Europe/Berlin"):                   # 2026-10-25: 03:00 CEST becomes 02:00 CET
        t0 = 1_792_886_400                              # 2026-10-25 00:00 UTC, 02:00 CEST
        c = Comparison("a", Window(t0, t0 + 3600), Window(t0 + 3600, t0 + 7200), [], tz=None,
                       series={"tape": ("T", [("tape", [(t0 + k * 1800, 1.0 + k) for k in range(5)])])})
        (_, svg), = render.plots(c)
        path = re.search(r'<path d="M ([^"]+)"[^>]*style="fill: none; stroke: #1f77b4', svg, re.S).group(1)
        xs = [float(p.split()[0]) for p in path.replace("L", "\n").splitlines() if p.strip()]
        assert xs == [54.0, 184.5, 315.0, 445.5, 576.0]     # every half hour a step right, the repeated hour too


def test_every_plot_draws_its_lines_title_and_legend_as_reviewed():
    c = comparison({"tape": ("Tape MiB/s", [("tape", [(0, 100.0), (10800, 110.0)])])})
    (_, svg), = render.plots(c)
    assert 'clip-path="url(#' in svg and "stroke: #1f77b4; stroke-width: 1.2; stroke-linecap: square" in svg  # 1.2 pt
    # the regime change: 1 pt, dashed (matplotlib scales the dashes with the width)
    assert 'style="fill: none; stroke-dasharray: 3.7,1.6; stroke-dashoffset: 0; stroke: #1f2937"' in svg
    assert _at(svg, "Tape MiB/s")[2] == 0.1                                          # the title: 10 pt
    assert re.search(r'<g id="legend_1">\s*<g id="line2d_', svg)                     # no frame around the legend
    x, y, _ = _at(svg, "before window")                                             # at the axes' corner, no pad
    assert (x, y) == (pytest.approx(603.62, abs=1), pytest.approx(42.81, abs=1))


def test_auto_names_both_regimes_in_the_heading_the_change_and_the_verdict():
    c = figures(CASE, change_at=1_800_005_000.0, regimes=("64 KB", "16 MB"))
    lines = render.markdown(c).splitlines()
    assert lines[0] == "# Before/after: tsmsrv01:10990, 64 KB to 16 MB pages"
    assert "* Regime change (end of the last 64 KB run): 2027-01-15 09:23 UTC" in lines
    assert c.verdict().startswith("From 64 KB to 16 MB pages. Tape throughput went from 139.0 to 378.0 MiB/s")
    page = render.html(c, "http://prom:9090")
    assert "<h1>Before/after: tsmsrv01:10990, 64 KB to 16 MB pages</h1>" in page
    assert "Regime change (end of the last 64 KB run): 2027-01-15 09:23 UTC" in page
