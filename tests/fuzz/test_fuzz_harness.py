"""The coverage-guided fuzz harness (tests/fuzz/fuzz_parsers.py) runs: every parser's seeds
and a few hundred mutations without a crash, and a parser that raises anything but ParseError
is reported as a crash. Longer runs are a tool, not a test (README)."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.join(HERE, "fuzz_parsers.py")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "exporter"))
from aix_exporter.commands import COMMANDS  # noqa: E402

PARSERS = list(COMMANDS)


def run_harness(script, key, tmp_path, *flags):
    # libFuzzer writes crash-*/timeout-* files to the working directory unless told otherwise,
    # and the harness makes its seed corpus under TMPDIR: both stay in the test's scratch
    # directory, never in the checkout or /tmp.
    return subprocess.run([sys.executable, script, key, "-seed=1", "-max_len=8192",
                           f"-artifact_prefix={tmp_path}{os.sep}", *flags],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120,
                          cwd=tmp_path, env={**os.environ, "TMPDIR": str(tmp_path)})


@pytest.mark.parametrize("key", PARSERS)
def test_fuzz_harness_runs_without_a_crash(key, tmp_path):
    pytest.importorskip("atheris")
    run = run_harness(HARNESS, key, tmp_path, "-runs=300")
    assert run.returncode == 0, run.stdout[-2000:]
    assert "Done 300 runs" in run.stdout
    assert not [n for n in os.listdir(tmp_path) if n.startswith(("crash-", "timeout-", "oom-"))]


def test_fuzz_harness_reports_a_parser_that_raises_something_else(tmp_path):
    """A planted ValueError on the vmo seeds: the harness must stop with libFuzzer's crash
    exit code and write the input that caused it."""
    pytest.importorskip("atheris")
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import sys\n"
        f"sys.path.insert(0, {HERE!r})\n"
        "import fuzz_parsers\n"
        "real = fuzz_parsers.PARSERS['vmo']\n"
        "def parse(text):\n"
        "    if 'lgpg_regions' in text:\n"
        "        raise ValueError('planted')\n"
        "    return real[0](text)\n"
        "fuzz_parsers.PARSERS['vmo'] = (parse, *real[1:])\n"
        "fuzz_parsers.main()\n")
    run = run_harness(str(planted), "vmo", tmp_path, "-runs=300")
    assert run.returncode != 0
    assert "ValueError: planted" in run.stdout
    crashes = [n for n in os.listdir(tmp_path) if n.startswith("crash-")]
    assert len(crashes) == 1
    assert b"lgpg_regions" in (tmp_path / crashes[0]).read_bytes()
    # The saved input reproduces the crash when given back to the harness; the real parser
    # takes it without one.
    again = run_harness(str(planted), "vmo", tmp_path, str(tmp_path / crashes[0]))
    assert again.returncode != 0 and "ValueError: planted" in again.stdout
    real = run_harness(HARNESS, "vmo", tmp_path, str(tmp_path / crashes[0]))
    assert real.returncode == 0, real.stdout[-2000:]
    assert "Executed" in real.stdout
