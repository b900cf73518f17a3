"""Helpers for the benchmarks: start servers on free loopback ports, scrape like Prometheus.
The benches run through ``python3 -m bench.perf NAME`` (bench/perf/__main__.py), which makes the
checkout and its exporter importable; they import the test helpers (tests/lib), never the reverse."""
import gzip
import os
import statistics
import subprocess
import sys
import time

from tests.lib import free_port, processes  # noqa: F401  (the one free_port; benches import it from here)
from tests.lib.attacks import STALLED_HELLO, frozen_registry, stalled_handshakes  # noqa: F401
from tests.lib.fetch import Reply, get  # noqa: F401  (the one HTTP GET)
from tests.lib.processes import env, stop, wait_http  # noqa: F401  (the children's environment, their stop)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH_YML = os.path.join(ROOT, "bench", "perf", "bench.yml")
HEADERS = {  # what Prometheus 2.x sends
    "Accept": "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
              "text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
    "Accept-Encoding": "gzip",
    "User-Agent": "Prometheus/2.42.0",
    "X-Prometheus-Scrape-Timeout-Seconds": "10",
}


def start(argv):
    """``argv`` in a session of its own, the checkout's exporter importable, its output dropped."""
    return processes.start(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_exporter(source, port, *extra):
    return start([sys.executable, "-m", "aix_exporter.cli", "--config.file", BENCH_YML,
                  "--source", source, "--web.listen-address", f"127.0.0.1:{port}", "--log.level", "error", *extra])


def start_node_exporter(port):
    """Debian's node_exporter with its default collectors on 127.0.0.1:``port``, or None when it
    is not installed (package prometheus-node-exporter)."""
    import shutil
    binary = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
    return start([binary, f"--web.listen-address=127.0.0.1:{port}"]) if binary else None


def probe(url, target, scrape_timeout=30, timeout=60) -> Reply:
    """GET /probe?target=``target`` of the exporter at ``url`` as Prometheus asks it."""
    return get(f"{url}/probe?target={target}", {"X-Prometheus-Scrape-Timeout-Seconds": str(scrape_timeout)},
               timeout=timeout)


def wait(port, timeout=30):
    """Until the server on ``port`` answers /metrics with 200."""
    wait_http(f"http://127.0.0.1:{port}/metrics", timeout=timeout)


def scrape(port, conn=None):
    """One scrape as Prometheus sends it; returns (seconds, uncompressed body)."""
    r = get(f"http://127.0.0.1:{port}/metrics", HEADERS, conn=conn)
    if r.status != 200:
        raise RuntimeError(f"status {r.status}")
    return r.seconds, gzip.decompress(r.body) if r.headers.get("content-encoding") == "gzip" else r.body


def series(body: bytes) -> int:
    return sum(1 for l in body.decode().splitlines() if l and not l.startswith("#"))


def cpu_seconds(pid) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        f = fh.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(f[11]) + int(f[12])) / tick


def rss_bytes(pid, field="VmRSS") -> int:
    """Resident memory of a process (``field="VmHWM"``: its peak) from /proc/PID/status."""
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    return 0


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def server_cpu_ms(proc, port, scrapes) -> tuple:
    """(series, the server's CPU ms per scrape) over ``scrapes`` scrapes of a server already up."""
    wait(port)
    n = series(scrape(port)[1])
    c0 = cpu_seconds(proc.pid)
    for _ in range(scrapes):
        scrape(port)
    return n, (cpu_seconds(proc.pid) - c0) / scrapes * 1000


def bench_exporter(spec, **options):
    """(Exporter, source) on ``spec`` with bench.yml's settings (every simulated process) and every
    collector that runs without --source system, as the benchmarks' servers run."""
    from aix_exporter.collectors import registry
    from aix_exporter.config import load
    from aix_exporter.exporter import Exporter
    from aix_exporter.sources import open_source
    settings = load(BENCH_YML)
    source = open_source(spec, settings)
    return Exporter(source, [cls(settings) for cls in registry().values() if not cls.requires_system],
                    **options), source


def median_ms(fn, n=30):
    """Median process CPU ms of ``fn()`` over ``n`` runs, after one to warm up."""
    fn()
    times = []
    for _ in range(n):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times) * 1000
