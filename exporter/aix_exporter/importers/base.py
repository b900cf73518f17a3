"""What every importer gives the import tool (cli/import_.py, tools/importing.py), and what it gets back.

An importer reads one recording format and maps it onto the live exporter's metric names. It
is pure: a text stream in, snapshots of samples out. Everything around it (the order of the
files, decompression, the target labels, the summary, the OpenMetrics file, Prometheus blocks
and the rule backfill) is written once, in the tool. A new format is one module that provides
an ``Importer``, one line in ``importers/__init__.py`` and its tests.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Iterator, NamedTuple, Optional, Protocol, TextIO

from ..errors import CommandError


class RecordingError(CommandError, ValueError):
    """A recording that cannot be imported as it stands (the message says why and where)."""


class Series(NamedTuple):
    """One imported series, without the target labels: its family (name, type, HELP), the
    sample name (a counter's ends in _total) and its labels as sorted (name, value) pairs.
    Hashable and compared by value: the import tool keeps one output series per distinct
    Series, however the importer builds it."""
    family: str
    type: str
    help: str
    name: str
    labels: tuple


class Sample(NamedTuple):
    series: Series
    value: float


def series(family: str, type_: str, help_: str, labels: Optional[dict] = None, name: str = "") -> Series:
    """A Series with its labels sorted; the sample name defaults to the family's (+ _total for a counter)."""
    return Series(family, type_, help_, name or (family + "_total" if type_ == "counter" else family),
                  tuple(sorted((labels or {}).items())))


class Snapshot(NamedTuple):
    epoch: float     # Unix time of the snapshot
    samples: list    # [Sample]


@dataclass
class Stats:
    """What an import read, skipped and left unmapped; filled by the importer and the tool."""
    files: int = 0
    snapshots: int = 0
    rows_skipped: dict = field(default_factory=dict)        # reason -> count
    sections_unmapped: dict = field(default_factory=dict)   # section -> rows

    def skip(self, reason: str, n: int = 1):
        self.rows_skipped[reason] = self.rows_skipped.get(reason, 0) + n


class Importer(Protocol):
    name: str          # the FORMAT word: aix-exporter import FORMAT
    summary: str       # one line for `aix-exporter import --help`
    usage: str         # the format's own options, for the usage line
    option_defaults: dict   # the format's own options and their defaults (nmon: tz, date_order)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The format's own options on the command line, named as in option_defaults."""

    def first(self, text: TextIO, options: dict) -> tuple:
        """(Unix time of the first snapshot or None, the host it was recorded on or None):
        how the tool orders the files and names the instance. Reads only as far as it needs."""

    def snapshots(self, text: TextIO, options: dict, stats: Stats, state: dict) -> Iterator[Snapshot]:
        """The snapshots of one recording in time order. ``state`` is the same dict for every
        file of one instance, in time order (running counters carry across files)."""

    def unmapped(self, section: str) -> tuple:
        """(the summary's group, e.g. 'DISK*', and why it is not mapped) for a section read but not mapped."""

    def mapping_table(self) -> str:
        """The mapping as docs/nmon-import.md shows it (Markdown)."""
