"""50 concurrent scrapers for 60 seconds against one exporter: errors and latency percentiles.

    python3 -m bench.perf load [--clients 50] [--seconds 60] [--min-interval 5]
"""
import argparse
import threading
import time

from bench.perf.common import free_port, pct, scrape, start_exporter, stop, wait


def run(port, clients, seconds):
    lat, errors, lock = [], [], threading.Lock()
    stop_at = time.monotonic() + seconds

    def worker():
        while time.monotonic() < stop_at:
            try:
                dt, body = scrape(port)
                if b"aix_exporter_build_info" not in body:
                    raise RuntimeError("incomplete body")
                with lock:
                    lat.append(dt)
            except Exception as e:  # every failure is counted
                with lock:
                    errors.append(repr(e))

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return lat, errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--min-interval", default="5")
    ap.add_argument("--source", default="simulate:case-study?at=20000&processes=53")
    args = ap.parse_args()
    port = free_port()
    proc = start_exporter(args.source, port, "--collect.min-interval", args.min_interval)
    wait(port)
    try:
        lat, errors = run(port, args.clients, args.seconds)
    finally:
        stop(proc)
    print("| clients | seconds | min-interval | scrapes | errors | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {args.clients} | {args.seconds:g} | {args.min_interval}s | {len(lat)} | {len(errors)} | "
          f"{pct(lat, 50) * 1000:.1f} | {pct(lat, 99) * 1000:.1f} | {max(lat) * 1000:.1f} |")
    if errors:
        print("first errors:", errors[:3])

