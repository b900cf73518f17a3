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
    if st.st_size > MAX_REPORT_BYTES:
        raise SourceError(f"{newest}: {st.st_size} bytes, more than a splat report has ({MAX_REPORT_BYTES} at most)")
    with open(newest, "rb") as fh:
        data = fh.read(MAX_REPORT_BYTES + 1)
    if len(data) > MAX_REPORT_BYTES:   # (grew while read)
        raise SourceError(f"{newest}: more than {MAX_REPORT_BYTES} bytes, more than a splat report has")
    return data.decode("utf-8", errors="replace"), st.st_mtime


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
        age = time.time() - when
        if age > sp.max_age_seconds:   # a report nobody renewed is not today's contention
            raise SourceError(f"the newest splat report in {sp.report_dir} is {age:.0f} s old, older than "
                              f"splat.max_age_seconds ({sp.max_age_seconds:g}): not served as fresh")
        return text, when
    if sp.enabled_trace:
        return trace_window(run, settings)
    raise SourceError("splat: neither splat.report_dir nor splat.enabled_trace is configured")
