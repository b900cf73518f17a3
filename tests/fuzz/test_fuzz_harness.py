"""The coverage-guided fuzz harness (tests/fuzz/fuzz_parsers.py) runs: every parser's seeds
and a few hundred mutations without a crash. Longer runs are a tool, not a test (README)."""
import os
import subprocess
import sys

import pytest

HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_parsers.py")
PARSERS = ["vmstat", "svmon_G", "svmon_P", "vmo", "vmstat_v", "vmstat_s", "splat", "iostat_tape", "ps_env",
           "tsm_actlog"]


@pytest.mark.parametrize("key", PARSERS)
def test_fuzz_harness_runs_without_a_crash(key):
    pytest.importorskip("atheris")
    run = subprocess.run([sys.executable, HARNESS, key, "-runs=300", "-seed=1", "-max_len=8192"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Done 300 runs" in run.stderr
