"""Parse throughput of every parser on large inputs against a floor: reading the same text and
splitting it into lines and fields in plain Python. Goal: at most 3x the floor.

    python3 bench/parse_throughput.py
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "exporter"))

from aix_exporter.parsers import (iostat_tape, ps_env, splat, svmon_g, svmon_p, tsm_actlog, vmo, vmstat,  # noqa: E402
                                  vmstat_s, vmstat_v)
from aix_exporter.simulate import render  # noqa: E402
from aix_exporter.sources.simulate import SimulatedSource  # noqa: E402

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "fixtures")


def big_splat(target=50 << 20):
    """A long `splat -da` report: the TSM fixture's execution summary and lock summaries, then
    its lock detail section (function and thread tables eight times as long) repeated."""
    base = open(os.path.join(FIX, "splat", "tsm-4k-pin-seg-range.txt")).read()
    head, detail = base.split("[AIX SIMPLE Lock]", 1)
    detail = "[AIX SIMPLE Lock]" + detail
    for prefix in (".", "     1"):  # function rows, thread rows
        rows = [l for l in detail.splitlines() if l.startswith(prefix)]
        detail = detail.replace("\n".join(rows), "\n".join(rows * 8))
    if not detail.endswith("\n\n"):
        detail += "\n"
    parts, size = [head], len(head)
    while size < target:
        parts.append(detail)
        size += len(detail)
    return "".join(parts)


def big_actlog(lines=100_000):
    base = open(os.path.join(FIX, "tsm_actlog", "server-4k-then-ANR0358E.txt")).read().splitlines(keepends=True)
    out = (base * (lines // len(base) + 1))[:lines]
    while out and not out[0][:2].isdigit():
        out.pop(0)
    return "".join(out)


def inputs():
    src = SimulatedSource("case-study")
    src.set_time(20000)
    svmon_p_text = src.read("svmon_P") + render.storage_agents_svmon(1999)
    return {
        "svmon -P (2,000 processes)": (svmon_p.parse, svmon_p_text),
        "splat (50 MB)": (splat.parse, big_splat()),
        "activity log (100,000 lines)": (tsm_actlog.parse, big_actlog()),
        "ps eww (2,000 processes)": (ps_env.parse, src.read("ps_env") + render.storage_agents_ps(1999)),
        "vmstat": (vmstat.parse, src.read("vmstat")),
        "svmon -G": (svmon_g.parse, src.read("svmon_G")),
        "vmo -L": (vmo.parse, src.read("vmo")),
        "vmstat -v": (vmstat_v.parse, src.read("vmstat_v")),
        "vmstat -s": (vmstat_s.parse, src.read("vmstat_s")),
        "iostat -p": (iostat_tape.parse, src.read("iostat_tape")),
    }


def floor(text):
    for line in text.splitlines():
        line.split()


def best(fn, text, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    print("| input | size | parser ms | floor ms | ratio |")
    print("|---|---|---|---|---|")
    for name, (parse, text) in inputs().items():
        reps = 3 if len(text) > 1 << 20 else 50
        p, f = best(parse, text, reps), best(floor, text, reps)
        print(f"| {name} | {len(text) / 1e6:.2f} MB | {p * 1000:.1f} | {f * 1000:.1f} | {p / f:.1f}x |")


if __name__ == "__main__":
    main()
