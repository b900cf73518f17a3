"""Mutation score of the alert and recording rules' sources (alerts/alerts.libsonnet, and
exporter/aix_exporter/figures.json, where the per-regime figures' expressions live).

    .venv/bin/python -m bench.mutation.rules [--jobs 2] [--out bench/mutation/rule-mutation-survivors.md]
                                            [--rerun bench/mutation/rule-mutation-survivors.md]

Each mutant is one change of the PromQL inside the jsonnet: a comparison turned around or
widened (< and <=, > and >=, == and !=), an aggregation swapped (sum, max, min, avg), a
label value swapped for its sibling (mode sys/user, psize 16M/4K, large-page mode M/Y,
setting current/boot, ANR0358E/ANR9999D), a set operator swapped (and/unless), a literal number
in an expression moved by one, a rate function swapped (rate/irate, deriv/delta); since issue 48
also != turned into > and <, sum and avg swapped both ways, a unit constant swapped for its
neighbour (2^30 and 2^20, 1e9 and 1e6, 1024 and 1000), a metric swapped for its neighbour in a
ratio (paging space for real memory, the pool's size for its use, read for written) and a
regex matcher negated. The
mutated source is compiled as alerts/build_rules.py does (both rule files) in a copy of the
tree, and the mutant is caught when a compile fails (counted apart, as are mutants that leave
the rule files unchanged) or when
`promtool test rules` fails on any of alerts/tests/*.test.yml. Thresholds and windows from
monitoring.json are measured by bench/mutation/thresholds.py. Prints the score and writes every
surviving mutant to --out; each mutant's outcome is printed as it is known. About 10 s a
mutant (20 s more for one the quick files let through): allow an hour for the 169 mutants.
--rerun runs only the mutants a survivors file marks unexplained (after new tests), and
scores those. --equivalents audits bench/mutation/rule-mutation-equivalent.yml: it runs only the mutants
its entries explain and lists the entries whose mutants the tests now catch, or that explain
none (both are removed from the file).
"""
import argparse
import concurrent.futures as cf
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from bench.mutation import HERE, ROOT
SOURCE = os.path.join("alerts", "alerts.libsonnet")
SOURCES = (SOURCE, os.path.join("exporter", "aix_exporter", "figures.json"))

SWAPS = [(" <= ", " < "), (" < ", " <= "), (" >= ", " > "), (" > ", " >= "), (" == ", " != "), (" != ", " == "),
         ("< bool", "<= bool"), ("> bool", ">= bool"),
         ("sum by", "max by"), ("max by", "min by"), ("min by", "max by"), ("avg by", "max by"),
         ("sum without", "max without"),
         ('mode="sys"', 'mode="user"'), ('mode="user"', 'mode="sys"'), ('psize="16M"', 'psize="4K"'),
         ('psize="4K"', 'psize="16M"'), ('mode="M"', 'mode="Y"'), ('mode="Y"', 'mode="M"'),
         ('setting="current"', 'setting="boot"'), ('setting="boot"', 'setting="current"'),
         ('msgid="ANR0358E"', 'msgid="ANR9999D"'), ('msgid="ANR9999D"', 'msgid="ANR0358E"'),
         (" and on", " unless on"), (" unless on", " and on"),
         ("rate(", "irate("), ("deriv(", "delta("), ("delta(", "deriv("), ("increase(", "delta("),
         ("last_over_time(", "max_over_time("), ("avg_over_time(", "max_over_time("),
         # issue 48: the operators that would have found its planted rule and dashboard bugs
         (" != ", " > "), (" != ", " < "), ("sum by", "avg by"), ("avg by", "sum by"),
         ("1073741824", "1048576"), ("1048576", "1073741824"), ("2^30", "2^20"), ("2^20", "2^30"),
         ("1e9", "1e6"), ("1e6", "1e9"), ("1024", "1000"),
         ("aix_paging_space_size_bytes", "aix_memory_size_bytes"),
         ("aix_memory_page_pool_size_bytes", "aix_memory_page_inuse_bytes"),
         ("aix_memory_page_inuse_bytes", "aix_memory_page_pool_size_bytes"),
         ("_read_bytes_total", "_written_bytes_total"), ("_written_bytes_total", "_read_bytes_total"),
         ('=~\\"', '!~\\"'), ('=~"', '!~"')]
NUMBER = re.compile(r"(?<=[ (*+/-])(\d+)(?=[ )\],;])")


def mutants(text, swaps=SWAPS):
    """[(line number, description, mutated text, column)]: one change each, anywhere but in
    comments; the column is where the change starts in its line (0-based)."""
    out = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        code = line.split("//", 1)[0]
        for old, new in swaps:
            start = 0
            while (k := code.find(old, start)) >= 0:
                if not (old == "rate(" and code[k - 1:k].isalpha()):   # irate(, not a part of another name
                    m = lines[:i] + [line[:k] + new + line[k + len(old):]] + lines[i + 1:]
                    out.append((i + 1, f"{old.strip()} -> {new.strip()}", "\n".join(m), k))
                start = k + len(old)
        for n in NUMBER.finditer(code):
            if "%" in code[max(0, n.start() - 2):n.start()]:
                continue
            value = int(n.group(1))
            m = lines[:i] + [line[:n.start()] + str(value + 1) + line[n.end():]] + lines[i + 1:]
            out.append((i + 1, f"{value} -> {value + 1}", "\n".join(m), n.start()))
    return out


def tree():
    """A copy of what the rules are built and tested from."""
    work = tempfile.mkdtemp(prefix="aix-rule-mutation-")
    for d in ("alerts", "dashboards"):
        shutil.copytree(os.path.join(ROOT, d), os.path.join(work, d), ignore=shutil.ignore_patterns("__pycache__"))
    os.makedirs(os.path.join(work, "exporter", "aix_exporter"))
    for f in ("monitoring.json", "figures.json"):
        shutil.copy(os.path.join(ROOT, "exporter", "aix_exporter", f), os.path.join(work, "exporter", "aix_exporter", f))
    shutil.copy(os.path.join(ROOT, "mixin.libsonnet"), work)
    return work


RULE_FILES = ("aix-rules.yml", "demo-fast-rules.yml")


def compiled(work):
    return {f: open(os.path.join(work, "alerts", f), encoding="utf-8").read() for f in RULE_FILES}


def check(work, text, promtool, baseline=None, source=SOURCE):
    """'compile' (the source does not build), 'unchanged' (the rule files come out the same: a
    change in a comment or in a value nothing reads), 'caught' (a promtool test fails) or
    'survived'."""
    with open(os.path.join(work, source), "w", encoding="utf-8") as fh:
        fh.write(text)
    try:
        return _checked(work, promtool, baseline)
    finally:   # the next mutant of another source starts from this one's original
        with open(os.path.join(ROOT, source), encoding="utf-8") as fh, \
                open(os.path.join(work, source), "w", encoding="utf-8") as out:
            out.write(fh.read())


def _checked(work, promtool, baseline):
    build = subprocess.run([sys.executable, os.path.join(work, "alerts", "build_rules.py")], capture_output=True,
                           text=True, timeout=300)
    if build.returncode != 0:
        return "compile"
    if baseline is not None and compiled(work) == baseline:
        return "unchanged"
    # the quick files first (aix-rules 8 s, demo 0.3 s); the threshold cases (20 s) only for a
    # mutant they let through
    tests = sorted((f for f in os.listdir(os.path.join(work, "alerts", "tests")) if f.endswith(".test.yml")),
                   key=lambda f: f.startswith("thresholds"))
    for f in tests:
        r = subprocess.run([promtool, "test", "rules", os.path.join(work, "alerts", "tests", f)], capture_output=True,
                           text=True, timeout=600)
        if r.returncode != 0:
            return "caught"
    return "survived"


EQUIVALENT = os.path.join(HERE, "rule-mutation-equivalent.yml")
# the descriptions of the mutants of the operators issue 48 added (--issue48 here and in
# bench/mutation/dashboards.py)
ISSUE48 = frozenset(f"{a.strip()} -> {b.strip()}" for a, b in SWAPS[SWAPS.index((" != ", " > ")):])


def known_equivalents() -> list:
    import yaml
    with open(EQUIVALENT, encoding="utf-8") as fh:
        return yaml.safe_load(fh) or []


def explains(entry: dict, source: str, line: int, what: str, text: str) -> bool:
    """Whether an entry of bench/mutation/rule-mutation-equivalent.yml is about this mutant (``text``: the
    original line from the mutated column on)."""
    return (entry["source"] == source and entry["mutant"] == what and text.startswith(entry["at"])
            and entry.get("line", line) == line)


@functools.lru_cache(maxsize=None)
def _source_lines(source: str) -> tuple:
    with open(os.path.join(ROOT, source), encoding="utf-8") as fh:
        return tuple(fh.read().split("\n"))


def original_text(source: str, line: int, col: int) -> str:
    """The unmutated line of a mutant from its column on (what an equivalence entry's ``at`` starts)."""
    return _source_lines(source)[line - 1][col:]


def explained_by(todo: list, known: list) -> tuple:
    """(the mutants of ``todo`` some entry explains, {entry index: [those mutants]})."""
    by_entry: dict = {i: [] for i in range(len(known))}
    for m in todo:
        src, line, what, _, col = m
        text = original_text(src, line, col)
        for i, e in enumerate(known):
            if explains(e, src, line, what, text):
                by_entry[i].append(m)
    return [m for ms in by_entry.values() for m in ms], by_entry


def write_survivors(out: str, title: str, survivors: list) -> tuple:
    """Write ``survivors`` [(source, line number, column, what)] to ``out``, each with the
    reason it is equivalent when bench/mutation/rule-mutation-equivalent.yml has an entry for its source
    whose ``at`` is the text of the original line from the mutated column on (its start), whose
    ``mutant`` is its description and, when it gives one, whose ``line`` is the survivor's line;
    returns (explained, unexplained) counts."""
    known = known_equivalents()
    explained = 0
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(f"# {title}\n\nEach survivor with its line and column; 'equivalent:' gives the reason from "
                 "bench/mutation/rule-mutation-equivalent.yml, **unexplained** marks one a test should kill.\n\n")
        for source, line, col, what in survivors:
            text = original_text(source, line, col)
            why = next((e["why"] for e in known if explains(e, source, line, what, text)), None)
            explained += why is not None
            fh.write(f"- {source}:{line}:{col}: {what} at `{text[:60]}`\n"
                     f"  - {'equivalent: ' + why if why else '**unexplained**'}\n")
    return explained, len(survivors) - explained


def unexplained_in(path: str) -> set:
    """{(source, line, column, description)} of the survivors a survivors file marks **unexplained**."""
    out, last = set(), None
    for row in open(path, encoding="utf-8"):
        m = re.match(r"- ([^:]+):(\d+):(\d+): (.+?) at `", row)
        if m:
            last = (m.group(1), int(m.group(2)), int(m.group(3)), m.group(4))
        elif "**unexplained**" in row and last:
            out.add(last)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(HERE, "rule-mutation-survivors.md"))
    ap.add_argument("--rerun", help="a survivors file: run only the mutants it marks unexplained")
    ap.add_argument("--issue48", action="store_true", help="only the mutants of the operators issue 48 added")
    ap.add_argument("--equivalents", action="store_true",
                    help="audit bench/mutation/rule-mutation-equivalent.yml: run only the mutants its entries explain and "
                         "list the entries whose mutants the tests catch, or that explain no mutant")
    args = ap.parse_args()
    promtool = shutil.which("promtool") or sys.exit("needs promtool (Debian package prometheus)")
    texts = {src: open(os.path.join(ROOT, src), encoding="utf-8").read() for src in SOURCES}
    todo = [(src, *m) for src in SOURCES for m in mutants(texts[src])]
    if args.issue48:   # only the operators issue 48 added
        todo = [m for m in todo if m[2] in ISSUE48]
    if args.equivalents:   # (the entries of the dashboards' sources are bench/mutation/dashboards.py's to audit)
        known = [e for e in known_equivalents() if e["source"] in SOURCES]
        todo, by_entry = explained_by(todo, known)
    if args.rerun:
        wanted = unexplained_in(args.rerun)
        todo = [m for m in todo if (m[0], m[1], m[4], m[2]) in wanted]
    works = [tree() for _ in range(args.jobs)]
    try:
        assert check(works[0], texts[SOURCE], promtool) == "survived", "the unmutated rules fail their tests"
        baseline = compiled(works[0])

        def one(k):
            src, line, what, mutated, col = todo[k]
            return src, line, what, col, check(works[k % args.jobs], mutated, promtool, baseline, src)
        results = []
        with cf.ThreadPoolExecutor(args.jobs) as pool:
            # each worker tree is used by one thread at a time: job k runs in tree k % jobs
            for start in range(0, len(todo), args.jobs):
                for src, line, what, col, status in pool.map(one, range(start, min(start + args.jobs, len(todo)))):
                    results.append((line, what, col, status, src))
                    print(f"{len(results)}/{len(todo)} {src}:{line}:{col}: {what}: {status}", flush=True)
    finally:
        for w in works:
            shutil.rmtree(w, ignore_errors=True)
    if args.equivalents:
        return audit(known, by_entry, {(src, line, col, what): status for line, what, col, status, src in results})
    counts = {s: sum(1 for r in results if r[3] == s) for s in ("caught", "compile", "unchanged", "survived")}
    valid = counts["caught"] + counts["survived"]
    print(json.dumps(counts))
    print(f"| source | mutants | do not compile | rules unchanged | caught | survived | score |\n"
          f"|---|---|---|---|---|---|---|\n"
          f"| `{', '.join(SOURCES)}` | {len(results)} | {counts['compile']} | {counts['unchanged']} | {counts['caught']} | "
          f"{counts['survived']} | "
          f"**{100 * counts['caught'] / max(valid, 1):.1f} %** |")
    eq, unexplained = write_survivors(args.out, "Surviving rule mutants (written by bench/mutation/rules.py)",
                                      [(src, line, col, what) for line, what, col, status, src in results
                                       if status == "survived"])
    print(f"survivors: {eq} explained as equivalent, {unexplained} unexplained; "
          f"score counting the explained as caught: {100 * (counts['caught'] + eq) / max(valid, 1):.1f} %")


def audit(known: list, by_entry: dict, status: dict) -> int:
    """Print each entry of the equivalence file with what became of the mutants it explains;
    1 when an entry is stale (its mutants are caught, or it explains none)."""
    stale = 0
    for i, e in enumerate(known):
        outcomes = [status[(src, line, col, what)] for src, line, what, _, col in by_entry[i]]
        verdict = ("explains no mutant" if not outcomes else "still survives" if all(o == "survived" for o in outcomes)
                   else "caught by today's tests" if all(o == "caught" for o in outcomes) else ", ".join(outcomes))
        stale += verdict != "still survives"
        print(f"- {e['source']}: {e['mutant']} at `{e['at'][:50]}`: {verdict}")
    print(f"{len(known)} entries: {len(known) - stale} still equivalent survivors, {stale} to remove or explain")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
