"""Help texts name only options that exist (report --help once advertised a --since that did
not), and every subcommand answers --help with exit 0."""
import contextlib
import io
import re

import pytest

from aix_exporter import cli
from aix_exporter.cli import serve
from tests.lib import ROOT

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
        accepted |= set(serve.build_parser()._option_string_actions)   # the epilog shows the subcommands with their own options
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
    from aix_exporter.cli import report
    seen = {}

    def fake_compare(args, prom, end, lookback, progress):
        seen["format"] = args.format
        raise report.ReportError("stop here")
    monkeypatch.setattr(report, "_compare", fake_compare)
    for out, extra, want in (("r.csv", [], "csv"), ("r.md", [], "markdown"), ("r.HTML", [], "html"),
                             ("report", [], "html"), ("r.csv", ["--format", "markdown"], "markdown")):
        assert cli.main(["report", "--prometheus", "http://127.0.0.1:9", "--instance", "a:1", "--auto", "--out", out, *extra]) == 1
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


def test_every_default_a_help_line_states_is_the_options_default():
    """'(default 5; ...)' in a help line is what the option is when not given: a default changed
    in one place and not the other shows here."""
    stated = {}
    for action in serve.build_parser()._actions:
        m = re.search(r"(?:\(|; )default:? ([^;,)]+)", action.help or "")
        if m and action.option_strings:
            stated[action.option_strings[0]] = (m.group(1).strip(), action.default)
    unset = {"--log.file": "stderr"}                     # no value: the help names where it goes instead
    collectors = serve.collector_registry()
    for option in [o for o in stated if o.startswith("--collector.")]:   # enabled or not, as the collector says
        text, _ = stated.pop(option)
        assert text == ("enabled" if collectors[option[len("--collector."):]].default_enabled else "disabled")
    assert len(stated) >= 9
    for option, (text, default) in stated.items():
        value = unset[option] if default is None else f"{default:g}" if isinstance(default, float) else str(default)
        assert text.split()[0] == value, (option, text, default)
    assert {o: t for o, (t, _) in stated.items()} == {
        "--web.listen-address": ":10990", "--web.telemetry-path": "/metrics", "--log.level": "info",
        "--log.file": "stderr", "--log.file.max-bytes": "10485760", "--log.file.backups": "3",
        "--collect.min-interval": "5", "--web.max-scrape-timeout": "60", "--web.max-requests": "40",
        "--web.max-connections": "1024"}


def test_long_flags_are_never_broken_at_any_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    code, text = help_of([])
    assert code == 0
    for name in serve.collector_registry():
        assert f"--no-collector.{name}" in text


def test_arguments_from_a_file_as_the_installers_pass_them(tmp_path):
    import subprocess
    import sys
    from tests.lib.processes import env
    args = tmp_path / "args"
    args.write_text("--web.max-requests\n0\n")
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", f"@{args}", "--check-config"], capture_output=True,
                       text=True, env=env(), timeout=60)
    assert (r.returncode, r.stderr) == (1, "aix-exporter: --web.max-requests must be 1-10000 and --web.max-connections "
                                           "1-1000000\n")


def test_a_collector_left_out_is_said_by_the_aix_exporter_logger(caplog):
    from aix_exporter.config import Settings
    from aix_exporter.sources.replay import ReplaySource
    args = serve.build_parser().parse_args(["--collector.cpu"])
    chosen = serve.selected_collectors(args, Settings(), ReplaySource("."))
    assert "cpu" not in [c.name for c in chosen]
    assert [(r.name, r.getMessage()) for r in caplog.records] == [
        ("aix_exporter", "msg=collector disabled: it needs --source system collector=cpu")]
