"""Collectors: parsed records in, metric families out. One module per collector.

The interface, the family builder and the registry are in ``base.py``. Importing a
collector module registers it (``@register``); the imports below are the exposition order.
"""
from .base import Collector, Families, register, registry  # noqa: F401

from . import vmstat, memory, vmo, aso, vmstat_v, vmstat_s, cpu, process, ldr_cntrl, splat, tape, tsm, tsm_server, tsm_checklist, errpt  # noqa: E402,F401,E501
