import pytest

from aix_exporter.collectors.vmo import families_from
from aix_exporter.parsers import ParseError, suffixed_number, vmo
from tests.lib import fixture_text
from tests.lib.checks import samples


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


L_HEADER = "NAME                      CUR    DEF    BOOT   MIN    MAX    UNIT           TYPE\n"
RULE = "-" * 80 + "\n"


def test_vmo_L_tabs_expand_to_every_eighth_column():
    """A row written with tabs (a copy through an editor) is read by the header's positions
    with tab stops every 8 columns, as a terminal shows it."""
    t = vmo.parse(L_HEADER + RULE + "lgpg_regions\t\t\t160\n" + RULE)["lgpg_regions"]
    assert (t.current, t.default, t.boot) == (160, None, None)


def test_vmo_L_rows_right_under_the_header_blank_lines_and_one_space_indents():
    text = L_HEADER + "lgpg_regions              160    0      160    0      8E-1   16M pages      D\n" \
        "\n" + " lgpg_size\n" + RULE + "\n" + \
        "lgpg_size                 16M    0      16M    0      16G    bytes          D\n" + RULE
    out = vmo.parse(text)
    assert list(out) == ["lgpg_regions", "lgpg_size"]
    r = out["lgpg_regions"]
    assert (r.current, r.default, r.boot, r.minimum, r.maximum, r.unit, r.type, r.dependencies) == (
        160, 0, 160, 0, 8 * 2**60 - 1, "16M pages", "D", ("lgpg_size",))
    assert out["lgpg_size"].maximum == 16 << 30


def test_vmo_a_reads_on_after_blank_lines():
    out = vmo.parse("\tlgpg_regions = 160\n\n  lgpg_size = 16777216\n")
    assert {k: v.current for k, v in out.items()} == {"lgpg_regions": 160, "lgpg_size": 16777216}
    # a header that does not start in column 0 is not vmo -L's
    with pytest.raises(ParseError, match="neither a 'vmo -L' table"):
        vmo.parse(" " + L_HEADER + RULE)


@pytest.mark.parametrize("text,message", [
    (L_HEADER + RULE + "     lgpg_size\n", "vmo: dependency line before any tunable (line 3: '     lgpg_size')"),
    (L_HEADER + RULE + "lgpg regions              160\n" + RULE,
     "vmo: bad tunable name 'lgpg regions' (line 3: 'lgpg regions              160')"),
    (L_HEADER + RULE, "vmo: vmo -L header without tunable rows"),
    (L_HEADER + RULE + "lgpg_regions              160\n", "vmo: the last tunable block has no closing rule (output cut?)"),
    (L_HEADER + RULE + "lgpg_regions              160\n" + RULE + "lgpg_size                 16M\n     x\n",
     "vmo: the last tunable block has no closing rule (output cut?)"),
])
def test_vmo_errors_in_full(text, message):
    with pytest.raises(ParseError) as e:
        vmo.parse(text)
    assert str(e.value) == message


HEAD = ("NAME                      CUR    DEF    BOOT   MIN    MAX    UNIT           TYPE\n     DEPENDENCIES\n" + "-" * 80 + "\n")


@pytest.mark.parametrize("text, why", [
    ("lgpg_regions = 1e308\n", "lgpg_regions current value 1e+308 is outside -1..8E-1"),
    ("lgpg_regions = -160\n", "lgpg_regions current value -160 is outside -1..8E-1"),
    ("lgpg_regions = 1.5\n", "lgpg_regions current value 1.5 is not a whole number"),
    (HEAD + "lgpg_size                 16M    0      32M    0      16M    bytes             D\n" + "-" * 80 + "\n",
     "lgpg_size boot value 3.35544e+07 is outside its own range 0..1.67772e+07"),
    (HEAD + "lgpg_regions              -160   0      200    0      8E-1                     D\n" + "-" * 80 + "\n",
     "lgpg_regions current value -160 is outside -1..8E-1"),
])
def test_a_tunable_outside_its_range_is_refused_never_served(text, why):
    """Issue 57, item 6: vmo answering lgpg_regions 1e308 or -160 was served with success 1."""
    with pytest.raises(ParseError) as e:
        vmo.parse(text)
    assert why in str(e.value)


def test_minus_one_and_the_largest_value_are_in_range():
    got = vmo.parse("maxpin = -1\nlgpg_regions = 9223372036854775807\n")
    assert got["maxpin"].current == -1 and got["lgpg_regions"].current == 2 ** 63 - 1
