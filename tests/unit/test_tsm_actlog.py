"""TSM activity log: formats, bad input, counting once across restarts, rotation and truncation."""
import os

import pytest

from aix_exporter.collectors.tsm import TsmCollector
from aix_exporter.config import Settings
from aix_exporter.parsers import ParseError, tsm_actlog
from aix_exporter.sources import SourceError
from aix_exporter.sources.logtail import tail
from aix_exporter.sources.replay import ReplaySource
from tests.conftest import fixture_text
from tests.unit.helpers import samples


def test_tsm_log_formats():
    msgs = tsm_actlog.parse(fixture_text("tsm_actlog", "server-4k-then-ANR0358E.txt"))
    ids = [m.msgid for m in msgs]
    assert ids.count("ANR9999D") == 2 and "ANR0358E" in ids and "ANR2121W" in ids
    assert [m for m in msgs if m.msgid == "ANR8300E"][0].date == "11/18/26"
    assert len(msgs) == 9



@pytest.mark.parametrize("text,message", [
    ("ANR9999D_2697328974 CheckPosition(pvrntp.c:1) Thread<1>:\n", "message without a date"),
    ("11/18/2026 08:00:02  hello\n", "dated line without a message id"),
    ("random text\n11/18/2026 08:00:02  ANR0984I x\n", "text before the first dated message"),
])
def test_tsm_bad_input(text, message):
    with pytest.raises(ParseError, match=message):
        tsm_actlog.parse(text)



def _settings(tmp_path, state=True):
    s = Settings()
    s.tsm.state_file = str(tmp_path / "state.json") if state else None
    return s



def test_tsm_counts_once_across_restarts_rotation_and_truncation(tmp_path):
    d = tmp_path / "replay"
    d.mkdir()
    log = d / "tsm_actlog.txt"
    log.write_text("11/19/2026 00:00:07  ANR9999D Memory allocation error.\n")
    src = ReplaySource(str(d))

    def count(c, msgid):
        return samples(c.collect(src)).get(("aix_tsm_messages_total", (("msgid", msgid), ("severity", msgid[-1]))))

    c = TsmCollector(_settings(tmp_path))
    assert count(c, "ANR9999D") == 1 and count(c, "ANR0358E") == 0
    with open(log, "a") as fh:   # appended, with a partial last line that must wait
        fh.write("11/19/2026 00:00:07  ANR0358E Database initialization failed: sufficient memory is\n"
                 "                      not available.\n11/19/2026 00:00:09  ANR2121W ATTEN")
    assert count(c, "ANR0358E") == 1
    c2 = TsmCollector(_settings(tmp_path))          # exporter restart: resumes, no recount
    assert count(c2, "ANR9999D") == 1 and count(c2, "ANR0358E") == 1
    with open(log, "a") as fh:
        fh.write("TION: More recovery logs are needed.\n")
    assert count(c2, "ANR2121W") == 1
    log.write_text("11/20/2026 01:00:00  ANR9999D again\n")   # truncated and rewritten
    assert count(c2, "ANR9999D") == 2
    os.rename(log, d / "old.txt")                            # rotated: new inode
    log.write_text("11/20/2026 02:00:00  ANR9999D rotated\n")
    assert count(c2, "ANR9999D") == 3



def test_tsm_bad_line_fails_the_cycle_but_counts_good_lines_once(tmp_path):
    d = tmp_path / "replay"
    d.mkdir()
    (d / "tsm_actlog.txt").write_text("11/19/2026 00:00:07  ANR0358E x\nANR9999D_1 f(x.c:1) Thread<1>:\n")
    c = TsmCollector(_settings(tmp_path, state=False))
    src = ReplaySource(str(d))
    with pytest.raises(ParseError, match="without a date"):
        c.collect(src)
    m = samples(c.collect(src))   # next cycle: the bad line is not re-read
    assert m[("aix_tsm_messages_total", (("msgid", "ANR0358E"), ("severity", "E")))] == 1



def test_tail_start_at_end_and_missing_file(tmp_path):
    p = tmp_path / "log"
    p.write_text("old\n")
    text, pos = tail(str(p), None, start_at_end=True)
    assert text == "" and pos["offset"] == 4
    with open(p, "a") as fh:
        fh.write("new\n")
    assert tail(str(p), pos)[0] == "new\n"
    with pytest.raises(SourceError, match="does not exist"):
        tail(str(tmp_path / "missing"), None)



def _line(n):
    return f"11/19/2026 00:00:{n:02d}  ANR2121W message {n}\n"


def test_rotation_reads_the_old_file_to_its_end_first(tmp_path):
    log = tmp_path / "dsmserv.log"
    log.write_text(_line(1))
    text, pos = tail(str(log), None)
    assert text == _line(1)
    with open(log, "a") as fh:
        fh.write(_line(2))                       # written just before the rotation
    os.rename(log, tmp_path / "dsmserv.log.1")
    log.write_text(_line(3))
    text, pos = tail(str(log), pos)
    assert text == _line(2) + _line(3)


def test_copytruncate_finds_the_lines_written_before_the_truncation(tmp_path):
    import shutil
    log = tmp_path / "dsmserv.log"
    log.write_text(_line(1) + _line(2))
    text, pos = tail(str(log), None)
    with open(log, "a") as fh:
        fh.write(_line(3))
    shutil.copy(log, tmp_path / "dsmserv.log.1")  # copytruncate: copy, then truncate in place
    with open(log, "r+") as fh:
        fh.truncate(0)
    with open(log, "a") as fh:
        fh.write(_line(4))
    text, pos = tail(str(log), pos)
    assert text == _line(3) + _line(4)
    assert tail(str(log), pos)[0] == ""


def test_nul_filled_regions_are_skipped_and_later_messages_counted(tmp_path, monkeypatch):
    from aix_exporter.sources import logtail
    monkeypatch.setattr(logtail, "MAX_CHUNK", 4096)
    log = tmp_path / "dsmserv.log"
    log.write_bytes(b"\x00" * 10000 + _line(1).encode() + b"\x00" * 300 + _line(2).encode())
    seen, pos = "", None
    for _ in range(5):
        text, pos = tail(str(log), pos)
        seen += text
    assert [m.msgid for m in tsm_actlog.parse(seen)] == ["ANR2121W", "ANR2121W"]


def test_a_fifo_in_place_of_the_log_is_an_error_not_a_hang(tmp_path):
    fifo = tmp_path / "dsmserv.log"
    os.mkfifo(fifo)
    with pytest.raises(SourceError, match="not a regular file"):
        tail(str(fifo), None)
    from aix_exporter.sources.replay import ReplaySource
    os.mkfifo(tmp_path / "vmstat.txt")
    with pytest.raises(SourceError, match="not a regular file"):
        ReplaySource(str(tmp_path)).read("vmstat")


def test_state_save_on_a_full_disk_leaves_no_temp_file(tmp_path, monkeypatch):
    s = Settings()
    s.tsm.actlog_file, s.tsm.state_file = str(tmp_path / "log"), str(tmp_path / "state.json")
    c = TsmCollector(s)

    def full(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError):
        c._save()
    assert [p.name for p in tmp_path.iterdir()] == []
