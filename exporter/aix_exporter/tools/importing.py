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
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time

from ..importers import IMPORTERS
from ..importers.base import Importer, RecordingError, Stats
from .. import outputs
from . import tempprom
from .openmetrics import Writer

DEFAULT_JOB = "aix"
DEFAULT_PORT = 10990   # the instance of an imported LPAR is <host>:10990, as its live exporter's


def open_text(path: str):
    """A text stream of a plain or gzipped recording (gzip recognised by its magic bytes)."""
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    return open(path, "r", encoding="utf-8", errors="replace", newline="")


def importer(fmt: str) -> Importer:
    try:
        return IMPORTERS[fmt]
    except KeyError:
        raise RecordingError(f"no importer for {fmt!r} (formats: {', '.join(sorted(IMPORTERS))})") from None


def _options(imp: Importer, given: dict) -> dict:
    unknown = set(given) - set(imp.option_defaults)
    if unknown:
        raise TypeError(f"{imp.name} import has no option {', '.join(sorted(unknown))}")
    return {**imp.option_defaults, **given}


def run_import(fmt: str, files: list, out: str, target=None, progress=None, **options) -> dict:
    """Write the OpenMetrics history of recordings in format ``fmt`` to ``out``; return the
    summary. ``options``: the importer's own (nmon: tz, date_order)."""
    imp = importer(fmt)
    options = _options(imp, options)
    target = dict(target or {})
    stats = Stats()
    order = []
    for path in files:
        try:
            with open_text(path) as fh:
                first, host = imp.first(fh, options)
        except RecordingError as e:
            raise type(e)(f"{path}: {e}") from None
        except (OSError, EOFError) as e:
            raise RecordingError(f"{path}: cannot read: {e}") from None
        if first is None:
            stats.skip("file without a complete snapshot")
            continue
        order.append((first, path, host))
    order.sort()
    states: dict = {}    # instance -> the importer's state, carried from file to file in time order
    conflicting: list = []   # (file, its snapshots that an earlier file has at the same time with other values)
    seen: dict = {}          # (target labels, snapshot time) -> hash of its samples
    with Writer() as w:
        held: dict = {}   # (target labels, Series) -> the Writer's series
        for i, (_, path, host) in enumerate(order, 1):
            labels = {"job": DEFAULT_JOB, "instance": f"{host or 'unknown'}:{DEFAULT_PORT}", **target}
            key = tuple(sorted(labels.items()))
            stats.files += 1
            state = states.setdefault(labels["instance"], {})
            conflicts = 0
            try:
                with open_text(path) as fh:
                    for snap in imp.snapshots(fh, options, stats, state):
                        digest = hash(tuple(snap.samples))
                        if seen.setdefault((key, snap.epoch), digest) != digest:
                            conflicts += 1   # this LPAR's snapshot at this time, read before with other values
                        pairs = []
                        for series, value in snap.samples:
                            out_series = held.get((key, series))
                            if out_series is None:
                                out_series = held[(key, series)] = w.series(
                                    series.family, series.type, series.help, series.name, {**dict(series.labels), **labels})
                            pairs.append((out_series, value))
                        w.add_snapshot(snap.epoch, pairs)
                        if progress:
                            progress(i, len(order), stats.snapshots)
            except RecordingError as e:
                raise type(e)(f"{path}: {e}") from None
            except (OSError, EOFError) as e:   # a truncated gzip ends the file, not the import
                stats.skip(f"file cut short ({type(e).__name__})")
            if conflicts:
                conflicting.append((path, conflicts))
        summary = {"targets": [dict(k) for k in sorted({k for k, _ in held})],   # each LPAR's labels
                   "files": stats.files, "snapshots": stats.snapshots, "samples": w.samples,
                   "duplicates_dropped": w.dropped, "first": w.first, "last": w.last,
                   "rows_skipped": dict(stats.rows_skipped), "not_mapped": _group(imp, stats.sections_unmapped),
                   "conflicting": conflicting}
        w.close(out)
    return summary


def _group(imp: Importer, sections: dict) -> dict:
    """Unmapped sections with their reason, grouped as the importer says (per-CPU and per-disk
    sections folded)."""
    out: dict = {}
    for sec, rows in sections.items():
        key, reason = imp.unmapped(sec)
        entry = out.setdefault(key, [0, reason])
        entry[0] += rows
    return {k: tuple(v) for k, v in sorted(out.items())}


def _when(epoch):
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(epoch)) if epoch is not None else "-"


def print_summary(s: dict, out: str, stream=None):
    stream = stream or sys.stdout   # (looked up now: sys.stdout may have been replaced since import)
    print(f"imported {s['files']} file(s), {s['snapshots']} snapshots, {s['samples']} samples to {out}", file=stream)
    print(f"  time range: {_when(s['first'])} .. {_when(s['last'])}", file=stream)
    if s["duplicates_dropped"]:
        print(f"  samples of repeated or overlapping snapshots written once: {s['duplicates_dropped']} dropped",
              file=stream)
    for path, n in s.get("conflicting", ()):
        print(f"  conflicting: {path} repeats {n} snapshot(s) read before with other values "
              "(the values read first are kept: two recordings of one LPAR at the same time?)", file=stream)
    for reason, n in sorted(s["rows_skipped"].items()):
        print(f"  skipped: {n} x {reason}", file=stream)
    for sec, (rows, reason) in s["not_mapped"].items():
        print(f"  not mapped: {sec} ({rows} rows): {reason}", file=stream)


RULES_EVAL_INTERVAL = 60   # seconds: the live rule evaluation interval of the shipped setups


def rules_range(summary: dict) -> tuple:
    """(start, end) of the rule backfill for an import: whole minutes around its snapshots."""
    return int(summary["first"]) // 60 * 60 - 60, int(summary["last"]) // 60 * 60 + 120


def rules_command(promtool: str, url: str, start: int, end: int, out_dir: str, rules: list) -> list:
    return [promtool, "tsdb", "create-blocks-from", "rules", "--start", str(start), "--end", str(end),
            "--url", url, "--eval-interval", f"{RULES_EVAL_INTERVAL}s", "--max-block-duration=24h",
            "--output-dir", out_dir, *rules]


def backfill_rules(tsdb: str, rules: list, start: int, end: int) -> int:
    """Backfill ``rules`` over start..end into ``tsdb``: promtool evaluates them against a
    temporary Prometheus serving the blocks (tools/tempprom.py); the rule blocks are moved in
    beside them. Returns the number of rule blocks."""
    promtool = shutil.which("promtool")
    if not promtool:
        raise RuntimeError("--rules needs promtool (Debian package prometheus)")
    work = tempfile.mkdtemp(prefix="aix-exporter-rules-")
    try:
        out_dir = os.path.join(work, "rule-blocks")
        with tempprom.serve(tsdb) as url:
            r = subprocess.run(rules_command(promtool, url, start, end, out_dir, rules),
                               capture_output=True, text=True, timeout=3600)
        if r.returncode != 0:
            raise RuntimeError(f"promtool failed: {(r.stderr or r.stdout).strip()[:500]}")
        blocks = sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else []
        for name in blocks:
            shutil.move(os.path.join(out_dir, name), os.path.join(tsdb, name))
        return len(blocks)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _to_store(fmt: str, store, out: str, summary: dict, force: bool) -> int:
    """Write the history into a running store: its age checked first, its samples counted back."""
    from . import store as stores
    name = {"victoriametrics": "VictoriaMetrics", "prometheus": "Prometheus"}[store.kind]
    why = store.keeps(summary["first"])
    if why and not force:
        print(f"aix-exporter import {fmt}: not written to {name}: {why}", file=sys.stderr)
        return 1
    try:
        written = stores.write(store, out)
        back = stores.count_back(store, summary["targets"], summary["first"], summary["last"])
    except stores.StoreError as e:
        print(f"aix-exporter import {fmt}: {e}", file=sys.stderr)
        return 1
    print(f"written to {name} at {stores.httpclient.shown(store.url)}: {written} samples, {back} read back")
    if back < written:
        print(f"aix-exporter import {fmt}: {name} kept {back} of {written} samples"
              + (f" ({why})" if why else ""), file=sys.stderr)
        return 1
    return 0


def main(argv) -> int:  # noqa: C901 (issue 46: too complex today, must not grow)
    usage = "usage: aix-exporter import FORMAT [options] FILE..."
    if argv and argv[0] in ("-h", "--help"):
        print(usage + "\n\nformats:\n" + "".join(f"  {name:<6} {imp.summary}\n" for name, imp in sorted(IMPORTERS.items())),
              end="")
        return 0
    if not argv or argv[0] not in IMPORTERS:
        print(f"{usage}  (aix-exporter import --help)\nformats: {', '.join(sorted(IMPORTERS))}", file=sys.stderr)
        return 2
    fmt, imp = argv[0], IMPORTERS[argv[0]]
    p = argparse.ArgumentParser(
        prog=f"aix-exporter import {fmt}", description=__doc__.replace("FORMAT [format options]", f"{fmt} {imp.usage}"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE")
    imp.add_arguments(p)
    p.add_argument("--target", default="", help="labels of the imported series as k=v,k=v "
                                                f"(default job={DEFAULT_JOB},instance=<host>:{DEFAULT_PORT})")
    p.add_argument("--out", help="write the OpenMetrics history here")
    p.add_argument("--tsdb", help="also create Prometheus blocks in this directory (runs promtool)")
    p.add_argument("--store", metavar="URL", help="write into a running VictoriaMetrics or Prometheus (remote-write "
                                                  "receiver) at URL, after checking its retention")
    p.add_argument("--force", action="store_true", help="with --store: write even what the store will not keep")
    p.add_argument("--rules", action="append", default=[], metavar="FILE",
                   help="with --tsdb: backfill these recording rules (e.g. alerts/aix-rules.yml) over the "
                        "imported range into the same directory; repeatable")
    args = p.parse_args(argv[1:])
    options = {name: getattr(args, name) for name in imp.option_defaults}
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
        target = dict(kv.split("=", 1) for kv in args.target.split(",") if kv)
    except ValueError:
        p.error("--target takes k=v,k=v")
    for path in args.files:
        if not os.path.isfile(path):
            why = "not a regular file (a pipe or device: save the recording to a file first)" \
                if os.path.exists(path) else "no such file"
            print(f"aix-exporter import {fmt}: {path}: {why}", file=sys.stderr)
            return 1
    promtool = shutil.which("promtool") if args.tsdb else None
    if args.tsdb and not promtool and not args.out:   # refused before the import: its history would be lost
        print(f"aix-exporter import {fmt}: promtool not found (Debian package prometheus): --tsdb needs it; "
              "--out HISTORY.om keeps the history without it", file=sys.stderr)
        return 1
    tmpdir = None
    if args.out:   # written beside it under a temporary name, renamed once the import succeeded
        try:
            out = outputs.temporary(args.out)
        except outputs.OutputError as e:
            print(f"aix-exporter import {fmt}: --out {e}", file=sys.stderr)
            return 1
    else:
        tmpdir = tempfile.mkdtemp(prefix="aix-exporter-import-")
        out = os.path.join(tmpdir, "history.om")
    store = None
    if args.store:
        from . import store as stores
        try:
            store = stores.connect(args.store)
        except stores.StoreError as e:
            print(f"aix-exporter import {fmt}: {e}", file=sys.stderr)
            return 1
    progress = None
    if sys.stderr.isatty():
        def progress(i, n, snaps):
            if snaps % 50 == 0:
                print(f"\r  file {i}/{n}, {snaps} snapshots", end="", file=sys.stderr, flush=True)
    try:
        try:
            summary = run_import(fmt, args.files, out, target, progress, **options)
        except RecordingError as e:
            print(f"aix-exporter import {fmt}: {e}", file=sys.stderr)
            return 1
        if progress is not None:
            print("\r", end="", file=sys.stderr)
        if not summary["snapshots"]:
            print(f"aix-exporter import {fmt}: no complete snapshot in any of the {len(args.files)} file(s): "
                  f"are they {fmt} recordings?", file=sys.stderr)
            return 1
        if args.out:
            outputs.publish(out, args.out)
            out = args.out
        print_summary(summary, args.out or "(temporary file)")
        if store is not None:
            code = _to_store(fmt, store, out, summary, args.force)
            if code:
                return code
        if args.tsdb:
            if not promtool:
                print(f"aix-exporter import {fmt}: promtool not found (Debian package prometheus); the history is in "
                      f"{out}", file=sys.stderr)
                return 1
            os.makedirs(args.tsdb, exist_ok=True)
            # day-sized blocks: a month of daily files makes about 40 blocks, not 270 of 2 h
            r = subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", "--max-block-duration=24h",
                                out, args.tsdb], capture_output=True, text=True, timeout=3600)
            if r.returncode != 0:
                print(f"aix-exporter import {fmt}: promtool failed: {(r.stderr or r.stdout).strip()[:500]}",
                      file=sys.stderr)
                return 1
            print(f"blocks written to {args.tsdb}")
            if summary["first"] is None:   # no snapshot: no range to backfill, no age to keep
                return 0
            start, end = rules_range(summary)
            if args.rules:
                try:
                    n = backfill_rules(args.tsdb, args.rules, start, end)
                except (RuntimeError, OSError, subprocess.SubprocessError) as e:   # TempPrometheusError too
                    print(f"aix-exporter import {fmt}: recording rules not backfilled: {e}", file=sys.stderr)
                    return 1
                print(f"recording rules of {', '.join(args.rules)} backfilled over the imported range "
                      f"({n} blocks, every {RULES_EVAL_INTERVAL} s) into {args.tsdb}")
            else:
                print("backfill the recording rules over the imported range (or import again with --rules FILE), "
                      "with a Prometheus serving these blocks at URL:")
                print("  " + " ".join(rules_command("promtool", "URL", start, end, "rule-blocks",
                                                    ["alerts/aix-rules.yml"])))
                print("  then move rule-blocks/* beside them.")
            days = max(1, int((time.time() - summary["first"]) // 86400) + 1)
            print(f"Point Prometheus at them: start one with --storage.tsdb.path={args.tsdb}, or copy the block "
                  "directories into its --storage.tsdb.path and restart it. The oldest sample is "
                  f"{days} days old: keep --storage.tsdb.retention.time above {days}d, or Prometheus deletes it.")
    finally:
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)
        if args.out and out != args.out:   # failed before the rename: no file under the name asked for
            outputs.discard(out)
    return 0
