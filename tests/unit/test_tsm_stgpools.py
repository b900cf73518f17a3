"""dsmadmc select from stgpools: device-class, container and cloud pools; the decimal comma;
what is not a pool answer."""
import pytest

from aix_exporter.collectors.tsm_checklist import storage_families
from aix_exporter.parsers import ParseError, tsm_stgpools
from tests.lib import fixture_text
from tests.lib.checks import samples

MB = 1 << 20


def test_each_kind_of_pool_and_its_figures():
    pools = tsm_stgpools.parse(fixture_text("tsm_stgpools", "device-container-and-cloud.txt"))
    assert [(p.name, p.pool_type, p.device_class, p.storage_type, p.capacity_bytes, p.used_ratio) for p in pools] == [
        ("BACKUPPOOL", "PRIMARY", "DISK", "DEVCLASS", 512000 * MB, pytest.approx(0.352)),
        ("TAPEPOOL", "PRIMARY", "LTO7", "DEVCLASS", 3199882345.5 * MB, pytest.approx(0.426)),
        ("COPYPOOL", "COPY", "LTO7", "DEVCLASS", 1599941172.7 * MB, pytest.approx(0.804)),
        ("CONTAINERPOOL", "PRIMARY", "-", "DIRECTORY", None, None),          # no figures: its info only
        ("CLOUDPOOL", "PRIMARY", "-", "CLOUD", 1300 * MB, pytest.approx(0.75))]   # 975 of 1300 MB of cloud space
    m = samples(storage_families(pools, {}, [], []))
    assert m[("aix_tsm_storage_pool_used_ratio", (("pool", "TAPEPOOL"),))] == 0.426
    assert m[("aix_tsm_storage_pool_capacity_bytes", (("pool", "CLOUDPOOL"),))] == 1300 * MB
    assert m[("aix_tsm_storage_pool_info", (("device_class", "LTO7"), ("pool", "COPYPOOL"), ("pool_type", "COPY")))] == 1
    assert ("aix_tsm_storage_pool_used_ratio", (("pool", "CONTAINERPOOL"),)) not in m
    assert m[("aix_tsm_storage_pool_info", (("device_class", "-"), ("pool", "CONTAINERPOOL"), ("pool_type", "PRIMARY")))] == 1


def test_the_decimal_comma_reads_the_same_pools():
    assert tsm_stgpools.parse(fixture_text("tsm_stgpools", "decimal-comma.txt")) == tsm_stgpools.parse(
        fixture_text("tsm_stgpools", "device-container-and-cloud.txt"))


@pytest.mark.parametrize("text,why", [
    (fixture_text("tsm_stgpools", "percent-over-100.txt"), "PCT_UTILIZED 142.6 is not a percentage"),
    (fixture_text("tsm_stgpools", "eleven-fields.txt"), "expected 12 comma-separated fields"),
    ("LTO7,3.199.882.345,,,,44.1,42.6,PRIMARY,TAPEPOOL,DEVCLASS,,\n", "'3.199.882.345' is not a number"),
    ("LTO7,1.0,,,,44.1,42.6,PRIMARY,,DEVCLASS,,\n", "a pool without a name"),
])
def test_what_is_not_a_pool_answer_is_one_error(text, why):
    with pytest.raises(ParseError) as e:
        tsm_stgpools.parse(text)
    assert why in str(e.value)


def test_no_pool_is_an_empty_answer():
    assert tsm_stgpools.parse("ANR2034E SELECT: No match found using this criteria.\n") == []
