"""Scrape latency and CPU per scrape: aix_exporter (simulator, ~1,000 and ~5,000 series) against
Debian's prometheus-node-exporter at its default series count, measured in the same run,
alternating scrapes, with the headers Prometheus sends (OpenMetrics accept, gzip).

    python3 -m bench.perf scrape_latency [--scrapes 500] [--min-interval 5]
"""
import argparse

from bench.perf.common import cpu_seconds, free_port, pct, scrape, series, start_exporter, start_node_exporter, stop, wait

SIZES = {"~1,000": 53, "~5,000": 320}   # simulated processes -> series


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scrapes", type=int, default=500)
    ap.add_argument("--min-interval", default="5")
    args = ap.parse_args()
    ne_port = free_port()
    ne = start_node_exporter(ne_port)
    if ne is None:
        raise SystemExit("install Debian's prometheus-node-exporter first")
    wait(ne_port)
    print("| target | series | p50 ms | p99 ms | CPU ms/scrape | scrapes |")
    print("|---|---|---|---|---|---|")
    try:
        for label, procs in SIZES.items():
            port = free_port()
            ours = start_exporter(f"simulate:case-study?at=20000&processes={procs}", port,
                                  "--collect.min-interval", args.min_interval)
            wait(port)
            lat = {"ours": [], "ne": []}
            cpu0 = {"ours": cpu_seconds(ours.pid), "ne": cpu_seconds(ne.pid)}
            n_series = {"ours": series(scrape(port)[1]), "ne": series(scrape(ne_port)[1])}
            for _ in range(args.scrapes):
                lat["ours"].append(scrape(port)[0])
                lat["ne"].append(scrape(ne_port)[0])
            cpu = {"ours": cpu_seconds(ours.pid) - cpu0["ours"], "ne": cpu_seconds(ne.pid) - cpu0["ne"]}
            stop(ours)
            for who, name in (("ours", f"aix_exporter {label} (min-interval {args.min_interval}s)"),
                              ("ne", "node_exporter (default collectors)")):
                l = lat[who]
                print(f"| {name} | {n_series[who]} | {pct(l, 50) * 1000:.2f} | {pct(l, 99) * 1000:.2f} | "
                      f"{cpu[who] / args.scrapes * 1000:.2f} | {args.scrapes} |")
    finally:
        stop(ne)

