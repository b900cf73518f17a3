"""aix-exporter simulate: write a replay directory, or an OpenMetrics history, from the simulator.

    aix-exporter simulate --scenario case-study --out DIR [--at SECONDS] [--seed N]
    aix-exporter simulate --scenario case-study --openmetrics FILE [--step 60] [--end EPOCH] [--seed N]
                          [--tail SECONDS [--tail-step 15]] [--after EPOCH]
    aix-exporter simulate --scenario case-study --tsdb DIR [--rules alerts/aix-rules.yml]

The history runs the real parsers and collectors on the rendered text at each
step, so what Prometheus gets from it is what the exporter would have served.
--tsdb DIR writes it as Prometheus blocks (promtool, Debian package prometheus)
and --rules FILE backfills those recording rules over it, as `import nmon --tsdb
DIR --rules FILE` does: `report --auto --tsdb DIR` and `plan --tsdb DIR` then
read it. By hand: promtool tsdb create-blocks-from openmetrics FILE DATA_DIR
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

from .. import outputs
from ..errors import CommandError, UsageError
from ..simulate.scenarios import SCENARIOS
from ..tools.simulate import write_openmetrics, write_replay



def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="write a replay directory (one <key>.txt per command)")
    p.add_argument("--at", type=float, default=None, help="simulated seconds from the scenario start (default: its end)")
    p.add_argument("--openmetrics", help="write the scenario's history as OpenMetrics text")
    p.add_argument("--step", type=float, default=60.0, help="history step in seconds (default 60)")
    p.add_argument("--tail", type=float, default=0.0,
                   help="the last SECONDS of history at --tail-step instead (default 0): a live exporter "
                        "scraped at that interval then continues it without a dip in rate()")
    p.add_argument("--tail-step", type=float, default=15.0, help="step of the tail in seconds (default 15)")
    p.add_argument("--end", type=float, default=None, help="epoch of the history's last sample (default: now)")
    p.add_argument("--duration", type=float, default=None,
                   help="simulated seconds of history from the scenario's start (default: the whole scenario); "
                        "a live exporter started with at=DURATION at --end continues it")
    p.add_argument("--after", type=float, default=None, metavar="EPOCH",
                   help="only the samples later than this epoch: the gap between an earlier history's end "
                        "and a live exporter's first scrape")
    p.add_argument("--target", default="job=aix,instance=tsmsrv01:10990",
                   help="labels a scrape would add, as k=v,k=v (default job=aix,instance=tsmsrv01:10990)")
    p.add_argument("--tsdb", metavar="DIR", help="write the history as Prometheus blocks into DIR (runs promtool)")
    p.add_argument("--rules", action="append", default=[], metavar="FILE",
                   help="with --tsdb: backfill these recording rules (e.g. alerts/aix-rules.yml) over the history "
                        "into DIR, through a temporary Prometheus on a free loopback port; repeatable")


def _checked(args) -> None:
    if not args.out and not args.openmetrics and not args.tsdb:
        raise UsageError("give --out DIR, --openmetrics FILE and/or --tsdb DIR")
    if args.rules and not args.tsdb:
        raise UsageError("--rules goes with --tsdb DIR")
    for path in args.rules:
        if not os.path.isfile(path):
            raise UsageError(f"--rules {path}: no such file")
    if args.tsdb and not shutil.which("promtool"):
        raise CommandError("promtool not found (Debian package prometheus): --tsdb needs it; "
                           "--openmetrics FILE writes the history without it")


def run(args) -> int:
    _checked(args)
    if args.out:
        at = args.at if args.at is not None else SCENARIOS[args.scenario]().duration
        keys = write_replay(args.scenario, args.out, at, args.seed)
        print(f"wrote {len(keys)} files to {args.out} ({', '.join(keys)}) at t={at:g}s")
    if args.openmetrics or args.tsdb:
        _history(args)
    return 0


def _history(args) -> None:
    """The scenario's history as OpenMetrics (--openmetrics) and/or Prometheus blocks (--tsdb)
    with the recording rules backfilled (--rules)."""
    try:
        target = dict(kv.split("=", 1) for kv in args.target.split(",") if kv)
    except ValueError:
        raise UsageError("--target takes k=v,k=v") from None
    end = time.time() if args.end is None else args.end   # (one end for the history and its rules)
    work = tempfile.mkdtemp(prefix="aix-exporter-simulate-")
    tmp = outputs.temporary(args.openmetrics, "--openmetrics") if args.openmetrics else os.path.join(work, "history.om")
    try:
        n = write_openmetrics(args.scenario, tmp, args.seed, args.step, end, args.duration,
                              target=target, tail=args.tail, tail_step=args.tail_step, after=args.after)
        if args.openmetrics:
            outputs.publish(tmp, args.openmetrics)
            tmp = args.openmetrics
            print(f"wrote {n} samples to {args.openmetrics}")
        if args.tsdb:
            duration = args.duration if args.duration is not None else SCENARIOS[args.scenario]().duration
            first = max(end - duration, args.after) if args.after is not None else end - duration
            from ..tools import importing
            try:
                importing.to_tsdb(tmp, args.tsdb, args.rules, first if n else None, end, "simulated")
            except (RuntimeError, OSError) as e:
                raise CommandError(f"simulate --tsdb {args.tsdb}: {e}") from None
    finally:
        if args.openmetrics and tmp != args.openmetrics:
            outputs.discard(tmp)
        shutil.rmtree(work, ignore_errors=True)

