"""The collector interface, the metric-family builder and the registry.

A collector turns parsed records into metric families; it is thin by design. Each
collector module declares one class with ``@register``, and the class declares everything
the exporter needs to run it, so neither ``cli/`` nor ``exporter.py`` names a collector:

* ``name``, ``help`` and ``default_enabled`` (``--collector.NAME`` / ``--no-collector.NAME``);
* ``keys``: the command-table keys it reads;
* ``settings_section``: its section of the config file, if any (``self.config``);
* ``configured(settings)``: whether the system source has what it needs (a log file, a
  report directory); an unconfigured collector is not run there;
* ``requires_system``: it reads the running system directly, not through a source;
* ``requires_module``: an optional Python module it needs; when it is not installed the
  collector is disabled at start with one log line naming the metrics then missing;
* ``period()`` and ``max_age()``: when one of its keys is slow on the
  source (a command with an interval), it runs in the background every ``period``
  seconds, and its result is dropped once older than ``max_age``;
* ``no_data()``: the families to serve when the source reports that no monitored
  process runs (``NotRunning``): success, and only these (node_exporter's ErrNoData).

``collect(source)`` returns a list of families or raises (SourceError, ParseError or
anything else), and the exporter marks that collector failed and serves none of its values.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Optional

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from .. import domains
from ..parsers import ParseError

if TYPE_CHECKING:
    from ..config import Settings

_REGISTRY: dict = {}


def register(cls):
    """Class decorator: add a collector to the registry under its name."""
    if not cls.name:
        raise TypeError(f"{cls.__name__} has no name")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise TypeError(f"two collectors are named {cls.name!r}")
    _REGISTRY[cls.name] = cls
    return cls


def registry() -> dict:
    """All collectors by name, in exposition order (the import order of collectors/__init__.py,
    which every import of this module runs first)."""
    return dict(_REGISTRY)


class Families:
    """Small builder: declare a family once, add samples, emit those with samples.

    Labels are bound by name: a sample's label dict must name exactly the family's labels,
    in any order."""

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
        declared = fam._labelnames
        if len(labels) != len(declared) or any(k not in labels for k in declared):
            raise ValueError(f"{name}: labels {sorted(labels)} differ from the family's {sorted(declared)}")
        why = domains.problem(name, value)
        if why is not None:   # an impossible value: the command's output is wrong, the collector fails
            raise ParseError(f"impossible value: {why}")
        values = [str(labels[k]) for k in declared]
        if values and max(map(len, values)) > domains.MAX_LABEL_VALUE:   # no name is that long: the same
            raise ParseError(f"impossible label value in {name}: {domains.label_why(labels)}")
        fam.add_metric(values, float(value))

    def result(self) -> list:
        return [f for f in self._families.values() if f.samples]


class Collector:
    name: str = ""
    keys: tuple = ()
    help: str = ""
    default_enabled: bool = True
    requires_system: bool = False
    requires_module: str = ""          # an optional Python module it needs (absent: disabled, said once)
    metrics: tuple = ()                # what it exports, for that message
    settings_section: Optional[str] = None

    def __init__(self, settings: Settings):
        self.settings = settings   # required: every collector reads its section from the one Settings

    @property
    def config(self):
        """This collector's section of the settings (None for a collector without a section)."""
        if self.settings_section is None:
            return None
        return getattr(self.settings, self.settings_section)

    @classmethod
    def configured(cls, settings) -> bool:
        return True

    def period(self) -> float:
        """Seconds between background runs (used when a key is slow on the source)."""
        return 15.0

    def max_age(self) -> Optional[float]:
        """Seconds after which a background result is no longer served (None: no limit)."""
        return None

    def no_data(self) -> list:
        return []

    def collect(self, source) -> list:  # pragma: no cover - interface
        raise NotImplementedError
