"""svmon -G: each format rule of the parser's docstring on its own, in svmon's own layout
(tests/fixtures/svmon_g, ../shared/corpus/svmon-G*): units, the memory header and mode, the
segment table, PageSize rows, -i repeats, -O summary=longreal, and every error in full."""
import pytest

from aix_exporter.parsers import ParseError, svmon_g

MEM = "               size       inuse        free         pin     virtual   mmode\n" \
      "memory     16777216    12400512     4376704     5226496     9871360     Ded\n"
PG = "pg space     4194304       81920\n"   # the row every svmon -G table layout prints next
# the pool rows every svmon -G of AIX 6.1 on prints last (a report with mmode or other without them was cut)
PS = "PageSize   PoolSize       inuse        pgsp         pin     virtual\n" \
     "s    4 KB          -    12400512       81920     5226496     9871360\n"
SEGS = "               work        pers        clnt       other\n" \
       "pin         2011648           0           0      594432\n" \
       "in use      9871360           0     2529152\n"


@pytest.mark.parametrize("unit,bytes_per,name", [("KB", 1 << 10, "kb"), ("MB", 1 << 20, "mb"), ("GB", 1 << 30, "gb"),
                                                 ("page", 4096, "page")])
def test_unit_banner_sets_every_value_s_unit(unit, bytes_per, name):
    text = f"Unit: {unit}\n" + "-" * 40 + "\n" + \
        "               size       inuse        free         pin     virtual   available\n" \
        "memory          64.0        40.5        23.5        10.0        30.0        20.0\n" \
        "pg space        16.0         0.5\n"
    if unit == "page":
        with pytest.raises(ParseError) as e:
            svmon_g.parse(text)
        assert str(e.value) == "svmon -G: fractional value '64.0' without a 'Unit:' banner: unit unknown " \
                               "(line 4: 'memory          64.0        40.5        23.5        10.0        30.0        20.0')"
        return
    rec = svmon_g.parse(text)
    assert rec.unit == name and rec.reports == 1
    assert rec.memory == {"size": 64 * bytes_per, "inuse": 40.5 * bytes_per, "free": 23.5 * bytes_per,
                          "pin": 10 * bytes_per, "virtual": 30 * bytes_per, "available": 20 * bytes_per}
    assert rec.paging_space == {"size": 16 * bytes_per, "inuse": 0.5 * bytes_per}


def test_unsupported_unit_names_the_unit_it_read():
    with pytest.raises(ParseError) as e:
        svmon_g.parse("Unit: TB\n" + MEM)
    assert str(e.value) == "svmon -G: unsupported unit 'TB' (use page, KB, MB or GB) (line 1: 'Unit: TB')"
    with pytest.raises(ParseError) as e:
        svmon_g.parse(MEM + "\nUnit: tb\n")
    assert e.value.line_no == 4 and "unsupported unit 'tb'" in str(e.value)


def test_gb_and_mb_pagesize_rows_in_their_own_page_size():
    text = MEM + PG + "PageSize   PoolSize       inuse        pgsp         pin     virtual\n" \
        "S   16 GB         2           1           0           1           1\n" \
        "L   16 MB       160         118           0         160         118\n" \
        "m   64 KB         -         100           1           2           3\n"
    rec = svmon_g.parse(text)
    s, l, m = rec.page_sizes
    assert (s.letter, s.psize, s.page_bytes, s.pool_size, s.inuse) == ("S", "16G", 16 << 30, 2 * (16 << 30), 16 << 30)
    assert (l.letter, l.psize, l.page_bytes, l.pool_size, l.inuse, l.pin) == ("L", "16M", 16 << 20, 160 << 24, 118 << 24,
                                                                            160 << 24)
    assert (m.psize, m.pool_size, m.inuse, m.pgsp, m.pin, m.virtual) == ("64K", None, 100 << 16, 1 << 16, 2 << 16, 3 << 16)


def test_memory_rows_modes_and_segments():
    rec = svmon_g.parse(MEM + "pg space    4194304       81920\n\n" + SEGS + PS)
    assert rec.mode == "Ded" and rec.memory["size"] == 16777216 * 4096 and rec.memory["free"] == 4376704 * 4096
    assert rec.segments == {"pin": {"work": 2011648 * 4096, "pers": 0, "clnt": 0, "other": 594432 * 4096},
                            "inuse": {"work": 9871360 * 4096, "pers": 0, "clnt": 2529152 * 4096}}
    # without mmode the last field is a value, and a header without mmode takes no mode
    rec = svmon_g.parse("  size inuse free pin virtual\nmemory 10 6 4 2 5\n" + PG)
    assert rec.mode is None and rec.memory == {"size": 40960, "inuse": 24576, "free": 16384, "pin": 8192, "virtual": 20480}
    # a memory header that names a column svmon does not print is not the header
    with pytest.raises(ParseError) as e:
        svmon_g.parse("  size inuse free pin virtual bogus\nmemory 10 6 4 2 5 1\n")
    assert str(e.value) == "svmon -G: memory row without its column header (line 2: 'memory 10 6 4 2 5 1')"
    # 'memory' alone on a line is not the memory row
    rec = svmon_g.parse("memory\n  size inuse free pin virtual\nmemory 10 6 4 2 5\n" + PG)
    assert rec.memory["size"] == 40960


def test_repeated_reports_the_last_is_current():
    second = MEM.replace("4376704", "4376000")
    rec = svmon_g.parse(MEM + "pg space 4 1\n\n" + second + "pg space 8 2\n\nsize is a word here\n" + PS)
    assert rec.reports == 2 and rec.memory["free"] == 4376000 * 4096 and rec.paging_space == {"size": 8 * 4096,
                                                                                              "inuse": 2 * 4096}
    rec = svmon_g.parse(MEM + PG + PS)
    assert rec.reports == 1
    rec = svmon_g.SvmonGlobal()
    assert (rec.memory, rec.mode, rec.paging_space, rec.segments, rec.page_sizes, rec.unit, rec.reports) == (
        {}, None, {}, {}, [], "page", 0)
    # a header that is only a subset of the columns starts a report too
    rec = svmon_g.parse(MEM + PG + "size inuse free pin virtual mmode available\nmemory 1 1 0 1 1 2 Shar\n" + PG + PS)
    assert rec.reports == 2 and rec.mode == "Shar" and rec.memory["available"] == 8192


def test_rules_and_other_lines_are_ignored_between_tables():
    text = "-" * 50 + "\n" + MEM + PG + "---- ----\n" + "-\n" + SEGS + "Some later section\n" + PS
    rec = svmon_g.parse(text)
    assert rec.memory["size"] == 16777216 * 4096 and rec.segments["pin"]["other"] == 594432 * 4096


def test_pagesize_rows_only_under_the_pagesize_header():
    row = "L   16 MB       160         118           0         160         118\n"
    assert svmon_g.parse(MEM.replace("mmode", "") .replace("Ded", "") + PG + row).page_sizes == []
    assert svmon_g.parse(row + MEM.replace("mmode", "").replace("Ded", "") + PG).page_sizes == []
    assert len(svmon_g.parse(MEM + PG + "PageSize PoolSize inuse pgsp pin virtual\n" + row).page_sizes) == 1
    # a new table after the PageSize table ends it (a header with no row left: the output was cut)
    text = MEM + PG + "PageSize PoolSize inuse pgsp pin virtual\n" + SEGS + row
    with pytest.raises(ParseError, match="a PageSize header without a page-size row: the output was cut short"):
        svmon_g.parse(text)
    text = MEM + PG + "PageSize PoolSize inuse pgsp pin virtual\n" + MEM.splitlines()[0] + "\n" + row
    assert svmon_g.parse(text + MEM.splitlines()[1] + "\n" + PG + PS).page_sizes[0].psize == "4K"


def test_longreal_summary():
    text = "Unit: MB\n" + "Memory\n" + "-" * 40 + "\n" \
           "     Size      Inuse       Free        Pin    Virtual  Available       Pgsp\n" \
           "  8192.00    6144.50    2047.50    1024.00    5000.00    3000.00    4096.00\n"
    rec = svmon_g.parse(text)
    mb = 1 << 20
    assert rec.memory == {"size": 8192 * mb, "inuse": 6144.5 * mb, "free": 2047.5 * mb, "pin": 1024 * mb,
                          "virtual": 5000 * mb, "available": 3000 * mb}
    assert rec.paging_space == {"size": 4096 * mb}
    # without Pgsp: no paging space figure
    rec = svmon_g.parse(text.replace("       Pgsp\n", "\n").replace("    4096.00\n", "\n"))
    assert rec.paging_space == {} and rec.memory["available"] == 3000 * mb
    # a numeric line without the Memory banner and Size header is not the summary
    with pytest.raises(ParseError, match="no memory row found"):
        svmon_g.parse("Unit: MB\nSize Inuse\n 1 2\n")
    with pytest.raises(ParseError, match="no memory row found"):
        svmon_g.parse("Unit: MB\nMemory\n 1 2\n")
    with pytest.raises(ParseError, match="no memory row found"):
        svmon_g.parse("Unit: MB\nMemory use\nSize Inuse\n 1 2\n")


@pytest.mark.parametrize("text,message", [
    ("memory 1 2 3 4 5\n", "svmon -G: memory row without its column header (line 1: 'memory 1 2 3 4 5')"),
    ("size inuse free pin virtual\nmemory 1 2 3 4\n",
     "svmon -G: memory row has 4 values for 5 columns (line 2: 'memory 1 2 3 4')"),
    ("size inuse free pin virtual mmode\nmemory 1 2 3 4 5 6 Ded\n",
     "svmon -G: memory row has 6 values for 5 columns (line 2: 'memory 1 2 3 4 5 6 Ded')"),
    (MEM + "pg space 4194304\n", "svmon -G: pg space row needs size and inuse (line 3: 'pg space 4194304')"),
    (MEM + "pin 1 2 3\n", "svmon -G: segment row without the work/pers/clnt header (line 3: 'pin 1 2 3')"),
    (MEM + "work pers clnt\npin 1 2 3 4\n", "svmon -G: pin row has 4 values for 3 columns (line 4: 'pin 1 2 3 4')"),
    (MEM + "work pers clnt\nin use\n", "svmon -G: inuse row has 0 values for 3 columns (line 4: 'in use')"),
    (MEM + "PageSize PoolSize inuse pgsp pin virtual\ns 4 KB - 1 2 3\n",
     "svmon -G: PageSize row needs PoolSize inuse pgsp pin virtual (line 4: 's 4 KB - 1 2 3')"),
    ("Unit: MB\nMemory\nSize Inuse Free\n 1 2\n", "svmon -G: summary row has 2 values for 3 columns (line 4: ' 1 2')"),
])
def test_svmon_g_errors_in_full(text, message):
    with pytest.raises(ParseError) as e:
        svmon_g.parse(text)
    assert str(e.value) == message


def test_a_single_segment_value_and_the_pool_size_value_itself():
    rec = svmon_g.parse(MEM + PG + "work pers clnt other\npin 5\n"
                        "PageSize PoolSize inuse pgsp pin virtual\nL 16 MB 7 1 0 1 1\n")
    assert rec.segments == {"pin": {"work": 5 * 4096}}
    assert rec.page_sizes[0].pool_size == 7 << 24


def test_a_memory_header_of_one_column_and_a_mode_only_under_mmode():
    assert svmon_g.parse("size\nmemory 5\n" + PG).memory == {"size": 5 * 4096}
    with pytest.raises(ParseError) as e:
        svmon_g.parse("size inuse free pin virtual\nmemory 1 2 3 4 Ded\n")
    assert str(e.value) == "svmon -G: not a number: 'Ded' (line 2: 'memory 1 2 3 4 Ded')"


@pytest.mark.parametrize("cut", [MEM, MEM + "\n", "Unit: KB\n" + MEM.replace("Ded", "") ])
def test_a_report_cut_after_its_memory_row_is_refused_not_served_in_part(cut):
    """Hostile round 3 (issue 45): svmon -G cut after its first rows served 8 of 28 series with
    success 1; every table layout prints the pg space row next, so without it the output was cut."""
    with pytest.raises(ParseError) as e:
        svmon_g.parse(cut)
    assert str(e.value) == "svmon -G: no 'pg space' row after the memory row: the output was cut short"
    assert svmon_g.parse(cut + PG + PS).paging_space["size"] > 0


def test_a_pagesize_header_without_a_row_is_refused():
    with pytest.raises(ParseError) as e:
        svmon_g.parse(MEM + PG + "PageSize   PoolSize       inuse        pgsp         pin     virtual\n")
    assert str(e.value) == "svmon -G: a PageSize header without a page-size row: the output was cut short"


@pytest.mark.parametrize("cut", [MEM + PG, MEM + PG + "\n" + SEGS, "\n" + MEM + PG + SEGS + "\n"])
def test_a_report_of_aix_61_on_without_its_pool_rows_is_refused(cut):
    """Issue 57, item 6: svmon -G cut after its third line (or after 'in use') served 8 of 28
    series with success 1. AIX 6.1 on (mmode, other) always prints the PageSize table."""
    with pytest.raises(ParseError) as e:
        svmon_g.parse(cut)
    assert str(e.value) == "svmon -G: a report without its PageSize table (its pool rows): the output was cut short"
    assert svmon_g.parse(cut + PS).page_sizes[0].inuse == 12400512 * 4096
    # the AIX 5.3 layout (no mmode, no other) and -O reports may have none
    old = MEM.replace("mmode", "").replace("Ded", "") + PG + SEGS.replace("other", "").replace("      594432", "")
    assert svmon_g.parse(old).page_sizes == []
    assert svmon_g.parse("Unit: KB\n" + MEM + PG).page_sizes == []
