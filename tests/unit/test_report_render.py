"""The report's page (issue 30): plots only with data, all on one aligned time axis, a y axis
that starts at 0, times in the zone asked for."""
import datetime as dt
import re

import pytest

from aix_exporter.report import render
from aix_exporter.report.compare import Comparison, ReportError, Window, parse_time, zone

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
