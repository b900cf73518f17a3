"""A dsmadmc that never answers, for minutes (issue 57, item 2), with the real sshd and the
shipped wrapper: tests/e2e/test_ssh.py's test, run longer.

    .venv/bin/python -m bench.perf ssh_hung_dsmadmc [--minutes 5] [--every 15]

The target is probed every --every seconds for --minutes minutes, as Prometheus would: the
other collectors must succeed on every probe, no more than one dsmadmc may ever run on the
"LPAR", and none may be left 5 s after the exporter's SIGTERM (the test's assertions). Prints
the outcome and the wall time; exits as pytest does.
"""
import argparse
import os
import subprocess
import sys
import time

from bench.perf.common import ROOT


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--every", type=float, default=15.0)
    a = ap.parse_args()
    env = dict(os.environ, AIX_EXPORTER_HUNG_SECONDS=str(a.minutes * 60), AIX_EXPORTER_HUNG_EVERY=str(a.every))
    started = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                        "tests/e2e/test_ssh.py::test_a_dsmadmc_that_never_answers_never_darkens_the_lpar"],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    took = time.monotonic() - started
    tail = (r.stdout or r.stderr).strip().splitlines()[-1:]
    print(f"dsmadmc hung, probed every {a.every:g} s for {a.minutes:g} min: "
          f"{'held' if r.returncode == 0 else 'FAILED'} ({tail[0] if tail else r.returncode}; {took:.0f} s in all)")
    if r.returncode:
        print(r.stdout[-4000:])
    return r.returncode

