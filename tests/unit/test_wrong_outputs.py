"""Every subcommand that writes a file, given an --out (or --openmetrics) it cannot write: a
missing directory, or a directory. One line naming the option, exit 1, no traceback, and no file
left behind (issue 46: each ended in a Python traceback, the report after all its queries)."""
import os
import subprocess
import sys

import pytest

from tests.lib import FIXTURES
from tests.lib.processes import env

NMON = str(FIXTURES / "nmon" / "tsmnm01-day1-4k.nmon")
COMMANDS = {
    "report": ["report", "--prometheus", "http://127.0.0.1:9", "--instance", "a:1", "--auto", "--out"],
    "report --census": ["report", "--prometheus", "http://127.0.0.1:9", "--census", "--format", "csv", "--out"],
    "plan": ["plan", "--prometheus", "http://127.0.0.1:9", "--instance", "a:1", "--out"],
    "import nmon": ["import", "nmon", "--tz", "UTC", NMON, "--out"],
    "simulate --openmetrics": ["simulate", "--scenario", "steady", "--duration", "120", "--openmetrics"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
@pytest.mark.parametrize("where, why", [("missing/x.md", "does not exist: make it first, or give another --out"),
                                        ("", "is a directory: give a file name")])
def test_an_output_that_cannot_be_written_is_one_line(tmp_path, name, where, why):
    target = str(tmp_path / where) if where else str(tmp_path)
    before = sorted(os.listdir(tmp_path))
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", *COMMANDS[name], target], capture_output=True,
                       text=True, env=env(), timeout=120)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    option = "--openmetrics" if "simulate" in name else "--out"
    assert lines[0].startswith(f"aix-exporter {name.split(' --')[0]}: {option} ") and why.split(":")[0] in lines[0], lines
    assert sorted(os.listdir(tmp_path)) == before            # nothing left behind, no temporary file either
