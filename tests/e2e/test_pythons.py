"""The Pythons an LPAR runs (issue 61, item 2): the tests of what an LPAR runs (the exporter and
the SSH wrapper) on each Python 3.9 or later found here (pyenv's versions, python3.N on PATH),
each in its own environment with the package's dependencies and its runtime extras
(tests/pythons.py). The suite's own interpreter runs them already; a machine with no other
Python skips, saying so. Each Python is a scheduling unit of its own (tests/conftest.py), so
that the workers share them."""
import os
import re
import sys

import pytest

from tests import pythons

OWN = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
FOUND = {v: p for v, p in pythons.found().items() if os.path.realpath(p) != OWN}


@pytest.mark.parametrize("version", sorted(FOUND, key=lambda v: int(v.split(".")[1])) or ["none"])
def test_the_lpars_tests_pass_on_each_python(version):
    if version == "none":
        pytest.skip("no Python 3.9 or later but the suite's own on this machine (pyenv, python3.N on PATH)")
    r = pythons.run(version, FOUND[version])
    out = r.stdout + r.stderr
    assert r.returncode == 0, f"python {version}:\n{r.stdout[-6000:]}\n{r.stderr[-2000:]}"
    assert [w for w in pythons.NEVER if w in out] == [], out[-4000:]
    passed = re.search(r"(\d+) passed", r.stdout)
    assert passed and int(passed.group(1)) > 1000, r.stdout[-2000:]   # the whole set ran, not a corner of it
