"""nmon import CPU and memory: a month of daily recordings against a floor, in paired CPU time.

    python3 -m bench.perf nmon_import [--days 30] [--repeat 9]

The month: the real AIX 7.1 recording of ../shared/corpus/nmon (187 snapshots, 26,057 lines,
202 KB gzipped) written as DAYS daily files, each moved one day on (AAA,date and every ZZZZ
date), gzipped. The floor: gunzip every file and split every line into its fields in plain
Python, the least any nmon reader does. The import: `run_import` of all files to one
OpenMetrics file (the command's work without the promtool step). Floor and import run in
pairs, one after the other, REPEAT times; each is measured in the process's own CPU time (user
and system: the import's spool and output writes count), and the figure is the median of the
pairs' ratios (a shared 2-core machine changes speed from run to run; a pair sees one speed).
The whole command (`aix-exporter import nmon --tz UTC --out F FILE...`, interpreter start and
imports included) is paired the same way with the floor run as a command of its own, by the
children's CPU time. Peak RSS is measured in a child process for 1 file and for DAYS files:
streaming keeps it flat.
"""
import argparse
import datetime as dt
import gzip
import inspect
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from bench.perf.common import ROOT, env

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
    import gzip   # here: the whole command's floor runs this function's source alone (main)
    n = 0
    for p in paths:
        with gzip.open(p, "rt") as fh:
            for line in fh:
                n += len(line.rstrip("\n").split(","))
    return n


def child_rss(paths):
    code = ("import resource, sys; "
            "from aix_exporter.tools.importing import run_import; "
            "run_import('nmon', sys.argv[2:], sys.argv[1], tz='UTC'); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run([sys.executable, "-c", code, os.path.join(d, "o.om"), *paths], env=env(),
                             capture_output=True, text=True, check=True).stdout
    return int(out.strip()) / 1024


def _cpu(fn):
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def _child_cpu(argv, env=None):
    """CPU time (user + system) of one child command, from the children's rusage."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def paired(first, second, repeat):
    """[(first's CPU, second's CPU)] of REPEAT pairs, interleaved."""
    return [(first(), second()) for _ in range(repeat)]


def summary_row(label, pairs):
    ratios = sorted(b / a for a, b in pairs)
    floor = statistics.median(a for a, _ in pairs)
    work = statistics.median(b for _, b in pairs)
    return (f"| {label} | {floor:.2f} s | {work:.2f} s | {statistics.median(ratios):.2f}x "
            f"({ratios[0]:.2f}-{ratios[-1]:.2f}) |")


def main():
    from aix_exporter.tools.importing import run_import
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        paths = month(d, args.days)
        size = sum(os.path.getsize(p) for p in paths)
        out = os.path.join(d, "month.om")
        result = {}

        def imp():
            result.update(run_import("nmon", paths, out, tz="UTC"))

        in_process = paired(lambda: _cpu(lambda: floor(paths)), lambda: _cpu(imp), args.repeat)
        # the floor as a command: this file's floor() alone, so the child imports nothing else
        floor_cmd = [sys.executable, "-c", inspect.getsource(floor) + "\nimport sys\nfloor(sys.argv[1:])\n", *paths]
        command = [sys.executable, "-m", "aix_exporter.cli", "import", "nmon", "--tz", "UTC", "--out", out, *paths]
        whole = paired(lambda: _child_cpu(floor_cmd), lambda: _child_cpu(command, env()), max(3, args.repeat // 3))
        print(f"{args.days} daily files, {size / 1e6:.1f} MB gzipped: {result['snapshots']} snapshots, "
              f"{result['samples']} samples; {sys.executable} {platform.python_version()}\n")
        print("| paired CPU (median of pairs) | floor (gunzip + split) | import | ratio (range) |")
        print("|---|---|---|---|")
        print(summary_row(f"in process, {len(in_process)} pairs", in_process))
        print(summary_row(f"whole command, {len(whole)} pairs", whole))
        print(f"\npeak RSS: 1 file {child_rss(paths[:1]):.0f} MB, {args.days} files {child_rss(paths):.0f} MB")

