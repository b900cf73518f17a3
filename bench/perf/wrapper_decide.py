"""What a refusal costs the LPAR (issue 57, item 1): the forced-command wrapper's CPU per
decision over 10,000 mutations of the command lines the ssh source sends, and over 64 KiB
hostile lines (an unquotable word, quotes that never close, 32,000 words).

    .venv/bin/python -m bench.perf wrapper_decide [--count 10000] [--seed 57]

The wrapper's --decide mode answers each line with the CPU seconds the decision took
(Time::HiRes::clock around the parse and the match); the process start is not counted (sshd
pays it for any command). Prints p50, p99 and the maximum, for bench/perf/RESULTS.md.
"""
import argparse
import os
import shlex
import statistics
import subprocess
import tempfile

from aix_exporter.sources.ssh import ENV_PREFIX

from bench.perf.common import ROOT
from tests.lib.wrapper_mutations import make_files, mutations

WRAPPER = os.path.join(ROOT, "deploy", "ssh", "aix-exporter-ssh-wrapper")


def decide(lines, files):
    r = subprocess.run(["/usr/bin/perl", WRAPPER, "--decide", "--files", files], input="".join(f"{x}\0" for x in lines),
                       capture_output=True, text=True, timeout=600, env={"PATH": "/usr/bin:/bin"}, check=True)
    return [(a, float(cpu)) for a, cpu, _ in (line.split(" ", 2) for line in r.stdout.splitlines())]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=57)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = make_files(tmp)
        lines = mutations(args.count, args.seed, files)
        hostile = [" ".join(ENV_PREFIX) + " /usr/bin/vmstat " + "a" * 65000 + "$",
                   " ".join(ENV_PREFIX) + " /usr/bin/vmstat " + "'a'" * 21000 + "'",
                   " ".join(ENV_PREFIX) + " " + "a " * 32000 + "$",
                   shlex.join([*ENV_PREFIX, "/usr/bin/ps", "eww", *["1"] * 30000])[:65536]]
        rows = [("mutations", decide(lines, files)), ("64 KiB hostile lines", decide(hostile, files))]
    print("| lines | count | refused | CPU p50 | CPU p99 | CPU max |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, got in rows:
        cpu = sorted(c for _, c in got)
        p99 = cpu[min(len(cpu) - 1, int(len(cpu) * 0.99))]
        print(f"| {name} | {len(got)} | {sum(a == 'refuse' for a, _ in got)} | {statistics.median(cpu) * 1e3:.3f} ms "
              f"| {p99 * 1e3:.3f} ms | {cpu[-1] * 1e3:.3f} ms |")
    return 0

