"""simulate:SCENARIO[?speed=N&seed=N&at=SECONDS&start=UNIXTIME&processes=N]: the model renders each command's text.

`processes=N` adds N-1 storage-agent processes (dsmsta) to svmon -P and ps eww,
to scale the series count for benchmarks (raise process.max_processes too).

Simulated time: t = at + (wall clock - start) x speed, so `speed=60` plays a
simulated hour per real minute. `start` is the wall time at which the clock reads `at`
(default: when the source is made); a live exporter that continues a backfilled history
names the history's end, so its counters join the history's whatever its own start-up took. Timestamps the commands print (activity log,
splat Trace Date) are wall-clock based: the simulated instant `at` is "now".
For backfill and tests, `set_time(t)` pins the clock.
"""
from __future__ import annotations

import time
from typing import Optional
from urllib.parse import parse_qs

from ..config import Settings
from ..simulate import render
from ..simulate.model import Model
from ..simulate.scenarios import get
from . import CommandFailed, NotRunning, SourceError


def parse_spec(arg: str) -> dict:
    name, _, query = arg.partition("?")
    opts = {k: v[-1] for k, v in parse_qs(query, strict_parsing=False).items()}
    unknown = set(opts) - {"speed", "seed", "at", "start", "processes"}
    if unknown:
        raise ValueError(f"simulate: unknown option(s) {', '.join(sorted(unknown))} (speed, seed, at, start, processes)")
    try:
        return {"scenario": name, "speed": float(opts.get("speed", 1)), "seed": int(opts.get("seed", 1)),
                "at": float(opts.get("at", 0)), "processes": max(1, int(opts.get("processes", 1))),
                "start": float(opts["start"]) if "start" in opts else None}
    except ValueError:
        raise ValueError(f"simulate: bad option value in {arg!r}") from None


TIMED_KEYS = frozenset({"splat", "tsm_db"})


class SimulatedSource:
    slow_keys: frozenset = frozenset()
    concurrent_reads = False   # its reads are this process's own work (sources/__init__.py)
    runs_commands = local_system = False

    def __init__(self, arg: str, settings=None, clock=time.time):
        spec = parse_spec(arg)
        self.scenario = get(spec["scenario"])
        self.model = Model(self.scenario, seed=spec["seed"])
        self.speed, self.at, self.processes = spec["speed"], spec["at"], spec["processes"]
        self.clock = clock
        self.wall_start = clock() if spec["start"] is None else spec["start"]
        self.epoch0 = self.wall_start - self.at     # wall time of simulated t = 0
        self.fixed_t: Optional[float] = None
        self.name = f"simulate:{arg}"
        self.interval = (settings or Settings()).tape.interval_seconds   # iostat -p INTERVAL 2

    def set_time(self, t: float):
        self.fixed_t = t

    def now(self) -> float:
        if self.fixed_t is not None:
            return self.fixed_t
        return self.at + (self.clock() - self.wall_start) * self.speed

    def epoch(self, t: float) -> float:
        return self.epoch0 + t

    def read(self, key: str) -> str:
        t = self.now()
        if key not in render.RENDERERS:
            raise SourceError(f"the simulator has no command {key!r}")
        ctx = render.Context(self.model, self.model.state(t), t, self.epoch0, self.processes, self.interval)
        try:
            return render.render(key, ctx)
        except render.ProcessDown as e:
            raise NotRunning(str(e)) from None
        except render.ServerDown as e:
            raise CommandFailed(f"dsmadmc: the server does not answer: {e}") from None

    def read_log(self, key: str, position):
        """The log's lines since ``position``: the first read (no position) gives the whole
        log up to now; later ones render only the messages after the simulated time the
        position names, so a read costs the same at any simulated time. The offset counts
        the characters read so far, as a file's would."""
        if key != "tsm_actlog":
            raise SourceError(f"{key} is not a log")
        t = self.now()
        position = position or {}
        since = position.get("t")
        if not isinstance(since, (int, float)) or since > t:   # none yet, or the clock went back
            since, offset = -1.0, 0
        else:
            offset = int(position.get("offset", 0))
        text = render.actlog(self.model.log(t, since=since), self.epoch0)
        return text, {"inode": 0, "offset": offset + len(text), "t": t}

    def report_time(self, key: str):
        """The simulator's now (a history's sample time) for the keys whose collectors ask when
        their text was produced: the splat report's time, the checklist's clock."""
        return self.epoch(self.now()) if key in TIMED_KEYS else None
