"""The README's two commands keep pip inside a virtual environment (PEP 668: Debian's python3
is externally managed), install the checkout being run, and say where the environment is."""
import os
import re
import subprocess

from tests.lib import ROOT

SCRIPTS = [ROOT / "tests" / "run.sh", ROOT / "deploy" / "demo" / "run.sh"]
VENV_LIB = ROOT / "deploy" / "lib" / "venv.sh"


def test_scripts_use_the_shared_venv_helper_and_never_pip_outside_it():
    for script in SCRIPTS:
        text = script.read_text()
        assert ". deploy/lib/venv.sh" in text and "ensure_venv" in text, script
        code = [l for l in text.splitlines() if not l.lstrip().startswith("#")]
        assert not [l for l in code if re.search(r"\bpip\b", l)], f"{script.name} runs pip itself"
        assert not [l for l in code if re.search(r"(^|[^/$\w])python3 -m aix_exporter", l)], script.name
    lib = [l for l in VENV_LIB.read_text().splitlines() if not l.lstrip().startswith("#")]
    pips = [l for l in lib if re.search(r"\bpip\b", l)]
    assert pips and all('"$VENV/bin/python" -m pip' in l for l in pips), pips


def test_ensure_venv_creates_installs_and_reports(tmp_path):
    """Run the helper for real with a stand-in checkout: a venv at AIX_EXPORTER_VENV, the
    checkout installed editable, its bin first on PATH."""
    checkout = tmp_path / "checkout"
    (checkout / "pkg_probe").mkdir(parents=True)
    (checkout / "pkg_probe" / "__init__.py").write_text("VALUE = 42\n")
    (checkout / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "pkg-probe"\nversion = "0"\n')
    venv = tmp_path / "venv"
    script = (f". {VENV_LIB}\nensure_venv ''\ncommand -v python\n"
              "python -c 'import pkg_probe, sys; print(pkg_probe.VALUE, sys.prefix)'\n")
    env = {**os.environ, "AIX_EXPORTER_VENV": str(venv)}
    r = subprocess.run(["bash", "-c", script], cwd=checkout, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"virtual environment: {venv}" in r.stdout
    assert f"{venv}/bin/python" in r.stdout
    assert f"42 {venv}" in r.stdout


def test_ensure_venv_runs_pip_again_only_when_the_install_would_differ(tmp_path):
    """A start with the venv present skips pip (4 s of the demo's start) while the checkout,
    the extras and pyproject.toml are those of the last install; a changed pyproject.toml runs
    pip again. pip is taken out of the venv after the first run, so a run that calls it fails."""
    checkout = tmp_path / "checkout"
    (checkout / "pkg_probe").mkdir(parents=True)
    (checkout / "pkg_probe" / "__init__.py").write_text("VALUE = 42\n")
    pyproject = checkout / "pyproject.toml"
    pyproject.write_text('[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
                         '[project]\nname = "pkg-probe"\nversion = "0"\n')
    venv = tmp_path / "venv"
    env = {**os.environ, "AIX_EXPORTER_VENV": str(venv)}

    def run(extras=""):
        script = f". {VENV_LIB}\nensure_venv '{extras}' || exit 1\npython -c 'import pkg_probe; print(pkg_probe.VALUE)'\n"
        return subprocess.run(["bash", "-c", script], cwd=checkout, capture_output=True, text=True, env=env,
                              timeout=300)

    assert run().returncode == 0
    for pip in venv.glob("lib/python3*/site-packages/pip"):
        pip.rename(pip.with_name("pip-taken-away"))
    again = run()
    assert again.returncode == 0 and again.stdout.strip().endswith("42"), again.stdout + again.stderr
    other_extras = run("[x]")
    assert other_extras.returncode != 0 and "No module named pip" in other_extras.stderr
    pyproject.write_text(pyproject.read_text().replace('version = "0"', 'version = "1"'))
    changed = run()
    assert changed.returncode != 0 and "No module named pip" in changed.stderr, changed.stdout + changed.stderr
