"""The system source's reads (sources/system.py) with its runner replaced: what each fetch mode
runs and with what timeout, one header for commands run per process, processes that end
between ps and the command, a failure that is an answer, the password file, the log routing,
the commands' root for stand-ins, and the redaction of dsmadmc's password."""
import os

import pytest

from aix_exporter.config import Settings
from aix_exporter.sources import CommandFailed, NotRunning, SourceError, system
from aix_exporter.sources.system import SystemSource, redact
from tests.lib.checks import refusal

PS = " 101 dsmserv\n 202 dsmsta\n"


class Runner:
    """Stands in for SystemSource.run: answers argv by its first words, records every call."""

    def __init__(self, answers):
        self.answers, self.calls = answers, []

    def __call__(self, argv, timeout, stdin=None):
        self.calls.append((argv, timeout, stdin))
        for words, answer in self.answers:
            if argv[:len(words)] == words:
                if isinstance(answer, Exception):
                    raise answer
                return answer(argv) if callable(answer) else answer
        raise AssertionError(f"unexpected {argv}")


def source(answers, **settings):
    s = Settings()
    s.vmstat.interval_seconds, s.tape.interval_seconds, s.command_timeout_seconds = 7, 3, 10
    for k, v in settings.items():
        obj, attr = (s.tsm, k[4:]) if k.startswith("tsm_") else (s, k)
        setattr(obj, attr, v)
    src = SystemSource(s)
    src.run = Runner(answers)   # type: ignore[method-assign]
    return src


def test_each_command_runs_with_its_timeout_and_interval():
    src = source([(["/usr/bin/vmstat"], "V"), (["/usr/bin/iostat"], "I"), (["/usr/bin/svmon", "-G"], "G"),
                  (["/usr/bin/ps", "-e"], PS), (["/usr/bin/svmon", "-P"], "P")])
    assert (src.read("vmstat"), src.read("iostat_tape"), src.read("svmon_g"), src.read("svmon_p")) == ("V", "I", "G", "P")
    assert [(argv, timeout) for argv, timeout, _ in src.run.calls] == [
        (["/usr/bin/vmstat", "-w", "-l", "7", "2"], 10 + 14), (["/usr/bin/iostat", "-p", "3", "2"], 10 + 3),
        (["/usr/bin/svmon", "-G"], 10), (["/usr/bin/ps", "-e", "-o", "pid=", "-o", "comm="], 10),
        (["/usr/bin/svmon", "-P", "101", "202"], 10)]
    assert src.slow_keys == frozenset({"vmstat", "splat", "iostat_tape", "tsm_db", "tsm_log", "errpt", "tsm_stgpools",
                                       "tsm_libvolumes", "tsm_drives", "tsm_paths", "tsm_events", "tsm_monitor"})


def test_per_process_commands_keep_one_header_and_skip_a_process_that_ended():
    def eww(argv):
        return f"  PID TTY STAT TIME COMMAND\n {argv[2]} - A 0:00 /usr/bin/x LDR_CNTRL=MAXDATA=0x80000000\n"
    src = source([(["/usr/bin/ps", "-e"], " 101 dsmserv\n 202 dsmsta\n 303 dsmserv\n"),
                  (["/usr/bin/ps", "eww", "202"], SourceError("exit status 1")), (["/usr/bin/ps", "eww"], eww)])
    assert src.read("ps_env") == ("  PID TTY STAT TIME COMMAND\n 101 - A 0:00 /usr/bin/x LDR_CNTRL=MAXDATA=0x80000000\n"
                                  " 303 - A 0:00 /usr/bin/x LDR_CNTRL=MAXDATA=0x80000000\n")
    assert [argv for argv, _, _ in src.run.calls][1:] == [["/usr/bin/ps", "eww", "101"], ["/usr/bin/ps", "eww", "202"],
                                                          ["/usr/bin/ps", "eww", "303"]]
    gone = source([(["/usr/bin/ps", "-e"], PS), (["/usr/bin/ps", "eww"], SourceError("exit status 1"))])
    with pytest.raises(NotRunning) as e:
        gone.read("ps_env")
    assert str(e.value) == "monitored processes ended before ps_env ran"


def test_a_failure_with_a_known_answer_is_the_answer():
    no_tapes = CommandFailed("iostat: exit status 1", "", "No tapes were found.\n")
    assert source([(["/usr/bin/iostat"], no_tapes)]).read("iostat_tape") == "No tapes were found.\n"
    other = CommandFailed("vmstat: exit status 2", "partial", "vmstat: 0551-101 bad\n")
    with pytest.raises(CommandFailed):
        source([(["/usr/bin/vmstat"], other)]).read("vmstat")


def test_reads_that_are_not_commands():
    src = source([])
    for key, why in (("uptime", "unknown command key 'uptime'"), ("tsm_actlog", "tsm_actlog is a log: read it with "
                                                                               "read_log")):
        with pytest.raises(SourceError) as e:
            src.read(key)
        assert str(e.value) == why
    assert refusal(SourceError, src.argv, "splat") == "no system command for 'splat'"
    assert refusal(SourceError, src.read_log, "vmstat", None) == "vmstat is not a log"
    assert refusal(SourceError, src.read_log, "tsm_actlog", None) == \
        "tsm: neither tsm.actlog_file nor tsm.dsmadmc is configured"


def test_the_log_from_its_file_or_from_dsmadmc(tmp_path):
    log = tmp_path / "dsmserv.log"
    log.write_text("11/25/2026 08:00:00  ANR0358E x\n")
    text, pos = source([], tsm_actlog_file=str(log)).read_log("tsm_actlog", None)
    assert text == "" and pos["offset"] == log.stat().st_size               # a fresh exporter starts at the end
    src = source([(["/usr/bin/dsmadmc"], "11/25/2026 08:00:00  ANR0358E x\n")],
                 tsm_dsmadmc=["/usr/bin/dsmadmc", "-id=x", "q", "actlog"])
    assert src.read_log("tsm_actlog", None) == ("11/25/2026 08:00:00  ANR0358E x\n",
                                                {"mark": "20261125080000", "seen": ["11/25/2026 08:00:00  ANR0358E x"]})
    assert src.run.calls[0][:2] == (["/usr/bin/dsmadmc", "-id=x", "q", "actlog"], 10)


def test_the_password_goes_to_dsmadmc_on_stdin(tmp_path):
    pw = tmp_path / "pw"
    pw.write_text("s3cret\nignored\n")
    pw.chmod(0o600)
    src = source([(["/usr/bin/dsmadmc"], "1,BACKUP,10,1\n")], tsm_admin_id="monitor", tsm_password_file=str(pw))
    assert src.read("tsm_processes") == "1,BACKUP,10,1\n"
    argv, timeout, stdin = src.run.calls[0]
    assert stdin == b"s3cret\n" and "s3cret" not in " ".join(argv) and timeout == 10


@pytest.mark.parametrize("text,mode,why", [
    ("", 0o600, "{p}: empty password file"), ("  \n\n", 0o600, "{p}: empty password file"),
    ("s3cret\n", 0o640, "{p}: readable by others (mode 640); chmod 600 it"),
])
def test_a_password_file_that_cannot_be_used(tmp_path, text, mode, why):
    pw = tmp_path / "pw"
    pw.write_text(text)
    pw.chmod(mode)
    with pytest.raises(SourceError) as e:
        source([], tsm_password_file=str(pw)).password()
    assert str(e.value) == why.format(p=pw)
    with pytest.raises(SourceError) as e:
        source([]).password()
    assert str(e.value) == "tsm: tsm.admin_id and tsm.password_file are not configured"


def test_commands_run_from_under_the_commands_root(monkeypatch):
    ran = []
    monkeypatch.setattr(system, "run", lambda argv, timeout, **kw: ran.append((argv, timeout, kw)) or "")
    s = Settings()
    s.command_root = "/opt/standin"
    SystemSource(s).run(["/usr/bin/vmstat", "-v"], 5)
    SystemSource(s).run(["relative", "x"], 5, stdin=b"pw\n")
    SystemSource(Settings()).run(["/usr/bin/vmstat", "-v"], 5)
    assert ran == [(["/opt/standin/usr/bin/vmstat", "-v"], 5, {}), (["relative", "x"], 5, {"stdin": b"pw\n"}),
                   (["/usr/bin/vmstat", "-v"], 5, {})]


@pytest.mark.parametrize("option", ["-pa=s3cret", "-PASSWORD=s3cret", "-passw=s3cret", "-Pas=s3cret"])
def test_every_spelling_of_the_password_option_is_hidden(option):
    assert redact(["/usr/bin/dsmadmc", "-id=x", option, "q", "mount"]) == \
        f"/usr/bin/dsmadmc -id=x {option.split('=')[0]}=*** q mount"


def test_an_empty_password_option_and_other_options_are_shown_as_they_are():
    assert redact(["/usr/bin/dsmadmc", "-pa=", "-pass", "-panic=1"]) == "/usr/bin/dsmadmc -pa= -pass -panic=1"


def test_splat_reports_their_time(tmp_path):
    (tmp_path / "a.out").write_text("report")
    os.utime(tmp_path / "a.out", (1_800_000_000, 1_800_000_000))
    s = Settings()
    s.splat.report_dir, s.splat.max_age_seconds = str(tmp_path), 10 ** 9
    src = SystemSource(s)
    assert src.report_time("splat") is None
    assert src.read("splat") == "report" and src.report_time("splat") == 1_800_000_000.0


def test_a_missing_password_file_is_named_as_one_and_at_most_4096_bytes_are_read(tmp_path):
    pw = tmp_path / "pw"
    with pytest.raises(SourceError) as e:
        source([], tsm_password_file=str(pw)).password()
    assert str(e.value) == f"password file {pw} does not exist"
    pw.write_bytes(b"p" * 5000 + b"\n")        # no password is this long: only the first 4096 bytes are read
    pw.chmod(0o600)
    assert source([], tsm_password_file=str(pw)).password() == b"p" * 4096 + b"\n"
    pw.write_bytes(b"pa\xffss\r\nsecond line\n")  # not UTF-8: replaced, never an exception; the first line only
    assert source([], tsm_password_file=str(pw)).password() == "pa\ufffdss\n".encode()


def test_the_system_source_is_named_system():
    assert SystemSource(Settings()).name == "system"   # the source_info label, and what collectors needing AIX ask
