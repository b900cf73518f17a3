"""The README's demo, soaked: `bash deploy/demo/run.sh` as a user runs it, for ten minutes.

    python3 -m bench.perf demo_soak [--minutes 10]   (needs Debian's prometheus; run as root once
                                                     so the demo can install it, or install it)
    python3 -m bench.perf demo_soak --starts 3       (the start alone, three times: seconds to the banner)

Runs the demo on free loopback ports with a scratch DEMO_DIR, then every 5 s (--every) reads
Prometheus' alerts and the README's tape query. At the end it reports, and exits 1 on any
failure:
- seconds until the demo printed its banner ("Ctrl-C stops everything");
- every alert that went pending or firing (name, instance, state, first seen), against
  EXPECTED, the alerts the README names: any other alert, or one listed twice, fails;
- parse errors and tracebacks in the exporters' logs (any fails);
- tape MiB/s, read + written, per instance over the soak: tsmsrv01 within 2 % of 378 at every
  poll, and in every minute of its history's 16 MB part (from the regime's first five minutes,
  whose [5m] window still holds the restart, on);
- that Alertmanager holds no alert Prometheus has not fired (the backfill must not send any);
- that no alert text holds a fractional count ("appeared 1.003 times");
- the "Overlapping blocks" warnings in Prometheus' log (more than three fail: a flood);
- every URL the banner prints (each must answer 200) and the amtool command it prints;
- that SIGTERM to the script leaves no process of its session behind.
The demo and the checks are tests/lib/demo.py's; tests/e2e/test_demo.py runs them over a
shorter soak.
"""
import argparse
import tempfile
import time

from tests.lib.demo import Demo, Soak


def starts(n):
    """Start the demo N times; for each, the seconds to its banner and what the banner promises
    at once: both exporters scraped, the recording rules' history four hours back."""
    problems = []
    for i in range(1, n + 1):
        with tempfile.TemporaryDirectory() as work:
            demo = Demo(work)
            try:
                demo.wait_banner()
                scraped = demo.query("count(up == 1)")
                recorded = demo.query('count({__name__=~"aix:.+"})', time.time() - 4 * 3600)
            finally:
                left = demo.stop()
        scraped_n = int(float(scraped[0]["value"][1])) if scraped else 0
        recorded_n = int(float(recorded[0]["value"][1])) if recorded else 0
        print(f"start {i}: banner after {demo.up_seconds:.1f} s; targets up {scraped_n}; "
              f"recorded series 4 h back {recorded_n}")
        if scraped_n != 2 or not recorded_n or left:
            problems.append(f"start {i}: up {scraped_n}, recorded {recorded_n}, left behind: {left or 'nothing'}")
    print("problems: " + ("none" if not problems else "; ".join(problems)))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--every", type=float, default=5.0, help="seconds between polls (default 5)")
    ap.add_argument("--starts", type=int, metavar="N",
                    help="only start the demo N times, one after the other, and report the seconds to each banner")
    args = ap.parse_args()
    if args.starts:
        return starts(args.starts)
    with tempfile.TemporaryDirectory() as work:
        demo = Demo(work)
        left = "not stopped"
        try:
            banner = demo.wait_banner()
            soak = Soak(demo)
            soak.run(args.minutes * 60, args.every)
            problems = soak.finish(banner)
        finally:
            left = demo.stop()
    if left:
        problems.append(f"left behind after SIGTERM: {left}")
    print(f"demo up after {demo.up_seconds:.1f} s; soaked {args.minutes:g} min, {soak.polls} polls")
    print("| instance | alert | state | first seen (s after the banner) |")
    print("|---|---|---|---|")
    for (inst, name, state), t in sorted(soak.seen.items(), key=lambda kv: kv[1]):
        print(f"| {inst} | {name} | {state} | {t} |")
    for inst, (lo, hi) in sorted(soak.tape.items()):
        print(f"tape MiB/s on {inst}: {lo:.1f} .. {hi:.1f}")
    if soak.history:
        values = [v for _, v in soak.history]
        print(f"tape MiB/s on tsmsrv01 in the history's 16 MB part, {len(values)} minutes: "
              f"{min(values):.1f} .. {max(values):.1f}")
    print(f"'Overlapping blocks' warnings in Prometheus' log: {soak.overlaps}")
    print("problems: " + ("none" if not problems else ""))
    for p in problems:
        print(f"  {p}")
    return 1 if problems else 0

