"""The source interface's small parts: which --source specs open what, a file opened without
blocking (a FIFO or a directory in a file's place is an error, never a read that waits), the
replay directory's reads and their messages, and the monitored processes found with ps."""
import os

import pytest

from aix_exporter.config import Settings
from aix_exporter.sources import NotRunning, SourceError, open_regular, open_source
from aix_exporter.sources.processes import monitored_pids
from aix_exporter.sources.replay import ReplaySource


@pytest.mark.parametrize("spec", ["system:x", "replay", "replay:", "simulate", "simulate:", "file:/x", ""])
def test_specs_that_name_no_source(spec):
    with pytest.raises(ValueError) as e:
        open_source(spec)
    assert str(e.value) == f"unknown source {spec!r}: use system, replay:DIR or simulate:SCENARIO"


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
