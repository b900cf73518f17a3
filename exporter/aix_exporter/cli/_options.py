"""What the report and the plan share: a duration option, the store they read (a live
Prometheus or a directory of blocks behind a temporary one), and a URL as it may be printed."""
from __future__ import annotations

import argparse
import contextlib
import os

from ..httpclient import shown as _shown
from ..report.compare import Prometheus, ReportError


def shown(url):
    """A --prometheus URL as it may be printed: without its user:password@ (None stays None)."""
    return _shown(url) if url else url


def duration(text: str) -> float:
    """An argparse type: seconds of a duration with its unit (durations.seconds)."""
    from ..durations import DurationError, seconds
    try:
        return seconds(text)
    except DurationError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_store(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--prometheus", help="Prometheus base URL, e.g. http://127.0.0.1:9090")
    src.add_argument("--tsdb", help="a directory of Prometheus blocks (imported history), served by a temporary "
                                    "Prometheus")


@contextlib.contextmanager
def store(args):
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
