"""Three page-size regimes end to end (issue 44), the way an admin runs them on history:
`aix-exporter simulate --openmetrics`, promtool's backfill of the blocks and of the recording
rules, then `report --tsdb DIR --auto` and `plan --tsdb DIR --at TIME` on each of the
scenarios ibm-64k (64 KB pages contended, then 16 MB) and ibm-64k-quiet (IBM's line, no
contention). And the live exporter on ibm-64k: dsmserv's heap in 64 KB pages."""
import csv
import subprocess
import sys
import time

import pytest

from aix_exporter.tools import importing
from tests.lib import ROOT, need
from tests.lib.stores import blocks_from, simulated_history
from tests.lib.processes import env

HOUR = 3600


@pytest.fixture(scope="module")
def histories(tmp_path_factory):
    """One block directory per scenario, with the rules backfilled; ends at `end`."""
    need("promtool")
    tmp = tmp_path_factory.mktemp("regimes")
    end = int(time.time()) // 60 * 60
    out = {}
    for name in ("ibm-64k", "ibm-64k-quiet"):
        om, tsdb = tmp / f"{name}.om", tmp / name
        simulated_history(name, om, end, f"job=aix,instance={name}:10990", timeout=600)
        blocks_from(om, tsdb)
        importing.backfill_rules(str(tsdb), [str(ROOT / "alerts" / "aix-rules.yml")], end - 8 * HOUR - 60, end)
        out[name] = (tsdb, end)
    return out


def cli(*args):
    return subprocess.run([sys.executable, "-m", "aix_exporter.cli", *args], capture_output=True, text=True,
                          env=env(), timeout=300)


def test_report_auto_names_the_64k_to_16m_change(histories, tmp_path):
    tsdb, end = histories["ibm-64k"]
    r = cli("report", "--tsdb", str(tsdb), "--instance", "ibm-64k:10990", "--auto", "--tz", "UTC",
            "--out", str(tmp_path / "r.md"))
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "r.md").read_text()
    assert text.startswith("# Before/after: ibm-64k:10990, 64 KB to 16 MB pages\n")
    assert "* Regime change (end of the last 64 KB run): " in text
    assert "From 64 KB to 16 MB pages. Comparable for tape: 48 drives at work in both windows" in text
    assert "Tape throughput went from 1,3" in text
    r = cli("report", "--tsdb", str(tsdb), "--instance", "ibm-64k:10990", "--auto", "--format", "csv",
            "--out", str(tmp_path / "r.csv"))
    rows = {row["figure"]: row for row in csv.DictReader((tmp_path / "r.csv").open())}
    # the model: 48 drives at 27.7 MiB/s (64 KB pages), 40.9 after (16 MB pages)
    assert float(rows["tape"]["before"]) == pytest.approx(1330, rel=0.03)
    assert float(rows["tape"]["after"]) == pytest.approx(1962, rel=0.03)
    assert float(rows["pin_miss"]["before"]) == pytest.approx(0.1227, abs=0.005)
    assert rows["tape"]["verdict"] == rows["sys_per_user"]["verdict"] == rows["pin_miss"]["verdict"] == "better"


def test_plan_at_a_64k_hour_judges_the_16m_step_on_its_own_figures(histories, tmp_path):
    tsdb, end = histories["ibm-64k"]
    r = cli("plan", "--tsdb", str(tsdb), "--instance", "ibm-64k:10990", "--at", str(end - 6 * HOUR), "--tz", "UTC",
            "--out", str(tmp_path / "p.md"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("recommended: lgpg_regions=160 (16 MB pages) and LARGE_PAGE_DATA=Y for dsmserv")
    text = (tmp_path / "p.md").read_text()
    assert "| 64 KB pages |" in text and "| 64 KB pages (now) | 4 |" in text
    assert "378.0" not in text and "2.7x" not in text and "2.72" not in text and "139 / 378" not in text


def test_plan_on_ibm_64k_quiet_is_no_change_with_the_reason(histories, tmp_path):
    tsdb, end = histories["ibm-64k-quiet"]
    r = cli("plan", "--tsdb", str(tsdb), "--instance", "ibm-64k-quiet:10990", "--at", str(end - 3 * HOUR),
            "--out", str(tmp_path / "p.md"))
    assert r.returncode == 2, r.stderr
    assert "not recommended: on 64 KB pages the figures do not show the pin-lock contention the 16 MB step " \
           "addresses" in r.stdout
    # no change of regime in its history: report --auto says so in one line
    r = cli("report", "--tsdb", str(tsdb), "--instance", "ibm-64k-quiet:10990", "--auto", "--out", str(tmp_path / "r.md"))
    assert r.returncode == 1
    assert "no change of page-size regime found for 'ibm-64k-quiet:10990' (only 64 KB pages)" in r.stderr


def test_the_live_exporter_shows_the_heap_in_64k_pages():
    r = cli("--source", "simulate:ibm-64k", "--once")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    heap = [l for l in lines if l.startswith('aix_process_inuse_bytes{command="dsmserv"') and 'psize="64K"' in l]
    assert len(heap) == 1 and float(heap[0].rsplit(" ", 1)[1]) > 1.5 * 2**30      # 108 x 16 MB of heap, and more
    assert any(l.startswith("aix_process_ldr_cntrl_info{") and 'datapsize="64K"' in l and 'large_page_data=""' in l
               for l in lines)
    assert "aix_aso_active 0.0" in lines


def test_report_auto_finds_the_same_change_on_victoria_metrics(histories, tmp_path):
    """The same ibm-64k history held by VictoriaMetrics, its rules replayed by vmalert: the report
    names the same change from 64 KB to 16 MB pages."""
    from tests.lib.stores import import_openmetrics, start_victoria, vmalert_replay
    from tests.lib.processes import stop
    tsdb, end = histories["ibm-64k"]
    v = start_victoria(tmp_path)
    try:
        import_openmetrics(v.url, tsdb.parent / "ibm-64k.om")
        vmalert_replay(tmp_path, v.url, ROOT / "alerts" / "aix-rules.yml", end - 8 * HOUR - 60, end,
                       groups={"aix.rules"})
        r = cli("report", "--prometheus", v.url, "--instance", "ibm-64k:10990", "--auto", "--end", str(end),
                "--lookback", "9h", "--format", "csv", "--out", str(tmp_path / "r.csv"))
        assert r.returncode == 0, r.stderr
        said = r.stdout.splitlines()[1]
        assert said.startswith("From 64 KB to 16 MB pages. Comparable for tape: 48 drives at work in both windows")
        assert "Tape throughput went from 1,3" in said
        rows = {row["figure"]: row for row in csv.DictReader((tmp_path / "r.csv").open())}
        assert float(rows["tape"]["after"]) / float(rows["tape"]["before"]) == pytest.approx(1962 / 1330, rel=0.04)
    finally:
        stop(v.proc)
