import pytest

from aix_exporter.collectors.vmo import families_from
from aix_exporter.parsers import ParseError, suffixed_number, vmo
from tests.conftest import fixture_text
from tests.unit.helpers import samples


def test_vmo_L_current_differs_from_boot_and_suffixes():
    t = vmo.parse(fixture_text("vmo", "lgpg-L-tuned-pending.txt"))
    assert set(t) == {"lgpg_regions", "lgpg_size"}
    assert (t["lgpg_regions"].current, t["lgpg_regions"].boot, t["lgpg_regions"].default) == (160, 200, 0)
    assert t["lgpg_regions"].maximum == 8 * 2**60 - 1
    assert t["lgpg_regions"].dependencies == ("lgpg_size",)
    assert t["lgpg_size"].current == 16777216 and t["lgpg_size"].unit == "bytes" and t["lgpg_size"].type == "D"
    m = samples(families_from(t))
    assert m[("aix_vmo_tunable", (("setting", "current"), ("tunable", "lgpg_regions")))] == 160
    assert m[("aix_vmo_tunable", (("setting", "boot"), ("tunable", "lgpg_regions")))] == 200
    assert m[("aix_vmo_tunable", (("setting", "boot"), ("tunable", "lgpg_size")))] == 16777216


def test_vmo_L_empty_cells_are_read_by_column_position():
    t = vmo.parse(fixture_text("vmo", "empty-cells-L.txt"))
    pf = t["pinnable_frames"]
    assert (pf.current, pf.default, pf.boot, pf.minimum, pf.maximum) == (592370, 592370, None, None, None)
    assert pf.unit == "4KB pages" and pf.type == "S"
    assert t["maxpin%"].current == 80 and t["maxpin%"].maximum == 100
    assert t["maxpin%"].dependencies == ("pinnable_frames", "memory_frames")
    m = samples(families_from(t))
    assert ("aix_vmo_tunable", (("setting", "boot"), ("tunable", "pinnable_frames"))) not in m


def test_vmo_a_current_values_only():
    t = vmo.parse(fixture_text("vmo", "vmo-a-excerpt.txt"))
    assert t["lgpg_regions"].current == 160 and t["lgpg_size"].current == 16777216
    assert t["lgpg_regions"].boot is None
    assert t["maxpin%"].current == 90


@pytest.mark.parametrize("token,value", [("16M", 16777216), ("8E-1", 8 * 2**60 - 1), ("4K", 4096),
                                         ("160", 160), ("0.5", 0.5), ("n/a", None), ("", None)])
def test_suffixed_numbers(token, value):
    assert suffixed_number(token) == value


@pytest.mark.parametrize("text,message", [
    ("", "empty output"),
    ("NAME                      CUR    DEF    BOOT   MIN    MAX    UNIT           TYPE\n", "without tunable rows"),
    ("4096\n65536\n", "neither a 'vmo -L' table"),
    ("lgpg_regions = 160\nthis is not vmo\n", "neither a 'vmo -L' table"),
])
def test_bad_input(text, message):
    with pytest.raises(ParseError, match=message):
        vmo.parse(text)
