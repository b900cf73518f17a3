"""The ways in: one table of subcommands, one module each, one error path.

Every subcommand is a module of this package with

    add_arguments(p)      its options, on the argparse parser the table made for it
    run(args) -> int      the work; a user's or the environment's mistake is raised as
                          errors.CommandError (UsageError for options that do not go together)

and one row in COMMANDS below (its module, its usage line(s) and a summary for the top-level help,
which is made from the table alone: it imports no subcommand). main() parses, runs, and says any CommandError once, as
``aix-exporter NAME: message`` on one line, exit 1 (2 for usage). Adding a subcommand is one
module, one row and its help golden (tests/unit/test_cli_table.py fails without the row).
"""
from __future__ import annotations

import argparse
import importlib
import sys
import textwrap
from typing import NamedTuple, Optional

from ..errors import CommandError, UsageError


class Command(NamedTuple):
    module: str        # the module of this package
    summary: str       # one line for the top-level help
    prog: str          # the name in its usage and its error lines
    synopsis: str      # its usage line(s) in the top-level help


COMMANDS = {
    "serve": Command(
        "serve", "serve this LPAR's metrics over HTTP (the default subcommand: its options are the ones above)",
        "aix-exporter", "aix-exporter [serve] [options above]"),
    "simulate": Command(
        "simulate", "a replay directory or an OpenMetrics history from the simulator", "aix-exporter simulate",
        "aix-exporter simulate --scenario S (--out DIR | --openmetrics FILE)"),
    "import": Command(
        "import_", "recordings (nmon) as Prometheus history on the exporter's metric names", "aix-exporter import",
        "aix-exporter import nmon [--tz ZONE] (--out HISTORY.om | --tsdb DIR [--rules FILE] | --store URL) FILE..."),
    "report": Command(
        "report", "a before/after report of one LPAR (HTML, Markdown or CSV), or with --census every LPAR ranked",
        "aix-exporter report",
        "aix-exporter report (--prometheus URL | --tsdb DIR) --instance INST (--auto | --before A..B --after C..D)\n"
        "                    --out F\n"
        "aix-exporter report (--prometheus URL | --tsdb DIR) --census --out F.md|F.csv"),
    "plan": Command(
        "plan", "the 16 MB large-page change of one LPAR: evidence, sizing, memory check, restart pre-flight, "
        "commands, rollback, verification", "aix-exporter plan",
        "aix-exporter plan (--prometheus URL | --tsdb DIR) --instance INST [--at TIME] [--out PLAN.md]"),
}
DEFAULT = "serve"


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help text wrapped at spaces only: a flag such as --no-collector.memory stays whole."""

    def _split_lines(self, text, width):
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False, break_long_words=False)


def module(name: str):
    return importlib.import_module(f"{__name__}.{COMMANDS[name].module}")


def subcommands_epilog() -> str:
    """The top-level help's list of subcommands, from the table: each one's synopsis and summary."""
    lines = ["subcommands:"]
    for name, row in COMMANDS.items():
        for synopsis in row.synopsis.splitlines():
            lines.append("  " + synopsis)
        for part in textwrap.wrap(row.summary, 76):
            lines.append(" " * 24 + part)
        if name != DEFAULT:
            lines.append(" " * 24 + f"({row.prog} --help)")
    return "\n".join(lines)


def parser(name: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``name``: its module's docstring as description, its options."""
    mod = module(name)
    p = argparse.ArgumentParser(prog=COMMANDS[name].prog, description=mod.__doc__,
                                formatter_class=getattr(mod, "FORMATTER", argparse.RawDescriptionHelpFormatter),
                                **getattr(mod, "PARSER_OPTIONS", {}))
    mod.add_arguments(p)
    return p


def split(argv: list) -> tuple:
    """(subcommand, its arguments): the first argument when it names one, else the default."""
    if argv and argv[0] in COMMANDS:
        return argv[0], argv[1:]
    return DEFAULT, argv


def unknown_command(word: str) -> Optional[str]:
    """The line for a first argument that is a word but no subcommand (a typo such as
    ``reprot``), or None for an option, an @file or a subcommand."""
    if not word or word.startswith(("-", "@")) or word in COMMANDS:
        return None
    import difflib
    near = difflib.get_close_matches(word, list(COMMANDS), n=1)
    return (f"aix-exporter: unknown command {word!r}" + (f" (did you mean {near[0]}?)" if near else "")
            + f"; the commands: {', '.join(COMMANDS)} (aix-exporter --help)")


def main(argv: Optional[list] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    wrong = unknown_command(argv[0]) if argv else None
    if wrong:
        print(wrong, file=sys.stderr)
        return 2
    name, rest = split(argv)
    mod, p = module(name), parser(name)
    # a subcommand with subcommands of its own (import FORMAT) takes its arguments as they are
    args = argparse.Namespace(argv=rest) if getattr(mod, "PASS_THROUGH", False) else p.parse_args(rest)
    try:
        return mod.run(args)
    except UsageError as e:          # as argparse says its own: the usage, the reason, exit 2
        p.error(str(e))
    except CommandError as e:
        print(f"{e.prog or COMMANDS[name].prog}: {e}", file=sys.stderr)
        return e.exit_code
    except OSError as e:             # the environment's: a disk full, a file that went away
        print(f"{COMMANDS[name].prog}: {e.filename + ': ' if e.filename else ''}{e.strerror or e}", file=sys.stderr)
        return 1
    return 2   # (p.error does not return)
