"""Collection CPU per cycle on each source: all collectors once, in process (time.process_time).

    python3 bench/collection_cpu.py [--cycles 200]

The system source runs real AIX commands and cannot be measured off AIX; on AIX run
`aix-exporter --source system --once` under `timex` for the same figure.
"""
import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "exporter"))

from aix_exporter.collectors import registry  # noqa: E402
from aix_exporter.config import Settings  # noqa: E402
from aix_exporter.exporter import Exporter  # noqa: E402
from aix_exporter.sources.replay import ReplaySource  # noqa: E402
from aix_exporter.sources.simulate import SimulatedSource  # noqa: E402


def measure(src, cycles, settings):
    cols = [c(settings) for c in registry().values() if not getattr(c, "requires_system", False)]
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


if __name__ == "__main__":
    main()
