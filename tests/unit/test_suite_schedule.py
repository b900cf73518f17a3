"""The parallel run's units (tests/conftest.py): a file's tests together; the files that hold
the demo's ports (the case-study Prometheus on 19090, the demo itself) in one unit."""
from tests.conftest import scheduling_unit


def test_the_files_on_the_demos_ports_share_one_unit_and_others_are_their_own():
    assert scheduling_unit("tests/e2e/test_docs.py") == "case-study"
    assert scheduling_unit("tests/e2e/test_demo.py") == "case-study"
    assert scheduling_unit("tests/e2e/test_report.py") == "case-study"            # case_study_store
    assert scheduling_unit("tests/e2e/test_rules_victoria.py") == "case-study"    # case_study_victoria
    assert scheduling_unit("tests/unit/test_plan.py") == "tests/unit/test_plan.py"
    assert scheduling_unit("tests/e2e/test_ssh.py") == "tests/e2e/test_ssh.py"
