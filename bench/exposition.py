"""CPU time of one exposition, our encoders (exporter/aix_exporter/exposition.py) against
prometheus_client's, on the same frozen families (collection excluded), in both formats.

    .venv/bin/python bench/exposition.py [--processes 0 53 320]

Median of 30 renders each, process CPU time; the bytes are checked equal first.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from prometheus_client import CollectorRegistry  # noqa: E402
from prometheus_client.exposition import generate_latest  # noqa: E402
from prometheus_client.openmetrics import exposition as om  # noqa: E402

from aix_exporter import exposition  # noqa: E402
from aix_exporter.collectors import registry as collectors  # noqa: E402
from aix_exporter.config import load  # noqa: E402
from aix_exporter.exporter import Exporter  # noqa: E402
from aix_exporter.sources import open_source  # noqa: E402


def frozen(spec):
    settings = load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench.yml"))   # every process
    ex = Exporter(open_source(spec, settings),
                  [cls(settings) for cls in collectors().values() if not cls.requires_system])
    ex.collect_all()
    families = list(ex.registry().collect())

    class Fixed:
        def collect(self):
            return families
    reg = CollectorRegistry(auto_describe=False)
    reg.register(Fixed())
    return reg, sum(len(f.samples) for f in families)


def cpu_ms(fn, reg, n=30):
    fn(reg)
    times = []
    for _ in range(n):
        t = time.process_time()
        fn(reg)
        times.append(time.process_time() - t)
    return statistics.median(times) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--processes", type=int, nargs="*", default=[0, 53, 320])
    args = ap.parse_args()
    print("| series | format | prometheus_client ms | ours ms | ratio |")
    print("|---:|---|---:|---:|---:|")
    for p in args.processes:
        reg, n = frozen("simulate:case-study?at=20000" + (f"&processes={p}" if p else ""))
        for name, theirs, ours in (("text 0.0.4", generate_latest, exposition.text),
                                   ("OpenMetrics 1.0", om.generate_latest, exposition.openmetrics)):
            assert theirs(reg) == ours(reg)
            a, b = cpu_ms(theirs, reg), cpu_ms(ours, reg)
            print(f"| {n} | {name} | {a:.2f} | {b:.2f} | {a / b:.1f}x |")


if __name__ == "__main__":
    main()
