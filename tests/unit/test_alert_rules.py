"""Rules: compiled YAML equals the jsonnet sources; promtool checks and unit-tests them;
every alert has a runbook and a promtool test; every metric they name is emitted."""
import re
import subprocess
import sys

import yaml

from tests import metricsdoc
from tests.lib import FIXTURES, ROOT, need

ALERTS = ROOT / "alerts"
sys.path.insert(0, str(ALERTS))


def rules():
    return yaml.safe_load((ALERTS / "aix-rules.yml").read_text())


def test_compiled_rules_equal_the_jsonnet_sources():
    import build_rules as build
    assert (ALERTS / "aix-rules.yml").read_text() == build.render(build.compile_rules()), \
        "alerts/aix-rules.yml is stale: python3 alerts/build_rules.py"
    assert (ALERTS / build.ALERTING).read_text() == build.render(build.alerting_subset(build.compile_rules())), \
        "alerts/tests/alerting-rules.yml is stale: python3 alerts/build_rules.py"
    for name, overrides in build.OUTPUTS.items():
        assert (ALERTS / name).read_text() == build.render(build.compile_rules(overrides)), \
            f"alerts/{name} is stale: python3 alerts/build_rules.py"


RULE_TESTS = ("aix-rules.test.yml", "alerts.test.yml", "thresholds.test.yml", "demo-rules.test.yml")


def test_every_rule_test_file_is_run():
    """A test file added to alerts/tests is run by promtool here (and by bench/mutation/rules.py,
    which takes them all), with the rule file it names."""
    assert sorted(RULE_TESTS) == sorted(p.name for p in (ALERTS / "tests").glob("*.test.yml"))
    assert yaml.safe_load((ALERTS / "tests" / "alerts.test.yml").read_text())["rule_files"] == ["alerting-rules.yml"]


def test_promtool_check_and_test_rules():
    promtool = need("promtool")
    check = subprocess.run([promtool, "check", "rules", str(ALERTS / "aix-rules.yml")], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "SUCCESS: 69 rules found" in check.stdout
    test = subprocess.run([promtool, "test", "rules", *RULE_TESTS],
                          cwd=ALERTS / "tests", capture_output=True, text=True)
    assert test.returncode == 0, test.stdout + test.stderr
    assert "SUCCESS" in test.stdout


def test_the_threshold_tests_load_every_alert_and_each_rule_it_reads_as_shipped():
    """alerts/tests/alerting-rules.yml: every alerting rule of aix-rules.yml, and each recording
    rule an alert names (transitively), identical to the shipped one; nothing else."""
    import build_rules as build
    shipped = rules()
    subset = yaml.safe_load((ALERTS / build.ALERTING).read_text())
    by_key = {(r.get("record") or r.get("alert")): r for g in shipped["groups"] for r in g["rules"]}
    kept = [r for g in subset["groups"] for r in g["rules"]]
    assert all(by_key[r.get("record") or r.get("alert")] == r for r in kept)
    assert {r["alert"] for r in kept if "alert" in r} == {k for k, r in by_key.items() if "alert" in r}
    named = set()
    for r in kept:
        named |= set(build.RECORDED.findall(r["expr"]))
    assert {r["record"] for r in kept if "record" in r} == named & set(by_key)
    assert "aix:regime_page_size:bytes" not in named and len(kept) == 49
    assert yaml.safe_load((ALERTS / "tests" / "thresholds.test.yml").read_text())["rule_files"] == ["alerting-rules.yml"]


def test_every_alert_has_runbook_annotations_and_a_firing_and_quiet_test():
    tests = [t for f in ("aix-rules.test.yml", "alerts.test.yml")
             for t in yaml.safe_load((ALERTS / "tests" / f).read_text())["tests"]]
    tested = {}
    for t in tests:
        for a in t.get("alert_rule_test", []):
            tested.setdefault(a["alertname"], set()).add(bool(a["exp_alerts"]))
    alerts = [r for g in rules()["groups"] for r in g["rules"] if "alert" in r]
    assert len(alerts) == 36
    for r in alerts:
        name = r["alert"]
        assert r["labels"]["severity"] in ("critical", "warning", "info")
        assert set(r["annotations"]) == {"summary", "description", "runbook_url"}
        assert "{{ $value" in r["annotations"]["description"] or "$value }}" in r["annotations"]["description"], name
        assert r["annotations"]["runbook_url"].endswith(f"alerts/runbooks/{name}.md")
        runbook = (ALERTS / "runbooks" / f"{name}.md").read_text()
        assert "## Confirm on AIX" in runbook and "## What to do" in runbook
        assert tested.get(name) == {True, False}, f"{name} needs a firing and a quiet case"


def test_every_metric_the_rules_name_is_emitted_or_recorded():
    emitted = set(metricsdoc.emitted(metricsdoc.default_sources(str(FIXTURES / "replay" / "tsm-lpar"))))
    recorded = {r["record"] for g in rules()["groups"] for r in g["rules"] if "record" in r}
    names = set()
    for g in rules()["groups"]:
        for r in g["rules"]:
            names |= set(re.findall(r"\b(aix[a-z0-9_:]*[a-z0-9_])\b", r["expr"]))
    unknown = {n for n in names if n not in emitted and n not in recorded}
    assert unknown == set()


def test_the_report_queries_only_metrics_the_exporter_emits_or_the_rules_record():
    from aix_exporter.report.compare import FIGURES, SERIES
    emitted = set(metricsdoc.emitted(metricsdoc.default_sources(str(FIXTURES / "replay" / "tsm-lpar"))))
    recorded = {r["record"] for g in rules()["groups"] for r in g["rules"] if "record" in r}
    exprs = [f.window('instance="x"', "1h", " @ 1") for f in FIGURES] + [e for _, e in SERIES.values()]
    names = {n for e in exprs for n in re.findall(r"\b(aix[a-z0-9_:]*[a-z0-9_])\b", e)}
    assert len(names) >= 10
    assert {n for n in names if n not in emitted and n not in recorded} == set()


def test_threshold_tests_are_current_and_pin_every_numeric_setting():
    """alerts/tests/thresholds.test.yml is what make_threshold_tests.py writes, and each numeric
    setting of the mixin (monitoring.json) has a case on each side (bench/mutation/thresholds.py measures
    that halving or doubling any of them fails promtool test rules)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("mtt", ALERTS / "tests" / "make_threshold_tests.py")
    mtt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mtt)
    cases = mtt.cases()
    committed = yaml.safe_load((ALERTS / "tests" / "thresholds.test.yml").read_text())
    assert committed["tests"] == cases, "alerts/tests/thresholds.test.yml is stale: python3 alerts/tests/make_threshold_tests.py"
    source = (ALERTS / "tests" / "make_threshold_tests.py").read_text()
    import json
    config = json.loads((ALERTS.parent / "exporter" / "aix_exporter" / "monitoring.json").read_text())["config"]
    numeric = [name for name, s in config.items() if isinstance(s["value"], (int, float)) and s.get("scope") != "report"]
    assert len(numeric) == 23
    # the report's own settings are pinned by the report's tests (tests/e2e/test_report_plausibility.py)
    # and the plan's by tests/unit/test_plan.py
    assert [n for n, s in config.items() if s.get("scope") == "report"] == [
        "planMinFreeMemoryRatio", "planWindow", "planPreferWhenBothHelp", "tapeDriveMaxBytesPerSecond",
        "reportMinUsableRatio"]
    for name in numeric:
        assert f"# {name}" in source or f", {name}" in source, f"{name} has no threshold case"
    by_alert = {}
    for c in cases:
        alert = c["name"].split()[0]
        by_alert.setdefault(alert, set()).add("fires" in c["name"])
    assert all(v == {True, False} for v in by_alert.values()), by_alert
