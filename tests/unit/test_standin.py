"""The stand-in AIX commands (tools/standin.py), run as the system source runs them: each prints
its replay file for exactly the argv the command table builds, fails like a real command on
any other, ps lists the replay's processes and ps eww one process under the header."""
import os
import stat
import subprocess

import pytest

from aix_exporter.commands import TABLE
from aix_exporter.config import Settings
from aix_exporter.tools import simulate, standin


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    d = tmp_path_factory.mktemp("replay")
    simulate.write_replay("case-study", str(d), 28800, 1)
    return d


def run(out, argv):
    return subprocess.run([os.path.join(str(out), argv[0].lstrip("/")), *argv[1:]], capture_output=True, text=True,
                          timeout=30)


def settings(admin=True):
    s = Settings()
    s.vmstat.interval_seconds, s.tape.interval_seconds = 7, 3
    if admin:
        s.tsm.admin_id = "monitor"
    return s


def test_each_command_prints_its_replay_file_for_the_tables_argv(replay, tmp_path):
    s = settings()
    written = standin.write(str(replay), str(tmp_path), s)
    assert sorted(os.path.relpath(p, tmp_path) for p in written) == [
        "usr/bin/dsmadmc", "usr/bin/errpt", "usr/bin/iostat", "usr/bin/ps", "usr/bin/svmon", "usr/bin/vmstat",
        "usr/sbin/asoo", "usr/sbin/vmo"]
    for p in written:
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o750
    for cmd in TABLE:
        if cmd.fetch in ("run", "dsmadmc"):
            r = run(tmp_path, cmd.argv(s))
            assert (r.returncode, r.stdout) == (0, (replay / f"{cmd.key}.txt").read_text()), cmd.key
    r = run(tmp_path, ["/usr/bin/svmon", "-P", "111", "222"])
    assert (r.returncode, r.stdout) == (0, (replay / "svmon_p.txt").read_text())


def test_other_arguments_fail_like_a_real_command(replay, tmp_path):
    standin.write(str(replay), str(tmp_path), settings())
    r = run(tmp_path, ["/usr/bin/vmstat", "-w", "-l", "5", "2"])       # not the configured interval
    assert (r.returncode, r.stdout, r.stderr) == (2, "", "vmstat: stand-in has no output for: -w -l 5 2\n")
    r = run(tmp_path, ["/usr/bin/svmon", "-P"])
    assert r.returncode == 2


def test_ps_lists_the_replays_processes_and_eww_prints_one(replay, tmp_path):
    standin.write(str(replay), str(tmp_path), settings())
    lines = (replay / "ps_env.txt").read_text().splitlines()
    procs = [(f.split()[0], os.path.basename(f.split()[4])) for f in lines[1:] if f.split() and f.split()[0].isdigit()]
    assert procs and standin._monitored(str(replay)) == procs
    r = run(tmp_path, ["/usr/bin/ps", "-e", "-o", "pid=", "-o", "comm="])
    assert (r.returncode, r.stdout) == (0, "".join(f"{pid} {name}\n" for pid, name in procs))
    pid = procs[0][0]
    r = run(tmp_path, ["/usr/bin/ps", "eww", pid])
    assert r.stdout.splitlines() == [lines[0]] + [line for line in lines[1:] if line.split()[:1] == [pid]]


def test_without_a_tsm_administrator_there_is_no_dsmadmc(replay, tmp_path):
    written = standin.write(str(replay), str(tmp_path), settings(admin=False))
    assert not any(p.endswith("dsmadmc") for p in written)


def test_a_replay_without_ps_output_lists_no_process(tmp_path):
    assert standin._monitored(str(tmp_path)) == []
    (tmp_path / "ps_env.txt").write_text("  PID    TTY STAT  TIME COMMAND\nx y\n 12 - A 0:00 /usr/bin/dsmserv X=1\n")
    assert standin._monitored(str(tmp_path)) == [("12", "dsmserv")]


def test_the_command_line_writes_and_lists_the_scripts(replay, tmp_path, capsys):
    cfg = tmp_path / "c.yml"
    cfg.write_text("vmstat:\n  interval_seconds: 9\n")
    assert standin.main([str(replay), str(tmp_path / "out"), "--config.file", str(cfg)]) == 0
    assert sorted(capsys.readouterr().out.split()) == sorted(
        str(tmp_path / "out" / p) for p in ("usr/bin/errpt", "usr/bin/iostat", "usr/bin/ps", "usr/bin/svmon",
                                            "usr/bin/vmstat", "usr/sbin/asoo", "usr/sbin/vmo"))
    assert run(tmp_path / "out", ["/usr/bin/vmstat", "-w", "-l", "9", "2"]).returncode == 0


def test_a_ps_line_of_five_fields_is_a_process():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "ps_env.txt"), "w") as fh:
            fh.write("  PID    TTY STAT  TIME COMMAND\n 12 - A 0:00 /usr/bin/dsmserv\n 13 - A 0:00\n")
        assert standin._monitored(d) == [("12", "dsmserv")]


def test_a_ps_eww_replay_with_bytes_that_are_not_utf8_still_lists_its_processes(tmp_path):
    (tmp_path / "ps_env.txt").write_bytes(b"      PID    TTY STAT  TIME COMMAND\n"
                                          b"  2687182      - A    12:00 /usr/tivoli/tsm/server/bin/dsmserv \xff\xfe\n")
    assert standin._monitored(str(tmp_path)) == [("2687182", "dsmserv")]
