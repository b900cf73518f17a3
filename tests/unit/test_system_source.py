import os
import subprocess
import time

import pytest

from aix_exporter.config import Settings
from aix_exporter.sources import CommandFailed, SourceError, open_source, system
from aix_exporter.sources.system import SystemSource, run


def test_runs_argv_without_shell_in_c_locale():
    out = run(["/usr/bin/env"], timeout=10)
    env = dict(l.split("=", 1) for l in out.splitlines())
    assert env["LC_ALL"] == "C" and env["LANG"] == "C" and env["PATH"] == "/usr/bin:/usr/sbin:/bin:/sbin"
    assert run(["/bin/echo", "a;b", "$(x)"], timeout=10) == "a;b $(x)\n"  # no shell expansion


def test_relative_path_is_refused():
    with pytest.raises(SourceError, match="absolute path") as e:
        run(["vmstat", "1", "1"], timeout=5)
    assert str(e.value) == "command must have an absolute path: ['vmstat', '1', '1']"


def test_nonzero_exit_reports_first_stderr_line():
    with pytest.raises(SourceError, match="exit status 2: .*No such file"):
        run(["/bin/ls", "/definitely/not/here"], timeout=5)


def test_timeout_kills_the_process_group_without_orphans(tmp_path):
    # (3 s, not a fraction of one: under load the shell had not written the child's PID when a
    # 0.5 s deadline killed it, and the test read an empty file)
    marker = tmp_path / "child.pid"
    script = f"sleep 30 & echo $! > {marker}.new && mv {marker}.new {marker}; wait"
    start = time.monotonic()
    with pytest.raises(SourceError, match="timed out after 3s"):
        run(["/bin/sh", "-c", script], timeout=3.0)
    assert time.monotonic() - start < 15
    child = int(marker.read_text())
    time.sleep(0.2)
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(child)], capture_output=True, text=True).stdout.strip()
    # Killed with its group: gone, or a zombie waiting for init to reap it (it was a grandchild).
    assert state == "" or state.startswith("Z"), f"child {child} survived: {state}"


def test_system_argv_use_absolute_paths_and_configured_tunables():
    s = Settings()
    s.vmo.tunables = ["lgpg_regions", "lgpg_size", "maxpin%"]
    src = SystemSource(s)
    assert src.argv("vmo") == ["/usr/sbin/vmo", "-L", "lgpg_regions", "-L", "lgpg_size", "-L", "maxpin%"]
    assert src.argv("vmstat") == ["/usr/bin/vmstat", "-w", "-l", "5", "2"]
    assert src.argv("svmon_g") == ["/usr/bin/svmon", "-G"]
    for key in ("vmstat", "vmstat_v", "vmstat_s", "svmon_g", "vmo"):
        assert os.path.isabs(src.argv(key)[0])
    assert "vmstat" in src.slow_keys


def test_open_source_rejects_unknown_specs():
    with pytest.raises(ValueError, match="unknown source"):
        open_source("bogus")
    with pytest.raises(ValueError, match="unknown source"):
        open_source("replay:")


def test_no_shell_anywhere_in_the_package():
    import pathlib
    import re
    pkg = pathlib.Path(__file__).resolve().parents[2] / "exporter" / "aix_exporter"
    offenders = []
    for path in pkg.rglob("*.py"):
        text = path.read_text()
        for pattern in (r"shell\s*=\s*True", r"os\.system\(", r"os\.popen\(", r"commands\.getoutput", r"pty\.spawn"):
            if re.search(pattern, text):
                offenders.append(f"{path.name}: {pattern}")
    assert offenders == []


def test_monitored_pids_are_ascii_digits_before_they_reach_a_command_line(monkeypatch):
    from aix_exporter.sources import system
    ps_out = " 2753002 dsmserv\n \u0663\u0663 dsmserv\n 3014682 dsmsta\n   12 init\n"
    monkeypatch.setattr(system, "run", lambda argv, timeout: ps_out)
    assert SystemSource().pids() == ["2753002", "3014682"]


def test_a_grandchild_that_left_the_group_holding_stdout_cannot_hang_the_read(tmp_path):
    """setsid puts the sleeper in a new session (out of our kill), with our stdout still open:
    the read ends at the timeout instead of waiting for an end of file that never comes."""
    setsid = "/usr/bin/setsid"
    if not os.path.exists(setsid):
        pytest.skip("no setsid")
    marker = tmp_path / "escaped.pid"
    script = f"{setsid} /bin/sh -c 'echo $$ > {marker}; exec sleep 60' & echo started; wait"
    start = time.monotonic()
    with pytest.raises(SourceError, match="timed out after 1s"):
        run(["/bin/sh", "-c", script], timeout=1)
    assert time.monotonic() - start < 8
    try:
        os.kill(int(marker.read_text()), 9)
    except (OSError, ValueError):
        pass


def test_output_over_the_cap_is_an_error_not_memory():
    with pytest.raises(SourceError, match="printed more than 100000 bytes"):
        run(["/usr/bin/yes"], timeout=10, max_output=100_000)


def test_dsmadmc_password_never_reaches_an_error_message():
    from aix_exporter.sources.system import redact
    with pytest.raises(SourceError) as e:
        run(["/bin/sh", "-c", "exit 3", "-id=admin", "-pa=s3cr3t", "-PASSWORD=other"], timeout=5)
    assert "s3cr3t" not in str(e.value) and "other" not in str(e.value) and "-pa=***" in str(e.value)
    assert redact(["/usr/bin/dsmadmc", "-id=a", "-pa=x y"]) == "/usr/bin/dsmadmc -id=a -pa=***"


def test_dsmadmc_password_goes_to_stdin_never_to_argv_or_logs(tmp_path, caplog):
    """A stand-in dsmadmc records its argv and what it read on stdin; the password must be only
    on stdin, and a failing query's log line must not show it."""
    from aix_exporter.commands import COMMANDS
    from aix_exporter.exporter import Exporter
    from aix_exporter.collectors.tsm_server import TsmServerCollector
    root = tmp_path / "root" / "usr" / "bin"
    root.mkdir(parents=True)
    seen = tmp_path / "seen"
    (root / "dsmadmc").write_text(f"#!/bin/sh\necho \"argv: $*\" >> {seen}\nread pw\necho \"stdin: $pw\" >> {seen}\n"
                                  "echo 'ANR2034E SELECT: No match found using this criteria.'\nexit 11\n")
    (root / "dsmadmc").chmod(0o755)
    pw = tmp_path / "tsm.pw"
    pw.write_text("S3cr3t-Pa55\n")
    pw.chmod(0o600)
    s = Settings()
    s.command_root, s.tsm.admin_id, s.tsm.password_file = str(tmp_path / "root"), "monitor", str(pw)
    src = SystemSource(s)
    assert src.read("tsm_processes").startswith("ANR2034E")          # exit 11 with no match: an answer
    text = seen.read_text()
    assert "stdin: S3cr3t-Pa55" in text
    assert all("S3cr3t" not in l for l in text.splitlines() if l.startswith("argv:"))
    assert all("S3cr3t" not in " ".join(COMMANDS[k].argv(s)) for k in ("tsm_processes", "tsm_mounts"))
    # a failing query: the log names the command, never the password
    (root / "dsmadmc").write_text("#!/bin/sh\nread pw\necho 'ANR0433E Session 12 refused: invalid password' >&2\n"
                                  "exit 3\n")
    e = Exporter(src, [TsmServerCollector(s)])
    e.collect_all()
    assert "collector=tsm_server" in caplog.text and "ANR0433E" in caplog.text
    assert "S3cr3t" not in caplog.text
    pw.chmod(0o644)
    with pytest.raises(SourceError, match="readable by others"):
        src.read("tsm_mounts")


# ---------------------------------------------------------------- run() from both sides of each limit

SH = "/bin/sh"


def test_a_command_that_cannot_run_is_one_line():
    with pytest.raises(SourceError) as e:
        system.run([], 10)
    assert str(e.value) == "command must have an absolute path: []"
    with pytest.raises(SourceError) as e:
        system.run(["/nonexistent/vmstat", "-v"], 10)
    assert str(e.value) == "/nonexistent/vmstat: No such file or directory"


def test_output_up_to_the_cap_is_read_and_a_byte_more_is_an_error():
    assert system.run([SH, "-c", "printf 0123456789"], 10, max_output=10) == "0123456789"
    with pytest.raises(SourceError) as e:
        system.run([SH, "-c", "printf 0123456789x"], 10, max_output=10)
    assert str(e.value) == f"{SH} -c printf 0123456789x: printed more than 10 bytes, process group killed"


def test_a_timeout_is_its_own_words():
    with pytest.raises(SourceError) as e:
        system.run([SH, "-c", "sleep 30"], 0.5)
    assert str(e.value) == f"{SH} -c sleep 30: timed out after 0.5s, process group killed"


def test_a_command_that_closed_its_output_but_did_not_exit_times_out():
    with pytest.raises(SourceError) as e:
        system.run([SH, "-c", "exec >&- 2>&-; sleep 3"], 0.5)
    assert str(e.value) == f"{SH} -c exec >&- 2>&-; sleep 3: timed out after 0.5s, process group killed"


def test_a_failure_keeps_its_output_in_pieces_and_the_first_4096_bytes_of_stderr():
    with pytest.raises(CommandFailed) as e:
        system.run([SH, "-c", "printf a; sleep 0.2; printf b; printf '%4096s' '' >&2; sleep 0.2; printf x >&2; exit 3"],
                   10)
    assert e.value.output == "ab"
    assert e.value.stderr == " " * 4096                  # what came after the first 4,096 bytes is dropped
    assert str(e.value) == f"{SH} -c printf a; sleep 0.2; printf b; printf '%4096s' '' >&2; sleep 0.2; printf x >&2; " \
                           "exit 3: exit status 3"


def test_each_run_is_counted_with_its_cpu(tmp_path):
    sh = tmp_path / "costsh"                                     # a name of its own: its own line of costs
    os.symlink(SH, sh)
    before = system.command_costs().get("costsh", (0.0, 0.0, 0))
    system.run([str(sh), "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"], 30)
    busy = system.command_costs()["costsh"]
    system.run([str(sh), "-c", "true"], 30)
    after = system.command_costs()["costsh"]
    assert after[2] - before[2] == 2
    assert busy[0] > before[0] and after[0] >= busy[0]           # a counter: a cheap run adds, never replaces
    assert after[1] >= busy[1] > before[1]


def test_the_default_cap_is_64_mib():
    cap = 64 << 20
    assert len(system.run(["/usr/bin/head", "-c", str(cap), "/dev/zero"], 60)) == cap
    with pytest.raises(SourceError) as e:
        system.run(["/usr/bin/head", "-c", str(cap + 1), "/dev/zero"], 60)
    assert str(e.value) == f"/usr/bin/head -c {cap + 1} /dev/zero: printed more than 67108864 bytes, process group killed"


def test_a_command_inherits_no_descriptor_of_the_exporter(tmp_path):
    import fcntl
    opened = os.open(tmp_path / "held", os.O_WRONLY | os.O_CREAT)
    fd = fcntl.fcntl(opened, fcntl.F_DUPFD, 100)   # a free descriptor above ls's own
    try:
        os.set_inheritable(fd, True)               # even one marked inheritable
        seen = system.run([SH, "-c", "ls /proc/self/fd"], 10).split()
        assert str(fd) not in seen and {"0", "1", "2"} <= set(seen)
    finally:
        os.close(fd)
        os.close(opened)


def test_a_command_reaped_elsewhere_has_the_unknown_exit_status_minus_1():
    proc = subprocess.Popen(["/bin/true"])
    os.waitpid(proc.pid, 0)               # reaped by someone else: no status left for wait4
    assert system._try_reap(proc) is True
    assert proc.returncode == -1


def test_a_command_that_exits_in_time_but_leaves_its_pipe_held_past_the_deadline_timed_out():
    # it exits at once, a child it left keeps stdout open: the deadline (0.5 s) comes before the
    # second of grace after an exit, so the read ends on the deadline, the group killed
    with pytest.raises(SourceError) as e:
        system.run([SH, "-c", "printf x; /bin/sleep 30 & exit 0"], 0.5)
    assert str(e.value) == f"{SH} -c printf x; /bin/sleep 30 & exit 0: timed out after 0.5s, process group killed"


def test_a_failure_names_the_first_200_characters_of_its_first_stderr_line():
    line = "E" * 250
    with pytest.raises(CommandFailed) as e:
        system.run([SH, "-c", f"echo {line} >&2; exit 4"], 10)
    assert str(e.value) == f"{SH} -c echo {line} >&2; exit 4: exit status 4: {'E' * 200}"


def test_bytes_that_are_not_utf8_are_replaced_in_an_answer_and_in_a_failure():
    assert system.run(["/usr/bin/printf", "a\\377b"], 10) == "a\ufffdb"
    with pytest.raises(CommandFailed) as e:
        system.run([SH, "-c", "printf 'a\\377b'; exit 1"], 10)
    assert e.value.output == "a\ufffdb"


def test_a_reaped_commands_cost_is_its_user_and_system_cpu_and_its_wall_time(monkeypatch):
    """One run's cost, from wait4's usage and the monotonic clock, both stood in: 0.25 s user
    + 0.5 s system of CPU, started at 100.0 and reaped at 102.0: 2 s of wall time."""
    import types
    monkeypatch.setattr(system.os, "wait4", lambda pid, options: (
        pid, 0, types.SimpleNamespace(ru_utime=0.25, ru_stime=0.5)))
    monkeypatch.setattr(system, "time", types.SimpleNamespace(monotonic=lambda: 102.0))
    monkeypatch.setattr(system, "_costs", {})
    proc = types.SimpleNamespace(returncode=None, pid=4242, args=["/usr/bin/fakecmd", "-x"], started=100.0)
    assert system._try_reap(proc) is True and proc.returncode == 0
    assert system.command_costs() == {"fakecmd": (0.75, 2.0, 1)}
    proc.returncode = None
    assert system._try_reap(proc) is True
    assert system.command_costs() == {"fakecmd": (1.5, 4.0, 2)}


def test_a_failure_joins_its_stderr_pieces_and_replaces_bytes_that_are_not_utf8():
    with pytest.raises(CommandFailed) as e:
        system.run([SH, "-c", "printf ab >&2; sleep 0.2; printf 'c\\377d' >&2; exit 3"], 10)
    assert e.value.stderr == "abc\ufffdd"
    assert str(e.value).endswith(": exit status 3: abc\ufffdd")


def test_output_is_still_taken_for_a_second_after_the_command_exited():
    assert system.AFTER_EXIT_SECONDS == 1.0


def test_one_dsmadmc_at_a_time_and_none_after_one_timed_out(tmp_path):
    """A TSM server that does not answer costs one dsmadmc session at a time (issue 57, item 2):
    callers take turns, and after a timeout none is started for command_timeout_seconds."""
    import threading
    from aix_exporter.sources import TimedOut
    log = tmp_path / "starts"
    dsmadmc = tmp_path / "dsmadmc"
    dsmadmc.write_text(f"#!/bin/sh\necho start >> {log}\n/bin/sleep 30\n")
    dsmadmc.chmod(0o755)
    s = Settings()
    s.command_timeout_seconds = 1
    src = SystemSource(s)
    errors = []

    def one():
        try:
            src.dsmadmc([str(dsmadmc), "q", "mount"], 1.0)
        except SourceError as e:
            errors.append(e)

    threads = [threading.Thread(target=one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert log.read_text() == "start\n"   # the other two waited their turn, then found the server silent
    assert sum(isinstance(e, TimedOut) for e in errors) == 1 and len(errors) == 3
    # (a waiter finds the server silent, or its own deadline passed while the first one ran)
    assert all(": not started: " in str(e) for e in errors if not isinstance(e, TimedOut))
    time.sleep(1.1)   # the quiet second is over: asked again, once
    with pytest.raises(TimedOut):
        src.dsmadmc([str(dsmadmc), "q", "mount"], 1.0)
    assert log.read_text() == "start\nstart\n"


def test_a_dsmadmc_that_answers_leaves_the_lane_open(tmp_path):
    dsmadmc = tmp_path / "dsmadmc"
    dsmadmc.write_text("#!/bin/sh\nread pw\necho \"got $pw\"\n")
    dsmadmc.chmod(0o755)
    src = SystemSource(Settings())
    for _ in range(3):
        assert src.dsmadmc([str(dsmadmc)], 5, b"secret\n") == "got secret\n"


def test_a_dsmadmc_that_echoes_its_standard_input_never_shows_the_password(tmp_path):
    """Issue 57, item 6: the password goes to dsmadmc's prompt; a dsmadmc (or a stand-in, or a
    hostile LPAR) that echoes it on stderr or stdout and fails has it hidden in the error."""
    from aix_exporter.sources import CommandFailed, TimedOut
    dsmadmc = tmp_path / "dsmadmc"
    dsmadmc.write_text('#!/bin/sh\nread pw\necho "ANS1017E Session rejected for $pw" >&2\necho "out $pw"\nexit 3\n')
    dsmadmc.chmod(0o755)
    src = SystemSource(Settings())
    with pytest.raises(CommandFailed) as e:
        src.dsmadmc([str(dsmadmc), "-id=monitor"], 5, b"S3cret-pw\n")
    assert "S3cret-pw" not in f"{e.value}{e.value.output}{e.value.stderr}"
    assert str(e.value).endswith("exit status 3: ANS1017E Session rejected for ***") and e.value.output == "out ***\n"
    dsmadmc.write_text('#!/bin/sh\nread pw\necho "$pw" >&2\n/bin/sleep 30\n')
    with pytest.raises(TimedOut) as e:
        src.dsmadmc([str(dsmadmc), "-id=monitor"], 1, b"S3cret-pw\n")
    assert "S3cret-pw" not in str(e.value)
