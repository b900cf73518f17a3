"""dsmadmc select from processes: rows, no match, bad rows; the tsm_server collector's figures."""
import pytest

from aix_exporter.collectors.tsm_server import families_from
from aix_exporter.parsers import ParseError, tsm_processes
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_processes_rows_and_their_bytes():
    procs = tsm_processes.parse(fixture_text("tsm_processes", "backup-stgpool-and-migration.txt"))
    assert [(p.number, p.process, p.bytes, p.files) for p in procs] == [
        (812, "Backup Storage Pool", 79259678720, 1181), (813, "Migration", 1288490188800, 5120)]
    m = samples(families_from(procs, [], [], []))
    assert m[("aix_tsm_process_bytes", (("process", "Migration"), ("process_num", "813")))] == 1288490188800
    assert m[("aix_tsm_processes", ())] == 2


def test_no_match_is_no_process():
    assert tsm_processes.parse(fixture_text("tsm_processes", "no-process-running.txt")) == []


@pytest.mark.parametrize("text,message", [
    ("812,Backup Storage Pool,79259678720\n", "expected 4 comma-separated fields"),
    ("812,Backup Storage Pool,lots,1\n", "not a whole number"),
])
def test_bad_rows(text, message):
    with pytest.raises(ParseError, match=message):
        tsm_processes.parse(text)
