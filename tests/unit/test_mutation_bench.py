"""bench/mutation/package.py's list of equivalent mutants is well formed and names real modules, and a
survivor is marked by the entry of its own module only."""
from bench.mutation import dashboards as dm
from bench.mutation import package
from bench.mutation import rules as rule_mutation
from tests.lib import ROOT


def test_every_equivalence_entry_names_a_module_a_mutant_and_a_reason():
    bench = package
    known = bench.equivalents()
    assert len(known) >= 50
    for module, text, why in known:
        assert (ROOT / "exporter" / "aix_exporter" / f"{module}.py").is_file(), module
        assert text.strip() and len(why) > 20, (module, text)
    assert len({(m, t) for m, t, _ in known}) == len(known), "duplicate entries"


def test_a_survivor_is_explained_only_by_an_entry_of_its_module():
    bench = package
    known = [("parsers/splat", "lru_cache(maxsize=65)", "a cache size changes speed, never a result")]
    used = set()
    change = "L103: - @lru_cache(maxsize=64) / + @lru_cache(maxsize=65)"
    assert bench.explain("parsers/splat", change, known, used) == "a cache size changes speed, never a result"
    assert used == {0}
    assert bench.explain("parsers/svmon_p", change, known, set()) is None
    # the line number is not part of the match: an entry survives code moving up or down
    assert bench.explain("parsers/splat", "L7: - @lru_cache(maxsize=64) / + @lru_cache(maxsize=65)", known, set())
    assert bench.explain("parsers/splat", "L103: - x = 1 / + x = 2", known, set()) is None


def test_every_module_outside_the_simulator_has_tests_to_run_its_mutants():
    """A module no test file reaches would score 0 of its mutants by default; each must be found:
    a module of a package tested whole (the nmon importer) through the package, the HTTP front with
    the e2e tests that start its server."""
    bench = package
    assert bench.tests_of("importers/nmon/dates") == [
        "tests/unit/test_nmon_dates.py", "tests/unit/test_nmon.py", "tests/unit/test_nmon_mapping.py",
        "tests/unit/test_nmon_records.py", "tests/unit/test_nmon_snapshots.py", "tests/unit/test_domains.py",
        "tests/unit/test_readme.py", "tests/conformance/test_nmon_corpus.py"]
    assert bench.tests_of("web") == [
        "tests/unit/test_web.py", "tests/unit/test_exporter.py", "tests/e2e/test_http.py", "tests/e2e/test_tls_auth.py"]
    assert "tests/e2e/test_tls_auth.py" in bench.tests_of("webconfig")
    missing = [m for a in bench.AREAS if a not in ("parsers", "collectors")
               for m in bench.area_modules(a) if not bench.tests_of(m)]
    assert missing == [], missing


def test_a_rerun_takes_only_the_survivors_marked_unexplained(tmp_path):
    rules = rule_mutation
    f = tmp_path / "s.md"
    f.write_text("# Surviving rule mutants\n\n"
                 "- alerts/alerts.libsonnet:15:19: max by -> min by at `max by (instance, job) (x`\n"
                 "  - equivalent: one series per LPAR\n"
                 "- alerts/alerts.libsonnet:89:23: 0 -> 1 at `0 and %s > 0`\n"
                 "  - **unexplained**\n"
                 "- dashboards/src/aix-tape.jsonnet:17:48: rate( -> irate( at `rate(aix_tsm`\n"
                 "  - **unexplained**\n")
    assert rules.unexplained_in(str(f)) == {("alerts/alerts.libsonnet", 89, 23, "0 -> 1"),
                                            ("dashboards/src/aix-tape.jsonnet", 17, 48, "rate( -> irate(")}


def test_a_rerun_runs_the_unexplained_and_an_audit_the_explained():
    bench = package
    known = [("parsers/splat", "lru_cache(maxsize=65)", "a cache size changes speed, never a result")]
    entries = [{"module": "parsers/splat", "compact": "L103: - @lru_cache(maxsize=64) / + @lru_cache(maxsize=65)",
                "status": "survived"},
               {"module": "parsers/splat", "compact": "L7: - x = 1 / + x = 2", "status": "survived"},
               {"module": "parsers/splat", "compact": "L9: - y = 1 / + y = 2", "status": "untested"}]
    assert [e["compact"][:3] for e in bench.selected(entries, known, explained=False)] == ["L7:", "L9:"]
    assert [e["compact"][:4] for e in bench.selected(entries, known, explained=True)] == ["L103"]


def test_a_survivor_whose_line_moved_is_found_by_its_text(tmp_path):
    bench = package
    lines = (ROOT / "exporter" / "aix_exporter" / "parsers" / "splat.py").read_text().split("\n")
    n = next(k + 1 for k, line in enumerate(lines) if line.strip() == "@lru_cache(maxsize=64)")
    f = tmp_path / "s.md"
    f.write_text("## `parsers/splat`: 1 of 1 survived\n\n"
                 "- 88 L1: - @lru_cache(maxsize=64) / + @lru_cache(maxsize=65)\n"
                 "- 89 L1: - no such line / + still no such line\n")
    (entry,) = bench.from_markdown(str(f))
    assert entry["compact"] == f"L{n}: - @lru_cache(maxsize=64) / + @lru_cache(maxsize=65)"
    assert f"@@ -{n},1 +{n},1 @@\n-@lru_cache(maxsize=64)\n+@lru_cache(maxsize=65)\n" in entry["diff"]


def test_an_audit_makes_each_entrys_mutants_from_todays_source_as_diffs_that_apply(tmp_path):
    """--equivalents without a file: the mutants mutmut makes of a module that an entry
    explains, each a diff patch applies to today's source, the last line of a file included
    (tools/tempprom's rmtree in its last `finally`)."""
    import shutil
    import subprocess
    bench = package
    known = [("tools/tempprom", "shutil.rmtree(work, ignore_errors=False)", "a reason long enough to be one")]
    (mutant,) = bench.mutants_of("tools/tempprom", known)
    assert mutant["compact"].endswith(": - shutil.rmtree(work, ignore_errors=True) / "
                                      "+ shutil.rmtree(work, ignore_errors=False)")
    source = "exporter/aix_exporter/tools/tempprom.py"
    (tmp_path / "exporter" / "aix_exporter" / "tools").mkdir(parents=True)
    shutil.copy(ROOT / source, tmp_path / source)
    subprocess.run(["/usr/bin/patch", "-p0", "--silent", "-d", str(tmp_path)], input=mutant["diff"], text=True,
                   check=True, timeout=60)
    assert (tmp_path / source).read_text() == (ROOT / source).read_text().replace(
        "shutil.rmtree(work, ignore_errors=True)", "shutil.rmtree(work, ignore_errors=False)")
    assert bench.mutants_of("tools/tempprom", [("tools/tempprom", "no such text", "a reason long enough")]) == []


def test_a_number_in_a_description_with_a_percent_sign_is_prose():
    """The dashboard mutation run counts a number in prose apart: a description that says
    "above 10 %" is still prose, a string with a format directive (%s, %d) is a query."""
    prose = "    desc='a pin miss ratio above 10 % with 16 MB pages',"
    assert dm.not_meaning(prose, prose.replace("16 MB", "17 MB")) == "prose"
    desc = "    desc='over the last %s, shown between 0 and the pool' % window,"
    assert dm.not_meaning(desc, desc.replace("between 0", "between 1")) == "prose"
    query = "    t('rate(x{%s}[5m]) * 16' % i, 'above 10 %'),"
    assert dm.not_meaning(query, query.replace("* 16", "* 17")) is None
