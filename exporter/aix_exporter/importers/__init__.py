"""Importers: recordings made without the exporter mapped onto the exporter's own metric names,
so imported history and live data are one series set for the same rules, dashboards and
report. Each is pure (text in, samples out) and provides importers.base.Importer; the command
line, file order, decompression, target labels, summary and sinks are tools/importing.py.
A new format: its module, one line below, and its tests."""
from __future__ import annotations

from . import nmon
from .base import Importer

IMPORTERS: dict = {imp.name: imp for imp in (
    nmon.IMPORTER,
)}

__all__ = ["IMPORTERS", "Importer"]
