"""The houses of bench/ (issue 61, item 3): bench/perf's table names each benchmark once, with
the commands that made its figures and the RESULTS sections they feed; its one runner lists
them and runs one; bench/mutation holds the mutation tools and their files; the benches import
the test helpers and the tests never import a bench (but the tests of the bench tools
themselves: this file and test_mutation_bench.py)."""
import ast
import re

import pytest

from bench.perf import __main__ as runner
from tests.lib import ROOT

PERF = ROOT / "bench" / "perf"
INFRA = {"__init__.py", "__main__.py", "common.py"}


def _sections(path) -> dict:
    """{heading text: the text below it, to the next heading}."""
    out, name = {}, None
    for line in path.read_text().splitlines():
        m = re.match(r"#{2,4} (.+)", line)
        if m:
            name = m.group(1).strip()
            out[name] = ""
        elif name:
            out[name] += line + "\n"
    return out


def test_every_bench_has_one_row_and_every_row_a_bench_with_a_main():
    rows = runner.table()
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names)), names
    modules = sorted(p.stem for p in PERF.glob("*.py") if p.name not in INFRA)
    assert sorted(names) == modules
    for name in names:
        tree = ast.parse((PERF / f"{name}.py").read_text())
        assert any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in tree.body), name
        # the runner is the one way in: no bench runs itself or patches the import path
        text = (PERF / f"{name}.py").read_text()
        assert '__name__ == "__main__"' not in text and "sys.path.insert" not in text, name


def test_each_run_names_its_bench_and_is_written_in_the_section_it_feeds():
    sections = _sections(PERF / "RESULTS.md")
    for row in runner.table():
        assert row["what"] and row["runs"], row["name"]
        for run in row["runs"]:
            command = run["command"]
            assert re.fullmatch(r"(PATH=\S+ )?(python3|\.venv/bin/python|/usr/bin/python3) -m bench\.perf "
                                + row["name"] + r"( .*)?", command), command
            assert run["section"] in sections, f"{row['name']}: no section {run['section']!r} in RESULTS.md"
            assert command in sections[run["section"]], f"{command!r} is not in the section {run['section']!r}"


def test_the_runner_lists_the_table_and_runs_one_bench(capsys):
    assert runner.main([]) == 0
    listing = capsys.readouterr().out
    for row in runner.table():
        assert f"\n{row['name']}: {row['what']}\n" in listing
        for run in row["runs"]:
            assert f"    {run['command']}\n        -> RESULTS.md: {run['section']}" in listing
    # a real run, through the runner to the bench's main() and its own options
    assert runner.main(["tsm_checklist_cost", "--scenario", "case-study"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"per interval \(300 s\): 8 dsmadmc runs, \d+ bytes; per hour: 96 runs", out), out


def test_an_unknown_bench_is_refused_with_the_way_to_the_list(capsys):
    assert runner.main(["scrape_latencyy"]) == 2
    assert capsys.readouterr().err == ("bench.perf: no bench named 'scrape_latencyy'; "
                                       "`python3 -m bench.perf` lists them\n")


def test_a_bench_s_options_are_its_own(capsys):
    with pytest.raises(SystemExit) as e:
        runner.main(["load", "--help"])
    assert e.value.code == 0
    assert capsys.readouterr().out.startswith("usage: python3 -m bench.perf load [-h] [--clients CLIENTS]")


def test_the_mutation_tools_and_their_files_live_in_bench_mutation():
    here = ROOT / "bench" / "mutation"
    assert sorted(p.name for p in here.glob("*.py")) == ["__init__.py", "dashboards.py", "package.py", "rules.py",
                                                          "thresholds.py"]
    from bench.mutation import package, rules
    assert package.EQUIVALENT == str(here / "mutation-equivalent.yml") and (here / "mutation-equivalent.yml").is_file()
    assert rules.EQUIVALENT == str(here / "rule-mutation-equivalent.yml") and (here / "rule-mutation-equivalent.yml").is_file()
    assert (here / "RESULTS.md").read_text().startswith("# Mutation results\n")
    # bench/ holds the two houses and nothing loose
    assert sorted(p.name for p in (ROOT / "bench").iterdir() if p.name != "__pycache__") == [
        "__init__.py", "mutation", "perf"]


def test_the_tests_never_import_a_bench_but_the_bench_tools_own_tests():
    importers = []
    for path in (ROOT / "tests").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                    else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(m == "bench" or m.startswith("bench.") for m in mods):
                importers.append(path.name)
    assert sorted(set(importers)) == ["test_bench_table.py", "test_mutation_bench.py"]

