"""dsmadmc query mount: ANR8329I/ANR8330I/ANR8331I mounts per drive, ANR8379I waiting, no mount."""
import pytest

from aix_exporter.collectors.tsm_server import families_from
from aix_exporter.parsers import ParseError, tsm_mounts
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_mounts_per_drive_and_waiting():
    mounts = tsm_mounts.parse(fixture_text("tsm_mounts", "four-drives-one-waiting.txt"))
    assert [(m.msgid, m.drive, m.device, m.status, m.access, m.volume) for m in mounts] == [
        ("ANR8330I", "DRIVE1", "/dev/rmt1", "IN USE", "R/W", "A00001L6"),
        ("ANR8329I", "DRIVE2", "/dev/rmt2", "IDLE", "R/W", "A00002L6"),
        ("ANR8331I", "DRIVE3", "/dev/rmt3", "DISMOUNTING", "R/O", "A00003L6"),
        ("ANR8379I", "", "", "WAITING FOR VOLUME", "", "")]
    m = samples(families_from([], [], mounts, []))
    assert m[("aix_tsm_drive_mount_info", (("device", "/dev/rmt1"), ("drive", "DRIVE1"), ("status", "in_use"),
                                         ("volume", "A00001L6")))] == 1
    assert m[("aix_tsm_mounts", ())] == 4 and m[("aix_tsm_mounts_waiting", ())] == 1


def test_no_mount():
    assert tsm_mounts.parse(fixture_text("tsm_mounts", "no-mount.txt")) == []


def test_an_unknown_line_is_named():
    with pytest.raises(ParseError, match="not a mount message"):
        tsm_mounts.parse("ANR8330I LTO volume A1 is somewhere else\n")


def test_mounts_are_read_on_after_blank_and_summary_lines():
    text = ("ANR8379I Mount point in device class LTOCLASS is waiting for the volume mount to complete, "
            "status: WAITING FOR VOLUME.\n"
            "ANR8330I LTO volume A00001L6 is mounted R/W in drive DRIVE1 (/dev/rmt1), status: IN USE.\n\n"
            "ANR8334I         2 matches found.\n"
            "ANR8329I LTO volume A00002L6 is mounted R/O in drive DRIVE2 (/dev/rmt2), status: IDLE.\n")
    assert [(m.drive, m.access, m.status) for m in tsm_mounts.parse(text)] == [
        ("", "", "WAITING FOR VOLUME"), ("DRIVE1", "R/W", "IN USE"), ("DRIVE2", "R/O", "IDLE")]
