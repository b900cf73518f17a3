"""Where a fresh scrape's CPU goes, stage by stage, at three sizes (README default ~250, ~1,000
and ~5,000 series): the command text is captured first (a replay directory written from the
simulator, so no stage is the simulator's own rendering), then

  read      every command's captured text read from its file (on AIX: the commands run)
  collect   parse and collect (Exporter.collect_all on the replay, minus the read)
  families  the families with the self metrics (registry().collect())
  encode    OpenMetrics 1.0 (exposition.openmetrics), gzip level 1
  fresh     server CPU per scrape of a running exporter on that replay, --collect.min-interval 0,
            Prometheus' headers (OpenMetrics, gzip), one connection per scrape
  cached    the same with the exposition reused (--collect.min-interval 3600): what a second
            scraper within the interval (an HA pair of Prometheus servers) costs
  x floor   fresh / (sum + cached): the fresh scrape against its floor, the stages plus what
            serving a ready exposition costs (issue 47's goal: at most 1.5x)
and, scraped the same way, Debian's node_exporter with its default collectors (every scrape of
it is a fresh collection), with CPU per series for both.

    python3 -m bench.perf scrape_stages [--scrapes 200]

Medians of process CPU time in ms (in-process stages: 30 runs).
"""
import argparse
import gzip
import os
import tempfile

from aix_exporter import exposition
from aix_exporter.commands import TABLE
from aix_exporter.sources import NotRunning
from aix_exporter.sources.simulate import SimulatedSource

from bench.perf.common import (
    bench_exporter,
    free_port,
    frozen_registry,
    median_ms,
    server_cpu_ms,
    start_exporter,
    start_node_exporter,
    stop,
)

SIZES = {"default": 0, "~1,000": 53, "~5,000": 320}   # simulated processes


def replay(directory, processes):
    src = SimulatedSource("case-study?at=20000" + (f"&processes={processes}" if processes else ""))
    src.set_time(20000)
    for cmd in TABLE:
        try:
            text = src.read(cmd.key)
        except NotRunning:
            continue
        with open(os.path.join(directory, f"{cmd.key}.txt"), "w") as fh:
            fh.write(text)


def stages(directory):
    ex, source = bench_exporter(f"replay:{directory}", min_interval=0)   # as the server's settings
    keys = [n[:-4] for n in os.listdir(directory) if n.endswith(".txt")]
    read = median_ms(lambda: [source.read(k) for k in keys])
    collect = median_ms(ex.collect_all) - read
    families = median_ms(lambda: list(ex.registry().collect()))
    reg = frozen_registry(ex.registry().collect())
    body = exposition.openmetrics(reg)
    encode = median_ms(lambda: exposition.openmetrics(reg))
    gz = median_ms(lambda: gzip.compress(body, compresslevel=1))
    ex.stop()
    return read, collect, families, encode, gz


def server_cpu(directory, min_interval, scrapes):
    port = free_port()
    proc = start_exporter(f"replay:{directory}", port, "--collect.min-interval", str(min_interval))
    try:
        return server_cpu_ms(proc, port, scrapes)
    finally:
        stop(proc)


def node_exporter(scrapes):
    port = free_port()
    proc = start_node_exporter(port)
    if proc is None:
        return None
    try:
        return server_cpu_ms(proc, port, scrapes)
    finally:
        stop(proc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scrapes", type=int, default=200)
    args = ap.parse_args()
    print("| size | series | read | collect | families | encode | gzip | sum | fresh scrape | per 1,000 series "
          "| cached scrape | x floor |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, procs in SIZES.items():
        with tempfile.TemporaryDirectory() as d:
            replay(d, procs)
            parts = stages(d)
            n, fresh = server_cpu(d, 0, args.scrapes)
            _, cached = server_cpu(d, 3600, args.scrapes)
            cells = " | ".join(f"{p:.2f}" for p in parts)
            print(f"| {label} | {n} | {cells} | {sum(parts):.2f} | {fresh:.2f} | {fresh / n * 1000:.2f} "
                  f"| {cached:.2f} | {fresh / (sum(parts) + cached):.2f}x |")
    ne = node_exporter(args.scrapes)
    if ne:
        n, fresh = ne
        print(f"| node_exporter | {n} | | | | | | | {fresh:.2f} | {fresh / n * 1000:.2f} | | |")

