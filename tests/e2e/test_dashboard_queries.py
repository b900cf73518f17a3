"""Every dashboard query returns data from a real Prometheus holding the case-study history
(both comparison windows populated). A query that returns nothing fails."""
import json
import urllib.parse
import urllib.request

import pytest

from tests.conftest import ROOT
from tests.unit.test_dashboards import NAMES, exprs

VARS = {"$instance": ".*", "$window": "1h", "$before": "5h30m", "$after": "30m", "$__rate_interval": "5m",
        "$__interval": "1m"}


def substitute(expr):
    for k in sorted(VARS, key=len, reverse=True):
        expr = expr.replace(k, VARS[k])
    return expr


CASES = [(n, title, e) for n in NAMES for title, e in exprs(json.loads((ROOT / "dashboards" / n).read_text()))]


@pytest.mark.parametrize("name,title,expr", CASES, ids=[f"{n}:{t}" for n, t, _ in CASES])
def test_query_returns_data(case_study_prometheus, name, title, expr):
    p = case_study_prometheus
    q = urllib.parse.urlencode({"query": substitute(expr), "start": p.end - 8 * 3600, "end": p.end, "step": 300})
    with urllib.request.urlopen(f"{p.url}/api/v1/query_range?{q}", timeout=60) as r:
        body = json.load(r)
    assert body["status"] == "success", body
    series = body["data"]["result"]
    assert series and any(s["values"] for s in series), f"no data: {substitute(expr)}"


def test_comparison_table_reproduces_the_case_study(case_study_prometheus):
    """The ratio table's figures at the end of the history: the seed's ratios."""
    from tests.unit.test_dashboards import dashboards
    p = case_study_prometheus
    ratio_expr = substitute(dashboards()["aix-4k-vs-16m.json"]["panels"][0]["targets"][2]["expr"])
    rows = {r["metric"]["figure"]: float(r["value"][1]) for r in p.query(ratio_expr, p.end)}
    assert rows["1 Tape throughput (MiB/s)"] == pytest.approx(2.7, abs=0.15)
    assert rows["3 User CPU (%)"] >= 8
    assert rows["6 pin_seg_range miss ratio"] < 0.05
