"""TSM activity log: formats, bad input, counting once across restarts, rotation and truncation."""
import os

import pytest

from aix_exporter.collectors.tsm import TsmCollector
from aix_exporter.config import Settings
from aix_exporter.parsers import ParseError, tsm_actlog
from aix_exporter.sources import SourceError
from aix_exporter.sources.logtail import tail
from aix_exporter.sources.replay import ReplaySource
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_tsm_log_formats():
    msgs = tsm_actlog.parse(fixture_text("tsm_actlog", "server-4k-then-ANR0358E.txt"))
    ids = [m.msgid for m in msgs]
    assert ids.count("ANR9999D") == 2 and "ANR0358E" in ids and "ANR2121W" in ids
    assert [m for m in msgs if m.msgid == "ANR8300E"][0].date == "11/18/26"
    assert len(msgs) == 9



@pytest.mark.parametrize("text,message", [
    ("11/18/2026 08:00:02  hello\n", "dated line without a message id"),
    ("\x00\x01binary\n", "binary data"),
])
def test_tsm_bad_input(text, message):
    with pytest.raises(ParseError, match=message):
        tsm_actlog.parse(text)


CONSOLE = """IBM Spectrum Protect for AIX
Version 8, Release 1, Level 12.000

Licensed Materials - Property of IBM

ANR7800I DSMSERV generated at 10:13:38 on Mar 11 2021.
ANR1794W IBM Spectrum Protect SAN discovery is disabled by options.
ANR9999D_0123456789 pkShmMemAlloc(pkshmem.c:1234) Thread<12>: Memory allocation error.
ANR0000E Unable to open language en_US for message formatting.
ANR0358E Database initialization failed: sufficient memory is not available.
11/18/2026 08:00:02  garbage without an id
ANR0916I IBM Spectrum Protect distributed by International Business Machines is now ready for
use.
"""


def test_console_log_undated_messages_banner_and_one_odd_line():
    msgs, odd = tsm_actlog.parse_lenient(CONSOLE)
    assert [(m.msgid, m.severity, m.date) for m in msgs] == [
        ("ANR7800I", "I", ""), ("ANR1794W", "W", ""), ("ANR9999D", "D", ""), ("ANR0000E", "E", ""),
        ("ANR0358E", "E", ""), ("ANR0916I", "I", "")]
    assert len(odd) == 1 and "dated line without a message id" in str(odd[0]) and "(line 11:" in str(odd[0])


def test_console_log_is_counted_by_id_with_success_and_the_odd_line_counted(tmp_path, caplog):
    from aix_exporter.exporter import Exporter
    d = tmp_path / "replay"
    d.mkdir()
    (d / "tsm_actlog.txt").write_text(CONSOLE)
    e = Exporter(ReplaySource(str(d)), [TsmCollector(_settings(tmp_path, state=False))])
    e.collect_all()
    m = samples(e.families())
    assert m[("aix_exporter_collector_success", (("collector", "tsm"),))] == 1
    assert m[("aix_tsm_messages_total", (("msgid", "ANR9999D"), ("severity", "D")))] == 1
    assert m[("aix_tsm_messages_total", (("msgid", "ANR0358E"), ("severity", "E")))] == 1
    assert m[("aix_tsm_messages_total", (("msgid", "ANR1794W"), ("severity", "W")))] == 1
    assert m[("aix_tsm_messages_total", (("msgid", "ANR0000E"), ("severity", "E")))] == 1
    assert ("aix_tsm_messages_total", (("msgid", "ANR7800I"), ("severity", "I"))) not in m   # I: not counted
    assert m[("aix_tsm_unparsed_lines_total", ())] == 1
    assert len([r for r in caplog.records if "odd line skipped" in r.getMessage()]) == 1
    e.collect_all()                                   # nothing new: nothing logged or counted again
    assert samples(e.families())[("aix_tsm_unparsed_lines_total", ())] == 1
    assert len([r for r in caplog.records if "odd line skipped" in r.getMessage()]) == 1


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



def test_an_odd_line_is_counted_and_skipped_and_the_good_lines_counted_once(tmp_path):
    d = tmp_path / "replay"
    d.mkdir()
    (d / "tsm_actlog.txt").write_text("11/19/2026 00:00:07  ANR0358E x\n11/19/2026 00:00:08  no id here\n")
    c = TsmCollector(_settings(tmp_path, state=False))
    src = ReplaySource(str(d))
    m = samples(c.collect(src))
    assert m[("aix_tsm_messages_total", (("msgid", "ANR0358E"), ("severity", "E")))] == 1
    assert m[("aix_tsm_unparsed_lines_total", ())] == 1
    m = samples(c.collect(src))   # next cycle: nothing re-read
    assert m[("aix_tsm_messages_total", (("msgid", "ANR0358E"), ("severity", "E")))] == 1
    assert m[("aix_tsm_unparsed_lines_total", ())] == 1


def test_tail_start_at_end_and_missing_file(tmp_path):
    p = tmp_path / "log"
    p.write_text("old\n")
    text, pos = tail(str(p), None, start_at_end=True)
    assert text == "" and pos["offset"] == 4 and pos["tail"] == b"old\n".hex()
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


def test_each_severity_letter_is_counted_as_itself(tmp_path):
    """I is not counted; W, E, S and D are, each under its own severity label."""
    d = tmp_path / "replay"
    d.mkdir()
    (d / "tsm_actlog.txt").write_text("".join(
        f"11/19/2026 00:00:0{n}  ANR000{n}{sev} message\n" for n, sev in enumerate("IWESD", 1)))
    m = samples(TsmCollector(_settings(tmp_path, state=False)).collect(ReplaySource(str(d))))
    got = {k[1]: v for k, v in m.items() if k[0] == "aix_tsm_messages_total" and not k[1][0][1].startswith("ANR03")
           and not k[1][0][1].startswith("ANR99")}
    assert got == {(("msgid", "ANR0002W"), ("severity", "W")): 1, (("msgid", "ANR0003E"), ("severity", "E")): 1,
                   (("msgid", "ANR0004S"), ("severity", "S")): 1, (("msgid", "ANR0005D"), ("severity", "D")): 1}


def test_tsm_collector_is_configured_by_the_log_file_or_by_dsmadmc_alone():
    from aix_exporter.collectors.tsm import TsmCollector
    from aix_exporter.config import Settings
    s = Settings()
    assert not TsmCollector.configured(s)
    s.tsm.actlog_file = "/var/log/tsm/actlog"
    assert TsmCollector.configured(s)
    s.tsm.actlog_file, s.tsm.dsmadmc = None, ["-dataonly=yes", "query actlog begint=-00:05"]
    assert TsmCollector.configured(s)


@pytest.mark.parametrize("line,key", [
    ("01/22/2009 06:13:05  ANR0407I Session 141 started", "20090122061305"),
    ("01/22/09 06:13:05  ANR0407I Session 141 started", "20090122061305"),
    ("  11/18/2026 23:59:59 ANR0358E Database", "20261118235959"),
    ("ANR0358E Database initialization failed", None),
    ("   continued text of a message", None),
])
def test_timestamp_key_of_a_dated_line(line, key):
    assert tsm_actlog.timestamp_key(line) == key


def test_parse_of_a_log_without_messages_or_odd_lines_is_empty():
    assert tsm_actlog.parse("IBM Spectrum Protect for AIX\n\nLicensed Materials\n") == []
    assert tsm_actlog.parse("   \n") == [] and tsm_actlog.parse_lenient("") == ([], [])


def test_message_fields_of_dated_and_console_lines():
    msgs = tsm_actlog.parse("01/22/2009 06:13:05  ANR0407I Session 141 started\n7\n"
                            "ANR0358E Database initialization failed\n  5 more\n")
    assert [(m.date, m.time, m.msgid, m.severity, m.line_no) for m in msgs] == [
        ("01/22/2009", "06:13:05", "ANR0407I", "I", 1), ("", "", "ANR0358E", "E", 3)]


def test_an_odd_line_s_error_in_full():
    msgs, odd = tsm_actlog.parse_lenient("11/18/2026 08:00:02  garbage without an id\n")
    assert msgs == [] and [str(e) for e in odd] == [
        "tsm activity log: dated line without a message id (line 1: '11/18/2026 08:00:02  garbage without an id')"]
