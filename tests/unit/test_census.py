"""report --census (report/census.py) at unit level, on answers written by hand: the columns'
queries, the merge by LPAR, the ranking (state, then system/user CPU, then the miss ratio, no
data last) and every column of the Markdown and CSV tables."""
import json

from aix_exporter.report import census
from aix_exporter.report.census import Lpar
from tests.lib import ROOT


class FakePrometheus:
    """Answers each column's query with the rows given for it; records what was asked."""

    def __init__(self, rows):
        self.rows, self.asked = rows, []

    def instant(self, expr, at):
        self.asked.append((expr, at))
        for name in census.COLUMNS:
            if expr == census.column(name, 'job="aix"', "7200s"):
                return [{"metric": {"instance": i, "job": "aix"}, "value": v} for i, v in self.rows.get(name, [])]
        raise AssertionError(f"unexpected query {expr}")


def test_the_columns_read_the_recording_rules():
    code = 'last_over_time(aix:census_regime:code{job="aix"}[1h])'
    assert census.column("state", 'job="aix"', "2h") == (
        f'max by (instance, job, state) (label_replace(({code}) == 5, "state", "down after ANR0358E", "", "")'
        f' or label_replace(({code}) == 4, "state", "mandatory at risk", "", "")'
        f' or label_replace(({code}) == 3, "state", "falling back (pool full)", "", "")'
        f' or label_replace(({code}) == 2, "state", "16 MB pages", "", "")'
        f' or label_replace(({code}) == 1, "state", "64 KB pages", "", "")'
        f' or label_replace(({code}) == 0, "state", "4 KB pages", "", ""))')
    assert census.column("sys_per_user", 'job="aix"', "2h") == \
        'avg by (instance, job) (avg_over_time(aix:cpu_sys_per_user:ratio{job="aix"}[2h]))'
    assert census.column("pin_miss", 'job="aix"', "2h") == \
        'avg by (instance, job) (avg_over_time(aix:pin_lock_miss:ratio{job="aix"}[2h]))'
    assert census.column("pin_misses_s", 'job="aix"', "2h") == \
        'avg by (instance, job) (avg_over_time(aix:pin_lock_misses:rate{job="aix"}[2h]))'
    assert census.column("tape_mib_s", 'job="aix"', "$__range") == \
        'sum by (instance, job) (avg_over_time(aix:tape_bytes_all:rate5m{job="aix"}[$__range])) / 1048576'
    aso = 'last_over_time(aix_aso_active{job="aix"}[1h])'
    assert census.column("aso_active", 'job="aix"', "2h") == (
        f'max by (instance, job, aso) (label_replace(({aso}) == 1, "aso", "active", "", "")'
        f' or label_replace(({aso}) == 0, "aso", "inactive", "", ""))')
    tsm = 'last_over_time(aix:tsm_health:code{job="aix"}[1h])'
    assert census.column("tsm_health", 'job="aix"', "2h") == (
        f'max by (instance, job, tsm) (label_replace(({tsm}) == 2, "tsm", "critical", "", "")'
        f' or label_replace(({tsm}) == 1, "tsm", "warning", "", "")'
        f' or label_replace(({tsm}) == 0, "tsm", "ok", "", ""))')
    assert list(census.COLUMNS) == ["state", "sys_per_user", "pin_miss", "pin_misses_s", "tape_mib_s", "aso_active",
                                    "tsm_health"]


def test_census_merges_by_lpar_and_ranks_worst_first():
    prom = FakePrometheus({
        "state": [("a:1", 0.0), ("b:1", 1.0), ("c:1", 0.0), ("d:1", 3.0)],
        "sys_per_user": [("a:1", 5.0), ("b:1", 1.0), ("c:1", 5.0), ("e:1", 9.0)],
        "pin_miss": [("a:1", 0.25), ("c:1", 0.30)],
        "pin_misses_s": [("a:1", 3825.0)],
        "tape_mib_s": [("a:1", 139.0), ("b:1", 378.0)],
        "tsm_health": [("a:1", 1.0), ("d:1", 0.0)],
    })
    rows = census.census(prom, 1_800_000_000.0, 7200, 'job="aix"')
    assert [r.instance for r in rows] == ["d:1", "b:1", "c:1", "a:1", "e:1"]   # e: no state, last
    assert all(at == 1_800_000_000.0 for _, at in prom.asked) and len(prom.asked) == 7
    a = rows[3]
    assert (a.instance, a.job) == ("a:1", "aix")
    assert (a.state, a.sys_per_user, a.pin_miss, a.pin_misses_s, a.tape_mib_s) == (0.0, 5.0, 0.25, 3825.0, 139.0)
    assert rows[4].state is None and rows[4].state_text == "n/a"
    # the TSM health is shown, never ranked by: d (health ok) before b (none)
    assert [(r.tsm_health, r.tsm_text) for r in rows] == [(0.0, "ok"), (None, "n/a"), (None, "n/a"), (1.0, "warning"),
                                                          (None, "n/a")]


def test_ranking_from_both_sides():
    def order(*lpars):
        return [x.instance for x in sorted(lpars, key=Lpar.rank)]
    assert order(Lpar("x", "j", 1.0), Lpar("y", "j", 2.0)) == ["y", "x"]
    assert order(Lpar("x", "j", 0.0, 2.0), Lpar("y", "j", 0.0, 3.0)) == ["y", "x"]
    assert order(Lpar("x", "j", 0.0, 3.0, 0.1), Lpar("y", "j", 0.0, 3.0, 0.2)) == ["y", "x"]
    assert order(Lpar("y", "j", 0.0, 3.0, 0.2), Lpar("x", "j", 0.0, 3.0, 0.2)) == ["x", "y"]     # then by name
    assert order(Lpar("x", "j", 0.0, None), Lpar("y", "j", 0.0, 0.0)) == ["y", "x"]             # no data last
    assert [Lpar("x", "j", float(k)).state_text for k in range(6)] == [
        "4 KB pages", "64 KB pages", "16 MB pages", "falling back (pool full)", "mandatory at risk", "down after ANR0358E"]


def test_every_column_of_the_markdown_and_csv():
    rows = [Lpar("atrisk:10990", "aix", 4.0, 1.1, 0.01, 40.4, 350.04, 1.0, 2.0),
            Lpar("contended:10990", "aix", 0.0, 4.995, 0.25, 3825.5, 139.0, 0.0, 0.0),
            Lpar("new:10990", "aix")]
    md = census.markdown(rows, "2027-01-15 08:00 UTC", "24 h")
    assert md.splitlines() == [
        "# Fleet census: 3 LPARs", "",
        "State at 2027-01-15 08:00 UTC; contention and tape averaged over the 24 h before it. Worst first.", "",
        "By state: down after ANR0358E 0, mandatory at risk 1, falling back (pool full) 0, 16 MB pages 0, 64 KB pages 0, 4 KB pages 1", "",
        "| LPAR | job | state | system / user CPU | pin_seg_range miss ratio | pin lock misses/s | tape MiB/s | ASO "
        "| TSM health |",
        "|---|---|---|---:|---:|---:|---:|---|---|",
        "| atrisk:10990 | aix | mandatory at risk | 1.10 | 0.0100 | 40 | 350.0 | active | critical |",
        "| contended:10990 | aix | 4 KB pages | 5.00 | 0.2500 | 3,826 | 139.0 | inactive | ok |",
        "| new:10990 | aix | n/a | n/a | n/a | n/a | n/a | n/a | n/a |"]
    assert census.csv_text(rows).splitlines() == [
        "instance,job,state,state_code,sys_per_user,pin_miss,pin_misses_s,tape_mib_s,aso_active,tsm_health",
        "atrisk:10990,aix,mandatory at risk,4.0,1.1,0.01,40.4,350.04,1.0,2.0",
        "contended:10990,aix,4 KB pages,0.0,4.995,0.25,3825.5,139.0,0.0,0.0",
        "new:10990,aix,n/a,,,,,,,"]


def test_the_dashboard_table_is_the_census_columns():
    d = json.loads((ROOT / "dashboards" / "aix-fleet-census.json").read_text())
    table = next(p for p in d["panels"] if p["type"] == "table")
    sel = 'job=~"aix.*"'
    assert [t["expr"] for t in table["targets"]] == [census.column(k, sel, "$__range") for k in census.COLUMNS]


def test_series_without_a_job_or_instance_label_are_one_lpar_each_with_empty_labels():
    class Bare:
        def instant(self, expr, at):
            if "census_regime" in expr:
                return [{"metric": {"instance": "a:1"}, "value": 1.0}, {"metric": {"job": "aix"}, "value": 2.0}]
            if "cpu_sys_per_user" in expr:
                return [{"metric": {"instance": "a:1"}, "value": 4.0}]
            return []
    rows = census.census(Bare(), 1_800_000_000.0, 3600, 'job="aix"')
    assert [(r.instance, r.job, r.state, r.sys_per_user) for r in rows] == [("", "aix", 2.0, None),
                                                                            ("a:1", "", 1.0, 4.0)]
