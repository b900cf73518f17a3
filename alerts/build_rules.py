"""Compile the rules: python3 alerts/build_rules.py  (writes alerts/aix-rules.yml).

The test suite checks that the committed YAML equals this output.
"""
import json
import os
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


def main() -> int:
    for name, overrides in OUTPUTS.items():
        with open(os.path.join(HERE, name), "w") as fh:
            fh.write(render(compile_rules(overrides)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
