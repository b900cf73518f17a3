"""Help texts name only options that exist (report --help once advertised a --since that did
not), and every subcommand answers --help with exit 0."""
import contextlib
import io
import re

import pytest

from aix_exporter import cli
from tests.conftest import ROOT

SUBCOMMANDS = {   # argv -> the options its parser accepts, found by asking argparse itself
    "report": ["report"],
    "import nmon": ["import", "nmon"],
    "simulate": ["simulate"],
    "": [],
}


def help_of(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = cli.main(argv + ["--help"])
        except SystemExit as e:
            code = e.code
    return code, out.getvalue()


OPTION = re.compile(r"(?<![\w-])(--[a-z][\w.-]*)")


def usage_options(text):
    """The options argparse itself lists in the usage (every option the parser accepts)."""
    usage = text.split("\n\n", 1)[0]
    return set(OPTION.findall(usage))


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_help_names_only_options_that_exist(name):
    code, text = help_of(SUBCOMMANDS[name])
    assert code == 0 and text.startswith("usage: ")
    accepted = usage_options(text) | {"--help"}
    if name == "":   # the exporter's own parser (its --no-collector.NAME are not in the usage)
        accepted |= set(cli.build_parser()._option_string_actions)   # the epilog shows the subcommands with their own options
        for sub in ("report", "import nmon", "simulate"):
            accepted |= usage_options(help_of(SUBCOMMANDS[sub])[1])
        accepted |= {"--collector.NAME", "--no-collector.NAME"}   # the epilog's pattern for them
    prose = re.sub(r"`[^`]*`", "", text)   # a quoted command of another tool names its own options
    assert set(OPTION.findall(prose)) - accepted == set(), f"{name or 'aix-exporter'} --help names options that do not exist"


def test_import_help_lists_the_formats_and_exits_0():
    code, text = help_of(["import"])
    assert code == 0
    assert text.splitlines()[0] == "usage: aix-exporter import FORMAT [options] FILE..."
    assert "nmon   topas_nmon / nmon recordings (aix-exporter import nmon --help)" in text


def test_report_format_follows_the_out_files_extension(monkeypatch):
    """Issue 30: --format is inferred from --out (x.csv is CSV) unless given."""
    from aix_exporter.report import cli
    seen = {}

    def fake_compare(args, prom, end, lookback, progress):
        seen["format"] = args.format
        raise cli.ReportError("stop here")
    monkeypatch.setattr(cli, "_compare", fake_compare)
    for out, extra, want in (("r.csv", [], "csv"), ("r.md", [], "markdown"), ("r.HTML", [], "html"),
                             ("report", [], "html"), ("r.csv", ["--format", "markdown"], "markdown")):
        assert cli.main(["--prometheus", "http://127.0.0.1:9", "--instance", "a:1", "--auto", "--out", out, *extra]) == 1
        assert seen.pop("format") == want, out


GOLDEN_HELP = ROOT / "tests" / "golden" / "help"
HELPS = {"aix-exporter": [], "report": ["report"], "plan": ["plan"], "import": ["import"],
         "import-nmon": ["import", "nmon"], "simulate": ["simulate"]}


@pytest.mark.parametrize("name", HELPS)
def test_each_help_text_is_the_reviewed_one(name, monkeypatch):
    """What an admin reads with --help, word for word as reviewed (tests/golden/help/): a
    changed default, a dropped sentence or a wrong unit in a help line shows here. After a
    deliberate change: UPDATE_GOLDEN=1 python -m pytest tests/unit/test_cli_help.py,
    then review the diff."""
    import os
    monkeypatch.setenv("COLUMNS", "100")          # argparse wraps at the terminal's width
    code, text = help_of(HELPS[name])
    assert code == 0
    path = GOLDEN_HELP / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert text == path.read_text()
