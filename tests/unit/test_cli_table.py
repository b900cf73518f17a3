"""The subcommand table (cli/__init__.py) is complete, as pip's test_commands.py keeps its
commands_dict: every module of cli/ has its row, every row a module with the three parts, the
top-level help names every subcommand and mode, and every subcommand has its help golden."""
import contextlib
import io
import pkgutil

import pytest

from aix_exporter import cli
from tests.unit.test_cli_help import HELPS


def modules():
    return {m.name for m in pkgutil.iter_modules(cli.__path__) if not m.name.startswith("_")}


def test_every_module_of_cli_has_its_row_and_every_row_its_module():
    assert modules() == {row.module for row in cli.COMMANDS.values()}


@pytest.mark.parametrize("name", cli.COMMANDS)
def test_each_subcommand_has_a_synopsis_its_options_and_its_work(name):
    mod = cli.module(name)
    assert cli.COMMANDS[name].synopsis.startswith("aix-exporter ") and callable(mod.add_arguments) and callable(mod.run)
    assert mod.__doc__ and cli.COMMANDS[name].summary
    assert cli.parser(name).prog == cli.COMMANDS[name].prog


def top_help():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.main(["--help"])
    return out.getvalue()


def test_the_top_level_help_is_the_tables():
    text = top_help().split("\nsubcommands:\n", 1)[1]
    for row in cli.COMMANDS.values():
        for line in row.synopsis.splitlines():
            assert "  " + line in text, line
        assert " ".join(row.summary.split()) in " ".join(text.split())
    # the modes and sources that the hand-written epilog once left out
    assert "report (--prometheus URL | --tsdb DIR) --census" in text
    assert "plan (--prometheus URL | --tsdb DIR)" in text


def test_the_top_level_help_imports_no_subcommand():
    """The exporter's own start builds its parser, help included: it must not import the report
    (its figures, its query client) or the importers (issue 46: the .pyz failed at start)."""
    import subprocess
    import sys
    from tests.lib.processes import env
    code = ("import sys; from aix_exporter.cli import serve, parser; parser('serve'); "
            "print(sorted(m for m in sys.modules if m.startswith('aix_exporter.cli.')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env(), timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "['aix_exporter.cli.serve']", r.stdout + r.stderr


def test_a_subcommand_is_what_its_first_argument_names_else_serve():
    assert cli.split(["report", "--x"]) == ("report", ["--x"])
    assert cli.split(["serve", "--once"]) == ("serve", ["--once"])
    assert cli.split(["--once"]) == ("serve", ["--once"])
    assert cli.split([]) == ("serve", [])


def test_every_subcommand_has_its_help_golden():
    named = {argv[0] for argv in HELPS.values() if argv}
    assert named | {cli.DEFAULT} == set(cli.COMMANDS)


def test_no_function_of_the_ways_in_is_over_100_lines():
    """Issue 46: five of the 15 longest functions were command-line code; cli, report and tools
    keep every function under 100 lines."""
    import ast
    from tests.lib import ROOT
    long = []
    for folder in ("cli", "report", "tools"):
        for path in sorted((ROOT / "exporter" / "aix_exporter" / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 100:
                    long.append(f"{folder}/{path.name}:{node.name}")
    assert long == []


@pytest.mark.parametrize("word, line", [
    ("reprot", "aix-exporter: unknown command 'reprot' (did you mean report?); the commands: serve, simulate, import, "
               "report, plan (aix-exporter --help)"),
    ("xyz", "aix-exporter: unknown command 'xyz'; the commands: serve, simulate, import, report, plan "
            "(aix-exporter --help)"),
])
def test_a_mistyped_command_gets_one_line_not_the_whole_usage(word, line, capsys):
    """Issue 58, item 7: `aix-exporter reprot` printed the exporter's whole usage."""
    from aix_exporter.cli import main
    assert main([word, "--prometheus", "http://x"]) == 2
    assert capsys.readouterr().err == line + "\n"
