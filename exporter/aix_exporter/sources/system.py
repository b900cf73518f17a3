"""system: runs the real AIX commands.

Each command runs from an argv list (never a shell) with an absolute path,
``LC_ALL=C LANG=C``, a timeout, stderr captured for the log, in its own process
group which is killed on timeout.
"""
from __future__ import annotations

import os
import signal
import subprocess

import glob
import re
import time

from ..config import Settings
from . import NotRunning, SourceError
from .logtail import tail

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
        self._splat_time = None

    # -- monitored processes -------------------------------------------------
    def pids(self) -> list:
        """PIDs of the monitored commands (ps, argv only), at most max_processes."""
        out = run(["/usr/bin/ps", "-e", "-o", "pid=", "-o", "comm="], self.settings.command_timeout_seconds)
        wanted = set(self.settings.process.commands)
        pids = []
        for line in out.splitlines():
            parts = line.split(None, 1)
            if len(parts) == 2 and parts[0].isascii() and parts[0].isdigit() and parts[1].strip() in wanted:
                pids.append(parts[0])
        if not pids:
            raise NotRunning(f"none of {', '.join(sorted(wanted))} is running")
        return pids[: self.settings.process.max_processes]

    def _ps_env(self) -> str:
        chunks = []
        for pid in self.pids():
            try:
                text = run(["/usr/bin/ps", "eww", pid], self.settings.command_timeout_seconds)
            except SourceError:
                continue   # the process ended between ps and ps eww
            lines = text.splitlines()
            chunks.extend(lines if not chunks else lines[1:])
        if not chunks:
            raise NotRunning("monitored processes ended before ps eww")
        return "\n".join(chunks) + "\n"

    # -- splat -------------------------------------------------------------
    def _splat(self) -> str:
        sp = self.settings.splat
        if sp.report_dir:
            files = [f for f in glob.glob(os.path.join(sp.report_dir, "*")) if os.path.isfile(f)]
            if not files:
                raise SourceError(f"no splat report in {sp.report_dir}")
            newest = max(files, key=os.path.getmtime)
            self._splat_time = os.path.getmtime(newest)
            with open(newest, "rb") as fh:
                return fh.read().decode("utf-8", errors="replace")
        if sp.enabled_trace:
            return self._trace_window()
        raise SourceError("splat: neither splat.report_dir nor splat.enabled_trace is configured")

    def _trace_window(self) -> str:
        """trace for W seconds, then trcrpt and splat -da (root; see README 'Lock statistics')."""
        sp = self.settings.splat
        work = sp.work_dir
        os.makedirs(work, mode=0o700, exist_ok=True)
        raw, cooked, syms, out = (os.path.join(work, n) for n in ("trace.raw", "trace.tr", "trace.syms", "splat.out"))
        t = self.settings.command_timeout_seconds
        run(["/usr/bin/trace", "-a", "-C", "all", "-J", "splat", "-T", "20000000", "-L", "200000000", "-o", raw], t)
        try:
            time.sleep(sp.trace_seconds)
        finally:
            run(["/usr/bin/trcstop"], t)
        run(["/usr/bin/trcrpt", "-r", "-C", "all", "-o", cooked, raw], 10 * t)
        with open(syms, "w", encoding="utf-8") as fh:
            fh.write(run(["/usr/bin/gensyms"], 10 * t))
        run(["/usr/bin/splat", "-i", cooked, "-n", syms, "-da", "-p", "-o", out], 10 * t)
        self._splat_time = time.time()
        with open(out, "rb") as fh:
            return fh.read().decode("utf-8", errors="replace")

    def report_time(self, key: str):
        return self._splat_time if key == "splat" else None

    # -- logs ----------------------------------------------------------------
    def read_log(self, key: str, position):
        if key != "tsm_actlog":
            raise SourceError(f"{key} is not a log")
        tsm = self.settings.tsm
        if tsm.actlog_file:
            return tail(tsm.actlog_file, position, start_at_end=True)
        if tsm.dsmadmc:
            return dsmadmc_new_lines(run(list(tsm.dsmadmc), self.settings.command_timeout_seconds), position)
        raise SourceError("tsm: neither tsm.actlog_file nor tsm.dsmadmc is configured")

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
        if key == "svmon_P":
            return ["/usr/bin/svmon", "-P", *self.pids()]
        raise SourceError(f"no system command for {key!r}")

    def timeout(self, key: str) -> float:
        if key == "vmstat":
            return 2 * self.settings.vmstat.interval_seconds + self.settings.command_timeout_seconds
        return self.settings.command_timeout_seconds

    def read(self, key: str) -> str:
        if key == "ps_env":
            return self._ps_env()
        if key == "splat":
            return self._splat()
        return run(self.argv(key), self.timeout(key))


_DATED_RE = re.compile(r"^\s*(\d{2})/(\d{2})/(\d{2,4})\s+(\d{2}):(\d{2}):(\d{2})\s")


def _sortable(m) -> str:
    year = m.group(3) if len(m.group(3)) == 4 else "20" + m.group(3)
    return f"{year}{m.group(1)}{m.group(2)}{m.group(4)}{m.group(5)}{m.group(6)}"


def dsmadmc_new_lines(text: str, position):
    """Messages of a 'q actlog' query that are newer than the watermark.

    The position keeps the newest timestamp seen and the message lines seen at
    that second, so overlapping query windows never count a message twice.
    """
    mark = (position or {}).get("mark", "")
    seen = set((position or {}).get("seen", []))
    out, keep = [], False
    new_mark, new_seen = mark, set(seen)
    for line in text.splitlines():
        m = _DATED_RE.match(line)
        if m:
            ts = _sortable(m)
            keep = ts > mark or (ts == mark and line not in seen)
            if ts > new_mark:
                new_mark, new_seen = ts, set()
            if ts == new_mark:
                new_seen.add(line)
        if keep:
            out.append(line)
    return "\n".join(out) + ("\n" if out else ""), {"mark": new_mark, "seen": sorted(new_seen)}
