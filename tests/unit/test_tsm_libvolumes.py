"""dsmadmc select from libvolumes: the volumes by library and status, the media types summed."""
import pytest

from aix_exporter.collectors.tsm_checklist import storage_families
from aix_exporter.parsers import ParseError, tsm_libvolumes
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_each_library_and_status_over_its_media_types():
    volumes = tsm_libvolumes.parse(fixture_text("tsm_libvolumes", "two-libraries-two-media.txt"))
    assert volumes == {("TS4500", "private"): 573 + 1082, ("TS4500", "scratch"): 12 + 153, ("TS3200", "scratch"): 7}
    m = samples(storage_families([], volumes, [], []))
    assert {k[1]: v for k, v in m.items() if k[0] == "aix_tsm_library_volumes"} == {
        (("library", "TS4500"), ("status", "private")): 1655, (("library", "TS4500"), ("status", "scratch")): 165,
        (("library", "TS3200"), ("status", "scratch")): 7, (("library", "TS3200"), ("status", "private")): 0}


def test_no_volume_is_an_empty_answer():
    assert tsm_libvolumes.parse(fixture_text("tsm_libvolumes", "no-volumes.txt")) == {}


@pytest.mark.parametrize("text,why", [
    (fixture_text("tsm_libvolumes", "not-a-count.txt"), "'1.5' is not a whole number"),
    ("LTO-7,Scratch,TS4500\n", "expected 4 comma-separated fields"),
])
def test_what_is_not_a_count_is_one_error(text, why):
    with pytest.raises(ParseError) as e:
        tsm_libvolumes.parse(text)
    assert why in str(e.value)


def test_a_library_without_scratch_tapes_counts_0_scratch():
    """The select groups what exists: a library whose scratch tapes ran out has no Scratch row,
    and its scratch count is 0, not absent (an alert on few scratch tapes must see it); a
    library known only from its drives counts 0 of each."""
    from aix_exporter.parsers import tsm_drives
    volumes = tsm_libvolumes.parse("LTO-7,Private,TS4500,1082\n")
    drives = tsm_drives.parse("TS3200,DRIVE9,YES,EMPTY,\n")
    m = samples(storage_families([], volumes, drives, []))
    assert {k[1]: v for k, v in m.items() if k[0] == "aix_tsm_library_volumes"} == {
        (("library", "TS4500"), ("status", "private")): 1082, (("library", "TS4500"), ("status", "scratch")): 0,
        (("library", "TS3200"), ("status", "private")): 0, (("library", "TS3200"), ("status", "scratch")): 0}
