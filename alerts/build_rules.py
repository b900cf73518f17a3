"""Compile the rules: python3 alerts/build_rules.py  (writes alerts/aix-rules.yml,
alerts/demo-fast-rules.yml and alerts/tests/alerting-rules.yml).

The test suite checks that the committed YAML equals this output. alerts/tests/alerting-rules.yml
is the shipped rules an alert reads: every alerting rule and the recording rules their
expressions name, each copied whole from aix-rules.yml. The threshold tests load it instead of
the whole file: the per-regime recording rules (thirty 2-minute ranges each, written out so that
`promtool tsdb create-blocks-from rules` can backfill them) took 200 of their 216 seconds, and
no alert reads them.
"""
import json
import os
import re
import sys

import _jsonnet
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)   # where mixin.libsonnet, the one entry point, lives


def compile_rules(overrides: str = "") -> dict:
    """The mixin's prometheusRules, with ``overrides`` (jsonnet, e.g. "{ _config+:: {...} }")."""
    src = "((import 'mixin.libsonnet') + %s).prometheusRules" % (overrides or "{}")
    return json.loads(_jsonnet.evaluate_snippet(os.path.join(ROOT, "rules.jsonnet"), src, jpathdir=[ROOT]))


def render(rules: dict) -> str:
    class Dumper(yaml.SafeDumper):
        pass

    def str_repr(dumper, data):
        style = "|" if "\n" in data else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    Dumper.add_representer(str, str_repr)
    head = ("# Generated from mixin.libsonnet (alerts/alerts.libsonnet, settings in exporter/aix_exporter/monitoring.json)"
            " by alerts/build_rules.py: do not edit.\n")
    return head + yaml.dump(rules, Dumper=Dumper, sort_keys=False, width=1000)


# The demo's second LPAR runs on a clock 60 times fast (deploy/demo/run.sh): its rules are the
# shipped expressions on its own job, with the durations of the mandatory-large-page and
# restart pre-flight alerts divided by 60, so that a simulated hour takes a real minute for the
# rules too.
DEMO_FAST = ("{ _config+:: { aixSelector: 'job=\"demo-fast\"', mandatoryFor: '5s', mandatoryGrowthWindow: '1m', "
             "mandatoryGrowthHorizonSeconds: 120, preflightFor: '15s' } }")
OUTPUTS = {"aix-rules.yml": "", "demo-fast-rules.yml": DEMO_FAST}
ALERTING = os.path.join("tests", "alerting-rules.yml")
RECORDED = re.compile(r"\baix:[a-z0-9_]+:[a-z0-9_]+")


def alerting_subset(rules: dict) -> dict:
    """The groups with every alerting rule and the recording rules they name (and those name,
    transitively), each rule as it is in ``rules``, in its order."""
    records = {r["record"]: r for g in rules["groups"] for r in g["rules"] if "record" in r}
    need = set()
    todo = [r["expr"] for g in rules["groups"] for r in g["rules"] if "alert" in r]
    while todo:
        for name in RECORDED.findall(todo.pop()):
            if name in records and name not in need:
                need.add(name)
                todo.append(records[name]["expr"])
    groups = []
    for g in rules["groups"]:
        kept = [r for r in g["rules"] if "alert" in r or r.get("record") in need]
        if kept:
            groups.append({**g, "rules": kept})
    return {"groups": groups}


def main() -> int:
    for name, overrides in OUTPUTS.items():
        with open(os.path.join(HERE, name), "w") as fh:
            fh.write(render(compile_rules(overrides)))
    with open(os.path.join(HERE, ALERTING), "w") as fh:
        fh.write(render(alerting_subset(compile_rules())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
