"""The before/after comparison over a fleet: table queries and the report, p50 and p99.

    python3 -m bench.perf comparison_queries [--lpars 100] [--days 7] [--step 120] [--runs 20]

History: LPARS simulated LPARs x DAYS days, every series the comparison reads (tape read and
written byte counters, tape transfers, user/sys/wait CPU, physical CPUs consumed, the
pin_seg_range miss ratio, 4 KB and 16 MB memory in use, lgpg_regions, the 16 MB pool's pages
active and free) at one sample every STEP seconds, with each LPAR tuned from 4 KB to 16 MB
pages at its own time. The recorded series the comparison reads (aix:regime_page_size:bytes, the
per-regime aix:regime_* figures, aix:large_pages_configured:count) are written as the rules
would record them at an evaluation interval of STEP: the bench measures the queries, not the
rules (their backfill is tested end to end in tests/e2e).
The history goes through `promtool tsdb create-blocks-from openmetrics` (24 h blocks, as a
compacted Prometheus holds a week) into a real Prometheus (Debian package prometheus).

Measured, RUNS times each on LPARs taken in turn:
- every query of the before/after dashboard's tables (the one-LPAR comparison table and the
  fleet table) as Grafana sends them: instant queries at the range's end, $__range = DAYS days;
- `aix-exporter report --auto` without writing the file: finding the regimes, the figures of
  both windows and the plotted series (report.compare.find_regimes + compare).
"""
import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from bench.perf.common import ROOT, free_port
from tests.lib.processes import wait_http

MIB = 1 << 20


def lpar(i):
    return f"lpar{i:03d}:10990"


def history(path, lpars, days, step, end):
    """OpenMetrics of the fleet; returns {instance: tuning time}."""
    rng = random.Random(7)
    start = end - days * 86400
    times = [start + k * step for k in range(int(days * 86400 / step) + 1)]
    tuned = {lpar(i): start + rng.uniform(0.3, 0.7) * days * 86400 // step * step for i in range(lpars)}

    def regime(inst, t):
        return 1 if t >= tuned[inst] else 0

    # family -> (type, [(sample name suffix, labels, fn(regime 0|1, LPAR size factor) -> value)])
    gauges = {
        "aix_tape_transfers_per_second": ("gauge", [("", {"device": "rmt0"}, lambda r, x: (1100 if r else 420) * x)]),
        "aix_vmstat_cpu_ratio": ("gauge", [
            ("", {"mode": "user"}, lambda r, x: (0.24 if r else 0.03) * x),
            ("", {"mode": "sys"}, lambda r, x: (0.10 if r else 0.62) * x),
            ("", {"mode": "wait"}, lambda r, x: 0.02 * x)]),
        "aix_vmstat_physical_cpus_consumed": ("gauge", [("", {}, lambda r, x: (1.4 if r else 2.6) * x)]),
        "aix_splat_function_miss_ratio": ("gauge", [("", {"function": "pin_seg_range"},
                                                     lambda r, x: 0.004 if r else 0.25)]),
        "aix_memory_page_inuse_bytes": ("gauge", [
            ("", {"psize": "4K"}, lambda r, x: (6 if r else 14) * (1 << 30) * x),
            ("", {"psize": "16M"}, lambda r, x: (8 if r else 0) * (1 << 30) * x)]),
        "aix_vmo_tunable": ("gauge", [("", {"tunable": "lgpg_regions", "setting": "current"},
                                       lambda r, x: 640 if r else 0)]),
        "aix_vmstat_large_pages_active": ("gauge", [("", {}, lambda r, x: 512 * r)]),
        "aix_vmstat_large_pages_free": ("gauge", [("", {}, lambda r, x: 128 * r)]),
        "aix:large_pages_configured:count": ("gauge", [("", {}, lambda r, x: 640 * r)]),
        "aix:regime_page_size:bytes": ("gauge", [("", {}, lambda r, x: 16777216 if r else 4096)]),
    }
    # the per-regime recorded series (alerts/alerts.libsonnet), labelled with the minute's regime
    recorded = {
        "aix:regime_tape_bytes:rate5m": [({}, lambda r, x: (378 if r else 139) * MIB * x)],
        "aix:regime_tape_transfers:rate": [({}, lambda r, x: (1100 if r else 420) * x)],
        "aix:regime_cpu:ratio": [({"mode": "user"}, lambda r, x: (0.24 if r else 0.03) * x),
                                 ({"mode": "sys"}, lambda r, x: (0.10 if r else 0.62) * x),
                                 ({"mode": "wait"}, lambda r, x: 0.02 * x)],
        "aix:regime_cpu_sys_per_user:ratio": [({}, lambda r, x: 0.10 / 0.24 if r else 0.62 / 0.03)],
        "aix:regime_cpu_seconds_per_tape_gib:ratio": [({}, lambda r, x: (1.4 / 378 if r else 2.6 / 139) * 1024)],
        "aix:regime_pin_lock_miss:ratio": [({}, lambda r, x: 0.004 if r else 0.25)],
        "aix:regime_memory_inuse:bytes": [({"psize": "4K"}, lambda r, x: (6 if r else 14) * (1 << 30) * x),
                                          ({"psize": "16M"}, lambda r, x: (8 if r else 0) * (1 << 30) * x)],
        "aix:regime_lgpg_regions:count": [({}, lambda r, x: 640 if r else 0)],
    }
    counters = {"aix_tape_read_bytes": 0.35, "aix_tape_written_bytes": 0.65}   # share of the MiB/s
    with open(path, "w") as out:
        for family, (typ, members) in gauges.items():
            out.write(f"# TYPE {family} {typ}\n")
            for i in range(lpars):
                inst = lpar(i)
                x = 0.8 + 0.4 * (i % 10) / 9   # each LPAR its own size
                for _, labels, fn in members:
                    lab = ",".join(f'{k}="{v}"' for k, v in {**labels, "instance": inst, "job": "aix"}.items())
                    out.writelines(f"{family}{{{lab}}} {fn(regime(inst, t), x):.6g} {t}\n" for t in times)
        for family, members in recorded.items():
            out.write(f"# TYPE {family} gauge\n")
            for i in range(lpars):
                inst = lpar(i)
                x = 0.8 + 0.4 * (i % 10) / 9
                for labels, fn in members:
                    for r, name in ((0, "4K"), (1, "16M")):
                        lab = ",".join(f'{k}="{v}"' for k, v in
                                       {**labels, "instance": inst, "job": "aix", "regime": name}.items())
                        out.writelines(f"{family}{{{lab}}} {fn(r, x):.6g} {t}\n" for t in times
                                       if regime(inst, t) == r)
        for family, share in counters.items():
            out.write(f"# TYPE {family} counter\n")
            for i in range(lpars):
                inst = lpar(i)
                x = 0.8 + 0.4 * (i % 10) / 9
                lab = f'device="rmt0",instance="{inst}",job="aix"'
                total, lines = 0.0, []
                for t in times:
                    total += (378 if regime(inst, t) else 139) * MIB * share * x * step
                    lines.append(f"{family}_total{{{lab}}} {total:.0f} {t}\n")
                out.writelines(lines)
        out.write("# EOF\n")
    return tuned


def dashboard_queries(lpar_name, days):
    """The before/after dashboard's table queries, variables substituted as Grafana does."""
    with open(os.path.join(ROOT, "dashboards", "aix-before-after.json")) as fh:
        d = json.load(fh)
    out = []

    def walk(panels):
        for p in panels:
            yield p
            yield from walk(p.get("panels", []))
    for p in walk(d["panels"]):
        if p.get("type") != "table":
            continue
        for t in p.get("targets", []):
            expr = t["expr"].replace("$instance", lpar_name).replace("$__range", f"{days * 86400}s")
            out.append((f"{p['title'][:40]} {t['refId']}", expr))
    return out


def query(url, expr, at):
    """An instant query's result through the exporter's query client (promapi)."""
    from aix_exporter.promapi import Prometheus
    return Prometheus(url, timeout=120).result(expr, float(at))


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, math.ceil(p / 100 * len(values)) - 1))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lpars", type=int, default=100)
    ap.add_argument("--days", type=int, default=7)
    ap.add_argument("--step", type=int, default=120)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    prometheus, promtool = shutil.which("prometheus"), shutil.which("promtool")
    if not prometheus or not promtool:
        sys.exit("needs prometheus and promtool (Debian package prometheus)")
    from aix_exporter.report.compare import Prometheus, compare, find_regimes
    end = float(int(time.time()) // 3600 * 3600)
    tmp = tempfile.mkdtemp(prefix="aix-bench-cmp-")
    proc = None
    try:
        t0 = time.perf_counter()
        om = os.path.join(tmp, "fleet.om")
        tuned = history(om, args.lpars, args.days, args.step, end)
        t_gen = time.perf_counter() - t0
        size = os.path.getsize(om)
        t0 = time.perf_counter()
        subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", "--max-block-duration=24h", om,
                        os.path.join(tmp, "tsdb")], check=True, capture_output=True, timeout=3600)
        t_blocks = time.perf_counter() - t0
        os.remove(om)
        port = free_port()
        cfg = os.path.join(tmp, "prometheus.yml")
        with open(cfg, "w") as fh:
            fh.write("global:\n  scrape_interval: 60s\n")
        log = open(os.path.join(tmp, "prometheus.log"), "w")
        proc = subprocess.Popen([prometheus, f"--config.file={cfg}", f"--storage.tsdb.path={tmp}/tsdb",
                                 f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=3650d"],
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_http(f"{url}/-/ready", timeout=150, proc=proc)
        except AssertionError:
            sys.exit("prometheus not ready")
        samples = query(url, 'count({job="aix"})', end)
        series = int(float(samples[0]["value"][1])) if samples else 0
        names = [lpar(i) for i in range(args.lpars)]
        # the table queries: warm once (first touch of the blocks), then RUNS rounds over LPARs in turn
        timings, rows = {}, {}
        for r in range(args.runs + 1):
            for name, expr in dashboard_queries(names[r % len(names)], args.days):
                t0 = time.perf_counter()
                res = query(url, expr, end)
                dt = time.perf_counter() - t0
                if r:
                    timings.setdefault(name, []).append(dt)
                    rows[name] = len(res)
                if name.endswith(" C") and "regime (before)" in name:   # after / before: the model's ratio
                    tape = [float(x["value"][1]) for x in res if x["metric"].get("figure", "").startswith("1 ")]
                    assert tape and abs(tape[0] - 378 / 139) < 0.05, (name, tape)
        prom = Prometheus(url)
        rep = []
        for r in range(min(args.runs, 10) + 1):
            inst = names[(r * 7) % len(names)]
            t0 = time.perf_counter()
            before, after, change = find_regimes(prom, inst, end - args.days * 86400, end)
            cmp = compare(prom, inst, before, after, change)
            dt = time.perf_counter() - t0
            if r:
                rep.append(dt)
            tape = cmp.row("tape").ratio
            assert abs(change - tuned[inst]) <= 600, (inst, change, tuned[inst])
            assert tape and abs(tape - 378 / 139) < 0.1, (inst, tape)
        print(f"history: {args.lpars} LPARs x {args.days} days, one sample every {args.step} s, {series} series; "
              f"OpenMetrics {size / 1e6:.0f} MB written in {t_gen:.0f} s, blocks in {t_blocks:.0f} s\n")
        print("| query (dashboard aix-before-after, instant at the range's end) | rows | p50 | p99 |")
        print("|---|---|---|---|")
        for name, ts in timings.items():
            print(f"| {name} | {rows[name]} | {statistics.median(ts):.3f} s | {pct(ts, 99):.3f} s |")
        print(f"| report --auto (regimes, 11 figures x 2 windows, 4 plotted series), {len(rep)} LPARs | - | "
              f"{statistics.median(rep):.3f} s | {pct(rep, 99):.3f} s |")
    finally:
        if proc and proc.poll() is None:
            os.killpg(proc.pid, 15)
            proc.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)

