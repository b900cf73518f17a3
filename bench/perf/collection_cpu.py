"""Collection CPU per cycle on each source: all collectors once, in process (time.process_time).

    python3 -m bench.perf collection_cpu [--cycles 200]

The system source runs here with its real code (argv lists, absolute paths, pipes, timeouts,
process groups, decoding, the watched splat directory and the activity-log tail) against stub
commands that print the replay fixtures: the figure is the exporter's own CPU per cycle, not
the AIX commands' (their CPU is the children's, outside time.process_time). On AIX, run
`aix-exporter --source system --once` under `timex` for the whole.
"""
import argparse
import os
import shutil
import tempfile
import time

from aix_exporter.collectors import registry
from aix_exporter.config import Settings
from aix_exporter.exporter import Exporter
from aix_exporter.sources import system
from aix_exporter.sources.replay import ReplaySource
from aix_exporter.sources.simulate import SimulatedSource
from aix_exporter.tools import standin

from bench.perf.common import ROOT

REPLAY = os.path.join(ROOT, "tests", "fixtures", "replay", "tsm-lpar")


def stubbed_system_source(work):
    """A SystemSource whose commands are stand-ins under `work` (--path.commands) that print
    the replay fixtures (aix_exporter.tools.standin)."""
    s = Settings()
    # the server view is configured as on an LPAR that has it (issue 47: without an admin id
    # tsm_server failed every cycle, so the row measured fewer series than the LPAR serves)
    s.tsm.admin_id = "monitor"
    s.tsm.password_file = os.path.join(work, "tsm.pw")
    with open(s.tsm.password_file, "w") as fh:
        fh.write("secret\n")
    os.chmod(s.tsm.password_file, 0o600)
    standin.write(REPLAY, os.path.join(work, "root"), s)
    s.command_root = os.path.join(work, "root")
    reports = os.path.join(work, "splat")
    os.mkdir(reports)
    # a report under the name the watched directory is read by (splat.report_glob, *.out): as
    # splat.txt it was never found and the splat collector failed every cycle
    shutil.copy(os.path.join(REPLAY, "splat.txt"), os.path.join(reports, "splat.out"))
    s.splat.report_dir = reports
    s.tsm.actlog_file = os.path.join(REPLAY, "tsm_actlog.txt")
    return system.SystemSource(s), s


def measure(src, cycles, settings, with_system_only=False):
    cols = [c(settings) for c in registry().values() if with_system_only or not c.requires_system]
    e = Exporter(src, cols)
    e.collect_all()
    failed = sorted(name for name, r in e.results.items() if not r.success)
    if failed:   # a row with a failing collector measures less than it says
        raise SystemExit(f"collectors failed on {src}: {failed}: " + "; ".join(e.results[f].error or "" for f in failed))
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
    # the cost per cycle must not grow with simulated time (the model keeps counter snapshots)
    for hours in (1, 24, 72):
        sources[f"simulate:case-study at {hours} h (at={hours * 3600})"] = SimulatedSource(f"case-study?at={hours * 3600}")
    print("| source | series | CPU ms per collection cycle |")
    print("|---|---|---|")
    for name, src in sources.items():
        n, cpu = measure(src, args.cycles, s)
        print(f"| {name} | {n} | {cpu * 1000:.2f} |")
    with tempfile.TemporaryDirectory() as work:
        src, settings = stubbed_system_source(work)
        n, cpu = measure(src, args.cycles, settings, with_system_only=True)
        print(f"| system (stub commands printing the replay fixtures; exporter side only) | {n} | {cpu * 1000:.2f} |")

