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
import re
import selectors
import signal
import subprocess
import threading
import time
from typing import Optional

from ..commands import COMMANDS, TABLE
from ..config import Settings, password_mode_problem
from ..redaction import HIDDEN, redact_argv
from . import CommandFailed, NotRunning, SourceError, TimedOut, open_regular, processes, splat_window
from .base import MAX_OUTPUT, STDERR_KEPT, exit_failure, rooted
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
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, start_new_session=True,
                                close_fds=True)
    except OSError as e:
        raise SourceError(f"{argv[0]}: {e.strerror}") from None
    proc.started = time.monotonic()   # type: ignore[attr-defined]   # (for the command's wall time)
    with _running_lock:
        _running.add(proc)
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


def kill_running() -> int:
    """Kill the process group of every command still running (on shutdown: a hung command must
    not outlive the exporter, re-parented to init). Returns how many there were."""
    with _running_lock:
        procs = list(_running)
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return len(procs)


_running: set = set()              # commands in flight (their process groups are theirs alone)
_running_lock = threading.Lock()
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


def _without(error: SourceError, stdin: Optional[bytes]) -> SourceError:
    """The error with the secret sent on standard input hidden in its text and output, wherever
    the command echoed it (the same type, so callers tell a failure from a timeout as before)."""
    secret = (stdin or b"").decode("utf-8", "replace").strip()
    if not secret or secret not in f"{error}{getattr(error, 'output', '')}{getattr(error, 'stderr', '')}":
        return error
    hide = lambda text: text.replace(secret, HIDDEN)
    if isinstance(error, CommandFailed):
        return CommandFailed(hide(str(error)), hide(error.output), hide(error.stderr))
    return type(error)(hide(str(error)))


class SystemSource:
    name = "system"
    slow_keys = frozenset(c.key for c in TABLE if c.background)
    concurrent_reads = True   # each read waits on a command: the collectors run at once
    runs_commands = True
    local_system = True

    def __init__(self, settings: Optional[Settings] = None):
        self.settings = settings or Settings()
        self._report_time: dict = {}
        self._dsmadmc_lane = threading.Lock()   # one dsmadmc of this source at a time
        self._dsmadmc_quiet_until = 0.0          # after a dsmadmc timed out: none started until then

    def run(self, argv: list, timeout: float, stdin: Optional[bytes] = None) -> str:
        """The runner every command of this source goes through (under command_root if set)."""
        argv = rooted(argv, self.settings.command_root)
        if stdin is None:   # (the two-argument call is the runner's interface: tests replace it)
            return run(argv, timeout)
        return run(argv, timeout, stdin=stdin)

    def password(self) -> bytes:
        """The TSM administrator's password from tsm.password_file, which only the exporter's
        user may read; it goes to dsmadmc's prompt on standard input, never on a command line."""
        path = self.settings.tsm.password_file
        if not path:
            raise SourceError("tsm: tsm.admin_id and tsm.password_file are not configured")
        fh, st = open_regular(path, "password file")
        with fh:
            unsafe = password_mode_problem(path, st.st_mode)
            if unsafe:
                raise SourceError(unsafe)
            secret = fh.read(4096).decode("utf-8", "replace").strip().splitlines()
        if not secret or not secret[0]:
            raise SourceError(f"{path}: empty password file")
        return (secret[0] + "\n").encode()

    def pids(self) -> list:
        return processes.monitored_pids(self.run, self.settings)

    def argv(self, key: str) -> list:
        cmd = COMMANDS.get(key)
        if cmd is None or cmd.argv is None:
            raise SourceError(f"no system command for {key!r}")
        if cmd.fetch in ("run", "dsmadmc"):
            return cmd.argv(self.settings)
        return cmd.argv(self.settings, self.pids())

    def timeout(self, key: str) -> float:
        """command_timeout_seconds, plus the time an interval command takes by design."""
        runs_for = COMMANDS[key].runs_for
        return self.settings.command_timeout_seconds + (runs_for(self.settings) if runs_for else 0)

    def read(self, key: str) -> str:
        cmd = COMMANDS.get(key)
        if cmd is None:
            raise SourceError(f"unknown command key {key!r}")
        if cmd.fetch == "per_process":
            return self._per_process(cmd)
        if cmd.fetch == "splat":
            text, self._report_time[key] = splat_window.read(self.run, self.settings)
            return text
        if cmd.fetch == "log":
            raise SourceError(f"{key} is a log: read it with read_log")
        try:
            if cmd.fetch == "dsmadmc":
                return self.dsmadmc(self.argv(key), self.timeout(key), self.password())
            return self.run(self.argv(key), self.timeout(key))
        except CommandFailed as e:
            text = e.output + e.stderr
            if cmd.exit_ok_if and re.search(cmd.exit_ok_if, text):
                return text   # a known answer despite the exit status (iostat -p: no tapes)
            raise

    def dsmadmc(self, argv: list, timeout: float, stdin: Optional[bytes] = None) -> str:
        """Run one dsmadmc: at most one of this source (this LPAR) at a time, a second caller
        waiting for its turn within its own deadline; and after one timed out (the TSM server
        does not answer), none for command_timeout_seconds, so a hung server costs one session
        at a time, never a pile of them."""
        if not self._dsmadmc_lane.acquire(timeout=max(0.0, timeout)):
            raise SourceError(f"{os.path.basename(argv[0])}: not started: another dsmadmc of this target ran "
                              f"for the whole {timeout:g}s deadline")
        try:
            left = self._dsmadmc_quiet_until - time.monotonic()
            if left > 0:
                raise SourceError(f"{os.path.basename(argv[0])}: not started: the last dsmadmc timed out (the TSM server "
                                  f"does not answer); the next is tried in {left:.0f}s")
            try:
                return self.run(argv, timeout) if stdin is None else self.run(argv, timeout, stdin)
            except SourceError as e:   # (a dsmadmc that echoes its standard input: the password)
                if isinstance(e, TimedOut):
                    self._dsmadmc_quiet_until = time.monotonic() + self.settings.command_timeout_seconds
                raise _without(e, stdin) from None
        finally:
            self._dsmadmc_lane.release()

    def _per_process(self, cmd) -> str:
        """One run per monitored process; the header line is kept once."""
        chunks: list = []
        for pid in self.pids():
            try:
                text = self.run(cmd.argv(self.settings, [pid]), self.settings.command_timeout_seconds)
            except SourceError:
                continue   # the process ended between ps and this command
            lines = text.splitlines()
            chunks.extend(lines if not chunks else lines[1:])
        if not chunks:
            raise NotRunning(f"monitored processes ended before {cmd.key} ran")
        return "\n".join(chunks) + "\n"

    def report_time(self, key: str):
        return self._report_time.get(key)

    def read_log(self, key: str, position):
        if COMMANDS.get(key) is None or COMMANDS[key].fetch != "log":
            raise SourceError(f"{key} is not a log")
        tsm = self.settings.tsm
        if tsm.actlog_file:
            return tail(tsm.actlog_file, position, start_at_end=True)
        if tsm.dsmadmc:
            return dsmadmc_new_lines(self.dsmadmc(list(tsm.dsmadmc), self.settings.command_timeout_seconds), position)
        raise SourceError("tsm: neither tsm.actlog_file nor tsm.dsmadmc is configured")
