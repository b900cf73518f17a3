"""tests/pythons.py, the runner of the LPAR's tests on other Pythons: which Pythons it finds and
which test files it runs."""
import os
import pathlib

from tests import pythons


def test_each_minor_is_found_once_at_its_newest_patch_and_none_before_3_9(tmp_path, monkeypatch):
    for name in ("3.8.18", "3.9.2", "3.9.18", "3.10.13", "3.13.0", "3.13.0-dev", "pypy3.10-7.3.12"):
        exe = tmp_path / "versions" / name / "bin" / "python3"
        exe.parent.mkdir(parents=True)
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))   # no python3.N on PATH
    got = pythons.found()
    assert got == {"3.9": str(tmp_path / "versions" / "3.9.18" / "bin" / "python3"),
                   "3.10": str(tmp_path / "versions" / "3.10.13" / "bin" / "python3"),
                   "3.13": str(tmp_path / "versions" / "3.13.0" / "bin" / "python3")}
    assert list(pythons.found({"3.10"})) == ["3.10"]


def test_the_lpars_tests_are_the_unit_tests_but_the_tool_and_host_side_ones():
    chosen = {os.path.basename(f) for f in pythons.tests()}
    every = {p.name for p in (pythons.ROOT / "tests" / "unit").glob("test_*.py")}
    assert {"test_web.py", "test_sshwrapper.py", "test_vmstat.py", "test_errpt.py", "test_exporter.py"} <= chosen
    assert not chosen & set(pythons.TOOLS_ONLY)
    assert not chosen & {"test_plan.py", "test_report_compare.py", "test_nmon.py", "test_simulator.py"}
    assert all(pathlib.Path(pythons.ROOT / "tests" / "unit" / n).exists() for n in pythons.TOOLS_ONLY)
    assert len(chosen) >= len(every) // 2   # the LPAR's share is most of the unit tests


def test_the_requirements_are_the_dependencies_the_runtime_extras_and_the_runner():
    reqs = pythons.requirements()
    assert {"h11>=0.14", "prometheus_client>=0.17", "PyYAML>=6.0", "bcrypt>=4", "asyncssh>=2.10", "psutil>=5.9",
            "pytest>=7"} <= set(reqs)
    assert not any(r.startswith(("jsonnet", "mutmut", "compose-spec", "ruff", "mypy")) for r in reqs)
