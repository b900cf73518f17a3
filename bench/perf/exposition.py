"""CPU time of one exposition, our encoders (exporter/aix_exporter/exposition.py) against
prometheus_client's, on the same frozen families (collection excluded), in both formats.

    .venv/bin/python -m bench.perf exposition [--processes 0 53 320]

Median of 30 renders each, process CPU time; the bytes are checked equal first.
"""
import argparse
from functools import partial

from aix_exporter import exposition
from prometheus_client.exposition import generate_latest
from prometheus_client.openmetrics import exposition as om

from bench.perf.common import bench_exporter, frozen_registry, median_ms


def frozen(spec):
    ex, _ = bench_exporter(spec)
    ex.collect_all()
    families = list(ex.registry().collect())
    return frozen_registry(families), sum(len(f.samples) for f in families)


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
            a, b = median_ms(partial(theirs, reg)), median_ms(partial(ours, reg))
            print(f"| {n} | {name} | {a:.2f} | {b:.2f} | {a / b:.1f}x |")

