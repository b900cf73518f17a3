"""Where command text comes from.

A source answers ``read(key)`` with the text of one logical command (keys are
listed in ``KEYS``); collectors never know whether the text came from a real
AIX command, a replay directory or the simulator. Failures raise
:class:`SourceError` with a one-line message.
"""
from __future__ import annotations

from typing import Protocol

# key -> what it stands for (DESIGN.md); replay files are named <key>.txt
KEYS = {
    "vmstat": "vmstat [-w] [-t] [-l] [-I] interval count",
    "vmstat_v": "vmstat -v",
    "vmstat_s": "vmstat -s",
    "svmon_G": "svmon -G",
    "svmon_P": "svmon -P <pid>...",
    "vmo": "vmo -L lgpg_regions -L lgpg_size (or vmo -a)",
    "splat": "splat -da report",
    "iostat_tape": "iostat -p",
    "tsm_actlog": "TSM activity log",
    "ps_env": "ps eww <pid>",
}


class SourceError(RuntimeError):
    """The command text could not be obtained (missing file, failed command, timeout)."""


class NotRunning(SourceError):
    """None of the monitored processes runs: no data, and not a failure."""


class Source(Protocol):
    name: str
    #: keys whose command takes an interval (run in the background, not on scrape)
    slow_keys: frozenset

    def read(self, key: str) -> str: ...

    def read_log(self, key: str, position) -> tuple:
        """(new complete text since position, new position) for growing logs (tsm_actlog)."""
        ...


def open_source(spec: str, settings=None) -> "Source":
    """Build a source from ``system``, ``replay:DIR`` or ``simulate:SCENARIO``."""
    kind, _, arg = spec.partition(":")
    if kind == "system" and not arg:
        from .system import SystemSource
        return SystemSource(settings)
    if kind == "replay" and arg:
        from .replay import ReplaySource
        return ReplaySource(arg)
    if kind == "simulate" and arg:
        from .simulate import SimulatedSource
        return SimulatedSource(arg, settings)
    raise ValueError(f"unknown source {spec!r}: use system, replay:DIR or simulate:SCENARIO")
