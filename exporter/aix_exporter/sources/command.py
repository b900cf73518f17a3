"""The command source: the command table's text, run by a :class:`~.runner.Runner`.

It owns what does not depend on where a command runs: the argv lists of the command table,
``command_root`` (``--path.commands``), each command's deadline (command_timeout_seconds plus
an interval command's design time), the monitored processes and the per-process commands, the
TSM password on dsmadmc's standard input and one dsmadmc of a target at a time, the known
answers despite an exit status, and the costs (from the runner). Where the bytes come from
(this host's processes, an LPAR's SSH channels) is the runner's alone.
"""
from __future__ import annotations

import os
import re
import threading
import time
from typing import Optional

from ..commands import COMMANDS, TABLE
from ..config import Settings, password_mode_problem
from ..redaction import HIDDEN
from . import open_regular, processes
from .base import CommandFailed, NotRunning, SourceError, TimedOut, rooted
from .logtail import dsmadmc_new_lines
from .runner import Runner


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


class CommandSource:
    """The command table's text from a runner: this host's (system.SystemSource) or an LPAR's
    over SSH (ssh.SshSource)."""
    slow_keys = frozenset(c.key for c in TABLE if c.background)
    concurrent_reads = True   # each read waits on a command: the collectors run at once
    runs_commands = True

    def __init__(self, runner: Runner, settings: Optional[Settings] = None):
        self.runner = runner
        self.settings = settings or Settings()
        self.name = f"ssh://{runner.where}" if runner.where else "system"
        self.local_system = runner.local
        self._report_time: dict = {}
        self._dsmadmc_lane = threading.Lock()   # one dsmadmc of this source at a time
        self._dsmadmc_quiet_until = 0.0          # after a dsmadmc timed out: none started until then

    def run(self, argv: list, timeout: float, stdin: Optional[bytes] = None) -> str:
        """The way every command of this source goes (under command_root if set)."""
        return self.runner.run(rooted(argv, self.settings.command_root), timeout, stdin)

    def command_costs(self) -> dict:
        """{command name: (CPU seconds or None, wall seconds, runs)} of this source's runner."""
        return self.runner.command_costs()

    def close(self) -> None:
        self.runner.close()

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
            text, self._report_time[key] = self.runner.splat_report(self.run, self.settings)
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
            return self.runner.tail_log(self.settings, position)
        if tsm.dsmadmc:
            return dsmadmc_new_lines(self.dsmadmc(list(tsm.dsmadmc), self.settings.command_timeout_seconds), position)
        raise SourceError("tsm: neither tsm.actlog_file nor tsm.dsmadmc is configured")
