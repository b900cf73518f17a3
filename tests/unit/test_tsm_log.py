"""dsmadmc select from log: the active log's space and the archive log's file system; the
decimal comma; treydock's three columns alone."""
import pytest

from aix_exporter.collectors.tsm_checklist import families_from
from aix_exporter.parsers import ParseError, tsm_db, tsm_log
from tests.lib import fixture_text
from tests.lib.checks import samples

MB = 1 << 20
DB = tsm_db.parse(fixture_text("tsm_db", "backed-up-last-night.txt"))


def test_active_and_archive_space():
    lg = tsm_log.parse(fixture_text("tsm_log", "active-and-archive.txt"))
    m = samples(families_from(DB, lg, 1_800_000_000.0))
    assert {k[1]: v for k, v in m.items() if k[0] == "aix_tsm_log_space_bytes"} == {
        (("kind", "total"), ("log", "active")): 32768 * MB, (("kind", "used"), ("log", "active")): 342 * MB,
        (("kind", "free"), ("log", "active")): 32426 * MB, (("kind", "total"), ("log", "archive")): 1048576 * MB,
        (("kind", "used"), ("log", "archive")): 236576 * MB, (("kind", "free"), ("log", "archive")): 812000 * MB}


def test_the_decimal_comma_and_the_active_log_alone():
    assert tsm_log.parse(fixture_text("tsm_log", "decimal-comma.txt")) == tsm_log.parse(
        fixture_text("tsm_log", "active-and-archive.txt"))
    lg = tsm_log.parse(fixture_text("tsm_log", "active-only.txt"))
    assert lg.archive is None and lg.active.used_bytes == 342 * MB
    m = samples(families_from(DB, lg, 1_800_000_000.0))
    assert not [k for k in m if k[0] == "aix_tsm_log_space_bytes" and ("log", "archive") in k[1]]


@pytest.mark.parametrize("text,why", [
    (fixture_text("tsm_log", "two-fields.txt"), "expected 6 or 3 comma-separated fields"),
    ("1,2,x,4,5,6\n", "'x' is not a number"),
    ("1,2,3\n1,2,3\n", "expected one row (one recovery log), got 2"),
])
def test_what_is_not_the_log_answer_is_one_error(text, why):
    with pytest.raises(ParseError) as e:
        tsm_log.parse(text)
    assert why in str(e.value)
