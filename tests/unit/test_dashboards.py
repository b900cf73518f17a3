"""Dashboards: compiled JSON equals the jsonnet sources, validates against the schema derived
from @grafana/schema, has datasource and instance variables, and names only real metrics."""
import copy
import json
import re
import sys

import jsonschema
import pytest
import yaml

from tests import metricsdoc
from tests.lib import FIXTURES, ROOT

DASH = ROOT / "dashboards"
sys.path.insert(0, str(DASH))
import build_dashboards as build  # noqa: E402

SCHEMA = json.loads((ROOT / "tests" / "schema" / "grafana-dashboard.schema.json").read_text())
NAMES = ["aix-4k-vs-16m.json", "aix-before-after.json", "aix-fleet-census.json", "aix-large-pages.json",
         "aix-lock-contention.json", "aix-overview.json", "aix-tape.json", "aix-tsm-server.json"]


def dashboards():
    return {n: json.loads((DASH / n).read_text()) for n in NAMES}


def exprs(d):
    """Every PromQL expression of a dashboard: panel targets and annotation queries."""
    out = []
    for p in d["panels"]:
        for t in p.get("targets", []):
            out.append((p["title"], t["expr"]))
    for a in d["annotations"]["list"]:
        if "expr" in a:
            out.append((a["name"], a["expr"]))
    return out


def test_compiled_json_equals_the_sources():
    compiled = build.compile_all()
    assert sorted(compiled) == NAMES
    for name, text in compiled.items():
        assert (DASH / name).read_text() == text, f"dashboards/{name} is stale: python3 dashboards/build_dashboards.py"


@pytest.mark.parametrize("name", NAMES)
def test_schema_valid_and_variables(name):
    d = dashboards()[name]
    errors = [e.message for e in jsonschema.Draft7Validator(SCHEMA).iter_errors(d)]
    assert errors == []
    names = [v["name"] for v in d["templating"]["list"]]
    assert names[:2] == ["datasource", "instance"]
    for p in d["panels"]:
        if p["type"] == "row":
            continue
        assert p["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        for t in p.get("targets", []):
            if p["title"].startswith("Fleet:"):   # across every LPAR on purpose: one row per instance
                # (and at most one more label: a code's name, as the census state)
                assert re.search(r"by \(instance, job(, \w+)?\)", t["expr"]), (p["title"], t["expr"])
                continue
            assert 'instance=~"$instance"' in t["expr"], (p["title"], t["expr"])


def test_schema_rejects_a_broken_dashboard():
    d = copy.deepcopy(dashboards()["aix-tape.json"])
    d["panels"][0]["gridPos"] = {"x": 0, "y": 0}      # w and h are required
    d["templating"]["list"][0]["type"] = "nonsense"   # not a VariableType
    del d["schemaVersion"]
    errors = list(jsonschema.Draft7Validator(SCHEMA).iter_errors(d))
    messages = {e.message for e in errors}
    assert "'schemaVersion' is a required property" in messages
    panel = [e for e in errors if list(e.absolute_path)[:2] == ["panels", 0]]
    assert panel and any("'w' is a required property" in c.message for e in panel for c in e.context)
    assert any("nonsense" in m for m in messages)


def test_every_metric_named_is_emitted_or_recorded():
    emitted = set(metricsdoc.emitted(metricsdoc.default_sources(str(FIXTURES / "replay" / "tsm-lpar"))))
    rules = yaml.safe_load((ROOT / "alerts" / "aix-rules.yml").read_text())
    recorded = {r["record"] for g in rules["groups"] for r in g["rules"] if "record" in r}
    for name, d in dashboards().items():
        for title, expr in exprs(d):
            for metric in re.findall(r"\b(aix[a-z0-9_:]*[a-z0-9_])\b", expr):
                assert metric in emitted or metric in recorded, (name, title, metric)


def test_comparison_dashboard_has_windows_ratio_table_and_regime_annotations():
    d = dashboards()["aix-4k-vs-16m.json"]
    assert [v["name"] for v in d["templating"]["list"]][2:] == ["before", "after", "window"]
    table = d["panels"][0]
    assert table["type"] == "table" and len(table["targets"]) == 3
    assert "offset $before" in table["targets"][0]["expr"] and "offset $after" in table["targets"][1]["expr"]
    from aix_exporter.figures import FIGURES
    assert len(table["targets"][2]["expr"].split("\nor\n")) == len(FIGURES)   # one after/before ratio per figure
    assert {a["name"] for a in d["annotations"]["list"]} >= {"lgpg_regions changed", "16MB mode changed", "LDR_CNTRL changed"}



def clashes(panels):
    """Panels outside the 24 columns or without a size, and panels sharing a cell with an
    earlier one: [(title, what)]."""
    cells, out = {}, []
    for p in panels:
        g = p["gridPos"]
        if not (g["w"] > 0 and g["h"] > 0 and g["x"] >= 0 and g["y"] >= 0 and g["x"] + g["w"] <= 24):
            out.append((p["title"], "outside the grid"))
        hit = sorted({cells[(x, y)] for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])
                      if (x, y) in cells})
        out += [(p["title"], f"overlaps {h}") for h in hit]
        cells.update({(x, y): p["title"] for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])})
    return out


@pytest.mark.parametrize("name", NAMES)
def test_panels_sit_side_by_side_without_overlapping(name):
    assert clashes(dashboards()[name]["panels"]) == []


def test_overlapping_or_overflowing_panels_are_found():
    panels = [{"title": "a", "gridPos": {"x": 0, "y": 0, "w": 12, "h": 8}},
              {"title": "b", "gridPos": {"x": 11, "y": 7, "w": 12, "h": 8}},     # one cell of a
              {"title": "c", "gridPos": {"x": 12, "y": 0, "w": 12, "h": 7}},     # touches a and b, shares nothing
              {"title": "d", "gridPos": {"x": 13, "y": 20, "w": 12, "h": 1}}]    # 25 columns
    assert clashes(panels) == [("b", "overlaps a"), ("d", "outside the grid")]


def table_columns(board, title_start):
    """[(column heading, what feeds it)] of a table panel, in the order Grafana shows them: a
    query's value (its expression) or a label, after the organize transformation."""
    panel = next(p for p in dashboards()[board]["panels"] if p["title"].startswith(title_start))
    organize = next(t["options"] for t in panel["transformations"] if t["id"] == "organize")
    exprs = {f"Value #{t['refId']}": t["expr"] for t in panel["targets"]}
    # Grafana's column positions: each once, from 0 (a repeated one leaves the order to chance)
    assert sorted(organize["indexByName"].values()) == list(range(len(organize["indexByName"])))
    order = sorted(organize["indexByName"], key=organize["indexByName"].get)
    assert not set(order) & {k for k, v in organize["excludeByName"].items() if v}
    # a label that one query alone gives (label_replace: a code's name) is fed by that query
    given = {k: [e for e in exprs.values() if f'"{k}", "' in e] for k in order}
    return [(organize.get("renameByName", {}).get(k, k),
             exprs.get(k, given[k][0] if len(given[k]) == 1 else f"label {k}")) for k in order]


# (heading, a part of the feeding expression that only the right query has), written by hand
TABLES = {
    ("aix-4k-vs-16m.json", "Comparison"): [
        ("Figure", "label figure"), ("LPAR", "label instance"), ("Before (base)", "offset $before"),
        ("After", "offset $after"), ("After / before", ") / (")],
    ("aix-before-after.json", "$instance: $from regime"): [
        ("Figure", "label figure"), ("Before", 'regime="$from"'), ("After", 'regime="$to"'),
        ("After / before", ") / ("), ("Verdict", '"verdict", "better"')],
    ("aix-fleet-census.json", "Fleet: state"): [
        ("LPAR", "label instance"), ("State", '"state", "16 MB pages"'), ("Code", "aix:census_regime:code"),
        ("System / user CPU", "aix:cpu_sys_per_user:ratio"),
        ("pin_seg_range miss ratio", "aix:pin_lock_miss:ratio"), ("Pin lock misses/s", "aix:pin_lock_misses:rate"),
        ("Tape MiB/s", "aix:tape_bytes_all:rate5m"), ("ASO", '"aso", "active"'),
        ("TSM health", '"tsm", "critical"'), ("Job", "label job")],
    # comparability for tape: each signal over the minutes of the $from regime, then of the $to regime
    ("aix-before-after.json", "$instance: comparability for tape"): [
        ("Signal", "label figure"), ("Before", 'regime="$from"'), ("After", 'regime="$to"')],
    # dsmadmc query mount: the LPAR, then the drive, its device, the volume and the mount's status
    ("aix-tape.json", "TSM: volumes mounted"): [
        ("instance", "label instance"), ("drive", "label drive"), ("device", "label device"), ("volume", "label volume"),
        ("status", "label status")],
}


@pytest.mark.parametrize("board, title", sorted(TABLES))
def test_every_table_column_has_its_heading_over_its_own_query(board, title):
    columns = table_columns(board, title)
    assert [h for h, _ in columns] == [h for h, _ in TABLES[(board, title)]]
    for (heading, feed), (_, part) in zip(columns, TABLES[(board, title)]):
        assert part in feed, (heading, part, feed[:200])
    before_after = dict(columns)
    if "Before" in before_after:   # the before column reads only the $from regime, the after only $to
        assert 'regime="$to"' not in before_after["Before"]
        assert 'regime="$from"' not in before_after["After"]
    if "Before (base)" in before_after:
        assert "$after" not in before_after["Before (base)"] and "$before" not in before_after["After"]
    if "After / before" in before_after:   # after over before: the numerator is the after window's
        numerator = before_after["After / before"].split(") / (", 1)[0]
        assert ('regime="$to"' in numerator or "offset $after" in numerator), numerator[:200]
        assert 'regime="$from"' not in numerator and "offset $before" not in numerator, numerator[:200]


def unit_of(expr):
    """The Grafana unit a query's result has, from the Prometheus naming conventions of what it
    reads (base units in the metric name), or None where the name does not say: a share of two
    byte counts or a *_ratio is a fraction (percentunit), a rate of bytes is bytes per second
    (binBps: the case study's MB/s are MiB/s), a byte gauge bytes, *_seconds seconds; figures
    already scaled (/ 1048576, * 100), counts and codes (a comparison with bool: 0 or 1) say
    nothing."""
    if re.search(r"1048576|2\^20|\* 100\b|^count|== bool", expr):
        return None
    if "acquisitions" in expr:          # acquisitions x miss ratio: misses, a count
        return None
    if "cpu_sys_per_user" in expr:      # system CPU per user CPU: a plain number ("15 vs 3")
        return "short"
    # (a share of two byte counts: with or without vector matching, the divisor in parentheses or not)
    share = r"_bytes\{[^}]*\}\s*/\s*(?:(?:ignoring|on)\s*\([^)]*\)\s*)?\(?\s*\w+_bytes\{"
    if re.search(share, expr) or re.search(r"_ratio\b|:ratio\b", expr):
        return "percentunit"
    if "bytes" in expr and re.search(r"\b(?:i?rate)\(|:rate5m\b", expr):
        return "binBps"
    if re.search(r"[_:]bytes\b", expr):   # a byte gauge, or a recording rule's (aix:regime_page_size:bytes)
        return "bytes"
    if re.search(r"_seconds\b", expr):
        return "s"
    return None


def test_the_unit_rule_reads_the_names():
    assert unit_of('aix_paging_space_inuse_bytes{a="b"} / aix_paging_space_size_bytes{a="b"}') == "percentunit"
    assert unit_of("rate(aix_tape_read_bytes_total{x}[5m])") == "binBps"
    assert unit_of("aix_memory_page_inuse_bytes{x}") == "bytes"
    assert unit_of('aix_tsm_log_space_bytes{k="used"} / ignoring (kind) (aix_tsm_log_space_bytes{k="total"} > 0)') \
        == "percentunit"
    assert unit_of("aix:regime_page_size:bytes{x}") == "bytes"   # 16 MiB, not 16.8 MB (decbytes)
    assert unit_of("aix:pin_lock_miss:ratio{x}") == "percentunit"
    assert unit_of("sum by (instance) (aix:tape_bytes_all:rate5m{x}) / 1048576") is None
    assert unit_of("time() - aix_splat_report_timestamp_seconds{x}") == "s"
    assert unit_of("aix_tape_transfers_per_second{x}") is None
    assert unit_of("(aix:regime_page_size:bytes{x} == bool 4096) + 2 * (aix:regime_page_size:bytes{x} == bool 65536)") is None


@pytest.mark.parametrize("name", NAMES)
def test_each_chart_and_stat_has_the_unit_its_queries_measure_in(name):
    """A panel whose queries' names say their unit shows that unit: a ratio drawn as
    'percent' reads 100 times too small, bytes per second drawn as 'bytes' look like a size."""
    checked = 0
    for p in dashboards()[name]["panels"]:
        if p["type"] not in ("timeseries", "stat"):
            continue
        units = {unit_of(t["expr"]) for t in p["targets"]} - {None}
        assert len(units) <= 1, (p["title"], units)
        if units:
            assert p["fieldConfig"]["defaults"]["unit"] == units.pop(), p["title"]
            checked += 1
    assert checked >= {"aix-fleet-census.json": 0, "aix-large-pages.json": 1, "aix-before-after.json": 1}.get(name, 2)


def test_the_census_state_column_names_each_code_of_the_rule_and_formats_each_figure():
    """aix:census_regime:code's six codes (alerts/alerts.libsonnet) as the State column shows
    them, worst first, and each figure column's format, written by hand."""
    table = next(p for p in dashboards()["aix-fleet-census.json"]["panels"] if p["title"].startswith("Fleet: state"))
    by_column = {o["matcher"]["options"]: {pr["id"]: pr["value"] for pr in o["properties"]}
                 for o in table["fieldConfig"]["overrides"]}
    # the state's name is a label of the first query, one selection per code (Grafana and Perses
    # show it in its own column); the code itself is the Code column, by which the rows are ranked
    named = re.findall(r'== (\d), "state", "([^"]+)", "", ""\)', table["targets"][0]["expr"])
    states = {int(k): v for k, v in named}
    assert states == {5: "down after ANR0358E", 4: "mandatory at risk", 3: "falling back (pool full)",
                      2: "16 MB pages", 1: "64 KB pages", 0: "4 KB pages"}
    from aix_exporter.report.census import STATES
    assert states == STATES   # report --census names the states the same way
    colours = [by_column["State"]["mappings"][0]["options"][states[k]]["color"] for k in (5, 4, 3, 2, 1, 0)]
    assert colours == ["dark-red", "red", "orange", "green", "purple", "blue"]
    assert {k: v for k, v in by_column.items() if k != "State"} == {
        "Code": {"decimals": 0},
        "System / user CPU": {"decimals": 2}, "pin_seg_range miss ratio": {"unit": "percentunit"},
        "Pin lock misses/s": {"decimals": 0}, "Tape MiB/s": {"decimals": 1},
        "ASO": {"mappings": [{"type": "value", "options": {"active": {"color": "orange"},
                                                             "inactive": {"color": "transparent"}}}]},
        "TSM health": {"custom.cellOptions": {"type": "color-background"},
                       "mappings": [{"type": "value", "options": {"critical": {"color": "red"},
                                                                  "warning": {"color": "orange"},
                                                                  "ok": {"color": "green"}}}]}}
    aso = dict((v, int(k)) for k, v in re.findall(r'== (\d), "aso", "(\w+)", "", ""\)', table["targets"][5]["expr"]))
    assert aso == {"active": 1, "inactive": 0}
    tsm = {int(k): v for k, v in re.findall(r'== (\d), "tsm", "(\w+)", "", ""\)', table["targets"][6]["expr"])}
    from aix_exporter.report.census import TSM_HEALTH
    assert tsm == TSM_HEALTH == {2: "critical", 1: "warning", 0: "ok"}
    sort = next(t["options"]["sort"] for t in table["transformations"] if t["id"] == "sortBy")
    assert sort == [{"field": "Code", "desc": True}, {"field": "System / user CPU", "desc": True}]


def test_the_top_panels_rank_five_per_lpar():
    exprs = {p["title"]: p["targets"][0]["expr"] for p in dashboards()["aix-lock-contention.json"]["panels"]}
    assert exprs["Top functions by lock misses"].startswith("topk by (instance) (5, ")
    assert exprs["Top locks: acquisitions"].startswith("topk by (instance) (5, ")


@pytest.mark.parametrize("name", NAMES)
def test_with_several_lpars_selectable_every_series_names_its_lpar(name):
    """Where the LPAR picker takes several (multi), each chart and stat series' legend starts
    with its LPAR, so two LPARs' rmt0 or dsmserv are never one name twice; fleet-wide counts
    (count(...)) have no LPAR. A single-LPAR dashboard names it in the panel titles."""
    d = dashboards()[name]
    picker = next(v for v in d["templating"]["list"] if v["name"] == "instance")
    for p in d["panels"]:
        if p["type"] not in ("timeseries", "stat"):
            continue
        for t in p["targets"]:
            # a series across the LPARs (count, or max by something else than instance) has none
            across = re.match(r"(?:count\(|max by \((?![^)]*instance)[^)]*\) \()", t["expr"])
            if picker.get("multi") and not across:
                assert t["legendFormat"].startswith("{{instance}}"), (p["title"], t["legendFormat"])
            elif not picker.get("multi"):
                assert p["title"].startswith("$instance"), p["title"]


def test_descriptions_are_given_where_written_and_never_empty():
    panels = {(n, p["title"]): p for n, d in dashboards().items() for p in d["panels"]}
    assert not [k for k, p in panels.items() if p.get("description") == ""]
    assert panels[("aix-tape.json", "Total throughput")]["description"] == \
        "Case study: 139 MB/s with 4 KB pages, 378 MB/s with 16 MB pages."
    assert panels[("aix-overview.json", "CPU (vmstat)")]["description"] == \
        "User, sys, idle and wait of the last vmstat interval."
    assert "description" not in panels[("aix-tape.json", "Transfers per second")]


def test_counters_are_averaged_over_the_interval_never_read_from_two_samples():
    """A point of a chart is the rate over its whole interval (rate, increase), never irate's
    last two samples, whose value depends on where the step lands: an admin comparing two
    weeks must see the same figure at any zoom. Recording rules and alerts the same."""
    found = [(n, title) for n, d in dashboards().items() for title, e in exprs(d) if "irate(" in e]
    rules = (ROOT / "alerts" / "aix-rules.yml").read_text() + (ROOT / "alerts" / "demo-fast-rules.yml").read_text()
    assert found == [] and "irate(" not in rules


def verdicts(name="aix-before-after.json"):
    """{row label: (weight when after/before > 1 + band, weight when < 1 - band)} of the
    regime table's verdict query; (0, 0) for a figure that does not decide."""
    d = dashboards()[name]
    target = next(t for p in d["panels"] for t in p.get("targets", []) if "> bool" in t["expr"])
    out = {}
    for part in target["expr"].split("\nor\n"):
        row = re.search(r'"figure", "([^"]+)", "", ""\)$', part).group(1)
        up = re.search(r"> bool 1\.05\) \* (-?\d+)", part)
        down = re.search(r"< bool 0\.95\) \* (-?\d+)", part)
        out[row] = (int(up.group(1)), int(down.group(1))) if up and down else (0, 0)
    return out


def test_the_verdict_scores_each_deciding_figure_plus_or_minus_one_its_own_way():
    assert verdicts() == {
        "1 Tape throughput (MiB/s)": (1, -1),          # higher is better
        "2 Tape transfers (/s)": (0, 0), "3 User CPU (%)": (0, 0), "4 System CPU (%)": (0, 0), "5 Wait (%)": (0, 0),
        "6 System / user CPU": (-1, 1),                # lower is better
        "7 Physical CPU seconds per GiB to tape": (0, 0),
        "8 pin_seg_range miss ratio": (-1, 1),         # lower is better
        "9 Memory in 4 KB pages (GiB)": (0, 0), "10 Memory in 16 MB pages (GiB)": (0, 0),
        "11 lgpg_regions": (0, 0)}


def test_every_dashboard_is_written_for_grafana_schema_39():
    """Grafana migrates a dashboard on import from its schemaVersion: 39 is what these are
    written in (Grafana 10.3 to 11), so a later Grafana applies its own migrations to them."""
    assert {n: (d["schemaVersion"], d["version"], d["editable"], d["graphTooltip"]) for n, d in dashboards().items()} \
        == {n: (39, 1, True, 1) for n in NAMES}


def test_the_regime_table_shows_the_ratio_to_two_decimals_and_names_each_verdict():
    """What an admin reads in the before/after table: after/before as 2.72 (a base of 0 as
    "new", no data as "-"), and the verdict as better, worse or "-", coloured."""
    table = next(p for p in dashboards()["aix-before-after.json"]["panels"] if p["type"] == "table"
                 and p["fieldConfig"].get("overrides"))
    props = {o["matcher"]["options"]: {p["id"]: p["value"] for p in o["properties"]}
             for o in table["fieldConfig"]["overrides"]}
    ratio = props["After / before"]
    assert ratio["decimals"] == 2
    assert [(m["type"], m["options"].get("match"), m["options"].get("from"), m["options"]["result"]["text"])
            for m in ratio["mappings"]] == [("special", "nan", None, "-"), ("range", None, 1e300, "new")]
    verdict = props["Verdict"]
    assert verdict["custom.cellOptions"] == {"type": "color-background"}
    assert verdict["mappings"] == [{"type": "value", "options": {
        "worse": {"color": "red"}, "-": {"color": "transparent"}, "better": {"color": "green"}}}]
    # the names are the verdict query's labels, one per score, for every figure
    query = next(t["expr"] for t in table["targets"] if "> bool" in t["expr"])
    named = re.findall(r'== (-?\d), "verdict", "([^"]+)", "", ""\)', query)
    assert set(named) == {("1", "better"), ("-1", "worse"), ("0", "-")}
    assert len(named) == 3 * len(verdicts())


def test_no_counter_is_read_with_delta():
    """delta() is for gauges: on a counter it counts a reset as a fall. Counters (_total) are
    read with increase() or rate(), in the dashboards and the rules alike."""
    pattern = re.compile(r"\bdelta\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)")
    found = [(n, title, m) for n, d in dashboards().items() for title, e in exprs(d)
             for m in pattern.findall(e) if m.endswith("_total")]
    rules = (ROOT / "alerts" / "aix-rules.yml").read_text()
    assert found == [] and [m for m in pattern.findall(rules) if m.endswith("_total")] == []


def test_the_census_stat_counts_the_census_tables_state_column():
    """The stat counts LPARs by the very state the table and report --census show: the state
    column's query (report/census.py), equal to each code."""
    from aix_exporter.report import census
    stat = next(p for p in dashboards()["aix-fleet-census.json"]["panels"] if p["type"] == "stat")
    state = census.column("state", 'job=~"aix.*"', "$__range")
    assert [(t["legendFormat"], t["expr"]) for t in stat["targets"]] == [
        (name, f"count({state} == {code}) or vector(0)")
        for code, name in ((5, "down after ANR0358E"), (4, "mandatory at risk"), (3, "falling back"),
                           (2, "16 MB pages"), (1, "64 KB pages"), (0, "4 KB pages"))]


def test_a_figure_absent_in_a_regime_reads_0_there_not_its_siblings_value():
    """16 MB memory (zero_if_absent): where svmon has no 16 MB row, the row reads 0 times the
    part's other series, in the regime table's queries (the 4K-versus-16M dashboard's are the
    report's own Figure.window, pinned in test_figures.py)."""
    for name in ("aix-before-after.json",):
        rows = [e for _, e in exprs(dashboards()[name]) if 'psize="16M"' in e and "regime_memory_inuse" in e]
        assert rows, name
        for e in rows:
            assert re.search(r'psize="16M"\}\[\$__range\]\)\) or 0 \* max by \(instance, job\) \(avg_over_time\('
                             r'aix:regime_memory_inuse:bytes\{[^}]*regime="\$(from|to)"\}\[\$__range\]\)\)', e), (name, e[:300])


def test_the_annotations_mark_the_five_minutes_after_a_change_and_nothing_else(tmp_path):
    """Each annotation query of the 4K-versus-16M dashboard, evaluated by promtool on series
    that change once at minute 31: a mark from 31 to 35, none at 30 or from 36 on."""
    import subprocess
    from tests.lib import need
    annotations = {a["name"]: a["expr"].replace('instance=~"$instance"', 'instance=~".*"')
                   for a in dashboards()["aix-4k-vs-16m.json"]["annotations"]["list"] if "expr" in a}
    assert sorted(annotations) == ["16MB mode changed", "LDR_CNTRL changed", "lgpg_regions changed"]
    L = 'job="aix",instance="a"'
    series = [
        {"series": f'aix_vmo_tunable{{{L},tunable="lgpg_regions",setting="current"}}', "values": "0x30 160x30"},
        {"series": f'aix_process_large_page_info{{{L},pid="1",mode="N"}}', "values": "1x30 _x30"},
        {"series": f'aix_process_large_page_info{{{L},pid="1",mode="Y"}}', "values": "_x31 1x30"},
        {"series": f'aix_process_ldr_cntrl_info{{{L},pid="1",large_page_data=""}}', "values": "1x30 _x30"},
        {"series": f'aix_process_ldr_cntrl_info{{{L},pid="1",large_page_data="Y"}}', "values": "_x31 1x30"}]
    # (vxN is N + 1 samples, _xN is N gaps: each changes at minute 31)
    marked = {"lgpg_regions changed": '{instance="a", job="aix", setting="current", tunable="lgpg_regions"}',
              "16MB mode changed": '{instance="a", mode="Y"}',
              "LDR_CNTRL changed": '{instance="a", large_page_data="Y"}'}
    checks = []
    for name, expr in annotations.items():
        for minute in (30, 31, 35, 36, 50):
            want = [{"labels": marked[name], "value": 1}] if 31 <= minute <= 35 else []
            checks.append({"expr": expr, "eval_time": f"{minute}m", "exp_samples": want})
    import yaml
    f = tmp_path / "annotations.test.yml"
    f.write_text(yaml.safe_dump({"rule_files": [], "evaluation_interval": "1m", "tests": [
        {"interval": "1m", "input_series": series, "promql_expr_test": checks}]}))
    r = subprocess.run([need("promtool"), "test", "rules", str(f)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_table_queries_are_tables_and_charts_are_time_series():
    for name, d in dashboards().items():
        for p in d["panels"]:
            for t in p.get("targets", []):
                if p["type"] == "table":
                    assert t.get("format") == "table", (name, p["title"])
                else:
                    assert "format" not in t, (name, p["title"])   # Grafana's default: time_series


def test_a_custom_variable_selects_its_default_and_nothing_else():
    found = 0
    for name, d in dashboards().items():
        for v in d.get("templating", {}).get("list", []):
            if v.get("type") == "custom":
                found += 1
                default = v["current"]["value"]
                assert [o["value"] for o in v["options"] if o["selected"]] == [default], (name, v["name"])
                assert v["query"].split(",")[[o["value"] for o in v["options"]].index(default)] == default
    assert found == 5


def test_the_received_bytes_per_client_are_a_rate_per_lpar_and_client():
    """The exporter sums each client's open sessions; the panel is their rate, per LPAR and client."""
    tape = dashboards()["aix-tape.json"]
    got = {p["title"]: [t["expr"] for t in p["targets"]] for p in tape["panels"] if p["title"].startswith("TSM: ")}
    assert got["TSM: received per client"] == [
        'sum by (instance, client) (rate(aix_tsm_session_received_bytes{job=~"aix.*",instance=~"$instance"}'
        '[$__rate_interval]))']


def test_the_exhaustion_forecast_stays_between_0_and_the_pool(tmp_path):
    """The Large pages dashboard's forecast, evaluated by promtool: a pool of 160 pages whose
    free pages fall 1 a minute reads 0 (it runs out); the same pool freed at once when the server
    stops (0 then 144 free) reads at most its 160 pages, not the 600 a straight line gives; a flat
    pool reads its free pages."""
    import subprocess

    import yaml
    from tests.lib import need
    (expr,) = [e for _, e in exprs(dashboards()["aix-large-pages.json"]) if "predict_linear" in e]
    expr = expr.replace('instance=~"$instance"', 'instance=~".*"')
    rec = lambda name, values, inst: {"series": f'{name}{{job="aix",instance="{inst}"}}', "values": values}
    series = [rec("aix:large_pages_pool:count", "160x180", i) for i in ("falling", "stopped", "flat")] + [
        rec("aix:large_pages_free:count", "150-1x140", "falling"),
        rec("aix:large_pages_free:count", "0x150 144x29", "stopped"),
        rec("aix:large_pages_free:count", "40x180", "flat")]
    want = [{"labels": '{instance="falling", job="aix"}', "value": 0},
            {"labels": '{instance="flat", job="aix"}', "value": 40},
            {"labels": '{instance="stopped", job="aix"}', "value": 160}]
    f = tmp_path / "forecast.test.yml"
    f.write_text(yaml.safe_dump({"rule_files": [], "evaluation_interval": "1m", "tests": [
        {"interval": "1m", "input_series": series,
         "promql_expr_test": [{"expr": expr, "eval_time": "140m", "exp_samples": want[:2] + [
                                   {"labels": '{instance="stopped", job="aix"}', "value": 0}]},   # flat at 0
                              {"expr": expr + ' and on (instance) aix:large_pages_free:count{instance="stopped"}',
                               "eval_time": "175m", "exp_samples": want[2:]}]}]}))
    r = subprocess.run([need("promtool"), "test", "rules", str(f)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_aso_stat_turns_orange_when_aso_is_active():
    """aix_aso_active is 1 while the Active System Optimizer runs (it can take 16 MB pages from
    the pool on its own): the stat is green at 0 and orange from 1, as its description says."""
    (panel,) = [p for p in dashboards()["aix-large-pages.json"]["panels"]
                if p.get("title") == "Active System Optimizer (asoo aso_active)"]
    assert panel["fieldConfig"]["defaults"]["thresholds"]["steps"] == [{"color": "green", "value": None},
                                                                      {"color": "orange", "value": 1}]
