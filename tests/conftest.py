import pytest

from tests.lib import CORPUS, ROOT

# (the helpers live in tests/lib: this file keeps pytest's fixtures and hooks)


@pytest.fixture
def _corpus_required():
    pytest.fail(f"{CORPUS} is missing but CI=true: the conformance tests must run against the real samples")


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
# files whose every test is a unit of its own: minutes each, nothing shared (one Python each)
PER_TEST_FILES = {"test_pythons.py"}
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
            return nodeid if path.rsplit("/", 1)[-1] in PER_TEST_FILES else scheduling_unit(path)
    return ByUnit(config, log)
