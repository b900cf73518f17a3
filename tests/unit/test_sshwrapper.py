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
from tests.lib import ROOT

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
        r = wrap([f"{commands}{argv[0]}", *argv[1:]], "--root", str(commands), "--dsmadmc", s.tsm.dsmadmc_binary,
                 "--lock", str(commands))
        assert r.returncode == 0, (argv, r.stderr)
        assert r.stdout == f"ran {commands}{argv[0]} {' '.join(argv[1:])}\n", argv
        assert r.stderr.startswith("aix-exporter-cpu: ") and len(r.stderr.splitlines()) == 1


def test_the_password_goes_through_on_stdin_and_the_exit_status_comes_back(commands, tmp_path):
    s = Settings()
    s.tsm.admin_id = "monitor"
    argv = next(c.argv(s) for c in TABLE if c.fetch == "dsmadmc")
    (commands / "usr" / "bin" / "dsmadmc").write_text('#!/bin/sh\nread x\necho "stdin $x LC_ALL=$LC_ALL HOME=$HOME"\n')
    r = wrap([f"{commands}{argv[0]}", *argv[1:]], "--root", str(commands), stdin="secret\n", env={"HOME": str(tmp_path)})
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


# -- issue 57: exactly the table, nothing before or after; symlinks; linear parse; the group ends with the session

@pytest.mark.parametrize("argv, why", [
    # the helper's fixed form: nothing after its words (Perl switches and -e programs included)
    ([PERL, "-e", HELPER, "time", "-e", "BEGIN{system('id')}"], "the helper's time with other arguments"),
    ([PERL, "-e", HELPER, "-MO=Deparse", "@F/x"], "the helper with an unknown operation"),
    ([PERL, "-e", HELPER, "-Mstrict;system(q(id))", "stat", "@F/x"], "the helper with an unknown operation"),
    ([PERL, "-e", HELPER, "-I/tmp", "time"], "the helper with an unknown operation"),
    ([PERL, "-e", HELPER, "stat", "@F/x", "-e", "print 1"], "the helper's stat with other arguments"),
    ([PERL, "-e", HELPER, "read", "@F/x", "0"], "the helper's read with other arguments"),
    ([PERL, "-e", HELPER, "read", "@F/x", "0", "-1"], "the helper's read with a number that is not one"),
    ([PERL, "-e", HELPER, "rfind", "@F/x", "zz", "10"], "the helper's rfind with text that is not hex"),
    ([PERL, "-e", HELPER, "unlink", "@F/x"], "the helper with an unknown operation"),
    ([PERL, "-x", "-e", HELPER, "time"], "/usr/bin/perl with a program that is not aix_exporter's helper"),
    ([PERL, "-e", HELPER + " ", "time"], "/usr/bin/perl with a program that is not aix_exporter's helper"),
    # the table's commands: nothing appended, inserted or replaced
    (["/usr/bin/vmstat", "-v", "-v"], "not in aix_exporter's command table"),
    (["/usr/bin/vmstat", "-w", "-l", "5", "2", "-v"], "not in aix_exporter's command table"),
    (["/usr/bin/vmstat", "-w", "-l", "99999", "2"], "not in aix_exporter's command table"),
    (["/usr/bin/svmon", "-G", "-O", "unit=MB"], "not in aix_exporter's command table"),
    (["/usr/bin/ps", "eww", "1", "-o", "args"], "not in aix_exporter's command table"),
    (["/usr/bin//vmstat", "-v"], "not in aix_exporter's command table"),
    (["/usr/bin/../bin/vmstat", "-v"], "not in aix_exporter's command table"),
])
def test_nothing_before_or_after_the_tables_words(argv, why, tmp_path):
    (tmp_path / "x").write_text("")   # (a real file under --files: only the form is wrong)
    r = wrap([a.replace("@F", str(tmp_path)) for a in argv], "--files", str(tmp_path))
    assert r.returncode == 126 and r.stdout == "", r.stderr
    assert r.stderr.startswith("aix-exporter-ssh-wrapper: refused: ") and why in r.stderr, r.stderr


def test_a_symlink_under_files_is_followed_and_refused_when_it_leads_outside(tmp_path):
    logs, outside = tmp_path / "logs", tmp_path / "outside"
    logs.mkdir()
    outside.mkdir()
    (outside / "secret").write_text("no\n")
    (logs / "dsmserv.log").write_text("ok\n")
    (logs / "to-secret").symlink_to(outside / "secret")
    (logs / "to-outside").symlink_to(outside)
    (tmp_path / "link-to-logs").symlink_to(logs)
    for argv in ([PERL, "-e", HELPER, "read", str(logs / "to-secret"), "0", "10"],
                 [PERL, "-e", HELPER, "stat", str(logs / "to-outside" / "secret")],
                 [PERL, "-e", HELPER, "list", str(logs / "to-outside")],
                 [PERL, "-e", HELPER, "read", f"{logs}/../outside/secret", "0", "10"],
                 [PERL, "-e", HELPER, "list", f"{logs}/.."]):
        r = wrap(argv, "--files", str(logs))
        assert r.returncode == 126 and "the helper on a path outside --files" in r.stderr, (argv, r.stderr)
    # a --files directory reached through a link, a path spelt with // and ./: the real place counts
    for files, path in ((str(tmp_path / "link-to-logs"), str(logs / "dsmserv.log")),
                        (str(logs), f"{logs}//./dsmserv.log"),
                        (str(logs), str(tmp_path / "link-to-logs" / "dsmserv.log"))):
        r = wrap([PERL, "-e", HELPER, "read", path, "0", "10"], "--files", files)
        assert (r.returncode, r.stdout) == (0, b"ok\n".hex()), (files, path, r.stderr)
    # a file not there yet is asked about where it would be (the helper answers "missing")
    r = wrap([PERL, "-e", HELPER, "stat", str(logs / "not-yet.log")], "--files", str(logs))
    assert r.returncode == 2 and r.stderr.splitlines()[0] == "missing"


def _cpu_limited(seconds):
    import resource
    return lambda: resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))


@pytest.mark.parametrize("raw, why", [
    (" ".join(ENV_PREFIX) + " /usr/bin/vmstat " + "a" * 65000 + "$", "not an argv quoted for a POSIX shell"),
    (" ".join(ENV_PREFIX) + " /usr/bin/vmstat " + "'a'" * 21000 + "'", "more than 512 quotes"),
    (" ".join(ENV_PREFIX) + " /usr/bin/vmstat " + "'a'" * 170 + "'", "not an argv quoted for a POSIX shell"),
    (" ".join(ENV_PREFIX) + " " + "a " * 32000 + "$", "more than 2048 words"),
    (" ".join(ENV_PREFIX) + " /usr/bin/ps eww" + " 1" * 2043, "more than 2048 words"),
    (" ".join(ENV_PREFIX) + " /usr/bin/vmstat " + "a" * 70000, "a command line of more than 65536 bytes"),
])
def test_a_long_hostile_line_is_refused_in_linear_time(raw, why):
    """The parse is one pass: a 64 KiB line costs the LPAR milliseconds. The old parse took
    25.6 s of CPU on the first line; here the wrapper runs under a 2 s CPU limit, so a parse
    that is quadratic again dies of SIGXCPU instead of answering."""
    e = {"PATH": "/usr/bin:/bin", "SSH_ORIGINAL_COMMAND": raw}
    r = subprocess.run(["/usr/bin/perl", str(WRAPPER)], capture_output=True, text=True, env=e, timeout=60,
                       preexec_fn=_cpu_limited(2))
    assert r.returncode == 126 and why in r.stderr, (r.returncode, r.stderr[:200])


def test_the_longest_line_the_table_makes_still_runs(commands):
    pids = [str(p) for p in range(1000, 2000)]   # process.max_processes at its bound
    r = wrap([f"{commands}/usr/bin/ps", "eww", *pids], "--root", str(commands))
    assert r.returncode == 0 and r.stdout == f"ran {commands}/usr/bin/ps eww {' '.join(pids)}\n", r.stderr


def _gone(pid) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as f:   # (a zombie waiting for its parent has ended too)
        return f.read().rsplit(")", 1)[1].split()[0] == "Z"


def _hanging_command(commands):
    """svmon -G as a stand-in that starts a grandchild and hangs: both write their PIDs."""
    exe = commands / "usr" / "bin" / "svmon"
    exe.write_text(f'#!/bin/sh\n/bin/sleep 300 &\necho "$$ $!" > {commands}/pids\nexec /bin/sleep 300\n')
    return [f"{commands}/usr/bin/svmon", "-G"]


def _pids(commands):
    import time
    for _ in range(200):
        f = commands / "pids"
        if f.exists() and len(f.read_text().split()) == 2:
            return [int(p) for p in f.read_text().split()]
        time.sleep(0.05)
    raise AssertionError("the stand-in never started")


def _until(cond, seconds=10.0):
    import time
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def test_the_time_limit_ends_the_whole_process_group(commands):
    argv = _hanging_command(commands)
    r = wrap(argv, "--root", str(commands), "--timeout", "1")
    assert r.returncode == 137, r.stderr
    assert "ended at the time limit: process group killed" in r.stderr
    assert _until(lambda: all(_gone(p) for p in _pids(commands))), "a child outlived the wrapper's time limit"


@pytest.mark.parametrize("how", ["channel closed", "SIGHUP", "SIGTERM"])
def test_the_command_ends_with_its_session(commands, how):
    """sshd closes the session's pipes when the exporter closes the channel or the connection
    drops, and signals the wrapper on a signal request: each ends the command's group at once."""
    import signal
    argv = _hanging_command(commands)
    e = {"PATH": "/usr/bin:/bin", "SSH_ORIGINAL_COMMAND": shlex.join([*ENV_PREFIX, *argv])}
    proc = subprocess.Popen(["/usr/bin/perl", str(WRAPPER), "--root", str(commands)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=e)
    try:
        pids = _pids(commands)
        if how == "channel closed":
            proc.stdout.close()
        else:
            proc.send_signal(getattr(signal, how))
        proc.wait(10)   # (its exit status goes nowhere: the session is gone)
        assert _until(lambda: all(_gone(p) for p in pids)), f"the command outlived its session ({how})"
    finally:
        proc.kill()
        proc.wait()


def _dsmadmc(commands):
    """dsmadmc as a stand-in that hangs while the file hang exists (a TSM server that does not
    answer) and answers otherwise; each run appends its PID to the file ran."""
    s = Settings()
    s.tsm.admin_id = "monitor"
    argv = next(c.argv(s) for c in TABLE if c.fetch == "dsmadmc")
    exe = commands / argv[0].lstrip("/")
    exe.write_text(f'#!/bin/sh\necho $$ >> {commands}/ran\n'
                   f'while [ -e {commands}/hang ]; do /bin/sleep 0.1; done\necho answered\n')
    (commands / "hang").touch()
    return [f"{commands}{argv[0]}", *argv[1:]]


def _ran(commands):
    f = commands / "ran"
    return f.read_text().split() if f.exists() else []


def _first_session(argv, commands, tmp_path):
    """The wrapper running ``argv`` as a session that stays open (its standard output a pipe),
    once its dsmadmc has started."""
    e = {"PATH": "/usr/bin:/bin", "SSH_ORIGINAL_COMMAND": shlex.join([*ENV_PREFIX, *argv])}
    first = subprocess.Popen(["/usr/bin/perl", str(WRAPPER), "--root", str(commands), "--lock", str(tmp_path)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=e)
    assert _until(lambda: len(_ran(commands)) == 1), "the first dsmadmc never started"
    return first


def test_one_dsmadmc_at_a_time_on_the_lpar_whichever_session_sends_it(commands, tmp_path):
    """Issue 57, item 2, on the LPAR's side: while one dsmadmc runs (hung), a second waits for
    it within its own limit and is then refused without starting; the table's other commands
    run meanwhile; once the first session is gone, the next dsmadmc runs."""
    argv = _dsmadmc(commands)
    first = _first_session(argv, commands, tmp_path)
    try:
        second = wrap(argv, "--root", str(commands), "--lock", str(tmp_path), "--timeout", "1")
        assert second.returncode == 126
        assert second.stderr == (f"aix-exporter-ssh-wrapper: refused: {argv[0]}: another one of this user still "
                                 f"runs on this LPAR (lock {tmp_path}/.aix-exporter-ssh-wrapper.lock)\n")
        assert len(_ran(commands)) == 1   # (the second never started)
        other = wrap([f"{commands}/usr/bin/svmon", "-G"], "--root", str(commands), "--lock", str(tmp_path))
        assert other.returncode == 0, other.stderr
        assert oct((tmp_path / ".aix-exporter-ssh-wrapper.lock").stat().st_mode & 0o777) == "0o600"
        first.stdout.close()   # the exporter closed the channel
        first.wait(10)
    finally:
        first.kill()
        first.wait()
    (commands / "hang").unlink()
    third = wrap(argv, "--root", str(commands), "--lock", str(tmp_path), "--timeout", "5")
    assert (third.returncode, third.stdout) == (0, "answered\n"), third.stderr
    assert len(_ran(commands)) == 2


def test_a_second_dsmadmc_runs_as_soon_as_the_first_ends_within_its_limit(commands, tmp_path):
    """The first session is being ended while the second arrives: the second waits, then runs."""
    import threading
    argv = _dsmadmc(commands)
    threading.Timer(1.0, (commands / "hang").unlink).start()   # the first answers after 1 s
    first = _first_session(argv, commands, tmp_path)
    try:
        second = wrap(argv, "--root", str(commands), "--lock", str(tmp_path), "--timeout", "20")
        assert (second.returncode, second.stdout) == (0, "answered\n"), second.stderr
        assert first.wait(10) == 0 and first.stdout.read() == b"answered\n"
    finally:
        first.kill()
        first.wait()


@pytest.mark.parametrize("lock, why", [
    (None, "no --lock directory and no HOME for the lock of "),
    ("symlink", "cannot open the lock "),
])
def test_a_dsmadmc_without_a_safe_lock_is_refused_and_the_others_run(commands, tmp_path, lock, why):
    argv = _dsmadmc(commands)
    (commands / "hang").unlink()
    options = ["--root", str(commands)]
    if lock == "symlink":   # (a lock file that leads elsewhere is never opened)
        (tmp_path / ".aix-exporter-ssh-wrapper.lock").symlink_to(tmp_path / "elsewhere")
        options += ["--lock", str(tmp_path)]
    r = wrap(argv, *options)
    assert r.returncode == 126 and r.stderr.startswith(f"aix-exporter-ssh-wrapper: refused: {why}"), r.stderr
    assert not _ran(commands) and not (tmp_path / "elsewhere").exists()
    assert wrap([f"{commands}/usr/bin/svmon", "-G"], *options).returncode == 0


def test_an_interval_command_may_take_its_interval_beyond_the_limit(commands):
    """The limit is --timeout beyond what the command takes by design: vmstat -w -l 2 2 runs
    4 s by design, so under --timeout 1 it still ends by itself."""
    exe = commands / "usr" / "bin" / "vmstat"
    exe.write_text('#!/bin/sh\n/bin/sleep 3\necho done\n')
    r = wrap([f"{commands}/usr/bin/vmstat", "-w", "-l", "2", "2"], "--root", str(commands), "--timeout", "1")
    assert (r.returncode, r.stdout) == (0, "done\n"), r.stderr
    r = wrap([f"{commands}/usr/bin/svmon", "-G"], "--root", str(commands), "--timeout", "1")
    assert r.returncode == 0   # (svmon's stand-in answers at once)
    exe = commands / "usr" / "bin" / "svmon"
    exe.write_text('#!/bin/sh\n/bin/sleep 3\necho done\n')
    assert wrap([f"{commands}/usr/bin/svmon", "-G"], "--root", str(commands), "--timeout", "1").returncode == 137


def decide(lines, *options):
    """The wrapper's answers to many command lines at once (its --decide mode, which only
    authorized_keys can turn on): [(allowed, CPU seconds, reason or limit)]."""
    r = subprocess.run(["/usr/bin/perl", str(WRAPPER), "--decide", *options], input="".join(f"{x}\0" for x in lines),
                       capture_output=True, text=True, timeout=600, env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    out = [line.split(" ", 2) for line in r.stdout.splitlines()]
    assert len(out) == len(lines)
    return [(a == "allow", float(cpu), why) for a, cpu, why in out]


def test_ten_thousand_mutations_of_the_table_are_refused_unless_they_are_in_it(tmp_path):
    """The property of item 1: 10,000 command lines made from the ones the source sends by
    appending, inserting, replacing, dropping, doubling and swapping words, Perl switches,
    shell syntax in the text, paths with .., // and symlinks leading out. Each is refused unless
    the oracle (written apart, tests/lib/wrapper_mutations.py) finds it in the table."""
    from tests.lib.wrapper_mutations import expected, helper_argvs, make_files, mutations, table_argvs
    files = make_files(str(tmp_path))
    bases = [shlex.join([*ENV_PREFIX, *a]) for a in table_argvs() + helper_argvs(files)]
    assert all(allowed for allowed, _, _ in decide(bases, "--files", files)), "a command the source sends is refused"
    lines = mutations(10_000, 57, files)
    want = [expected(line, files) for line in lines]
    got = decide(lines, "--files", files)
    wrong = [(line, w, g[2]) for line, w, g in zip(lines, want, got) if g[0] != w]
    assert not wrong, f"{len(wrong)} answers differ from the oracle, e.g. {wrong[:3]}"
    refused = want.count(False)
    assert refused > 9000 and len(set(lines)) > 5000, (refused, len(set(lines)))   # (the generator mutates)
