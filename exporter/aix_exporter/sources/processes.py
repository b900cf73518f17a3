"""The monitored processes (settings.process.commands): discovered with ps, argv only."""
from __future__ import annotations

from ..parsers import is_digits
from . import NotRunning


def monitored_pids(run, settings) -> list:
    """PIDs of the monitored commands, at most process.max_processes.

    ``run(argv, timeout)`` is the system source's runner. A PID reaches a command line only
    when it is ASCII digits. None running raises NotRunning (no data, not a failure).
    """
    out = run(["/usr/bin/ps", "-e", "-o", "pid=", "-o", "comm="], settings.command_timeout_seconds)
    wanted = set(settings.process.commands)
    pids = []
    for line in out.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and is_digits(parts[0]) and parts[1].strip() in wanted:
            pids.append(parts[0])
    if not pids:
        raise NotRunning(f"none of {', '.join(sorted(wanted))} is running")
    return pids[: settings.process.max_processes]
