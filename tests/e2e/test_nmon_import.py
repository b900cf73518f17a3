"""nmon import end to end with real parts: aix-exporter import nmon --tsdb (promtool makes the
blocks) -> Prometheus with our rules, the recording rules backfilled over the imported history
-> every dashboard query whose metrics an nmon recording carries returns data for the
imported instance."""
import json
import re
import subprocess
import sys
import urllib.parse
import urllib.request

import pytest

from tests.lib import CORPUS, FIXTURES, ROOT, need
from tests.lib.stores import start_prometheus
from tests.lib.processes import env, stop
from tests.e2e.test_dashboard_queries import substitute
from tests.unit.test_dashboards import NAMES, exprs

REAL = CORPUS / "nmon" / "adejoux-nmon2influxdb-aixlpar-aix713.nmon.gz"
MAPPED = {"aix_vmstat_cpu_ratio", "aix_vmstat_physical_cpus_consumed", "aix_lpar_entitled_capacity_cpus",
          "aix_lpar_logical_cpus", "aix_memory_size_bytes", "aix_memory_free_bytes", "aix_vmstat_large_pages_free",
          "aix_vmstat_large_pages_active", "aix_vmstat_paging_pages_per_second", "aix_vmstat_runqueue_threads",
          "aix_vmstat_context_switches_per_second", "aix_vmstat_syscalls_per_second", "aix_memory_page_inuse_bytes",
          "aix_memory_page_pool_size_bytes", "aix_vmo_tunable", "aix:cpu_sys_per_user:ratio",
          "aix:large_pages_configured:count", "aix:large_pages_free_vmstat:ratio", "aix:large_pages_pool:count",
          "aix:large_pages_inuse:count", "aix:large_pages_free:count", "aix:large_pages_free:ratio"}


def query_range(url, expr, start, end):
    q = urllib.parse.urlencode({"query": expr, "start": start, "end": end, "step": 300})
    with urllib.request.urlopen(f"{url}/api/v1/query_range?{q}", timeout=60) as r:
        body = json.load(r)
    assert body["status"] == "success", body
    return body["data"]["result"]


def test_imported_nmon_history_feeds_rules_and_dashboards(tmp_path):
    promtool = need("promtool")
    files = [str(FIXTURES / "nmon" / "old-zzzz-midnight-largepage.nmon")]
    if REAL.is_file():
        files.append(str(REAL))
    tsdb = tmp_path / "tsdb"
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "import", "nmon", "--tz", "UTC", "--date-order", "dmy",
                        "--out", str(tmp_path / "h.om"), "--tsdb", str(tsdb), *files],
                       capture_output=True, text=True, env=env(), timeout=600)
    assert r.returncode == 0, r.stderr
    assert "blocks written to" in r.stdout
    rules = str(ROOT / "alerts" / "aix-rules.yml")
    cfg = f"global:\n  scrape_interval: 60s\n  evaluation_interval: 60s\nrule_files:\n  - {rules}\n"
    first = start_prometheus(tmp_path, cfg, tsdb=tsdb, retention="30y")   # the history is years old
    start, end = 1301874600, 1301875800          # tsmold01: 2011-04-03 23:50 .. 2011-04-04 00:10 UTC
    ranges = [("tsmold01:10990", start, end)]
    if REAL.is_file():
        ranges.append(("aixlpar:10990", 1455125290, 1455181172))
    out = tmp_path / "rule-blocks"
    for i, (_, a, b) in enumerate(ranges):
        subprocess.run([promtool, "tsdb", "create-blocks-from", "rules", "--start", str(a - 60), "--end", str(b + 60),
                        "--url", first.url, "--eval-interval", "60s", "--output-dir", str(out / str(i)), rules],
                       check=True, capture_output=True, timeout=600)
    stop(first.proc)
    for d in out.iterdir():
        for block in d.iterdir():
            block.rename(tsdb / block.name)
    p = start_prometheus(tmp_path, cfg, tsdb=tsdb, retention="30y")
    try:
        # the recording rules exist over the imported history
        for instance, a, b in ranges:
            got = query_range(p.url, f'aix:cpu_sys_per_user:ratio{{instance="{instance}"}}', a, b)
            assert got and len(got[0]["values"]) >= 2, instance
        # 16 MB pool figures of tsmold01 (LARGEPAGE and vmo -L in BBBP)
        got = query_range(p.url, 'aix:large_pages_configured:count{instance="tsmold01:10990"}', start, end)
        assert got and float(got[0]["values"][-1][1]) == 160
        # every dashboard query whose metrics a recording carries returns data for the imported instance
        checked = 0
        present = {}   # instance -> metric names (raw and recorded) its imported history has
        for instance, a, b in ranges:
            names = query_range(p.url, f'count by (__name__) ({{instance="{instance}"}})', a, b)
            present[instance] = {r["metric"]["__name__"] for r in names}
        for name in NAMES:
            for title, expr in exprs(json.loads((ROOT / "dashboards" / name).read_text())):
                metrics = set(re.findall(r"\baix[:_][a-z0-9_:]+", expr))
                if not metrics or not metrics <= MAPPED or "changes(" in expr:
                    continue   # (a change annotation marks events: an unchanged recording has none)
                for instance, a, b in ranges:
                    if not metrics <= present[instance]:
                        continue   # a section this recording lacks (LARGEPAGE needs nmon -L)
                    q = substitute(expr).replace('instance=~".*"', f'instance=~"{re.escape(instance)}"')
                    q = re.sub(r" offset \w+", "", q)   # the comparison's windows placed on the imported history
                    series = query_range(p.url, q, a + 3600 if b - a > 7200 else a, b)
                    assert series and any(s["values"] for s in series), f"{name}:{title} no data for {instance}: {q}"
                    checked += 1
        assert checked >= 6, checked
    finally:
        stop(p.proc)


def _day(host, date, hours, user, sys_, frames, free):
    """A day of an nmon recording in the real format: hourly snapshots, CPU_ALL and MEMPAGES16MB."""
    head = ["AAA,progname,topas_nmon", f"AAA,host,{host}", f"AAA,date,{date}",
            "CPU_ALL,CPU Total,User%,Sys%,Wait%,Idle%,Busy,PhysicalCPUs",
            "LPAR,Logical Partition,PhysicalCPU,virtualCPUs,logicalCPUs,poolCPUs,entitled",
            "MEMPAGES16MB,MemoryPages,numframes,numfrb,pgexct,pageins,pageouts,pgspgins,pgspgouts"]
    rows = []
    for i, h in enumerate(hours, 1):
        rows += [f"ZZZZ,T{i:04d},{h:02d}:00:00,{date}", f"CPU_ALL,T{i:04d},{user},{sys_},1.0,{100 - user - sys_ - 1},,8",
                 f"LPAR,T{i:04d},{(user + sys_) / 100 * 8:.3f},8,32,16,4.00",
                 f"MEMPAGES16MB,T{i:04d},{frames},{free},0,0,0,0,0"]
    return "\n".join(head + rows) + "\n"


def test_report_on_imported_nmon_history_finds_the_large_page_change(tmp_path):
    """Two days of nmon: 4 KB pages the first (no 16 MB frames), 16 MB pages the second; the
    regime rule falls back to the LPAR's 16 MB pages, and the report compares the two days."""
    promtool = need("promtool")
    (tmp_path / "d1.nmon").write_text(_day("tsmnm01", "02-NOV-2026", range(0, 24), 3.0, 15.0, 0, 0))
    (tmp_path / "d2.nmon").write_text(_day("tsmnm01", "03-NOV-2026", range(0, 24), 28.0, 12.0, 160, 40))
    tsdb = tmp_path / "tsdb"
    subprocess.run([sys.executable, "-m", "aix_exporter.cli", "import", "nmon", "--tz", "UTC", "--tsdb", str(tsdb),
                    str(tmp_path / "d2.nmon"), str(tmp_path / "d1.nmon")], check=True, capture_output=True, env=env(),
                   timeout=300)
    rules = str(ROOT / "alerts" / "aix-rules.yml")
    cfg = f"global:\n  scrape_interval: 60s\n  evaluation_interval: 60s\nrule_files:\n  - {rules}\n"
    start, end = 1793577600, 1793746800          # 2026-11-02 00:00 .. 2026-11-03 23:00 UTC
    first = start_prometheus(tmp_path, cfg, tsdb=tsdb, retention="30y")
    subprocess.run([promtool, "tsdb", "create-blocks-from", "rules", "--start", str(start), "--end", str(end + 60),
                    "--url", first.url, "--eval-interval", "300s", "--output-dir", str(tmp_path / "rb"), rules],
                   check=True, capture_output=True, timeout=600)
    stop(first.proc)
    for block in (tmp_path / "rb").iterdir():
        block.rename(tsdb / block.name)
    p = start_prometheus(tmp_path, cfg, tsdb=tsdb, retention="30y")
    try:
        out = tmp_path / "r.csv"
        r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "report", "--prometheus", p.url, "--instance",
                            "tsmnm01:10990", "--auto", "--end", str(end + 60), "--lookback", "3d", "--tz", "UTC",
                            "--format", "csv", "--out", str(out)], capture_output=True, text=True, env=env(), timeout=300)
        assert r.returncode == 0, r.stderr
        import csv
        rows = {row["figure"]: row for row in csv.DictReader(out.open())}
        assert float(rows["user"]["before"]) == pytest.approx(3.0) and float(rows["user"]["after"]) == pytest.approx(28.0)
        assert rows["sys_per_user"]["verdict"] == "better"
        assert rows["tape"]["ratio"] == "n/a"   # not in a recording
        assert float(rows["mem_16m"]["after"]) == pytest.approx(120 * 16 / 1024)
        # the regime dashboard's table on the same history: its columns are the two days
        from tests.unit.test_dashboards import dashboards
        table = dashboards()["aix-before-after.json"]["panels"][0]

        def column(k):
            expr = substitute(table["targets"][k]["expr"].replace("$__range", "48h")).replace('=~".*"', '=~"tsmnm01:10990"')
            q = urllib.parse.urlencode({"query": expr, "time": str(end + 60)})
            with urllib.request.urlopen(f"{p.url}/api/v1/query?{q}", timeout=60) as resp:
                return {x["metric"]["figure"]: float(x["value"][1]) for x in json.load(resp)["data"]["result"]}
        assert column(0)["3 User CPU (%)"] == pytest.approx(3.0) and column(1)["3 User CPU (%)"] == pytest.approx(28.0)
        assert column(2)["6 System / user CPU"] == pytest.approx((12 / 28) / (15 / 3))
        # the windows: day 1 up to its last snapshot (23:00, less the margin), day 2 from its first (00:00)
        assert rows["user"]["before_window"].split("..")[1].strip().startswith("2026-11-02 2")
        assert rows["user"]["after_window"].split("..")[0].strip().startswith("2026-11-03 00:")
        # the HTML page of a recording: only the plots with data are drawn (no tape or splat in
        # nmon), the others named; times in the zone asked for
        html = tmp_path / "r.html"
        r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "report", "--prometheus", p.url, "--instance",
                            "tsmnm01:10990", "--auto", "--end", str(end + 60), "--lookback", "3d", "--tz",
                            "America/Chicago", "--title", "CHG0042: 16 MB pages for dsmserv", "--out", str(html)],
                           capture_output=True, text=True, env=env(), timeout=300)
        assert r.returncode == 0, r.stderr
        page = html.read_text()
        assert page.count("<svg") == 1 and 'id="plot-cpu"' in page      # this recording has no LARGEPAGE section
        assert ("No data in this history for: Tape MiB/s (read + written), pin_seg_range miss ratio, 16 MB pages: "
                "configured, in use, free (not drawn).") in page
        assert "<h1>CHG0042: 16 MB pages for dsmserv</h1>" in page and "Times in America/Chicago" in page
        assert "time (America/Chicago)" in page and "2026-11-02 1" in page and " CST" in page
    finally:
        stop(p.proc)
