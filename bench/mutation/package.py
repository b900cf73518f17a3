"""Mutation score of the package (mutmut 2.x), each module against its own tests, by area.

    python3 -m bench.mutation.package [--jobs 2] [--area AREA ...] [--only MODULE ...] [--out FILE]
                              [--sample N [--offset K]]

AREAS names every module of exporter/aix_exporter outside the simulator, by area (parsers,
collectors, importers, tools, report, http, exporter, config); the default is parsers and
collectors, whose survivors are all explained. MODULE is a path below the package without .py
(report/plan, webconfig) or, for parsers and collectors, its bare name. Each module is mutated
by mutmut (`pip install 'mutmut<3'`), and each mutant runs only the test files that import that
module (tests/unit, tests/conformance; found by their imports) and, for parsers and collectors,
the package's shared tests (the fixture records and the corpus conformance for parsers, the
README metrics table for collectors), so the run fits a 2-core machine.
Each job works in its own copy of the tree (mutmut edits the file in place), with
PYTHONPATH pointing at that copy. When the checkout's tests changed while a module ran (tests
written for its survivors), they are copied in and its survivors run again. Prints the score per module and in all, and writes every
surviving mutant (its diff) to --out, each with the reason it is equivalent when
bench/mutation/mutation-equivalent.yml gives one (an entry matches a survivor of its module whose
changed lines contain its text), so the survivors left to kill are the unexplained ones.
--sample N runs one mutant in N, chosen by a hash of its line and index (the same on every run),
and scores those only: an estimate for modules whose tests take too long to run every mutant.
"""
import argparse
import concurrent.futures as cf
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from bench.mutation import HERE, ROOT
PKG = os.path.join(ROOT, "exporter", "aix_exporter")
EQUIVALENT = os.path.join(HERE, "mutation-equivalent.yml")


AREAS = {
    "parsers": ["parsers/*"], "collectors": ["collectors/*"],
    "importers": ["importers/*", "importers/nmon/*"], "tools": ["tools/*"], "report": ["report/*"],
    "http": ["web", "webconfig", "purebcrypt", "landing"],
    "exporter": ["exporter", "commands", "statefile", "logfmt", "redaction", "domains", "httpclient", "files", "outputs",
                 "errors", "promapi", "sources/*"],
    "cli": ["cli/__init__", "cli/*"],
    "config": ["config", "monitoring", "figures"],
}


def area_modules(area):
    out = []
    for pattern in AREAS[area]:
        if pattern.endswith("/*"):
            pkg = pattern[:-2]
            out += [f"{pkg}/{n[:-3]}" for n in sorted(os.listdir(os.path.join(PKG, pkg)))
                    if n.endswith(".py") and n not in ("__init__.py", "__main__.py")]
        else:
            out.append(pattern)
    return out


def picked(mod, only) -> bool:
    """Whether --only MODULE ... takes the module: by its path below the package or, for
    parsers and collectors, its bare name (no --only: every module)."""
    return not only or mod in only or mod.rsplit("/", 1)[-1] in only


def modules(only, areas=("parsers", "collectors")):
    return [mod for area in areas for mod in area_modules(area) if picked(mod, only)]


# Tests of every module of a package, beside those that import it: each fixture's parsed record
# against its JSON and every real corpus sample's values (parsers), and the README metrics
# table, names and HELP texts from every fixture through the collectors (collectors)
SHARED_TESTS = {"parsers": ["tests/unit/test_fixture_records.py", "tests/conformance/test_corpus.py"],
                "collectors": ["tests/unit/test_readme.py"],
                "importers/nmon": ["tests/conformance/test_nmon_corpus.py"]}
# Modules whose behaviour is seen only end to end, with the e2e tests that show it in seconds:
# the HTTP front and its TLS/auth config through a server on a loopback port, the stand-in
# commands through the system source running them
E2E_TESTS = {"web": ["tests/e2e/test_http.py", "tests/e2e/test_tls_auth.py"],
             "webconfig": ["tests/e2e/test_tls_auth.py"],
             "tools/standin": ["tests/e2e/test_golden_system.py"],
             "sources/ssh": ["tests/e2e/test_ssh.py"], "sources/remotelog": ["tests/e2e/test_ssh.py"],
             "targets": ["tests/e2e/test_ssh.py"]}
# Tests that reach a module through the command line rather than an import: every --help text
# against its reviewed copy (tests/golden/help) for the modules that define a command's options
HELP = "tests/unit/test_cli_help.py"
WRONG = "tests/unit/test_wrong_inputs.py"
ALSO_TESTS = {"errors": [WRONG], "tools/importing": [HELP], "tools/simulate": [HELP],
              "cli/__init__": [HELP, WRONG, "tests/unit/test_cli_table.py"],
              **{f"cli/{m}": [HELP, WRONG] for m in ("serve", "simulate", "import_", "report", "plan", "_options")}}
# Tests a module's test files hold that cannot see the module and cost a minute a mutant: the
# report's figures are imported by test_alert_rules, whose promtool run checks only the rules
DESELECT = {"report/compare": ["tests/unit/test_alert_rules.py::test_promtool_check_and_test_rules"]}


def tests_of(mod):
    """Test files that import the module ('parsers.vmstat', 'aix_exporter.report.plan' or
    'from ...parsers import vmstat'), and, for parsers and collectors, the package's shared tests."""
    pkg, _, name = mod.rpartition("/")
    dotted_pkg = ("aix_exporter." + pkg.replace("/", ".")) if pkg else "aix_exporter"
    dotted = re.compile(rf"\b{re.escape(pkg.replace('/', '.'))}\.{name}\b" if pkg else rf"\baix_exporter\.{name}\b")
    listed = re.compile(rf"from {re.escape(dotted_pkg)} import (?:\([^)]*\b{name}\b|[^\n(]*\b{name}\b)")
    found = []
    for d in ("tests/unit", "tests/conformance"):
        for f in sorted(os.listdir(os.path.join(ROOT, d))):
            if f.startswith("test_") and f.endswith(".py"):
                text = open(os.path.join(ROOT, d, f), encoding="utf-8").read()
                if dotted.search(text) or listed.search(text):
                    found.append(f"{d}/{f}")
    if not found and pkg:   # a helper module (dsmadmc, labelled, svmon): the tests of the modules that use it
        use = re.compile(rf"from \.{name} import|from \. import [^\n]*\b{name}\b")
        for f in sorted(os.listdir(os.path.join(PKG, pkg))):
            if f.endswith(".py") and f[:-3] != name and use.search(open(os.path.join(PKG, pkg, f), encoding="utf-8").read()):
                found += [t for t in tests_of(f"{pkg}/{f[:-3]}") if t not in found]
    found += [t for t in ALSO_TESTS.get(mod, []) if t not in found]
    found += [t for t in E2E_TESTS.get(mod, []) if t not in found]
    if "/" in pkg:   # a module of a package that tests import whole (importers.nmon): those tests too
        found += [t for t in tests_of(pkg) if t not in found]
    if not found:
        return []
    found += [t for t in SHARED_TESTS.get(pkg, []) if t not in found]
    # the module's own test files first (test_report_compare.py for report/compare): most
    # mutants are killed there in a second, before the slower files that only use the module
    own = name.replace("/", "_")
    return sorted(found, key=lambda t: (own not in os.path.basename(t) and
                                        pkg.rsplit("/", 1)[-1] + "_" + own not in os.path.basename(t)))


def compact(diff: str) -> str:
    """A mutant as the line it changes and its changed lines: 'L12: - old / + new'."""
    m = re.search(r"^@@ -(\d+)", diff, re.M)
    if not m:
        return diff.strip()
    line = at = int(m.group(1))
    out, found = [], False
    for row in diff[m.end():].split("\n")[1:]:
        if row.startswith(("-", "+")):
            out.append(f"{row[0]} {row[1:].strip()}")
            if row.startswith("-") and not found:
                at, found = line, True
        if not row.startswith("+"):
            line += 1
    return f"L{at}: " + " / ".join(out)


def cache(tree: str, sql: str):
    """Rows of a query of mutmut's cache in ``tree``; None before mutmut made its cache."""
    import sqlite3
    path = os.path.join(tree, ".mutmut-cache")
    if not os.path.exists(path):
        return None
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


def progress(tree: str) -> tuple:
    """(mutants untested, mutants tested against the tests as they are now): either moving is
    progress (a survivor re-tested after the tests changed leaves the first alone); (-1, -1)
    before mutmut made its cache."""
    rows = cache(tree, "select (select count(*) from Mutant where status = 'untested'), (select count(*) from "
                       "Mutant where tested_against_hash = (select value from MiscData where key = 'hash_of_tests'))")
    return rows[0] if rows else (-1, -1)


def untested(tree: str) -> int:
    """Mutants of the cache in ``tree`` not tested yet (-1 before mutmut made its cache)."""
    return progress(tree)[0]


def sync_tests(tree: str) -> bool:
    """Copy the checkout's tests over the tree's when they differ (tests written while the
    module ran); True when they did. mutmut then re-tests only the mutants not killed: it
    takes a killed mutant to stay killed by more tests."""
    import filecmp
    changed = False
    for here, _dirs, files in os.walk(os.path.join(ROOT, "tests")):
        if "__pycache__" in here:
            continue
        there = os.path.join(tree, os.path.relpath(here, ROOT))
        os.makedirs(there, exist_ok=True)
        for f in files:
            a, b = os.path.join(here, f), os.path.join(there, f)
            if not os.path.exists(b) or not filecmp.cmp(a, b, shallow=False):
                shutil.copy2(a, b)
                changed = True
    return changed


def mutmut_until_done(mutmut: str, tree: str, source: str, runner: str, stall: float = 600, restarts: int = 20) -> int:
    """mutmut run in ``tree`` until every mutant is tested; returns how many were left untested.
    mutmut 2.5.1's main process can fail while its worker carries on (recording a status, it
    looks up the line of a file the worker has already mutated again: "Attribute Mutant.line
    is required") and then waits for ever; so the run is watched: on a traceback in its
    output, or no mutant tested for ``stall`` seconds, its process group is ended, the source
    put back as it was, and the run resumed from the cache (a tested mutant is not run again).
    Two restarts in a row without a mutant tested end the run: what is left is reported as
    untested, not scored."""
    pristine = open(os.path.join(tree, source), encoding="utf-8").read()
    log = os.path.join(tree, ".mutmut-run.log")
    idle = 0
    for _ in range(restarts + 1):
        before = untested(tree)
        with open(log, "w") as out:
            proc = subprocess.Popen([mutmut, "run", "--paths-to-mutate", source, "--runner", runner, "--tests-dir",
                                     "tests", "--no-progress"], cwd=tree, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        last, since = progress(tree), time.monotonic()
        while proc.poll() is None:
            time.sleep(5)
            now = progress(tree)
            if now != last:
                last, since = now, time.monotonic()
            failed = "Traceback" in open(log, encoding="utf-8", errors="replace").read()
            if failed or time.monotonic() - since > stall:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
        with open(os.path.join(tree, source), "w", encoding="utf-8") as fh:
            fh.write(pristine)
        left = untested(tree)
        if left == 0:
            return 0
        idle = idle + 1 if left == before else 0
        if idle >= 2:
            return left
    return untested(tree)


# mutmut 2 reads mutmut_config.py from its working directory: with --sample N, a mutant runs
# only when a hash of its line and index falls in the offset's Nth (the same mutants on every
# run and restart); the others are recorded as skipped and not scored
SAMPLE_CONFIG = """import zlib


def pre_mutation(context):
    key = f"{{context.mutation_id.line}}|{{context.mutation_id.index}}".encode()
    if zlib.crc32(key) % {n} != {k}:
        context.skip = True
"""


def copy_tree(work: str) -> str:
    """A copy of the checkout in ``work`` for mutants to be applied in (mutmut and patch edit the
    source in place), with ../shared beside it as beside the checkout; its path."""
    tree = os.path.join(work, "main")
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", "dist", ".mutmut-cache"))
    shared = os.path.join(os.path.dirname(ROOT), "shared")
    if os.path.isdir(shared):
        os.symlink(shared, os.path.join(work, "shared"))
    return tree


def pytest_argv(tree: str, python: str, mod: str, tests: list) -> list:
    """The run of a module's tests in ``tree`` that judges one mutant, through pytest_killed():
    mutmut 2 counts pytest's exit 2 (a test file that no longer imports or collects) as a
    survivor, though every test of the module was lost. ``tests``: tests_of(mod). Run with
    ``tree`` and its exporter on PYTHONPATH, as both callers do."""
    return ([python, "-m", "bench.mutation.package", "--pytest", "-x", "-q", "-p", "no:cacheprovider", "-p",
             "no:randomly", *tests] + [a for t in DESELECT.get(mod, []) for a in ("--deselect", t)])


def run(mod, python, mutmut, sample=1, offset=0):
    tests = tests_of(mod)
    if not tests:
        return mod, 0, 0, [], "no tests import it"
    work = tempfile.mkdtemp(prefix="aix-mutation-")
    try:
        tree = copy_tree(work)
        if sample > 1:
            with open(os.path.join(tree, "mutmut_config.py"), "w", encoding="utf-8") as fh:
                fh.write(SAMPLE_CONFIG.format(n=sample, k=offset))
        runner = f"/usr/bin/env PYTHONPATH={tree}/exporter:{tree} " + " ".join(pytest_argv(tree, python, mod, tests))
        left = mutmut_until_done(mutmut, tree, f"exporter/aix_exporter/{mod}.py", runner)
        while sync_tests(tree):   # tests written for its survivors meanwhile: those survivors again
            left = mutmut_until_done(mutmut, tree, f"exporter/aix_exporter/{mod}.py", runner)
        res = subprocess.run([mutmut, "junitxml"], cwd=tree, capture_output=True, text=True, timeout=600).stdout
        # untested and (outside the sample) skipped mutants are not scored; a timeout is a kill
        left_out = cache(tree, "select count(*) from Mutant where status = 'skipped'")[0][0]
        total = res.count("<testcase ") - left - left_out
        ids = re.findall(r'<testcase[^>]*name="Mutant #(\d+)"[^>]*>\s*<failure', res)
        survivors, lost = [], 0
        for i in ids:
            diff = subprocess.run([mutmut, "show", i], cwd=tree, capture_output=True, text=True, timeout=60).stdout
            if not diff.startswith("---"):   # mutmut 2.5.1 lost the mutant ("Obtained null mutant"): unknown,
                lost += 1                     # not scored
                continue
            survivors.append((i, compact(diff), diff, "survived"))
        total -= lost
        if left:   # left untested when mutmut stopped: kept with their diffs for --rerun
            for (i,) in cache(tree, "select id from Mutant where status = 'untested'"):
                diff = subprocess.run([mutmut, "show", str(i)], cwd=tree, capture_output=True, text=True,
                                      timeout=60).stdout
                if diff.startswith("---"):
                    UNTESTED.append((mod, str(i), compact(diff), diff))
        return mod, total, total - len(survivors), survivors, f"{len(tests)} test files" + (
            f"; {lost} survivors lost by mutmut (no diff), not scored" if lost else "") + (
            f"; {left} mutants left untested (mutmut stopped)" if left else "") + (
            f"; a sample: 1 in {sample} from {offset}, {left_out} outside it" if sample > 1 else "")
    finally:
        shutil.rmtree(work, ignore_errors=True)


UNTESTED: list = []   # (module, id, compact diff, diff) of mutants mutmut left untested


def from_markdown(path: str) -> list:
    """The one-line survivors of a survivors file (--out FILE) as --rerun entries, each made a
    unified diff again from its line number and its old and new text (for runs that wrote no
    FILE.json); a line that moved since is found by its text when the module has it once."""
    out, mod = [], None
    for row in open(path, encoding="utf-8"):
        m = re.match(r"## `([^`]+)`", row)
        if m:
            mod = m.group(1)
            continue
        m = re.match(r"- (\d+) L(\d+): - (.*) / \+ (.*)$", row.rstrip("\n"))
        if not m or " / " in m.group(3) or " / + " in m.group(4) or mod is None:
            continue
        source = f"exporter/aix_exporter/{mod}.py"
        lines = open(os.path.join(ROOT, source), encoding="utf-8").read().split("\n")
        n = int(m.group(2))
        if n > len(lines) or lines[n - 1].strip() != m.group(3):
            # code moved since the run: the same line elsewhere, when it is there once
            at = [k + 1 for k, line in enumerate(lines) if line.strip() == m.group(3)]
            if len(at) != 1:
                continue   # the source changed since: not this mutant any more
            n = at[0]
        old = lines[n - 1]
        new = old[:len(old) - len(old.lstrip())] + m.group(4)
        diff = f"--- {source}\n+++ {source}\n@@ -{n},1 +{n},1 @@\n-{old}\n+{new}\n"
        out.append({"module": mod, "id": m.group(1), "compact": f"L{n}: - {m.group(3)} / + {m.group(4)}",
                    "diff": diff, "status": "survived"})
    return out


def mutants_of(mod: str, known: list) -> list:
    """Every mutant mutmut makes of the module whose changed lines an entry of ``known``
    explains, as --rerun entries (the mutants an equivalence entry speaks for, made again from
    today's source with mutmut's own mutation code, without a whole run)."""
    from mutmut import ALL, Context, RelativeMutationID, mutate
    source_path = f"exporter/aix_exporter/{mod}.py"
    source = open(os.path.join(ROOT, source_path), encoding="utf-8").read()
    context = Context(source=source, filename=source_path, mutation_id=ALL)
    mutate(context)
    out = []
    for n, mid in enumerate(context.performed_mutation_ids):
        one = Context(source=source, filename=source_path, mutation_id=RelativeMutationID(
            filename=source_path, line=mid.line, index=mid.index, line_number=mid.line_number))
        mutated, done = mutate(one)
        if not done:
            continue
        diff = "".join(difflib.unified_diff(source.splitlines(keepends=True), mutated.splitlines(keepends=True),
                                            fromfile=source_path, tofile=source_path))
        change = compact(diff)
        if explain(mod, change, known, set()):
            out.append({"module": mod, "id": str(n + 1), "compact": change, "diff": diff, "status": "survived"})
    return out


def selected(entries: list, known: list, explained: bool) -> list:
    """The entries a rerun runs: the unexplained survivors and the untested mutants, or
    (``explained``) the survivors an entry of ``known`` explains."""
    def why(e):
        return e["status"] != "untested" and explain(e["module"], e["compact"], known, set())
    return [e for e in entries if bool(why(e)) == explained]


def rerun(path: str, python: str, explained: bool = False, jobs: int = 1, only=None) -> list:
    """Run again the mutants a --out file's JSON (FILE.json) lists as unexplained survivors or
    left untested (``explained``: those explained as equivalent instead, to audit
    bench/mutation/mutation-equivalent.yml), against the checkout's tests as they are now: each diff
    applied with patch in one copy of the tree per module, the module's tests run, the diff
    taken back. ``path`` None: every mutant of today's source that an entry explains
    (mutants_of). Returns [(module, id, compact diff, diff, "killed" or "survived")]."""
    import json
    known = equivalents()
    if path is None:
        entries = [e for mod in sorted({k[0] for k in known}) if picked(mod, only) for e in mutants_of(mod, known)]
    else:
        entries = json.load(open(path, encoding="utf-8")) if path.endswith(".json") else from_markdown(path)
    by_mod: dict = {}
    for e in selected(entries, known, explained):
        by_mod.setdefault(e["module"], []).append(e)
    with cf.ThreadPoolExecutor(jobs) as pool:
        return [r for done in pool.map(lambda item: rerun_module(*item, python, known if path is None else None),
                                       by_mod.items()) for r in done]


def rerun_module(mod: str, todo: list, python: str, first_survivor=None) -> list:
    """rerun() of one module's mutants, in a copy of the tree of its own. ``first_survivor``
    (the entries): once a mutant an entry explains survives, the entry's other mutants are not
    run ("entry already true"): the entry holds for today's tests."""
    out, alive = [], set()
    work = tempfile.mkdtemp(prefix="aix-mutation-rerun-")
    try:
        tree = copy_tree(work)
        argv = pytest_argv(tree, python, mod, tests_of(mod))
        env = dict(os.environ, PYTHONPATH=f"{tree}/exporter:{tree}")
        for e in todo:
            entry = set()
            if first_survivor is not None:
                explain(mod, e["compact"], first_survivor, entry)
                if entry <= alive:
                    out.append((mod, e["id"], e["compact"], e["diff"], "entry already true"))
                    continue
            applied = subprocess.run(["/usr/bin/patch", "-p0", "--silent", "--forward", "--no-backup-if-mismatch",
                                      "-r", "-", "-d", tree, "--dry-run"], input=e["diff"], text=True,
                                     capture_output=True, timeout=60).returncode == 0
            if not applied:   # the source changed since the run: this mutant is no more
                print(f"{mod} {e['id']}: source changed: {e['compact']}", flush=True)
                out.append((mod, e["id"], e["compact"], e["diff"], "source changed"))
                continue
            subprocess.run(["/usr/bin/patch", "-p0", "--silent", "-d", tree], input=e["diff"], text=True,
                           check=True, timeout=60)
            try:
                r = subprocess.run(argv, cwd=tree, env=env, capture_output=True, timeout=1800)
                verdict = "killed" if r.returncode else "survived"
            except subprocess.TimeoutExpired:
                verdict = "killed"   # (as mutmut counts a timeout)
            subprocess.run(["/usr/bin/patch", "-p0", "-R", "--silent", "-d", tree], input=e["diff"], text=True,
                           check=True, timeout=60)
            print(f"{mod} {e['id']}: {verdict}: {e['compact']}", flush=True)
            out.append((mod, e["id"], e["compact"], e["diff"], verdict))
            if verdict == "survived":
                alive |= entry
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def equivalents(path=EQUIVALENT) -> list:
    """[(module, text, why)] of the survivors explained as equivalent."""
    import yaml
    with open(path, encoding="utf-8") as fh:
        return [(e["module"], e["mutant"], e["why"]) for e in yaml.safe_load(fh) or []]


def explain(mod: str, change: str, known: list, used: set):
    """The reason a surviving mutant (its compact diff) is equivalent, or None."""
    changed = change.split(": ", 1)[-1]
    for i, (module, text, why) in enumerate(known):
        if module == mod and text in changed:
            used.add(i)
            return why
    return None


def pytest_killed(args) -> int:
    """pytest's verdict on one mutant: 0 when every test passed, else 1 (failed, errors, no
    collection: the mutant is killed in each case)."""
    import pytest
    return 0 if pytest.main(args) == 0 else 1


def audit(path, jobs: int, only=None):
    """--equivalents: the verdict on each explained mutant, and on each entry."""
    done = rerun(None if path == "-" else path, sys.executable, explained=True, jobs=jobs, only=only)
    known, used, alive = equivalents(), set(), set()
    for mod, _, change, _, verdict in done:
        explain(mod, change, known, used)
        if verdict == "survived":
            explain(mod, change, known, alive)
    killed = [d for d in done if d[4] == "killed"]
    changed = sum(1 for d in done if d[4] == "source changed")
    spared = sum(1 for d in done if d[4] == "entry already true")
    print(f"\n{len(done) - spared} explained mutants applied again: {len(done) - len(killed) - changed - spared} still "
          f"survive, {len(killed)} killed by today's tests, {changed} on lines changed since (not run); {spared} more "
          "not run, their entry already explaining a survivor")
    for mod, i, change, _, _ in killed:
        print(f"- killed: {mod} {i} {change}: entry {explain(mod, change, known, set())!r}")
    if path == "-":
        mine = [i for i, k in enumerate(known) if picked(k[0], only)]
        print(f"{len(mine)} entries: {len(alive)} explain a mutant that survives, "
              f"{len(used - alive)} only mutants today's tests kill, {len(mine) - len(used)} no mutant at all")
        for i in mine:
            module, text, _ = known[i]
            if i not in alive:
                print(f"- entry to remove ({'killed' if i in used else 'no mutant'}): {module}: {text!r}")


def main():
    if sys.argv[1:2] == ["--pytest"]:
        sys.exit(pytest_killed(sys.argv[2:]))
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--area", nargs="*", choices=sorted(AREAS), default=["parsers", "collectors"])
    ap.add_argument("--out", default=os.path.join(HERE, "mutation-survivors.md"))
    ap.add_argument("--rerun", metavar="FILE", help="run only the unexplained survivors (and untested mutants) a "
                                                     "run's FILE.json, or one-line survivors its FILE, lists, against "
                                                     "the tests as they are now")
    ap.add_argument("--sample", type=int, default=1, help="run one mutant in N (by a hash of its line), not all")
    ap.add_argument("--offset", type=int, default=0, help="with --sample N: which of the N samples (0..N-1)")
    ap.add_argument("--equivalents", metavar="FILE", nargs="?", const="-",
                    help="audit bench/mutation/mutation-equivalent.yml: run again the one-line survivors FILE lists that an "
                         "entry explains (no FILE: every mutant of today's source an entry explains), and list "
                         "those today's tests kill and the entries no mutant matches (the entries to remove)")
    args = ap.parse_args()
    if args.equivalents:
        return audit(args.equivalents, args.jobs, args.only)
    if args.rerun:
        done = rerun(args.rerun, sys.executable, jobs=args.jobs)
        left = [d for d in done if d[4] == "survived"]
        changed = sum(1 for d in done if d[4] == "source changed")
        print(f"\n{len(done) - len(left) - changed} of {len(done) - changed} killed ({changed} on lines changed "
              "since, not run); still alive:")
        for mod, i, change, _, _ in left:
            print(f"- {mod} {i} {change}")
        return
    mutmut = shutil.which("mutmut") or os.path.join(os.path.dirname(sys.executable), "mutmut")
    if not os.path.exists(mutmut):
        sys.exit("needs mutmut 2.x: pip install 'mutmut<3'")
    results = []
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        for r in pool.map(lambda m: run(m, sys.executable, mutmut, args.sample, args.offset),
                                modules(args.only, args.area)):
            results.append(r)
            print(f"{r[0]}: {r[2]}/{r[1]} killed ({r[4]})", flush=True)
    total = sum(r[1] for r in results)
    killed = sum(r[2] for r in results)
    known, used = equivalents(), set()
    explained = {(mod, i): explain(mod, change, known, used) for mod, _, _, survivors, _ in results
                 for i, change, _, _ in survivors}
    print("\n| module | mutants | killed | score | equivalent | unexplained |")
    print("|---|---|---|---|---|---|")
    for mod, t, k, survivors, note in results:
        eq = sum(1 for i, *_ in survivors if explained[(mod, i)])
        print(f"| `{mod}` | {t} | {k} | {100 * k / t:.0f} % | {eq} | {len(survivors) - eq} |" if t
              else f"| `{mod}` | 0 | - | {note} | | |")
    eq = sum(1 for why in explained.values() if why)
    print(f"| **all** | {total} | {killed} | **{100 * killed / max(total, 1):.1f} %** | {eq} | "
          f"{total - killed - eq} |")
    ran = {r[0] for r in results}
    stale = [known[i] for i in range(len(known)) if i not in used and known[i][0] in ran]
    for module, text, _ in stale:
        print(f"equivalence entry matches no survivor (stale?): {module}: {text}")
    import json
    with open(args.out + ".json", "w", encoding="utf-8") as fh:   # the diffs, for --rerun
        json.dump([{"module": mod, "id": i, "compact": change, "diff": diff, "status": "survived"}
                   for mod, _, _, survivors, _ in results for i, change, diff, _ in survivors]
                  + [{"module": mod, "id": i, "compact": change, "diff": diff, "status": "untested"}
                     for mod, i, change, diff in UNTESTED], fh, indent=1)
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write("# Surviving mutants (written by bench/mutation/package.py)\n\n"
                 "Each survivor with its line; 'equivalent:' gives the reason from bench/mutation/mutation-equivalent.yml, "
                 "**unexplained** marks one a test should kill.\n\n")
        for mod, t, _k, survivors, _ in results:
            if survivors:
                fh.write(f"## `{mod}`: {len(survivors)} of {t} survived\n\n")
                for i, change, _, _ in survivors:
                    why = explained[(mod, i)]
                    fh.write(f"- {i} {change}\n  - {'equivalent: ' + why if why else '**unexplained**'}\n")
                fh.write("\n")


if __name__ == "__main__":
    main()
