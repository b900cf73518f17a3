"""Collectors: parsed records in, metric families out. Thin by design.

A collector names the source keys it reads; ``collect(source)`` returns a
list of metric families or raises (SourceError / ParseError / anything), in
which case the exporter marks that collector failed and serves none of its
values.
"""
from __future__ import annotations

from typing import Iterable, Optional

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily


class Families:
    """Small builder: declare a family once, add samples, emit those with samples."""

    def __init__(self):
        self._families: dict = {}

    def gauge(self, name: str, help_: str, labels: Iterable[str] = ()) -> GaugeMetricFamily:
        if name not in self._families:
            self._families[name] = GaugeMetricFamily(name, help_, labels=list(labels))
        return self._families[name]

    def counter(self, name: str, help_: str, labels: Iterable[str] = ()) -> CounterMetricFamily:
        if name not in self._families:
            self._families[name] = CounterMetricFamily(name, help_, labels=list(labels))
        return self._families[name]

    def set(self, name: str, help_: str, value, labels: Optional[dict] = None, counter: bool = False):
        labels = labels or {}
        fam = (self.counter if counter else self.gauge)(name, help_, labels.keys())
        fam.add_metric([str(v) for v in labels.values()], float(value))

    def result(self) -> list:
        return [f for f in self._families.values() if f.samples]


class Collector:
    name: str = ""
    keys: tuple = ()
    help: str = ""
    default_enabled: bool = True

    def __init__(self, settings=None):
        self.settings = settings

    def collect(self, source) -> list:  # pragma: no cover - interface
        raise NotImplementedError


def registry() -> dict:
    """All collectors by name, in exposition order."""
    from .cpu import CpuCollector
    from .memory import MemoryCollector
    from .vmo import VmoCollector
    from .vmstat import VmstatCollector
    from .vmstat_counters import VmstatSCollector, VmstatVCollector
    from .process import LdrCntrlCollector, ProcessCollector
    from .splat import SplatCollector
    from .tape import TapeCollector
    from .tsm import TsmCollector
    classes = [VmstatCollector, MemoryCollector, VmoCollector, VmstatVCollector, VmstatSCollector, CpuCollector,
               ProcessCollector, LdrCntrlCollector, SplatCollector, TapeCollector, TsmCollector]
    return {c.name: c for c in classes}
