"""The metrics table of docs/metrics.md, generated from what the exporter really emits.

    .venv/bin/python -m tests.metricsdoc              # prints the table (simulator + fixture replay)
    .venv/bin/python -m tests.metricsdoc collectors   # the Collectors table of docs/configuration.md

tests/unit/test_readme.py fails when the docs' tables differ from this output.
"""
from __future__ import annotations

import os
import sys

from aix_exporter.collectors import registry
from aix_exporter.config import Settings
from aix_exporter.exporter import Exporter

_TEMP_DIRS: list = []   # the replay directories made for the sources below


def emitted(sources) -> dict:
    """{name: (type, labels, help, collector)} over every collector and source given."""
    out: dict = {}
    s = Settings()
    for src in sources:
        for name, cls in registry().items():
            if getattr(cls, "requires_system", False):
                continue
            e = Exporter(src, [cls(s)])
            e.collect_all()
            for fam in e.families():
                collector = "self" if fam.name.startswith("aix_exporter_") else name
                for smp in fam.samples:
                    entry = out.setdefault(smp.name, [fam.type, set(), fam.documentation, collector])
                    entry[1].update(smp.labels)
    from aix_exporter.collectors.cpu import CpuCollector   # system-only: listed from its declaration
    out["aix_cpu_seconds_total"] = ["counter", {"mode"}, "CPU time spent in each mode since boot (psutil).", CpuCollector.name]
    from aix_exporter.targets import probe_families   # /probe?target= only
    for fam in probe_families(True, 0.0):
        out[fam.name] = [fam.type, set(), fam.documentation, "self"]
    from aix_exporter.exporter import cost_families   # a command's costs: samples only once a command ran
    for fam in cost_families():
        if fam.name.startswith("aix_exporter_command_"):
            out[fam.name + "_total"] = [fam.type, {"command"}, fam.documentation, "self"]
    return out


def default_sources(fixture_dir=None):
    """The simulator's scenarios; the replay directory ``fixture_dir`` (a whole LPAR); and, when
    it sits in the fixtures tree (tests/fixtures/replay/NAME), every fixture of every command
    (tests/fixtures/<key>/*.txt), each replayed in place of that command's file of
    ``fixture_dir``: so the table lists every metric some real-format output gives."""
    from aix_exporter.sources.replay import ReplaySource
    from aix_exporter.sources.simulate import SimulatedSource
    from aix_exporter.simulate.scenarios import SCENARIOS
    srcs: list = []
    for sc in sorted(SCENARIOS):
        src = SimulatedSource(sc)
        src.set_time(3600)
        srcs.append(src)
    if fixture_dir and os.path.isdir(fixture_dir):
        srcs.append(ReplaySource(fixture_dir))
        srcs.extend(_each_fixture(fixture_dir))
    return srcs


def _each_fixture(base: str) -> list:
    import shutil
    import tempfile
    from aix_exporter.commands import COMMANDS
    from aix_exporter.sources.replay import ReplaySource
    root = os.path.dirname(os.path.dirname(os.path.abspath(base)))   # tests/fixtures
    out = []
    for key in COMMANDS:
        folder = os.path.join(root, key)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".txt"):
                continue
            tmp = tempfile.TemporaryDirectory(prefix="aix-metricsdoc-")
            for f in os.listdir(base):
                shutil.copy(os.path.join(base, f), tmp.name)
            shutil.copy(os.path.join(folder, name), os.path.join(tmp.name, f"{key}.txt"))
            src = ReplaySource(tmp.name)
            _TEMP_DIRS.append(tmp)   # removed when the process ends
            out.append(src)
    return out


def table(entries: dict) -> str:
    rows = ["| metric | type | labels | collector | meaning |", "|---|---|---|---|---|"]
    for name in sorted(entries):
        typ, labels, help_, collector = entries[name]
        lab = ", ".join(f"`{l}`" for l in sorted(labels)) or ""
        rows.append(f"| `{name}` | {typ} | {lab} | {collector} | {help_.replace('|', '/')} |")
    return "\n".join(rows) + "\n"


def _when(cls) -> str:
    """When a collector runs with the default settings (cli.selected_collectors' rules)."""
    if not cls.default_enabled:
        return f"off unless `--collector.{cls.name}`"
    parts = []
    if cls.requires_module:
        parts.append(f"when the Python module `{cls.requires_module}` is installed")
    if cls.requires_system:
        parts.append("with `--source system` only")
    if not cls.configured(Settings()):
        parts.append(f"on AIX once its `{cls.settings_section}:` section says what to read; always with replay and simulate")
    return "; ".join(parts) or "always"


def collectors_table() -> str:
    """The Collectors table (docs/configuration.md): every registered collector, the commands it reads,
    what it reports, its config-file section and when it runs."""
    from aix_exporter.commands import COMMANDS
    rows = ["| collector | reads | what it reports | config section | runs |", "|---|---|---|---|---|"]
    for name, cls in registry().items():
        reads = ", ".join(COMMANDS[k].title if k in COMMANDS else f"`{k}`" for k in cls.keys) or "the system (not a command)"
        section = f"`{cls.settings_section}`" if cls.settings_section else "-"
        rows.append(f"| `{name}` | {reads} | {cls.help} | {section} | {_when(cls)} |")
    return "\n".join(rows) + "\n"


def main() -> int:
    if sys.argv[1:] == ["collectors"]:
        sys.stdout.write(collectors_table())
        return 0
    here = os.path.dirname(os.path.abspath(__file__))
    fixtures = os.path.join(here, "fixtures", "replay", "tsm-lpar")
    sys.stdout.write(table(emitted(default_sources(fixtures))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
