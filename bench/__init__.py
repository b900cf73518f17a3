"""What the project measures, by job: ``perf/`` the performance benchmarks (a table of them in
perf/benches.toml, one runner: ``python3 -m bench.perf``) and their figures in perf/RESULTS.md;
``mutation/`` the mutation tools, their survivors and equivalence files, and their figures in
mutation/RESULTS.md. Both import the test helpers (tests/lib), never the reverse."""
