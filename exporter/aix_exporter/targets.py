"""Many LPARs from one exporter: ``targets:`` in the configuration, collected by
``/probe?target=NAME`` (snmp_exporter's and blackbox_exporter's pattern).

Each target is an :class:`~aix_exporter.exporter.Exporter` of its own over its own source
(``ssh://USER@HOST[:PORT]`` for an LPAR with nothing installed): its own collectors, results,
background schedule (from its first probe), log position and command costs. A probe collects its target under the
scrape's deadline and answers with that target's families, its collectors' health and

* ``aix_exporter_probe_success``: 1 when every collector of the target succeeded in this probe;
* ``aix_exporter_probe_duration_seconds``: how long the probe took, waiting for its turn included.

Each target is its own lane (blackbox_exporter's prober per module, here per target): at most
``probe.max_concurrent`` *targets* collect at once, and a probe of a target that is already
collecting shares that target's turn and its collection (its collectors are never started
twice; a probe within ``--collect.min-interval`` of the target's last collection is answered
from it), so eight probes of one slow target hold one turn, not eight, and a flood of probes
costs each LPAR at most one collection per interval. A probe that cannot get a turn before its
deadline answers with success 0 rather than wait. One slow or unreachable target fails only its
own probe: its commands have their deadlines, its connection its backoff, and no lock is shared
with the other targets. ``/metrics`` keeps the exporter's own metrics.
"""
from __future__ import annotations

import gzip
import logging
import threading
import time

from prometheus_client.core import GaugeMetricFamily

log = logging.getLogger("aix_exporter")


class UnknownTarget(KeyError):
    pass


def open_sources(settings, check_files: bool = False) -> dict:
    """{target name: its source} for ``targets:`` of the configuration, or ValueError listing
    every target that cannot be served, one a line. The one validation of the targets: the
    start uses it to open them, --check-config to say the same (with ``check_files``, also
    what would fail at the first probe: an ssh key missing, unreadable by this user, readable
    by others or with a passphrase; a known_hosts file missing or unreadable)."""
    from .config import target_settings
    from .sources import open_source
    sources, problems = {}, []
    for t in settings.targets:
        ts = target_settings(settings, t)
        try:
            source = open_source(t.source, ts, key_file=t.key_file, known_hosts=t.known_hosts)
        except ValueError as e:
            problems.append(f"target {t.name}: {e}")
            continue
        target = getattr(source, "target", None)
        if check_files and target is not None:
            problems += [f"target {t.name}: {why}" for why in ssh_file_problems(target.key_file, target.known_hosts)]
        sources[t.name] = source
    if problems:
        for source in sources.values():
            close = getattr(source, "close", None)
            if close is not None:
                close()
        raise ValueError("\n".join(problems))
    return sources


def build(source, settings, choose, min_interval: float, entry=None):
    """The one way an exporter of one target is made, for ``--source`` (``entry`` None) and for
    each ``targets:`` entry: its collectors chosen by ``choose(settings, source)`` (the command
    line's --collector flags and what the source and the settings allow), narrowed to the
    entry's ``collectors:`` list; an entry's exporter is paced by its probes and carries no
    process-wide metrics (those are /metrics')."""
    from .exporter import Exporter
    chosen = choose(settings, source)
    if entry is not None and entry.collectors is not None:
        chosen = [c for c in chosen if c.name in entry.collectors]
    return Exporter(source, chosen, min_interval=min_interval, own_metrics=entry is None, paced=entry is not None)


def fleet(settings, sources: dict, choose, min_interval: float):
    """The Fleet of the configuration's targets over their opened sources (open_sources), or
    None without targets."""
    if not settings.targets:
        return None
    from .config import target_settings
    exporters = {t.name: build(sources[t.name], target_settings(settings, t), choose, min_interval, entry=t)
                 for t in settings.targets}
    return Fleet(exporters, settings.probe.max_concurrent)


def ssh_file_problems(key_file, known_hosts) -> list:
    """What makes every connection with this key and known_hosts fail at once, as this user."""
    import importlib.util
    import os
    from .sources.ssh import key_problem
    out = []
    why = key_problem(key_file)
    if why is None and not os.access(key_file, os.R_OK):
        why = f"ssh key {key_file}: not readable by this user (uid {os.geteuid()})"
    if why is None and importlib.util.find_spec("asyncssh") is not None:   # (without the ssh extra: at the start)
        import asyncssh
        try:
            asyncssh.read_private_key(key_file)
        except (ValueError, OSError) as e:
            why = f"ssh key {key_file}: not a private key without a passphrase ({' '.join(str(e).split())[:200]})"
    if why:
        out.append(why)
    if not known_hosts:
        out.append("ssh known_hosts is not configured: host keys are never accepted on first sight")
    elif not os.path.isfile(known_hosts):
        out.append(f"ssh known_hosts {known_hosts}: no such file (host keys are never accepted on first sight)")
    elif not os.access(known_hosts, os.R_OK):
        out.append(f"ssh known_hosts {known_hosts}: not readable by this user (uid {os.geteuid()})")
    return out


class OwnMetricsOnly:
    """/metrics' source when targets: are configured and no --source is given: no commands, the
    exporter's own metrics only."""
    name = "targets"
    slow_keys: frozenset = frozenset()
    runs_commands = local_system = False


class Fleet:
    def __init__(self, exporters: dict, max_concurrent: int = 8):
        self.exporters = exporters           # name -> Exporter
        self._turns = threading.BoundedSemaphore(max_concurrent)   # one per target collecting
        self._holding: dict = {}             # target name -> probes sharing its turn
        self._holding_lock = threading.Lock()
        self._answers: dict = {}             # (target, content type, gzip) -> (collection time, body)
        self._started: set = set()           # targets whose background collectors run
        self._start_lock = threading.Lock()

    def start_background(self, name: str) -> None:
        """A target's background collectors (vmstat, iostat with their interval) start at its
        first probe: a target no one probes (another shard's, in a sharded fleet) costs nothing,
        not even a connection."""
        with self._start_lock:
            if name in self._started:
                return
            self._started.add(name)
        self.exporters[name].start_background()

    def _enter(self, name: str, timeout: float) -> bool:
        """Take a turn for target ``name``, or share the one it holds; False if none came in time."""
        with self._holding_lock:
            if self._holding.get(name):
                self._holding[name] += 1
                return True
        if not self._turns.acquire(timeout=max(0.0, timeout)):
            return False
        with self._holding_lock:
            self._holding[name] = self._holding.get(name, 0) + 1
            if self._holding[name] > 1:   # another probe of it took a turn meanwhile: one is enough
                self._turns.release()
        return True

    def _leave(self, name: str) -> None:
        with self._holding_lock:
            self._holding[name] -= 1
            if not self._holding[name]:
                del self._holding[name]
                self._turns.release()

    def stop(self) -> None:
        for ex in self.exporters.values():
            ex.stop()
            close = getattr(ex.source, "close", None)
            if close is not None:
                try:
                    close()
                except Exception:   # (a connection already gone: nothing to close)
                    pass

    def render(self, name: str, encoder, content_type: str, gzipped: bool, deadline: float) -> bytes:
        """The exposition of one probe of target ``name`` (UnknownTarget if none is declared), in
        Exporter.render's terms: probes answered from one collection (within --collect.min-interval
        of it) get the answer encoded once for it, its probe duration included, as /metrics does."""
        ex = self.exporters.get(name)
        if ex is None:
            raise UnknownTarget(name)
        started = time.monotonic()
        self.start_background(name)
        if not self._enter(name, deadline):
            log.error("msg=probe not started: probe.max_concurrent targets were collecting until its deadline target=%s",
                      name)
            cut = frozenset(c.name for c in ex.on_scrape)
            success, at = ex.current(cut), None
        else:
            try:
                collection = ex.collect(max(0.0, deadline - (time.monotonic() - started)))
            finally:
                self._leave(name)
            cut, success, at = collection.cut, collection.success, collection.at
            cached = self._answers.get((name, content_type, gzipped))
            if at is not None and cached is not None and cached[0] == at:
                return cached[1]   # the same collection, encoded once (a flood of probes costs one encoding)
        ok = bool(success) and all(success.values())
        body = encoder(ex.registry(cut, extra=probe_families(ok, time.monotonic() - started)))
        body = gzip.compress(body, compresslevel=1) if gzipped else body
        if at is not None:
            self._answers[(name, content_type, gzipped)] = (at, body)
        return body


def probe_families(ok: bool, seconds: float) -> tuple:
    """aix_exporter_probe_success and aix_exporter_probe_duration_seconds of one probe."""
    success = GaugeMetricFamily("aix_exporter_probe_success",
                                "1 when every collector of the probed target succeeded in this probe (/probe only).")
    success.add_metric([], 1.0 if ok else 0.0)
    took = GaugeMetricFamily("aix_exporter_probe_duration_seconds",
                             "Seconds this probe took, waiting for its turn among the targets included (/probe only).")
    took.add_metric([], seconds)
    return success, took
