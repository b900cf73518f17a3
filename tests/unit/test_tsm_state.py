"""The TSM activity log and its state (issue 28): no existing file that is not ours is ever
overwritten, a damaged state loses no log line, and the tail reads through copytruncate that
regrows past the old offset and through rotation storms."""
import json
import os
import random
import shutil
import subprocess
import sys

import pytest

from aix_exporter import statefile
from aix_exporter.collectors import tsm
from aix_exporter.config import Settings
from aix_exporter.sources import logtail
from tests.lib.processes import env

PASSWD_LIKE = "root:x:0:0:root:/root:/bin/sh\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"


def line(i, msgid="ANR2121W"):
    return f"11/19/2026 00:{i // 60 % 60:02d}:{i % 60:02d}  {msgid} message {i}\n"


class LogSource:
    """The system source's log tail on one file."""
    def __init__(self, path):
        self.path = path

    def read_log(self, key, position):
        return logtail.tail(self.path, position, start_at_end=True)


def collector(tmp_path, log):
    s = Settings()
    s.tsm.state_file = str(tmp_path / "state" / "tsm.json")
    s.tsm.actlog_file = str(log)
    return tsm.TsmCollector(s), LogSource(str(log))


def counted(c):
    return sum(n for (m, _), n in c.counts.items() if m == "ANR2121W")


def test_a_file_that_is_not_ours_is_refused_and_never_written(tmp_path):
    passwd = tmp_path / "passwd"
    passwd.write_text(PASSWD_LIKE)
    cfg = tmp_path / "c.yml"
    cfg.write_text(f"tsm: {{actlog_file: {tmp_path}/log, state_file: {passwd}}}\n")
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--config.file", str(cfg), "--check-config"],
                       capture_output=True, text=True, env=env(), timeout=60)
    assert r.returncode != 0
    assert (f"tsm.state_file: {passwd} exists and is not an aix_exporter state file (a typo of the path?): it is "
            "never overwritten; point tsm.state_file at a new path") in r.stderr
    with pytest.raises(OSError, match="is not an aix_exporter state file"):
        statefile.save(str(passwd), {"position": None, "counts": {}, "unparsed": 0})
    assert passwd.read_text() == PASSWD_LIKE
    for ours in ("", "   \n", '{"position": {"inode": 5, "off', '{"kind": "aix_exporter tsm state", "pos'):
        p = tmp_path / "ours.json"
        p.write_text(ours)
        assert statefile.foreign(str(p)) is None, ours


@pytest.mark.parametrize("damage", [
    '{"position": "abc", "counts": {}}',
    '{"position": {"inode": 1, "offset": "12"}, "counts": {}}',
    '{"position": null, "counts": {"ANR2121W:W": "3"}}',
    '{"position": null, "counts": [], "unparsed": 0}',
    '{"position": null, "counts": {}, "unparsed": -1}',
    "",
    '{"kind": "aix_exporter tsm state", "position": {"inode": 1, "offs',
])
def test_a_damaged_state_loses_no_line(tmp_path, damage, caplog):
    """Read, save twice (so a previous state exists), lines written while the exporter is down,
    the state file damaged: the restarted exporter counts every line exactly once."""
    log = tmp_path / "dsmserv.log"
    log.write_text("".join(line(i) for i in range(5)))
    c, src = collector(tmp_path, log)
    c.collect(src)                       # a fresh exporter starts at the end: 0 counted
    with open(log, "a") as fh:
        fh.write("".join(line(i) for i in range(5, 8)))
    c.collect(src)
    with open(log, "a") as fh:
        fh.write("".join(line(i) for i in range(8, 10)))
    c.collect(src)
    assert counted(c) == 5
    with open(log, "a") as fh:           # written while the exporter is down
        fh.write("".join(line(i) for i in range(10, 14)))
    (tmp_path / "state" / "tsm.json").write_text(damage)
    again, src = collector(tmp_path, log)
    again.collect(src)
    assert counted(again) == 9           # 5 before, 4 while down: none lost, none twice
    assert any("resumed from the previous state" in r.getMessage() for r in caplog.records)


def test_temporary_files_of_a_killed_write_are_removed_at_start(tmp_path):
    d = tmp_path / "state"
    d.mkdir()
    for i in range(14):
        (d / f".tsm-state-{i}abc").write_text("{")
    (d / "keep-me").write_text("not ours")
    log = tmp_path / "log"
    log.write_text("")
    collector(tmp_path, log)
    assert sorted(os.listdir(d)) == ["keep-me"]


def test_copytruncate_that_regrows_past_the_offset_loses_nothing(tmp_path):
    log = tmp_path / "dsmserv.log"
    log.write_text("".join(line(i) for i in range(10)))
    text, pos = logtail.tail(str(log), None)
    assert text.count("ANR2121W") == 10
    with open(log, "a") as fh:
        fh.write("".join(line(i) for i in range(10, 13)))   # not read yet
    shutil.copy(log, str(log) + ".1")                       # copytruncate
    with open(log, "r+") as fh:
        fh.truncate(0)
    with open(log, "a") as fh:                              # regrows past the old offset
        fh.write("".join(line(i, "ANR0987I") + "padding to grow further\n" for i in range(13, 29)))
    assert os.path.getsize(log) > pos["offset"]
    text, pos = logtail.tail(str(log), pos)
    assert [l.split()[-1] for l in text.splitlines() if "message" in l] == [str(i) for i in range(10, 29)]


def test_a_rotation_storm_loses_nothing(tmp_path):
    """200 rotations of 10 lines (numbered, 20 kept), read every 1 to 5 rotations: 2,000 lines,
    each read once (410 of 2,000 before: files rotated in and out between reads were skipped)."""
    log = tmp_path / "dsmserv.log"
    log.write_text("")
    rng = random.Random(28)
    text, pos = logtail.tail(str(log), None)
    got = []
    n = 0
    due = rng.randint(1, 5)
    for _ in range(200):
        with open(log, "a") as fh:
            for _ in range(10):
                fh.write(line(n))
                n += 1
        if due == 0:
            text, pos = logtail.tail(str(log), pos)
            got += text.splitlines()
            due = rng.randint(1, 5)
        due -= 1
        for k in range(19, 0, -1):      # rotate: .19 -> .20 ... log -> .1, a new log
            if os.path.exists(f"{log}.{k}"):
                os.replace(f"{log}.{k}", f"{log}.{k + 1}")
        os.replace(log, f"{log}.1")
        log.write_text("")
    text, pos = logtail.tail(str(log), pos)
    got += text.splitlines()
    nums = [int(l.split()[-1]) for l in got]
    missing = sorted(set(range(2000)) - set(nums))
    assert len(got) == 2000 and nums == list(range(2000)), (len(got), missing[:20])


def test_a_position_that_kept_only_its_fingerprint_resumes_after_it(tmp_path):
    log = tmp_path / "dsmserv.log"
    log.write_text("".join(line(i) for i in range(6)))
    _, pos = logtail.tail(str(log), None)
    with open(log, "a") as fh:
        fh.write("".join(line(i) for i in range(6, 9)))
    damaged = {"tail": pos["tail"]}                  # offset and inode lost
    text, _ = logtail.tail(str(log), damaged, start_at_end=True)
    assert [l.split()[-1] for l in text.splitlines()] == ["6", "7", "8"]
    assert json.loads(json.dumps(damaged)) == damaged
