"""Where a splat report comes from on AIX: the newest file of a watched directory, or a
trace window run by the exporter (root; docs/aix.md 'Lock statistics')."""
from __future__ import annotations

import glob
import os
import time

from . import SourceError


MAX_REPORT_BYTES = 64 << 20   # a splat report of a 5 s window is a few MB; anything larger is not one


def newest_report(directory: str, pattern: str = "*.out") -> tuple:
    """(text, modification time) of the newest splat report in ``directory``: regular files
    named by ``pattern`` (splat.report_glob), not hidden, of at most MAX_REPORT_BYTES."""
    files = [f for f in glob.glob(os.path.join(directory, pattern))
             if not os.path.basename(f).startswith(".") and os.path.isfile(f)]
    if not files:
        raise SourceError(f"no splat report named {pattern} in {directory}")
    newest = max(files, key=os.path.getmtime)
    st = os.stat(newest)
    check_size(newest, st.st_size)
    with open(newest, "rb") as fh:
        data = fh.read(MAX_REPORT_BYTES + 1)
    check_size(newest, st.st_size, len(data))
    return data.decode("utf-8", errors="replace"), st.st_mtime


def check_size(path: str, size: int, read: int = 0) -> None:
    """A report of more than MAX_REPORT_BYTES is none: by its size, or by what a read found
    (``read``: it grew while read). The local and the remote (ssh) reader's one rule."""
    if size > MAX_REPORT_BYTES:
        raise SourceError(f"{path}: {size} bytes, more than a splat report has ({MAX_REPORT_BYTES} at most)")
    if read > MAX_REPORT_BYTES:
        raise SourceError(f"{path}: more than {MAX_REPORT_BYTES} bytes, more than a splat report has")


def check_age(settings, when: float, now: float) -> None:
    """A report nobody renewed is not today's contention: older than splat.max_age_seconds, it is
    refused (``now`` on the clock of the report's host)."""
    sp = settings.splat
    age = now - when
    if age > sp.max_age_seconds:
        raise SourceError(f"the newest splat report in {sp.report_dir} is {age:.0f} s old, older than "
                          f"splat.max_age_seconds ({sp.max_age_seconds:g}): not served as fresh")


def trace_window(run, settings) -> tuple:
    """trace for splat.trace_seconds, then trcrpt, gensyms and splat -da; (report text, time).

    ``run(argv, timeout)`` is the system source's runner."""
    sp = settings.splat
    work = sp.work_dir
    os.makedirs(work, mode=0o700, exist_ok=True)
    raw, cooked, syms, out = (os.path.join(work, n) for n in ("trace.raw", "trace.tr", "trace.syms", "splat.out"))
    t = settings.command_timeout_seconds
    run(["/usr/bin/trace", "-a", "-C", "all", "-J", "splat", "-T", "20000000", "-L", "200000000", "-o", raw], t)
    try:
        time.sleep(sp.trace_seconds)
    finally:
        run(["/usr/bin/trcstop"], t)
    run(["/usr/bin/trcrpt", "-r", "-C", "all", "-o", cooked, raw], 10 * t)
    with open(syms, "w", encoding="utf-8") as fh:
        fh.write(run(["/usr/bin/gensyms"], 10 * t))
    run(["/usr/bin/splat", "-i", cooked, "-n", syms, "-da", "-p", "-o", out], 10 * t)
    with open(out, "rb") as fh:
        return fh.read().decode("utf-8", errors="replace"), time.time()


def read(run, settings) -> tuple:
    sp = settings.splat
    if sp.report_dir:
        text, when = newest_report(sp.report_dir, sp.report_glob)
        check_age(settings, when, time.time())
        return text, when
    if sp.enabled_trace:
        return trace_window(run, settings)
    raise SourceError("splat: neither splat.report_dir nor splat.enabled_trace is configured")
