"""The service as an AIX install sets it up, run as an unprivileged user (issue 29): src-setup.sh
(the script the RPM, the .pyz and install.sh share) with stand-ins for the AIX commands, then
the exporter as that user with the flags file SRC passes (@ARGS), reading a TSM activity log:
ANR0358E is counted, the state saved in the directory the installer made for the user.
Before, no installer made /var/lib/aix_exporter and the TSM collector failed every cycle."""
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from aix_exporter.collectors import registry
from aix_exporter.tools import standin
from tests.lib import FIXTURES, ROOT
from tests.e2e.test_aix_packages import standins

USER = "nobody"


@pytest.fixture
def world():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root (to run the service as another user) and setpriv")
    try:
        import pwd
        uid = pwd.getpwnam(USER).pw_uid
    except KeyError:
        pytest.skip(f"no user {USER}")
    d = tempfile.mkdtemp(prefix="aix-exporter-unpriv-")   # /tmp: the user can reach it (pytest's tmp is 0700)
    os.chmod(d, 0o755)
    yield d, uid
    shutil.rmtree(d, ignore_errors=True)


def test_an_unprivileged_service_counts_anr0358e(world):
    d, uid = world
    calls = os.path.join(d, "calls")
    open(calls, "w").close()
    aixbin = standins(__import__("pathlib").Path(d), calls)
    os.unlink(aixbin / "chown")                      # the real chown: the directory must become the user's
    log = os.path.join(d, "dsmserv.log")
    with open(log, "w") as fh:
        fh.write("11/25/2026 08:00:00  ANR0984I Process 801 for EXPIRE INVENTORY started.\n")
    os.chmod(log, 0o644)
    statedir = os.path.join(d, "aix_exporter_state")   # (named for the exporter: src-setup.sh refuses others)
    example = os.path.join(d, "example.yml")
    with open(example, "w") as fh:
        fh.write(f"tsm:\n  actlog_file: {log}\n  state_file: {statedir}/tsm-state.json\n")
    launcher = os.path.join(d, "aix-exporter")
    with open(launcher, "w") as fh:
        fh.write(f"#!/bin/sh\nPYTHONPATH={ROOT / 'exporter'} exec {sys.executable} -m aix_exporter.cli \"$@\"\n")
    os.chmod(launcher, 0o755)
    config, srvlog = os.path.join(d, "aix_exporter.yml"), os.path.join(d, "aix_exporter.log")
    env = {"PATH": f"{aixbin}:/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C"}
    r = subprocess.run(["/bin/sh", str(ROOT / "deploy" / "aix" / "src-setup.sh"), "install", "-x", launcher, "-u", USER,
                        "-c", config, "-e", example, "-l", srvlog, "-s", statedir], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    st = os.stat(statedir)
    assert (st.st_uid, oct(st.st_mode & 0o777)) == (uid, "0o700")
    mk = [c.split("\t") for c in open(calls).read().splitlines() if c.startswith(("mkssys", "chssys"))]
    assert mk and mk[0][mk[0].index("-a") + 1] == f"@{d}/aix_exporter.args" and mk[0][mk[0].index("-u") + 1] == str(uid)
    others = [f"--no-collector.{name}" for name in registry() if name != "tsm"]
    commands = os.path.join(d, "root")   # off AIX the system source runs stand-in commands (unused here)
    standin.write(str(FIXTURES / "replay" / "tsm-lpar"), commands)
    for dirpath, dirnames, filenames in os.walk(d):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            if not p.startswith(statedir):
                os.chmod(p, os.stat(p).st_mode | 0o055)

    def once():   # what SRC runs (LAUNCHER @ARGS), as the service user, one collection
        r = subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", launcher,
                            f"@{d}/aix_exporter.args", "--source", "system", "--path.commands", commands, "--once",
                            *others],
                           capture_output=True, text=True, env=env, timeout=120)
        assert r.returncode == 0, r.stderr
        assert "PermissionError" not in r.stderr and "Traceback" not in r.stderr, r.stderr
        return r.stdout.splitlines()

    first = once()   # a fresh service reads the live log from its end
    assert 'aix_tsm_messages_total{msgid="ANR0358E",severity="E"} 0.0' in first
    assert 'aix_exporter_collector_success{collector="tsm"} 1.0' in first
    with open(log, "a") as fh:
        fh.write("11/25/2026 08:01:00  ANR0358E Database initialization failed: insufficient memory.\n")
    second = once()
    assert 'aix_tsm_messages_total{msgid="ANR0358E",severity="E"} 1.0' in second
    assert os.stat(os.path.join(statedir, "tsm-state.json")).st_uid == uid
