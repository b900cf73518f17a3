"""How an nmon recording's lines are read (importers/nmon/records.py): the limits on a line and
on a whole recording from both sides, whatever the block a line is cut at; the delimiter and
decimal comma from the first line; the numbers a field may hold; which lines are read and
which only counted (sections, TOP rows, BBBP commands)."""
import io

import pytest

from aix_exporter.importers import nmon
from aix_exporter.importers.base import Stats
from aix_exporter.importers.nmon import records

MIB = 1 << 20


def stream(data: bytes):
    """A recording opened as the importer opens one: text over a binary buffer with read1."""
    return io.TextIOWrapper(io.BufferedReader(io.BytesIO(data)), encoding="utf-8", errors="replace", newline="")


def read(data, **kw):
    stats = Stats()
    return list(records.read_records(stream(data), stats)), stats


def recording(line_length):
    return b"AAA,progname,nmon\n" + b"CPU_ALL," + b"9" * (line_length - len("CPU_ALL,")) + b"\nZZZZ,T0001,x\n"


@pytest.mark.parametrize("block", [1, 7, 4096])
def test_a_line_of_exactly_the_limit_is_read_and_a_longer_one_refused_by_the_next_block(block, monkeypatch):
    """The limit is a guard on memory: a line is refused once more than MAX_LINE_BYTES of it
    were read without its end, which is seen at a block's end; read a byte at a time, a line
    one byte over is refused."""
    monkeypatch.setattr(records, "_BLOCK_BYTES", block)
    monkeypatch.setattr(records, "MAX_LINE_BYTES", 64)
    got, _ = read(recording(64))
    assert [len(",".join(f)) for f, _ in got] == [len("AAA,progname,nmon"), 64, len("ZZZZ,T0001,x")]
    over = 65 if block == 1 else 64 + block + 1
    with pytest.raises(records.NmonError) as e:
        read(recording(over))
    assert str(e.value) == "a line longer than 64 bytes: not an nmon recording"


def test_the_line_limit_is_one_mib_and_said_so():
    assert records.MAX_LINE_BYTES == MIB
    assert len(read(recording(MIB))[0]) == 3
    with pytest.raises(records.NmonError) as e:
        read(recording(2 * MIB + 1))
    assert str(e.value) == "a line longer than 1 MiB: not an nmon recording"


def test_a_recording_of_exactly_the_size_limit_is_read_and_one_byte_more_is_refused(monkeypatch):
    data = recording(100)
    monkeypatch.setattr(records, "MAX_RECORDING_BYTES", len(data))
    assert len(read(data)[0]) == 3
    with pytest.raises(records.NmonError) as e:
        read(data + b"\n")
    assert str(e.value) == (f"more than {len(data)} bytes decompressed: not an nmon recording (or a compression "
                            "bomb)")


def test_the_size_limit_is_4_gib():
    assert records.MAX_RECORDING_BYTES == 4 << 30


def test_lines_given_as_a_list_are_read_in_batches_of_the_block_size(monkeypatch):
    monkeypatch.setattr(records, "_BLOCK_LINES", 2)
    lines = ["AAA,progname,nmon\r\n", "ZZZZ,T0001,00:00:05,01-JAN-2026\n", "CPU_ALL,T0001,1,2,3,4\n",
             "PROC,T0001,1,2\n", "DISKBUSY,T0001,5\n"]
    got = list(records.read_records(lines, Stats()))
    assert [f for f, _ in got] == [["AAA", "progname", "nmon"], ["ZZZZ", "T0001", "00:00:05", "01-JAN-2026"],
                                   ["CPU_ALL", "T0001", "1", "2", "3", "4"], ["PROC", "T0001", "1", "2"]]
    assert all(comma is False for _, comma in got)


def test_semicolons_mean_decimal_commas_and_unmapped_rows_are_counted():
    data = ("AAA;progname;nmon\nZZZZ;T0001;00:00:05;01-JAN-2026\nCPU_ALL;T0001;1,5;2\n"
            "DISKBUSY;T0001;5\nDISKBUSY;T0002;5\nTOP;1234;T0001;1,0\n  TOP ;99;T0002;2\n"
            "BBBP;001;vmo -L;\"lgpg_regions;0\"\nBBBP;002;ls -l;\"x\"\n").encode()
    got, stats = read(data)
    assert [f for f, _ in got] == [["AAA", "progname", "nmon"], ["ZZZZ", "T0001", "00:00:05", "01-JAN-2026"],
                                   ["CPU_ALL", "T0001", "1,5", "2"], ["BBBP", "001", "vmo -L", "lgpg_regions;0"]]
    assert all(comma is True for _, comma in got)
    assert stats.sections_unmapped == {"DISKBUSY": 2, "TOP": 2}


def test_the_first_line_may_follow_blank_lines_and_an_empty_recording_is_nothing():
    got, _ = read(b"\n\r\n\nAAA;progname;nmon\n")
    assert got == [(["AAA", "progname", "nmon"], True)]
    assert read(b"")[0] == [] and read(b"\n\n")[0] == []


@pytest.mark.parametrize("token,comma,value", [
    ("12.5", False, 12.5), (" 7 ", False, 7.0), ("12,5", True, 12.5), ("12,5", False, None), ("", False, None),
    ("nan", False, None), ("inf", False, None), ("-inf", False, None), ("1e3", False, 1000.0), ("x", False, None),
    ("-0.25", False, -0.25),
])
def test_numbers(token, comma, value):
    assert records.number(token, comma) == value


def test_the_sections_read_are_the_special_and_mapped_ones():
    data = b"AAA,x\nCPU_ALL,T0001,1\n LPAR ,T0001,2\nCPU01,T0001,3\nMEMNEW,T0001,4\nBBBP,1,vmo -L,\"x\"\n"
    got, stats = read(data)
    assert [f[0] for f, _ in got] == ["AAA", "CPU_ALL", " LPAR ", "BBBP"]
    assert stats.sections_unmapped == {"CPU01": 1, "MEMNEW": 1}
    assert "CPU_ALL" in nmon.MAPPED_SECTIONS and "CPU01" not in nmon.MAPPED_SECTIONS


def test_limits_as_their_messages_say_them():
    assert (records._size(4 << 30), records._size(1 << 20), records._size(3 << 20), records._size(1000)) == (
        "4 GiB", "1 MiB", "3 MiB", "1000 bytes")
    assert records._size((1 << 20) + 1) == "1048577 bytes"


class Chunks:
    """A recording's binary buffer that returns the given chunks, then its end or an error."""

    def __init__(self, chunks):
        self.chunks = list(chunks)

    def read1(self, size):
        if not self.chunks:
            return b""
        c = self.chunks.pop(0)
        if isinstance(c, Exception):
            raise c
        return c


class Opened:
    def __init__(self, chunks, encoding="utf-8"):
        self.buffer, self.encoding = Chunks(chunks), encoding


def records_of(opened):
    out = []
    try:
        for fields, _ in records.read_records(opened, Stats()):
            out.append(fields)
    except OSError:
        out.append("cut short")
    return out


def test_the_last_line_without_its_newline_is_read_whole():
    got = records_of(Opened([b"AAA,host,x\nCPU_ALL,", b"T0001,1", b",2"]))
    assert got == [["AAA", "host", "x"], ["CPU_ALL", "T0001", "1", "2"]]
    got = records_of(Opened([b"AAA,host,h\xc3"]))                  # cut inside a character: replaced
    assert got == [["AAA", "host", "h\ufffd"]]


def test_a_read_that_fails_yields_what_came_before_it_then_fails():
    got = records_of(Opened([b"AAA,host,x\nCPU_ALL,", b"T0001,1", b",2", OSError("crc check failed")]))
    assert got == [["AAA", "host", "x"], ["CPU_ALL", "T0001", "1", "2"], "cut short"]


def test_the_streams_own_encoding():
    assert records_of(Opened([b"AAA,host,h\xe9st\n"], encoding="latin-1")) == [["AAA", "host", "h\u00e9st"]]
    assert records_of(Opened([b"AAA,host,h\xc3\xa9st\n"], encoding=None)) == [["AAA", "host", "h\u00e9st"]]


def test_lines_with_a_buffer_that_cannot_read1_are_read_as_lines():
    class Lines(list):
        buffer = object()                                       # no read1: not read in blocks
    assert records_of(Lines(["AAA,host,x\n", "CPU_ALL,T0001,1\n"])) == [["AAA", "host", "x"],
                                                                       ["CPU_ALL", "T0001", "1"]]


def test_a_last_field_ending_in_x_or_a_quoted_x_keeps_it():
    got, _ = read(b'AAA,host,tsmsrvX\r\nBBBP,001,vmo -L,"X"\nBBBP,002,vmo -L,"Xlgpg_regions X"\n')
    assert [f for f, _ in got] == [["AAA", "host", "tsmsrvX"], ["BBBP", "001", "vmo -L", "X"],
                                   ["BBBP", "002", "vmo -L", "Xlgpg_regions X"]]


def test_a_list_of_one_line_ending_in_x_is_read():
    assert records_of(["AAA,host,tsmX\n"]) == [["AAA", "host", "tsmX"]]       # a last batch of one line


def test_blocks_of_blank_lines_before_the_first_line(monkeypatch):
    monkeypatch.setattr(records, "_BLOCK_LINES", 2)
    assert records_of(["\n", "\n", "\n", "AAA,host,x\n"]) == [["AAA", "host", "x"]]


def test_the_size_limit_counts_every_piece_read(monkeypatch):
    data = recording(100)
    monkeypatch.setattr(records, "_BLOCK_BYTES", 7)                          # read 7 bytes at a time
    monkeypatch.setattr(records, "MAX_RECORDING_BYTES", len(data))
    assert len(read(data)[0]) == 3
    with pytest.raises(records.NmonError) as e:
        read(data + b"\n")
    assert str(e.value) == f"more than {len(data)} bytes decompressed: not an nmon recording (or a compression bomb)"


def test_a_line_of_exactly_the_limit_left_over_at_a_blocks_end_waits_for_its_end(monkeypatch):
    monkeypatch.setattr(records, "MAX_LINE_BYTES", 64)
    monkeypatch.setattr(records, "_BLOCK_BYTES", len("AAA,progname,nmon\n") + 64)   # the block ends where it does
    got, _ = read(recording(64))
    assert [len(",".join(f)) for f, _ in got] == [len("AAA,progname,nmon"), 64, len("ZZZZ,T0001,x")]
