"""Conformance: the checklist's parsers over the real dsmadmc answers in
../shared/corpus/tsm-dsmadmc (treydock/tsm_exporter's captured `-dataonly=yes -comma` output,
SOURCES.md): each db, log, stgpools, libvolumes, drives and events answer parses to the values
visible in it, the decimal-comma ones included (the stgpools answer mixes both forms in one
file). The folder's other queries (status, summary, occupancy, volumes, replication, and the
events select of another shape) are not read by the checklist. Skips cleanly when ../shared is
absent."""
import datetime

import pytest

from aix_exporter.parsers import ParseError, tsm_db, tsm_drives, tsm_events, tsm_libvolumes, tsm_log, tsm_stgpools
from tests.lib import CORPUS, corpus_or_skip

FOLDER = CORPUS / "tsm-dsmadmc"
pytestmark = corpus_or_skip(FOLDER, "../shared/corpus/tsm-dsmadmc")
MB = 1 << 20

DB = {
    "gh-treydock-tsm_exporter-select-db-comma-dataonly-TSMDB1.EXTRACTED.txt": (
        2096672 * MB, 642976 * MB, 1453663 * MB, 0.886, datetime.datetime(2020, 5, 22, 8, 10)),
    "gh-treydock-tsm_exporter-select-db-comma-dataonly-decimal-comma-issue26.EXTRACTED.txt": (
        221184 * MB, 168693 * MB, 52426 * MB, 0.998, datetime.datetime(2020, 11, 26, 6, 55, 13)),
    "gh-treydock-tsm_exporter-select-db-comma-dataonly-no-last-backup.EXTRACTED.txt": (
        996147 * MB, 1600 * MB, 994304 * MB, 0.991, None),
}
LOG = {
    "gh-treydock-tsm_exporter-select-log-comma-dataonly-free-total-used.EXTRACTED.txt": (32768 * MB, 342 * MB,
                                                                                       32426 * MB),
}


def test_every_db_and_log_answer_of_the_folder_is_named_here():
    names = {p.name for p in FOLDER.iterdir()}
    assert {n for n in names if "-select-db-" in n} == set(DB)
    assert {n for n in names if "-select-log-" in n} == set(LOG)


@pytest.mark.parametrize("name", sorted(DB))
def test_the_db_answers(name):
    db = tsm_db.parse((FOLDER / name).read_text())
    total, used, free, hit, last = DB[name]
    assert (db.name, db.total_bytes, db.used_bytes, db.free_bytes, db.last_backup) == ("TSMDB1", total, used, free, last)
    assert db.buffer_hit_ratio == pytest.approx(hit)
    assert db.server_now is None   # (treydock's query has no CURRENT_TIMESTAMP: 13 fields)


@pytest.mark.parametrize("name", sorted(LOG))
def test_the_log_answers(name):
    lg = tsm_log.parse((FOLDER / name).read_text())
    assert (lg.active.total_bytes, lg.active.used_bytes, lg.active.free_bytes) == LOG[name]
    assert lg.archive is None      # (treydock's query: the active log's three columns alone)


STGPOOLS = "gh-treydock-tsm_exporter-select-stgpools-comma-dataonly-pct-utilized.EXTRACTED.txt"
LIBVOLUMES = "gh-treydock-tsm_exporter-select-libvolumes-count-by-status-scratch.EXTRACTED.txt"
DRIVES = "gh-treydock-tsm_exporter-select-drives-comma-dataonly-online-yes-no.EXTRACTED.txt"


def test_every_stgpools_libvolumes_and_drives_answer_of_the_folder_is_named_here():
    names = {p.name for p in FOLDER.iterdir()}
    assert {n for n in names if "-select-stgpools-" in n} == {STGPOOLS}
    assert {n for n in names if "-select-libvolumes-" in n} == {LIBVOLUMES}
    assert {n for n in names if "-select-drives-" in n} == {DRIVES}


def test_the_stgpools_answer_with_points_and_decimal_commas():
    pools = tsm_stgpools.parse((FOLDER / STGPOOLS).read_text())
    assert [(p.name, p.device_class, p.pool_type, p.storage_type) for p in pools] == [
        ("ARCHIVEPOOL", "DISK", "PRIMARY", "DEVCLASS"), ("EPFESS", "DCFILEE", "PRIMARY", "DEVCLASS"),
        ("PTGPFS", "DCULT7", "PRIMARY", "DEVCLASS"), ("CLOUDTSMAZ", "-", "PRIMARY", "CLOUD")]
    assert [p.capacity_bytes for p in pools] == [0.0, 25608540.0 * MB, 3199882345.5 * MB, 130 * MB]
    assert [p.used_ratio for p in pools] == [0.0, pytest.approx(0.418), pytest.approx(0.426), pytest.approx(128 / 130)]


def test_the_libvolumes_answer():
    assert tsm_libvolumes.parse((FOLDER / LIBVOLUMES).read_text()) == {("LIB1", "private"): 147 + 573 + 1082,
                                                                       ("LIB1", "scratch"): 365 + 153}


def test_the_drives_answer():
    assert [(d.library, d.name, d.online, d.state, d.volume) for d in tsm_drives.parse((FOLDER / DRIVES).read_text())] == [
        ("LIB1", "TAPE10", True, "LOADED", "FOO1"), ("LIB1", "TAPE11", True, "LOADED", "FOO2"),
        ("LIBENC", "TAPE00", True, "EMPTY", ""), ("LIBENC", "TAPE01", False, "EMPTY", ""),
        ("LIBENC", "TAPE02", False, "UNKNOWN", "")]


EVENTS = "gh-treydock-tsm_exporter-select-events-not-completed-status-comma.EXTRACTED.txt"
# (its twin, ...-select-events-completed-comma, answers another select: the schedule and two
# timestamps, no status; the checklist's events select reads SCHEDULE_NAME,STATUS alone)
EVENTS_OTHER_SELECT = "gh-treydock-tsm_exporter-select-events-completed-comma.EXTRACTED.txt"


def test_every_events_answer_of_the_folder_is_named_here():
    names = {p.name for p in FOLDER.iterdir()}
    assert {n for n in names if "-select-events-" in n} == {EVENTS, EVENTS_OTHER_SELECT}


def test_the_events_answer_is_counted_by_status():
    ev = tsm_events.parse((FOLDER / EVENTS).read_text())
    assert {r: n for r, n in ev.counts.items() if n} == {"future": 1, "not_started": 2}
    assert ev.unknown == []


def test_the_other_events_select_is_not_an_answer_of_ours():
    """Three fields a row (schedule, actual start, completed): one clear error, not a count."""
    with pytest.raises(ParseError, match="expected 2 comma-separated fields"):
        tsm_events.parse((FOLDER / EVENTS_OTHER_SELECT).read_text())
