"""OpenMetrics text for ``promtool tsdb create-blocks-from openmetrics``, written in bounded memory.

OpenMetrics wants each series' samples together and in time order, and each family's series
together under one ``# TYPE``/``# HELP``. Samples arrive in time order across many series
(one snapshot after another), so each series is spooled to a temporary file of its own as it
comes, and the families are assembled at the end: memory stays flat however long the history.
A sample at or before the series' last timestamp is dropped (overlapping or repeated input)
and counted.
"""
from __future__ import annotations

import math
import os
import shutil
import tempfile


_COPY_BYTES = 1 << 20


def fmt_value(v: float) -> str:
    if v != v:
        return "NaN"
    if -1e15 < v < 1e15:
        i = int(v)
        return str(i) if i == v else repr(float(v))
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    return repr(float(v))


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def fmt_labels(labels: dict) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{_esc(str(v))}"' for k, v in sorted(labels.items())) + "}"


class Series:
    """One series of a Writer: its sample line prefix (name, labels and a blank), spool file,
    last timestamp (-inf before the first sample) and the lines not yet spooled."""
    __slots__ = ("key", "path", "last", "lines")

    def __init__(self, key: str, path: str):
        self.key, self.path, self.last = key + " ", path, -math.inf
        self.lines: list = []


class Writer:
    """``add(family, type, help, sample_name, labels, value, epoch)``, or ``series(...)`` once
    and ``add_snapshot(epoch, [(series, value), ...])`` for many samples at one time;
    ``close(path)`` writes the file. Use as a context manager so the spool directory is always
    removed. Lines are buffered per series and spooled in bulk: at most ``FLUSH_LINES`` are
    held in memory, whatever the number of series or samples."""

    FLUSH_LINES = 20_000

    def __init__(self):
        self._dir = tempfile.mkdtemp(prefix="aix-exporter-om-")
        self._families: dict = {}   # family -> (type, help, [Series in first-seen order])
        self._series: dict = {}     # (sample name, label items) -> Series
        self._held = 0
        self.samples = 0
        self.dropped = 0
        self.first = None
        self.last = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.discard()

    def series(self, family: str, typ: str, help_: str, sample_name: str, labels: dict) -> Series:
        cache_key = (sample_name, tuple(labels.items()))
        s = self._series.get(cache_key)
        if s is None:
            s = Series(sample_name + fmt_labels(labels), os.path.join(self._dir, f"s{len(self._series)}"))
            self._series[cache_key] = s
            self._families.setdefault(family, (typ, help_, []))[2].append(s)
        return s

    def add(self, family: str, typ: str, help_: str, sample_name: str, labels: dict, value: float, epoch: float):
        self.add_snapshot(epoch, ((self.series(family, typ, help_, sample_name, labels), value),))

    def add_snapshot(self, epoch: float, pairs) -> int:
        """Samples of many series at one time; returns how many were written (a sample at or
        before its series' last timestamp is dropped and counted)."""
        stamp = f" {epoch:.3f}\n"
        n = 0
        for s, value in pairs:
            if epoch <= s.last:
                self.dropped += 1
                continue
            s.last = epoch
            if -1e15 < value < 1e15:   # (fmt_value's commonest case, inline: one call less a sample)
                i = int(value)
                s.lines.append(f"{s.key}{i if i == value else repr(value)}{stamp}")
            else:
                s.lines.append(f"{s.key}{fmt_value(value)}{stamp}")
            n += 1
        if n:
            self.samples += n
            self.first = epoch if self.first is None or epoch < self.first else self.first
            self.last = epoch if self.last is None or epoch > self.last else self.last
            self._held += n
            if self._held >= self.FLUSH_LINES:
                self._spool()
        return n

    # Spool files and the output are written in binary, each series' held lines joined and
    # encoded once, and spools copied as bytes: one write a spool, no decoding on the way back
    # (a month of nmon is 26 MB of lines; the text layer's small writes were 4,000 syscalls)
    def _spool(self):
        for s in self._series.values():
            if s.lines:
                with open(s.path, "ab") as fh:
                    fh.write("".join(s.lines).encode())
                s.lines = []
        self._held = 0

    def close(self, path: str) -> int:
        with open(path, "wb", buffering=_COPY_BYTES) as out:
            for family, (typ, help_, members) in self._families.items():
                out.write(f"# TYPE {family} {typ}\n# HELP {family} {help_}\n".encode())
                for s in members:
                    if os.path.exists(s.path):
                        with open(s.path, "rb") as fh:
                            shutil.copyfileobj(fh, out, _COPY_BYTES)
                    out.write("".join(s.lines).encode())
                    s.lines = []
            out.write(b"# EOF\n")
        self.discard()
        return self.samples

    def discard(self):
        shutil.rmtree(self._dir, ignore_errors=True)


def add_families(writer: Writer, families, epoch: float, target: dict):
    """Every sample of prometheus_client metric families at ``epoch``, with the target labels."""
    for fam in families:
        for s in fam.samples:
            writer.add(fam.name, fam.type, fam.documentation, s.name, {**s.labels, **target}, s.value, epoch)
