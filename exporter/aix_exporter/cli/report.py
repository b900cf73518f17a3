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
import os
import sys
import time

from .. import outputs
from ..errors import CommandError, UsageError
from ..monitoring import SELECTOR
from ..report.compare import ReportError, compare, find_regimes, parse_time, parse_window, zone
from ._options import add_store, duration, shown, store


FORMAT_BY_EXTENSION = {".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_store(p)
    p.add_argument("--instance", help="the LPAR's instance label, e.g. tsmsrv01:10990")
    p.add_argument("--census", action="store_true", help="rank every LPAR instead (Markdown or CSV)")
    p.add_argument("--window", type=duration, default=86400.0,
                   help="with --census: the window the contention is averaged over (default 24h)")
    p.add_argument("--selector", default=SELECTOR,
                   help=f"label matchers of the AIX series besides the instance, '' for none (default: {SELECTOR}, "
                        "the rules' and dashboards' aixSelector)")
    p.add_argument("--before", help="base window FROM..TO")
    p.add_argument("--after", help="new window FROM..TO")
    p.add_argument("--auto", action="store_true",
                   help="find the windows: the last change of page-size regime (4 KB, 64 KB, 16 MB), the run "
                        "before it vs the run after it")
    p.add_argument("--lookback", type=duration, default=None,
                   help="with --auto: how far back (default 30d; with --tsdb, the blocks' whole range)")
    p.add_argument("--end", default=None, help="with --auto: end of the look-back, a date-time or Unix time "
                                               "(default now; with --tsdb, the last sample)")
    p.add_argument("--margin", type=duration, default=600, help="with --auto: cut from each run's edges (default 10m)")
    p.add_argument("--tz", default=None,
                   help="time zone of the times typed and shown (default: this machine's local zone)")
    p.add_argument("--title", help="a title for the change, e.g. its ticket: 'CHG0042 16 MB pages for dsmserv'")
    p.add_argument("--note", help="a note printed under the title")
    p.add_argument("--format", choices=["html", "markdown", "csv"], default=None,
                   help="default: from the --out file's extension (.csv, .md, else html)")
    p.add_argument("--out", required=True)


def _checked(args) -> None:
    """Options that do not go together (UsageError), the zone, and the --out file: all before any query."""
    if args.format is None:   # from the file's name: x.csv is CSV, x.md Markdown, anything else HTML
        args.format = FORMAT_BY_EXTENSION.get(os.path.splitext(args.out)[1].lower(), "html")
    if args.census:
        if args.instance or args.auto or args.before or args.after:
            raise UsageError("--census ranks every LPAR: without --instance, --auto, --before or --after")
        if args.format == "html":
            raise UsageError("--census writes Markdown or CSV: --out census.md or census.csv")
    elif not args.instance:
        raise UsageError("give --instance INST (one LPAR's before/after) or --census (every LPAR)")
    elif args.auto == bool(args.before or args.after) or (not args.auto and not (args.before and args.after)):
        raise UsageError("give --auto, or both --before FROM..TO and --after FROM..TO")
    try:
        args.zone = zone(args.tz)
    except ReportError as e:
        raise UsageError(str(e)) from None
    outputs.check(args.out)


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


def _census(args) -> int:
    from ..report import census
    from ..report.compare import stamp
    with store(args) as (prom, _, last):
        end = parse_time(args.end, args.zone) if args.end else (last if last is not None else time.time())
        rows = census.census(prom, end, int(args.window), args.selector)
    if not rows:
        raise CommandError(f"no LPAR has aix:census_regime:code{{{args.selector}}} at {stamp(end, args.zone)}: "
                           "are the recording rules loaded (alerts/aix-rules.yml)?")
    window = f"{args.window / 3600:g} h"
    text = census.csv_text(rows) if args.format == "csv" else census.markdown(rows, stamp(end, args.zone), window)
    outputs.write_text(args.out, text)
    worst = rows[0]
    print(f"wrote {args.out}: {len(rows)} LPARs; worst: {worst.instance} ({worst.state_text})")
    return 0


def _text(args, cmp) -> str:
    from ..report import render
    if args.format == "markdown":
        return render.markdown(cmp)
    if args.format == "csv":
        return render.csv_text(cmp)
    try:
        return render.html(cmp, shown(args.prometheus) or f"{args.tsdb} (blocks)")
    except ImportError as e:
        raise CommandError("HTML needs the report extra (Jinja2, matplotlib): in the checkout, "
                           f".venv/bin/pip install -e '.[report]'; or --format markdown or csv ({e})") from None


def run(args) -> int:
    _checked(args)
    if args.census:
        return _census(args)
    tty = sys.stderr.isatty()

    def progress(msg):
        print(("\r" if tty else "") + f"querying {shown(args.prometheus) or args.tsdb}: {msg}" + (" " * 20 if tty else ""),
              end="" if tty else "\n", file=sys.stderr, flush=True)
    try:
        with store(args) as (prom, first, last):
            if last is None:   # a live Prometheus: up to now, 30 days back
                end = parse_time(args.end, args.zone) if args.end else time.time()
                lookback = args.lookback or 30 * 86400
            else:              # blocks: over their whole range
                end = parse_time(args.end, args.zone) if args.end else last + 60
                lookback = args.lookback or (end - first + 60)
            cmp = _compare(args, prom, end, lookback, progress)
    finally:
        if tty:   # the error, or what follows, under the progress line
            print(file=sys.stderr)
    outputs.write_text(args.out, _text(args, cmp))
    print(f"wrote {args.out}: {cmp.instance}, before {cmp.window(cmp.before)}, after {cmp.window(cmp.after)}")
    print(cmp.verdict())
    return 0
