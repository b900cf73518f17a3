"""The README's run command, as a user runs it: bash deploy/demo/run.sh. One coherent story in
a real Prometheus: one series per metric and instance (history and live scrape carry the same
target labels), recording rules with history, the case study's tape figures, the alerts the
README names and no other (each once), no parse error in the exporters' logs, every URL the
banner prints answering. SIGTERM stops every process it started. The demo's driver and checks
are tests/lib/demo.py's; ``python3 -m bench.perf demo_soak`` runs them for ten minutes."""
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from tests.lib import ROOT, need
from tests.lib import demo as demolib


def test_demo_tells_one_story(tmp_path):
    need("prometheus")
    need("promtool")
    if sys.prefix == sys.base_prefix:
        pytest.skip("not in a virtual environment: the demo would install into this Python (bash tests/run.sh uses one)")
    demo = demolib.Demo(str(tmp_path), venv=sys.prefix)
    try:
        banner = demo.wait_banner()
        assert demo.proc.poll() is None, banner
        soak = demolib.Soak(demo)
        # history and live scrape: one series per instance, per job
        counts = {r["metric"]["job"]: float(r["value"][1])
                  for r in demo.query("count by (job) (count by (instance, job) (aix_vmstat_cpu_ratio))")}
        assert counts == {"aix": 1.0, "demo-fast": 1.0}, counts
        now = time.time()
        assert demo.query('count({__name__=~"aix:.+"})', now - 4 * 3600), "no recording-rule history 4 h back"
        before = float(demo.query(demolib.TAPE, now - 5 * 3600)[0]["value"][1])
        after = float(demo.query(demolib.TAPE, now - 600)[0]["value"][1])
        assert 129 < before < 149 and 363 < after < 393, (before, after)   # MiB/s, read + written
        # soak until the story's last alert fires (about three minutes), then once more
        while ("tsmsrv02:10990", "AixTsmDatabaseInitFailed", "firing") not in soak.seen:
            assert time.monotonic() - soak.t0 < 300, f"ANR0358E's alert not firing after 5 minutes: {soak.seen}"
            soak.poll()
            time.sleep(10)
        soak.run(15)
        problems = soak.finish(banner)
        # the README's report command, typed as written (its port is the demo's) with its defaults
        report = subprocess.run([os.path.join(sys.prefix, "bin", "aix-exporter"), "report", "--prometheus",
                                 f"http://127.0.0.1:{demo.prom}", "--instance", "tsmsrv01:10990", "--auto",
                                 "--out", str(tmp_path / "report.html")], capture_output=True, text=True, timeout=300)
        # the README's census command, as typed but for the port: both LPARs, the one down first
        census = subprocess.run([os.path.join(sys.prefix, "bin", "aix-exporter"), "report", "--prometheus",
                                 f"http://127.0.0.1:{demo.prom}", "--census", "--window", "24h", "--selector",
                                 'job=~"aix|demo-fast"', "--out", str(tmp_path / "census.md")],
                                capture_output=True, text=True, timeout=300)
    finally:
        left = demo.stop()
    assert problems == []
    assert report.returncode == 0, report.stderr
    assert census.returncode == 0, census.stderr
    assert "2 LPARs; worst: tsmsrv02:10990 (down after ANR0358E)" in census.stdout, census.stdout
    assert "tsmsrv01:10990" in (tmp_path / "census.md").read_text()
    assert re.search(r"Tape throughput went from 13\d\.\d to 3[67]\d\.\d MiB/s \(2\.7\dx\)", report.stdout), report.stdout
    assert ("tsmsrv02:10990", "AixMandatoryLargePagesAtRisk", "firing") in soak.seen
    assert ("tsmsrv02:10990", "AixRestartWouldFail", "firing") in soak.seen
    assert ("tsmsrv02:10990", "AixTsmDiagnosticError", "firing") in soak.seen
    assert not any(inst == "tsmsrv01:10990" for inst, _, _ in soak.seen)
    assert "/classic/alerts" in banner and "amtool --alertmanager.url=" in banner
    assert left == "", f"processes left behind: {left}"


def test_without_prometheus_the_first_line_says_how(tmp_path):
    """On a machine without Prometheus, as a user who cannot install it, the demo says so in
    its first line, before anything else, and runs the exporters alone."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dirname", "id", "python3", "mkdir", "date", "cat", "rm"):   # no prometheus, no apt-get
        os.symlink(shutil.which(tool), bin_dir / tool)
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "AIX_EXPORTER_VENV": sys.prefix,
           "DEMO_DIR": str(tmp_path / "demo"), "DEMO_PORT": "1", "DEMO_PROM_PORT": "1", "DEMO_AM_PORT": "1"}
    proc = subprocess.Popen([shutil.which("bash"), str(ROOT / "deploy" / "demo" / "run.sh")], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        first = proc.stdout.readline()
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()
    assert first == ("Prometheus is not installed: the exporters run alone (for the whole demo, as root: "
                     "apt-get install prometheus prometheus-alertmanager)\n")
