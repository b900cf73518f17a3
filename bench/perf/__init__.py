"""The performance benchmarks: one module each, listed in benches.toml, run by ``python3 -m
bench.perf NAME`` (__main__.py); their figures are in RESULTS.md, each with its command."""
