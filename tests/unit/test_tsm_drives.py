"""dsmadmc select from drives: online or offline, the state and the volume; the drive's device
from its path (the key to the OS tape figures)."""
import pytest

from aix_exporter.collectors.tsm_checklist import storage_families
from aix_exporter.parsers import ParseError, tsm_drives, tsm_paths
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_online_offline_state_and_volume():
    drives = tsm_drives.parse(fixture_text("tsm_drives", "online-and-offline.txt"))
    assert [(d.library, d.name, d.online, d.state, d.volume) for d in drives] == [
        ("TS4500", "DRIVE0", True, "LOADED", "A00000L6"), ("TS4500", "DRIVE1", True, "EMPTY", ""),
        ("TS4500", "DRIVE2", False, "UNAVAILABLE", ""), ("TS4500", "DRIVE3", True, "UNKNOWN", "")]


def test_each_drive_is_online_or_not_with_the_device_its_path_opens():
    drives = tsm_drives.parse(fixture_text("tsm_drives", "online-and-offline.txt"))
    paths = tsm_paths.parse(fixture_text("tsm_paths", "server-and-storage-agent.txt"))
    m = samples(storage_families([], {}, drives, paths))
    assert {k[1]: v for k, v in m.items() if k[0] == "aix_tsm_drive_online"} == {
        (("drive", "DRIVE0"), ("library", "TS4500")): 1, (("drive", "DRIVE1"), ("library", "TS4500")): 1,
        (("drive", "DRIVE2"), ("library", "TS4500")): 0, (("drive", "DRIVE3"), ("library", "TS4500")): 1}
    info = {dict(k[1])["drive"]: dict(k[1])["device"] for k in m if k[0] == "aix_tsm_drive_info"}
    # DRIVE0's path from the server is /dev/rmt0 (the storage agent's, /dev/rmt4, is its own); DRIVE3 has none
    assert info == {"DRIVE0": "/dev/rmt0", "DRIVE1": "/dev/rmt1", "DRIVE2": "/dev/rmt2", "DRIVE3": "-"}


def test_no_drive_is_an_empty_answer():
    assert tsm_drives.parse(fixture_text("tsm_drives", "no-drives.txt")) == []


@pytest.mark.parametrize("text,why", [
    (fixture_text("tsm_drives", "online-maybe.txt"), "ONLINE 'MAYBE' is neither YES nor NO"),
    ("TS4500,DRIVE0,YES,LOADED\n", "expected 5 comma-separated fields"),
])
def test_what_is_not_a_drive_answer_is_one_error(text, why):
    with pytest.raises(ParseError) as e:
        tsm_drives.parse(text)
    assert why in str(e.value)


def test_the_checklist_trouble_scenario_shows_each_trouble_and_the_steady_one_none():
    """The simulator's checklist-trouble server (issue 59, item 6): its database backup 30 h old,
    a ninth drive and its path offline (the workload's eight are online), the tape pool 96.2 %
    full and 4 scratch tapes; the steady server has none of these."""
    from aix_exporter.collectors.tsm_checklist import families_from
    from aix_exporter.parsers import tsm_db, tsm_libvolumes, tsm_log, tsm_stgpools
    from aix_exporter.sources.simulate import SimulatedSource
    got = {}
    for scenario in ("checklist-trouble", "steady"):
        src = SimulatedSource(f"{scenario}?seed=1")
        src.set_time(3600.0)
        m = samples(storage_families(tsm_stgpools.parse(src.read("tsm_stgpools")),
                                     tsm_libvolumes.parse(src.read("tsm_libvolumes")),
                                     tsm_drives.parse(src.read("tsm_drives")), tsm_paths.parse(src.read("tsm_paths"))))
        now = src.epoch(3600.0)
        db = samples(families_from(tsm_db.parse(src.read("tsm_db")), tsm_log.parse(src.read("tsm_log")), now))
        got[scenario] = (
            sorted(dict(k[1])["drive"] for k, v in m.items() if k[0] == "aix_tsm_drive_online" and v == 0),
            sorted(dict(k[1])["destination"] for k, v in m.items() if k[0] == "aix_tsm_path_online" and v == 0),
            m[("aix_tsm_storage_pool_used_ratio", (("pool", "TAPEPOOL"),))],
            m[("aix_tsm_library_volumes", (("library", "TS4500"), ("status", "scratch")))],
            (now - db[("aix_tsm_db_last_backup_timestamp_seconds", ())]) / 3600)
    assert got["checklist-trouble"] == (["DRIVE8"], ["DRIVE8"], 0.962, 4, pytest.approx(31.0))
    assert got["steady"] == ([], [], 0.426, 151, pytest.approx(4.0))
