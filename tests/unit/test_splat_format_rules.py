"""splat: each format rule of the parser's docstring, on its own, in splat's own layout
(tests/fixtures/splat, ../shared/corpus/splat): lock type letters and detail kinds, the window,
rule lines, N/A cells, the block pass over function rows and the line-by-line path, lock detail
names and the errors for a cut report."""
import pytest

from aix_exporter.parsers import ParseError, splat

LOCK_HEADER = """\
                        T Acqui-        Wait
                        y sitions        or                      Locks or      Percent Holdtime
Lock Names,             p or           Trans-                     Passes   Real     Real     Comb
Class, or Address       e Passes Spins  form    %Miss   %Total   / CSec    CPU      Elapse   Spin
**********************  * ****** ***** ****     *****   ******  *********  *******  ******   *******
"""


def lock_row(name, letter, acq=10, spins="1", miss="2.5000", total="1.0000"):
    return f"{name:<24}{letter} {acq:<6} {spins:<5} 0        {miss}  {total}  100.000  0.1000   0.2000  0.0100\n"


def test_every_lock_type_letter_of_the_per_lock_summary():
    letters = {"Q": "runq", "S": "simple", "D": "disabled_simple", "C": "complex", "M": "mutex",
               "V": "condvar", "L": "rwlock", "E": "simple", "K": "krlock", "Z": "Z"}   # unknown: the letter
    text = LOCK_HEADER + "".join(lock_row(f"LOCK_{c}", c, acq=i + 1) for i, c in enumerate(letters)) + "*" * 40 + "\n"
    rep = splat.parse(text)
    assert [(lk.name, lk.type, lk.acquisitions) for lk in rep.locks] == [
        (f"LOCK_{c}", t, i + 1) for i, (c, t) in enumerate(letters.items())]


def test_n_a_cells_of_a_lock_row():
    """N/A spins stay unknown (None); N/A %Miss and %Total read as 0."""
    rep = splat.parse(LOCK_HEADER + lock_row("L1", "M", spins="N/A", miss="N/A", total="N/A"))
    lk = rep.locks[0]
    assert (lk.spins, lk.miss_percent, lk.total_percent) == (None, 0.0, 0.0)
    rep = splat.parse(LOCK_HEADER + lock_row("L1", "M", spins="7", miss="3.5000", total="4.2500"))
    assert (rep.locks[0].spins, rep.locks[0].miss_percent, rep.locks[0].total_percent) == (7, 3.5, 4.25)


def test_the_per_lock_table_ends_at_a_line_that_is_not_a_row():
    text = LOCK_HEADER + lock_row("L1", "S") + "Some other text: here\n" + lock_row("L2", "S")
    assert [lk.name for lk in splat.parse(text).locks] == ["L1"]


def test_the_closing_star_rule_ends_the_per_lock_table():
    """After the closing rule a gross-summary line is read as one (it is only read outside tables)."""
    text = LOCK_HEADER + lock_row("L1", "S") + "*" * 60 + "\n" + \
        "          Simple:      262        250          844021        168798.5113       0.051733\n"
    rep = splat.parse(text)
    assert [lk.name for lk in rep.locks] == ["L1"] and rep.gross == {"simple": 844021}


def test_per_lock_row_errors_name_the_line():
    with pytest.raises(ParseError) as e:
        splat.parse(LOCK_HEADER + lock_row("L1", "S", acq="1.5"))
    assert str(e.value).startswith("splat: per-lock row's acquisitions '1.5' is not a whole number (line 6: ")
    short = "L1                      S 10     1     0        2.5000  1.0000  100.000  0.1000   0.2000\n"
    with pytest.raises(ParseError) as e:
        splat.parse(LOCK_HEADER + short)
    assert str(e.value) == f"splat: per-lock row has 10 fields, expected 11 (line 6: {short.rstrip()!r})"


@pytest.mark.parametrize("label,kind", [
    ("AIX SIMPLE Lock", "simple"), ("AIX COMPLEX Lock", "complex"), ("PThread MUTEX", "mutex"),
    ("PThread CONDVAR", "condvar"), ("PThread RWLOCK", "rwlock"), ("AIX RUNQ Lock", "runq"),
    ("AIX KRLOCK Lock", "krlock"), ("AIX Other Lock", "unknown")])
def test_lock_detail_kinds(label, kind):
    text = f"[{label}]    ADDRESS: 00000000F0154CD0\n" \
           "sitions  |  Rate  Count  Count  Count  |CPU      Elapsed  |  CPU  Elapsed  Spin  Wait\n" \
           "12       |  4.000 0      0      0      |0.000006 0.000006 |  0.00   0.00   0.00  0.00\n"
    d = splat.parse(text).details[0]
    assert (d.name, d.type, d.acquisitions, d.miss_percent) == ("00000000F0154CD0", kind, 12, 4.0)


DETAIL_BODY = """\
         |                             |                  | Percent Held ( 26.235284s )
Type     |  Miss  Spin   Wait   Busy   |    Secs Held     |  Real  Real    Comb  Real
Enabled  |  Rate  Count  Count  Count  |CPU      Elapsed  |  CPU  Elapsed  Spin  Wait
         |  0.438 57     2658   12     |0.022852 0.032960 |  0.04   0.13   0.00   0.00
--------------------------------------------------------------------------------------
Total Acquisitions:   2498 |SpinQ   Min   Max   Avg  | WaitQ    Min   Max   Avg
"""


def test_a_lock_detail_is_named_by_its_class_else_by_its_address_even_on_the_next_line():
    rep = splat.parse("[AIX SIMPLE Lock]   CLASS:   PROC_INT_CLASS.00000004\nADDRESS: 000000000200786C\n" + DETAIL_BODY)
    d = rep.details[0]
    assert (d.name, d.type, d.acquisitions, d.miss_percent) == ("PROC_INT_CLASS.00000004", "simple", 2498, 0.438)
    rep = splat.parse("[AIX SIMPLE Lock]   ADDRESS:\n  ADDRESS: 000000000200786C\n" + DETAIL_BODY)
    assert rep.details[0].name == "000000000200786C"
    # a line that merely starts with ADDRESS: text is not the address line
    rep = splat.parse("[AIX SIMPLE Lock]   ADDRESS:\nADDRESS:X 1\n  ADDRESS: 0A\n" + DETAIL_BODY)
    assert rep.details[0].name == "0A"
    # the window comes from the first detail's Percent Held without an execution summary
    assert rep.window_seconds == 26.235284


def test_lock_detail_errors():
    with pytest.raises(ParseError) as e:
        splat.parse("[AIX SIMPLE Lock]   CLASS:\n" + DETAIL_BODY)
    assert str(e.value) == "splat: lock detail without a class or address"
    with pytest.raises(ParseError) as e:
        splat.parse("[AIX SIMPLE Lock]   ADDRESS: 0A\nTotal Acquisitions:   2498 |\n")
    assert str(e.value) == "splat: lock detail 0A has no data row (report cut?)"


def test_total_acquisitions_line_only_in_a_detail_and_only_at_its_start():
    rep = splat.parse("[AIX SIMPLE Lock]   ADDRESS: 0A\n" + DETAIL_BODY.replace("2498", "3000"))
    assert rep.details[0].acquisitions == 3000
    # the detail's data row counts when its first cell is a number; Total Acquisitions overrides
    body = DETAIL_BODY.replace("         |  0.438", "99       |  0.438")
    assert splat.parse("[AIX SIMPLE Lock]   ADDRESS: 0A\n" + body).details[0].acquisitions == 2498
    without_total = body.replace("Total Acquisitions:   2498 |", "Totals:  2498 |")
    assert splat.parse("[AIX SIMPLE Lock]   ADDRESS: 0A\n" + without_total).details[0].acquisitions == 99


def test_the_execution_summary_window_wins_over_percent_held():
    text = "Elapsed Real Time: 5.000412\n[AIX SIMPLE Lock]   ADDRESS: 0A\n" + DETAIL_BODY
    assert splat.parse(text).window_seconds == 5.000412
    assert splat.parse("Elapsed Real Time: 7\n").window_seconds == 7.0   # the summary alone is a report
    assert splat.parse("  Elapsed Real Time:  12.5  \n").window_seconds == 12.5
    # only a line that is the summary's: other lines naming it are not the window
    with pytest.raises(ParseError, match="no splat section"):
        splat.parse("Elapsed Real Time: about 5 s\n")


@pytest.mark.parametrize("line,rule", [("*****", True), ("== == ==", True), ("^^^^ ^^^", True), ("~~~ ~", True),
                                       ("+++", True), ("-=-=", True), ("**\t**", True), ("abc", False),
                                       ("X", False), ("** a **", False)])
def test_rule_lines(line, rule):
    assert splat._is_rule(line) is rule


def test_function_stats_start_at_zero():
    f = splat.FunctionStats("f")
    assert (f.acquisitions, f.misses, f.spin_count, f.miss_ratio) == (0, 0.0, 0, 0.0)
    assert splat.FunctionStats("g", 200, 50.0, 3).miss_ratio == 0.25
    rep = splat.SplatReport()
    assert (rep.window_seconds, rep.locks, rep.functions, rep.gross, rep.details) == (None, [], {}, {}, [])


FUNC_HEADER = """\
                  Acqui-   Miss  Spin   Transf.  Busy    Percent Held of Total Time
Function Name    sitions   Rate  Count  Count   Count    CPU   Elapse  Spin   Transf.  Return Address   Start Address    Offset
"""
UNDERLINE = "^^^^^^^^^^^^^^^  ^^^^^^^^ ^^^^^^ ^^^^^^ ^^^^^^^ ^^^^^^  ^^^^^^ ^^^^^^ ^^^^^^ ^^^^^^^  ^^^^^^^^^^^^^^^^\n"
ROW_A = ".pin_seg_range     75968  25.18  25569  0       0         4.95   8.41   0.62   0.00    0000000000072A44 0000000000072800 00000244\n"  # noqa: E501 (splat's own row)
ROW_B = ".xlpin              6040   9.51    635  0       0         0.38   0.66   0.02   0.00\n"


def test_function_rows_in_one_block_pass():
    lines = (FUNC_HEADER + UNDERLINE + ROW_A + ROW_B).splitlines()
    assert splat._function_rows(lines, 2, 5) == [(".pin_seg_range", "75968", "25.18", "25569"),
                                                 (".xlpin", "6040", "9.51", "635")]
    assert splat._function_rows(lines, 3, 5) == [(".pin_seg_range", "75968", "25.18", "25569"),
                                                 (".xlpin", "6040", "9.51", "635")]
    assert splat._function_rows(lines, 2, 4) == [(".pin_seg_range", "75968", "25.18", "25569")]
    assert splat._function_rows([ROW_B.rstrip() + " 1.0"], 0, 1) == [(".xlpin", "6040", "9.51", "635")]
    # a row with a seventh number after spin count is still a row; a row short of one is not
    assert splat._function_rows([".f 1 2.0 3 4 5 6 7 8"], 0, 1) is None
    assert splat._function_rows([".f 1 2.0 3 4 5 6 7 8 9"], 0, 1) == [(".f", "1", "2.0", "3")]
    # any other line declines the block: the line-by-line path decides
    assert splat._function_rows((UNDERLINE + ROW_A + UNDERLINE + ROW_B).splitlines(), 0, 4) is None


def test_function_rows_line_by_line_when_the_block_pass_declines():
    """A ^ line inside the rows (not only under the header) sends the table line by line: the
    figures are the same and the report reads on after the table's blank line."""
    text = FUNC_HEADER + UNDERLINE + ROW_A + UNDERLINE + ROW_B + "\n" + LOCK_HEADER + lock_row("L1", "S")
    rep = splat.parse(text)
    assert [(f.name, f.acquisitions, f.spin_count) for f in rep.functions.values()] == [
        (".pin_seg_range", 75968, 25569), (".xlpin", 6040, 635)]
    assert rep.functions[".xlpin"].misses == pytest.approx(6040 * 0.0951)
    assert [lk.name for lk in rep.locks] == ["L1"]
    plain = splat.parse(FUNC_HEADER + UNDERLINE + ROW_A + ROW_B + "\n" + LOCK_HEADER + lock_row("L1", "S"))
    assert plain.functions == rep.functions and plain.locks == rep.locks
    with pytest.raises(ParseError) as e:
        splat.parse(FUNC_HEADER + UNDERLINE + ROW_A + ".xlpin  6040  9.51\n")
    assert str(e.value) == "splat: function detail row needs 9 numeric fields (line 5: '.xlpin  6040  9.51')"


def test_inert_blocks():
    assert splat._inert("   19661287     23465    32.47 11281 0       0      16.89  1.73")
    for anchor in ("[AIX SIMPLE Lock]", "%Miss", "Function Name", "Elapsed Real Time", "Percent Held ("):
        assert not splat._inert("1 2 3\n" + anchor)


THREADS = """\
             Acqui-     Miss  Spin   Wait   Busy        Percent Held of Total Time
 PThreadID   sitions    Rate  Count  Count  Count     CPU     Elapse    Spin     Wait
 ~~~~~~~~~~  ~~~~~~~~  ~~~~~~ ~~~~~~ ~~~~~~ ~~~~~~   ~~~~~~   ~~~~~~   ~~~~~~   ~~~~~~
         1         1    0.00      0      0      0     0.00     0.00     0.00     0.00
"""


@pytest.mark.parametrize("head", ["PThreadID", "ThreadID"])
def test_a_thread_table_is_skipped_and_a_section_right_after_it_is_read(head):
    threads = THREADS.replace(" PThreadID", f" {head:>9}")
    text = "[PThread MUTEX]  ADDRESS: 0A\n" + DETAIL_BODY + threads + "\n" + \
        "          Mutex:       17         15           44011          8801.9469       0.000000\n"
    rep = splat.parse(text)
    assert rep.gross == {"mutex": 44011} and [d.name for d in rep.details] == ["0A"]
    # no blank line between the table and the next lock detail: the detail is still read
    text = "[PThread MUTEX]  ADDRESS: 0A\n" + DETAIL_BODY + threads + "[PThread MUTEX]  ADDRESS: 0B\n" + DETAIL_BODY
    assert [(d.name, d.acquisitions) for d in splat.parse(text).details] == [("0A", 2498), ("0B", 2498)]


GROSS_MUTEX = "           Mutex:       17         15           44011          8801.9469       0.000000\n"


def test_the_report_reads_on_after_each_table_s_blank_line():
    """After a function table (one block pass or line by line), a thread table that names a
    section anchor, and a per-lock table ended by another line, the next section is read."""
    plain = FUNC_HEADER + UNDERLINE + ROW_A + ROW_B + "\n" + GROSS_MUTEX
    assert splat.parse(plain).gross == {"mutex": 44011}
    by_line = FUNC_HEADER + UNDERLINE + ROW_A + UNDERLINE + ROW_B + "\n" + GROSS_MUTEX
    assert splat.parse(by_line).gross == {"mutex": 44011}
    anchored = "[PThread MUTEX]  ADDRESS: 0A\n" + DETAIL_BODY + \
        THREADS.replace("         1         1    0.00", "[1]       1         1    0.00") + "\n" + GROSS_MUTEX
    rep = splat.parse(anchored)
    assert rep.gross == {"mutex": 44011} and [d.name for d in rep.details] == ["0A"]
    ended = LOCK_HEADER + lock_row("L1", "S") + "Some other text\n" + GROSS_MUTEX
    assert splat.parse(ended).gross == {"mutex": 44011}


def test_the_window_falls_back_to_the_first_detail_s_percent_held():
    second = "[AIX SIMPLE Lock]   ADDRESS: 0B\n" + DETAIL_BODY.replace("26.235284s", "35.568534s")
    rep = splat.parse("[AIX SIMPLE Lock]   ADDRESS: 0A\n" + DETAIL_BODY + second)
    assert rep.window_seconds == 26.235284 and [d.name for d in rep.details] == ["0A", "0B"]
