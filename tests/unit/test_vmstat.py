import pytest

from aix_exporter.parsers import ParseError, vmstat
from aix_exporter.collectors.vmstat import families_from
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_wide_large_page_shared_lpar_last_row_is_current():
    rec = vmstat.parse(fixture_text("vmstat", "tsm-4k-wide-large-page-shared.txt"))
    assert rec.config == {"lcpu": 16, "mem_bytes": 65536 * 2**20, "ent": 4.0}
    assert rec.rows == 2
    assert rec.row["avm"] == 1638622 and rec.row["fre"] == 2317928
    assert rec.row["syscalls"] == 27861 and rec.row["sy"] == 15
    assert rec.row["alp"] == 1 and rec.row["flp"] == 0
    m = samples(families_from(rec))
    assert m[("aix_vmstat_cpu_ratio", (("mode", "user"),))] == 0.04
    assert m[("aix_vmstat_cpu_ratio", (("mode", "sys"),))] == 0.15
    assert m[("aix_vmstat_cpu_ratio", (("mode", "wait"),))] == 0.20
    assert m[("aix_vmstat_active_virtual_bytes", ())] == 1638622 * 4096
    assert m[("aix_vmstat_free_list_bytes", ())] == 2317928 * 4096
    assert m[("aix_vmstat_physical_cpus_consumed", ())] == 1.24
    assert m[("aix_vmstat_entitlement_consumed_ratio", ())] == 0.31
    assert m[("aix_vmstat_large_pages_active", ())] == 1
    assert m[("aix_vmstat_large_pages_free", ())] == 0
    assert m[("aix_lpar_logical_cpus", ())] == 16
    assert m[("aix_lpar_memory_bytes", ())] == 65536 * 2**20
    assert m[("aix_lpar_entitled_capacity_cpus", ())] == 4.0
    assert m[("aix_vmstat_runqueue_threads", ())] == 4
    assert m[("aix_vmstat_blocked_threads", ())] == 1


def test_dedicated_capitalised_configuration_and_overflowing_columns():
    rec = vmstat.parse(fixture_text("vmstat", "dedicated-plain-5-3.txt"))
    assert rec.config == {"lcpu": 4, "mem_bytes": 7168 * 2**20}
    assert rec.rows == 3
    assert rec.row["us"] == 18 and rec.row["id"] == 74 and rec.row["avm"] == 148175
    names = {s.name for f in families_from(rec) for s in f.samples}
    assert "aix_vmstat_physical_cpus_consumed" not in names
    assert "aix_vmstat_entitlement_consumed_ratio" not in names
    assert "aix_lpar_entitled_capacity_cpus" not in names
    assert "aix_vmstat_large_pages_active" not in names


def test_uncapped_ec_above_100_timestamp_and_19_digit_counters_with_trailing_tabs():
    rec = vmstat.parse(fixture_text("vmstat", "uncapped-ec-over-100-time-overflow.txt"))
    assert rec.row["fr"] == 4636223281790821470 and rec.row["sr"] == 4636223281790821470
    assert rec.row["time"] == "00:00:09"
    assert rec.row["ec"] == 138.7 and rec.row["pc"] == 11.09
    m = samples(families_from(rec))
    assert m[("aix_vmstat_entitlement_consumed_ratio", ())] == pytest.approx(1.387)
    assert m[("aix_vmstat_cpu_ratio", (("mode", "user"),))] == 0.48


@pytest.mark.parametrize("text,message", [
    ("", "empty output"),
    ("   \n\n", "empty output"),
    ("kthr    memory\n----- ---\n r  b   avm   fre  re  pi  po  fr   sr  cy  in   sy  cs us sy id wa\n", "header without data rows"),
    (" r  b   avm   fre  re  pi  po  fr   sr  cy  in   sy  cs us sy id wa\n 1  0 148162 1649286   0   0   0\n", "row has 7 fields"),
    ("\x00\x01\x02binary\xff", "binary data"),
    ("Configuration du système: lcpu=4 mem=7168MB\n\n r  b   avm  fre\n", "header without data rows"),
    (" r  b   avm   fre  re  pi  po  fr   sr  cy  in   sy  cs us sy id wa\n"
     " 1  0 14x162 1649286 0 0 0 0 0 0 1 1 1 1 1 97 0\n", "header without data rows"),
    ("System configuration: lcpu=4 mem=" + "9" * 400 + "MB\n r  b   avm   fre\n 1 0 1 1\n", "out of range"),
])
def test_bad_input_raises_parse_error_naming_the_problem(text, message):
    with pytest.raises(ParseError) as e:
        vmstat.parse(text)
    assert message in str(e.value)


def test_localised_output_with_decimal_commas_is_rejected_not_guessed():
    # A de_DE locale prints 'Systemkonfiguration' and decimal commas in pc/ec.
    text = ("\nSystemkonfiguration: lcpu=4 Speicher=4096MB ent=0,20\n\n"
            " r  b   avm   fre  re  pi  po  fr   sr  cy  in   sy  cs us sy id wa    pc    ec\n"
            " 0  0 389541 553213   0   0   0   0    0   0   9 1083 669  1  1 98  0  0,01   6,5\n")
    with pytest.raises(ParseError, match="header without data rows"):
        vmstat.parse(text)


def test_headerless_single_row_uses_default_layout():
    rec = vmstat.parse(" 8  0 4343133 888077   0   0   0   0    0   0  86 3669 3595  8  6 86  0  0.09  28.4\n")
    assert rec.row["avm"] == 4343133 and rec.row["pc"] == 0.09 and rec.row["ec"] == 28.4
    # the default layout's order: ... in sy cs us sy id wa (vmstat's own header), each column itself
    assert (rec.row["in"], rec.row["syscalls"], rec.row["cs"]) == (86, 3669, 3595)
    assert (rec.row["us"], rec.row["sy"], rec.row["id"], rec.row["wa"]) == (8, 6, 86, 0)
    assert (rec.row["r"], rec.row["b"], rec.row["fre"]) == (8, 0, 888077)
    with pytest.raises(ParseError, match="matches no default layout"):
        vmstat.parse(" 8  0 4343133 888077   0   0\n")


def test_vmstat_I_layout_gives_raw_io_blocked_threads_from_the_last_row():
    rec = vmstat.parse(fixture_text("vmstat", "iwt-raw-io-blocked.txt"))
    assert (rec.row["r"], rec.row["b"], rec.row["p"]) == (7, 1, 5)
    m = samples(families_from(rec))
    assert m[("aix_vmstat_raw_io_blocked_threads", ())] == 5
    assert m[("aix_vmstat_blocked_threads", ())] == 1 and m[("aix_vmstat_runqueue_threads", ())] == 7
    assert m[("aix_vmstat_cpu_ratio", (("mode", "user"),))] == 0.03
    assert m[("aix_vmstat_cpu_ratio", (("mode", "sys"),))] == 0.33
