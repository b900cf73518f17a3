"""dsmadmc select from db: the database's space, hit ratio and last backup; the decimal comma;
the backup's age by the server's own clock; never backed up."""
import datetime

import pytest

from aix_exporter.collectors.tsm_checklist import families_from
from aix_exporter.parsers import ParseError, tsm_db, tsm_log
from tests.lib import FIXTURES, fixture_text
from tests.lib.checks import Lpar, samples

MB = 1 << 20
LOG = tsm_log.parse(fixture_text("tsm_log", "active-and-archive.txt"))


def test_space_and_the_last_backup_by_the_servers_clock():
    db = tsm_db.parse(fixture_text("tsm_db", "backed-up-last-night.txt"))
    assert (db.name, db.total_bytes, db.used_bytes, db.free_bytes) == ("TSMDB1", 2096672 * MB, 642976 * MB,
                                                                      1453663 * MB)
    assert db.buffer_hit_ratio == pytest.approx(0.983)
    assert db.last_backup == datetime.datetime(2026, 11, 28, 21, 30, 12)
    assert db.backup_age_seconds() == 8 * 3600 + 29 * 60 + 48
    # the age by the server's clock, whatever the zones: the timestamp is now minus that age
    m = samples(families_from(db, LOG, 1_800_000_000.0))
    assert m[("aix_tsm_db_last_backup_timestamp_seconds", ())] == 1_800_000_000.0 - (8 * 3600 + 29 * 60 + 48)
    assert m[("aix_tsm_db_space_bytes", (("kind", "used"),))] == 642976 * MB
    assert m[("aix_tsm_db_space_bytes", (("kind", "total"),))] == 2096672 * MB
    assert m[("aix_tsm_db_space_bytes", (("kind", "free"),))] == 1453663 * MB
    assert m[("aix_tsm_db_buffer_hit_ratio", ())] == 0.983


def test_never_backed_up_has_no_backup_time_and_the_rest():
    db = tsm_db.parse(fixture_text("tsm_db", "never-backed-up.txt"))
    assert db.last_backup is None and db.backup_age_seconds() is None
    m = samples(families_from(db, LOG, 1_800_000_000.0))
    assert not [k for k in m if k[0] == "aix_tsm_db_last_backup_timestamp_seconds"]
    assert m[("aix_tsm_db_space_bytes", (("kind", "used"),))] == 1600 * MB


def test_a_decimal_comma_is_read_as_the_servers_locale_prints_it():
    db = tsm_db.parse(fixture_text("tsm_db", "decimal-comma.txt"))
    assert db.buffer_hit_ratio == pytest.approx(0.998)
    assert (db.free_bytes, db.used_bytes) == (52426.5 * MB, 168693.25 * MB)


def test_the_answer_without_the_servers_clock_reads_the_backup_in_this_hosts_zone():
    row = fixture_text("tsm_db", "backed-up-last-night.txt").strip().rsplit(",", 1)[0] + "\n"
    db = tsm_db.parse(row)
    assert db.server_now is None and db.backup_age_seconds() is None
    m = samples(families_from(db, LOG, 0.0))
    assert m[("aix_tsm_db_last_backup_timestamp_seconds", ())] == datetime.datetime(2026, 11, 28, 21, 30, 12).timestamp()


@pytest.mark.parametrize("text,why", [
    (fixture_text("tsm_db", "thousands-separator.txt"), "'1,453,663.00' is not a number"),
    ("98.3,TSMDB1\n", "expected 14 or 13 comma-separated fields"),
    ("ANR2034E SELECT: No match found using this criteria.\n", "expected one row (one database), got 0"),
    (fixture_text("tsm_db", "never-backed-up.txt") * 2, "expected one row (one database), got 2"),
    (fixture_text("tsm_db", "never-backed-up.txt").replace("2026-11-29 06:00:00.000000", "yesterday"),
     "'yesterday' is not a timestamp"),
    # a backup after the server's own now would hide an overdue one
    (fixture_text("tsm_db", "backed-up-last-night.txt").replace("2026-11-28 21:30:12", "2026-11-30 21:30:12"),
     "the last backup 2026-11-30 21:30:12 is later than the server's now 2026-11-29 06:00:00"),
])
def test_what_is_not_the_db_answer_is_one_error(text, why):
    with pytest.raises(ParseError) as e:
        tsm_db.parse(text)
    assert why in str(e.value)


def test_a_server_that_does_not_answer_fails_the_checklist_with_one_line(caplog):
    """On the LPAR, dsmadmc against a stopped server prints ANS1017E and exits non-zero: the
    checklist fails (success 0) with one line naming its commands; the other collectors go on."""
    import logging

    from aix_exporter.collectors.tsm_checklist import TsmChecklistCollector
    from aix_exporter.collectors.vmstat_s import VmstatSCollector
    from aix_exporter.config import Settings
    from aix_exporter.exporter import Exporter
    from aix_exporter.sources import CommandFailed

    def answer(key):
        if key.startswith("tsm_"):
            raise CommandFailed("/usr/bin/dsmadmc: exit status 402: ANS1017E Session rejected: TCP/IP connection "
                                "failure.")
        return fixture_text("vmstat_s", sorted(p.name for p in (FIXTURES / "vmstat_s").glob("*.txt"))[0])

    s = Settings()
    ex = Exporter(Lpar(answer), [TsmChecklistCollector(s), VmstatSCollector(s)])
    with caplog.at_level(logging.ERROR, logger="aix_exporter"):
        ex.collect_all()
    assert {n: r.success for n, r in ex.results.items()} == {"tsm_checklist": False, "vmstat_s": True}
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["msg=collection failed collector=tsm_checklist command='dsmadmc select from db, dsmadmc select "
                     "from log' error=source error: /usr/bin/dsmadmc: exit status 402: ANS1017E Session rejected: "
                     "TCP/IP connection failure."]
