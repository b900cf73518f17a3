"""Where command text comes from.

A source answers ``read(key)`` with the text of one logical command (the keys
are those of the command table, ``commands.py``); collectors never know whether the text came from a real
AIX command, a replay directory or the simulator. Failures raise
:class:`SourceError` with a one-line message.
"""
from __future__ import annotations

from typing import Optional, Protocol

from ..commands import COMMANDS
from .base import CommandFailed, NotRunning, SourceError, TimedOut  # noqa: F401  (the sources' shared types)

# key -> what runs on AIX (the command table); replay files are named <key>.txt
KEYS = {key: c.aix for key, c in COMMANDS.items()}


def open_regular(path: str, what: str = "file"):
    """(binary file object, stat) of a regular file, opened without blocking: a FIFO or a
    device in a file's place is a SourceError, never a read that waits forever."""
    from ..files import NotRegular
    from ..files import open_regular as _open
    try:
        return _open(path)
    except FileNotFoundError:
        raise SourceError(f"{what} {path} does not exist") from None
    except NotRegular:
        raise SourceError(f"{path} is not a regular file") from None
    except OSError as e:
        raise SourceError(f"cannot open {path}: {e.strerror}") from None


class Source(Protocol):
    name: str
    #: keys whose command takes an interval (run in the background, not on scrape)
    slow_keys: frozenset
    #: True when a read waits on something outside this process (a command, a remote channel),
    #: so the exporter runs the on-scrape collectors at once; False when reading is this
    #: process's own work (a file of a replay, the simulator), so they run one after another
    concurrent_reads: bool
    #: True when the text comes from real commands (this system's or an LPAR's over SSH): a
    #: collector that needs settings (a TSM password file, a report directory) runs only with them
    runs_commands: bool
    #: True when the commands run on this very host: a collector that reads the running system
    #: directly (collectors/base.py requires_system) describes the same machine
    local_system: bool

    def read(self, key: str) -> str: ...

    def read_log(self, key: str, position) -> tuple:
        """(new complete text since position, new position) for growing logs (tsm_actlog)."""
        ...

    def report_time(self, key: str) -> Optional[float]:
        """When the text last read for ``key`` was produced (Unix time), where the source knows
        it apart from the read (a splat report's file), else None."""
        ...


def open_source(spec: str, settings=None, key_file=None, known_hosts=None) -> "Source":
    """Build a source from ``system``, ``replay:DIR``, ``simulate:SCENARIO`` or
    ``ssh://USER@HOST[:PORT]`` (its key and known_hosts: the arguments, else the ssh section)."""
    kind, _, arg = spec.partition(":")
    if kind == "ssh":
        from ..config import Settings
        from .ssh import SshSource, SshTarget, parse_spec
        s = settings or Settings()
        user, host, port = parse_spec(spec)
        return SshSource(SshTarget(host, user, port, key_file or s.ssh.key_file, known_hosts or s.ssh.known_hosts,
                                   s.ssh.connect_timeout_seconds, s.ssh.max_sessions, s.ssh.output_budget_bytes), s)
    if kind == "system" and not arg:
        from .system import SystemSource
        return SystemSource(settings)
    if kind == "replay" and arg:
        from .replay import ReplaySource
        return ReplaySource(arg)
    if kind == "simulate" and arg:
        from .simulate import SimulatedSource
        return SimulatedSource(arg, settings)
    raise ValueError(f"unknown source {spec!r}: use system, replay:DIR, simulate:SCENARIO or ssh://USER@HOST[:PORT]")
