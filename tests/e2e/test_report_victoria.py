"""The report against VictoriaMetrics (issue 30): it uses only the Prometheus HTTP API, so the
same command over the same case-study history, held by VictoriaMetrics with the recording
rules replayed by vmalert, finds the same change and, over the same windows, states the same
figures as against Prometheus, within the one tolerance MetricsQL needs (tests/e2e/conftest.py)."""
import csv
import datetime as dt
import io
import subprocess
import sys

import pytest

from tests.lib.stores import METRICSQL_TOLERANCE
from tests.lib.processes import env


def report(url, tmp_path, name, *windows):
    out = tmp_path / f"{name}.csv"
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "report", "--prometheus", url, "--instance",
                        "tsmsrv01:10990", "--tz", "UTC", *windows, "--out", str(out)],
                       capture_output=True, text=True, env=env(), timeout=300)
    assert r.returncode == 0, r.stderr
    return {row["figure"]: row for row in csv.DictReader(io.StringIO(out.read_text()))}, r.stdout


def edges(label):
    """'2026-11-24 20:33 UTC .. 2026-11-25 00:17 UTC' -> (start, end) as Unix times."""
    return tuple(dt.datetime.strptime(x.strip(), "%Y-%m-%d %H:%M UTC").replace(tzinfo=dt.timezone.utc).timestamp()
                 for x in label.split(".."))


def test_the_report_says_the_same_against_victoria_metrics(case_study_prometheus, case_study_victoria, tmp_path):
    auto = ("--auto", "--end", str(case_study_prometheus.end), "--lookback", "9h")
    prom, said_prom = report(case_study_prometheus.url, tmp_path, "prometheus-auto", *auto)
    vm, said_vm = report(case_study_victoria.url, tmp_path, "victoria-auto", *auto)
    # --auto finds the same change: the regime rule's first and last points may differ by a
    # minute or three between the stores (their rate() needs its samples differently)
    for side in ("before_window", "after_window"):
        for a, b in zip(edges(prom["tape"][side]), edges(vm["tape"][side])):
            assert abs(a - b) <= 300, (side, prom["tape"][side], vm["tape"][side])
    assert "the change helped" in said_prom and "the change helped" in said_vm
    # over the same windows, every figure agrees within the tolerance, with the same verdicts
    before, after = edges(prom["tape"]["before_window"]), edges(prom["tape"]["after_window"])
    windows = ("--before", f"{before[0]:.0f}..{before[1]:.0f}", "--after", f"{after[0]:.0f}..{after[1]:.0f}")
    prom, _ = report(case_study_prometheus.url, tmp_path, "prometheus", *windows)
    vm, said_vm = report(case_study_victoria.url, tmp_path, "victoria", *windows)
    assert set(vm) == set(prom)
    # the comparability's rows (report/comparability.py): the same drives at work, each drive's
    # MiB/s within the tolerance, comparable in both
    assert vm["drives_at_work"]["verdict"] == prom["drives_at_work"]["verdict"] == "comparable"
    assert (vm["drives_at_work"]["before"], vm["drives_at_work"]["after"]) == ("8", "8") == \
        (prom["drives_at_work"]["before"], prom["drives_at_work"]["after"])
    drives = [k for k in prom if k.startswith("drive:")]
    assert len(drives) == 8
    for key in drives:
        for side in ("before", "after"):
            assert float(vm[key][side]) == pytest.approx(float(prom[key][side]), rel=METRICSQL_TOLERANCE), (key, side)
    for key, row in ((k, r) for k, r in prom.items() if k != "drives_at_work" and k not in drives):
        for side in ("before", "after"):
            if row[side] in ("", "0.0"):
                assert vm[key][side] == row[side], (key, side)
            else:
                assert float(vm[key][side]) == pytest.approx(float(row[side]), rel=METRICSQL_TOLERANCE), (key, side)
        assert vm[key]["verdict"] == row["verdict"], key
        assert vm[key]["problems"] == row["problems"] == "", key      # the plausibility checks run there too
        assert vm[key]["usable_before"] == row["usable_before"] == "1.0", key
    assert "Tape throughput went from" in said_vm
