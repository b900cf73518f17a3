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


def fmt_value(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def fmt_labels(labels: dict) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{_esc(str(v))}"' for k, v in sorted(labels.items())) + "}"


class Writer:
    """``add(family, type, help, sample_name, labels, value, epoch)``; ``close(path)`` writes
    the file. Use as a context manager so the spool directory is always removed."""

    MAX_OPEN = 256   # spool files kept open at once; others are reopened for append

    def __init__(self):
        self._dir = tempfile.mkdtemp(prefix="aix-exporter-om-")
        self._families: dict = {}   # family -> (type, help, [series keys in first-seen order])
        self._series: dict = {}     # series key -> [spool path, last epoch]
        self._open: dict = {}       # series key -> file object (bounded)
        self._keys: dict = {}       # (sample name, label items) -> series key: formatted once
        self.samples = 0
        self.dropped = 0
        self.first = None
        self.last = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.discard()

    def add(self, family: str, typ: str, help_: str, sample_name: str, labels: dict, value: float, epoch: float):
        cache_key = (sample_name, tuple(labels.items()))
        line_key = self._keys.get(cache_key)
        if line_key is None:
            line_key = self._keys[cache_key] = sample_name + fmt_labels(labels)
        entry = self._series.get(line_key)
        if entry is None:
            fam = self._families.setdefault(family, (typ, help_, []))
            fam[2].append(line_key)
            entry = self._series[line_key] = [os.path.join(self._dir, f"s{len(self._series)}"), None]
        if entry[1] is not None and epoch <= entry[1]:
            self.dropped += 1
            return
        entry[1] = epoch
        fh = self._open.get(line_key)
        if fh is None:
            if len(self._open) >= self.MAX_OPEN:
                self._open.pop(next(iter(self._open))).close()
            fh = self._open[line_key] = open(entry[0], "a", encoding="utf-8")
        fh.write(f"{line_key} {fmt_value(value)} {epoch:.3f}\n")
        self.samples += 1
        self.first = epoch if self.first is None else min(self.first, epoch)
        self.last = epoch if self.last is None else max(self.last, epoch)

    def close(self, path: str) -> int:
        for fh in self._open.values():
            fh.close()
        self._open = {}
        with open(path, "w", encoding="utf-8") as out:
            for family, (typ, help_, keys) in self._families.items():
                out.write(f"# TYPE {family} {typ}\n# HELP {family} {help_}\n")
                for key in keys:
                    with open(self._series[key][0], encoding="utf-8") as fh:
                        shutil.copyfileobj(fh, out)
            out.write("# EOF\n")
        self.discard()
        return self.samples

    def discard(self):
        for fh in self._open.values():
            fh.close()
        self._open = {}
        shutil.rmtree(self._dir, ignore_errors=True)


def add_families(writer: Writer, families, epoch: float, target: dict):
    """Every sample of prometheus_client metric families at ``epoch``, with the target labels."""
    for fam in families:
        for s in fam.samples:
            writer.add(fam.name, fam.type, fam.documentation, s.name, {**s.labels, **target}, s.value, epoch)
