"""Concurrent scrapers (a short version of bench/perf/load.py): no errors, every body complete."""
import sys
import threading
import time
import urllib.request

from tests.lib import free_port
from tests.lib.processes import start, stop, wait_http


def test_twenty_concurrent_scrapers_for_five_seconds():
    port = free_port()
    proc = start([sys.executable, "-m", "aix_exporter.cli", "--source", "simulate:case-study?at=20000",
                  "--web.listen-address", f"127.0.0.1:{port}", "--collect.min-interval", "0.5"])
    ok, errors = [0], []
    lock = threading.Lock()
    try:
        wait_http(f"http://127.0.0.1:{port}/metrics", proc=proc)
        stop_at = time.monotonic() + 5

        def worker():
            while time.monotonic() < stop_at:
                try:
                    body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read()
                    assert body.rstrip().endswith(b"1.0") and b"aix_exporter_build_info" in body
                    with lock:
                        ok[0] += 1
                except Exception as e:
                    with lock:
                        errors.append(repr(e))

        threads = [threading.Thread(target=worker) for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        stop(proc)
    assert errors == [] and ok[0] > 100
