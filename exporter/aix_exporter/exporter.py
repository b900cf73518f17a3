"""Runs collectors, keeps their latest results, and renders the exposition.

* Collectors whose source keys are slow on this source (vmstat with an
  interval, trace+splat) run in background threads on their own schedule; the
  latest result is served with its age and dropped once older than its
  max age. The HTTP handler never waits on them.
* All other collectors run on scrape, under a deadline (the scrape timeout
  Prometheus announces, minus a margin): a collector still running then is
  reported failed for this scrape (its command keeps its own timeout) and is
  not started twice. They run concurrently, in a thread pool, when the
  source's reads wait on something outside this process (``concurrent_reads``:
  the commands of the system source, the channels of an SSH one); on a replay
  or the simulator, whose reads are this process's own CPU, one after another
  in the scraping thread, which costs no thread hand-offs.
* Scrapes within `min_interval` of the last collection share its
  pre-rendered exposition (one render per format, gzip included), so many
  scrapers cost one collection.
* A failing collector reports aix_exporter_collector_success 0 and none of its
  values; the failure is logged as one line naming the command.
"""
from __future__ import annotations

import copy
import logging
import math
import resource
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Optional

from prometheus_client.core import CollectorRegistry, CounterMetricFamily, GaugeMetricFamily

from . import __version__
from .commands import COMMANDS
from .parsers import ParseError
from .redaction import redact
from .sources import NotRunning, SourceError

log = logging.getLogger("aix_exporter")
PACE_SCRAPES = 5      # scrapes whose gaps give a paced target's interval
PACE_MARGIN = 3.0     # seconds a paced background run ends before the scrape it is for


@dataclass(frozen=True)
class Collection:
    """What one collection did: whether it ran (or reused one younger than min_interval), the
    collectors cut off by its deadline, and each collector's success as
    aix_exporter_collector_success reports it (succeeded, not cut off, not stale)."""
    ran: bool
    cut: frozenset
    success: dict
    at: Optional[float] = None   # monotonic time of the collection answered (None: cut off, not to be shared)


@dataclass
class Result:
    families: list = field(default_factory=list)
    success: bool = False
    duration: float = 0.0
    finished_at: float = 0.0
    last_success: Optional[float] = None
    error: str = ""                     # the last failure's log line (kept after a later success)


class Exporter:
    def __init__(self, source, collectors: list, max_age: Optional[dict] = None, clock=time.time,
                 min_interval: float = 0.0, own_metrics: bool = True, paced: bool = False):
        self.source = source
        # paced (a /probe target): the background collectors run once before each expected scrape,
        # not back to back; an LPAR probed once a minute then runs vmstat, iostat and the splat
        # report's reads once a minute each, their results a few seconds old at the probe
        self.paced = paced
        self._scrapes: list = []            # monotonic times of the last scrapes (at most PACE_SCRAPES)
        self.own_metrics = own_metrics      # False for a probe target: no build info, no process CPU
        self.min_interval = min_interval
        self._scrape_lock = threading.Lock()
        self._in_flight: dict = {}          # collector name -> Future
        self._collected_at: Optional[float] = None   # monotonic time of the last scrape collection
        self._rendered: dict = {}           # (format, gzip) -> bytes, for the last collection
        self.collectors = collectors
        self.clock = clock
        # a collector declares its max age; ``max_age`` overrides by collector name
        self.max_age = {c.name: c.max_age() for c in collectors}
        self.max_age.update(max_age or {})
        self.results = {c.name: Result() for c in collectors}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list = []
        slow: frozenset = getattr(source, "slow_keys", frozenset())
        self.background = [c for c in collectors if set(c.keys) & slow]
        self.on_scrape = [c for c in collectors if c not in self.background]
        self._pool = ThreadPoolExecutor(max_workers=max(1, len(self.on_scrape)), thread_name_prefix="collect")
        self._concurrent = bool(getattr(source, "concurrent_reads", True))

    # -- running collectors -------------------------------------------------
    def run_collector(self, c) -> Result:
        start = time.monotonic()
        prev = self.results[c.name]
        error = ""
        try:
            families = c.collect(self.source)
            ok = True
        except NotRunning:
            families, ok = c.no_data(), True   # no monitored process: no data, not a failure
        except ParseError as e:
            error = f"parse error: {e}"
            families, ok = [], False
        except SourceError as e:
            error = f"source error: {e}"
            families, ok = [], False
        except Exception as e:  # a bug must not take the exporter down
            error = f"failed: {type(e).__name__}: {e}"
            families, ok = [], False
        if error:   # the line a log, the landing page and a label may show: no password, no URL userinfo
            error = redact(error)
            # one line a failure, not one a run: a collector failing again the same way (a server
            # down, collected at every scrape) says so once, and again when it recovers
            if prev.success or error != prev.error:
                log.error("msg=collection failed collector=%s command=%r error=%s", c.name, _command(c), error)
        elif not prev.success and prev.error:
            log.info("msg=collection recovered collector=%s command=%r", c.name, _command(c))
        now = self.clock()
        res = Result(families=families, success=ok, duration=time.monotonic() - start,
                     finished_at=now, last_success=now if ok else prev.last_success,
                     error=error or prev.error)
        with self._lock:
            self.results[c.name] = res
        return res

    def collect_all(self):
        """Run every collector once, now (used by --once and tests)."""
        for c in self.collectors:
            self.run_collector(c)

    def collect(self, deadline: float) -> Collection:
        """Collect the on-scrape collectors under ``deadline`` seconds (or reuse a collection
        younger than min_interval), and say how each collector fared."""
        ran, cut = self._collect(deadline)
        with self._scrape_lock:
            at = None if cut else self._collected_at
        return Collection(ran, cut, self.current(cut), at)

    def current(self, cut_off: frozenset = frozenset(), results: Optional[dict] = None) -> dict:
        """{collector name: True when its last run succeeded, it was not cut off by this scrape's
        deadline and its data is not older than its max age} (aix_exporter_collector_success);
        ``results``: a snapshot already taken, so that the figures and their success agree."""
        now = self.clock()
        if results is None:
            with self._lock:
                results = dict(self.results)
        out = {}
        for c in self.collectors:
            r = results[c.name]
            fresh = r.success and c.name not in cut_off
            age_limit = self.max_age.get(c.name)
            if fresh and c in self.background and age_limit is not None and now - r.finished_at > age_limit:
                fresh = False  # never serve a stale value as current
            out[c.name] = fresh
        return out

    def scrape(self, deadline: float = 30.0) -> bool:
        """Run the on-scrape collectors concurrently, waiting at most `deadline` seconds.

        Returns True when a new collection ran, False when the previous one (younger
        than min_interval) is reused. Background collectors are read as they are.
        """
        return self._collect(deadline)[0]

    def _collect(self, deadline: float) -> tuple:
        """(whether a collection ran, names of the collectors still running at the deadline).

        The lock is held only to start collectors (each at most once at a time) and to
        publish the result, never while waiting: a scraper with a short deadline never
        waits behind one with a long deadline. A collection in which a collector was cut
        off by this scraper's deadline is not shared with other scrapers."""
        end = time.monotonic() + max(0.0, deadline)
        inline = []
        with self._scrape_lock:
            now = time.monotonic()
            self._scrapes = [*self._scrapes[-(PACE_SCRAPES - 1):], now]
            if self._collected_at is not None and now - self._collected_at < self.min_interval:
                return False, frozenset()
            futures = {}
            for c in self.on_scrape:
                f = self._in_flight.get(c.name)
                if f is None or f.done():
                    if self._concurrent:
                        f = self._pool.submit(self.run_collector, c)
                    else:
                        f = Future()
                        inline.append((c, f))
                    self._in_flight[c.name] = f
                futures[c.name] = f
        for c, f in inline:   # (another scraper meanwhile waits on f: each collector runs once at a time)
            try:
                f.set_result(self.run_collector(c))
            except BaseException as e:
                f.set_exception(e)
                raise
        _, pending = wait(list(futures.values()), timeout=max(0.0, end - time.monotonic()))
        cut = frozenset(name for name, f in futures.items() if f in pending)
        for name in sorted(cut):
            log.error("msg=still running after the %.1fs scrape deadline collector=%s command=%r", deadline,
                      name, _command(next(c for c in self.on_scrape if c.name == name)))
        if not cut:
            with self._scrape_lock:
                self._collected_at = time.monotonic()
                self._rendered = {}
        return True, cut

    def render(self, encoder, content_type: str, gzipped: bool, deadline: float = 30.0) -> bytes:
        """The exposition for one format, collected (or reused) and rendered once per collection.
        A collector cut off by this scrape's deadline is reported failed in this rendering only."""
        import gzip as _gzip
        _, cut = self._collect(deadline)
        if cut:
            body = encoder(self.registry(cut))
            return _gzip.compress(body, compresslevel=1) if gzipped else body
        key = (content_type, gzipped)
        with self._scrape_lock:
            body = self._rendered.get(key)
            if body is None:
                body = encoder(self.registry())
                if gzipped:
                    body = _gzip.compress(body, compresslevel=1)
                self._rendered[key] = body
            return body

    def start_background(self):
        """Start the background collectors, each on the period it declares."""
        for c in self.background:
            t = threading.Thread(target=self._loop, args=(c, c.period()),
                                 name=f"bg-{c.name}", daemon=True)
            t.start()
            self._threads.append(t)

    def _loop(self, c, period):
        served = None   # (paced) the scrape the last run was for
        while not self._stop.is_set():
            started = time.monotonic()
            self.run_collector(c)
            took = time.monotonic() - started
            wait = max(0.0, period - took)
            if self.paced:
                until, served = self._until_ready_for_next_scrape(took, served)
                wait = max(wait, until)
            self._stop.wait(wait)

    def _until_ready_for_next_scrape(self, took: float, served: Optional[float] = None,
                                     now: Optional[float] = None) -> tuple:
        """(seconds to wait, the scrape expected it is for) so that a run taking ``took`` ends
        PACE_MARGIN before the next scrape expected (the median gap of the last ones), and (given
        ``served``, the scrape the last run was for) is for a scrape at least half an interval
        after that one: a scrape that came early (jitter) does not bring a second run forward.
        (0, None) until two scrapes came."""
        with self._scrape_lock:
            times = list(self._scrapes)
        if len(times) < 2:
            return 0.0, None
        gaps = sorted(b - a for a, b in zip(times, times[1:]))
        interval = gaps[len(gaps) // 2]
        if interval <= 0:
            return 0.0, None
        now = time.monotonic() if now is None else now
        target = times[-1] + interval
        earliest = now + took + PACE_MARGIN   # a scrape nearer than that: be ready for one after it
        if served is not None:
            earliest = max(earliest, served + interval / 2)
        if target < earliest:
            target += math.ceil((earliest - target) / interval) * interval
        return target - took - PACE_MARGIN - now, target

    def stop(self, wait: bool = False):
        """Stop collecting: no new run starts. ``wait``: return once the runs in flight have ended
        (a hung command ends at its timeout) and said what they had to say."""
        self._stop.set()
        self._pool.shutdown(wait=wait, cancel_futures=True)
        if wait:
            for t in self._threads:
                t.join()

    def status(self) -> list:
        """Each collector's state for people (the landing page): name, schedule, whether its
        last run succeeded, seconds since its last success, its last error line."""
        now = self.clock()
        with self._lock:
            results = dict(self.results)
        out = []
        for c in self.collectors:
            r = results[c.name]
            out.append({"name": c.name, "schedule": "background" if c in self.background else "on scrape",
                        "ok": r.success, "ran": r.finished_at > 0,
                        "age": None if r.last_success is None else max(0.0, now - r.last_success),
                        "error": r.error})
        return out

    # -- exposition ---------------------------------------------------------
    def families(self, cut_off: frozenset = frozenset()) -> list:
        """Every fresh result, and the self metrics. ``cut_off``: collectors still running at
        this scrape's deadline, reported failed with none of their values."""
        out = []
        success = GaugeMetricFamily("aix_exporter_collector_success",
                                    "1 when the collector's last run succeeded and its data is current.",
                                    labels=["collector"])
        duration = GaugeMetricFamily("aix_exporter_collector_duration_seconds",
                                     "Duration of the collector's last run.", labels=["collector"])
        last = GaugeMetricFamily("aix_exporter_collector_last_success_timestamp_seconds",
                                 "Unix time of the collector's last successful run.", labels=["collector"])
        with self._lock:
            results = dict(self.results)
        current = self.current(cut_off, results)
        for c in self.collectors:
            r = results[c.name]
            fresh = current[c.name]
            if fresh:
                out.extend(r.families)
            success.add_metric([c.name], 1.0 if fresh else 0.0)
            duration.add_metric([c.name], r.duration)
            if r.last_success is not None:
                last.add_metric([c.name], r.last_success)
        build = GaugeMetricFamily("aix_exporter_build_info", "Build information of aix_exporter.", labels=["version"])
        build.add_metric([__version__], 1.0)
        source = GaugeMetricFamily("aix_exporter_source_info",
                                   "Where the command text comes from: system (the AIX commands), replay:DIR "
                                   "(captured output), simulate:SCENARIO (the simulator, not a real LPAR), "
                                   "ssh://USER@HOST:PORT (the commands run on that LPAR over SSH) or targets (an "
                                   "exporter serving /probe targets: its own metrics only).",
                                   labels=["source"])
        source.add_metric([getattr(self.source, "name", "unknown")], 1.0)
        if not self.own_metrics:   # a probe target: its commands' costs, not this process's
            return _merge(out) + [success, duration, last] + cost_families(self.source)[:3] + [source]
        return _merge(out) + [success, duration, last] + cost_families(self.source) + [build, source]

    def registry(self, cut_off: frozenset = frozenset(), extra: tuple = ()) -> CollectorRegistry:
        """A registry serving the current results (collection is scrape()'s job), and ``extra``
        families after them."""
        exporter = self

        class _Bridge:
            def collect(self):
                return exporter.families(cut_off) + list(extra)

        reg = CollectorRegistry(auto_describe=False)
        reg.register(_Bridge())
        return reg


def cost_families(source=None) -> list:
    """What the exporter costs the LPAR: each command's own CPU time and wall time (measured
    from the child with wait4, since start; over SSH, the wrapper's report of the remote
    command's CPU, when it runs), and the exporter's own CPU time and peak memory."""
    from .sources import system
    command_costs = getattr(source, "command_costs", system.command_costs)
    cpu = CounterMetricFamily("aix_exporter_command_cpu_seconds", "CPU time (user + system) of the command's own "
                              "process, over every run since the exporter started.", labels=["command"])
    wall = CounterMetricFamily("aix_exporter_command_duration_seconds", "Wall time of the command's runs since the "
                               "exporter started.", labels=["command"])
    runs = CounterMetricFamily("aix_exporter_command_runs", "Runs of the command since the exporter started.",
                               labels=["command"])
    for name, (c, w, n) in sorted(command_costs().items()):
        if c is not None:   # (a remote command without the wrapper: its CPU is not known here)
            cpu.add_metric([name], c)
        wall.add_metric([name], w)
        runs.add_metric([name], n)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    own = CounterMetricFamily("aix_exporter_cpu_seconds", "CPU time (user + system) of the exporter process "
                              "itself since it started (its commands not included).")
    own.add_metric([], usage.ru_utime + usage.ru_stime)
    peak = GaugeMetricFamily("aix_exporter_max_resident_memory_bytes", "Peak resident memory of the exporter "
                             "process since it started.")
    peak.add_metric([], usage.ru_maxrss * 1024.0)   # (kilobytes on Linux and AIX)
    return [cpu, wall, runs, own, peak]


def _merge(families: list) -> list:
    """Families with the same name from different collectors become one (a copy: a stored
    result is never mutated); a name only one collector serves is passed on as it is (copying
    every family cost 0.5 ms a scrape at the README default)."""
    groups: dict = {}
    for fam in families:
        groups.setdefault(fam.name, []).append(fam)
    out = []
    for fams in groups.values():
        if len(fams) == 1:
            out.append(fams[0])
            continue
        merged = copy.copy(fams[0])
        merged.samples = [s for f in fams for s in f.samples]
        out.append(merged)
    return out


def _command(c) -> str:
    return ", ".join(COMMANDS[k].title if k in COMMANDS else k for k in c.keys) or c.name
