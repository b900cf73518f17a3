"""asoo -a / -L: the Active System Optimizer's switch, aix_aso_active."""
import pytest

from aix_exporter.collectors.aso import families_from
from aix_exporter.parsers import ParseError, asoo
from tests.lib import fixture_text
from tests.lib.checks import samples


@pytest.mark.parametrize("case,active", [("asoo-a-active.txt", 1), ("asoo-a-inactive.txt", 0),
                                         ("asoo-L-inactive.txt", 0)])
def test_aso_active_from_each_layout(case, active):
    t = asoo.parse(fixture_text("asoo", case))
    assert t["aso_active"].current == active and t["debug_level"].current == -1
    assert samples(families_from(t)) == {("aix_aso_active", ()): active}


def test_the_L_table_gives_boot_and_range():
    t = asoo.parse(fixture_text("asoo", "asoo-L-inactive.txt"))["aso_active"]
    assert (t.current, t.default, t.boot, t.minimum, t.maximum, t.unit, t.type) == (0, 0, 0, 0, 1, "boolean", "D")


@pytest.mark.parametrize("text,why", [
    ("debug_level = -1\n", "asoo: no aso_active value (output cut, or not asoo?)"),
    ("asoo: not found\n", "asoo: neither a 'asoo -L' table nor 'name = value'"),
    ("", "asoo"),
])
def test_output_without_aso_active_is_an_error_naming_the_command(text, why):
    with pytest.raises(ParseError) as e:
        asoo.parse(text)
    assert str(e.value).startswith(why)


def test_the_simulator_renders_the_scenarios_aso_state():
    from aix_exporter.simulate.model import Model
    from aix_exporter.simulate.render import asoo as render
    from aix_exporter.simulate.scenarios import get
    sc = get("steady")
    assert asoo.parse(render(Model(sc).state(60)))["aso_active"].current == 0
    sc.aso_active = True
    assert asoo.parse(render(Model(sc).state(60)))["aso_active"].current == 1
