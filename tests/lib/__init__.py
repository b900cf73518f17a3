"""The test helpers, one house (issue 61, item 3): the checkout's paths, the one free_port, the
real samples' skip, fixture text, a shipped recording rule, a real tool or a skip. Tests and
benchmarks import these; ``tests/conftest.py`` keeps pytest's fixtures and hooks only.
``attacks.py`` holds what a test and a benchmark both do to a server, ``wrapper_mutations.py``
the SSH wrapper's mutations and their oracle. The benches import these, never the reverse."""
import os
import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SHARED = pathlib.Path(os.environ.get("AIX_EXPORTER_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"

if str(ROOT / "exporter") not in sys.path:
    sys.path.insert(0, str(ROOT / "exporter"))

from aix_exporter.tools.tempprom import free_port  # noqa: E402,F401  (the one free_port)


def corpus_or_skip(path: pathlib.Path, what: str):
    """A pytest mark: skip when ../shared is absent (a developer's checkout), but under CI
    (CI=true) a missing corpus fails the run instead: conformance must never pass unseen
    (the fixture ``_corpus_required`` of tests/conftest.py)."""
    import pytest   # here, not at the top: the benches import this package without pytest
    if path.exists():
        return pytest.mark.skipif(False, reason="present")
    if os.environ.get("CI", "").lower() == "true":
        return pytest.mark.usefixtures("_corpus_required")
    return pytest.mark.skip(reason=f"{what} not present")


def fixture_text(*parts) -> str:
    return (FIXTURES.joinpath(*parts)).read_text()


def recording_rule(record: str) -> str:
    """The expression of a recording rule as alerts/aix-rules.yml ships it."""
    import yaml
    rules = yaml.safe_load((ROOT / "alerts" / "aix-rules.yml").read_text())
    return next(r["expr"] for g in rules["groups"] for r in g["rules"] if r.get("record") == record)


def need(binary: str) -> str:
    """Path of a real tool the test needs; skip without it, unless the run requires tools (tests/run.sh)."""
    path = shutil.which(binary)
    if not path:
        import pytest
        if os.environ.get("AIX_EXPORTER_REQUIRE_TOOLS"):
            pytest.fail(f"{binary} not installed (Debian package prometheus) but AIX_EXPORTER_REQUIRE_TOOLS is set")
        pytest.skip(f"{binary} not installed (Debian package prometheus)")
    return path
