import pytest

from aix_exporter.collectors.memory import families_from
from aix_exporter.parsers import ParseError, svmon_g
from tests.lib import fixture_text
from tests.lib.checks import names, samples

P4K, P64K, P16M = 4096, 65536, 16 * 2**20


def test_tsm_lpar_with_16m_pool_values_in_each_rows_page_size():
    rec = svmon_g.parse(fixture_text("svmon_g", "tsm-lpar-16m-pool.txt"))
    assert rec.mode == "Ded" and rec.unit == "page" and rec.reports == 1
    assert rec.memory["size"] == 16777216 * P4K
    assert rec.memory["inuse"] == 12400512 * P4K
    assert rec.paging_space == {"size": 4194304 * P4K, "inuse": 81920 * P4K}
    assert rec.segments["pin"]["other"] == 594432 * P4K
    assert "other" not in rec.segments["inuse"]
    large = [p for p in rec.page_sizes if p.psize == "16M"][0]
    assert large.pool_size == 160 * P16M and large.inuse == 118 * P16M and large.pin == 160 * P16M
    m = samples(families_from(rec))
    assert m[("aix_memory_page_pool_size_bytes", (("psize", "16M"),))] == 160 * P16M
    assert m[("aix_memory_page_inuse_bytes", (("psize", "16M"),))] == 118 * P16M
    assert m[("aix_memory_page_inuse_bytes", (("psize", "64K"),))] == 223040 * P64K
    assert m[("aix_memory_page_virtual_bytes", (("psize", "4K"),))] == 1997184 * P4K
    assert m[("aix_memory_page_pinned_bytes", (("psize", "64K"),))] == 51200 * P64K
    assert ("aix_memory_page_pool_size_bytes", (("psize", "4K"),)) not in m  # PoolSize '-'
    assert m[("aix_memory_mode_info", (("mode", "Ded"),))] == 1
    assert m[("aix_memory_free_bytes", ())] == 4376704 * P4K
    assert m[("aix_memory_pinned_bytes", ())] == 5226496 * P4K
    assert m[("aix_memory_virtual_bytes", ())] == 9871360 * P4K
    assert m[("aix_paging_space_inuse_bytes", ())] == 81920 * P4K
    assert m[("aix_memory_segment_inuse_bytes", (("type", "clnt"),))] == 2529152 * P4K


def test_aix53_layout_without_mmode_other_or_pagesize_table():
    rec = svmon_g.parse(fixture_text("svmon_g", "aix53-no-mmode-no-other.txt"))
    assert rec.mode is None and rec.page_sizes == []
    assert rec.memory["pin"] == 66521 * P4K
    assert rec.segments["inuse"] == {"work": 129600 * P4K, "pers": 275195 * P4K, "clnt": 0}
    assert "aix_memory_page_inuse_bytes" not in names(families_from(rec))


def test_unit_kb_applies_to_every_value_including_pagesize_table():
    rec = svmon_g.parse(fixture_text("svmon_g", "unit-kb-available.txt"))
    assert rec.unit == "kb" and rec.mode == "Shar"
    assert rec.memory["available"] == 3506176 * 1024
    small = [p for p in rec.page_sizes if p.psize == "64K"][0]
    assert small.inuse == 1097728 * 1024
    m = samples(families_from(rec))
    assert m[("aix_memory_available_bytes", ())] == 3506176 * 1024


def test_repeated_reports_use_the_last():
    text = fixture_text("svmon_g", "aix53-no-mmode-no-other.txt")
    second = text.replace("425275", "425999")
    rec = svmon_g.parse(text + second)
    assert rec.reports == 2 and rec.memory["inuse"] == 425999 * P4K


@pytest.mark.parametrize("text,message", [
    ("", "empty output"),
    ("               size       inuse\n", "no memory row"),
    ("memory     20736.00    18448.86\n", "without its column header"),
    ("Unit: MB\n               size       inuse        free         pin     virtual\n"
     "memory     20736.00    18448.86\n", "2 values for 5 columns"),
    ("               size       inuse        free         pin     virtual\n"
     "memory     1048576.5     425275     623301      66521     159191\n", "fractional value"),
    ("               taille     utilise\nmémoire     1048576     425275\n", "no memory row"),
    ("\x7fELF\x02\x01\x01\x00\x00", "binary data"),
])
def test_bad_input(text, message):
    with pytest.raises(ParseError, match=message):
        svmon_g.parse(text)
