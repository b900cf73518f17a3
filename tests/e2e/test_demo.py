"""The README's run command, as a user runs it: bash deploy/demo/run.sh. One coherent story in
a real Prometheus: one series per metric and instance (history and live scrape carry the same
target labels), recording rules with history, the case study's tape figures, and a firing
alert within three minutes. SIGTERM stops every process it started."""
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest

from tests.conftest import ROOT, free_port, need

TAPE = ('sum by (instance) (rate(aix_tape_read_bytes_total{job="aix"}[5m]) '
        '+ rate(aix_tape_written_bytes_total{job="aix"}[5m])) / 2^20')


def query(port, expr, at=None):
    q = {"query": expr, **({"time": str(at)} if at else {})}
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/query?{urllib.parse.urlencode(q)}", timeout=10) as r:
        return json.load(r)["data"]["result"]


def test_demo_tells_one_story(tmp_path):
    need("prometheus")
    need("promtool")
    if sys.prefix == sys.base_prefix:
        pytest.skip("not in a virtual environment: the demo would install into this Python (bash tests/run.sh uses one)")
    import socket

    def pair():   # two consecutive free ports: the demo's exporters use DEMO_PORT and DEMO_PORT + 1
        for _ in range(50):
            base = free_port()
            try:
                with socket.socket() as s:
                    s.bind(("127.0.0.1", base + 1))
                return base
            except OSError:
                continue
        raise AssertionError("no two consecutive free ports")
    base = pair()
    prom = free_port()
    while prom in (base, base + 1):
        prom = free_port()
    env = {**os.environ, "AIX_EXPORTER_VENV": sys.prefix, "DEMO_PORT": str(base), "DEMO_PROM_PORT": str(prom),
           "DEMO_AM_PORT": str(free_port()), "DEMO_DIR": str(tmp_path / "demo")}
    proc = subprocess.Popen(["bash", str(ROOT / "deploy" / "demo" / "run.sh")], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    out = []
    try:
        for line in proc.stdout:
            out.append(line)
            if "Ctrl-C stops everything" in line:
                break
        assert proc.poll() is None, "".join(out)
        started = time.monotonic()
        # history and live scrape: one series per instance, per job
        counts = {r["metric"]["job"]: float(r["value"][1])
                  for r in query(prom, "count by (job) (count by (instance, job) (aix_vmstat_cpu_ratio))")}
        assert counts == {"aix": 1.0, "demo-fast": 1.0}, counts
        now = time.time()
        assert query(prom, 'count({__name__=~"aix:.+"})', now - 4 * 3600), "no recording-rule history 4 h back"
        before = float(query(prom, TAPE, now - 5 * 3600)[0]["value"][1])
        after = float(query(prom, TAPE, now - 600)[0]["value"][1])
        assert 129 < before < 149 and 363 < after < 393, (before, after)   # MiB/s, read + written
        while True:
            firing = query(prom, 'ALERTS{alertstate="firing"}')
            if firing:
                break
            assert time.monotonic() - started < 180, "no alert fired within 3 minutes"
            time.sleep(5)
        assert {a["metric"]["instance"] for a in firing} == {"tsmsrv02:10990"}
    finally:
        proc.send_signal(signal.SIGTERM)          # to the script only: its trap stops what it started
        try:
            proc.wait(timeout=30)
            time.sleep(1)
        finally:
            left = subprocess.run(["pgrep", "-a", "-s", str(proc.pid)], capture_output=True, text=True).stdout
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert left.strip() == "", f"processes left behind: {left}"
