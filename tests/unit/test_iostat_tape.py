"""iostat -p: tape rows, no tapes, bad input; the tape collector."""
import pytest

from aix_exporter.collectors.tape import TapeCollector
from aix_exporter.parsers import ParseError, iostat_tape
from tests.conftest import fixture_text
from tests.unit.helpers import samples


def test_tape_counters_and_derived_transfers():
    rows = iostat_tape.parse(fixture_text("iostat_tape", "two-lto-drives-since-boot.txt"))
    c = TapeCollector()
    m = samples(c.families_from(rows))
    assert m[("aix_tape_written_bytes_total", (("device", "rmt0"),))] == 1103613952 * 1024
    assert m[("aix_tape_read_bytes_total", (("device", "rmt0"),))] == 310378496 * 1024
    # elapsed = (310378496 + 1103613952) / 142336.0 s; transfers = 556 x elapsed
    assert m[("aix_tape_transfers_total", (("device", "rmt0"),))] == round(556 * (310378496 + 1103613952) / 142336.0)
    assert m[("aix_tape_busy_ratio", (("device", "rmt1"),))] == 0.649
    assert m[("aix_tape_devices", ())] == 2
    # the derived counter never goes backwards while bytes grow
    rows["rmt1"] = iostat_tape.TapeRow("rmt1", 64.9, 131072.0, 511.0, 0, 1301807104 + 10)
    m2 = samples(c.families_from(rows))
    assert m2[("aix_tape_transfers_total", (("device", "rmt1"),))] == m[("aix_tape_transfers_total", (("device", "rmt1"),))]



def test_no_tapes_is_not_an_error():
    assert iostat_tape.parse(fixture_text("iostat_tape", "no-tapes.txt")) == {}
    assert samples(TapeCollector().families_from({})) == {("aix_tape_devices", ()): 0}



@pytest.mark.parametrize("text,message", [
    ("Tapes:   % tm_act  Kbps\nrmt0 1 2\n", "unexpected tape header"),
    ("Tapes:       % tm_act     Kbps      tps    Kb_read   Kb_wrtn\nrmt0  71.3  142336.0  556.0\n", "device and 5 numbers"),
    ("Bänder:       % tm_act     Kbps      tps    Kb_read   Kb_wrtn\n", "no 'Tapes:' report"),
    # a counter that is not whole KB (1e309 would overflow an integer) is an error, not a crash
    ("Tapes:       % tm_act     Kbps      tps    Kb_read   Kb_wrtn\nrmt0  71.3  142336.0  556.0  1e309  0\n", "whole KB"),
    ("Tapes:       % tm_act     Kbps      tps    Kb_read   Kb_wrtn\nrmt0  71.3  142336.0  556.0  10.5  0\n", "whole KB"),
])
def test_tape_bad_input(text, message):
    with pytest.raises(ParseError, match=message):
        iostat_tape.parse(text)

