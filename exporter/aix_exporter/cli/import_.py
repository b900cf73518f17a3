"""aix-exporter import FORMAT: recordings -> OpenMetrics history (and Prometheus blocks).

    aix-exporter import FORMAT [format options] [--target job=aix,instance=HOST:10990]
                               (--out HISTORY.om | --tsdb DIR [--rules FILE] | --store URL [--force])
                               FILE...

Formats are the importers of importers/ (aix-exporter import --help lists them; nmon:
aix-exporter import nmon --help). Files may be plain or gzipped, given in any order (they are
read in time order); snapshots that overlap or repeat are written once. The metric names are
the live exporter's (each importer lists its mapping), so the imported "before" and the live
"after" are one series set for the same rules, dashboards and report. --tsdb runs
`promtool tsdb create-blocks-from openmetrics` (Debian package prometheus) itself, in blocks
of up to a day. --rules FILE (e.g. alerts/aix-rules.yml) then backfills those recording rules
over the imported range into the same directory: it serves the blocks from a temporary
Prometheus on a free loopback port and runs `promtool tsdb create-blocks-from rules` against
it. Without --rules the command to do so is printed, with the range filled in. --store URL
writes into a running VictoriaMetrics (its import API) or Prometheus (its remote-write
receiver): refused when the store would drop the history for its age (--force writes anyway),
and the samples are counted back afterwards (tools/store.py).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

from .. import outputs
from ..errors import CommandError
from ..importers import IMPORTERS
from ..tools import importing

USAGE = "usage: aix-exporter import FORMAT [options] FILE..."
# the format is the first argument and its parser is the format's: this parser only hands them on
PARSER_OPTIONS = {"add_help": False, "usage": USAGE[len("usage: "):]}
PASS_THROUGH = True


class Failed(CommandError):
    """An import that failed: said as ``aix-exporter import FORMAT: ...``."""

    def __init__(self, fmt: str, message: str):
        super().__init__(message)
        self.prog = f"aix-exporter import {fmt}"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("argv", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def format_parser(fmt: str) -> argparse.ArgumentParser:
    imp = IMPORTERS[fmt]
    p = argparse.ArgumentParser(
        prog=f"aix-exporter import {fmt}", description=__doc__.replace("FORMAT [format options]", f"{fmt} {imp.usage}"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE")
    imp.add_arguments(p)
    p.add_argument("--target", default="", help="labels of the imported series as k=v,k=v "
                                                f"(default job={importing.DEFAULT_JOB},instance=<host>:{importing.DEFAULT_PORT})")
    p.add_argument("--out", help="write the OpenMetrics history here")
    p.add_argument("--tsdb", help="also create Prometheus blocks in this directory (runs promtool)")
    p.add_argument("--store", metavar="URL", help="write into a running VictoriaMetrics or Prometheus (remote-write "
                                                  "receiver) at URL, after checking its retention")
    p.add_argument("--force", action="store_true", help="with --store: write even what the store will not keep")
    p.add_argument("--rules", action="append", default=[], metavar="FILE",
                   help="with --tsdb: backfill these recording rules (e.g. alerts/aix-rules.yml) over the "
                        "imported range into the same directory; repeatable")
    return p


def _checked(fmt: str, argv: list) -> argparse.Namespace:
    """The format's arguments: combinations refused as argparse refuses (exit 2), files checked."""
    p = format_parser(fmt)
    args = p.parse_args(argv)
    if not args.out and not args.tsdb and not args.store:
        p.error("give --out HISTORY.om, --tsdb DIR or --store URL")
    if args.force and not args.store:
        p.error("--force goes with --store URL")
    if args.rules and not args.tsdb:
        p.error("--rules goes with --tsdb DIR")
    for path in args.rules:
        if not os.path.isfile(path):
            p.error(f"--rules {path}: no such file")
    try:
        args.target = dict(kv.split("=", 1) for kv in args.target.split(",") if kv)
    except ValueError:
        p.error("--target takes k=v,k=v")
    for path in args.files:
        if not os.path.isfile(path):
            if os.path.isdir(path):
                why = f"a directory: name its recordings ({os.path.join(path, '*.nmon')})"
            elif os.path.exists(path):
                why = "not a regular file (a pipe or device: save the recording to a file first)"
            else:
                why = "no such file"
            raise Failed(fmt, f"{path}: {why}")
    if args.tsdb and not shutil.which("promtool") and not args.out:   # before the import: its history would be lost
        raise Failed(fmt, "promtool not found (Debian package prometheus): --tsdb needs it; "
                          "--out HISTORY.om keeps the history without it")
    if args.out:
        outputs.check(args.out)
    return args


def _to_store(fmt: str, store, out: str, summary: dict, force: bool) -> None:
    """Write the history into a running store: its age checked first, its samples counted back."""
    from ..tools import store as stores
    name = {"victoriametrics": "VictoriaMetrics", "prometheus": "Prometheus"}[store.kind]
    why = store.keeps(summary["first"])
    if why and not force:
        raise Failed(fmt, f"not written to {name}: {why}")
    try:
        written = stores.write(store, out)
        back = stores.count_back(store, summary["targets"], summary["first"], summary["last"])
    except stores.StoreError as e:
        raise Failed(fmt, str(e)) from None
    print(f"written to {name} at {stores.httpclient.shown(store.url)}: {written} samples, {back} read back")
    if back < written:
        raise Failed(fmt, f"{name} kept {back} of {written} samples" + (f" ({why})" if why else ""))


def _to_tsdb(fmt: str, args, out: str, summary: dict) -> None:
    try:
        importing.to_tsdb(out, args.tsdb, args.rules, summary["first"], summary["last"], "imported")
    except (RuntimeError, OSError) as e:
        raise Failed(fmt, str(e)) from None


def _progress():
    if not sys.stderr.isatty():
        return None

    def progress(i, n, snaps):
        if snaps % 50 == 0:
            print(f"\r  file {i}/{n}, {snaps} snapshots", end="", file=sys.stderr, flush=True)
    return progress


def _import(fmt: str, args, out: str) -> int:
    store = None
    if args.store:
        from ..tools import store as stores
        try:
            store = stores.connect(args.store)
        except stores.StoreError as e:
            raise Failed(fmt, str(e)) from None
    progress = _progress()
    try:
        summary = importing.run_import(fmt, args.files, out, args.target, progress,
                             **{name: getattr(args, name) for name in IMPORTERS[fmt].option_defaults})
    except CommandError as e:   # a RecordingError
        raise Failed(fmt, str(e)) from None
    if progress is not None:
        print("\r", end="", file=sys.stderr)
    if not summary["snapshots"]:
        raise Failed(fmt, f"no complete snapshot in any of the {len(args.files)} file(s): are they {fmt} recordings?")
    if not summary["samples"]:   # issue 48: it said "3 snapshots, 0 samples ... blocks written", exit 0
        held = ", ".join(summary["not_mapped"]) or "none"
        raise Failed(fmt, f"{summary['snapshots']} snapshots but no sample of a section the exporter's metrics "
                          f"come from (sections read but not mapped: {held}): nothing to import")
    if args.out:
        outputs.publish(out, args.out)
        out = args.out
    importing.print_summary(summary, args.out or "(temporary file)")
    if store is not None:
        _to_store(fmt, store, out, summary, args.force)
    if args.tsdb:
        _to_tsdb(fmt, args, out, summary)
    return 0


def run(args) -> int:
    argv = args.argv
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE + "\n\nformats:\n" + "".join(f"  {name:<6} {imp.summary}\n" for name, imp in sorted(IMPORTERS.items())),
              end="")
        return 0
    if not argv or argv[0] not in IMPORTERS:
        print(f"{USAGE}  (aix-exporter import --help)\nformats: {', '.join(sorted(IMPORTERS))}", file=sys.stderr)
        return 2
    fmt = argv[0]
    try:
        return _run(fmt, argv[1:])
    except CommandError as e:   # said as this format's import
        e.prog = e.prog or f"aix-exporter import {fmt}"
        raise


def _run(fmt: str, argv: list) -> int:
    args = _checked(fmt, argv)
    # written beside --out under a temporary name, renamed once the import succeeded
    tmpdir = None
    if args.out:
        out = outputs.temporary(args.out)
    else:
        tmpdir = tempfile.mkdtemp(prefix="aix-exporter-import-")
        out = os.path.join(tmpdir, "history.om")
    try:
        return _import(fmt, args, out)
    finally:
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)
        if args.out and os.path.exists(out) and out != args.out:   # failed before the rename
            outputs.discard(out)
