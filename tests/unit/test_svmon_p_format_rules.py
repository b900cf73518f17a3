"""svmon -P: each format rule of the parser's docstring on its own, in svmon's own layout
(tests/fixtures/svmon_p, ../shared/corpus/svmon-P): page sizes per segment, the segment
header's layout, Esid forms, address ranges, '-' values, units, and every error message."""
import pytest

from aix_exporter.parsers import ParseError, svmon_p

P4K, P64K, P16M, P16G = 4096, 65536, 16 << 20, 16 << 30
PID_HEADER = "     Pid Command          Inuse      Pin     Pgsp  Virtual 64-bit Mthrd  16MB\n"
PROC = " 2978016 dsmsta           89962    76492        7    89960      N     Y     M\n"
SEG_HEADER = "    Vsid      Esid Type Description              PSize  Inuse   Pin Pgsp Virtual\n"


def one(text):
    (p,) = svmon_p.parse(text)
    return p


def test_segment_rows_per_page_size_letter_give_bytes_per_psize():
    text = PID_HEADER + PROC + "\n" + SEG_HEADER + \
        "   ad70ad        d work text or shared-lib code seg  m    893   171    3     895\n" \
        "   fff8e6        3 work working storage              L      2     1    0       2\n" \
        "   df4154        - work                              s     40    12    5      41\n" \
        "   df4155        - work                              sm    10     2    1      11\n" \
        "   a1a2b9        f work huge                         S      1     1    0       1\n"
    p = one(text)
    assert p.segment_count == 5
    assert p.segment_pages == {"m": [893, 171, 3, 895], "L": [2, 1, 0, 2], "s": [40, 12, 5, 41],
                               "sm": [10, 2, 1, 11], "S": [1, 1, 0, 1]}
    assert p.by_psize() == {
        "64K": {"inuse": 893 * P64K, "pin": 171 * P64K, "pgsp": 3 * P64K, "virtual": 895 * P64K},
        "16M": {"inuse": 2 * P16M, "pin": 1 * P16M, "pgsp": 0, "virtual": 2 * P16M},
        "4K": {"inuse": 50 * P4K, "pin": 14 * P4K, "pgsp": 6 * P4K, "virtual": 52 * P4K},
        "16G": {"inuse": P16G, "pin": P16G, "pgsp": 0, "virtual": P16G}}
    assert (p.pid, p.command, p.inuse, p.pin, p.pgsp, p.virtual, p.large_page_mode) == (
        2978016, "dsmsta", 89962 * P4K, 76492 * P4K, 7 * P4K, 89960 * P4K, "M")


def test_a_pagesize_table_wins_over_segment_rows_and_gb_rows_read():
    text = PID_HEADER + PROC + "\n     PageSize                Inuse        Pin       Pgsp    Virtual\n" \
        "     s    4 KB                  42         12          0         40\n" \
        "     S   16 GB                   1          1          -          1\n\n" + SEG_HEADER + \
        "   df4154        - work                              s     40    12    5      41\n"
    p = one(text)
    assert p.by_psize() == {"4K": {"inuse": 42 * P4K, "pin": 12 * P4K, "pgsp": 0, "virtual": 40 * P4K},
                            "16G": {"inuse": P16G, "pin": P16G, "pgsp": 0, "virtual": P16G}}


def test_a_report_without_unit_pagesize_or_psize_is_all_4k_and_a_unit_report_has_no_detail():
    p = one(PID_HEADER + PROC)
    assert (p.unit_report, p.page_sizes, p.segment_pages, p.segment_count, p.heap_segments) == (False, {}, {}, 0, 0)
    assert p.by_psize() == {"4K": {"inuse": 89962 * P4K, "pin": 76492 * P4K, "pgsp": 7 * P4K, "virtual": 89960 * P4K}}
    p = one("Unit: MB\n" + PID_HEADER.replace(" 64-bit Mthrd  16MB", "") + " 1 dsmserv 1.5 1 0 2.25\n")
    assert (p.unit_report, p.inuse, p.virtual, p.large_page_mode, p.by_psize()) == (True, 1.5 * (1 << 20), 2.25 * (1 << 20),
                                                                                   "unknown", {})
    p = svmon_p.Process(1, "x", 0, 0, 0, 0)
    assert (p.large_page_mode, p.unit_report, p.page_sizes, p.segment_pages) == ("unknown", False, {}, {})


@pytest.mark.parametrize("header,layout", [
    ("Vsid Esid Type Description PSize Inuse Pin Pgsp Virtual", (True, False, 5)),
    ("Vsid Esid Type Description Inuse Pin Pgsp Virtual", (False, False, 4)),
    ("Vsid Esid Type Description Inuse Pin Pgsp Virtual Addr Range", (False, True, 4)),
    ("Vsid Esid Type Description LPage Inuse Pin Pgsp Virtual", (False, False, 5)),
    ("Vsid Esid Type Description LPage Inuse Pin Pgsp Virtual Addr Range", (False, True, 5)),
    ("Vsid Esid Type PSize Inuse Pin Pgsp Virtual", (True, False, 5)),
    ("Vsid Esid Type Inuse Pin Pgsp Virtual", (False, False, 4)),
])
def test_segment_header_layout(header, layout):
    assert svmon_p._segment_layout(tuple(header.split())) == layout


@pytest.mark.parametrize("row,values", [
    ("  8c060c        - work                              s  14677   292    0   12941", [14677, 292, 0, 12941]),  # Esid -
    ("  8c060c      * - work  shared memory               s    100     2    0     100", [100, 2, 0, 100]),  # Esid '* -'
    ("  8c060c  work  no esid                             s     30     1    0      30", [30, 1, 0, 30]),  # no Esid
    ("  8c060c  80020014 mmap mapped to sid 1                s      9     0    -       -", [9, 0, 0, 0]),
    ("  8c060c  80020014 rmap mapped to sid 1                s      8     0    -       -", [8, 0, 0, 0]),
    ("  8c060c        - pers /dev/hd2:176297              s     11     0    -       -", [11, 0, 0, 0]),
])
def test_segment_rows_are_read_from_both_ends(row, values):
    p = one(PID_HEADER + PROC + SEG_HEADER + row + "\n")
    assert (p.segment_pages, p.segment_count) == ({"s": values}, 1)


def test_dash_values_are_none_and_the_row_sums():
    p = one(PID_HEADER + PROC + SEG_HEADER +
            "  1486151        - clnt /dev/hd2:137980              s      5     1    -       -\n"
            "  1486152        - work                              s      7     2    3       -\n"
            "  1486153        - work                              s      6     2    -       4\n")
    assert p.segment_pages == {"s": [18, 5, 3, 4]}


def test_old_format_address_ranges_and_continuations_are_skipped():
    text = "     Pid Command        Inuse      Pin     Pgsp  Virtual   64-bit    Mthrd\n" \
           "   25084 AppS           78907     1570      182    67840        N        Y\n" \
           "  Vsid     Esid Type Description           Inuse   Pin Pgsp Virtual Addr Range\n" \
           " 2c7ea        3 work text data BSS heap    36678     0    0 36656   0..65513\n" \
           "     0        0 work kernel seg             4218  1552  182  3602   0..22017 :\n" \
           "                                                                    65474..65535\n" \
           " 5cd36        5 work text data BSS heap      46     0    0    46   0..65517 : 1..2\n" \
           "  cac3        - pers /dev/hd2:176297        1159     0    -     -   0..1158\n" \
           "               source(s)=/dev/hd2:176297\n"
    p = one(text)
    assert (p.segment_count, p.heap_segments, p.large_page_mode) == (4, 2, "unknown")
    assert p.segment_pages == {}    # no PSize column
    assert p.by_psize() == {"4K": {"inuse": 78907 * P4K, "pin": 1570 * P4K, "pgsp": 182 * P4K, "virtual": 67840 * P4K}}


def test_heap_segments_are_work_segments_described_text_data_bss_heap():
    rows = ["   830bc3       16 work text data BSS heap           L     16    16    0      16",
            "   830bc4       17 pers text data BSS heap           L     16    16    0      16",
            "   830bc5       18 work text data BSS                L     16    16    0      16",
            "   830bc6       19 work data text BSS heap           L     16    16    0      16",
            "   830bc7       1a work text data BSS heap, stack    L     16    16    0      16"]
    p = one(PID_HEADER + PROC + SEG_HEADER + "\n".join(rows) + "\n")
    assert (p.segment_count, p.heap_segments) == (5, 2)


def test_rule_lines_and_unit_lines_are_skipped_between_tables():
    text = "Unit: page\n" + "=" * 60 + "\n" + PID_HEADER + "-" * 60 + "\n" + PROC + "\n" + SEG_HEADER + \
        "-" * 60 + "\n" + "   df4154        - work                              s     40    12    5      41\n" + \
        "=" * 30 + "\n"
    p = one(text)
    assert (p.segment_count, p.segment_pages) == (1, {"s": [40, 12, 5, 41]})
    assert svmon_p._is_rule("----") and svmon_p._is_rule("===") and not svmon_p._is_rule("-x-")
    assert not svmon_p._is_rule("-=") and not svmon_p._is_rule("x--")


def test_several_processes_each_with_its_own_tables():
    text = PID_HEADER + PROC + SEG_HEADER + \
        "   df4154        - work                              s     40    12    5      41\n" + \
        PID_HEADER + PROC.replace("2978016 dsmsta ", "2978017 dsmserv") + \
        "     PageSize                Inuse        Pin       Pgsp    Virtual\n" \
        "     m   64 KB                  2          1          0          2\n" + SEG_HEADER + \
        "   df4155        - work                              m      2     1    0       2\n"
    a, b = svmon_p.parse(text)
    assert (a.command, a.segment_pages, a.page_sizes) == ("dsmsta", {"s": [40, 12, 5, 41]}, {})
    assert (b.command, b.segment_pages) == ("dsmserv", {"m": [2, 1, 0, 2]})
    assert b.page_sizes == {"64K": {"inuse": 2 * P64K, "pin": P64K, "pgsp": 0, "virtual": 2 * P64K}}


def test_pagesize_rows_in_the_regex_form():
    """'L 16MB' (no blank before the unit) is read by the PageSize row rule too."""
    text = PID_HEADER + PROC + "     PageSize                Inuse        Pin       Pgsp    Virtual\n" \
        "     L   16MB                   3          3          0          3\n" \
        "     not a PageSize row\n"
    p = one(text)
    assert p.page_sizes == {"16M": {"inuse": 3 * P16M, "pin": 3 * P16M, "pgsp": 0, "virtual": 3 * P16M}}


LINE = "line {no}: {line!r}"


@pytest.mark.parametrize("text,message", [
    (PID_HEADER + " 1 x 1.5 1 0 2 N Y N\n",
     "svmon -P: fractional value '1.5' without a 'Unit:' banner (line 2: ' 1 x 1.5 1 0 2 N Y N')"),
    (PID_HEADER + " 1 x 1 1 0 2 N Y\n", "svmon -P: process row has 6 fields for 7 columns (line 2: ' 1 x 1 1 0 2 N Y')"),
    (" Pid Command Inuse Pin Virtual X\n 1 x 1 1 0 2\n",
     "svmon -P: process header lacks column Pgsp (line 2: ' 1 x 1 1 0 2')"),
    (PID_HEADER + " 1 x 1 1 0 2 N Y Q\n", "svmon -P: unknown large-page mode 'Q' (line 2: ' 1 x 1 1 0 2 N Y Q')"),
    (SEG_HEADER + " 1 - work x s 1 1 1 1\n",
     f"svmon -P: segment table before any process row (line 1: {SEG_HEADER.rstrip()!r})"),
    (PID_HEADER + PROC + SEG_HEADER + " 1 - disk x s 1 1 1 1\n",
     "svmon -P: segment row without a segment type (line 4: ' 1 - disk x s 1 1 1 1')"),
    (PID_HEADER + PROC + SEG_HEADER + " 1 - work 1 1 1 1\n",
     "svmon -P: segment row too short (line 4: ' 1 - work 1 1 1 1')"),
    (PID_HEADER + PROC + SEG_HEADER + " 1 - work x Q 1 1 1 1\n",
     "svmon -P: unknown PSize 'Q' (line 4: ' 1 - work x Q 1 1 1 1')"),
    ("     PageSize                Inuse        Pin       Pgsp    Virtual\n     s    4 KB   1 1 0 1\n",
     "svmon -P: PageSize row before any process row (line 2: '     s    4 KB   1 1 0 1')"),
    (PID_HEADER + PROC + "     PageSize    Inuse  Pin\n     s    4 KB   1 1\n",
     "svmon -P: PageSize row needs Inuse Pin Pgsp Virtual (line 4: '     s    4 KB   1 1')"),
    (PID_HEADER + PROC + "     PageSize    Inuse  Pin\n     s    4 KB   1 1.5 0 1\n",
     "svmon -P: fractional value '1.5' without a 'Unit:' banner (line 4: '     s    4 KB   1 1.5 0 1')"),
])
def test_svmon_p_errors_in_full(text, message):
    with pytest.raises(ParseError) as e:
        svmon_p.parse(text)
    assert str(e.value) == message


def test_lines_outside_the_tables_are_ignored():
    """Prose, rules and PageSize-like or number-led lines before or between the tables are not rows."""
    text = "     s    4 KB                  42         12          0         40\n" \
           "   2978016 dsmsta  1 2 3 4\n" \
           "  12 processes found  1 2 3\n" + PID_HEADER + "  12 processes found 1 2 3\n" + PROC + \
           "     PageSize                Inuse        Pin       Pgsp    Virtual\n" \
           "     s    4 KB                   2          1          0          2\n" \
           "     x    4 KB                   1          1          0          1\n" \
           "     s    4 XB                   1          1          0          1\n" \
           "     m   64 KB                   3          0          0          3\n"
    p = one(text)
    assert p.page_sizes == {"4K": {"inuse": 2 * P4K, "pin": P4K, "pgsp": 0, "virtual": 2 * P4K},
                            "64K": {"inuse": 3 * P64K, "pin": 0, "pgsp": 0, "virtual": 3 * P64K}}


def test_a_header_inside_the_segment_rows_starts_its_table_again():
    text = PID_HEADER + PROC + SEG_HEADER + \
        "   df4154        - work                              s     40    12    5      41\n" + \
        "     PageSize                Inuse        Pin       Pgsp    Virtual\n" + \
        SEG_HEADER.replace("PSize ", "") + \
        "   df4155        - work  no psize here                     7     1    0       7\n"
    p = one(text)
    assert (p.segment_count, p.segment_pages) == (2, {"s": [40, 12, 5, 41]})


def test_segment_values_in_a_unit_report_are_in_that_unit():
    text = "Unit: MB\n" + PID_HEADER.replace(" 64-bit Mthrd  16MB", "") + " 1 dsmserv 2.5 1 0 3\n" + \
        SEG_HEADER + "   df4154        - work                              s   1.25  0.5  0.25   2.75\n"
    p = one(text + "   df4155        - work                              L      32   32    -      32\n")
    mb = 1 << 20
    assert p.segment_pages == {"s": [1.25 * 256, 0.5 * 256, 0.25 * 256, 2.75 * 256], "L": [2, 2, 0, 2]}
    assert p.by_psize() == {"4K": {"inuse": 1.25 * mb, "pin": 0.5 * mb, "pgsp": 0.25 * mb, "virtual": 2.75 * mb},
                            "16M": {"inuse": 32 * mb, "pin": 32 * mb, "pgsp": 0, "virtual": 32 * mb}}


@pytest.mark.parametrize("row,message", [
    ("  8c060c", "segment row without a segment type"),
    ("  8c060c  work", "segment row too short"),
    ("  8c060c  * -", "segment row without a segment type"),
    ("  8c060c  * - work", "segment row too short"),
    ("  8c060c  -  work", "segment row too short"),
])
def test_short_segment_rows_are_errors_naming_the_rule(row, message):
    with pytest.raises(ParseError) as e:
        svmon_p.parse(PID_HEADER + PROC + SEG_HEADER + row + "\n")
    assert str(e.value) == f"svmon -P: {message} (line 4: {row!r})"


def test_heap_segments_whatever_the_esid_form():
    rows = ["   830bc3  work text data BSS heap                   L     16    16    0      16",
            "   830bc4  * - work text data BSS heap               L     16    16    0      16",
            "   830bc5       16 work text data BSS heap           L     16    16    0      16"]
    p = one(PID_HEADER + PROC + SEG_HEADER + "\n".join(rows) + "\n")
    assert (p.segment_count, p.heap_segments, p.segment_pages) == (3, 3, {"L": [48, 48, 0, 48]})


def test_repeated_reports_each_with_its_unit_banner():
    """svmon -P PID -i N repeats the whole report, its Unit: banner included."""
    report = "Unit: page\n" + "-" * 60 + "\n" + PID_HEADER + PROC + "\n" + SEG_HEADER + \
        "   df4154        - work                              s     40    12    5      41\n"
    a, b = svmon_p.parse(report + report.replace(" 40    12    5      41", " 44    12    5      45"))
    assert (a.segment_pages, b.segment_pages) == ({"s": [40, 12, 5, 41]}, {"s": [44, 12, 5, 45]})
