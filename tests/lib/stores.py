"""The stores the end-to-end tests start (issue 61, item 3: one house): a real Prometheus and
VictoriaMetrics on free loopback ports, polled for readiness, stopped by PID; a simulated
history, its blocks, the rules replayed. tests/e2e/conftest.py builds its fixtures from these."""
import subprocess
import sys
import time
import urllib.parse
import urllib.request

from tests.lib import free_port, need
from tests.lib.processes import env, start, wait_http

class Prom:
    """A Prometheus the tests started, asked through the exporter's own query client (promapi)."""

    def __init__(self, url, proc):
        from aix_exporter.promapi import Prometheus
        self.url, self.proc = url, proc
        self.api = Prometheus(url, timeout=60)

    def query(self, expr, at=None):
        return self.api.result(expr, at)

    def query_range(self, expr, start, end, step):
        return self.api.range(expr, start, end, step)

    def scalar(self, expr, at=None):
        res = self.query(expr, at)
        assert len(res) == 1, (expr, res)
        return float(res[0]["value"][1])


DEMO_PROM_PORT = 19090   # deploy/demo/run.sh's Prometheus (DEMO_PROM_PORT), as the README's commands name it


def port_free(port: int) -> bool:
    import socket
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as servers bind: TIME_WAIT is no owner
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def start_prometheus(tmp, config_text, tsdb=None, extra=(), retention="30d", port=None):
    prom = need("prometheus")
    cfg = tmp / "prometheus.yml"
    cfg.write_text(config_text)
    port = port or free_port()
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


def simulated_history(scenario, om, end, target=None, timeout=300):
    """`aix-exporter simulate --scenario SCENARIO --openmetrics OM --step 60 --end END` (with
    ``--target LABELS``: the history's job and instance) as a user writes a history."""
    subprocess.run([sys.executable, "-m", "aix_exporter.cli", "simulate", "--scenario", scenario, "--openmetrics",
                    str(om), "--step", "60", "--end", str(end)] + (["--target", target] if target else []),
                   check=True, env=env(), capture_output=True, timeout=timeout)


def blocks_from(om, tsdb):
    """An OpenMetrics history into Prometheus blocks: promtool tsdb create-blocks-from openmetrics."""
    subprocess.run([need("promtool"), "tsdb", "create-blocks-from", "openmetrics", str(om), str(tsdb)],
                   check=True, capture_output=True, timeout=300)


# VictoriaMetrics, the second store. MetricsQL's rate() and increase() take the window's first
# and last samples as they are, where PromQL extrapolates to the window's edges: the same
# window's figures agree within this share, and every comparison of the two stores uses it.
METRICSQL_TOLERANCE = 0.0035


def start_victoria(tmp, retention="100y"):
    """victoria-metrics (Debian package victoria-metrics) on a free loopback port, with no
    response cache (data is backfilled while it runs) and, unless told, no practical retention
    limit (old history)."""
    vm = need("victoria-metrics")
    port = free_port()
    log = open(tmp / f"victoria-metrics-{port}.log", "w")
    proc = start([vm, f"-storageDataPath={tmp / f'vm-data-{port}'}", f"-httpListenAddr=127.0.0.1:{port}",
                  f"-retentionPeriod={retention}", "-search.disableCache", "-search.latencyOffset=0s"],
                 stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_http(f"{url}/health", timeout=60, proc=proc)
    return Prom(url, proc)


def import_openmetrics(url, om_path):
    """Our OpenMetrics history into VictoriaMetrics, as `import --store URL` writes it
    (tools/store.py: the Prometheus-text import API, then flushed to be searchable)."""
    from aix_exporter.tools import store
    return store.write(store.connect(url), str(om_path))


def store_of_openmetrics(kind, tmp, om_path):
    """A real store holding an OpenMetrics history written by a test: Prometheus over the
    blocks promtool backfills from it (``kind`` "prometheus"), or VictoriaMetrics through its
    import API ("victoriametrics"). Stop it with stop(store.proc)."""
    if kind == "prometheus":
        blocks_from(om_path, tmp / "tsdb")
        return start_prometheus(tmp, "global:\n  scrape_interval: 60s\n", tsdb=tmp / "tsdb")
    store = start_victoria(tmp)
    import_openmetrics(store.url, om_path)
    return store


def vmalert_replay(tmp, url, rules, start, end, groups=None):
    """Recording rules backfilled into VictoriaMetrics by vmalert -replay (the counterpart of
    promtool tsdb create-blocks-from rules), at a 60 s step."""
    import yaml
    path = tmp / "replay-rules.yml"
    doc = yaml.safe_load(open(rules))
    if groups:
        doc["groups"] = [g for g in doc["groups"] if g["name"] in groups]
    for g in doc["groups"]:
        g["interval"] = "60s"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))   # noqa: E731
    r = subprocess.run([need("vmalert"), f"-rule={path}", f"-datasource.url={url}", f"-remoteWrite.url={url}",
                        f"-replay.timeFrom={iso(start)}", f"-replay.timeTo={iso(end)}", "-replay.disableProgressBar",
                        "-remoteWrite.flushInterval=1s", "-replay.rulesDelay=1s",
                        # the step of the replay's range queries: without it 5m, one sample per 5 minutes
                        "-datasource.queryStep=60s"],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    urllib.request.urlopen(f"{url}/internal/force_flush", timeout=60).read()
    return r
