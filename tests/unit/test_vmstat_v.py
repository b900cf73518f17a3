"""vmstat -v: naming rules; bad input of the labelled format vmstat -v and -s share (parsers/labelled.py)."""
import pytest

from aix_exporter.collectors.vmstat_v import v_families
from aix_exporter.parsers import ParseError, vmstat_s, vmstat_v
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_vmstat_v_naming_rules():
    pairs = vmstat_v.parse(fixture_text("vmstat_v", "aix71-full.txt"))
    assert pairs[0] == ("memory pages", 16777216) and len(pairs) == 22
    m = samples(v_families(pairs))
    assert m[("aix_vmstat_v_memory_bytes", ())] == 16777216 * 4096
    assert m[("aix_vmstat_v_pinned_bytes", ())] == 5226496 * 4096
    assert m[("aix_vmstat_v_maxpin_ratio", ())] == 0.8
    assert m[("aix_vmstat_v_numperm_ratio", ())] == 0.151
    assert m[("aix_vmstat_v_computational_ratio", ())] == 0.588
    assert m[("aix_vmstat_v_memory_pools", ())] == 4
    assert m[("aix_vmstat_v_blocked_io_total", (("buffer", "pbuf"), ("io", "disk")))] == 27
    assert m[("aix_vmstat_v_blocked_io_total", (("buffer", "fsbuf"), ("io", "external_pager_filesystem")))] == 4130
    assert m[("aix_vmstat_v_remote_pageouts_scheduled_total", ())] == 0



def test_vmstat_v_unknown_label_from_another_release_follows_the_rules():
    m = samples(v_families([("Virtualized paging space blocked pages", 5), ("new frobnication percentage", 12.5)]))
    assert m[("aix_vmstat_v_virtualized_paging_space_blocked_bytes", ())] == 5 * 4096
    assert m[("aix_vmstat_v_new_frobnication_ratio", ())] == 0.125



@pytest.mark.parametrize("parse", [vmstat_v.parse, vmstat_s.parse])
@pytest.mark.parametrize("text,message", [
    ("", "empty output"),
    ("   1048576 memory pages\nmemory pages 1048576\n", "expected '<number> <label>'"),
    ("   1048576 Speicherseiten\n 1,5 Prozent\n", "expected '<number> <label>'"),
    ("\x00\x00\x00", "binary data"),
])
def test_bad_input(parse, text, message):
    with pytest.raises(ParseError, match=message):
        parse(text)



def test_label_names_follow_the_snake_rule_with_io():
    """'I/O' becomes 'io', any other run of non-alphanumerics one '_' (the naming rule the
    metric names of unknown vmstat -v labels depend on)."""
    from aix_exporter.collectors.vmstat_v import snake
    assert snake("pending I/O waits") == "pending_io_waits"
    assert snake("mpc-sent interrupts") == "mpc_sent_interrupts"
    assert snake("  paging space I/Os ") == "paging_space_ios"
