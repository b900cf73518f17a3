"""aix-exporter report: before/after of one LPAR from Prometheus.

    aix-exporter report --prometheus URL --instance INST
                        (--before FROM..TO --after FROM..TO | --auto [--since FROM])
                        [--format html|markdown|csv] --out FILE

FROM/TO: ISO date-times (UTC unless they name a zone: 2026-11-20T08:00, 2026-11-20 08:00+01:00)
or Unix times. --auto compares the last 4 KB regime with the 16 MB regime that follows it
(recording rule aix:regime_16m:bool), looking back --lookback (default 30d). HTML needs the
optional extra: pip install 'aix-exporter[report]' (Jinja2, matplotlib).
"""
from __future__ import annotations

import argparse
import sys
import time

from .compare import Prometheus, ReportError, compare, find_regimes, parse_window


def _duration(text: str) -> float:
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    try:
        return float(text[:-1]) * units[text[-1]] if text[-1] in units else float(text)
    except (ValueError, IndexError, KeyError):
        raise argparse.ArgumentTypeError(f"{text!r}: a duration such as 30d, 12h, 600s") from None


def main(argv) -> int:
    p = argparse.ArgumentParser(prog="aix-exporter report", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--prometheus", required=True, help="Prometheus base URL, e.g. http://127.0.0.1:9090")
    p.add_argument("--instance", required=True, help="the LPAR's instance label, e.g. tsmsrv01:10990")
    p.add_argument("--before", help="base window FROM..TO")
    p.add_argument("--after", help="new window FROM..TO")
    p.add_argument("--auto", action="store_true", help="find the windows: last 4 KB regime vs the 16 MB regime")
    p.add_argument("--lookback", type=_duration, default=30 * 86400, help="with --auto: how far back (default 30d)")
    p.add_argument("--end", type=float, default=None, help="with --auto: end of the look-back (Unix time; default now)")
    p.add_argument("--margin", type=_duration, default=600, help="with --auto: cut from each run's edges (default 10m)")
    p.add_argument("--format", choices=["html", "markdown", "csv"], default="html")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if args.auto == bool(args.before or args.after) or (not args.auto and not (args.before and args.after)):
        p.error("give --auto, or both --before FROM..TO and --after FROM..TO")
    tty = sys.stderr.isatty()

    def progress(msg):
        print(("\r" if tty else "") + f"querying {args.prometheus}: {msg}" + (" " * 20 if tty else ""),
              end="" if tty else "\n", file=sys.stderr, flush=True)
    prom = Prometheus(args.prometheus)
    try:
        change = None
        if args.auto:
            end = args.end or time.time()
            before, after, change = find_regimes(prom, args.instance, end - args.lookback, end, args.margin)
        else:
            before, after = parse_window(args.before), parse_window(args.after)
        cmp = compare(prom, args.instance, before, after, change, progress, plots=args.format == "html")
    except ReportError as e:
        print(f"\naix-exporter report: {e}", file=sys.stderr)
        return 1
    if tty:
        print(file=sys.stderr)
    from . import render
    if args.format == "html":
        try:
            text = render.html(cmp, args.prometheus)
        except ImportError as e:
            print(f"aix-exporter report: HTML needs the report extra (pip install 'aix-exporter[report]'): {e}",
                  file=sys.stderr)
            return 1
    elif args.format == "markdown":
        text = render.markdown(cmp)
    else:
        text = render.csv_text(cmp)
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"wrote {args.out}: {cmp.instance}, before {cmp.before.label()}, after {cmp.after.label()}")
    print(cmp.verdict())
    return 0
