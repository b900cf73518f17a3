"""The benchmarks' one runner.

    python3 -m bench.perf                  the table: each bench, what it measures, its commands
    python3 -m bench.perf NAME [ARGS...]   run one (NAME --help: its options)

Run from the repository root (the checkout's ``bench`` and ``tests`` packages are imported from
it); the exporter is imported from ``exporter/`` when the Python running this has not installed
it (.venv has). Each bench is a module of this folder with a ``main()`` that reads its options
from the command line and returns the exit status."""
import importlib
import os
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TABLE = os.path.join(HERE, "benches.toml")


def table() -> list:
    """The rows of benches.toml, in its order."""
    with open(TABLE, "rb") as fh:
        return tomllib.load(fh)["bench"]


def listing(rows) -> str:
    out = ["The benchmarks (bench/perf/benches.toml); figures in bench/perf/RESULTS.md, under each section.", ""]
    for row in rows:
        out.append(f"{row['name']}: {row['what']}")
        for run in row["runs"]:
            out.append(f"    {run['command']}")
            out.append(f"        -> RESULTS.md: {run['section']}")
        if row["needs"]:
            out.append(f"    needs: {'; '.join(row['needs'])}")
    return "\n".join(out)


def main(argv) -> int:
    rows = table()
    if not argv or argv[0] in ("-h", "--help", "list"):
        print(listing(rows))
        return 0
    name, args = argv[0], argv[1:]
    if name not in {row["name"] for row in rows}:
        print(f"bench.perf: no bench named {name!r}; `python3 -m bench.perf` lists them", file=sys.stderr)
        return 2
    try:
        import aix_exporter  # noqa: F401  (installed, as in .venv)
    except ImportError:
        sys.path.insert(0, os.path.join(ROOT, "exporter"))
    sys.argv = [f"python3 -m bench.perf {name}", *args]   # each bench's argparse reads these
    status = importlib.import_module(f"bench.perf.{name}").main()
    return status if isinstance(status, int) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
