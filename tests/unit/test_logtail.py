"""The log tail's parts (sources/logtail.py) on files written by hand: which rotated copies are
looked at and in what order, a partial line that waits, a chunk without a line end passed
over, files rotated in and out between two reads, the position it hands back, and the
watermark that keeps overlapping dsmadmc queries from counting a message twice.

Every test runs twice: on this host's files, and through ``remotelog.RemoteFiles``, the
questions the ssh source asks an LPAR (its Perl helper, run here by the system source's
runner; tests/e2e/test_ssh.py runs it over a real sshd): the remote tail passes the local
tail's rotation cases."""
import functools
import os

import pytest

from aix_exporter.sources import logtail, remotelog, system


T = 1_800_000_000.0   # the time of a read, where a test compares whole positions


class HelperHere(remotelog.RemoteFiles):
    """The remote files' questions answered by the Perl helper on this host; the clock is the
    tests' (a test that fixes the time of a read fixes it for both)."""

    def now(self) -> float:
        return logtail.time.time()


class HelperBehind(remotelog.RemoteFiles):
    """An LPAR whose clock is an hour behind this host's (issue 61, item 7): the helper's answers
    as that host gives them, its time and its files' modification times an hour earlier, read
    through the remote tail's own clock (RemoteClock), not the tests'."""
    SKEW = -3600.0

    def _op(self, *args: str) -> str:
        out = super()._op(*args)
        if args[0] == "time":
            return f"{float(out) + self.SKEW:.6f}"
        if args[0] == "stat":
            ino, size, mtime = out.split()
            return f"{ino} {size} {float(mtime) + self.SKEW:.6f}"
        return out


@pytest.fixture(autouse=True, params=["local", "remote", "remote-an-hour-behind"])
def files(request, monkeypatch):
    if request.param.startswith("remote"):
        if "cannot_be_mapped" in request.node.name:
            pytest.skip("a file that cannot be mapped is a local case (the helper reads, it does not map)")
        if request.param == "remote":
            helper = HelperHere(lambda argv, timeout: system.run(argv, timeout), 30)
        else:
            if "clock" in request.fixturenames:
                pytest.skip("a test that fixes this host's time compares positions in it: the LPAR's differ")
            helper = HelperBehind(lambda argv, timeout: system.run(argv, timeout), 30)
        monkeypatch.setattr(logtail, "tail", functools.partial(logtail.tail, fs=helper))
    return request.param


def test_the_helper_clock_is_the_hosts():
    here = remotelog.RemoteFiles(lambda argv, timeout: system.run(argv, timeout), 30)
    assert abs(here.now() - __import__("time").time()) < 5


@pytest.fixture
def clock(monkeypatch):
    monkeypatch.setattr(logtail.time, "time", lambda: T)
    return T


def read_then_rotate(tmp_path, appended: str, rotated_to: str):
    """a.log with one line read, then ``appended`` to it and the file renamed ``rotated_to``:
    the position of that read."""
    log = tmp_path / "a.log"
    log.write_text("1\n")
    _, pos = logtail.tail(str(log), None)
    with open(log, "a") as fh:
        fh.write(appended)
    os.rename(log, tmp_path / rotated_to)
    return log, pos


def test_rotated_copies_oldest_first_compressed_ones_left_out(tmp_path):
    log = tmp_path / "dsmserv.log"
    for name in ("dsmserv.log", "dsmserv.log.1", "dsmserv.log.2", "dsmserv.log.10", "dsmserv.log-20261124",
                 "dsmserv.log-20261125", "dsmserv.log.3.gz", "dsmserv.log.4.Z", "dsmserv.log.5.bz2",
                 "dsmserv.log.6.xz", "dsmserv.log.7.zst", "other.log.1"):
        (tmp_path / name).write_text("x\n")
    assert [os.path.basename(p) for p in logtail._siblings(str(log))] == [
        "dsmserv.log.10", "dsmserv.log.2", "dsmserv.log.1", "dsmserv.log-20261124", "dsmserv.log-20261125"]
    assert logtail._siblings(str(tmp_path / "none" / "x.log")) == []


def test_at_most_64_rotated_copies_the_newest(tmp_path):
    for k in range(1, 70):
        (tmp_path / f"a.log.{k}").write_text("")
    got = [os.path.basename(p) for p in logtail._siblings(str(tmp_path / "a.log"))]
    assert len(got) == 64 and got[0] == "a.log.64" and got[-1] == "a.log.1"


def test_only_complete_lines_and_the_position_after_them(tmp_path, clock):
    log = tmp_path / "a.log"
    log.write_bytes(b"one\ntwo\nthr")
    text, pos = logtail.tail(str(log), None)
    assert text == "one\ntwo\n"
    assert pos == {"inode": os.stat(log).st_ino, "offset": 8, "tail": b"one\ntwo\n".hex(), "t": T}
    with open(log, "ab") as fh:
        fh.write(b"ee\n")
    text, pos = logtail.tail(str(log), pos)
    assert text == "three\n" and pos["offset"] == 14 and pos["tail"] == b"one\ntwo\nthree\n".hex()
    assert logtail.tail(str(log), pos) == ("", pos)


def test_the_fingerprint_is_the_last_64_bytes(tmp_path):
    log = tmp_path / "a.log"
    body = b"".join(b"line %03d\n" % k for k in range(20))      # 180 bytes
    log.write_bytes(body)
    _, pos = logtail.tail(str(log), None)
    assert bytes.fromhex(pos["tail"]) == body[-64:] and pos["offset"] == 180


def test_a_chunk_without_a_line_end_is_passed_over(tmp_path, monkeypatch):
    monkeypatch.setattr(logtail, "MAX_CHUNK", 16)
    log = tmp_path / "a.log"
    log.write_bytes(b"\x00" * 16 + b"after\n")
    text, pos = logtail.tail(str(log), None)
    assert (text, pos["offset"]) == ("", 16)
    text, pos = logtail.tail(str(log), pos)
    assert (text, pos["offset"]) == ("after\n", 22)
    log.write_bytes(b"x" * 15)                                  # less than a chunk: waited on
    assert logtail.tail(str(log), None)[1]["offset"] == 0


def test_nul_bytes_are_dropped_from_the_lines(tmp_path):
    log = tmp_path / "a.log"
    log.write_bytes(b"a\x00\x00b\n\x00\x00\x00\nc\n")
    assert logtail.tail(str(log), None)[0] == "ab\n\nc\n"


def test_files_rotated_in_and_out_between_two_reads_are_read_oldest_first(tmp_path):
    log, pos = read_then_rotate(tmp_path, "2\n", "a.log.2")     # rotated, then again
    (tmp_path / "a.log.1").write_text("3\n")
    log.write_text("4\n")
    text, pos = logtail.tail(str(log), pos)
    assert text == "2\n3\n4\n" and pos["inode"] == os.stat(log).st_ino and pos["offset"] == 2


def test_a_rotated_file_that_is_gone_loses_only_its_own_lines(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("1\n")
    _, pos = logtail.tail(str(log), None)
    os.unlink(log)
    log.write_text("new\n")
    assert logtail.tail(str(log), pos)[0] == "new\n"


def test_a_position_with_only_its_fingerprint_resumes_after_its_last_occurrence(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("a\nb\na\nb\nc\n")
    text, pos = logtail.tail(str(log), {"tail": b"a\nb\n".hex()})
    assert text == "c\n" and pos["offset"] == 10
    text, _ = logtail.tail(str(log), {"tail": b"zz\n".hex()})   # not found: from the start
    assert text == "a\nb\na\nb\nc\n"


def test_overlapping_dsmadmc_queries_count_each_message_once():
    first = ("11/25/2026 08:00:00  ANR0358E Insufficient memory.\n"
             "                       continued\n"
             "11/25/2026 08:00:05  ANR2017I Administrator issued.\n")
    text, pos = logtail.dsmadmc_new_lines(first, None)
    assert text == first
    assert pos == {"mark": "20261125080005", "seen": ["11/25/2026 08:00:05  ANR2017I Administrator issued."]}
    again = first + ("11/25/2026 08:00:05  ANR0406I Session started.\n"
                     "11/25/2026 08:01:00  ANR0407I Session ended.\n")
    text, pos = logtail.dsmadmc_new_lines(again, pos)
    assert text == "11/25/2026 08:00:05  ANR0406I Session started.\n11/25/2026 08:01:00  ANR0407I Session ended.\n"
    assert pos == {"mark": "20261125080100", "seen": ["11/25/2026 08:01:00  ANR0407I Session ended."]}
    assert logtail.dsmadmc_new_lines(again, pos) == ("", pos)
    assert logtail.dsmadmc_new_lines("", None) == ("", {"mark": "", "seen": []})


def test_dated_rotations_between_two_reads_lose_no_line(tmp_path):
    """logrotate with dateext: the file read last is a.log-20261124 by now, and a.log-20261125
    was rotated after it; both are read, in that order, before the new file."""
    log, pos = read_then_rotate(tmp_path, "2\n", "a.log-20261124")
    (tmp_path / "a.log-20261125").write_text("3\n")
    log.write_text("4\n")
    assert logtail.tail(str(log), pos)[0] == "2\n3\n4\n"


def test_copytruncate_reads_only_the_copy_that_holds_the_fingerprint(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("one\ntwo\n")
    _, pos = logtail.tail(str(log), None)
    (tmp_path / "a.log.2").write_text("xxxxxxxxwrong\n")             # older, as long, another file's bytes
    (tmp_path / "a.log.1").write_text("one\ntwo\nthree\n")            # the copy
    log.write_text("")
    assert logtail.tail(str(log), pos)[0] == "three\n"


def test_a_copy_is_recognised_only_by_a_fingerprint(tmp_path, clock):
    log = tmp_path / "a.log"
    (tmp_path / "a.log.1").write_text("abcdXXXXrest\n")
    log.write_text("")                                          # truncated in place: the same inode, shorter
    position = {"inode": os.stat(log).st_ino, "offset": 8}
    # no fingerprint: no copy is taken; shorter than the offset: read again from the start
    assert logtail.tail(str(log), position) == ("", {"inode": position["inode"], "offset": 0, "tail": "", "t": T})


def test_the_rest_of_a_rotated_file_is_its_complete_lines(tmp_path):
    log, pos = read_then_rotate(tmp_path, "2\nparti", "a.log.1")
    log.write_text("3\n")
    assert logtail.tail(str(log), pos)[0] == "2\n3\n"


def test_a_fingerprint_at_the_very_start_is_found(tmp_path, clock):
    log = tmp_path / "a.log"
    log.write_text("a\nb\nc\n")
    assert logtail.tail(str(log), {"tail": b"a\nb\n".hex()}) == ("c\n", {"inode": os.stat(log).st_ino, "offset": 6,
                                                                         "tail": b"a\nb\nc\n".hex(), "t": T})


def test_read_errors_and_undecodable_bytes(tmp_path, monkeypatch):
    from aix_exporter.sources import SourceError
    log = tmp_path / "a.log"
    log.write_bytes(b"caf\xe9\n")
    assert logtail.tail(str(log), None)[0] == "caf\ufffd\n"
    with pytest.raises(SourceError) as e:
        logtail.tail(str(tmp_path / "none.log"), None)
    assert str(e.value) == f"log file {tmp_path / 'none.log'} does not exist"

    def fails(fh, offset, limit):
        raise OSError(5, "Input/output error")
    monkeypatch.setattr(logtail, "_read", fails)
    with pytest.raises(SourceError) as e:
        logtail.tail(str(log), None)
    assert str(e.value) == f"cannot read {log}: Input/output error"


def test_messages_at_the_watermark_second_add_to_the_seen_ones():
    pos = {"mark": "20261125080005", "seen": ["11/25/2026 08:00:05  ANR2017I Administrator issued."]}
    again = ("11/25/2026 08:00:05  ANR2017I Administrator issued.\n"
             "11/25/2026 08:00:05  ANR0406I Session started.\n")
    text, pos = logtail.dsmadmc_new_lines(again, pos)
    assert text == "11/25/2026 08:00:05  ANR0406I Session started.\n"
    assert pos == {"mark": "20261125080005", "seen": ["11/25/2026 08:00:05  ANR0406I Session started.",
                                                      "11/25/2026 08:00:05  ANR2017I Administrator issued."]}
    assert logtail.dsmadmc_new_lines(again, pos) == ("", pos)      # neither is counted again


def test_a_rotated_copy_that_cannot_be_opened_is_passed_over(tmp_path):
    log, pos = read_then_rotate(tmp_path, "2\n", "a.log.1")
    (tmp_path / "a.log.2").mkdir()                  # older by its name, and not a file
    log.write_text("3\n")
    assert logtail.tail(str(log), pos)[0] == "2\n3\n"


def test_a_file_rotated_in_and_out_gives_only_its_complete_lines(tmp_path):
    log, pos = read_then_rotate(tmp_path, "2\n", "a.log.2")
    (tmp_path / "a.log.1").write_text("3\n4-cut")   # rotated out in the middle of a line
    log.write_text("5\n")
    assert logtail.tail(str(log), pos)[0] == "2\n3\n5\n"


def test_a_position_without_an_offset_or_a_fingerprint(tmp_path, clock):
    log = tmp_path / "a.log"
    log.write_text("1\n2\n")
    inode = os.stat(log).st_ino
    # a state written without a fingerprint: read from its offset
    assert logtail.tail(str(log), {"inode": inode, "offset": 2}) == (
        "2\n", {"inode": inode, "offset": 4, "tail": b"1\n2\n".hex(), "t": T})
    # without an offset either, the same file: from its start
    assert logtail.tail(str(log), {"inode": inode}) == ("1\n2\n", {"inode": inode, "offset": 4, "tail": b"1\n2\n".hex(),
                                                                   "t": T})
    # without an offset either, after a rotation: the rotated file from its start
    os.rename(log, tmp_path / "a.log.1")
    log.write_text("3\n")
    assert logtail.tail(str(log), {"inode": inode})[0] == "1\n2\n3\n"


def test_numbered_rotations_are_older_than_dated_ones(tmp_path):
    for name in ("a.log-20261125", "a.log.1", "a.log-20261124", "a.log.2", "a.log.0"):
        (tmp_path / name).write_text("x\n")
    assert [os.path.basename(p) for p in logtail._siblings(str(tmp_path / "a.log"))] == [
        "a.log.2", "a.log.1", "a.log.0", "a.log-20261124", "a.log-20261125"]


def test_a_rotated_copy_that_cannot_be_opened_between_newer_ones_is_passed_over(tmp_path):
    log, pos = read_then_rotate(tmp_path, "2\n", "a.log.3")
    (tmp_path / "a.log.2").mkdir()                  # rotated after it by its name, and not a file
    (tmp_path / "a.log.1").write_text("3\n")
    log.write_text("4\n")
    assert logtail.tail(str(log), pos)[0] == "2\n3\n4\n"


def test_the_chunk_read_in_one_cycle_is_64_mib():
    assert logtail.MAX_CHUNK == 64 << 20


def test_a_damaged_position_whose_fingerprint_is_longer_than_its_offset(tmp_path, clock):
    """The fingerprint cannot be compared before the offset: the position is taken as it is."""
    log = tmp_path / "a.log"
    log.write_text("0123456789abc\n")
    inode = os.stat(log).st_ino
    pos = {"inode": inode, "offset": 10, "tail": (b"x" * 15).hex()}
    assert logtail.tail(str(log), pos) == ("abc\n", {"inode": inode, "offset": 14, "tail": b"0123456789abc\n".hex(),
                                                    "t": T})


def test_a_fingerprint_not_found_reads_from_the_start_and_an_empty_file_stays_at_0(tmp_path, monkeypatch, clock):
    log = tmp_path / "a.log"
    log.write_text("")
    (tmp_path / "a.log.1").write_text("old\n")         # a rotated copy: never looked at without an offset
    inode = os.stat(log).st_ino
    assert logtail.tail(str(log), {"tail": b"zz\n".hex()}) == ("", {"inode": inode, "offset": 0, "tail": "", "t": T})
    log.write_text("hello\n")
    assert logtail.tail(str(log), {"tail": b"zz\n".hex()})[0] == "hello\n"



def test_a_fingerprint_in_a_file_that_cannot_be_mapped_is_not_found(tmp_path, monkeypatch, clock):
    log = tmp_path / "a.log"
    log.write_text("hello\n")
    inode = os.stat(log).st_ino

    def fails(*a, **k):
        raise OSError(19, "No such device")
    monkeypatch.setattr(logtail.mmap, "mmap", fails)        # a file that cannot be mapped: not found
    assert logtail.tail(str(log), {"tail": b"hello\n".hex()}) == (
        "hello\n", {"inode": inode, "offset": 6, "tail": b"hello\n".hex(), "t": T})


def test_dsmadmc_lines_before_the_first_message_are_not_messages():
    text = ("IBM Spectrum Protect Command Line Administrative Interface - Version 8, Release 1\n"
            "ANS8000I Server command: 'q actlog'\n"
            "11/25/2026 08:00:00  ANR0358E Insufficient memory.\n")
    assert logtail.dsmadmc_new_lines(text, None) == (
        "11/25/2026 08:00:00  ANR0358E Insufficient memory.\n",
        {"mark": "20261125080000", "seen": ["11/25/2026 08:00:00  ANR0358E Insufficient memory."]})


def rotate(tmp_path, keep: int):
    """logrotate's numbered rotation: a.log.N-1 -> a.log.N ..., a.log -> a.log.1, beyond ``keep`` deleted."""
    for k in range(keep, 0, -1):
        src = tmp_path / f"a.log.{k}"
        if src.exists():
            if k == keep:
                src.unlink()
            else:
                src.rename(tmp_path / f"a.log.{k + 1}")
    (tmp_path / "a.log").rename(tmp_path / "a.log.1")


@pytest.mark.parametrize("rotations, keep, lost", [(9, 9, False), (10, 9, True), (25, 9, True)])
def test_more_rotations_than_are_kept_lose_only_what_left_the_disk(tmp_path, rotations, keep, lost):
    """60 lines a file: with the file we read rotated off the disk, every sibling still there is
    read, oldest first, and the gap is said; with it still there, nothing is lost."""
    log = tmp_path / "a.log"
    log.write_text("read 1\n")
    _, pos = logtail.tail(str(log), None)
    with open(log, "a") as fh:
        fh.write("".join(f"unread {k}\n" for k in range(60)))     # after our read, before the first rotation
    for r in range(rotations):
        rotate(tmp_path, keep)
        log.write_text("".join(f"file {r} line {k}\n" for k in range(60)))
    text, pos = logtail.tail(str(log), pos)
    on_disk = [f"file {r} line {k}" for r in range(max(0, rotations - keep - 1), rotations) for k in range(60)]
    if lost:
        assert text.splitlines() == on_disk and pos["gap"] == 1
    else:
        assert text.splitlines() == [f"unread {k}" for k in range(60)] + on_disk and "gap" not in pos


def test_a_reused_inode_number_is_not_trusted_without_the_fingerprint(tmp_path, monkeypatch):
    """The rotated copy has our inode number but other bytes before our offset (the number was
    reused after our file was deleted): it is not the rest of our file, so the gap is said."""
    log = tmp_path / "a.log"
    log.write_text("ours 1\nours 2\n")
    _, pos = logtail.tail(str(log), None)
    log.unlink()
    other = tmp_path / "a.log.1"
    other.write_text("theirs 1\ntheirs 2\ntheirs 3\n")
    log.write_text("new\n")
    pos = {**pos, "inode": os.stat(other).st_ino}               # as if the number had been reused
    text, after = logtail.tail(str(log), pos)
    assert text == "theirs 1\ntheirs 2\ntheirs 3\nnew\n" and after["gap"] == 1


def test_the_tsm_collector_counts_each_gap_and_keeps_the_count(tmp_path):
    from aix_exporter.collectors.tsm import TsmCollector
    from aix_exporter.config import Settings
    from tests.lib.checks import samples

    class Source:
        def __init__(self, positions):
            self.positions = positions

        def read_log(self, key, position):
            return "", self.positions.pop(0)
    s = Settings()
    s.tsm.state_file, s.tsm.actlog_file = str(tmp_path / "state.json"), str(tmp_path / "log")
    c = TsmCollector(s)
    src = Source([{"inode": 1, "offset": 0, "tail": "", "gap": 1}, {"inode": 2, "offset": 0, "tail": ""},
                  {"inode": 3, "offset": 0, "tail": "", "gap": 1}])
    got = [samples(c.collect(src))[("aix_tsm_log_rotation_gaps_total", ())] for _ in range(3)]
    assert got == [1, 1, 2] and c.position == {"inode": 3, "offset": 0, "tail": ""}
    assert TsmCollector(s).gaps == 2                              # kept across a restart


def test_an_offset_past_the_end_is_a_rotation_not_new_lines(tmp_path):
    """The same inode but shorter than the saved offset: no copy holds our fingerprint, so the
    file was replaced in place. Rotated files last written before our read hold nothing unread
    (they are not read again); the file is read from its start."""
    log = tmp_path / "a.log"
    old = tmp_path / "a.log.1"
    old.write_text("".join(f"old {k}\n" for k in range(13)))
    log.write_text("".join(f"line {k}\n" for k in range(40)))
    _, pos = logtail.tail(str(log), None)
    os.utime(old, (pos["t"] - 60, pos["t"] - 60))             # written before our read: all read then
    log.write_text("new 1\nnew 2\n")                          # the same inode, shorter than our offset
    text, after = logtail.tail(str(log), pos)
    assert text == "new 1\nnew 2\n" and after["offset"] == 12 and "gap" not in after
