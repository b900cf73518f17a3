"""Real Prometheus for end-to-end tests: started on a free loopback port, polled
for readiness, stopped by PID."""
import json
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest

from tests.conftest import ROOT, free_port, need
from tests.e2e.helpers import env, start, stop, wait_http

HISTORY_END = None


class Prom:
    def __init__(self, url, proc):
        self.url, self.proc = url, proc

    def query(self, expr, at=None):
        q = {"query": expr}
        if at is not None:
            q["time"] = f"{at:.3f}"
        with urllib.request.urlopen(f"{self.url}/api/v1/query?{urllib.parse.urlencode(q)}", timeout=30) as r:
            body = json.load(r)
        assert body["status"] == "success", body
        return body["data"]["result"]

    def scalar(self, expr, at=None):
        res = self.query(expr, at)
        assert len(res) == 1, (expr, res)
        return float(res[0]["value"][1])


def start_prometheus(tmp, config_text, tsdb=None, extra=(), retention="30d"):
    prom = need("prometheus")
    cfg = tmp / "prometheus.yml"
    cfg.write_text(config_text)
    port = free_port()
    data = tsdb or (tmp / "data")
    # Prometheus logs to a file: a pipe nobody reads fills up (the overlapping-blocks warning after
    # a rule backfill lists every block) and blocks Prometheus before it is ready.
    log = open(tmp / f"prometheus-{port}.log", "w")
    proc = start([prom, f"--config.file={cfg}", f"--storage.tsdb.path={data}",
                  f"--web.listen-address=127.0.0.1:{port}", f"--storage.tsdb.retention.time={retention}", *extra],
                 stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_http(f"{url}/-/ready", timeout=60, proc=proc)
    return Prom(url, proc)


@pytest.fixture(scope="session")
def case_study_history(tmp_path_factory):
    """The case-study scenario backfilled into a TSDB: 8 simulated hours ending now."""
    promtool = need("promtool")
    tmp = tmp_path_factory.mktemp("case-study")
    om = tmp / "history.om"
    end = float(int(time.time()) // 60 * 60)
    subprocess.run([sys.executable, "-m", "aix_exporter.cli", "simulate", "--scenario", "case-study",
                    "--openmetrics", str(om), "--step", "60", "--end", str(end)],
                   check=True, env=env(), capture_output=True, timeout=300)
    tsdb = tmp / "tsdb"
    subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", str(om), str(tsdb)],
                   check=True, capture_output=True, timeout=300)
    return tsdb, end


@pytest.fixture(scope="session")
def case_study_prometheus(case_study_history, tmp_path_factory):
    """Prometheus over the backfilled history, with our recording rules backfilled too
    (promtool tsdb create-blocks-from rules), as a user would load a before/after window."""
    tsdb, end = case_study_history
    tmp = tmp_path_factory.mktemp("prom-cs")
    rules = str(ROOT / "alerts" / "aix-rules.yml")
    cfg = f"global:\n  scrape_interval: 60s\n  evaluation_interval: 60s\nrule_files:\n  - {rules}\n"
    first = start_prometheus(tmp, cfg, tsdb=tsdb)
    out = tmp / "rule-blocks"
    subprocess.run([need("promtool"), "tsdb", "create-blocks-from", "rules", "--start", str(int(end - 8 * 3600 - 60)),
                    "--end", str(int(end)), "--url", first.url, "--eval-interval", "60s", "--output-dir", str(out), rules],
                   check=True, capture_output=True, timeout=600)
    stop(first.proc)
    for block in out.iterdir():
        block.rename(tsdb / block.name)
    p = start_prometheus(tmp, cfg, tsdb=tsdb)
    p.end = end
    yield p
    stop(p.proc)
