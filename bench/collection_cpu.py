"""Collection CPU per cycle on each source: all collectors once, in process (time.process_time).

    python3 bench/collection_cpu.py [--cycles 200]

The system source runs here with its real code (argv lists, absolute paths, pipes, timeouts,
process groups, decoding, the watched splat directory and the activity-log tail) against stub
commands that print the replay fixtures: the figure is the exporter's own CPU per cycle, not
the AIX commands' (their CPU is the children's, outside time.process_time). On AIX, run
`aix-exporter --source system --once` under `timex` for the whole.
"""
import argparse
import os
import shutil
import stat
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "exporter"))

from aix_exporter.collectors import registry  # noqa: E402
from aix_exporter.config import Settings  # noqa: E402
from aix_exporter.exporter import Exporter  # noqa: E402
from aix_exporter.sources.replay import ReplaySource  # noqa: E402
from aix_exporter.sources import system  # noqa: E402
from aix_exporter.sources.simulate import SimulatedSource  # noqa: E402

REPLAY = os.path.join(ROOT, "tests", "fixtures", "replay", "tsm-lpar")
# AIX command -> the shell lines of its stub: pick the replay file from the arguments
STUBS = {
    "/usr/bin/vmstat": 'case "$1" in -v) f=vmstat_v;; -s) f=vmstat_s;; *) f=vmstat;; esac',
    "/usr/bin/svmon": 'case "$1" in -G) f=svmon_g;; *) f=svmon_p;; esac',
    "/usr/sbin/vmo": "f=vmo",
    "/usr/bin/iostat": "f=iostat_tape",
    "/usr/bin/ps": 'case "$1" in -e) echo " 2753002 dsmserv"; exit 0;; *) f=ps_env;; esac',
}


def stubbed_system_source(work):
    """A SystemSource whose run() starts stubs in `work` instead of the AIX commands."""
    paths = {}
    for aix_path, pick in STUBS.items():
        stub = os.path.join(work, os.path.basename(aix_path))
        with open(stub, "w") as fh:
            fh.write(f"#!/bin/sh\n{pick}\nexec /bin/cat '{REPLAY}/'\"$f\".txt\n")
        os.chmod(stub, stat.S_IRWXU)
        paths[aix_path] = stub
    real_run = system.run
    system.run = lambda argv, timeout: real_run([paths[argv[0]], *argv[1:]], timeout)
    reports = os.path.join(work, "splat")
    os.mkdir(reports)
    shutil.copy(os.path.join(REPLAY, "splat.txt"), reports)
    s = Settings()
    s.splat.report_dir = reports
    s.tsm.actlog_file = os.path.join(REPLAY, "tsm_actlog.txt")
    return system.SystemSource(s), s


def measure(src, cycles, settings, with_system_only=False):
    cols = [c(settings) for c in registry().values() if with_system_only or not getattr(c, "requires_system", False)]
    e = Exporter(src, cols)
    e.collect_all()
    n = sum(len(f.samples) for f in e.families())
    t0 = time.process_time()
    for _ in range(cycles):
        e.collect_all()
    return n, (time.process_time() - t0) / cycles


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cycles", type=int, default=200)
    args = ap.parse_args()
    s = Settings()
    s.process.max_processes = 1000
    sources = {
        "replay (tests/fixtures/replay/tsm-lpar)": ReplaySource(os.path.join(ROOT, "tests", "fixtures", "replay", "tsm-lpar")),
        "simulate:case-study": SimulatedSource("case-study?at=20000"),
        "simulate:case-study, 320 processes": SimulatedSource("case-study?at=20000&processes=320"),
    }
    print("| source | series | CPU ms per collection cycle |")
    print("|---|---|---|")
    for name, src in sources.items():
        n, cpu = measure(src, args.cycles, s)
        print(f"| {name} | {n} | {cpu * 1000:.2f} |")
    with tempfile.TemporaryDirectory() as work:
        src, settings = stubbed_system_source(work)
        n, cpu = measure(src, args.cycles, settings, with_system_only=True)
        print(f"| system (stub commands printing the replay fixtures; exporter side only) | {n} | {cpu * 1000:.2f} |")


if __name__ == "__main__":
    main()
