"""aix-exporter simulate: write a replay directory, or an OpenMetrics history, from the simulator.

    aix-exporter simulate --scenario case-study --out DIR [--at SECONDS] [--seed N]
    aix-exporter simulate --scenario case-study --openmetrics FILE [--step 60] [--end EPOCH] [--seed N]
                          [--tail SECONDS [--tail-step 15]] [--after EPOCH]

The history runs the real parsers and collectors on the rendered text at each
step, so what Prometheus gets from it is what the exporter would have served.
Load it with: promtool tsdb create-blocks-from openmetrics FILE DATA_DIR
"""
from __future__ import annotations

import argparse

from .. import outputs
from ..errors import UsageError
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


def run(args) -> int:
    if not args.out and not args.openmetrics:
        raise UsageError("give --out DIR and/or --openmetrics FILE")
    if args.out:
        at = args.at if args.at is not None else SCENARIOS[args.scenario]().duration
        keys = write_replay(args.scenario, args.out, at, args.seed)
        print(f"wrote {len(keys)} files to {args.out} ({', '.join(keys)}) at t={at:g}s")
    if args.openmetrics:
        try:
            target = dict(kv.split("=", 1) for kv in args.target.split(",") if kv)
        except ValueError:
            raise UsageError("--target takes k=v,k=v") from None
        tmp = outputs.temporary(args.openmetrics, "--openmetrics")
        try:
            n = write_openmetrics(args.scenario, tmp, args.seed, args.step, args.end, args.duration,
                                  target=target, tail=args.tail, tail_step=args.tail_step, after=args.after)
            outputs.publish(tmp, args.openmetrics)
        finally:
            outputs.discard(tmp)
        print(f"wrote {n} samples to {args.openmetrics}")
    return 0

