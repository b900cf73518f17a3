"""How long one basic-auth password check takes with the built-in pure-Python bcrypt verifier
(used on hosts without the compiled bcrypt module, such as an offline AIX LPAR), against the
compiled module when it is installed.

    .venv/bin/python -m bench.perf bcrypt_check [--costs 4,8,10] [--repeat 3]

Prints a Markdown table for bench/perf/RESULTS.md: the median of --repeat checks per cost.
"""
import argparse
import os
import statistics
import time

from aix_exporter import purebcrypt


def median_seconds(check, password, hashed, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        assert check(password, hashed)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--costs", default="4,8,10")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    try:
        import bcrypt
    except ImportError:
        bcrypt = None
    print("| cost | built-in (pure Python) s | compiled bcrypt s |")
    print("|---|---|---|")
    for cost in (int(c) for c in args.costs.split(",")):
        hashed = purebcrypt.hashpw(b"correct horse", os.urandom(16), cost)
        pure = median_seconds(purebcrypt.checkpw, b"correct horse", hashed, args.repeat)
        native = median_seconds(bcrypt.checkpw, b"correct horse", hashed, args.repeat) if bcrypt else None
        print(f"| {cost} | {pure:.3f} | {native:.4f} |" if native is not None else f"| {cost} | {pure:.3f} | n/a |")

