import pytest

from aix_exporter.collectors.process import families_from, ldr_families
from aix_exporter.parsers import ParseError, ps_env, svmon_p
from tests.conftest import fixture_text
from tests.unit.helpers import samples

P4K, P64K, P16M = 4096, 65536, 16 << 20


def test_4k_regime_dsmserv_61_flags_pagesize_table_and_heap_segments():
    (p,) = svmon_p.parse(fixture_text("svmon_P", "dsmserv-4k-regime-61.txt"))
    assert (p.pid, p.command, p.large_page_mode) == (2687182, "dsmserv", "N")
    assert p.inuse == 426493 * P4K and p.pgsp == 60847 * P4K
    assert p.heap_segments == 8
    by = p.by_psize()
    assert by["4K"]["inuse"] == 422957 * P4K and by["64K"]["inuse"] == 221 * P64K
    assert "16M" not in by
    seg = {s.vsid: s for s in p.segments}
    assert seg["9c0a2c"].type == "clnt" and seg["9c0a2c"].pgsp == 0 and seg["9c0a2c"].description == "/dev/tsmwin_lv:4106"
    assert seg["8b050b"].description == "" and seg["8b050b"].esid == "-"
    assert seg["a10f31"].description == "USLA text,/dev/hd2:2392"
    m = samples(families_from([p]))
    ident = (("command", "dsmserv"), ("pid", "2687182"))
    assert m[("aix_process_inuse_bytes", ident + (("psize", "4K"),))] == 422957 * P4K
    assert m[("aix_process_large_page_info", (("command", "dsmserv"), ("mode", "N"), ("pid", "2687182")))] == 1
    assert m[("aix_process_heap_segments", ident)] == 8


def test_two_processes_16m_mandatory_and_y_totals_match_pagesize_tables():
    procs = svmon_p.parse(fixture_text("svmon_P", "dsmsta-16m-mandatory-and-dsmserv.txt"))
    assert [(p.command, p.large_page_mode, p.heap_segments) for p in procs] == [("dsmsta", "M", 0), ("dsmserv", "Y", 8)]
    sta, srv = procs
    # the seed's invariant: 42 + 16 x 1012 + 4096 x 18 = 89962 frames
    assert sum(v["inuse"] for v in sta.by_psize().values()) == sta.inuse == 89962 * P4K
    assert srv.by_psize()["16M"]["inuse"] == 118 * P16M
    kernel = [s for s in sta.segments if s.vsid == "0"][0]
    assert kernel.description == "kernel segment (lgpg vsid=0)" and kernel.psize == "L" and kernel.inuse == 16
    m = samples(families_from(procs))
    assert m[("aix_process_pinned_bytes", (("command", "dsmsta"), ("pid", "2978016"), ("psize", "16M")))] == 18 * P16M
    assert m[("aix_process_monitored", ())] == 2


def test_unit_kb_summary_has_totals_but_no_page_size_detail():
    procs = svmon_p.parse(fixture_text("svmon_P", "unit-kb-summary-basic.txt"))
    assert [p.pid for p in procs] == [2753002, 3014682]
    assert procs[0].inuse == 2019412 * 1024 and procs[0].by_psize() == {}
    m = samples(families_from(procs))
    assert m[("aix_process_total_inuse_bytes", (("command", "dsmserv"), ("pid", "2753002")))] == 2019412 * 1024
    assert not any(k[0] == "aix_process_inuse_bytes" for k in m)
    assert m[("aix_process_large_page_info", (("command", "dsmsta"), ("mode", "unknown"), ("pid", "3014682")))] == 1


def test_max_processes_caps_series_by_memory_use():
    procs = svmon_p.parse(fixture_text("svmon_P", "dsmsta-16m-mandatory-and-dsmserv.txt"))
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


def test_ps_env_ldr_cntrl():
    envs = ps_env.parse(fixture_text("ps_env", "dsmserv-large-page-y.txt"))
    assert [(e.pid, e.command) for e in envs] == [(2753002, "dsmserv"), (2978016, "dsmsta")]
    assert envs[0].ldr_cntrl == {"TEXTPSIZE": "64K", "STACKPSIZE": "64K", "SHMPSIZE": "64K", "LARGE_PAGE_DATA": "Y"}
    assert envs[1].ldr_cntrl == {}
    m = samples(ldr_families(envs))
    assert m[("aix_process_ldr_cntrl_info", (("command", "dsmserv"), ("datapsize", ""), ("large_page_data", "Y"),
                                             ("pid", "2753002"), ("shmpsize", "64K"), ("stackpsize", "64K"),
                                             ("textpsize", "64K")))] == 1
    assert m[("aix_process_ldr_cntrl_info", (("command", "dsmsta"), ("datapsize", ""), ("large_page_data", ""),
                                             ("pid", "2978016"), ("shmpsize", ""), ("stackpsize", ""),
                                             ("textpsize", "")))] == 1


@pytest.mark.parametrize("text,message", [
    ("", "empty output"),
    ("hello\n", "no 'PID TTY"),
    ("      PID    TTY STAT  TIME COMMAND\n", "header without process lines"),
    ("      PID    TTY STAT  TIME COMMAND\n  2753002 garbage\n", "not a process line"),
    ("      PID    TTY STAT  TIME COMMAND\n  1      - A  0:01 /x LDR_CNTRL=LARGE_PAGE_DATA\n", "not KEY=VALUE"),
])
def test_ps_env_bad_input(text, message):
    with pytest.raises(ParseError, match=message):
        ps_env.parse(text)


def test_aix53_lpage_column_gives_the_mode_and_old_rows_are_4k():
    (p,) = svmon_p.parse(fixture_text("svmon_P", "aix53-lpage-column.txt"))
    assert (p.pid, p.large_page_mode, p.heap_segments) == (929856, "Y", 2)
    assert [s.psize for s in p.segments] == [None] * 4        # no PSize column: the LPage flag column instead
    assert p.segments[3].description == "/dev/hd2:176297" and p.segments[3].pgsp == 0
    assert p.by_psize() == {"4K": {"inuse": 412301 * P4K, "pin": 8721 * P4K, "pgsp": 21455 * P4K, "virtual": 431187 * P4K}}
