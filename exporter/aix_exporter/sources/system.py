"""system: runs the real AIX commands of the command table and returns their text.

Each command runs from an argv list (never a shell) with an absolute path,
``LC_ALL=C LANG=C``, a timeout, stderr captured for the log, in its own process
group which is killed on timeout.

``command_root`` (``--path.commands DIR``) runs every command from under DIR
instead of ``/`` (``/usr/bin/svmon`` becomes ``DIR/usr/bin/svmon``), like
node_exporter's ``--path.procfs``: stand-in commands that print captured output
test this source, background scheduling included, off AIX.
"""
from __future__ import annotations

import os
import selectors
import signal
import subprocess
import threading
import time
from typing import Optional

from ..config import Settings
from ..redaction import redact_argv
from . import SourceError, splat_window
from .base import CommandFailed, MAX_OUTPUT, STDERR_KEPT, TimedOut, exit_failure  # noqa: F401  (CommandFailed: what run raises on an exit status)
from .command import CommandSource
from .logtail import dsmadmc_new_lines, tail  # noqa: F401  (dsmadmc_new_lines: part of this source's API)

ENV = {"LC_ALL": "C", "LANG": "C", "PATH": "/usr/bin:/usr/sbin:/bin:/sbin"}


def redact(argv: list) -> str:
    """The command line for a log line, with the value of dsmadmc's password option hidden in
    every spelling dsmadmc accepts (-pa= to -password=, any case, or the option alone and its
    value as the next element), in any element, also one element holding a whole command line
    (redaction.redact_argv)."""
    return " ".join(redact_argv(argv))


def run(argv: list, timeout: float, max_output: int = MAX_OUTPUT, stdin: Optional[bytes] = None) -> str:
    """Run argv; return stdout text or raise SourceError with a one-line reason.

    Output is read as it comes, capped at ``max_output`` bytes, until the deadline: a
    command that prints too much or runs too long has its process group killed, and
    nothing waits for an end of file that a grandchild which left the group may hold."""
    if not argv or not os.path.isabs(argv[0]):
        raise SourceError(f"command must have an absolute path: {argv!r}")
    shown = redact(argv)
    started = time.monotonic()   # (before the spawn: under load the child runs before Popen returns)
    # spawned and registered under the lock kill_running takes: a command started while the
    # exporter ends is either killed with the others or never started (under load the child
    # ran before Popen returned, and a kill between the two missed it)
    with _running_lock:
        if _closed:
            raise SourceError(f"{argv[0]}: not started, the exporter is stopping")
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, start_new_session=True,
                                    close_fds=True)
        except OSError as e:
            raise SourceError(f"{argv[0]}: {e.strerror}") from None
        _running.add(proc)
    proc.started = started   # type: ignore[attr-defined]   # (for the command's wall time)
    try:
        return _communicate(proc, shown, timeout, max_output, stdin)
    finally:
        with _running_lock:
            _running.discard(proc)


_costs: dict = {}                 # command name -> [CPU seconds of the child, wall seconds, runs]
_costs_lock = threading.Lock()


def command_costs() -> dict:
    """{command name: (CPU seconds (user + system) of the command's own process, wall seconds,
    runs)} since start, for every command run and reaped."""
    with _costs_lock:
        return {k: tuple(v) for k, v in _costs.items()}


def _try_reap(proc) -> bool:
    """Reap the command if it has exited, with wait4: its own CPU time (user + system) is
    added to the command's cost. True when reaped."""
    if proc.returncode is not None:
        return True
    try:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
    except ChildProcessError:   # reaped elsewhere: no usage to account
        proc.returncode = -1
        return True
    if not pid:
        return False
    proc.returncode = os.waitstatus_to_exitcode(status)
    name = os.path.basename(proc.args[0]) if isinstance(proc.args, (list, tuple)) else "?"
    with _costs_lock:
        c = _costs.setdefault(name, [0.0, 0.0, 0])
        c[0] += usage.ru_utime + usage.ru_stime
        c[1] += time.monotonic() - getattr(proc, "started", time.monotonic())
        c[2] += 1
    return True


def _reap(proc, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not _try_reap(proc):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.002)
    return True


def kill_running(close: bool = False) -> int:
    """Kill the process group of every command still running (on shutdown: a hung command must
    not outlive the exporter, re-parented to init). ``close``: and start none after this (the
    exporter is ending; a collector thread still running would start its next command).
    Returns how many there were."""
    global _closed
    with _running_lock:
        _closed = _closed or close
        procs = list(_running)
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return len(procs)


_running: set = set()              # commands in flight (their process groups are theirs alone)
_running_lock = threading.Lock()   # (held while a command is spawned and registered)
_closed = False                    # kill_running(close=True) was called: no command starts any more
AFTER_EXIT_SECONDS = 1.0          # output still taken after the command exited (a grandchild may hold its pipe)


def _communicate(proc, shown: str, timeout: float, max_output: int, stdin: Optional[bytes]) -> str:  # noqa: C901 (issue 46: too complex today, must not grow)
    if stdin is not None:   # a few bytes (an answer to a prompt): the pipe takes them at once
        try:
            assert proc.stdin is not None   # a pipe when stdin is given
            proc.stdin.write(stdin)
            proc.stdin.close()
        except OSError:
            pass
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None and proc.stderr is not None   # both are pipes
    out: list = []
    err: list = []
    problem: Optional[str] = None
    size = 0
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ, out)
        sel.register(proc.stderr, selectors.EVENT_READ, err)
        exited_at = None
        while sel.get_map() and problem is None:
            now = time.monotonic()
            remaining = deadline - now
            if remaining <= 0:
                problem = f"timed out after {timeout:g}s, process group killed"
                break
            if exited_at is None and _try_reap(proc):
                exited_at = now
            if exited_at is not None and now - exited_at > AFTER_EXIT_SECONDS:
                # the command is done; what still holds its pipes is a child it left behind
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                break
            for key, _ in sel.select(min(remaining, 0.2)):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                elif key.data is out:
                    size += len(chunk)
                    if size > max_output:   # (the loop ends on the problem after this round)
                        problem = f"printed more than {max_output} bytes, process group killed"
                    else:
                        out.append(chunk)
                elif sum(len(c) for c in err) < STDERR_KEPT:
                    err.append(chunk)
    if problem is None and not _reap(proc, max(0.0, deadline - time.monotonic())):
        problem = f"timed out after {timeout:g}s, process group killed"
    if problem is not None:
        _kill_group(proc)
        raise (TimedOut if problem.startswith("timed out") else SourceError)(f"{shown}: {problem}")
    proc.stdout.close()
    proc.stderr.close()
    if proc.returncode != 0:
        raise exit_failure(shown, proc.returncode, b"".join(out), b"".join(err))
    return b"".join(out).decode("utf-8", errors="replace")


def _kill_group(proc) -> None:
    """Kill the command's process group and reap the command; never wait on its pipes."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.stdout.close()
    proc.stderr.close()
    _reap(proc, 5)   # no zombie (SIGKILL of the group ends our child at once); its CPU counted


class LocalRunner:
    """Commands run on this host (runner.py's Runner): this module's ``run``, its files read
    directly, its costs measured from each reaped child with wait4."""
    where = ""
    local = True

    def run(self, argv: list, timeout: float, stdin: Optional[bytes] = None) -> str:
        if stdin is None:   # (the two-argument call is the runner's interface: tests replace it)
            return run(argv, timeout)
        return run(argv, timeout, stdin=stdin)

    def splat_report(self, run_rooted, settings) -> tuple:
        return splat_window.read(run_rooted, settings)

    def tail_log(self, settings, position):
        return tail(settings.tsm.actlog_file, position, start_at_end=True)

    def command_costs(self) -> dict:
        return command_costs()

    def close(self) -> None:
        pass


class SystemSource(CommandSource):
    """The command table run on this host (``--source system``)."""

    def __init__(self, settings: Optional[Settings] = None):
        super().__init__(LocalRunner(), settings)
