"""The before/after figures are defined once, in exporter/aix_exporter/figures.json: the report,
the per-regime recording rules and both comparison dashboards read it, and this test fails when
one of them carries a figure expression, a row, a direction or a "same" band of its own."""
import dataclasses
import json
import re

import pytest
import yaml

from aix_exporter import figures
from aix_exporter.report import compare
from tests.lib import ROOT

DASH = ROOT / "dashboards"


def rows(expr):
    """{row label: its expression} of a table target built as label_replace(..., "figure", ROW, "", "") or ..."""
    out = {}
    for part in expr.split("\nor\n"):
        m = re.fullmatch(r'label_replace\((.*), "figure", "([^"]+)", "", ""\)', part, re.S)
        assert m, part[:200]
        out[m.group(2)] = m.group(1)
    return out


def labels():
    return [f"{k} {f.row}" for k, f in enumerate(figures.FIGURES, 1)]


def test_the_report_uses_the_table():
    assert compare.FIGURES is figures.FIGURES
    assert [f.key for f in figures.FIGURES] == ["tape", "transfers", "user", "sys", "wait", "sys_per_user", "cpu_per_gib",
                                                "pin_miss", "mem_4k", "mem_16m", "lgpg_regions"]
    row = compare.FigureRow(figures.FIGURES[0], 100.0, 104.9)        # inside the table's band: same
    assert figures.SAME_BAND == 0.05 and row.verdict == "same"
    assert compare.FigureRow(figures.FIGURES[0], 100.0, 105.1).verdict == "better"


def test_a_figure_reads_its_parts_checks_and_reading_from_the_table():
    fig = {f.key: f for f in figures.FIGURES}
    assert fig["tape"].parts == (figures.Part("tape_bytes", ""),)
    assert fig["sys_per_user"].parts == (figures.Part("cpu", 'mode="sys"'), figures.Part("cpu", 'mode="user"'))
    assert fig["cpu_per_gib"].per == figures.Part("tape_bytes", "") and fig["cpu_per_gib"].scale == " * 1073741824"
    assert figures.Part("cpu", "").checks == {"collector": "vmstat", "samples": "aix_vmstat_cpu_ratio{SEL}",
                                              "min": 0, "max": 1}
    assert figures.Part("cpu", "").record == "aix:regime_cpu:ratio"
    assert fig["lgpg_regions"].reading == "16 MB pages configured (vmo lgpg_regions): the change itself."
    assert [f.key for f in figures.FIGURES if f.decides] == ["tape", "sys_per_user", "pin_miss"]
    assert [f.key for f in figures.FIGURES if f.zero_if_absent] == ["mem_16m"]
    # one table for the report and the dashboards: no consumer can change it under the others
    with pytest.raises(dataclasses.FrozenInstanceError):
        fig["tape"].scale = ""
    with pytest.raises(dataclasses.FrozenInstanceError):
        fig["tape"].of.select = 'mode="sys"'


def test_a_figure_over_a_window_is_its_parts_filled_in():
    tape, spu, cpg = (next(f for f in figures.FIGURES if f.key == k) for k in ("tape", "sys_per_user", "cpu_per_gib"))
    assert tape.window('instance="a"', "600s", " @ 1000") == (
        '(sum by (instance, job) (rate(aix_tape_read_bytes_total{instance="a"}[600s] @ 1000)) + '
        'sum by (instance, job) (rate(aix_tape_written_bytes_total{instance="a"}[600s] @ 1000))) / 1048576')
    assert spu.window('instance="a"', "1h", " offset 5h") == (
        '((avg by (instance, job) (avg_over_time(aix_vmstat_cpu_ratio{instance="a",mode="sys"}[1h] offset 5h))) / '
        '(avg by (instance, job) (avg_over_time(aix_vmstat_cpu_ratio{instance="a",mode="user"}[1h] offset 5h))))')
    assert cpg.window("", "1h", "").endswith(")) * 1073741824") and "aix_vmstat_physical_cpus_consumed{}" in cpg.window("", "1h", "")


def test_the_4k_vs_16m_table_is_the_tables_window_forms():
    d = json.loads((DASH / "aix-4k-vs-16m.json").read_text())
    targets = d["panels"][0]["targets"]
    sel = 'job=~"aix.*",instance=~"$instance"'    # the mixin's selector, then the LPAR picker
    for k, offset in ((0, "$before"), (1, "$after")):
        got = rows(targets[k]["expr"])
        assert list(got) == labels()
        for f, label in zip(figures.FIGURES, labels()):
            assert got[label] == f.window(sel, "$window", f" offset {offset}"), label
    ratio = rows(targets[2]["expr"])
    for f, label in zip(figures.FIGURES, labels()):
        assert ratio[label] == f"({f.window(sel, '$window', ' offset $after')}) / ({f.window(sel, '$window', ' offset $before')})"


def test_the_before_after_table_reads_each_figures_own_records_with_the_tables_band():
    d = json.loads((DASH / "aix-before-after.json").read_text())
    targets = d["panels"][0]["targets"]
    for t in targets:
        got = rows(t["expr"])
        assert list(got) == labels()
        for f, label in zip(figures.FIGURES, labels()):
            want = {f.of.record} | ({f.per.record} if f.per else set())
            assert set(re.findall(r"aix:regime_[a-z0-9_]+:[a-z0-9]+", got[label])) == want, label
            for part in (f.of, f.per):
                if part is not None and part.select:
                    assert part.select in got[label], label
    verdict = targets[3]["expr"]
    # each deciding figure scored once per verdict name (better, worse, -: one selection each)
    deciding = sum(1 for f in figures.FIGURES if f.decides)
    assert verdict.count("> bool 1.05") == verdict.count("< bool 0.95") == 3 * deciding and deciding == 3


def test_the_per_regime_rules_are_the_tables_records():
    rules = yaml.safe_load((ROOT / "alerts" / "aix-rules.yml").read_text())
    recorded = {r["record"]: r["expr"] for g in rules["groups"] for r in g["rules"] if r.get("record", "").startswith("aix:regime_")
                and r["record"] not in ("aix:regime_16m:bool", "aix:regime_page_size:bytes")}
    assert set(recorded) == set(figures.RECORDS)
    for name, minute in figures.RECORDS.items():
        assert recorded[name].startswith("(" + minute.replace("SEL", 'job=~"aix.*"') + ") * on (instance, job)"), name


def test_no_consumer_selects_pin_seg_range_its_own_way():
    """The drift this table ended: the 4K-vs-16M dashboard matched function=".pin_seg_range" while
    the report and the rules accepted the name with or without its leading dot."""
    texts = [p.read_text() for p in DASH.glob("*.json")] + [(ROOT / "alerts" / "aix-rules.yml").read_text(),
                                                         (ROOT / "exporter" / "aix_exporter" / "report" / "compare.py").read_text()]
    for text in texts:
        assert not re.search(r'function="\.?pin_seg_range"', text)
