"""The source interface's small parts: which --source specs open what, a file opened without
blocking (a FIFO or a directory in a file's place is an error, never a read that waits), the
replay directory's reads and their messages, the monitored processes found with ps, the
simulated clock and log, and the splat report of a watched directory."""
import os

import pytest

from aix_exporter.config import Settings
from aix_exporter.sources import NotRunning, SourceError, open_regular, open_source
from aix_exporter.sources import simulate as sim
from aix_exporter.sources import splat_window as sw
from aix_exporter.sources.processes import monitored_pids
from aix_exporter.sources.replay import ReplaySource
from tests.lib.checks import refusal


@pytest.mark.parametrize("spec", ["system:x", "replay", "replay:", "simulate", "simulate:", "file:/x", ""])
def test_specs_that_name_no_source(spec):
    with pytest.raises(ValueError) as e:
        open_source(spec)
    assert str(e.value) == f"unknown source {spec!r}: use system, replay:DIR, simulate:SCENARIO or ssh://USER@HOST[:PORT]"


def test_specs_that_open_each_source(tmp_path):
    assert open_source("system", Settings()).name == "system"
    assert open_source(f"replay:{tmp_path}").name == f"replay:{tmp_path}"
    assert open_source("simulate:steady").name.startswith("simulate:steady")


def test_a_regular_file_opens_and_anything_else_is_a_source_error(tmp_path):
    f = tmp_path / "f.txt"
    f.write_bytes(b"abc")
    fh, st = open_regular(str(f))
    with fh:
        assert fh.read() == b"abc" and st.st_size == 3
    with pytest.raises(SourceError) as e:
        open_regular(str(tmp_path / "none.txt"), "log file")
    assert str(e.value) == f"log file {tmp_path / 'none.txt'} does not exist"
    with pytest.raises(SourceError) as e:
        open_regular(str(tmp_path / "none.txt"))
    assert str(e.value) == f"file {tmp_path / 'none.txt'} does not exist"
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(SourceError) as e:
        open_regular(str(tmp_path / "fifo"))                 # returns at once: opened without blocking
    assert str(e.value) == f"{tmp_path / 'fifo'} is not a regular file"
    with pytest.raises(SourceError) as e:
        open_regular(str(tmp_path))
    assert str(e.value) == f"{tmp_path} is not a regular file"
    with pytest.raises(SourceError) as e:
        open_regular(str(f) + "/below")
    assert str(e.value) == f"cannot open {f}/below: Not a directory"


def test_replay_reads_each_commands_file(tmp_path):
    (tmp_path / "vmstat.txt").write_bytes(b"System configuration: lcpu=8\n\xff\n")
    src = ReplaySource(str(tmp_path))
    assert src.read("vmstat") == "System configuration: lcpu=8\n\ufffd\n"      # undecodable: U+FFFD
    assert src.slow_keys == frozenset()
    with pytest.raises(SourceError) as e:
        src.read("svmon_g")
    assert str(e.value) == f"no captured output {tmp_path / 'svmon_g.txt'}"
    with pytest.raises(SourceError) as e:
        src.read("uptime")
    assert str(e.value) == "unknown command key 'uptime'"
    os.symlink(tmp_path / "gone.txt", tmp_path / "vmo.txt")                # a dangling link is a file's place
    with pytest.raises(SourceError) as e:
        src.read("vmo")
    assert str(e.value) == f"captured output {tmp_path / 'vmo.txt'} does not exist"
    os.mkfifo(tmp_path / "splat.txt")
    with pytest.raises(SourceError) as e:
        src.read("splat")
    assert str(e.value) == f"{tmp_path / 'splat.txt'} is not a regular file"


def test_replay_of_a_log_counts_the_file_once_then_what_is_appended(tmp_path):
    log = tmp_path / "tsm_actlog.txt"
    log.write_text("a\nb\n")
    src = ReplaySource(str(tmp_path))
    text, pos = src.read_log("tsm_actlog", None)
    assert text == "a\nb\n" and pos["offset"] == 4
    with open(log, "a") as fh:
        fh.write("c\nd")                                                    # d: not a whole line yet
    text, pos = src.read_log("tsm_actlog", pos)
    assert text == "c\n" and pos["offset"] == 6
    with pytest.raises(SourceError) as e:
        src.read_log("tsm_summary", None)
    assert str(e.value) == f"no captured output {tmp_path / 'tsm_summary.txt'}"


def test_replay_report_time_is_the_files_time(tmp_path):
    (tmp_path / "splat.txt").write_text("x")
    os.utime(tmp_path / "splat.txt", (1_800_000_000, 1_800_000_000))
    src = ReplaySource(str(tmp_path))
    assert src.report_time("splat") == 1_800_000_000.0
    assert src.report_time("vmstat") is None


def test_a_replay_directory_that_is_not_one(tmp_path):
    for path in (tmp_path / "none", tmp_path / "file"):
        if path.name == "file":
            path.write_text("")
        with pytest.raises(ValueError) as e:
            ReplaySource(str(path))
        assert str(e.value) == f"replay directory {str(path)!r} does not exist or is not a directory"


PS = """    1 init
 2687182 dsmserv
 2978016 dsmsta
  303 sshd
 12x4 dsmserv
 4406 dsmserv extra
 4410   dsmserv\t
"""


def test_the_monitored_processes_by_ps(monkeypatch):
    s = Settings()
    asked = []

    def run(argv, timeout):
        asked.append((argv, timeout))
        return PS
    assert monitored_pids(run, s) == ["2687182", "2978016", "4410"]
    assert asked == [(["/usr/bin/ps", "-e", "-o", "pid=", "-o", "comm="], s.command_timeout_seconds)]
    s.process.max_processes = 2
    assert monitored_pids(run, s) == ["2687182", "2978016"]
    s.process.max_processes = 1
    assert monitored_pids(run, s) == ["2687182"]


def test_none_running_is_not_running_naming_them():
    s = Settings()
    s.process.commands = ["dsmsta", "db2sysc", "dsmserv"]
    with pytest.raises(NotRunning) as e:
        monitored_pids(lambda argv, timeout: "  1 init\n", s)
    assert str(e.value) == "none of db2sysc, dsmserv, dsmsta is running"


# ---------------------------------------------------------------- simulate:SCENARIO


def test_simulate_spec_defaults_and_values():
    assert sim.parse_spec("steady") == {"scenario": "steady", "speed": 1.0, "seed": 1, "at": 0.0, "processes": 1,
                                        "start": None}
    assert sim.parse_spec("case-study?speed=60&seed=7&at=3600&start=1800000000&processes=5") == {
        "scenario": "case-study", "speed": 60.0, "seed": 7, "at": 3600.0, "processes": 5, "start": 1_800_000_000.0}
    assert sim.parse_spec("steady?processes=0")["processes"] == 1
    assert sim.parse_spec("steady?seed=1&seed=2")["seed"] == 2                     # the last one given
    assert sim.parse_spec("steady?speed=60&")["speed"] == 60.0                     # a stray & as typed in a shell
    assert sim.parse_spec("steady?&seed=3")["seed"] == 3
    with pytest.raises(ValueError) as e:
        sim.parse_spec("steady?sped=60&colour=red")
    assert str(e.value) == "simulate: unknown option(s) colour, sped (speed, seed, at, start, processes)"
    with pytest.raises(ValueError) as e:
        sim.parse_spec("steady?seed=x")
    assert str(e.value) == "simulate: bad option value in 'steady?seed=x'"


def test_simulated_time_runs_at_the_speed_from_at_at_start():
    wall = [1_800_000_000.0]
    src = sim.SimulatedSource("case-study?speed=60&at=3600", clock=lambda: wall[0])
    assert (src.wall_start, src.epoch0, src.now()) == (1_800_000_000.0, 1_800_000_000.0 - 3600, 3600.0)
    wall[0] += 10
    assert src.now() == 3600.0 + 600
    assert src.epoch(0) == 1_799_996_400.0 and src.epoch(3600) == 1_800_000_000.0
    src.set_time(100.0)
    assert src.now() == 100.0
    named = sim.SimulatedSource("case-study?at=3600&start=1700000000", clock=lambda: 1_700_000_030.0)
    assert (named.wall_start, named.epoch0, named.now()) == (1_700_000_000.0, 1_699_996_400.0, 3630.0)
    assert named.name == "simulate:case-study?at=3600&start=1700000000"


def test_simulated_reads_and_their_errors():
    s = Settings()
    s.tape.interval_seconds = 7
    src = sim.SimulatedSource("case-study?at=28800", s, clock=lambda: 1_800_000_000.0)
    assert src.interval == 7
    assert src.read("vmstat").lstrip().startswith("System configuration:")
    assert refusal(SourceError, src.read, "uptime") == "the simulator has no command 'uptime'"
    assert refusal(SourceError, src.read_log, "vmstat", None) == "vmstat is not a log"
    assert src.report_time("splat") == 1_800_000_000.0 and src.report_time("vmstat") is None


def test_the_simulated_log_gives_the_whole_log_once_then_only_what_is_new():
    src = sim.SimulatedSource("case-study", clock=lambda: 0.0)
    src.set_time(7200)
    whole, pos = src.read_log("tsm_actlog", None)
    assert whole and pos == {"inode": 0, "offset": len(whole), "t": 7200}
    src.set_time(14400)
    new, pos2 = src.read_log("tsm_actlog", pos)
    assert new and pos2 == {"inode": 0, "offset": len(whole) + len(new), "t": 14400}
    again, _ = src.read_log("tsm_actlog", None)
    assert again == whole + new                                  # the same messages, read at once
    src.set_time(3600)                                           # the clock went back: from the start again
    back, pos3 = src.read_log("tsm_actlog", pos2)
    assert whole.startswith(back) and pos3["offset"] == len(back)


# ---------------------------------------------------------------- splat reports

def report(d, name, text, mtime):
    p = d / name
    p.write_text(text)
    os.utime(p, (mtime, mtime))
    return p


def test_the_newest_report_of_the_directory(tmp_path):
    report(tmp_path, "a.out", "old", 1_800_000_000)
    report(tmp_path, "b.out", "new", 1_800_000_100)
    report(tmp_path, ".c.out", "hidden", 1_800_000_200)
    report(tmp_path, "d.txt", "not named so", 1_800_000_300)
    (tmp_path / "e.out").mkdir()
    os.utime(tmp_path / "e.out", (1_800_000_400, 1_800_000_400))
    assert sw.newest_report(str(tmp_path)) == ("new", 1_800_000_100.0)
    assert sw.newest_report(str(tmp_path), "*.txt") == ("not named so", 1_800_000_300.0)
    with pytest.raises(SourceError) as e:
        sw.newest_report(str(tmp_path), "*.rpt")
    assert str(e.value) == f"no splat report named *.rpt in {tmp_path}"
    # a pattern that names hidden files (only one starting with "." does, for glob): still never a report
    with pytest.raises(SourceError) as e:
        sw.newest_report(str(tmp_path), ".*.out")
    assert str(e.value) == f"no splat report named .*.out in {tmp_path}"


def test_a_report_of_exactly_the_size_limit_is_read_and_one_byte_more_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(sw, "MAX_REPORT_BYTES", 16)
    report(tmp_path, "a.out", "x" * 16, 1_800_000_000)
    assert sw.newest_report(str(tmp_path))[0] == "x" * 16
    p = report(tmp_path, "a.out", "x" * 17, 1_800_000_000)
    with pytest.raises(SourceError) as e:
        sw.newest_report(str(tmp_path))
    assert str(e.value) == f"{p}: 17 bytes, more than a splat report has (16 at most)"


def test_a_report_that_grows_past_the_limit_while_read_is_refused(tmp_path, monkeypatch):
    import types
    monkeypatch.setattr(sw, "MAX_REPORT_BYTES", 16)
    p = report(tmp_path, "a.out", "x" * 17, 1_800_000_000)
    # stat saw 16 bytes; the read then finds 17
    monkeypatch.setattr(sw, "os", types.SimpleNamespace(
        path=os.path, stat=lambda f: types.SimpleNamespace(st_size=16, st_mtime=1_800_000_000.0)))
    with pytest.raises(SourceError) as e:
        sw.newest_report(str(tmp_path))
    assert str(e.value) == f"{p}: more than 16 bytes, more than a splat report has"


def test_the_report_size_limit_is_64_mib():
    assert sw.MAX_REPORT_BYTES == 64 << 20


def test_a_report_older_than_the_limit_is_not_served_as_fresh(tmp_path, monkeypatch):
    s = Settings()
    s.splat.report_dir, s.splat.max_age_seconds = str(tmp_path), 600
    report(tmp_path, "a.out", "text", 1_800_000_000)
    monkeypatch.setattr(sw.time, "time", lambda: 1_800_000_600.0)
    assert sw.read(None, s) == ("text", 1_800_000_000.0)
    monkeypatch.setattr(sw.time, "time", lambda: 1_800_000_601.0)
    with pytest.raises(SourceError) as e:
        sw.read(None, s)
    assert str(e.value) == (f"the newest splat report in {tmp_path} is 601 s old, older than splat.max_age_seconds "
                            "(600): not served as fresh")


def test_without_a_report_directory_or_the_trace_window_splat_says_so():
    with pytest.raises(SourceError) as e:
        sw.read(None, Settings())
    assert str(e.value) == "splat: neither splat.report_dir nor splat.enabled_trace is configured"


def test_a_trace_window_runs_each_command_with_its_timeout(tmp_path, monkeypatch):
    s = Settings()
    s.splat.work_dir, s.splat.trace_seconds, s.command_timeout_seconds = str(tmp_path / "w"), 3, 7
    ran = []

    def run(argv, timeout):
        ran.append((argv, timeout))
        if argv[0] == "/usr/bin/splat":
            (tmp_path / "w" / "splat.out").write_bytes(b"report \xff\n")
        return "syms\n" if argv[0] == "/usr/bin/gensyms" else ""
    monkeypatch.setattr(sw.time, "sleep", lambda t: ran.append(("sleep", t)))
    monkeypatch.setattr(sw.time, "time", lambda: 1_800_000_000.0)
    w = str(tmp_path / "w")
    assert sw.trace_window(run, s) == ("report \ufffd\n", 1_800_000_000.0)
    assert ran == [
        (["/usr/bin/trace", "-a", "-C", "all", "-J", "splat", "-T", "20000000", "-L", "200000000", "-o",
          f"{w}/trace.raw"], 7), ("sleep", 3), (["/usr/bin/trcstop"], 7),
        (["/usr/bin/trcrpt", "-r", "-C", "all", "-o", f"{w}/trace.tr", f"{w}/trace.raw"], 70), (["/usr/bin/gensyms"], 70),
        (["/usr/bin/splat", "-i", f"{w}/trace.tr", "-n", f"{w}/trace.syms", "-da", "-p", "-o", f"{w}/splat.out"], 70)]
    assert oct(os.stat(w).st_mode & 0o777) == "0o700" and (tmp_path / "w" / "trace.syms").read_text() == "syms\n"


def test_a_report_with_undecodable_bytes_and_a_replay_file_that_cannot_be_read(tmp_path, monkeypatch):
    (tmp_path / "a.out").write_bytes(b"splat \xff\n")
    assert sw.newest_report(str(tmp_path))[0] == "splat \ufffd\n"
    (tmp_path / "vmstat.txt").write_text("x")
    src = ReplaySource(str(tmp_path))

    class Broken:
        def __enter__(self):
            return self

        def __exit__(self, *a):
            pass

        def read(self):
            raise OSError(5, "Input/output error")
    monkeypatch.setattr("aix_exporter.sources.replay.open_regular", lambda path, what: (Broken(), None))
    with pytest.raises(SourceError) as e:
        src.read("vmstat")
    assert str(e.value) == f"cannot read {tmp_path / 'vmstat.txt'}: Input/output error"


def test_a_simulated_log_read_again_at_the_same_time_gives_nothing_new():
    src = sim.SimulatedSource("case-study", clock=lambda: 0.0)
    src.set_time(7200)
    whole, pos = src.read_log("tsm_actlog", None)
    assert src.read_log("tsm_actlog", pos) == ("", pos)
    # a position that names its time but no offset counts from 0
    new, pos2 = src.read_log("tsm_actlog", {"t": 3600})
    assert pos2 == {"inode": 0, "offset": len(new), "t": 7200} and whole.endswith(new)


def test_a_command_name_with_a_space_is_the_rest_of_the_ps_line():
    s = Settings()
    s.process.commands = ["tsm server"]

    def run(argv, timeout):
        return "    1 init\n  777 tsm server\n"
    assert monitored_pids(run, s) == ["777"]


def test_a_replay_directory_must_be_readable_and_searchable(tmp_path, monkeypatch):
    from aix_exporter.sources import replay
    asked = []

    def access(path, mode):             # (the tests may run as root, who may read anything)
        asked.append(mode)
        return mode == os.F_OK
    monkeypatch.setattr(replay.os, "access", access)
    assert refusal(ValueError, replay.ReplaySource, str(tmp_path)) == f"replay directory {str(tmp_path)!r} is not readable"
    assert asked == [os.R_OK | os.X_OK]

