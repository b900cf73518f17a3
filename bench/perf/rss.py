"""Exporter RSS over 10,000 scrapes (goal: at most 40 MB and flat), collecting on every scrape.

    python3 -m bench.perf rss [--scrapes 10000] [--source simulate:case-study?at=20000&processes=53]
"""
import argparse
import http.client

from bench.perf.common import free_port, rss_bytes, scrape, start_exporter, stop, wait


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scrapes", type=int, default=10000)
    ap.add_argument("--source", default="simulate:case-study?at=20000&processes=53")
    args = ap.parse_args()
    port = free_port()
    proc = start_exporter(args.source, port, "--collect.min-interval", "0")
    wait(port)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    print("| scrapes | RSS MB |")
    print("|---|---|")
    print(f"| 0 | {rss_bytes(proc.pid) / 2**20:.1f} |")
    try:
        for i in range(1, args.scrapes + 1):
            scrape(port, conn)
            if i % 1000 == 0:
                print(f"| {i} | {rss_bytes(proc.pid) / 2**20:.1f} |", flush=True)
    finally:
        stop(proc)

