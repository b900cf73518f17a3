"""vmstat: each format rule of the parser's docstring on its own, in vmstat's own layout
(tests/fixtures/vmstat, ../shared/corpus/vmstat*): the configuration line, the header rule,
``hr mi se``, the headerless rule, and every error message in full."""
import pytest

from aix_exporter.parsers import ParseError, vmstat

HEADER = " r  b   avm   fre  re  pi  po  fr   sr  cy  in   sy  cs us sy id wa"
ROW = " 1  0 148162 1649286   0   0   0   0    0   0 100 2000 300 11 22 66  1"


@pytest.mark.parametrize("mem,size", [("4096MB", 4096 << 20), ("2048", 2048 << 20), ("64GB", 64 << 30),
                                      ("1TB", 1 << 40), ("524288KB", 512 << 20), ("1.5GB", 3 << 29),
                                      ("16gb", 16 << 30)])
def test_configuration_mem_units(mem, size):
    rec = vmstat.parse(f"System configuration: lcpu=8 mem={mem} ent=0.20\n{HEADER}\n{ROW}\n")
    assert rec.config == {"lcpu": 8, "mem_bytes": size, "ent": 0.2}


def test_configuration_numbers_and_other_items():
    rec = vmstat.parse(f"System Configuration: lcpu=16 drives=2 psize=4 smt=4 ent=1.50 mode=Uncapped "
                       f"ame=x=y\n{HEADER}\n{ROW}\n")
    assert rec.config == {"lcpu": 16, "drives": 2, "psize": 4, "smt": 4, "ent": 1.5, "mode": "Uncapped", "ame": "x=y"}


@pytest.mark.parametrize("config,message", [
    ("lcpu=8 mem", "vmstat: System configuration item without '='"),
    ("lcpu=8 mem=lots", "vmstat: unreadable mem= value 'lots'"),
    ("lcpu=eight", "vmstat: unreadable lcpu= value 'eight'"),
    ("drives=x", "vmstat: unreadable drives= value 'x'"),
    ("psize=x", "vmstat: unreadable psize= value 'x'"),
    ("smt=on", "vmstat: unreadable smt= value 'on'"),
])
def test_configuration_errors_in_full(config, message):
    line = f"System configuration: {config}"
    with pytest.raises(ParseError) as e:
        vmstat.parse(f"{line}\n{HEADER}\n{ROW}\n")
    assert str(e.value) == f"{message} (line 1: {line!r})"


@pytest.mark.parametrize("header,columns", [
    ("r b avm fre", ["r", "b", "avm", "fre"]),
    ("r b us sy id wa", ["r", "b", "us", "sy", "id", "wa"]),
    ("r b avm fre in sy cs us sy", ["r", "b", "avm", "fre", "in", "syscalls", "cs", "us", "sy"]),
    ("r b avm fre us sy hr mi se", ["r", "b", "avm", "fre", "us", "sy", "time"]),
    ("r b avm fre hr mi se us sy", ["r", "b", "avm", "fre", "time", "us", "sy"]),
    ("r b avm", None), ("r b fre", None), ("r b us id", None), ("r b sy id", None), ("b r avm fre", None),
    ("r b avm fre fre", None), ([], None),
])
def test_the_header_rule(header, columns):
    tokens = header.split() if isinstance(header, str) else header
    assert vmstat._header_columns(tokens) == columns


def test_time_column_from_hr_mi_se_is_checked_on_every_row():
    head = HEADER + "  hr mi se"
    rec = vmstat.parse(f"{head}\n{ROW} 10:00:01\n{ROW} 10:00:02\n")
    assert rec.columns[-1] == "time" and rec.row["time"] == "10:00:02" and rec.rows == 2
    with pytest.raises(ParseError) as e:
        vmstat.parse(f"{head}\n{ROW} 100002\n{ROW} 10:00:02\n")
    assert str(e.value) == f"vmstat: bad time field '100002' (line 2: {ROW + ' 100002'!r})"
    # a row that is neither numbers nor a time is a banner or prompt, not a row
    rec = vmstat.parse(f"{head}\n{ROW} 10:00\n{ROW} 10:00:02\n")
    assert rec.rows == 1


def test_mem_out_of_range():
    with pytest.raises(ParseError) as e:
        vmstat.parse("System configuration: lcpu=4 mem=" + "9" * 400 + "MB\n" + HEADER + "\n" + ROW + "\n")
    assert str(e.value).startswith("vmstat: mem= value '" + "9" * 400 + "MB' out of range (line 1: ")


@pytest.mark.parametrize("bad_row_first", [True, False])
def test_every_row_must_have_the_header_s_field_count(bad_row_first):
    short = " 1  0 148162"
    rows = [short, ROW] if bad_row_first else [ROW, short]
    with pytest.raises(ParseError) as e:
        vmstat.parse("\n".join([HEADER] + rows) + "\n")
    assert str(e.value) == f"vmstat: row has 3 fields, header has 17 (line {2 if bad_row_first else 3}: {short!r})"


def test_headerless_rows_count_and_time_field():
    rec = vmstat.parse(f"{ROW}\n{ROW}\n{ROW.replace(' 11 22 ', ' 12 23 ')}\n")
    assert rec.rows == 3 and rec.columns == vmstat.DEFAULT_COLUMNS and (rec.row["us"], rec.row["sy"]) == (12, 23)
    rec = vmstat.parse(f"{ROW} 10:00:09\n")
    assert rec.columns == vmstat.DEFAULT_COLUMNS + ["time"] and rec.row["time"] == "10:00:09"
    rec = vmstat.parse(f"{ROW}  0.09  28.4 10:00:09\n")
    assert rec.columns == vmstat.SHARED_COLUMNS + ["time"] and rec.row["ec"] == 28.4
    assert vmstat._default_layout(ROW.split() + ["1"]) is None
    assert vmstat._default_layout(ROW.split()[:-1] + ["10:00:09"]) is None
    assert vmstat._default_layout([]) is None
    rec = vmstat.VmstatRecord()
    assert (rec.config, rec.columns, rec.row, rec.rows) == ({}, [], {}, 0)


@pytest.mark.parametrize("text", [
    f"System configuration: lcpu=8 mem=4096MB\nkthr memory\n{ROW}\n",
    f"kthr memory\n{ROW}\n",
    f"System configuration: lcpu=8 mem=4096MB\n{ROW}\n",
])
def test_headerless_only_when_every_line_is_a_data_row(text):
    with pytest.raises(ParseError) as e:
        vmstat.parse(text)
    assert str(e.value) == "vmstat: no column header line (r b avm fre ...) found"


def test_headerless_errors_in_full():
    with pytest.raises(ParseError) as e:
        vmstat.parse(" 8  0 4343133 888077   0   0\n")
    assert str(e.value) == "vmstat: headerless row with 6 fields matches no default layout (line 1: ' 8  0 4343133 888077   0   0')"
    with pytest.raises(ParseError) as e:
        vmstat.parse(f"{HEADER}\n")
    assert str(e.value) == "vmstat: header without data rows"


def test_a_time_where_the_header_has_a_number_is_an_error_in_any_row():
    timed = ROW.rsplit(" ", 1)[0] + " 10:00:01"
    with pytest.raises(ParseError) as e:
        vmstat.parse(f"{HEADER}\n{timed}\n{ROW}\n")
    assert str(e.value) == f"vmstat: not a number: '10:00:01' (line 2: {timed!r})"


def test_a_short_row_under_a_header_with_a_time_column():
    with pytest.raises(ParseError) as e:
        vmstat.parse(f"{HEADER}  hr mi se\n 1 0 5 10:00:01\n")
    assert str(e.value) == "vmstat: row has 4 fields, header has 18 (line 2: ' 1 0 5 10:00:01')"
