"""Where a splat report comes from on AIX: the newest file of a watched directory, or a
trace window run by the exporter (root; README 'Lock statistics')."""
from __future__ import annotations

import glob
import os
import time

from . import SourceError


def newest_report(directory: str) -> tuple:
    """(text, modification time) of the newest regular file in ``directory``."""
    files = [f for f in glob.glob(os.path.join(directory, "*")) if os.path.isfile(f)]
    if not files:
        raise SourceError(f"no splat report in {directory}")
    newest = max(files, key=os.path.getmtime)
    when = os.path.getmtime(newest)
    with open(newest, "rb") as fh:
        return fh.read().decode("utf-8", errors="replace"), when


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
        return newest_report(sp.report_dir)
    if sp.enabled_trace:
        return trace_window(run, settings)
    raise SourceError("splat: neither splat.report_dir nor splat.enabled_trace is configured")
