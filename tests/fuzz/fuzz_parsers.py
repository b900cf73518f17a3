"""Coverage-guided fuzzing of one parser with atheris (pip install atheris):

    python3 tests/fuzz/fuzz_parsers.py splat -max_total_time=120 [libFuzzer flags]
    python3 tests/fuzz/fuzz_parsers.py splat crash-d96bb...     # run saved inputs once

Without file arguments the fixtures and ../shared/corpus samples of that parser seed the run
(written to a scratch corpus directory under TMPDIR first); with files or directories given,
libFuzzer runs those instead (a saved crash reproduces this way). Crash inputs go to the
working directory unless -artifact_prefix=DIR/ says otherwise. Bytes become text as the
sources make it (UTF-8, undecodable bytes as U+FFFD); the parser must return a record or raise
ParseError. Anything else is a crash that libFuzzer reports with the input that caused it.
"""
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "exporter"))

import atheris  # noqa: E402

with atheris.instrument_imports():
    from aix_exporter.commands import TABLE  # noqa: E402
    from aix_exporter.parsers import ParseError  # noqa: E402
    # key -> (parse, fixture dirs, corpus dirs), from the command table
    PARSERS = {c.key: (c.parser.parse, [c.fixture_dir], [*c.corpus, *c.seeds_from]) for c in TABLE}


def seeds(key: str) -> list:
    """The parser's fixtures and corpus samples, as bytes."""
    _, fixture_dirs, corpus_dirs = PARSERS[key]
    folders = [os.path.join(ROOT, "tests", "fixtures", d) for d in fixture_dirs]
    folders += [os.path.join(ROOT, "..", "shared", "corpus", d) for d in corpus_dirs]
    out = []
    for folder in folders:
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                if os.path.isfile(path) and not name.endswith(".md"):
                    with open(path, "rb") as fh:
                        out.append(fh.read())
    return out


def one_input(parse, data: bytes) -> None:
    try:
        parse(data.decode("utf-8", errors="replace"))
    except ParseError:
        pass


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in PARSERS:
        raise SystemExit(f"usage: {sys.argv[0]} {{{','.join(PARSERS)}}} [libFuzzer flags]")
    key, args = sys.argv[1], sys.argv[2:]
    parse = PARSERS[key][0]
    if not [a for a in args if not a.startswith("-")]:
        corpus = tempfile.mkdtemp(prefix=f"fuzz-{key}-")
        for i, data in enumerate(seeds(key)):
            with open(os.path.join(corpus, f"seed{i}"), "wb") as fh:
                fh.write(data)
        args.append(corpus)
    atheris.Setup([sys.argv[0], *args], lambda data: one_input(parse, data))
    atheris.Fuzz()


if __name__ == "__main__":
    main()
