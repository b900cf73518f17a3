"""aix-exporter plan: the 16 MB large-page tuning of one LPAR as a reviewable change.

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
from __future__ import annotations

import argparse
import os
import sys
import time

from .. import outputs
from ..errors import CommandError, UsageError
from ..monitoring import CONFIG, SELECTOR
from ..report.compare import ReportError, instances_there, parse_time, stamp, zone
from ._options import add_store, duration, shown, store



def add_arguments(p: argparse.ArgumentParser) -> None:
    add_store(p)
    p.add_argument("--instance", required=True, help="the LPAR's instance label, e.g. tsmsrv01:10990")
    p.add_argument("--at", default=None, help="the instant to plan at, a date-time or Unix time (default now; "
                                              "with --tsdb, the last sample)")
    p.add_argument("--window", type=duration, default=duration(CONFIG["planWindow"]),
                   help=f"the evidence is averaged over this window before --at (default {CONFIG['planWindow']})")
    p.add_argument("--server-user", help="the user the server runs as (default: the commands find it with ps)")
    p.add_argument("--start-script", help="the server's start script, named in the commands")
    p.add_argument("--selector", default=SELECTOR, help=f"label matchers of the AIX series (default: {SELECTOR})")
    p.add_argument("--tz", default=None, help="time zone of the times typed and shown (default: local)")
    p.add_argument("--format", choices=["html", "markdown"], default=None,
                   help="default: from the --out file's extension (.md Markdown, else HTML)")
    p.add_argument("--out", help="the document (default: Markdown on stdout)")


def run(args) -> int:
    from ..report import plan
    if args.format is None:
        args.format = ("markdown" if not args.out or os.path.splitext(args.out)[1].lower() in (".md", ".markdown")
                       else "html")
    try:
        args.zone = zone(args.tz)
    except ReportError as e:
        raise UsageError(str(e)) from None
    if args.out:
        outputs.check(args.out)
    with store(args) as (prom, _, last):
        at = parse_time(args.at, args.zone) if args.at else (last if last is not None else time.time())
        facts = plan.gather(prom, args.instance, at, int(args.window), args.selector)
        if not facts.processes and facts.memory_bytes is None and facts.sys_per_user is None:
            raise CommandError(f"no series of instance {args.instance!r} ({args.selector}) at {stamp(at, args.zone)}; "
                               + instances_there(prom, args.selector, at - int(args.window), at))
    decided = plan.judge(facts)
    # the verification reads a live Prometheus: blocks (--tsdb) never hold what comes after the change
    where = f"--prometheus {shown(args.prometheus) if args.prometheus else plan.LIVE_PROMETHEUS}"
    bl = plan.blocks(decided, stamp(at, args.zone),
                     shown(args.prometheus) or f"{args.tsdb} (blocks)", where, args.server_user, args.start_script)
    if args.format == "html":
        try:
            text = plan.html(bl, f"Large-page change plan: {args.instance}")
        except ImportError as e:
            raise CommandError(f"HTML needs the report extra (Jinja2); or --out plan.md ({e})") from None
    else:
        text = plan.markdown(bl)
    if args.out:
        outputs.write_text(args.out, text)
        print(f"wrote {args.out}: {args.instance}: {decided.verdict}")
    else:
        sys.stdout.write(text)
        print(f"{args.instance}: {decided.verdict}", file=sys.stderr)
    return 0 if decided.recommended else 2
