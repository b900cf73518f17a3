"""svmon -P: page-size tables, 16MB mode, heap segments, units, bad input; the process collector."""
import pytest

from aix_exporter.collectors.process import families_from
from aix_exporter.parsers import ParseError, svmon_p
from tests.lib import fixture_text
from tests.lib.checks import samples


P4K, P64K, P16M = 4096, 65536, 16 << 20


def test_4k_regime_dsmserv_61_flags_pagesize_table_and_heap_segments():
    (p,) = svmon_p.parse(fixture_text("svmon_p", "dsmserv-4k-regime-61.txt"))
    assert (p.pid, p.command, p.large_page_mode) == (2687182, "dsmserv", "N")
    assert p.inuse == 426493 * P4K and p.pgsp == 60847 * P4K
    assert p.heap_segments == 8
    by = p.by_psize()
    assert by["4K"]["inuse"] == 422957 * P4K and by["64K"]["inuse"] == 221 * P64K
    assert "16M" not in by
    # segment rows are summed per PSize while reading ('-' Pgsp/Virtual of the clnt segment is none)
    assert p.segment_count == 17
    assert p.segment_pages["s"] == [65536 * 3 + 62072 + 49695 + 10355 + 4005 + 2355 + 28993 + 64809 + 4016 + 277 + 192
                                    + 33 + 14, 1 + 8965 + 2, 3050 + 9100 + 2101 + 1840 + 44756,
                                    65536 * 3 + 62072 + 58795 + 10355 + 6106 + 2355 + 30833 + 109565 + 277 + 192 + 33]
    assert p.segment_pages["m"] == [133 + 88, 11, 0, 133 + 88]   # = the PageSize table's 64 KB row
    m = samples(families_from([p]))
    ident = (("command", "dsmserv"), ("pid", "2687182"))
    assert m[("aix_process_inuse_bytes", ident + (("psize", "4K"),))] == 422957 * P4K
    assert m[("aix_process_large_page_info", (("command", "dsmserv"), ("mode", "N"), ("pid", "2687182")))] == 1
    assert m[("aix_process_heap_segments", ident)] == 8



def test_two_processes_16m_mandatory_and_y_totals_match_pagesize_tables():
    procs = svmon_p.parse(fixture_text("svmon_p", "dsmsta-16m-mandatory-and-dsmserv.txt"))
    assert [(p.command, p.large_page_mode, p.heap_segments) for p in procs] == [("dsmsta", "M", 0), ("dsmserv", "Y", 8)]
    sta, srv = procs
    # the seed's invariant: 42 + 16 x 1012 + 4096 x 18 = 89962 frames
    assert sum(v["inuse"] for v in sta.by_psize().values()) == sta.inuse == 89962 * P4K
    assert srv.by_psize()["16M"]["inuse"] == 118 * P16M
    # the segment rows agree with the PageSize table (the kernel segment counts 16 large pages)
    assert sta.segment_count == 9
    assert sta.segment_pages == {"L": [16 + 2, 18, 0, 18], "m": [893 + 78 + 37 + 4, 171 + 1, 0, 1012], "s": [42, 12, 0, 40]}
    m = samples(families_from(procs))
    assert m[("aix_process_pinned_bytes", (("command", "dsmsta"), ("pid", "2978016"), ("psize", "16M")))] == 18 * P16M
    assert m[("aix_process_monitored", ())] == 2



def test_unit_kb_summary_has_totals_but_no_page_size_detail():
    procs = svmon_p.parse(fixture_text("svmon_p", "unit-kb-summary-basic.txt"))
    assert [p.pid for p in procs] == [2753002, 3014682]
    assert procs[0].inuse == 2019412 * 1024 and procs[0].by_psize() == {}
    m = samples(families_from(procs))
    assert m[("aix_process_total_inuse_bytes", (("command", "dsmserv"), ("pid", "2753002")))] == 2019412 * 1024
    assert not any(k[0] == "aix_process_inuse_bytes" for k in m)
    assert m[("aix_process_large_page_info", (("command", "dsmsta"), ("mode", "unknown"), ("pid", "3014682")))] == 1



def test_max_processes_caps_series_by_memory_use():
    procs = svmon_p.parse(fixture_text("svmon_p", "dsmsta-16m-mandatory-and-dsmserv.txt"))
    m = samples(families_from(procs, max_processes=1))
    assert {k[1][0][1] for k in m if k[0] == "aix_process_total_inuse_bytes"} == {"dsmserv"}



@pytest.mark.parametrize("text,message", [
    ("", "empty output"),
    ("     Pid Command          Inuse      Pin     Pgsp  Virtual 64-bit Mthrd  16MB\n", "no process rows"),
    ("     Pid Command          Inuse      Pin     Pgsp  Virtual 64-bit Mthrd  16MB\n"
     " 2687182 dsmserv         426493     9144    60847   456048      Y\n", "5 fields for 7 columns"),
    ("     Pid Command          Inuse      Pin     Pgsp  Virtual 64-bit Mthrd  16MB\n"
     " 2687182 dsmserv         426493     9144    60847   456048      Y     Y     Q\n", "unknown large-page mode"),
    ("    Vsid      Esid Type Description              PSize  Inuse   Pin Pgsp Virtual\n"
     "  1e8f17  80000000 work private load text            s   5878     0    0  5892\n", "segment table before any process"),
    ("\x00\x01svmon", "binary data"),
])
def test_svmon_p_bad_input(text, message):
    with pytest.raises(ParseError, match=message):
        svmon_p.parse(text)



def test_aix53_lpage_column_gives_the_mode_and_old_rows_are_4k():
    (p,) = svmon_p.parse(fixture_text("svmon_p", "aix53-lpage-column.txt"))
    assert (p.pid, p.large_page_mode, p.heap_segments) == (929856, "Y", 2)
    assert p.segment_count == 4 and p.segment_pages == {}    # no PSize column: the LPage flag column instead
    assert p.by_psize() == {"4K": {"inuse": 412301 * P4K, "pin": 8721 * P4K, "pgsp": 21455 * P4K, "virtual": 431187 * P4K}}

