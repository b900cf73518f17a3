"""Parse throughput of every parser on large inputs against a floor: reading the same text and
splitting it into lines and fields in plain Python. Goal: at most 3x the floor.

    python3 -m bench.perf parse_throughput
"""
import argparse
import os
import time

from aix_exporter.commands import TABLE
from aix_exporter.parsers import iostat_tape, ps_env, splat, svmon_p, tsm_actlog, vmstat
from aix_exporter.simulate import render
from aix_exporter.sources.simulate import SimulatedSource

from bench.perf.common import ROOT

FIX = os.path.join(ROOT, "tests", "fixtures")


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


def long_vmstat(src, rows=10_000):
    """`vmstat 5 10000`: the header once, then one row per interval."""
    head, *data = src.read("vmstat").rstrip("\n").rsplit("\n", 2)
    return head + "\n" + "\n".join((data * (rows // 2))[:rows]) + "\n"


def long_iostat(src, reports=1_000):
    """`iostat -p 5 1000`: the configuration once, then tty and tape sections per interval."""
    config, body = src.read("iostat_tape").split("\n\n", 1)
    return config + "\n\n" + "\n".join([body] * reports)


def inputs():
    """Large inputs first, then the reports whose size AIX fixes (a few dozen lines).
    svmon -P: the case-study dsmserv and 1,999 storage agents of eleven segments each (the
    shape of IBM's svmon -P sample); ps eww: the same processes."""
    src = SimulatedSource("case-study")
    src.set_time(20000)
    svmon_p_text = src.read("svmon_p") + render.storage_agents_svmon(1999)
    return {
        "svmon -P (2,000 processes)": (svmon_p.parse, svmon_p_text),
        "splat (50 MB)": (splat.parse, big_splat()),
        "activity log (100,000 lines)": (tsm_actlog.parse, big_actlog()),
        "ps eww (2,000 processes)": (ps_env.parse, src.read("ps_env") + render.storage_agents_ps(1999)),
        "vmstat (10,000 intervals)": (vmstat.parse, long_vmstat(src)),
        "iostat -p (1,000 intervals, 8 drives)": (iostat_tape.parse, long_iostat(src)),
        # every command of the table at the size the simulated LPAR prints it
        **{f"{c.title} (as printed)": (c.parse, src.read(c.key)) for c in TABLE},
    }


def floor(text):
    for line in text.splitlines():
        line.split()


def svmon_p_minimal(text):
    """What any line-by-line svmon -P reader pays beyond the floor: split every line, find the
    tables, convert and sum the values the record holds; no format check, no error reporting.
    Not a parser: a yardstick, the fastest such loop we could write (a dispatch on the section
    the line is in, the segment-row branch first, values summed without a call)."""
    procs, cur, sums = [], None, None
    in_segments = in_pagesize = False
    for line in text.splitlines():
        tokens = line.split()
        if not tokens:
            continue
        t0 = tokens[0]
        if in_segments:
            if t0 != "Pid" and t0[0] != "-":
                a, b, c, d = tokens[-4:]
                acc = sums.get(tokens[-5])
                if acc is None:
                    acc = sums[tokens[-5]] = [0, 0, 0, 0]
                acc[0] += int(a)
                acc[1] += int(b)
                acc[2] += int(c) if c != "-" else 0
                acc[3] += int(d) if d != "-" else 0
                continue
            in_segments = False
        if t0 == "Vsid":
            in_segments = True
        elif t0 == "PageSize":
            in_pagesize = True
        elif t0 == "Pid":
            in_pagesize = False
        elif t0[0] == "-":
            continue
        elif in_pagesize:
            cur[3][tokens[1] + tokens[2]] = list(map(int, tokens[3:7]))
        else:
            sums = {}
            cur = [t0, list(map(int, tokens[2:6])), sums, {}]
            procs.append(cur)
    return procs


def best(fn, text, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()   # --help; no options
    print("| input | size | parser | floor | ratio |")
    print("|---|---|---|---|---|")
    for name, (parse, text) in inputs().items():
        reps = 3 if len(text) > 1 << 20 else 50 if len(text) > 1 << 16 else 2000
        p, f = best(parse, text, reps), best(floor, text, reps)
        print(f"| {name} | {_size(len(text))} | {_time(p)} | {_time(f)} | {p / f:.1f}x |")
        if parse is svmon_p.parse:
            m = best(svmon_p_minimal, text, reps)
            print(f"| {name}: minimal loop, no checks (yardstick) | {_size(len(text))} | {_time(m)} "
                  f"| {_time(f)} | {m / f:.1f}x |")


def _size(n):
    return f"{n / 1e6:.2f} MB" if n >= 100_000 else f"{n / 1e3:.1f} KB"


def _time(seconds):
    return f"{seconds * 1e3:.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} us"

