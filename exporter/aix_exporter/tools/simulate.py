"""The simulator's histories and replay directories (the library of `aix-exporter simulate`,
cli/simulate.py): they run the real parsers and collectors on the rendered text at each step,
so what Prometheus gets from them is what the exporter would have served."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from typing import Optional

from ..commands import TABLE
from ..simulate.scenarios import SCENARIOS
from ..sources import CommandFailed, NotRunning
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
        except (NotRunning, CommandFailed):   # (no file: a replay of it fails, as the command did)
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
