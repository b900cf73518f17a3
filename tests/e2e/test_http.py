"""The real server on a free loopback port: landing page, content types, contract and self metrics."""
import gzip
import sys
import urllib.request

from tests.lib import FIXTURES, free_port
from tests.lib.processes import start, stop, wait_http


def test_http_scrape_replay(tmp_path):
    port = free_port()
    proc = start([sys.executable, "-m", "aix_exporter.cli", "--source", f"replay:{FIXTURES / 'replay' / 'tsm-lpar'}",
                  "--web.listen-address", f"127.0.0.1:{port}"])
    try:
        landing = wait_http(f"http://127.0.0.1:{port}/", proc=proc).decode()
        assert 'href="/metrics"' in landing
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            body = r.read().decode()
        assert 'aix_memory_page_pool_size_bytes{psize="16M"} 2.68435456e+09' in body
        for c in ("vmstat", "memory", "vmo", "vmstat_v", "vmstat_s"):
            assert f'aix_exporter_collector_success{{collector="{c}"}} 1.0' in body
            assert f'aix_exporter_collector_duration_seconds{{collector="{c}"}}' in body
            assert f'aix_exporter_collector_last_success_timestamp_seconds{{collector="{c}"}}' in body
        assert 'aix_exporter_build_info{version="' in body
        # What Prometheus sends: OpenMetrics accept header and gzip.
        req = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers={
            "Accept": "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5",
            "Accept-Encoding": "gzip"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert r.headers["Content-Type"].startswith("application/openmetrics-text")
            assert r.headers["Content-Encoding"] == "gzip"
            om = gzip.decompress(r.read()).decode()
        assert om.rstrip().endswith("# EOF")
        assert 'aix_vmstat_cpu_ratio{mode="sys"} 0.15' in om
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/nope", timeout=5)
            raise AssertionError("expected 404")
        except urllib.error.HTTPError as e:
            assert e.code == 404
    finally:
        stop(proc)
