"""errpt -a, errpt and errpt -t (parsers/errpt.py, issue 60): each entry's label, class, type,
resource and sequence; a damaged entry skipped and counted; the summary and template rows."""
import datetime as dt

import pytest

from aix_exporter.parsers import ParseError, errpt
from tests.conftest import fixture_text


def test_each_entry_of_a_detailed_report_newest_first():
    r = errpt.parse(fixture_text("errpt", "tape-cleaning-and-media.txt"))
    assert (r.skipped, r.first_problem) == (0, "")
    assert [(e.label, e.sequence, e.error_class, e.error_type, e.resource, e.resource_class, e.description)
            for e in r.entries] == [
        ("TAPE_ERR6", 1042, "H", "TEMP", "rmt3", "tape", "TAPE DRIVE NEEDS CLEANING"),
        ("TAPE_ERR1", 1041, "H", "PERM", "rmt5", "tape", "TAPE OPERATION ERROR"),
        ("ERRLOG_ON", 1040, "O", "TEMP", "errdemon", "", "ERROR LOGGING TURNED ON")]
    assert (r.entries[0].time, r.entries[0].zone) == (dt.datetime(2026, 11, 24, 3, 12, 44), "CET")
    assert errpt.newest(list(reversed(r.entries))).sequence == 1042


def test_a_damaged_entry_is_skipped_and_counted_and_the_others_read():
    r = errpt.parse(fixture_text("errpt", "one-damaged-entry.txt"))
    assert [e.sequence for e in r.entries] == [1042, 1041, 1040]
    assert r.skipped == 1
    assert r.first_problem == "entry TAPE_ERR2: Type 'SOMETIMES' is not one of PERM, TEMP, PERF, PEND, INFO, UNKN"


@pytest.mark.parametrize("change, why", [
    (("Sequence Number: 1042", "Sequence Number: 10x2"), "Sequence Number '10x2' is not a number"),
    (("Class:           H", "Class:           X"), "Class 'X' is not H, S, O or U"),
    (("IDENTIFIER:     0000E6E6", "IDENTIFIER:     0000E6E"), "IDENTIFIER '0000E6E' is not 8 hex digits"),
    (("Tue Nov 24 03:12:44 CET 2026", "24.11.2026 03:12"), "Date/Time '24.11.2026 03:12' is not Www Mmm dd"),
    (("Resource Name:   rmt3", "Resource Name:   "), "no Resource Name"),
])
def test_each_required_field_is_checked(change, why):
    text = fixture_text("errpt", "tape-cleaning-and-media.txt").replace(*change, 1)
    r = errpt.parse(text)
    assert r.skipped == 1 and why in r.first_problem and len(r.entries) == 2


def test_text_before_the_first_entry_is_an_error_and_an_empty_log_is_no_entry():
    with pytest.raises(ParseError) as e:
        errpt.parse(fixture_text("errpt", "text-before-the-first-entry.txt"))
    assert "text before the first entry's LABEL line" in str(e.value)
    assert errpt.parse("").entries == [] and errpt.parse("\n").skipped == 0


def test_the_summary_and_the_template_rows():
    rows = errpt.parse_summary("IDENTIFIER TIMESTAMP  T C RESOURCE_NAME  DESCRIPTION\n"
                               "4865FA9B   1124025826 P H rmt5           TAPE OPERATION ERROR\n")
    assert [(r.identifier, r.time, r.type_letter, r.error_class, r.resource, r.description) for r in rows] == [
        ("4865FA9B", dt.datetime(2026, 11, 24, 2, 58), "P", "H", "rmt5", "TAPE OPERATION ERROR")]
    with pytest.raises(ParseError):
        errpt.parse_summary("4865FA9B   1324025826 P H rmt5 TAPE OPERATION ERROR\n")   # month 13
    templates = errpt.parse_templates("4865FA9B TAPE_ERR1           PERM H  TAPE OPERATION ERROR\n")
    assert [(t.identifier, t.label, t.error_type, t.error_class) for t in templates] == [
        ("4865FA9B", "TAPE_ERR1", "PERM", "H")]
