"""Fresh scrapes as a real Prometheus makes them: every exporter scraped once every
``--cadence`` seconds (15 s, Prometheus' usual interval), side by side and interleaved, with
aix_exporter's default ``--collect.min-interval`` (5 s, so every scrape at that cadence is a
fresh collection) and Debian's node_exporter with its default collectors. The figure is each
server's own CPU time (user + system, /proc/PID/stat) over the run, per scrape and per 1,000
series; the servers idle between scrapes, as in a real deployment, so nothing is warm that a
real scrape would find cold.

aix_exporter runs on replays captured from the simulator at three sizes (the README's
default LPAR, ~1,000 and ~5,000 series; see scrape_stages.py), so its figure is the
exporter's own work: on AIX the commands' CPU comes on top.

    python3 -m bench.perf scrape_cadence [--cadence 15] [--scrapes 40]

40 scrapes at 15 s take 10 minutes.
"""
import argparse
import shutil
import tempfile
import time

from bench.perf.common import cpu_seconds, free_port, scrape, series, start_exporter, start_node_exporter, stop, wait
from bench.perf.scrape_stages import SIZES, replay


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cadence", type=float, default=15.0)
    ap.add_argument("--scrapes", type=int, default=40)
    args = ap.parse_args()
    if args.cadence <= 5:
        ap.error("--cadence must exceed the exporter's --collect.min-interval (5 s) for each scrape to be fresh")
    dirs, servers = [], []   # (label, proc, port)
    try:
        for label, procs in SIZES.items():
            d = tempfile.mkdtemp(prefix="aix-cadence-")
            dirs.append(d)
            replay(d, procs)
            port = free_port()
            servers.append((f"aix_exporter {label}", start_exporter(f"replay:{d}", port), port))
        port = free_port()
        node = start_node_exporter(port)
        if node is not None:
            servers.append(("node_exporter (default collectors)", node, port))
        for _, _, port in servers:
            wait(port)
        n = {label: series(scrape(port)[1]) for label, _, port in servers}
        time.sleep(args.cadence)   # the first scrapes' collection out of the way of the measured ones
        cpu0 = {label: cpu_seconds(proc.pid) for label, proc, _ in servers}
        for _ in range(args.scrapes):
            started = time.monotonic()
            for _, _, port in servers:   # one after the other, in the same order each round
                scrape(port)
            time.sleep(max(0.0, args.cadence - (time.monotonic() - started)))
        print(f"| exporter | series | CPU ms per scrape | per 1,000 series | scrapes every {args.cadence:g} s |")
        print("|---|---:|---:|---:|---:|")
        for label, proc, _ in servers:
            ms = (cpu_seconds(proc.pid) - cpu0[label]) / args.scrapes * 1000
            print(f"| {label} | {n[label]} | {ms:.2f} | {ms / n[label] * 1000:.2f} | {args.scrapes} |")
    finally:
        for _, proc, _ in servers:
            stop(proc)
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)

