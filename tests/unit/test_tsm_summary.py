"""dsmadmc select from summary: bytes and count per activity of the last hours; empty sums."""
from aix_exporter.collectors.tsm_server import families_from
from aix_exporter.parsers import tsm_summary
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_activities_of_the_last_day():
    acts = tsm_summary.parse(fixture_text("tsm_summary", "last-24-hours.txt"))
    assert [(a.activity, a.bytes, a.count) for a in acts] == [
        ("STGPOOL BACKUP", 6597069766656, 12), ("BACKUP", 1099511627776, 340), ("MIGRATION", 0, 0)]
    m = samples(families_from([], [], [], acts, 24))
    assert m[("aix_tsm_activity_bytes", (("activity", "stgpool_backup"),))] == 6597069766656
    assert m[("aix_tsm_activities", (("activity", "backup"),))] == 340
