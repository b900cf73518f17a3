"""Do the rule tests pin every threshold? Halve and double each numeric setting of
the mixin (exporter/aix_exporter/monitoring.json) in turn, rebuild the rules, run `promtool test rules` on
alerts/tests/*.test.yml, and count the changes the tests catch.

    python3 -m bench.mutation.thresholds       (needs promtool, Debian package prometheus)

Goal (issue 19): at least 90 % of the changes caught, each one not caught explained.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from bench.mutation import ROOT

sys.path.insert(0, os.path.join(ROOT, "alerts"))   # alerts/ holds scripts, not a package
import build_rules  # noqa: E402


def numeric_settings():
    with open(os.path.join(ROOT, "exporter", "aix_exporter", "monitoring.json")) as fh:
        config = json.load(fh)["config"]
    return {name: s["value"] for name, s in config.items()
            if isinstance(s["value"], (int, float)) and not isinstance(s["value"], bool)}


def run_tests(promtool, overrides):
    with tempfile.TemporaryDirectory() as d:
        compiled = build_rules.compile_rules(overrides)
        with open(os.path.join(d, "aix-rules.yml"), "w") as fh:
            fh.write(build_rules.render(compiled))
        tests = os.path.join(d, "tests")
        shutil.copytree(os.path.join(ROOT, "alerts", "tests"), tests)
        with open(os.path.join(d, build_rules.ALERTING), "w") as fh:   # what the threshold tests load
            fh.write(build_rules.render(build_rules.alerting_subset(compiled)))
        files = sorted(f for f in os.listdir(tests) if f.endswith(".test.yml"))
        r = subprocess.run([promtool, "test", "rules", *files], cwd=tests, capture_output=True, text=True, timeout=600)
        return r.returncode == 0


def main():
    promtool = shutil.which("promtool")
    if not promtool:
        sys.exit("needs promtool (Debian package prometheus)")
    if not run_tests(promtool, ""):
        sys.exit("the rule tests fail on the shipped configuration")
    settings = numeric_settings()
    caught, rows = 0, []
    for name, value in settings.items():
        for factor in (0.5, 2):
            new = value * factor
            new = int(new) if float(new).is_integer() else new
            ok = run_tests(promtool, "{ _config+:: { %s: %r } }" % (name, new))
            caught += not ok
            rows.append((name, value, new, "caught" if not ok else "**not caught**"))
    print("| setting | shipped | changed to | rule tests |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| `{r[0]}` | {r[1]} | {r[2]} | {r[3]} |")
    print(f"\n{caught} of {len(rows)} changes caught ({100 * caught / len(rows):.0f} %)")


if __name__ == "__main__":
    main()
