"""Mutation score of the dashboards' source (dashboards/src/*.jsonnet, dashboards/lib).

    .venv/bin/python -m bench.mutation.dashboards [--only FILE ...] [--sample N [--offset K]] [--jobs 2]
                                                 [--rerun SURVIVORS] [--out bench/mutation/dashboard-mutation-survivors.md]

Each mutant is one change of the jsonnet: the rule mutants' kinds (bench/mutation/rules.py:
comparisons, aggregations, sibling label values, set operators, rate functions, literal numbers)
(but for what not_meaning() names: a panel's position, prose, how a line is drawn; counted
apart) and the dashboards' own: read for written, one comparison window's offset for the other, a unit
for its neighbour (binBps and Bps, percentunit and percent, bytes and decbytes), a scale moved.
The mutated source is compiled as dashboards/build_dashboards.py does, in a copy of the tree;
a mutant whose compiled dashboards come out unchanged, or that does not compile, is counted
apart. The rest run the dashboard tests (tests/unit/test_dashboards.py, test_mixin_config.py,
test_figures.py, test_census.py, tests/e2e/test_dashboard_meaning.py, test_dashboard_queries.py,
test_dashboard_own_figures.py and test_census.py on Prometheus) in that copy, against one
Prometheus holding the backfilled case study with the recording rules, started once here
(AIX_EXPORTER_CASE_STUDY_PROMETHEUS; the last two write their own series); the mutant is
caught when any fails. Prints each outcome as it is known and the score, and writes the survivors to
--out. Needs promtool and prometheus (Debian package prometheus). About 30 s a mutant on 2 cores
(pytest's collection of the e2e modules dominates): ``--sample N`` runs every Nth mutant of the
fixed order (a sample; the score says so), from the Kth (``--offset``, 0 first) so that
samples taken apart cover other mutants. ``--rerun`` runs only the mutants a survivors file
marks unexplained (after new tests).
"""
import argparse
import concurrent.futures as cf
import glob
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import time

from bench.mutation import HERE, ROOT
from bench.mutation import rules as rule_mutation

SWAPS = rule_mutation.SWAPS + [
    ("read_bytes", "written_bytes"), ("written_bytes", "read_bytes"), ("offset $before", "offset $after"),
    ("offset $after", "offset $before"), ("'binBps'", "'Bps'"), ("'percentunit'", "'percent'"),
    ("'bytes'", "'decbytes'"), ("'s'", "'ms'"), ("* 100", "* 10"), ("/ 100", "/ 10"), ("2^20", "2^30"),
    ("/ 1024", "/ 1000"), ("sort_desc(", "sort("), ("topk by", "bottomk by"), ("'{{instance}}'", "'{{job}}'"),
]
TESTS = ["tests/unit/test_dashboards.py", "tests/unit/test_mixin_config.py", "tests/unit/test_figures.py",
         "tests/unit/test_census.py",
         "tests/e2e/test_dashboard_meaning.py", "tests/e2e/test_dashboard_queries.py",
         "tests/e2e/test_dashboard_own_figures.py", "tests/e2e/test_census.py"]


LAYOUT = re.compile(r"\b(?:pos|row)\([^)]*\)")
# a quoted string with no PromQL in it (no selector, no range, no %s to fill, and words): a
# title, heading, legend text or description
PROSE = re.compile(r"'(?:[^'{\[\\]|\\.)*'")
# a jsonnet format directive (%s, %d, %(name)s, %.1f) makes a string a query template, not
# prose, but for a description (desc='... over the last %s ...'); a percent sign in words
# ("above 10 %") does not
FORMAT = re.compile(r"%[-#0-9.]*(?:\([a-zA-Z_]+\))?[sdfgi]")
# how a panel is drawn, not what it shows: line width, fill, tooltip sharing, the built-in
# annotation's switches and colour, a variable's refresh, sort and visibility
COSMETIC = re.compile(r"\b(?:lineWidth|fillOpacity|graphTooltip|builtIn|hide|refresh|sort):\s*[^,}]*|rgba\([^)]*\)"
                      r"|fillOpacity: if stack then \d+ else \d+")


def not_meaning(original: str, mutated: str):
    """Why a mutant changes nothing a test of meaning could see, or None: 'layout' (a literal of
    g.pos(...) or g.row(...): a panel moved or resized into free space is no defect, one moved
    onto another fails tests/unit/test_dashboards.py), 'prose' (a number in a title, heading or
    description) or 'cosmetic' (how a line is drawn)."""
    a, b = original.split("\n"), mutated.split("\n")
    for x, y in zip(a, b):
        if x != y:
            k = next(i for i, (p, q) in enumerate(zip(x, y)) if p != q)
            for why, pattern in (("layout", LAYOUT), ("cosmetic", COSMETIC)):
                if any(m.start() <= k < m.end() for m in pattern.finditer(x)):
                    return why
            if re.match(r"\d", x[k:]) and any(m.start() <= k < m.end() and re.search(r"[A-Za-z]{2}", m.group())
                                              and (not FORMAT.search(m.group()) or x[:m.start()].endswith("desc="))
                                              for m in PROSE.finditer(x)):
                return "prose"
            return None
    return None


def layout_only(original: str, mutated: str) -> bool:
    return not_meaning(original, mutated) is not None


def sources(only=None):
    files = sorted(glob.glob(os.path.join(ROOT, "dashboards", "src", "*.jsonnet"))) + [
        os.path.join(ROOT, "dashboards", "lib", "grafana.libsonnet")]
    rel = [os.path.relpath(f, ROOT) for f in files]
    return [f for f in rel if not only or os.path.basename(f) in only or f in only]


def tree():
    work = tempfile.mkdtemp(prefix="aix-dashboard-mutation-")
    shutil.copytree(ROOT, os.path.join(work, "main"), symlinks=True,
                    ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", "dist", ".mutmut-cache", "demo-data"))
    shared = os.path.join(os.path.dirname(ROOT), "shared")
    if os.path.isdir(shared):
        os.symlink(shared, os.path.join(work, "shared"))
    return os.path.join(work, "main")


def compiled(work):
    return {f: open(f, encoding="utf-8").read() for f in sorted(glob.glob(os.path.join(work, "dashboards", "*.json")))}


def check(work, path, text, prometheus, baseline):
    """'compile', 'unchanged', 'caught' or 'survived' for the source ``path`` holding ``text``."""
    with open(os.path.join(work, path), "w", encoding="utf-8") as fh:
        fh.write(text)
    build = subprocess.run([sys.executable, os.path.join(work, "dashboards", "build_dashboards.py")],
                           capture_output=True, text=True, timeout=300)
    if build.returncode != 0:
        return "compile"
    if {os.path.basename(k): v for k, v in compiled(work).items()} == baseline:
        return "unchanged"
    env = dict(os.environ, PYTHONPATH=f"{work}/exporter:{work}", AIX_EXPORTER_CASE_STUDY_PROMETHEUS=prometheus,
               AIX_EXPORTER_REQUIRE_TOOLS="1")
    r = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-k", "not victoriametrics",
                        *TESTS], cwd=work, env=env, capture_output=True, text=True, timeout=1800)
    return "survived" if r.returncode == 0 else "caught"


def case_study(work):
    """The case study backfilled with the recording rules, as tests/e2e/conftest.py does:
    (TSDB directory, end)."""
    from aix_exporter.tools import simulate
    end = float(int(time.time()) // 60 * 60)
    tsdb = os.path.join(work, "case-study-tsdb")
    simulate.backfilled(tsdb, [("case-study", None, None)], end, [os.path.join(ROOT, "alerts", "aix-rules.yml")])
    return tsdb, end


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", help="source files (aix-tape.jsonnet ...)")
    ap.add_argument("--sample", type=int, default=1, help="run every Nth mutant only")
    ap.add_argument("--offset", type=int, default=0, help="with --sample: start at the Kth mutant")
    ap.add_argument("--rerun", help="a survivors file: run only the mutants it marks unexplained")
    ap.add_argument("--issue48", action="store_true", help="only the mutants of the operators issue 48 added")
    ap.add_argument("--out", default=os.path.join(HERE, "dashboard-mutation-survivors.md"))
    ap.add_argument("--jobs", type=int, default=1, help="mutants run at once, each in a copy of the tree of its own")
    args = ap.parse_args()
    if not (shutil.which("promtool") and shutil.which("prometheus")):
        sys.exit("needs promtool and prometheus (Debian package prometheus)")
    from aix_exporter.tools import tempprom
    work = tree()
    works = [work]
    scratch = tempfile.mkdtemp(prefix="aix-dashboard-mutation-data-")
    results: list = []
    try:
        tsdb, end = case_study(scratch)
        with tempprom.serve(tsdb) as url:
            prometheus = f"{url} {end:.0f}"
            baseline = {os.path.basename(k): v for k, v in compiled(work).items()}
            assert check(work, sources()[0], open(os.path.join(ROOT, sources()[0]), encoding="utf-8").read(),
                         prometheus, baseline) in ("unchanged",), "the unmutated dashboards do not compile the same"
            env = dict(os.environ, PYTHONPATH=f"{work}/exporter:{work}", AIX_EXPORTER_CASE_STUDY_PROMETHEUS=prometheus)
            base = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-k",
                                   "not victoriametrics", *TESTS], cwd=work, env=env, capture_output=True, text=True,
                                  timeout=1800)
            assert base.returncode == 0, f"the unmutated dashboards fail their tests:\n{base.stdout[-3000:]}"
            todo, skipped = [], {}
            for path in sources(args.only):
                original = open(os.path.join(ROOT, path), encoding="utf-8").read()
                for line, what, text, col in rule_mutation.mutants(original, SWAPS):
                    why = not_meaning(original, text)
                    if why:
                        skipped[why] = skipped.get(why, 0) + 1
                    else:
                        todo.append((path, line, what, text, col))
            print(f"not counted: {json.dumps(skipped)}", flush=True)
            if args.issue48:
                todo = [m for m in todo if m[2] in rule_mutation.ISSUE48]
            if args.rerun:
                wanted = rule_mutation.unexplained_in(args.rerun)
                todo = [m for m in todo if (m[0], m[1], m[4], m[2]) in wanted]
            todo = todo[args.offset::args.sample]
            works = [work] + [tree() for _ in range(args.jobs - 1)]   # one copy of the tree a worker
            free: queue.Queue = queue.Queue()
            for w in works:
                free.put(w)

            def one(k, mutant):
                path, line, what, text, col = mutant
                w = free.get()
                try:
                    status = check(w, path, text, prometheus, baseline)
                    with open(os.path.join(ROOT, path), encoding="utf-8") as fh:   # put the source back
                        original = fh.read()
                    with open(os.path.join(w, path), "w", encoding="utf-8") as fh:
                        fh.write(original)
                finally:
                    free.put(w)
                print(f"{k + 1}/{len(todo)} {path}:{line}:{col}: {what}: {status}", flush=True)
                return path, line, col, what, status
            with cf.ThreadPoolExecutor(args.jobs) as pool:
                results = list(pool.map(lambda km: one(*km), enumerate(todo)))
    finally:
        for w in works:
            shutil.rmtree(os.path.dirname(w), ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    counts = {s: sum(1 for r in results if r[4] == s) for s in ("caught", "compile", "unchanged", "survived")}
    valid = counts["caught"] + counts["survived"]
    sampled = (f" (one mutant in {args.sample}, starting at {args.offset})" if args.sample > 1 else "") + (
        " (the survivors re-run)" if args.rerun else "")
    print(json.dumps(counts))
    print("| source | mutants | do not compile | dashboards unchanged | caught | survived | score |\n"
          "|---|---|---|---|---|---|---|\n"
          f"| `dashboards/src`, `dashboards/lib`{sampled} | {len(results)} | {counts['compile']} | {counts['unchanged']} | "
          f"{counts['caught']} | {counts['survived']} | **{100 * counts['caught'] / max(valid, 1):.1f} %** |")
    eq, unexplained = rule_mutation.write_survivors(
        args.out, "Surviving dashboard mutants (written by bench/mutation/dashboards.py)",
        [(path, line, col, what) for path, line, col, what, status in results if status == "survived"])
    print(f"survivors: {eq} explained as equivalent, {unexplained} unexplained; "
          f"score counting the explained as caught: {100 * (counts['caught'] + eq) / max(valid, 1):.1f} %")


if __name__ == "__main__":
    main()
