"""dsmadmc select from paths: the server's and a storage agent's paths, online or not."""
import pytest

from aix_exporter.collectors.tsm_checklist import storage_families
from aix_exporter.parsers import ParseError, tsm_paths
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_each_path_online_or_not():
    paths = tsm_paths.parse(fixture_text("tsm_paths", "server-and-storage-agent.txt"))
    assert [(p.source, p.destination, p.destination_type, p.library, p.device, p.online) for p in paths] == [
        ("TSMSRV01", "TS4500", "LIBRARY", "", "/dev/smc0", True),
        ("TSMSRV01", "DRIVE0", "DRIVE", "TS4500", "/dev/rmt0", True),
        ("TSMSRV01", "DRIVE1", "DRIVE", "TS4500", "/dev/rmt1", True),
        ("TSMSRV01", "DRIVE2", "DRIVE", "TS4500", "/dev/rmt2", False),
        ("STA01", "DRIVE0", "DRIVE", "TS4500", "/dev/rmt4", True)]
    m = samples(storage_families([], {}, [], paths))
    assert {k[1]: v for k, v in m.items() if k[0] == "aix_tsm_path_online"} == {
        (("destination", "TS4500"), ("source", "TSMSRV01")): 1, (("destination", "DRIVE0"), ("source", "TSMSRV01")): 1,
        (("destination", "DRIVE1"), ("source", "TSMSRV01")): 1, (("destination", "DRIVE2"), ("source", "TSMSRV01")): 0,
        (("destination", "DRIVE0"), ("source", "STA01")): 1}


def test_no_path_is_an_empty_answer():
    assert tsm_paths.parse(fixture_text("tsm_paths", "no-paths.txt")) == []


@pytest.mark.parametrize("text,why", [
    (fixture_text("tsm_paths", "five-fields.txt"), "expected 6 comma-separated fields"),
    ("TSMSRV01,DRIVE0,DRIVE,TS4500,/dev/rmt0,ONLINE\n", "ONLINE 'ONLINE' is neither YES nor NO"),
])
def test_what_is_not_a_path_answer_is_one_error(text, why):
    with pytest.raises(ParseError) as e:
        tsm_paths.parse(text)
    assert why in str(e.value)
