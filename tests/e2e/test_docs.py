"""Executable documentation: every fenced shell block of README.md, CONTRIBUTING.md and
docs/*.md runs here exactly as written, or says in the Markdown why it cannot.

Blocks are read with pytest-codeblocks' parser (its markers are HTML comments just above a
block, invisible on the rendered page):

- ``<!--pytest.mark.skip(reason="AIX only: ...")-->``: not runnable here, with the reason;
- ``<!--pytest.mark.docs(env="prometheus")-->``: needs a Prometheus holding the case study's
  history with the recording rules (the demo's tsmsrv01);
- ``<!--pytest.mark.docs(serve="URL")-->``: starts a server; it must answer URL, then it is
  stopped by its process group.

Each block runs in bash with errexit (every line must succeed), in a scratch directory that
sees the checkout's files (and .venv) through links, with the virtual environment first on
PATH and a timeout. PLACEHOLDERS is the one table of what the text names that is not here
(the demo's ports, a site's paths and dates); a failing block is reported by file and line
with its output. A new shell block is run as soon as it is written: it passes, or it gets a
skip marker with its reason.
"""
import glob
import os
import re
import subprocess
import sys
import time
import urllib.request

import pytest
from pytest_codeblocks.main import extract_from_file

from tests.lib import ROOT
from tests.lib.processes import stop

DOCS = ["README.md", "CONTRIBUTING.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(str(ROOT / "docs" / "*.md")))
SHELL = {"sh", "bash", "shell", "console"}
TIMEOUT = 300


def _blocks():
    out = []
    for doc in DOCS:
        for b in extract_from_file(str(ROOT / doc)):
            out.append((doc, b))
    return out


BLOCKS = _blocks()
SHELL_BLOCKS = [(doc, b) for doc, b in BLOCKS if b.syntax in SHELL]


def _marks(block):
    return [eval(m, {"pytest": pytest, "sys": sys}).mark for m in block.marks]


# Blocks run exactly as typed: nothing in them is rewritten (issue 46). What they name must be
# here as they name it: the demo's Prometheus on its port, holding the case study's history with
# the demo's instance names (tests/e2e/conftest.py puts it there), the exporter's own port. A
# block naming a port that is taken on this machine is skipped with that reason, never rewritten.
PORTS = {"127.0.0.1:19090": "the demo's Prometheus (DEMO_PROM_PORT)", "127.0.0.1:10990": "the exporter's default port"}


# what some blocks must print, beyond succeeding (a figure the documentation states)
EXPECT = {
    "--auto --out report.html": re.compile(r"Tape throughput went from [\d.,]+ to [\d.,]+ MiB/s \(2\.7\dx\)"),
    "--auto --out nmon-report.html": re.compile(r"System CPU per user CPU went from 5\.00 to 0\.43"),
    "--out plan.md": re.compile(r"recommended: lgpg_regions=160 \(16 MB pages\) and LARGE_PAGE_DATA=Y for dsmserv"),
    "--auto --out case-study.html": re.compile(r"Tape throughput went from [\d.,]+ to [\d.,]+ MiB/s \(2\.7\dx\)"),
    "--auto --out after-the-change.html": re.compile(r"Tape throughput went from [\d.,]+ to [\d.,]+ MiB/s \(2\.7\dx\)"),
}


def scratch(tmp_path):
    """A directory that sees the checkout's files through links: what a block writes stays here."""
    for name in os.listdir(ROOT):
        if name in (".git",) or name.startswith("demo-data"):
            continue
        os.symlink(ROOT / name, tmp_path / name)
    if not (tmp_path / ".venv").exists():
        os.symlink(sys.prefix, tmp_path / ".venv")
    return tmp_path


def run_env(tmp_path):
    env = dict(os.environ)
    env["PATH"] = os.path.join(sys.prefix, "bin") + os.pathsep + env.get("PATH", "")
    env["HOME"] = str(tmp_path)
    env.pop("PYTHONPATH", None)
    return env


def test_every_fence_names_its_language():
    """A fence without a language could hide a shell block from this test."""
    bare = [f"{doc}:{b.lineno}" for doc, b in BLOCKS if not b.syntax]
    assert bare == [], "fences without a language (use ```sh, ```yaml, ```text ...)"


def test_skipped_blocks_say_why():
    for doc, b in SHELL_BLOCKS:
        for m in _marks(b):
            if m.name == "skip":
                assert len(m.kwargs.get("reason", "")) > 10, f"{doc}:{b.lineno}: a skip needs its reason"
            else:
                assert m.name == "docs" and set(m.kwargs) <= {"env", "serve"}, f"{doc}:{b.lineno}: unknown marker {m}"


@pytest.mark.parametrize("doc,block", SHELL_BLOCKS, ids=[f"{d}:{b.lineno}" for d, b in SHELL_BLOCKS])
def test_shell_block(doc, block, tmp_path, request):
    marks = {m.name: m for m in _marks(block)}
    if "skip" in marks:
        pytest.skip(f"{doc}:{block.lineno}: {marks['skip'].kwargs['reason']}")
    opts = marks["docs"].kwargs if "docs" in marks else {}
    if opts.get("env") == "prometheus":
        prom = request.getfixturevalue("case_study_prometheus")
        if prom.url != "http://127.0.0.1:19090":
            pytest.skip(f"{doc}:{block.lineno}: port 19090, {PORTS['127.0.0.1:19090']}, is taken on this machine")
    elif "127.0.0.1:19090" in block.code:
        pytest.fail(f"{doc}:{block.lineno} names the demo's Prometheus: give the block its env marker")
    if "127.0.0.1:10990" in block.code and "serve" in opts:
        from tests.lib.stores import port_free
        if not port_free(10990):
            pytest.skip(f"{doc}:{block.lineno}: port 10990, {PORTS['127.0.0.1:10990']}, is taken on this machine")
    code = block.code
    where = scratch(tmp_path)
    proc = subprocess.Popen(["bash", "-e", "-c", code], cwd=where, env=run_env(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        if "serve" in opts:
            url = opts["serve"]
            deadline = time.monotonic() + 60
            while True:
                assert proc.poll() is None, f"{doc}:{block.lineno}: ended with {proc.returncode}:\n{proc.stdout.read()}"
                try:
                    with urllib.request.urlopen(url, timeout=2) as r:
                        assert r.status == 200
                        break
                except OSError:
                    assert time.monotonic() < deadline, f"{doc}:{block.lineno}: {url} did not answer in 60 s"
                    time.sleep(0.3)
            output = ""
        else:
            try:
                output, _ = proc.communicate(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"{doc}:{block.lineno}: still running after {TIMEOUT} s") from None
            assert proc.returncode == 0, f"{doc}:{block.lineno}: exit {proc.returncode}\n{code}\n--- output:\n{output}"
    finally:
        if proc.poll() is None:   # a server block, or one that timed out: its whole process group
            stop(proc)
    for key, pattern in EXPECT.items():
        if key in code:
            assert pattern.search(output), f"{doc}:{block.lineno}: expected {pattern.pattern!r} in:\n{output}"
