"""Where a command source's commands run (snmp_exporter's ``scraper``: one interface, a real
implementation per kind, a mock in the tests).

A :class:`Runner` runs an argv with a deadline, standard input and an output cap; reads the
files a source reads (the newest splat report, the activity log's tail); reports what its
commands cost; and closes. Two implement it:

* ``system.LocalRunner``: processes of this host (``--source system``);
* ``ssh.Connection``: channels of one SSH connection to an LPAR (``ssh://USER@HOST``), its
  files read by the helper the forced-command wrapper allows.

``command.CommandSource`` owns everything else, once for both.
"""
from __future__ import annotations

from typing import Optional, Protocol


class Runner(Protocol):
    #: "" for this host, else the LPAR's ``user@host:port`` (the source's name, ssh://...)
    where: str
    #: True when the commands run on this very host
    local: bool

    def run(self, argv: list, timeout: float, stdin: Optional[bytes] = None) -> str:
        """stdout of argv (its executable already under command_root), or SourceError:
        CommandFailed for a non-zero exit, TimedOut past ``timeout``."""
        ...

    def splat_report(self, run_rooted, settings) -> tuple:
        """(text, modification time) of the splat report the settings name (``run_rooted``: the
        source's own run, for a trace window run here)."""
        ...

    def tail_log(self, settings, position) -> tuple:
        """(new complete text since position, new position) of tsm.actlog_file."""
        ...

    def command_costs(self) -> dict:
        """{command name: (CPU seconds or None, wall seconds, runs)} since start."""
        ...

    def close(self) -> None: ...
