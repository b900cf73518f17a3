import os
import pathlib
import shutil
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SHARED = pathlib.Path(os.environ.get("AIX_EXPORTER_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"

sys.path.insert(0, str(ROOT / "exporter"))

from aix_exporter.tools.tempprom import free_port  # noqa: E402,F401  (the one free_port: tests import it from here)


def corpus_or_skip(path: pathlib.Path, what: str):
    """A pytest mark: skip when ../shared is absent (a developer's checkout), but under CI
    (CI=true) a missing corpus fails the run instead: conformance must never pass unseen."""
    if path.exists():
        return pytest.mark.skipif(False, reason="present")
    if os.environ.get("CI", "").lower() == "true":
        return pytest.mark.usefixtures("_corpus_required")
    return pytest.mark.skip(reason=f"{what} not present")


@pytest.fixture
def _corpus_required():
    pytest.fail(f"{CORPUS} is missing but CI=true: the conformance tests must run against the real samples")


def fixture_text(*parts) -> str:
    return (FIXTURES.joinpath(*parts)).read_text()


def bench_common():
    """bench/common.py, whose helpers the tests share with the benchmarks (the stalled-handshake
    attack, the frozen registry an encoder is measured and compared on): written once."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_common", ROOT / "bench" / "common.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def recording_rule(record: str) -> str:
    """The expression of a recording rule as alerts/aix-rules.yml ships it."""
    import yaml
    rules = yaml.safe_load((ROOT / "alerts" / "aix-rules.yml").read_text())
    return next(r["expr"] for g in rules["groups"] for r in g["rules"] if r.get("record") == record)


def need(binary: str) -> str:
    """Path of a real tool the test needs; skip without it, unless the run requires tools (tests/run.sh)."""
    path = shutil.which(binary)
    if not path:
        if os.environ.get("AIX_EXPORTER_REQUIRE_TOOLS"):
            pytest.fail(f"{binary} not installed (Debian package prometheus) but AIX_EXPORTER_REQUIRE_TOOLS is set")
        pytest.skip(f"{binary} not installed (Debian package prometheus)")
    return path


def pytest_terminal_summary(terminalreporter):
    """Say it loudly, in the run's last lines, when the real AIX samples were not there: the
    conformance tests against them were skipped, not passed."""
    if CORPUS.exists():
        return
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if isinstance(r.longrepr, tuple) and "not present" in str(r.longrepr[2])]
    if skipped:
        terminalreporter.write_sep("!", f"{len(skipped)} conformance tests against real AIX output SKIPPED", red=True)
        terminalreporter.write_line(f"{CORPUS} is absent: the parsers and the importer ran on our own fixtures "
                                    "only. Clone beside ../shared (or set AIX_EXPORTER_SHARED) to run them.")


# Parallel runs (tests/run.sh: pytest-xdist). A file's tests stay together on one worker, so a
# module's fixtures (a Prometheus, a backfilled store) are built once; the files that use the
# session's case-study Prometheus (on the demo's port 19090, where the README's commands run as
# typed) and the files that run the demo on its own ports form one unit, so that one worker alone
# holds those ports and builds that history once. (A scheduler of our own, as xdist's loadfile
# is: its loadgroup marks do not reach the test ids under pytest 9.)
SHARED_PORTS = ("case_study_prometheus", "case_study_victoria", "case_study_store", "case_study_history")
SHARED_PORT_FILES = {"test_docs.py", "test_demo.py"}
_units: dict = {}


def scheduling_unit(path: str) -> str:
    """The unit a test file's tests are scheduled in: 'case-study' for the files named above, else
    the file."""
    if path not in _units:
        file = ROOT / path
        shared = file.name in SHARED_PORT_FILES or (file.is_file() and any(n in file.read_text() for n in SHARED_PORTS))
        _units[path] = "case-study" if shared else path
    return _units[path]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class ByUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            # each Python of test_pythons.py is a unit of its own: minutes each, and nothing shared
            return nodeid if path.endswith("/test_pythons.py") else scheduling_unit(path)
    return ByUnit(config, log)
