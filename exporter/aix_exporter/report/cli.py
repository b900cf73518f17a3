"""aix-exporter report: before/after of one LPAR from Prometheus.

    aix-exporter report (--prometheus URL | --tsdb DIR) --census [--end TIME] [--window 24h] --out FILE
    aix-exporter report (--prometheus URL | --tsdb DIR) --instance INST [--selector MATCHERS]
                        (--before FROM..TO --after FROM..TO | --auto [--lookback 30d] [--end TIME]
                         [--margin 10m]) [--tz ZONE] [--title TEXT] [--note TEXT]
                        [--format html|markdown|csv] --out FILE

--census ranks every LPAR (of --selector) by its large-page state at --end (mandatory at
risk, falling back, 16 MB, 64 KB, 4 KB: recording rule aix:census_regime:code) and by its contention
(system per user CPU, pin_seg_range miss ratio) over the --window before it, worst first, as
the fleet-census dashboard does; Markdown or CSV.

FROM/TO/TIME: ISO date-times (in --tz unless they name a zone: 2026-11-20T08:00, 2026-11-20
08:00+01:00) or Unix times. --tz: the zone times are typed and shown in (default: this
machine's local zone; Europe/Berlin, UTC, ...); the report prints it. --auto finds the last change of page-size regime (4 KB,
64 KB or 16 MB pages, either way: recording rule aix:regime_page_size:bytes, read at a 60 s step)
and compares the run before it with the run after it, looking back --lookback
(default 30d) from --end (default now). --tsdb DIR reads a directory of blocks, such as
`import nmon --tsdb DIR --rules alerts/aix-rules.yml` writes, through a temporary Prometheus
(Debian package prometheus); --auto then looks over the blocks' whole range. HTML needs the
optional extra 'report' (Jinja2, matplotlib), installed in the checkout's virtual environment
by its set-up commands. --selector: the label matchers of your AIX series besides the instance
(default: the mixin's aixSelector in monitoring.json, as the rules and dashboards use).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

from ..monitoring import CONFIG, SELECTOR
from .. import outputs
from ..httpclient import shown as _shown
from .compare import Prometheus, ReportError, compare, find_regimes, parse_time, parse_window, zone


def shown(url):
    """A --prometheus URL as it may be printed: without its user:password@ (None stays None)."""
    return _shown(url) if url else url


FORMAT_BY_EXTENSION = {".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}


def _duration(text: str) -> float:
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    try:
        return float(text[:-1]) * units[text[-1]] if text[-1] in units else float(text)
    except (ValueError, IndexError, KeyError):
        raise argparse.ArgumentTypeError(f"{text!r}: a duration such as 30d, 12h, 600s") from None


def _compare(args, prom, end: float, lookback: float, progress):
    change, regimes = None, ()
    if args.auto:
        before, after, change, regimes = find_regimes(prom, args.instance, end - lookback, end, args.margin,
                                                      args.selector)
    else:
        before, after = parse_window(args.before, args.zone), parse_window(args.after, args.zone)
    cmp = compare(prom, args.instance, before, after, change, progress, plots=args.format == "html",
                  base=args.selector)
    cmp.tz, cmp.title, cmp.note, cmp.regimes = args.zone, args.title or "", args.note or "", regimes
    return cmp


@contextlib.contextmanager
def _source(args):
    """(Prometheus, first, last) of --prometheus, or of --tsdb served by a temporary Prometheus
    with the blocks' first and last sample times (None for a live Prometheus)."""
    if not args.tsdb:
        yield Prometheus(args.prometheus), None, None
        return
    from ..tools import tempprom
    first, last = tempprom.block_range(args.tsdb) if os.path.isdir(args.tsdb) else (None, None)
    if first is None:
        raise ReportError(f"{args.tsdb}: no Prometheus blocks in it")
    with tempprom.serve(args.tsdb) as url:
        yield Prometheus(url), first, last


def _census(args) -> int:
    from . import census
    from .compare import stamp
    try:
        with _source(args) as (prom, _, last):
            end = parse_time(args.end, args.zone) if args.end else (last if last is not None else time.time())
            rows = census.census(prom, end, int(args.window), args.selector)
    except (ReportError, RuntimeError) as e:
        print(f"aix-exporter report: {e}", file=sys.stderr)
        return 1
    if not rows:
        print(f"aix-exporter report: no LPAR has aix:census_regime:code{{{args.selector}}} at {stamp(end, args.zone)}: "
              "are the recording rules loaded (alerts/aix-rules.yml)?", file=sys.stderr)
        return 1
    window = f"{args.window / 3600:g} h"
    text = census.csv_text(rows) if args.format == "csv" else census.markdown(rows, stamp(end, args.zone), window)
    outputs.write_text(args.out, text)
    worst = rows[0]
    print(f"wrote {args.out}: {len(rows)} LPARs; worst: {worst.instance} ({worst.state_text})")
    return 0


def main(argv) -> int:  # noqa: C901 (issue 46: too complex today, must not grow)
    p = argparse.ArgumentParser(prog="aix-exporter report", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--prometheus", help="Prometheus base URL, e.g. http://127.0.0.1:9090")
    src.add_argument("--tsdb", help="a directory of Prometheus blocks (imported history), served by a temporary "
                                    "Prometheus")
    p.add_argument("--instance", help="the LPAR's instance label, e.g. tsmsrv01:10990")
    p.add_argument("--census", action="store_true", help="rank every LPAR instead (Markdown or CSV)")
    p.add_argument("--window", type=_duration, default=86400.0,
                   help="with --census: the window the contention is averaged over (default 24h)")
    p.add_argument("--selector", default=SELECTOR,
                   help=f"label matchers of the AIX series besides the instance, '' for none (default: {SELECTOR}, "
                        "the rules' and dashboards' aixSelector)")
    p.add_argument("--before", help="base window FROM..TO")
    p.add_argument("--after", help="new window FROM..TO")
    p.add_argument("--auto", action="store_true",
                   help="find the windows: the last change of page-size regime (4 KB, 64 KB, 16 MB), the run "
                        "before it vs the run after it")
    p.add_argument("--lookback", type=_duration, default=None,
                   help="with --auto: how far back (default 30d; with --tsdb, the blocks' whole range)")
    p.add_argument("--end", default=None, help="with --auto: end of the look-back, a date-time or Unix time "
                                               "(default now; with --tsdb, the last sample)")
    p.add_argument("--margin", type=_duration, default=600, help="with --auto: cut from each run's edges (default 10m)")
    p.add_argument("--tz", default=None,
                   help="time zone of the times typed and shown (default: this machine's local zone)")
    p.add_argument("--title", help="a title for the change, e.g. its ticket: 'CHG0042 16 MB pages for dsmserv'")
    p.add_argument("--note", help="a note printed under the title")
    p.add_argument("--format", choices=["html", "markdown", "csv"], default=None,
                   help="default: from the --out file's extension (.csv, .md, else html)")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if args.format is None:   # from the file's name: x.csv is CSV, x.md Markdown, anything else HTML
        args.format = FORMAT_BY_EXTENSION.get(os.path.splitext(args.out)[1].lower(), "html")
    if args.census:
        if args.instance or args.auto or args.before or args.after:
            p.error("--census ranks every LPAR: without --instance, --auto, --before or --after")
        if args.format == "html":
            p.error("--census writes Markdown or CSV: --out census.md or census.csv")
    elif not args.instance:
        p.error("give --instance INST (one LPAR's before/after) or --census (every LPAR)")
    elif args.auto == bool(args.before or args.after) or (not args.auto and not (args.before and args.after)):
        p.error("give --auto, or both --before FROM..TO and --after FROM..TO")
    try:
        args.zone = zone(args.tz)
    except ReportError as e:
        p.error(str(e))
    if outputs.refused("report", "--out", args.out):   # before any query, not after them
        return 1
    tty = sys.stderr.isatty()

    def progress(msg):
        print(("\r" if tty else "") + f"querying {shown(args.prometheus) or args.tsdb}: {msg}" + (" " * 20 if tty else ""),
              end="" if tty else "\n", file=sys.stderr, flush=True)
    if args.census:
        return _census(args)
    try:
        with _source(args) as (prom, first, last):
            if last is None:   # a live Prometheus: up to now, 30 days back
                end = parse_time(args.end, args.zone) if args.end else time.time()
                lookback = args.lookback or 30 * 86400
            else:              # blocks: over their whole range
                end = parse_time(args.end, args.zone) if args.end else last + 60
                lookback = args.lookback or (end - first + 60)
            cmp = _compare(args, prom, end, lookback, progress)
    except RuntimeError as e:   # a ReportError, tempprom.TempPrometheusError: one line, after the progress line
        print(("\n" if tty else "") + f"aix-exporter report: {e}", file=sys.stderr)
        return 1
    if tty:
        print(file=sys.stderr)
    from . import render
    if args.format == "html":
        try:
            text = render.html(cmp, shown(args.prometheus) or f"{args.tsdb} (blocks)")
        except ImportError as e:
            print("aix-exporter report: HTML needs the report extra (Jinja2, matplotlib): in the checkout, "
                  f".venv/bin/pip install -e '.[report]'; or --format markdown or csv ({e})", file=sys.stderr)
            return 1
    elif args.format == "markdown":
        text = render.markdown(cmp)
    else:
        text = render.csv_text(cmp)
    outputs.write_text(args.out, text)
    print(f"wrote {args.out}: {cmp.instance}, before {cmp.window(cmp.before)}, after {cmp.window(cmp.after)}")
    print(cmp.verdict())
    return 0


PLAN_USAGE = """aix-exporter plan: the 16 MB large-page tuning of one LPAR as a reviewable change.

    aix-exporter plan (--prometheus URL | --tsdb DIR) --instance INST [--at TIME] [--window 1h]
                      [--server-user NAME] [--start-script PATH] [--selector MATCHERS] [--tz ZONE]
                      [--format markdown|html] [--out FILE]

Reads what the exporter recorded up to --at (default now; with --tsdb, the last sample): the
evidence (tape MiB/s, system/user CPU, the pin_seg_range miss ratio and misses/s, averaged over
--window), the sizing rule's pages from the heap segments, a memory-safety check (real memory,
the computational working set, paging space: a pool that leaves less than
planMinFreeMemoryRatio of memory is refused), a restart pre-flight for LARGE_PAGE_DATA=Y and =M,
the commands as an admin types them, their rollback, and the report command that verifies the
change. Without --out, Markdown on stdout and the verdict on stderr. Exit 0 when the change is
recommended, 2 when it is not (the reason is in the document and in the verdict line), 1 on an
error. Times as for `aix-exporter report`.
"""


def plan_main(argv) -> int:
    from . import plan
    from .compare import stamp
    p = argparse.ArgumentParser(prog="aix-exporter plan", description=PLAN_USAGE,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--prometheus", help="Prometheus base URL, e.g. http://127.0.0.1:9090")
    src.add_argument("--tsdb", help="a directory of Prometheus blocks, served by a temporary Prometheus")
    p.add_argument("--instance", required=True, help="the LPAR's instance label, e.g. tsmsrv01:10990")
    p.add_argument("--at", default=None, help="the instant to plan at, a date-time or Unix time (default now; "
                                              "with --tsdb, the last sample)")
    p.add_argument("--window", type=_duration, default=_duration(CONFIG["planWindow"]),
                   help=f"the evidence is averaged over this window before --at (default {CONFIG['planWindow']})")
    p.add_argument("--server-user", help="the user the server runs as (default: the commands find it with ps)")
    p.add_argument("--start-script", help="the server's start script, named in the commands")
    p.add_argument("--selector", default=SELECTOR, help=f"label matchers of the AIX series (default: {SELECTOR})")
    p.add_argument("--tz", default=None, help="time zone of the times typed and shown (default: local)")
    p.add_argument("--format", choices=["html", "markdown"], default=None,
                   help="default: from the --out file's extension (.md Markdown, else HTML)")
    p.add_argument("--out", help="the document (default: Markdown on stdout)")
    args = p.parse_args(argv)
    if args.format is None:
        args.format = ("markdown" if not args.out or os.path.splitext(args.out)[1].lower() in (".md", ".markdown")
                       else "html")
    try:
        args.zone = zone(args.tz)
    except ReportError as e:
        p.error(str(e))
    if args.out and outputs.refused("plan", "--out", args.out):
        return 1
    try:
        with _source(args) as (prom, _, last):
            at = parse_time(args.at, args.zone) if args.at else (last if last is not None else time.time())
            facts = plan.gather(prom, args.instance, at, int(args.window), args.selector)
    except (ReportError, RuntimeError) as e:
        print(f"aix-exporter plan: {e}", file=sys.stderr)
        return 1
    if not facts.processes and facts.memory_bytes is None and facts.sys_per_user is None:
        print(f"aix-exporter plan: no series of instance {args.instance!r} ({args.selector}) at {stamp(at, args.zone)}",
              file=sys.stderr)
        return 1
    decided = plan.judge(facts)
    where = f"--prometheus {shown(args.prometheus)}" if args.prometheus else f"--tsdb {args.tsdb}"
    bl = plan.blocks(decided, stamp(at, args.zone),
                     shown(args.prometheus) or f"{args.tsdb} (blocks)", where, args.server_user, args.start_script)
    if args.format == "html":
        try:
            text = plan.html(bl, f"Large-page change plan: {args.instance}")
        except ImportError as e:
            print(f"aix-exporter plan: HTML needs the report extra (Jinja2); or --out plan.md ({e})", file=sys.stderr)
            return 1
    else:
        text = plan.markdown(bl)
    if args.out:
        try:
            outputs.write_text(args.out, text)
        except outputs.OutputError as e:
            print(f"aix-exporter plan: --out {e}", file=sys.stderr)
            return 1
        print(f"wrote {args.out}: {args.instance}: {decided.verdict}")
    else:
        sys.stdout.write(text)
        print(f"{args.instance}: {decided.verdict}", file=sys.stderr)
    return 0 if decided.recommended else 2
