"""A fleet at scale in both stores (issue 31): N simulated LPARs x D days of history, written
once as OpenMetrics, loaded into VictoriaMetrics (its import API) and into Prometheus
(promtool blocks), then measured: import time, disk, RSS, one evaluation of every recording
rule for the whole fleet, the census, and one LPAR's before/after comparison.

    .venv/bin/python -m bench.perf fleet [--lpars 1000] [--days 7] [--step 300] [--work DIR]

Each LPAR has the raw series the recording rules, the report's figures and its checks read
(tape counters, CPU split, physc, the pin_seg_range miss ratio, memory per page size, the 16 MB
pool, lgpg_regions, the monitored process, splat's pin_seg_range acquisitions and window) and
the five recorded series the census reads,
with a regime each: 30 % on 4 KB pages and contended, 60 % on 16 MB pages (half of them tuned
half-way through the history), 5 % falling back, 5 % mandatory at risk. Prints a Markdown
table for bench/perf/RESULTS.md. Servers on free loopback ports, stopped by PID; DIR is removed
unless --work is given.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time

from bench.perf.common import ROOT, free_port, get

L = 16 << 20
GIB = 1 << 30


def lpar_model(i, rnd):
    kind = "4K" if i % 20 < 6 else "16M" if i % 20 < 18 else ("fallback" if i % 20 == 18 else "atrisk")
    tuned_midway = kind == "16M" and i % 2 == 0
    return {"kind": kind, "tuned_midway": tuned_midway, "drives": 2, "jitter": rnd.random()}


def write_history(path, lpars, days, step, end):
    """The fleet's OpenMetrics history; returns the number of samples."""
    points = int(days * 86400 // step)
    ts = [end - (points - 1 - k) * step for k in range(points)]
    half = ts[points // 2]
    rnd = random.Random(42)
    total = 0
    families = {}

    def add(family, kind, name, labels, values):
        nonlocal total
        if family not in families:
            families[family] = (kind, open(f"{path}.{family}", "w"))
        lines = families[family][1]
        lab = ",".join(f'{k}="{v}"' for k, v in labels.items())
        lines.write("".join(f"{name}{{{lab}}} {v} {t}\n" for t, v in zip(ts, values)))
        total += len(values)

    for i in range(lpars):
        m = lpar_model(i, rnd)
        inst = {"instance": f"lpar{i:05d}:10990", "job": "aix"}

        large = m["kind"] in ("16M", "fallback", "atrisk")
        on16 = [large and not (m["tuned_midway"] and t < half) for t in ts]
        rate = [(378 if r else 139) * (1 << 20) * (0.9 + 0.2 * m["jitter"]) for r in on16]
        for dev in range(m["drives"]):
            acc, vals = 0.0, []
            for r in rate:
                acc += r * step / m["drives"]
                vals.append(acc)
            add("aix_tape_written_bytes", "counter", "aix_tape_written_bytes_total", {**inst, "device": f"rmt{dev}"}, vals)
            add("aix_tape_read_bytes", "counter", "aix_tape_read_bytes_total", {**inst, "device": f"rmt{dev}"},
                [0.0] * points)
        user = [0.30 if r else 0.03 for r in on16]
        sys_ = [0.30 if r else 0.15 for r in on16]
        for mode, vals in (("user", user), ("sys", sys_), ("wait", [0.05] * points)):
            add("aix_vmstat_cpu_ratio", "gauge", "aix_vmstat_cpu_ratio", {**inst, "mode": mode}, vals)
        add("aix_vmstat_physical_cpus_consumed", "gauge", "aix_vmstat_physical_cpus_consumed", inst,
            [0.7 + 1.3 * u for u in user])
        pin = [0.005 if r else 0.25 for r in on16]
        add("aix_splat_function_miss_ratio", "gauge", "aix_splat_function_miss_ratio", {**inst, "function": "pin_seg_range"},
            pin)
        acq = [15000.0 if r else 357000.0 for r in on16]     # pin_seg_range acquisitions in a 5 s trace
        add("aix_splat_function_acquisitions", "gauge", "aix_splat_function_acquisitions",
            {**inst, "function": "pin_seg_range"}, acq)
        add("aix_splat_window_seconds", "gauge", "aix_splat_window_seconds", inst, [5.0] * points)
        pool = 160 if m["kind"] != "4K" else 0
        used16 = {"16M": 118, "fallback": 160, "atrisk": 150}.get(m["kind"], 0)
        add("aix_memory_page_inuse_bytes", "gauge", "aix_memory_page_inuse_bytes", {**inst, "psize": "4K"},
            [17.7 * GIB if not r else 16.0 * GIB for r in on16])
        if pool:
            add("aix_memory_page_inuse_bytes", "gauge", "aix_memory_page_inuse_bytes", {**inst, "psize": "16M"},
                [used16 * L if r else 0.0 for r in on16])
            add("aix_memory_page_pool_size_bytes", "gauge", "aix_memory_page_pool_size_bytes", {**inst, "psize": "16M"},
                [pool * L] * points)
        add("aix_vmo_tunable", "gauge", "aix_vmo_tunable", {**inst, "tunable": "lgpg_regions", "setting": "current"},
            [float(pool) if r or m["kind"] != "16M" else 0.0 for r in on16])
        proc = {**inst, "pid": "4242", "command": "dsmserv"}
        add("aix_process_inuse_bytes", "gauge", "aix_process_inuse_bytes", {**proc, "psize": "16M"},
            [40.0 * L if r else 0.0 for r in on16])
        add("aix_process_total_inuse_bytes", "gauge", "aix_process_total_inuse_bytes", proc, [8.0 * GIB] * points)
        add("aix_process_monitored", "gauge", "aix_process_monitored", inst, [1.0] * points)
        mode = {"fallback": "Y", "atrisk": "M"}.get(m["kind"], "Y" if m["kind"] == "16M" else "N")
        add("aix_process_large_page_info", "gauge", "aix_process_large_page_info", {**proc, "mode": mode}, [1.0] * points)
        # the recorded series the census reads, as the rules would have written them
        code = {"4K": 0, "64K": 1, "16M": 2, "fallback": 3, "atrisk": 4}[m["kind"]]
        add("aix_census_regime_code", "gauge", "aix:census_regime:code", inst,
            [float(code) if (r or code == 0) else 0.0 for r in on16])
        add("aix_cpu_sys_per_user_ratio", "gauge", "aix:cpu_sys_per_user:ratio", inst, [s / u for s, u in zip(sys_, user)])
        add("aix_pin_lock_miss_ratio", "gauge", "aix:pin_lock_miss:ratio", inst, pin)
        add("aix_pin_lock_misses_rate", "gauge", "aix:pin_lock_misses:rate", inst,
            [a * p / 5.0 for a, p in zip(acq, pin)])
        add("aix_tape_bytes_all_rate5m", "gauge", "aix:tape_bytes_all:rate5m", inst, rate)
    with open(path, "w") as out:
        for family, (kind, fh) in families.items():
            fh.close()
            out.write(f"# TYPE {family} {kind}\n")
            with open(f"{path}.{family}") as part:
                shutil.copyfileobj(part, out, 1 << 22)
            os.remove(f"{path}.{family}")
        out.write("# EOF\n")
    return total


def fetch(url, timeout=600):
    """The body of a GET, or a RuntimeError naming an HTTP error."""
    return get(url, timeout=timeout).checked(url).body


def wait(url, proc, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: the server exited")
        try:
            fetch(url, 5)
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url}: not ready")


def start(argv, log):
    return subprocess.Popen(argv, stdout=open(log, "w"), stderr=subprocess.STDOUT, start_new_session=True)


def stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as fh:
        fields = dict(line.split(":", 1) for line in fh)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def du_mb(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total / (1 << 20)


def timed_query(url, expr, at, repeat=3):
    """Median seconds of an instant query (after one warm-up), and its number of series."""
    from aix_exporter.promapi import Prometheus
    prom = Prometheus(url, timeout=300)
    result = prom.result(expr, at)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        prom.result(expr, at)
        times.append(time.perf_counter() - t)
    return statistics.median(times), len(result)


def measure(url, end, days, lpars):
    """Seconds of: one evaluation of every recording rule, the census (24 h and the whole
    history), and one LPAR's before/after comparison (the report's queries and checks, for an
    LPAR tuned half-way: its tape ratio is printed as a check, 378/139)."""
    import yaml
    from aix_exporter.report import census, compare
    rules = [r for g in yaml.safe_load(open(os.path.join(ROOT, "alerts", "aix-rules.yml")))["groups"] for r in g["rules"]
             if "record" in r]
    rule_s = sum(timed_query(url, r["expr"], end, repeat=1)[0] for r in rules)
    out = {"rules": rule_s, "rules_n": len(rules)}
    for label, window in (("census_24h", "24h"), ("census_all", f"{int(days * 86400)}s")):
        secs, n = 0.0, 0
        for name in census.COLUMNS:
            s, n = timed_query(url, census.column(name, 'job=~"aix.*"', window), end)
            secs += s
        out[label] = secs
        out[label + "_n"] = n
    prom = compare.Prometheus(url, timeout=600)
    half = (end - days * 86400 + end) / 2
    before = compare.Window(end - days * 86400 + 3600, half - 3600)
    after = compare.Window(half + 3600, end - 60)
    t = time.perf_counter()
    cmp = compare.compare(prom, "lpar00006:10990", before, after, plots=False)   # tuned half-way
    out["compare"] = time.perf_counter() - t
    out["compare_tape"] = cmp.row("tape").ratio
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lpars", type=int, default=1000)
    ap.add_argument("--days", type=float, default=7)
    ap.add_argument("--step", type=int, default=300)
    ap.add_argument("--work", default=None, help="keep the history and the stores' data here")
    ap.add_argument("--stores", default="victoriametrics,prometheus")
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="aix-fleet-")
    os.makedirs(work, exist_ok=True)
    om = os.path.join(work, "fleet.om")
    end = float(int(time.time()) // 60 * 60)
    t = time.perf_counter()
    samples = write_history(om, args.lpars, args.days, args.step, end)
    gen = time.perf_counter() - t
    print(f"history: {args.lpars} LPARs x {args.days:g} days at {args.step} s: {samples:,} samples, "
          f"{os.path.getsize(om) / (1 << 30):.2f} GiB of OpenMetrics, written in {gen:.0f} s", flush=True)
    rows = []
    try:
        for store in args.stores.split(","):
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            data = os.path.join(work, f"{store}-data")
            if store == "victoriametrics":
                proc = start(["victoria-metrics", f"-storageDataPath={data}", f"-httpListenAddr=127.0.0.1:{port}",
                              "-retentionPeriod=100y", "-search.disableCache", "-search.latencyOffset=0s",
                              "-search.maxSamplesPerQuery=2000000000"], os.path.join(work, "vm.log"))
                try:
                    wait(f"{url}/health", proc)
                    t = time.perf_counter()
                    from aix_exporter.tools import store as stores
                    vm = stores.connect(url)
                    written = stores.write(vm, om)
                    load = time.perf_counter() - t
                    assert written == samples, (written, samples)
                    row = {"store": "VictoriaMetrics 1.79 (import API)", "load": load, **measure(url, end, args.days, args.lpars)}
                    row["rss"], row["hwm"] = rss_mb(proc.pid)
                    fetch(f"{url}/internal/force_flush")
                finally:
                    stop(proc)
                row["disk"] = du_mb(data)
            else:
                blocks = os.path.join(work, "prometheus-blocks")
                t = time.perf_counter()
                subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", "--max-block-duration=24h",
                                om, blocks], check=True, capture_output=True, timeout=7200)
                load = time.perf_counter() - t
                cfg = os.path.join(work, "prometheus.yml")
                with open(cfg, "w") as fh:
                    fh.write("global:\n  scrape_interval: 60s\n")
                proc = start(["prometheus", f"--config.file={cfg}", f"--storage.tsdb.path={blocks}",
                              f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=30d",
                              "--query.max-samples=2000000000"], os.path.join(work, "prometheus.log"))
                try:
                    wait(f"{url}/-/ready", proc, timeout=600)
                    row = {"store": "Prometheus 2.42 (promtool blocks)", "load": load,
                           **measure(url, end, args.days, args.lpars)}
                    row["rss"], row["hwm"] = rss_mb(proc.pid)
                finally:
                    stop(proc)
                row["disk"] = du_mb(blocks)
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    print()
    print(f"{args.lpars} LPARs x {args.days:g} days at {args.step} s ({samples:,} samples):")
    print("| store | load s | disk MiB | RSS MiB (peak) | all recording rules once, s | census 24 h s | "
          f"census {args.days:g} d s | one LPAR compared s (tape after/before) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['store']} | {r['load']:.0f} | {r['disk']:.0f} | {r['rss']:.0f} ({r['hwm']:.0f}) | "
              f"{r['rules']:.2f} ({r['rules_n']} rules) | {r['census_24h']:.2f} | {r['census_all']:.2f} | "
              f"{r['compare']:.2f} ({r['compare_tape']:.2f}) |")

