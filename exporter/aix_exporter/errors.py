"""The one error type of the subcommands: a mistake of the user's or of the environment's
(a missing directory, an unreachable or refusing store, an unknown instance, a bad URL, no data
in a window), said once by the command line as ``aix-exporter NAME: message`` on one line.

The libraries' own errors (ReportError, OutputError, StoreError, ...) derive from it as well as
from the built-in type they always were, so a caller that catches RuntimeError or ValueError
still catches them, and cli/ needs one ``except``.
"""
from __future__ import annotations

from typing import Optional


class CommandError(Exception):
    """One line for the user; exit 1."""
    exit_code = 1
    prog: Optional[str] = None   # who says it, when not the subcommand itself (import nmon)


class UsageError(CommandError):
    """The command line itself is wrong (options that do not go together); exit 2, as argparse's."""
    exit_code = 2
