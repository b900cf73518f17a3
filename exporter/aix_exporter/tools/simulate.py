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
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Optional

from .. import outputs
from ..commands import TABLE
from ..simulate.scenarios import SCENARIOS
from ..sources import NotRunning
from ..sources.simulate import SimulatedSource
from . import importing
from .openmetrics import Writer, add_families


def write_replay(scenario: str, out: str, at: float, seed: int) -> list:
    src = SimulatedSource(f"{scenario}?seed={seed}&at={at}")
    src.set_time(at)
    os.makedirs(out, exist_ok=True)
    written = []
    for cmd in TABLE:
        try:
            text = src.read(cmd.key)
        except NotRunning:
            continue
        with open(os.path.join(out, cmd.replay_file), "w", encoding="utf-8") as fh:
            fh.write(text)
        written.append(cmd.key)
    return written


def sample_times(duration: float, step: float, tail: float = 0.0, tail_step: float = 15.0) -> list:
    """Simulated instants of a history: every ``step`` from 0, and every ``tail_step`` over the
    last ``tail`` seconds, ending at ``duration``. A live scrape that continues the history
    then finds, in a rate() window reaching back into it, the spacing a scrape would have left:
    Prometheus extrapolates a window whose first sample is further from its start than 1.1
    average intervals by half an interval only, so 60 s history under 15 s scrapes reads up
    to a sixth low for five minutes."""
    fine_from = duration - tail if tail > 0 else duration + 1.0
    out, t = [], 0.0
    while t < fine_from - 1e-9 and t <= duration + 1e-9:
        out.append(t)
        t += step
    k = 0
    while tail > 0 and duration - k * tail_step >= max(0.0, fine_from) - 1e-9:   # back from the end
        out.append(duration - k * tail_step)
        k += 1
    return sorted(set(out))


def history(scenario: str, seed: int = 1, step: float = 60.0, end: Optional[float] = None,
            duration: Optional[float] = None,
            tail: float = 0.0, tail_step: float = 15.0, after: Optional[float] = None):
    """Yield (epoch, families) for each sample time of the scenario (sample_times), through
    the real collectors; with ``after``, only those later than that epoch (each figure is the
    scenario's at its time, so a later piece of a history equals the same piece of the whole)."""
    from ..collectors import registry
    from ..config import Settings
    from ..exporter import Exporter
    sc = SCENARIOS[scenario]()
    duration = duration or sc.duration
    end = end if end is not None else time.time()
    start_epoch = end - duration
    src = SimulatedSource(f"{scenario}?seed={seed}")
    src.epoch0 = start_epoch
    settings = Settings()
    collectors = [cls(settings) for name, cls in registry().items() if not getattr(cls, "requires_system", False)]
    clock = {"now": start_epoch}
    exp = Exporter(src, collectors, clock=lambda: clock["now"])
    for t in sample_times(duration, step, tail, tail_step):
        if after is not None and start_epoch + t <= after:
            continue
        src.set_time(t)
        clock["now"] = start_epoch + t
        exp.collect_all()
        yield start_epoch + t, exp.families()


DEFAULT_TARGET = {"job": "aix", "instance": "tsmsrv01:10990"}


def write_openmetrics(scenario: str, path: str, seed: int = 1, step: float = 60.0, end: Optional[float] = None,
                      duration: Optional[float] = None, target: Optional[dict] = None, tail: float = 0.0,
                      tail_step: float = 15.0, after: Optional[float] = None) -> int:
    """``target``: the labels a scrape would attach (job, instance), so rules and
    dashboards that select on them work on the backfilled history."""
    target = DEFAULT_TARGET if target is None else target
    with Writer() as w:
        for epoch, families in history(scenario, seed, step, end, duration, tail, tail_step, after):
            add_families(w, families, epoch, target)
        return w.close(path)


def backfilled(tsdb: str, runs, end: float, rules: list, log=lambda message: None) -> None:
    """Simulated history as TSDB blocks in ``tsdb``: for each (scenario, seconds or None for
    the scenario's own length, target labels or None) of ``runs``, ending at ``end``, written
    as OpenMetrics and loaded by promtool; then ``rules`` backfilled over the longest run
    (importing.backfill_rules). The recorded history a Prometheus serves to the dashboards'
    render (dashboards/render.py) and to the dashboard mutation harness."""
    promtool = shutil.which("promtool")
    if not promtool:
        raise RuntimeError("the history needs promtool (Debian package prometheus)")
    os.makedirs(tsdb, exist_ok=True)
    longest = 0.0
    for scenario, duration, target in runs:
        duration = duration or SCENARIOS[scenario]().duration
        longest = max(longest, duration)
        log(f"simulating {scenario} ({duration / 3600:g} h) ...")
        with tempfile.TemporaryDirectory(prefix="aix-exporter-history-") as work:
            om = os.path.join(work, "history.om")
            write_openmetrics(scenario, om, end=end, duration=duration, target=target)
            r = subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", om, tsdb], capture_output=True,
                               text=True, timeout=600, env=dict(os.environ, LC_ALL="C", LANG="C"))
        if r.returncode != 0:
            raise RuntimeError(f"promtool tsdb create-blocks-from failed: {(r.stderr or r.stdout).strip()[-500:]}")
    log("backfilling the recording rules ...")
    importing.backfill_rules(tsdb, rules, int(end - longest - 60), int(end))


def main(argv) -> int:
    p = argparse.ArgumentParser(prog="aix-exporter simulate", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
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
    args = p.parse_args(argv)
    if not args.out and not args.openmetrics:
        p.error("give --out DIR and/or --openmetrics FILE")
    if args.out:
        at = args.at if args.at is not None else SCENARIOS[args.scenario]().duration
        keys = write_replay(args.scenario, args.out, at, args.seed)
        print(f"wrote {len(keys)} files to {args.out} ({', '.join(keys)}) at t={at:g}s")
    if args.openmetrics:
        try:
            target = dict(kv.split("=", 1) for kv in args.target.split(",") if kv)
        except ValueError:
            p.error("--target takes k=v,k=v")
        try:
            tmp = outputs.temporary(args.openmetrics)
        except outputs.OutputError as e:
            print(f"aix-exporter simulate: --openmetrics {e}", file=sys.stderr)
            return 1
        try:
            n = write_openmetrics(args.scenario, tmp, args.seed, args.step, args.end, args.duration,
                                  target=target, tail=args.tail, tail_step=args.tail_step, after=args.after)
            outputs.publish(tmp, args.openmetrics)
        finally:
            outputs.discard(tmp)
        print(f"wrote {n} samples to {args.openmetrics}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
