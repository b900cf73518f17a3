"""system: runs the real AIX commands.

Each command runs from an argv list (never a shell) with an absolute path,
``LC_ALL=C LANG=C``, a timeout, stderr captured for the log, in its own process
group which is killed on timeout.
"""
from __future__ import annotations

import os
import signal
import subprocess

from ..config import Settings
from . import SourceError

ENV = {"LC_ALL": "C", "LANG": "C", "PATH": "/usr/bin:/usr/sbin:/bin:/sbin"}


def run(argv: list, timeout: float) -> str:
    """Run argv; return stdout text or raise SourceError with a one-line reason."""
    if not argv or not os.path.isabs(argv[0]):
        raise SourceError(f"command must have an absolute path: {argv!r}")
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=ENV, start_new_session=True, close_fds=True)
    except OSError as e:
        raise SourceError(f"{argv[0]}: {e.strerror}") from None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()  # reap: no zombie
        raise SourceError(f"{' '.join(argv)}: timed out after {timeout:g}s, process group killed") from None
    if proc.returncode != 0:
        first = err.decode("utf-8", "replace").strip().splitlines()[:1]
        raise SourceError(f"{' '.join(argv)}: exit status {proc.returncode}"
                          + (f": {first[0]}" if first else ""))
    return out.decode("utf-8", errors="replace")


class SystemSource:
    name = "system"
    slow_keys = frozenset({"vmstat", "splat"})

    def __init__(self, settings: Settings = None):
        self.settings = settings or Settings()

    def argv(self, key: str) -> list:
        s = self.settings
        if key == "vmstat":
            return ["/usr/bin/vmstat", "-w", "-l", str(s.vmstat.interval_seconds), "2"]
        if key == "vmstat_v":
            return ["/usr/bin/vmstat", "-v"]
        if key == "vmstat_s":
            return ["/usr/bin/vmstat", "-s"]
        if key == "svmon_G":
            return ["/usr/bin/svmon", "-G"]
        if key == "vmo":
            argv = ["/usr/sbin/vmo"]
            for t in s.vmo.tunables:
                argv += ["-L", t]
            return argv
        if key == "iostat_tape":
            return ["/usr/bin/iostat", "-p"]
        raise SourceError(f"no system command for {key!r}")

    def timeout(self, key: str) -> float:
        if key == "vmstat":
            return 2 * self.settings.vmstat.interval_seconds + self.settings.command_timeout_seconds
        return self.settings.command_timeout_seconds

    def read(self, key: str) -> str:
        return run(self.argv(key), self.timeout(key))
