"""The forced-command wrapper (deploy/ssh/aix-exporter-ssh-wrapper, made by
aix_exporter.tools.sshwrapper), run here as sshd runs it: SSH_ORIGINAL_COMMAND in its
environment, its options from authorized_keys. It runs every argv the ssh source sends for any
valid configuration, and refuses everything else with one line and exit status 126."""
import os
import shlex
import subprocess

import pytest

from aix_exporter.commands import TABLE
from aix_exporter.config import Settings
from aix_exporter.sources.remotelog import HELPER, PERL
from aix_exporter.sources.ssh import ENV_PREFIX
from aix_exporter.tools import sshwrapper
from tests.conftest import ROOT

WRAPPER = ROOT / "deploy" / "ssh" / "aix-exporter-ssh-wrapper"


def test_the_shipped_wrapper_is_the_generators_output_and_executable():
    assert WRAPPER.read_text() == sshwrapper.render(), "regenerate: python3 -m aix_exporter.tools.sshwrapper > " + str(WRAPPER)
    assert os.stat(WRAPPER).st_mode & 0o755 == 0o755
    assert subprocess.run(["/usr/bin/perl", "-c", str(WRAPPER)], capture_output=True, timeout=30).returncode == 0


@pytest.fixture
def commands(tmp_path):
    """Every executable of the table under tmp_path, each printing its argv."""
    for c in TABLE:
        if c.argv is None:
            continue
        for path in {(c.argv(Settings(), ["1"]) if c.fetch in ("processes", "per_process") else c.argv(Settings()))[0],
                     "/usr/bin/ps", "/opt/tivoli/tsm/client/ba/bin64/dsmadmc"}:
            exe = tmp_path / path.lstrip("/")
            exe.parent.mkdir(parents=True, exist_ok=True)
            exe.write_text('#!/bin/sh\necho "ran $0 $*"\n')
            exe.chmod(0o755)
    return tmp_path


def wrap(argv, *options, raw=None, stdin=None, env=None):
    e = {"PATH": "/usr/bin:/bin", **(env or {})}
    if raw is not False:
        e["SSH_ORIGINAL_COMMAND"] = raw if raw is not None else shlex.join([*ENV_PREFIX, *argv])
    return subprocess.run(["/usr/bin/perl", str(WRAPPER), *options], input=stdin, capture_output=True, text=True,
                          env=e, timeout=30)


def every_argv(settings):
    out = [["/usr/bin/ps", "-e", "-o", "pid=", "-o", "comm="]]
    for c in TABLE:
        if c.argv is not None:
            out.append(c.argv(settings, ["123", "45678"]) if c.fetch in ("processes", "per_process") else c.argv(settings))
    return out


def varied_settings():
    a = Settings()
    b = Settings()
    b.vmstat.interval_seconds, b.tape.interval_seconds, b.tsm.summary_hours = 300, 1, 744
    b.vmo.tunables = ["lgpg_regions", "lgpg_size", "vmm_mpsize_support"]
    b.tsm.admin_id = "monitor.ro-1"
    c = Settings()
    c.tsm.admin_id = "ADMIN"
    c.tsm.dsmadmc_binary = "/opt/tivoli/tsm/client/ba/bin64/dsmadmc"
    return [a, b, c]


@pytest.mark.parametrize("which", range(3))
def test_every_command_the_source_sends_runs_under_any_valid_configuration(commands, which):
    s = varied_settings()[which]
    s.tsm.admin_id = s.tsm.admin_id or "monitor"
    for argv in every_argv(s):   # (under --root, the source sends the stand-in's path, as SshSource.run does)
        r = wrap([f"{commands}{argv[0]}", *argv[1:]], "--root", str(commands), "--dsmadmc", s.tsm.dsmadmc_binary)
        assert r.returncode == 0, (argv, r.stderr)
        assert r.stdout == f"ran {commands}{argv[0]} {' '.join(argv[1:])}\n", argv
        assert r.stderr.startswith("aix-exporter-cpu: ") and len(r.stderr.splitlines()) == 1


def test_the_password_goes_through_on_stdin_and_the_exit_status_comes_back(commands, tmp_path):
    s = Settings()
    s.tsm.admin_id = "monitor"
    argv = next(c.argv(s) for c in TABLE if c.fetch == "dsmadmc")
    (commands / "usr" / "bin" / "dsmadmc").write_text('#!/bin/sh\nread x\necho "stdin $x LC_ALL=$LC_ALL HOME=$HOME"\n')
    r = wrap([f"{commands}{argv[0]}", *argv[1:]], "--root", str(commands), stdin="secret\n", env={"HOME": "/home/x"})
    assert r.returncode == 0 and r.stdout == "stdin secret LC_ALL=C HOME=\n"   # nothing of the session's environment
    fails = commands / "usr" / "bin" / "svmon"
    fails.write_text("#!/bin/sh\necho no >&2\nexit 3\n")
    r = wrap([f"{commands}/usr/bin/svmon", "-G"], "--root", str(commands))
    assert r.returncode == 3 and r.stderr.splitlines()[0] == "no"


@pytest.mark.parametrize("raw, why", [
    (shlex.join([*ENV_PREFIX, "/bin/echo", "hi"]), "/bin/echo with these arguments is not in aix_exporter's command table"),
    (shlex.join([*ENV_PREFIX, "/usr/bin/vmstat", "-v", "-x"]), "/usr/bin/vmstat with these arguments is not in"),
    (shlex.join([*ENV_PREFIX, "/usr/bin/vmstat", "-v;", "id"]), "/usr/bin/vmstat with these arguments is not in"),
    (" ".join(ENV_PREFIX) + " /usr/bin/vmstat -v; id", "not an argv quoted for a POSIX shell"),
    (" ".join(ENV_PREFIX) + " /usr/bin/vmstat $(id)", "not an argv quoted for a POSIX shell"),
    (" ".join(ENV_PREFIX) + " /usr/bin/vmstat -v | /bin/sh", "not an argv quoted for a POSIX shell"),
    ("/usr/bin/vmstat -v", "not sent by aix_exporter (no LC_ALL=C prefix)"),
    (shlex.join([*ENV_PREFIX, "/usr/bin/svmon", "-P", "1;2"]), "/usr/bin/svmon with these arguments is not in"),
    (shlex.join([*ENV_PREFIX, "/usr/sbin/vmo", "-o", "lgpg_regions=0"]), "/usr/sbin/vmo with these arguments is not in"),
    (shlex.join([*ENV_PREFIX, "/usr/bin/dsmadmc", "-id=monitor", "-password=x", "-dataonly=yes", "query", "mount"]),
     "/usr/bin/dsmadmc with these arguments is not in"),
    (shlex.join([*ENV_PREFIX, "/usr/bin/dsmadmc", "-id=monitor", "-dataonly=yes", "delete", "volume"]),
     "/usr/bin/dsmadmc with these arguments is not in"),
    (shlex.join([*ENV_PREFIX, "/tmp/usr/bin/vmstat", "-v"]), "/tmp/usr/bin/vmstat with these arguments is not in"),
    (shlex.join([*ENV_PREFIX, PERL, "-e", "print 1", "time"]), "/usr/bin/perl with a program that is not aix_exporter's"),
    (shlex.join([*ENV_PREFIX, PERL, "-e", HELPER, "read", "/etc/shadow", "0", "10"]), "the helper on a path outside --files"),
    (shlex.join([*ENV_PREFIX, PERL, "-e", HELPER, "read", "/home/tsm/log/../../etc/shadow", "0", "10"]),
     "the helper on a path outside --files"),
    (shlex.join([*ENV_PREFIX, PERL, "-e", HELPER, "list", "/home/tsm/logs"]), "the helper on a path outside --files"),
    (shlex.join([*ENV_PREFIX]), "an empty command"),
])
def test_everything_else_is_refused_with_one_line(raw, why):
    r = wrap(None, "--files", "/home/tsm/log", raw=raw)
    assert r.returncode == 126 and r.stdout == ""
    assert r.stderr.startswith("aix-exporter-ssh-wrapper: refused: ") and why in r.stderr, r.stderr
    assert len(r.stderr.splitlines()) == 1


def test_an_interactive_login_and_wrong_options_are_refused():
    r = wrap(None, raw=False)
    assert (r.returncode, r.stderr) == (126, "aix-exporter-ssh-wrapper: refused: no command (an interactive login or "
                                             "a subsystem)\n")
    assert "unknown option --shell" in wrap(["/usr/bin/vmstat", "-v"], "--shell", "x").stderr
    assert "--files log is not an absolute path" in wrap(["/usr/bin/vmstat", "-v"], "--files", "log").stderr


def test_the_helper_runs_on_paths_under_files(tmp_path):
    log = tmp_path / "dsmserv.log"
    log.write_bytes(b"ab\n")
    r = wrap([PERL, "-e", HELPER, "read", str(log), "0", "10"], "--files", str(tmp_path))
    assert r.returncode == 0 and r.stdout == b"ab\n".hex()
    r = wrap([PERL, "-e", HELPER, "time"])
    assert r.returncode == 0 and float(r.stdout) > 1.7e9
