import os

import pytest

from aix_exporter.collectors.splat import families_from as splat_families, rank_functions
from aix_exporter.collectors.tape import TapeCollector
from aix_exporter.collectors.tsm import TsmCollector
from aix_exporter.config import Settings
from aix_exporter.parsers import ParseError, iostat_tape, splat, tsm_actlog
from aix_exporter.sources import SourceError
from aix_exporter.sources.logtail import tail
from aix_exporter.sources.replay import ReplaySource
from tests.conftest import fixture_text
from tests.unit.helpers import samples


def test_splat_report_sections():
    rep = splat.parse(fixture_text("splat", "tsm-4k-pin-seg-range.txt"))
    assert rep.window_seconds == 5.000412
    assert [l.name for l in rep.locks][:2] == ["F10007165096B6F8", "F100071650963FB8"]
    assert rep.locks[0].type == "disabled_simple" and rep.locks[0].acquisitions == 28925
    assert rep.locks[0].miss_percent == 10.2795 and rep.locks[0].spins == 3314
    assert [(f.name, f.acquisitions, f.spin_count) for f in rep.functions.values()] == [
        (".pin_seg_range", 75968, 25569), (".xlpin", 6040, 635), (".as_geth", 1578, 227)]
    assert [round(f.miss_ratio, 10) for f in rep.functions.values()] == [0.2518, 0.0951, 0.1258]
    assert rep.details[0].acquisitions == 83586 and rep.details[0].miss_percent == 25.18
    m = samples(splat_families(rep, top_n=2))
    assert m[("aix_splat_function_miss_ratio", (("function", ".pin_seg_range"),))] == 0.2518
    assert m[("aix_splat_function_spin_count", (("function", ".pin_seg_range"),))] == 25569
    assert m[("aix_splat_lock_miss_ratio", (("lock", "F10007165096B6F8"), ("type", "disabled_simple")))] == 0.102795
    assert m[("aix_splat_window_seconds", ())] == 5.000412
    assert len([k for k in m if k[0] == "aix_splat_lock_acquisitions"]) == 2   # top-N bound
    assert len([k for k in m if k[0] == "aix_splat_function_acquisitions"]) == 2


def test_function_rows_of_several_locks_sum_while_reading_and_rank_by_misses():
    text = fixture_text("splat", "tsm-4k-pin-seg-range.txt")
    head, detail = text.split("[AIX SIMPLE Lock]", 1)
    second = ("[AIX SIMPLE Lock]" + detail).replace(".pin_seg_range     75968  25.18  25569",
                                                     ".pin_seg_range      1000  30.00     10")
    rep = splat.parse(head + "[AIX SIMPLE Lock]" + detail + "\n" + second)
    pin = rep.functions[".pin_seg_range"]
    assert (pin.acquisitions, pin.spin_count) == (76968, 25579)
    assert pin.misses == pytest.approx(75968 * 0.2518 + 1000 * 0.30)
    assert pin.miss_ratio == pytest.approx((75968 * 0.2518 + 300) / 76968)
    assert rep.functions[".xlpin"].acquisitions == 2 * 6040 and len(rep.functions) == 3
    ranked = rank_functions({"a": splat.FunctionStats("a", 5000, 50.0, 1), "b": splat.FunctionStats("b", 4000, 600.0, 15),
                             "c": splat.FunctionStats("c", 9000, 50.0, 2)})
    assert [f.name for f in ranked] == ["b", "c", "a"]   # misses first, then acquisitions


def test_splat_odd_digits_are_an_error_or_ignored_never_a_crash():
    text = fixture_text("splat", "tsm-4k-pin-seg-range.txt")
    # a superscript passes str.isdigit() but not int(): the lock row is an error
    with pytest.raises(ParseError, match="acquisitions '2892\u00b2' is not a whole number"):
        splat.parse(text.replace("F10007165096B6F8        D 28925", "F10007165096B6F8        D 2892\u00b2", 1))
    # an unreadable elapsed time: the window comes from the first 'Percent Held ( 5.000412s )'
    rep = splat.parse(text.replace("Elapsed Real Time: 5.000412", "Elapsed Real Time: 5...000412", 1))
    assert rep.window_seconds == 5.000412
    # a line that only looks like 'Total Acquisitions:' is not read as one
    rep = splat.parse(text.replace("Total Acquisitions:   83586 |", "\u2460  Total Acquisitions:   83586 |", 1))
    assert rep.details[0].acquisitions == 0 and rep.details[0].miss_percent == 25.18


def test_splat_cut_in_the_middle_is_an_error():
    text = fixture_text("splat", "tsm-4k-pin-seg-range.txt")
    cut = text[: text.index(".xlpin") + 20]
    with pytest.raises(ParseError, match="function detail row needs 9 numeric fields"):
        splat.parse(cut)
    cut = text[: text.index("F100060046ED8780") + 30]
    with pytest.raises(ParseError, match="per-lock row has"):
        splat.parse(cut)
    with pytest.raises(ParseError, match="no splat section"):
        splat.parse("Elapsed time, but not splat\n")


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


def test_tsm_log_formats():
    msgs = tsm_actlog.parse(fixture_text("tsm_actlog", "server-4k-then-ANR0358E.txt"))
    ids = [m.msgid for m in msgs]
    assert ids.count("ANR9999D") == 2 and "ANR0358E" in ids and "ANR2121W" in ids
    assert [m for m in msgs if m.msgid == "ANR8300E"][0].date == "11/18/26"
    assert len(msgs) == 9


@pytest.mark.parametrize("text,message", [
    ("ANR9999D_2697328974 CheckPosition(pvrntp.c:1) Thread<1>:\n", "message without a date"),
    ("11/18/2026 08:00:02  hello\n", "dated line without a message id"),
    ("random text\n11/18/2026 08:00:02  ANR0984I x\n", "text before the first dated message"),
])
def test_tsm_bad_input(text, message):
    with pytest.raises(ParseError, match=message):
        tsm_actlog.parse(text)


def _settings(tmp_path, state=True):
    s = Settings()
    s.tsm.state_file = str(tmp_path / "state.json") if state else None
    return s


def test_tsm_counts_once_across_restarts_rotation_and_truncation(tmp_path):
    d = tmp_path / "replay"
    d.mkdir()
    log = d / "tsm_actlog.txt"
    log.write_text("11/19/2026 00:00:07  ANR9999D Memory allocation error.\n")
    src = ReplaySource(str(d))

    def count(c, msgid):
        return samples(c.collect(src)).get(("aix_tsm_messages_total", (("msgid", msgid), ("severity", msgid[-1]))))

    c = TsmCollector(_settings(tmp_path))
    assert count(c, "ANR9999D") == 1 and count(c, "ANR0358E") == 0
    with open(log, "a") as fh:   # appended, with a partial last line that must wait
        fh.write("11/19/2026 00:00:07  ANR0358E Database initialization failed: sufficient memory is\n"
                 "                      not available.\n11/19/2026 00:00:09  ANR2121W ATTEN")
    assert count(c, "ANR0358E") == 1
    c2 = TsmCollector(_settings(tmp_path))          # exporter restart: resumes, no recount
    assert count(c2, "ANR9999D") == 1 and count(c2, "ANR0358E") == 1
    with open(log, "a") as fh:
        fh.write("TION: More recovery logs are needed.\n")
    assert count(c2, "ANR2121W") == 1
    log.write_text("11/20/2026 01:00:00  ANR9999D again\n")   # truncated and rewritten
    assert count(c2, "ANR9999D") == 2
    os.rename(log, d / "old.txt")                            # rotated: new inode
    log.write_text("11/20/2026 02:00:00  ANR9999D rotated\n")
    assert count(c2, "ANR9999D") == 3


def test_tsm_bad_line_fails_the_cycle_but_counts_good_lines_once(tmp_path):
    d = tmp_path / "replay"
    d.mkdir()
    (d / "tsm_actlog.txt").write_text("11/19/2026 00:00:07  ANR0358E x\nANR9999D_1 f(x.c:1) Thread<1>:\n")
    c = TsmCollector(_settings(tmp_path, state=False))
    src = ReplaySource(str(d))
    with pytest.raises(ParseError, match="without a date"):
        c.collect(src)
    m = samples(c.collect(src))   # next cycle: the bad line is not re-read
    assert m[("aix_tsm_messages_total", (("msgid", "ANR0358E"), ("severity", "E")))] == 1


def test_tail_start_at_end_and_missing_file(tmp_path):
    p = tmp_path / "log"
    p.write_text("old\n")
    text, pos = tail(str(p), None, start_at_end=True)
    assert text == "" and pos["offset"] == 4
    with open(p, "a") as fh:
        fh.write("new\n")
    assert tail(str(p), pos)[0] == "new\n"
    with pytest.raises(SourceError, match="does not exist"):
        tail(str(tmp_path / "missing"), None)
