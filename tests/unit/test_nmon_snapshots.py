"""nmon records to snapshots (importers/nmon/snapshots.py) on recordings written by hand in nmon's
format: a header wherever it stands, rows held until their snapshot is complete, each line that
is skipped counted under its reason, the time zone named once, the old ZZZZ form's day rollover,
and the AAA and BBBP lines handed back (the BBBP text without its quotes)."""
import datetime as dt

import pytest

from aix_exporter.importers.base import Stats
from aix_exporter.importers.nmon.records import NmonError
from aix_exporter.importers.nmon.snapshots import DataRow, snapshots


def utc(*a):
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def run(text, tz="UTC", date_order=None):
    stats, bbbp, aaa = Stats(), {}, {}
    snaps = list(snapshots(text.splitlines(keepends=True), tz, date_order, stats, bbbp, aaa))
    return snaps, stats, bbbp, aaa


RECORDING = """AAA,progname,topas_nmon
AAA,host,tsmsrv01
AAA,TimeZone,UTC
BBBP,001,vmo -L,"lgpg_regions 0"
BBBP,002,lsattr -El sys0,"x"
CPU_ALL,CPU Total tsmsrv01,User%,Sys%,Wait%,Idle%
ZZZZ,T0001,08:00:00,20-NOV-2026
CPU_ALL,T0001,10.0,40.0,1.0,49.0
ZZZZ,T0002,08:05:00,20-NOV-2026
MEM,Memory MB tsmsrv01,Real Free %,Virtual free %
MEM,T0002,50.5,90.0
CPU_ALL,T0002,12.0,38.0,1.0,49.0
"""


def test_snapshots_in_time_order_with_their_rows_and_headers_anywhere():
    snaps, stats, bbbp, aaa = run(RECORDING)
    assert [(s.id, s.epoch, sorted(s.rows)) for s in snaps] == [
        ("T0001", utc(2026, 11, 20, 8, 0), ["CPU_ALL"]), ("T0002", utc(2026, 11, 20, 8, 5), ["CPU_ALL", "MEM"])]
    assert snaps[1].rows["CPU_ALL"].get("Sys%") == 38.0 and snaps[1].rows["MEM"].get("Real Free %") == 50.5
    assert snaps[1].rows["MEM"].get("no such column") is None
    assert stats.snapshots == 2 and stats.rows_skipped == {}
    assert aaa == {"progname": "topas_nmon", "host": "tsmsrv01", "timezone": "UTC"}
    assert bbbp == {"vmo -L": ["lgpg_regions 0"]}


def test_a_snapshot_is_written_only_once_the_next_zzzz_is_read():
    gen = snapshots(iter(RECORDING.splitlines(keepends=True)), "UTC", None, Stats(), {})
    first = next(gen)
    assert first.id == "T0001" and list(first.rows) == ["CPU_ALL"]


@pytest.mark.parametrize("line,reason", [
    ("CPU_ALL\n", "line without fields"),
    ("MEM,T0001,1.0\n", "row before its section's header"),
    ("CPU_ALL,T0001,1,2,3\n", "field count differs from its header"),
    ("CPU_ALL,T0001,1,2,3,4,5\n", "field count differs from its header"),
    ("ERROR,T0001,something\n", "ERROR line"),
    ("ZZZZ,X0003,08:10:00,20-NOV-2026\n", "malformed ZZZZ line"),
    ("ZZZZ,T0003\n", "malformed ZZZZ line"),
    ("ZZZZ,T0003,8h10,20-NOV-2026\n", "malformed ZZZZ line"),
    ("ZZZZ,T0003,25:61:61,20-NOV-2026\n", "malformed ZZZZ line"),
    ("ZZZZ,T0003,08:10:00,31-FEB-2026\n", "malformed ZZZZ line"),
    ("ZZZZ,T0001,08:10:00,20-NOV-2026\n", "repeated ZZZZ line"),
])
def test_each_odd_line_is_counted_under_its_reason_and_skipped(line, reason):
    head, tail = RECORDING.split("ZZZZ,T0002", 1)
    snaps, stats, _, _ = run(head + line + "ZZZZ,T0002" + tail)
    assert stats.rows_skipped == {reason: 1}
    assert [s.id for s in snaps] == ["T0001", "T0002"]
    assert snaps[0].rows["CPU_ALL"].get("User%") == 10.0


def test_a_row_after_its_snapshot_was_written_and_a_truncated_recording():
    text = RECORDING + "ZZZZ,T0003,08:10:00,20-NOV-2026\nCPU_ALL,T0001,1,2,3,4\nCPU_ALL,T0004,1,2,3,4\n"
    snaps, stats, _, _ = run(text)
    assert [s.id for s in snaps] == ["T0001", "T0002", "T0003"]
    assert stats.rows_skipped == {"row after its snapshot was written": 1,
                                  "snapshot without a ZZZZ time (truncated recording)": 1}


def test_the_last_header_of_a_section_wins():
    text = RECORDING.replace("MEM,T0002,50.5,90.0", "MEM,Memory MB,Virtual free %,Real Free %\nMEM,T0002,50.5,90.0")
    snaps, _, _, _ = run(text)
    assert snaps[1].rows["MEM"].get("Real Free %") == 90.0
    # a column named twice is read from its first position
    assert DataRow({"a": 0}, ["1", "2"], False).get("a") == 1.0
    text = RECORDING.replace("Real Free %,Virtual free %", "Real Free %,Real Free %")
    assert run(text)[0][1].rows["MEM"].get("Real Free %") == 50.5


def test_decimal_commas():
    row = DataRow({"a": 0, "b": 1}, ["1,5", " 2 "], True)
    assert (row.get("a"), row.get("b")) == (1.5, 2.0)


def test_the_time_zone_from_the_recording_or_tz_never_both_different():
    assert run(RECORDING, tz=None)[0][0].epoch == utc(2026, 11, 20, 8, 0)
    paris = run(RECORDING.replace("AAA,TimeZone,UTC\n", ""), tz="Europe/Paris")[0]
    assert paris[0].epoch == utc(2026, 11, 20, 7, 0)
    with pytest.raises(NmonError) as e:
        run(RECORDING, tz="Europe/Paris")
    assert str(e.value) == ("the recording names the time zone 'UTC' but --tz says 'Europe/Paris': leave out --tz, "
                            "or fix the recording")
    with pytest.raises(NmonError) as e:
        run(RECORDING.replace("AAA,TimeZone,UTC\n", ""), tz=None)
    assert str(e.value) == ("the recording names no time zone: give --tz (the LPAR's zone, such as Europe/Paris or "
                            "UTC)")
    assert run(RECORDING.replace("AAA,TimeZone,UTC", "AAA,TZ,UTC"), tz=None)[0][0].epoch == utc(2026, 11, 20, 8, 0)


OLD = """AAA,progname,nmon
AAA,date,19-NOV-2026
CPU_ALL,CPU Total,User%,Sys%,Wait%,Idle%
ZZZZ,T0001,23:55:00
CPU_ALL,T0001,1,2,3,4
ZZZZ,T0002,00:00:00
CPU_ALL,T0002,1,2,3,4
ZZZZ,T0003,00:05:00
ZZZZ,T0004,00:05:00
"""


def test_the_old_form_takes_the_aaa_date_and_a_day_more_each_time_the_clock_goes_back():
    snaps, stats, _, _ = run(OLD)
    assert [s.epoch for s in snaps] == [utc(2026, 11, 19, 23, 55), utc(2026, 11, 20, 0, 0), utc(2026, 11, 20, 0, 5),
                                        utc(2026, 11, 20, 0, 5)]
    with pytest.raises(NmonError) as e:
        run(OLD.replace("AAA,date,19-NOV-2026\n", ""))
    assert str(e.value) == "ZZZZ lines without a date and no AAA,date line"


def test_a_dated_zzzz_after_undated_ones_sets_the_day():
    text = OLD + "ZZZZ,T0005,00:10:00,01-DEC-2026\nZZZZ,T0006,00:15:00\n"
    snaps, _, _, _ = run(text)
    assert [s.epoch for s in snaps][-2:] == [utc(2026, 12, 1, 0, 10), utc(2026, 12, 1, 0, 15)]


def test_short_aaa_and_bbbp_lines_are_passed_over():
    snaps, stats, bbbp, aaa = run("AAA,lonely\nBBBP,001,vmo -L\n" + RECORDING)
    assert "lonely" not in aaa and bbbp == {"vmo -L": ["lgpg_regions 0"]}
    assert stats.rows_skipped == {}


def test_a_header_of_two_fields_has_no_columns():
    text = RECORDING.replace("MEM,Memory MB tsmsrv01,Real Free %,Virtual free %", "MEM,Memory MB tsmsrv01")
    snaps, stats, _, _ = run(text)
    assert stats.rows_skipped == {"field count differs from its header": 1}     # MEM,T0002 has two values
    text = RECORDING.replace("MEM,Memory MB tsmsrv01,Real Free %,Virtual free %", "MEM,Memory MB tsmsrv01").replace(
        "MEM,T0002,50.5,90.0", "MEM,T0002")
    snaps, stats, _, _ = run(text)
    assert stats.rows_skipped == {} and snaps[1].rows["MEM"].values == []
