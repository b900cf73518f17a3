"""What the TSM checklist asks of the server each interval (issue 59, item 7): the dsmadmc
queries its collectors run once every tsm.checklist_interval_seconds, and the bytes each answer
holds, measured against the simulator's server.

    .venv/bin/python -m bench.perf tsm_checklist_cost [--scenario case-study] [--at 21600]

Prints one line per query (the command table's key, its select, the answer's bytes and rows) and
the totals per interval and per hour at the default interval.
"""
import argparse

from aix_exporter.collectors.base import registry
from aix_exporter.commands import COMMANDS
from aix_exporter.config import Settings
from aix_exporter.sources.simulate import SimulatedSource


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="case-study")
    ap.add_argument("--at", type=float, default=6 * 3600.0)
    a = ap.parse_args()
    settings = Settings()
    keys = [k for name in ("tsm_checklist", "tsm_storage", "tsm_health") for k in registry()[name].keys]
    src = SimulatedSource(f"{a.scenario}?seed=1", settings)
    src.set_time(a.at)
    total = 0
    for key in keys:
        text = src.read(key)
        total += len(text.encode())
        print(f"{key:15} {COMMANDS[key].title:34} {len(text.encode()):6d} bytes {len(text.splitlines()):3d} rows")
    interval = settings.tsm.checklist_interval_seconds
    print(f"per interval ({interval} s): {len(keys)} dsmadmc runs, {total} bytes; "
          f"per hour: {len(keys) * 3600 // interval} runs, {total * 3600 // interval} bytes")
    return 0

