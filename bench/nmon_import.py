"""nmon import throughput and memory: a month of daily recordings against a floor.

    python3 bench/nmon_import.py [--days 30] [--repeat 3]

The month: the real AIX 7.1 recording of ../shared/corpus/nmon (187 snapshots, 26,057 lines,
202 KB gzipped) written as DAYS daily files, each moved one day on (AAA,date and every ZZZZ
date), gzipped. The floor: gunzip every file and split every line into its fields in plain
Python, the least any nmon reader does. The import: `run_import` of all files to one
OpenMetrics file (the command's work without the promtool step). Each figure is the best of
REPEAT runs, floor and import taking turns. Peak RSS is measured in a
child process for 1 file and for DAYS files: streaming keeps it flat.
"""
import argparse
import datetime as dt
import gzip
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "exporter"))
REAL = os.path.join(ROOT, "..", "shared", "corpus", "nmon", "adejoux-nmon2influxdb-aixlpar-aix713.nmon.gz")
_DATE = re.compile(r"(\d{2})-([A-Z]{3})-(\d{4})")


def month(directory, days):
    text = gzip.open(REAL, "rt").read()
    paths = []
    for d in range(days):
        def shift(m, d=d):
            day = dt.datetime.strptime(m.group(0), "%d-%b-%Y") + dt.timedelta(days=d)
            return day.strftime("%d-%b-%Y").upper()
        path = os.path.join(directory, f"aixlpar_{d:02d}.nmon.gz")
        with gzip.open(path, "wt") as fh:
            fh.write(_DATE.sub(shift, text))
        paths.append(path)
    return paths


def floor(paths):
    n = 0
    for p in paths:
        with gzip.open(p, "rt") as fh:
            for line in fh:
                n += len(line.rstrip("\n").split(","))
    return n


def child_rss(paths):
    code = ("import resource, sys; sys.path.insert(0, sys.argv[1]); "
            "from aix_exporter.tools.importing import run_import; "
            "run_import('nmon', sys.argv[3:], sys.argv[2], tz='UTC'); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "exporter"), os.path.join(d, "o.om"),
                              *paths], capture_output=True, text=True, check=True).stdout
    return int(out.strip()) / 1024


def main():
    from aix_exporter.tools.importing import run_import
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        paths = month(d, args.days)
        size = sum(os.path.getsize(p) for p in paths)
        f = imp = summary = None
        for _ in range(args.repeat):   # interleaved, so both see the same load on a shared machine
            t = _timed(lambda: floor(paths))
            f = t if f is None else min(f, t)
            t0 = time.perf_counter()
            summary = run_import("nmon", paths, os.path.join(d, "month.om"), tz="UTC")
            t = time.perf_counter() - t0
            imp = t if imp is None else min(imp, t)
        print("| input | floor (gunzip + split) | import | ratio | snapshots | samples |")
        print("|---|---|---|---|---|---|")
        print(f"| {args.days} daily files, {size / 1e6:.1f} MB gzipped | {f:.2f} s | {imp:.2f} s | {imp / f:.1f}x "
              f"| {summary['snapshots']} | {summary['samples']} |")
        print(f"\npeak RSS: 1 file {child_rss(paths[:1]):.0f} MB, {args.days} files {child_rss(paths):.0f} MB")


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
