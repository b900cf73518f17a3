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
# typed) form one unit, so that one worker alone holds that port and builds that history once.
# The demo's own test runs it on free ports (tests/lib/demo.py): a unit of its own. (A scheduler
# of our own, as xdist's loadfile is: its loadgroup marks do not reach the test ids under pytest 9.)
SHARED_PORTS = ("case_study_prometheus", "case_study_victoria", "case_study_store", "case_study_history")
SHARED_PORT_FILES = {"test_docs.py"}
# files whose every test is a unit of its own: minutes each, nothing shared (one Python each)
PER_TEST_FILES = {"test_pythons.py"}
# The units that take minutes, handed out first, longest first (the rest follow by their number
# of tests, as xdist orders them): a long unit started last is the run's tail on two cores.
# Measured with --durations in a whole run (bench/perf/RESULTS.md, the README's test command).
LONG_UNITS = ("case-study", "tests/e2e/test_demo.py", "tests/e2e/test_pythons.py", "tests/e2e/test_dashboard_render.py",
              "tests/e2e/test_live_simulation.py", "tests/unit/test_alert_rules.py", "tests/e2e/test_ssh.py")
_units: dict = {}


def scheduling_unit(path: str) -> str:
    """The unit a test file's tests are scheduled in: 'case-study' for the files named above, else
    the file."""
    if path not in _units:
        file = ROOT / path
        shared = file.name in SHARED_PORT_FILES or (file.is_file() and any(n in file.read_text() for n in SHARED_PORTS))
        _units[path] = "case-study" if shared else path
    return _units[path]


def unit_of(nodeid: str) -> str:
    """The scheduling unit of one test: its own for PER_TEST_FILES, else its file's."""
    path = nodeid.split("::", 1)[0]
    return nodeid if path.rsplit("/", 1)[-1] in PER_TEST_FILES else scheduling_unit(path)


def unit_order(nodeids: list) -> list:
    """The units of these tests in the order they are handed out: LONG_UNITS first, in its order
    (a per-test file's tests by their file's place), then the others by their number of tests,
    most first, ties in collection order."""
    counts: dict = {}
    for nodeid in nodeids:
        unit = unit_of(nodeid)
        counts[unit] = counts.get(unit, 0) + 1

    def rank(unit):
        where = unit.split("::", 1)[0]   # (a per-test unit's file)
        return (LONG_UNITS.index(where), 0) if where in LONG_UNITS else (len(LONG_UNITS), -counts[unit])
    return sorted(counts, key=rank)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class ByUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    config.option.loadscopereorder = False   # the workers' collection is in unit_order already
    return ByUnit(config, log)


def pytest_collection_modifyitems(config, items):
    """On an xdist worker, the tests in the order their units are handed out (unit_order): the
    scheduler takes the units in collection order, and every worker collects the same."""
    if hasattr(config, "workerinput"):
        order = {unit: i for i, unit in enumerate(unit_order([item.nodeid for item in items]))}
        items.sort(key=lambda item: order[unit_of(item.nodeid)])   # (stable: a unit keeps its own order)
