"""import --store URL (issue 31): an nmon history written into a running VictoriaMetrics or
Prometheus (remote-write receiver), refused when the store would drop it for its age, and
counted back after writing. Real stores on free loopback ports, stopped by PID."""
import subprocess
import sys

import pytest

from tests.lib import FIXTURES
from tests.lib.stores import Prom, start_prometheus, start_victoria
from tests.lib.processes import env, stop
from tests.e2e.test_nmon_import import _day

DAYS = [str(FIXTURES / "nmon" / "tsmnm01-day1-4k.nmon"), str(FIXTURES / "nmon" / "tsmnm01-day2-16m.nmon")]
WRITTEN = 672     # samples of the two fixture days (their --out summary)


def run_import(store, *files, force=False):
    argv = [sys.executable, "-m", "aix_exporter.cli", "import", "nmon", "--tz", "UTC", "--store", store, *files]
    if force:
        argv.append("--force")
    return subprocess.run(argv, capture_output=True, text=True, env=env(), timeout=300)


@pytest.fixture
def old_recording(tmp_path):
    path = tmp_path / "old01-2016.nmon"
    path.write_text(_day("old01", "02-MAR-2016", range(0, 24), 3.0, 15.0, 0, 0))
    return str(path)


def count(p: Prom, instance, end):
    """CPU samples of ``instance`` in the 3 days up to ``end``."""
    res = p.query(f'sum(count_over_time(aix_vmstat_cpu_ratio{{instance="{instance}"}}[3d]))', at=end)
    return int(float(res[0]["value"][1])) if res else 0


def test_victoria_metrics_takes_the_history_and_it_is_counted_back(tmp_path):
    v = start_victoria(tmp_path)
    try:
        r = run_import(v.url, *DAYS)
        assert r.returncode == 0, r.stderr
        assert f"written to VictoriaMetrics at {v.url}: {WRITTEN} samples, {WRITTEN} read back" in r.stdout
        assert count(v, "tsmnm01:10990", 1793750400) == 48 * 4      # 48 hourly snapshots: user, sys, wait, idle
    finally:
        stop(v.proc)


def test_a_2016_recording_is_refused_by_a_store_that_keeps_a_month(tmp_path, old_recording):
    v = start_victoria(tmp_path, retention="1")          # VictoriaMetrics' default: one month
    try:
        r = run_import(v.url, old_recording)
        assert r.returncode == 1
        assert "keeps -retentionPeriod=1: its older samples would be dropped without an error" in r.stderr
        assert "-retentionPeriod=" in r.stderr.split("Restart the store with ")[1] and "--force" in r.stderr
        assert count(v, "old01:10990", 1456963200) == 0      # nothing written (2016-03-03)
        # --force writes anyway, and the read-back says what the store did not keep
        r = run_import(v.url, old_recording, force=True)
        assert r.returncode == 1 and "kept 0 of 336 samples" in r.stderr, r.stderr
    finally:
        stop(v.proc)


def test_a_store_that_keeps_long_enough_takes_the_2016_recording(tmp_path, old_recording):
    v = start_victoria(tmp_path)                          # -retentionPeriod=100y
    try:
        r = run_import(v.url, old_recording)
        assert r.returncode == 0 and "336 samples, 336 read back" in r.stdout, r.stdout + r.stderr
    finally:
        stop(v.proc)


def test_prometheus_with_the_remote_write_receiver(tmp_path):
    cfg = "global:\n  scrape_interval: 60s\nstorage:\n  tsdb:\n    out_of_order_time_window: 3650d\n"
    p = start_prometheus(tmp_path, cfg, extra=("--web.enable-remote-write-receiver",), retention="10y")
    try:
        r = run_import(p.url, *DAYS)
        assert r.returncode == 0, r.stderr
        assert f"written to Prometheus at {p.url}: {WRITTEN} samples, {WRITTEN} read back" in r.stdout
    finally:
        stop(p.proc)


def test_prometheus_without_an_out_of_order_window_or_receiver_is_refused(tmp_path):
    p = start_prometheus(tmp_path, "global:\n  scrape_interval: 60s\n", extra=("--web.enable-remote-write-receiver",),
                         retention="10y")
    try:
        r = run_import(p.url, *DAYS)
        assert r.returncode == 1 and "storage.tsdb.out_of_order_time_window" in r.stderr and "--tsdb DIR" in r.stderr
    finally:
        stop(p.proc)
    (tmp_path / "plain").mkdir()
    q = start_prometheus(tmp_path / "plain", "global:\n  scrape_interval: 60s\n")
    try:
        r = run_import(q.url, *DAYS)
        assert r.returncode == 1 and "--web.enable-remote-write-receiver" in r.stderr
    finally:
        stop(q.proc)
