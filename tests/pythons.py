"""The Pythons an LPAR runs (issue 61, item 2): the runtime's tests on each Python the packages
accept (``requires-python``: 3.9 and later; the AIX packages take the AIX Toolbox python3, 3.9 or
later).

    python3 -m tests.pythons              # every Python 3.9 or later found here
    python3 -m tests.pythons 3.9 3.13     # those alone

A Python is found as pyenv's newest 3.N (``$PYENV_ROOT/versions``, default ``~/.pyenv``) or as
``python3.N`` on PATH. For each, a virtual environment in the user's cache
(``~/.cache/aix-exporter/pythons/3.N``) with the package's dependencies, the extras a host may
install (``RUNTIME_EXTRAS``) and the test runner (``TEST_TOOLS``), read from pyproject.toml and
installed again only when that list changes; then the unit tests of what an LPAR runs (the
exporter and the SSH wrapper) from the checkout, never an installed copy: every unit test file
but those that need a test-only tool (``TOOLS_ONLY``, each with its reason) and those of the tools
that run beside Prometheus on the suite's Python (``HOST_SIDE``). ``tests/e2e/test_pythons.py``
runs it for each Python found but the suite's own interpreter.
"""
from __future__ import annotations

import glob
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
OLDEST = (3, 9)
RUNTIME_EXTRAS = ("auth", "ssh", "cpu")   # (report: the host side's)
TEST_TOOLS = ("pytest>=7", "pytest-xdist>=3.2", "hypothesis>=6")
# unit test files left out: those that need a test-only tool, and those of the tools that run
# where Prometheus is, beside the suite's own Python (the report, the plan, the census, the
# simulator's histories, the nmon import, the stores, the pictures, the repository's documents):
# an LPAR runs the exporter and the SSH wrapper, whose tests are the rest
TOOLS_ONLY = {
    "test_alert_rules.py": "jsonnet (the rules' build) and promtool",
    "test_dashboards.py": "jsonnet (the dashboards' build)",
    "test_mixin_config.py": "jsonnet (the mixin)",
    "test_deploy.py": "compose-spec (Python 3.10 or later) and systemd-analyze",
    "test_mutation_bench.py": "mutmut (the mutation bench)",
    "test_pythons_runner.py": "this runner's own tests: it reads pyproject.toml with tomllib (Python 3.11), on the "
                              "suite's Python",
    "test_cli_help.py": "argparse's own words change between Pythons (3.10: 'options:'); the reviewed help texts are "
                        "checked on the suite's Python",
}
HOST_SIDE = re.compile(r"test_(census|comparability|figures|import_cli|import_layers|importer_seam|nmon\w*|plan|render|"
                       r"report_\w+|simulate_tool|simulator|standin|store|suite_schedule|tempprom|readme|changelog|"
                       r"setup_scripts|openmetrics_writer|one_family_one_collector|bench_table)\.py")
EXCLUDED = {f"tests/unit/{name}": why for name, why in TOOLS_ONLY.items()}
# what a run must never print, whatever passed: an asyncio task that failed unseen, an exception
# raised where no one could catch it (a __del__)
NEVER = ("Task exception was never retrieved", "PytestUnraisableExceptionWarning")


def found(minors=None) -> dict:
    """{'3.N': path of its python3} for each Python 3.9 or later found (or those of ``minors``)."""
    out: dict = {}
    pyenv = pathlib.Path(os.environ.get("PYENV_ROOT", pathlib.Path.home() / ".pyenv")) / "versions"
    key = lambda p: tuple(int(x) for x in re.findall(r"\d+", p.name))   # noqa: E731 (3.9.18 after 3.9.2)
    for d in sorted((pathlib.Path(p) for p in glob.glob(str(pyenv / "3.*"))), key=key):
        m = re.fullmatch(r"3\.(\d+)\.\d+", d.name)
        if m and (d / "bin" / "python3").exists():
            out[f"3.{m.group(1)}"] = str(d / "bin" / "python3")
    for n in range(OLDEST[1], 20):
        exe = shutil.which(f"python3.{n}")
        if exe and f"3.{n}" not in out:
            out[f"3.{n}"] = exe
    return {v: p for v, p in sorted(out.items(), key=lambda kv: int(kv[0].split(".")[1]))
            if int(v.split(".")[1]) >= OLDEST[1] and (minors is None or v in minors)}


def requirements() -> list:
    """The dependencies, the runtime extras and the test runner, as pyproject.toml names them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    return list(project["dependencies"]) + [r for e in RUNTIME_EXTRAS for r in extras[e]] + list(TEST_TOOLS)


def environment(version: str, python: str, log=print) -> str:
    """The virtual environment of one Python, made or brought up to date; its python."""
    home = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "aix-exporter" / "pythons"
    venv = home / version
    exe = venv / "bin" / "python"
    reqs = requirements()
    stamp = venv / "requirements.sha256"
    want = hashlib.sha256("\n".join(reqs).encode()).hexdigest()
    if exe.exists() and stamp.exists() and stamp.read_text() == want:
        return str(exe)
    log(f"python {version}: making {venv}")
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([python, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run([str(exe), "-m", "pip", "install", "-q", "--disable-pip-version-check", *reqs],
                   check=True, timeout=1200)
    stamp.write_text(want)
    return str(exe)


def tests() -> list:
    """The tests of what an LPAR runs: every unit test file but those of TOOLS_ONLY and HOST_SIDE."""
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "unit").glob("test_*.py"))
    return [f for f in files if f not in EXCLUDED and not HOST_SIDE.fullmatch(pathlib.Path(f).name)]


def run(version: str, python: str, log=print) -> subprocess.CompletedProcess:
    """The runtime's tests on one Python, from the checkout; the completed run (its output
    captured)."""
    exe = environment(version, python, log)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "exporter"), PYTHONDONTWRITEBYTECODE="1")
    env.pop("AIX_EXPORTER_REQUIRE_TOOLS", None)   # the tools of the suite's own Python are not asked for here
    # two workers: most of these tests wait (deadlines, timeouts), so two halve the time for little CPU
    argv = [exe, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", *tests()]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    pythons = found(set(args) if args else None)
    if not pythons:
        print("no Python 3.9 or later found", file=sys.stderr)
        return 1
    failed = []
    for version, python in pythons.items():
        r = run(version, python)
        last = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
        bad = [w for w in NEVER if w in r.stdout + r.stderr]
        print(f"python {version} ({python}): {last}{' ; printed: ' + ', '.join(bad) if bad else ''}")
        if r.returncode != 0 or bad:
            failed.append(version)
            print(r.stdout[-4000:] + r.stderr[-2000:], file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
