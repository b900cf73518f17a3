"""The parallel run's units (tests/conftest.py): a file's tests together; the files that hold
the demo's port (the case-study Prometheus on 19090) in one unit; the demo's own test, which runs
it on free ports, a unit of its own, handed out among the first."""
from tests.conftest import scheduling_unit


def test_the_files_on_the_demos_ports_share_one_unit_and_others_are_their_own():
    assert scheduling_unit("tests/e2e/test_docs.py") == "case-study"
    assert scheduling_unit("tests/e2e/test_demo.py") == "tests/e2e/test_demo.py"   # free ports (tests/lib/demo.py)
    assert scheduling_unit("tests/e2e/test_report.py") == "case-study"            # case_study_store
    assert scheduling_unit("tests/e2e/test_rules_victoria.py") == "case-study"    # case_study_victoria
    assert scheduling_unit("tests/unit/test_plan.py") == "tests/unit/test_plan.py"
    assert scheduling_unit("tests/e2e/test_ssh.py") == "tests/e2e/test_ssh.py"


def test_the_long_units_are_handed_out_first_and_the_rest_by_their_number_of_tests():
    from tests.conftest import unit_order
    ids = ["tests/unit/test_a.py::t1", "tests/unit/test_b.py::t1", "tests/unit/test_b.py::t2", "tests/e2e/test_demo.py::t1",
           "tests/e2e/test_pythons.py::test_run[3.9]", "tests/e2e/test_docs.py::test_shell_block[x]",
           "tests/e2e/test_pythons.py::test_run[3.10]", "tests/e2e/test_ssh.py::t1",
           "tests/e2e/test_dashboard_render.py::t1", "tests/unit/test_c.py::t1"]
    assert unit_order(ids) == ["case-study", "tests/e2e/test_demo.py", "tests/e2e/test_pythons.py::test_run[3.9]",
                               "tests/e2e/test_pythons.py::test_run[3.10]", "tests/e2e/test_dashboard_render.py",
                               "tests/e2e/test_ssh.py", "tests/unit/test_b.py", "tests/unit/test_a.py",
                               "tests/unit/test_c.py"]
