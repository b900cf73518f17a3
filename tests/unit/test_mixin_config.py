"""One mixin config (exporter/aix_exporter/monitoring.json), read by the rules, the dashboards
and the report: changing the selector there (or overriding it in jsonnet) changes every rule,
every dashboard query and every report query, and none of them selects series its own way."""
import json
import re
import sys

import pytest

from aix_exporter import monitoring
from aix_exporter.report import compare
from tests.lib import ROOT

sys.path.insert(0, str(ROOT / "alerts"))
sys.path.insert(0, str(ROOT / "dashboards"))
import build_dashboards  # noqa: E402
import build_rules  # noqa: E402

OURS = 'job="lpar",tenant="tsm"'        # a deployment with its own job and a tenant label
OVERRIDE = "{ _config+:: { aixSelector: '%s' } }" % OURS
# a series of ours (raw aix_..., recorded aix:...) and its matchers, if any
SERIES = re.compile(r"\b(aix[_:][a-z0-9_:]*[a-z0-9_])\b(\{[^}]*\})?")
NOT_SERIES = {"aix_exporter"}    # words that are not series names (e.g. in legends)


def selections(expr):
    """Every series reference of a PromQL expression with its matcher text ('' when bare)."""
    out = []
    for m in SERIES.finditer(expr):
        if m.group(1) in NOT_SERIES or expr[m.end(1):m.end(1) + 1] == "(":
            continue
        out.append((m.group(1), (m.group(2) or "")[1:-1]))
    return out


def rule_exprs(rules):
    return [r["expr"] for g in rules["groups"] for r in g["rules"]]


def dashboard_exprs(boards):
    out = []
    for name, board in boards.items():
        board = json.loads(board) if isinstance(board, str) else board
        for panel in board["panels"]:
            out += [(name, t["expr"]) for t in panel.get("targets", [])]
        out += [(name, a["expr"]) for a in board["annotations"]["list"] if "expr" in a]
        out += [(name, v["query"]["query"]) for v in board["templating"]["list"] if isinstance(v.get("query"), dict)]
    return out


def test_the_settings_are_one_table_with_a_meaning_for_each():
    assert monitoring.SELECTOR == 'job=~"aix.*"'
    assert len(monitoring.CONFIG) == 57
    for name, s in monitoring.SETTINGS.items():
        assert set(s) - {"scope"} == {"value", "help"} and len(s["help"]) > 15, name
        assert s.get("scope", "report") == "report", name      # only the report's own are marked


@pytest.mark.parametrize("override, selector", [("", 'job=~"aix.*"'), (OVERRIDE, OURS)])
def test_every_rule_selects_with_the_configured_selector(override, selector):
    exprs = rule_exprs(build_rules.compile_rules(override))
    refs = [ref for e in exprs for ref in selections(e)]
    assert len(refs) > 140
    for name, matchers in refs:
        assert matchers.startswith(selector), (name, matchers)
    if override:
        assert not any('job=~"aix.*"' in e for e in exprs)


@pytest.mark.parametrize("override, selector", [("", 'job=~"aix.*"'), (OVERRIDE, OURS)])
def test_every_dashboard_query_selects_with_the_configured_selector(override, selector):
    exprs = dashboard_exprs(build_dashboards.compile_all(override))
    assert len(exprs) > 70
    for board, expr in exprs:
        refs = selections(expr)
        assert refs, (board, expr)
        for name, matchers in refs:
            assert matchers.startswith(selector), (board, name, matchers)
    if override:
        assert not any('job=~"aix.*"' in e for _, e in exprs)


def test_the_committed_files_are_the_shipped_settings():
    assert build_dashboards.compile_all() == {p.name: p.read_text() for p in sorted((ROOT / "dashboards").glob("*.json"))}
    windows = [e for _, e in dashboard_exprs(build_dashboards.compile_all()) if "predict_linear" in e]
    sel = 'job=~"aix.*",instance=~"$instance"'
    forecast = f"predict_linear(aix:large_pages_free:count{{{sel}}}[2h], 4 * 3600)"
    # the forecast, bounded by 0 and the pool's size: min(f, pool) = f - max(f - pool, 0)
    assert windows == [f"clamp_min({forecast} - clamp_min({forecast} - aix:large_pages_pool:count{{{sel}}}, 0), 0)"]
    over = dashboard_exprs(build_dashboards.compile_all(
        "{ _config+:: { largePagePoolForecastWindow: '6h', largePagePoolForecastHours: 12 } }"))
    forecast = f"predict_linear(aix:large_pages_free:count{{{sel}}}[6h], 12 * 3600)"
    assert [e for _, e in over if "predict_linear" in e] == [
        f"clamp_min({forecast} - clamp_min({forecast} - aix:large_pages_pool:count{{{sel}}}, 0), 0)"]


def test_the_report_selects_with_the_mixin_selector_or_its_flag():
    assert compare.selector("tsmsrv01:10990") == 'job=~"aix.*",instance="tsmsrv01:10990"'
    assert compare.selector("tsmsrv01:10990", OURS) == 'job="lpar",tenant="tsm",instance="tsmsrv01:10990"'
    assert compare.selector("a", "") == 'instance="a"'
    assert compare.selector('we"ird\\name') == 'job=~"aix.*",instance="we\\"ird\\\\name"'


class Recorder:
    """A Prometheus stand-in that records the queries the report sends."""
    def __init__(self):
        self.queries = []

    def scalar(self, expr, at):
        self.queries.append(expr)
        return 1.0

    def range(self, expr, start, end, step):
        self.queries.append(expr)
        return [{"metric": {}, "values": [[start, "4096"], [start + 7200, "16777216"], [end, "16777216"]]}]

    def sample_times(self, expr, length, at):
        self.queries.append(expr)
        return [float(t) for t in range(int(at - length), int(at) + 1, 60)]

    def instant(self, expr, at):
        self.queries.append(expr)
        return []


@pytest.mark.parametrize("base", [monitoring.SELECTOR, OURS])
def test_every_report_query_carries_the_selector(base):
    prom = Recorder()
    before, after, _, _ = compare.find_regimes(prom, "a:1", 0, 14400, 600, base)
    compare.compare(prom, "a:1", before, after, plots=True, base=base)
    assert len(prom.queries) > 20
    for q in prom.queries:
        refs = selections(q)
        assert refs, q
        for name, matchers in refs:
            assert matchers.startswith(base + ',instance="a:1"'), (name, q)
