"""splat: report sections, function rows, odd digits, cut reports; the splat collector."""
import pytest

from aix_exporter.collectors.splat import families_from as splat_families, rank_functions
from aix_exporter.parsers import ParseError, splat
from tests.lib import fixture_text
from tests.lib.checks import samples


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



def test_lock_figures_fall_back_to_the_lock_detail_sections_without_a_top_locks_summary():
    """A report without the acquisitions summary (splat -sa cut to its detail sections) still
    gives per-lock figures, from the lock detail sections; the summary wins when both exist."""
    rep = splat.parse(fixture_text("splat", "tsm-4k-pin-seg-range.txt"))
    assert rep.locks and rep.details
    detail = rep.details[0]
    only_details = splat.SplatReport(window_seconds=rep.window_seconds, locks=[], functions=rep.functions,
                                     gross={}, details=rep.details)
    m = samples(splat_families(only_details, top_n=1))
    lab = (("lock", detail.name), ("type", detail.type))
    assert m[("aix_splat_lock_acquisitions", lab)] == detail.acquisitions == 83586
    assert m[("aix_splat_lock_miss_ratio", lab)] == 0.2518
    with_summary = samples(splat_families(rep, top_n=1))
    assert with_summary[("aix_splat_lock_acquisitions", (("lock", "F10007165096B6F8"), ("type", "disabled_simple")))] == 28925


def test_gross_acquisitions_per_lock_class():
    """The gross lock summary (splat's first section): acquisitions per lock class, the
    fourth column (Acquisitions or Passes), never the Total or Unique Addresses counts."""
    rep = splat.parse(fixture_text("splat", "gross-lock-summary.txt"))
    m = samples(splat_families(rep))
    gross = {k[1][0][1]: v for k, v in m.items() if k[0] == "aix_splat_gross_acquisitions"}
    assert gross == {"aix_all_locks": 904417, "runq": 31877, "simple": 844021, "transformed": 88, "krlock": 5120,
                     "complex": 23399, "pthread_condvar": 1020, "mutex": 44011, "rwlock": 0}
