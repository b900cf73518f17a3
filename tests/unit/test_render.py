"""dashboards/render.py's judgement of a rendered page, on hand-written panel reports (what
dashboards/perses/shoot.mjs prints for each panel), and its input adjustments."""
import os
import sys

import pytest

from tests.lib import ROOT

sys.path.insert(0, str(ROOT / "dashboards"))
import render  # noqa: E402


def result(panels, kinds):
    spec = {"panels": {f"0_{k}": {"spec": {"display": {"name": t}, "plugin": {"kind": kind}}}
                       for k, (t, kind) in enumerate(kinds.items())}}
    return {"d": {"file": "aix-x.json", "panels": panels, "perses": {"spec": spec}}}


def shown(title, text="a\nb", chart=True, error=False, no_data=False, series=2):
    return {"title": title, "text": text, "chart": chart, "error": error, "noData": no_data, "series": series}


KINDS = {"CPU": "TimeSeriesChart", "Drives": "StatChart", "Mounts": "Table", "$instance: tape": "TimeSeriesChart"}


def test_a_page_with_every_panel_drawn_with_data_has_no_problem():
    panels = [shown("CPU"), shown("Drives", chart=True, series=0), shown("Mounts", chart=False, series=0),
              shown("tsmsrv01:10990: tape")]
    assert render.problems(result(panels, KINDS)) == []


def test_each_kind_of_problem_is_named_once():
    panels = [shown("CPU", text="", series=0),                                   # a chart with no series
              shown("Drives", text="No data", no_data=True, series=0),            # a stat saying so
              shown("Mounts", text="1:21: parse error", error=True, chart=False)]  # an error
    assert render.problems(result(panels, KINDS)) == [
        "aix-x.json: panel '$instance: tape' is not drawn",
        "aix-x.json: panel 'CPU' shows no data",
        "aix-x.json: panel 'Drives' shows no data",
        "aix-x.json: panel 'Mounts' shows an error: '1:21: parse error'"]


def test_a_time_series_panel_that_drew_no_chart_is_a_problem_but_a_table_is_not():
    panels = [shown("CPU", chart=False), shown("Drives"), shown("Mounts", chart=False), shown("x: tape")]
    assert render.problems(result(panels, KINDS)) == ["aix-x.json: panel 'CPU' drew no chart"]


def test_a_panel_listed_without_data_must_stay_without(monkeypatch):
    monkeypatch.setattr(render, "PANELS_WITHOUT_DATA", {("aix-x.json", "CPU"): "no such series in the demo"})
    quiet = [shown("CPU", text="", series=0), shown("Drives"), shown("Mounts", chart=False), shown("x: tape")]
    assert render.problems(result(quiet, KINDS)) == []
    loud = [shown("CPU"), shown("Drives"), shown("Mounts", chart=False), shown("x: tape")]
    assert render.problems(result(loud, KINDS)) == [
        "aix-x.json: panel 'CPU' shows data: PANELS_WITHOUT_DATA is out of date"]


def test_a_variable_in_a_title_matches_what_is_drawn_but_not_nothing():
    pattern = render._title_pattern("$instance: tape ($window)")
    assert pattern.fullmatch("tsmsrv01:10990: tape (1h)")
    assert not pattern.fullmatch(": tape (1h)")
    assert not pattern.fullmatch("tsmsrv01:10990: tape")


def test_the_grafana_input_gets_legend_calcs_and_nothing_else():
    board = {"panels": [{"options": {"legend": {"displayMode": "list"}}},
                        {"options": {"legend": {"displayMode": "list", "calcs": ["mean"]}}}, {"title": "x"}]}
    assert render.grafana_input(board) == {"panels": [
        {"options": {"legend": {"displayMode": "list", "calcs": []}}},
        {"options": {"legend": {"displayMode": "list", "calcs": ["mean"]}}}, {"title": "x"}]}
    assert board["panels"][0]["options"]["legend"] == {"displayMode": "list"}   # the input is not changed


def test_the_page_shows_the_history_s_last_eight_hours_in_milliseconds():
    url = render.page_url("http://127.0.0.1:1", "aix-tape", {"instance": "tsmsrv01:10990"})
    # 2026-11-02 18:00 UTC is 1793642400 s
    assert url == ("http://127.0.0.1:1/projects/aix/dashboards/aix-tape?start=1793613600000&end=1793642400000"
                   "&var-instance=tsmsrv01%3A10990")


def test_a_plugin_module_file_loses_its_deps_block_only(tmp_path):
    schemas = tmp_path / "schemas-src"
    (schemas / "schemas").mkdir(parents=True)
    (schemas / "schemas" / "x.cue").write_text("package x\n")
    (schemas / "cue.mod").mkdir()
    (schemas / "cue.mod" / "module.cue").write_text(
        'module: "github.com/perses/plugins/table@v0"\nlanguage: {\n\tversion: "v0.14.0"\n}\n'
        'deps: {\n\t"github.com/perses/perses/cue@v0": {\n\t\tv: "v0.51.1-preview"\n\t}\n}\n')
    core = tmp_path / "core"
    (core / "common").mkdir(parents=True)
    (core / "common" / "c.cue").write_text("package common\n")
    dest = tmp_path / "plugin"
    dest.mkdir()
    render.complete_plugin(str(dest), str(schemas), str(core))
    assert (dest / "cue.mod" / "module.cue").read_text() == (
        'module: "github.com/perses/plugins/table@v0"\nlanguage: {\n\tversion: "v0.14.0"\n}\n')
    assert (dest / "cue.mod" / "pkg" / "github.com" / "perses" / "perses" / "cue" / "common" / "c.cue").exists()
    assert (dest / "schemas" / "x.cue").read_text() == "package x\n"


def test_every_plugin_has_its_vendored_schemas_and_no_schema_is_left_over():
    folders = sorted(p.name for p in (ROOT / "dashboards" / "perses" / "schemas").iterdir() if p.is_dir())
    assert folders == sorted(f for _, _, f in render.PLUGINS)


def test_pixel_difference_counts_only_outside_the_masks(tmp_path):
    from PIL import Image
    a, b = Image.new("RGB", (10, 10), "white"), Image.new("RGB", (10, 10), "white")
    for x in range(4):
        b.putpixel((x, 0), (0, 0, 0))          # 4 of 100 pixels differ
    a.save(tmp_path / "a.png")
    b.save(tmp_path / "b.png")
    assert render.pixel_difference(str(tmp_path / "a.png"), str(tmp_path / "b.png")) == 0.04
    assert render.pixel_difference(str(tmp_path / "a.png"), str(tmp_path / "b.png"), [(0, 0, 1, 0)]) == 0.02
    Image.new("RGB", (10, 11), "white").save(tmp_path / "c.png")
    assert render.pixel_difference(str(tmp_path / "a.png"), str(tmp_path / "c.png")) == 1.0


def test_the_measured_panel_boxes_are_those_listed():
    result = {"file": "aix-overview.json", "panels": [
        {"title": "Collector duration", "box": {"x": 800.5, "y": 1500, "width": 700, "height": 270}},
        {"title": "CPU (vmstat)", "box": {"x": 10, "y": 150, "width": 700, "height": 270}}]}
    assert render.measured_boxes(result) == [(800, 1500, 1501, 1771)]


def test_a_page_whose_request_failed_in_transport_is_drawn_again_a_query_error_is_not(monkeypatch):
    shots = []

    def shoot(tools, url, png, height):
        shots.append(url)
        return pages.pop(0)
    monkeypatch.setattr(render, "shoot", shoot)
    monkeypatch.setattr(render, "layout_height", lambda d: 600)
    dropped, drawn = [shown("CPU", text="Failed to fetch", error=True)], [shown("CPU")]
    pages = [dropped, dropped, drawn]
    assert render.render_one(None, "http://p", "aix-x", {}, "x.png") == drawn and len(shots) == 3
    pages, shots[:] = [dropped, dropped, dropped, drawn], []
    assert render.render_one(None, "http://p", "aix-x", {}, "x.png") == dropped and len(shots) == 3   # at most 3
    bad_query = [shown("CPU", text="bad_data: 1:5: parse error: unclosed left parenthesis", error=True)]
    pages, shots[:] = [bad_query, drawn], []
    assert render.render_one(None, "http://p", "aix-x", {}, "x.png") == bad_query and len(shots) == 1
    # the error icon beside the legend alone (an answer too late on a loaded machine): drawn again
    late = [shown("Read and written", text="tsmsrv01:10990 read\ntsmsrv02:10990 read", error=True)]
    pages, shots[:] = [late, drawn], []
    assert render.render_one(None, "http://p", "aix-x", {}, "x.png") == drawn and len(shots) == 2


def test_a_failed_build_leaves_its_reason_for_the_render_test_and_a_later_build_clears_it(tmp_path, monkeypatch):
    """One build at a time (a lock beside the cache); a build that fails (here: no Go on PATH)
    writes its one-line reason, which wait_for_build (the render test) says instead of waiting or
    building again; the next build removes it."""
    cache = str(tmp_path / "perses-vX")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(render.os, "access", lambda p, mode: False)    # (not /usr/local/go/bin/go either)
    with pytest.raises(RuntimeError, match="the render needs go"):
        render.build(cache, log=lambda *a: None)
    assert open(render.failed_marker(cache)).read() == "the render needs go (Go)\n"
    with pytest.raises(RuntimeError) as e:
        render.wait_for_build(cache)
    assert str(e.value) == "the Perses build failed: the render needs go (Go)"
    assert os.path.exists(cache + ".lock")
    monkeypatch.setattr(render, "_build", lambda tools, log: tools)    # a build that works
    render.build(cache, log=lambda *a: None)
    assert not os.path.exists(render.failed_marker(cache))
    with pytest.raises(RuntimeError, match="Perses is not built in"):   # (this stand-in built nothing)
        render.wait_for_build(cache)


def census_like():
    """A Grafana table in our dashboards' form: three queries merged, a code's name as a label
    of the first query alone, organize, overrides with a unit, decimals and text mappings."""
    return {
        "type": "table", "title": "Fleet",
        "targets": [{"refId": "A", "expr": 'max by (instance, job, state) (label_replace(x == 1, "state", "on", "", ""))'},
                    {"refId": "B", "expr": "avg by (instance, job) (y)"},
                    {"refId": "C", "expr": "avg by (instance, job) (z)"}],
        "transformations": [
            {"id": "merge", "options": {}},
            {"id": "organize", "options": {
                "excludeByName": {"Time": True, "Value #C": True},
                "renameByName": {"instance": "LPAR", "state": "State", "Value #A": "Code", "Value #B": "Miss ratio"},
                "indexByName": {"instance": 0, "state": 1, "Value #A": 2, "Value #B": 3, "job": 4}}},
            {"id": "sortBy", "options": {"sort": [{"field": "Code", "desc": True}]}}],
        "fieldConfig": {"defaults": {"unit": "short"}, "overrides": [
            {"matcher": {"id": "byName", "options": "State"}, "properties": [
                {"id": "mappings", "value": [{"type": "value", "options": {"on": {"text": "switched on"}}}]}]},
            {"matcher": {"id": "byName", "options": "Code"}, "properties": [{"id": "decimals", "value": 0}]},
            {"matcher": {"id": "byName", "options": "Miss ratio"}, "properties": [
                {"id": "unit", "value": "percentunit"},
                {"id": "mappings", "value": [{"type": "special", "options": {"match": "nan", "result": {"text": "-"}}},
                                             {"type": "range", "options": {"from": 1e300, "to": None,
                                                                           "result": {"text": "new"}}}]}]}]},
    }


def test_a_grafana_table_is_carried_into_perses_with_its_columns_formats_and_rows():
    """Issue 58, item 6: what percli's migration leaves out. Perses names a query's value
    "value #N" and the time "timestamp"; the organize order, headers and hidden columns, the
    units and decimals, the sort, the text mappings; rows joined on the labels every query has
    (not the state, which only the first gives)."""
    spec: dict = {}
    render.complete_table(census_like(), spec)
    assert spec["columnSettings"] == [
        {"name": "instance", "header": "LPAR", "format": {"unit": "decimal", "shortValues": False}},
        {"name": "state", "header": "State", "format": {"unit": "decimal", "shortValues": False}},
        {"name": "value #1", "header": "Code", "format": {"unit": "decimal", "decimalPlaces": 0, "shortValues": False},
         "sort": "desc"},
        {"name": "value #2", "header": "Miss ratio", "format": {"unit": "percent-decimal"}},
        {"name": "job", "header": "job", "format": {"unit": "decimal", "shortValues": False}},
        {"name": "timestamp", "header": "Time", "hide": True, "format": {"unit": "decimal", "shortValues": False}},
        {"name": "value #3", "header": "Value #C", "hide": True, "format": {"unit": "decimal", "shortValues": False}}]
    assert spec["cellSettings"] == [
        {"condition": {"kind": "Value", "spec": {"value": "on"}}, "text": "switched on"},
        {"condition": {"kind": "Misc", "spec": {"value": "NaN"}}, "text": "-"},
        {"condition": {"kind": "Range", "spec": {"min": 1e300}}, "text": "new"}]
    assert spec["transforms"] == [{"kind": "MergeSeries", "spec": {}},
                                  {"kind": "JoinByColumnValue", "spec": {"columns": ["instance", "job"]}}]


@pytest.mark.parametrize("change, message", [
    (lambda p: p["fieldConfig"]["overrides"][0]["properties"][0]["value"][0]["options"].update({"1": {"text": "one"}}),
     "column 'State': a value mapping on the number 1: Perses would apply it to every column; give the name as a label"),
    (lambda p: p["fieldConfig"]["overrides"][1]["properties"].append({"id": "unit", "value": "decmbytes"}),
     "no Perses format for Grafana's unit 'decmbytes': add it to render.UNITS"),
    (lambda p: p["fieldConfig"]["overrides"][2]["properties"][1]["value"].append(
        {"type": "regex", "options": {"pattern": "x", "result": {"text": "y"}}}),
     "column 'Miss ratio': a regex mapping Perses cannot carry"),
])
def test_what_perses_cannot_show_as_grafana_does_stops_the_render(change, message):
    """A mapping on a number would rename that number in every column of the Perses table (its
    cell settings are the table's); a unit or mapping without a Perses form would be lost."""
    panel = census_like()
    change(panel)
    with pytest.raises(RuntimeError) as e:
        render.complete_table(panel, {})
    assert str(e.value) == message


def test_a_chart_grows_to_hold_its_legend_and_the_panels_below_move_down():
    source = {"panels": [{"type": "timeseries", "title": "CPU"}, {"type": "stat", "title": "CPUs"},
                         {"type": "timeseries", "title": "Memory"}]}
    d = {"spec": {"panels": {"0_0": {"spec": {"display": {"name": "CPU"}, "plugin": {"kind": "TimeSeriesChart"}}},
                             "0_1": {"spec": {"display": {"name": "CPUs"}, "plugin": {"kind": "StatChart"}}},
                             "0_2": {"spec": {"display": {"name": "Memory"}, "plugin": {"kind": "TimeSeriesChart"}}}},
                  "layouts": [{"spec": {"items": [
                      {"x": 0, "y": 0, "width": 12, "height": 8, "content": {"$ref": "#/spec/panels/0_0"}},
                      {"x": 12, "y": 0, "width": 12, "height": 4, "content": {"$ref": "#/spec/panels/0_1"}},
                      {"x": 0, "y": 8, "width": 24, "height": 12, "content": {"$ref": "#/spec/panels/0_2"}}]}}]}}
    render.complete(source, d)
    assert [(i["y"], i["height"]) for i in d["spec"]["layouts"][0]["spec"]["items"]] == [(0, 10), (0, 6), (10, 12)]
