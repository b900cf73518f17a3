"""The import library behind `aix-exporter import FORMAT` (cli/import_.py): recordings ->
OpenMetrics history, Prometheus blocks and the recording rules' backfill. Ordering,
decompression, the target labels, the summary and the sinks are here; each format's reading
is its importer's (importers/)."""
from __future__ import annotations

import gzip
import operator
import os
import shutil
import subprocess
import sys
import tempfile
import time

from ..importers import IMPORTERS
from ..importers.base import Importer, RecordingError, Stats
from . import tempprom
from .openmetrics import Writer

_SERIES, _VALUE = operator.itemgetter(0), operator.itemgetter(1)   # of a Sample
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
        held: dict = {}   # target labels -> {Series: the Writer's series}
        for i, (_, path, host) in enumerate(order, 1):
            labels = {"job": DEFAULT_JOB, "instance": f"{host or 'unknown'}:{DEFAULT_PORT}", **target}
            key = tuple(sorted(labels.items()))
            stats.files += 1
            state = states.setdefault(labels["instance"], {})
            conflicts = 0
            try:
                with open_text(path) as fh:
                    lpar = held.setdefault(key, {})   # Series -> the Writer's series, for this LPAR
                    shape: tuple = ([], [])   # the last snapshot's Series and their Writer's series
                    for snap in imp.snapshots(fh, options, stats, state):
                        names = list(map(_SERIES, snap.samples))
                        if names != shape[0]:   # (most snapshots have the last one's series: resolved once)
                            shape = (names, [lpar.get(s) or lpar.setdefault(s, w.series(
                                s.family, s.type, s.help, s.name, {**dict(s.labels), **labels})) for s in names])
                        pairs = list(zip(shape[1], map(_VALUE, snap.samples)))
                        # (one Writer series per LPAR and Series: the pairs say what the samples say)
                        digest = hash(tuple(pairs))
                        if seen.setdefault((key, snap.epoch), digest) != digest:
                            conflicts += 1   # this LPAR's snapshot at this time, read before with other values
                        w.add_snapshot(snap.epoch, pairs)
                        if progress:
                            progress(i, len(order), stats.snapshots)
            except RecordingError as e:
                raise type(e)(f"{path}: {e}") from None
            except (OSError, EOFError) as e:   # a truncated gzip ends the file, not the import
                stats.skip(f"file cut short ({type(e).__name__})")
            if conflicts:
                conflicting.append((path, conflicts))
        summary = {"targets": [dict(k) for k in sorted(k for k, v in held.items() if v)],   # each LPAR's labels
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


def to_tsdb(history: str, tsdb: str, rules: list, first, last, what: str, say=print) -> None:
    """An OpenMetrics history as Prometheus blocks in ``tsdb`` and, with ``rules``, those
    recording rules backfilled over its range (first..last, epochs; None: an empty history),
    saying each step and what to do next (``what``: "imported" or "simulated", for the
    messages). RuntimeError or OSError with the reason (promtool's, the rules')."""
    import time
    create_blocks(history, tsdb)
    say(f"blocks written to {tsdb}")
    if first is None:   # no sample: no range to backfill, no age to keep
        return
    start, end = rules_range({"first": first, "last": last})
    if rules:
        try:
            n = backfill_rules(tsdb, rules, start, end)
        except (RuntimeError, OSError) as e:   # TempPrometheusError, subprocess's TimeoutExpired too
            raise RuntimeError(f"recording rules not backfilled: {e}") from None
        say(f"recording rules of {', '.join(rules)} backfilled over the {what} range "
            f"({n} blocks, every {RULES_EVAL_INTERVAL} s) into {tsdb}")
    else:
        again = "import again" if what == "imported" else "run it again"
        say(f"backfill the recording rules over the {what} range (or {again} with --rules FILE), "
            "with a Prometheus serving these blocks at URL:")
        say("  " + " ".join(rules_command("promtool", "URL", start, end, "rule-blocks", ["alerts/aix-rules.yml"])))
        say("  then move rule-blocks/* beside them.")
    days = max(1, int((time.time() - first) // 86400) + 1)
    say(f"Point Prometheus at them: start one with --storage.tsdb.path={tsdb}, or copy the block "
        "directories into its --storage.tsdb.path and restart it. The oldest sample is "
        f"{days} days old: keep --storage.tsdb.retention.time above {days}d, or Prometheus deletes it.")


def create_blocks(history: str, tsdb: str) -> None:
    """Prometheus blocks of an OpenMetrics history, in blocks of up to a day: a month of daily
    files makes about 40 blocks, not 270 of 2 h (RuntimeError with promtool's reason)."""
    promtool = shutil.which("promtool")
    if not promtool:
        raise RuntimeError(f"promtool not found (Debian package prometheus); the history is in {history}")
    os.makedirs(tsdb, exist_ok=True)
    r = subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", "--max-block-duration=24h",
                        history, tsdb], capture_output=True, text=True, timeout=3600)
    if r.returncode != 0:
        raise RuntimeError(f"promtool failed: {(r.stderr or r.stdout).strip()[:500]}")
