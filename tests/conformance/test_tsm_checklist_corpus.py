"""Conformance: the checklist's parsers over the real dsmadmc answers in
../shared/corpus/tsm-dsmadmc (treydock/tsm_exporter's captured `-dataonly=yes -comma` output,
SOURCES.md): each db and log answer parses to the values visible in it, the decimal-comma one
included; the folder's other queries (stgpools, drives, ...) are not read by these parsers
yet. Skips cleanly when ../shared is absent."""
import datetime

import pytest

from aix_exporter.parsers import tsm_db, tsm_log
from tests.conftest import CORPUS, corpus_or_skip

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
