"""iostat -p: tape rows, no tapes, bad input; the tape collector."""
import pytest

from aix_exporter.collectors.tape import TapeCollector, families_from
from aix_exporter.parsers import ParseError, iostat_tape
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_counters_add_the_interval_to_the_since_boot_totals_and_gauges_are_the_interval():
    reports = iostat_tape.parse_reports(fixture_text("iostat_tape", "two-lto-drives-interval-5.txt"))
    assert len(reports) == 2
    m = samples(families_from(reports))
    rmt0, rmt1 = (("device", "rmt0"),), (("device", "rmt1"),)
    # since boot + the interval, whole KB: exact
    assert m[("aix_tape_read_bytes_total", rmt0)] == (310378496 + 992256) * 1024
    assert m[("aix_tape_written_bytes_total", rmt0)] == 1103613952 * 1024
    assert m[("aix_tape_written_bytes_total", rmt1)] == (1301807104 + 951424) * 1024
    # the interval report's figures, not the since-boot averages (71.3 %, 556 tps)
    assert m[("aix_tape_busy_ratio", rmt0)] == 0.932 and m[("aix_tape_busy_ratio", rmt1)] == 0.906
    assert m[("aix_tape_transfers_per_second", rmt0)] == 775.2
    assert m[("aix_tape_throughput_bytes_per_second", rmt1)] == 190284.8 * 1024
    assert m[("aix_tape_devices", ())] == 2
    assert not [k for k in m if k[0] in ("aix_tape_transfers_total", "aix_tape_busy_seconds_total")]
    assert iostat_tape.parse(fixture_text("iostat_tape", "two-lto-drives-interval-5.txt"))["rmt0"].busy_percent == 93.2


def test_a_since_boot_report_alone_gives_counters_but_no_current_figures():
    reports = iostat_tape.parse_reports(fixture_text("iostat_tape", "two-lto-drives-since-boot.txt"))
    m = samples(families_from(reports))
    assert m[("aix_tape_written_bytes_total", (("device", "rmt0"),))] == 1103613952 * 1024
    assert m[("aix_tape_read_bytes_total", (("device", "rmt0"),))] == 310378496 * 1024
    assert not [k for k in m if k[0] in ("aix_tape_busy_ratio", "aix_tape_transfers_per_second",
                                         "aix_tape_throughput_bytes_per_second")]


def test_unknown_tape_columns_are_named_in_the_error():
    text = "Tapes:       % tm_act     Kbps      tps    Kb_read   Kb_wrtn   Kb_seek\nrmt0 1 2 3 4 5 6\n"
    with pytest.raises(ParseError, match="unknown column.s. Kb_seek"):
        iostat_tape.parse(text)


def test_no_tapes_with_a_failing_exit_status_is_no_tapes(tmp_path):
    """If iostat -p exits non-zero saying no tapes were found, that is an answer: no tapes."""
    from aix_exporter.config import Settings
    from aix_exporter.sources.system import SystemSource
    root = tmp_path / "root" / "usr" / "bin"
    root.mkdir(parents=True)
    (root / "iostat").write_text("#!/bin/sh\necho\necho 'No tapes found'\nexit 1\n")
    (root / "iostat").chmod(0o755)
    s = Settings()
    s.command_root = str(tmp_path / "root")
    m = samples(TapeCollector(s).collect(SystemSource(s)))
    assert m == {("aix_tape_devices", ()): 0}
    (root / "iostat").write_text("#!/bin/sh\necho 'iostat: 0551-157 Asynchronous I/O not configured' >&2\nexit 1\n")
    from aix_exporter.sources import SourceError
    with pytest.raises(SourceError, match="exit status 1"):
        TapeCollector(s).collect(SystemSource(s))


def test_no_tapes_is_not_an_error():
    assert iostat_tape.parse(fixture_text("iostat_tape", "no-tapes.txt")) == {}
    assert iostat_tape.parse_reports(fixture_text("iostat_tape", "no-tapes.txt")) == []
    assert samples(families_from([])) == {("aix_tape_devices", ()): 0}



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



TAPES = "Tapes:       % tm_act     Kbps      tps    Kb_read   Kb_wrtn\n"


def test_a_configuration_line_naming_tapes_is_no_no_tapes_message():
    with pytest.raises(ParseError) as e:
        iostat_tape.parse("System configuration: lcpu=16 drives=6 ent=4.00 paths=12 vdisks=0 tapes=2\n")
    assert str(e.value) == "iostat -p: no 'Tapes:' report and no 'No tapes found'"
    assert iostat_tape.parse_reports("System configuration: lcpu=8 tapes=0\n") == []
    assert iostat_tape.parse("No tapes were found\n") == {}


@pytest.mark.parametrize("text,message", [
    ("Tapes:  % tm_act  Kbps  tps  Kb_read  Kb_wrtn  Kb_extra  Kb_more\n",
     "iostat -p: unexpected tape header: unknown column(s) Kb_extra, Kb_more (expected 'Tapes: % tm_act Kbps tps "
     "Kb_read Kb_wrtn') (line 1: 'Tapes:  % tm_act  Kbps  tps  Kb_read  Kb_wrtn  Kb_extra  Kb_more')"),
    ("\nTapes:  Kbps  % tm_act  tps  Kb_read  Kb_wrtn\n",
     "iostat -p: unexpected tape header: columns missing or out of order (expected 'Tapes: % tm_act Kbps tps "
     "Kb_read Kb_wrtn') (line 2: 'Tapes:  Kbps  % tm_act  tps  Kb_read  Kb_wrtn')"),
    (TAPES + "9rmt            71.3  142336.0    556.0  310378496 1103613952\n",
     "iostat -p: tape row needs device and 5 numbers (line 2: '9rmt            71.3  142336.0    556.0  310378496 1103613952')"),
    (TAPES + "rmt0            busy  142336.0    556.0  310378496 1103613952\n",
     "iostat -p: tape row needs device and 5 numbers (line 2: 'rmt0            busy  142336.0    556.0  310378496 1103613952')"),
    (TAPES + "rmt0            71.3  142336.0    556.0  310378496.5 1103613952\n",
     "iostat -p: Kb_read and Kb_wrtn are whole KB (line 2: 'rmt0            71.3  142336.0    556.0  310378496.5 1103613952')"),
])
def test_iostat_tape_errors_in_full(text, message):
    with pytest.raises(ParseError) as e:
        iostat_tape.parse(text)
    assert str(e.value) == message
