"""The dates and times of an nmon recording (importers/nmon/dates.py), each form nmon writes
and each refusal, with the values and messages written out by hand, and the clock across
Europe/Paris's DST changes of 2026 (29 March: 02:00 to 03:00; 25 October: 03:00 to 02:00)."""
import datetime as dt

import pytest

from aix_exporter.importers.nmon.dates import Clock, parse_aaa_date, parse_zzzz_date, zone
from aix_exporter.importers.nmon.records import NmonError


@pytest.mark.parametrize("value,order,date", [
    ("10-FEB-2016", None, dt.date(2016, 2, 10)),
    ("3-feb-2016", None, dt.date(2016, 2, 3)),           # one digit, lower case
    (" 10-FEB-2016 ", "mdy", dt.date(2016, 2, 10)),      # a month name needs no order
    ("13/04/11", None, dt.date(2011, 4, 13)),            # only day/month is a date
    ("04/13/11", None, dt.date(2011, 4, 13)),            # only month/day is a date
    ("05/05/11", None, dt.date(2011, 5, 5)),             # both readings the same day
    ("03/04/11", "dmy", dt.date(2011, 4, 3)),
    ("03/04/11", "mdy", dt.date(2011, 3, 4)),
    ("13.04.2011", None, dt.date(2011, 4, 13)),
    ("13-04-2011", None, dt.date(2011, 4, 13)),
    ("01/13/99", None, dt.date(2099, 1, 13)),            # two-digit years are 20YY
    ("01/13/00", None, dt.date(2000, 1, 13)),
])
def test_each_aaa_date_form(value, order, date):
    assert parse_aaa_date(value, order) == date


@pytest.mark.parametrize("value,order,message", [
    ("31-FEB-2016", None, "AAA,date '31-FEB-2016': no such day"),
    ("2011-04-03", None, "AAA,date '2011-04-03': not a date nmon writes (DD-MON-YYYY, DD/MM/YY or MM/DD/YY)"),
    ("10-XYZ-2016", None, "AAA,date '10-XYZ-2016': not a date nmon writes (DD-MON-YYYY, DD/MM/YY or MM/DD/YY)"),
    ("32/13/11", None, "AAA,date '32/13/11': no valid date in either day/month order"),
    ("03/04/11", None, "AAA,date '03/04/11' reads as 2011-04-03 (dmy) or 2011-03-04 (mdy): say which with "
                       "--date-order dmy|mdy"),
    ("13/04/11", "mdy", "AAA,date '13/04/11' is not a valid date in mdy order"),
    ("04/13/11", "dmy", "AAA,date '04/13/11' is not a valid date in dmy order"),
])
def test_each_aaa_date_refusal_says_why(value, order, message):
    with pytest.raises(NmonError) as e:
        parse_aaa_date(value, order)
    assert str(e.value) == message


def test_zzzz_dates_and_zones():
    assert parse_zzzz_date("02-NOV-2026") == dt.date(2026, 11, 2)
    assert parse_zzzz_date("2-nov-2026") == dt.date(2026, 11, 2)
    for bad in ("02/11/2026", "02-XYZ-2026"):
        with pytest.raises(NmonError) as e:
            parse_zzzz_date(bad)
        assert str(e.value) == f"ZZZZ date {bad!r}: expected DD-MON-YYYY"
    assert zone("Europe/Paris").key == "Europe/Paris"
    with pytest.raises(NmonError) as e:
        zone("Mars/Olympus")
    assert str(e.value) == "unknown time zone 'Mars/Olympus' (an IANA name such as Europe/Paris or UTC)"


def utc(*args):
    return dt.datetime(*args, tzinfo=dt.timezone.utc).timestamp()


def test_the_clock_across_the_spring_gap():
    c = Clock(zone("Europe/Paris"))
    assert c.epoch(dt.datetime(2026, 3, 29, 1, 59)) == utc(2026, 3, 29, 0, 59)     # CET
    assert c.epoch(dt.datetime(2026, 3, 29, 3, 0)) == utc(2026, 3, 29, 1, 0)       # CEST
    with pytest.raises(NmonError) as e:
        c.epoch(dt.datetime(2026, 3, 29, 2, 30))
    assert str(e.value) == "local time 2026-03-29 02:30:00 does not exist in Europe/Paris (a DST gap): check --tz"


def test_the_repeated_autumn_hour_follows_the_snapshots_order():
    """02:00-02:59 comes twice on 25 October: first in CEST (00:xx UTC), then in CET (01:xx
    UTC). A snapshot takes the first occurrence unless that is not after the last snapshot."""
    c = Clock(zone("Europe/Paris"))
    wall = lambda h, m: dt.datetime(2026, 10, 25, h, m)
    assert [c.epoch(wall(h, m)) for h, m in ((1, 59), (2, 30), (2, 45), (2, 15), (2, 30), (2, 30), (3, 0))] == [
        utc(2026, 10, 24, 23, 59),
        utc(2026, 10, 25, 0, 30),      # 02:30 CEST
        utc(2026, 10, 25, 0, 45),      # 02:45 CEST
        utc(2026, 10, 25, 1, 15),      # 02:15 again: before 02:45, so the second occurrence (CET)
        utc(2026, 10, 25, 1, 30),      # 02:30 CET
        utc(2026, 10, 25, 1, 30),      # the same time again stays in CET, never back to CEST
        utc(2026, 10, 25, 2, 0)]       # 03:00 CET
    # the same wall time twice in a row inside the hour: the second is an hour later
    c = Clock(zone("Europe/Paris"))
    assert [c.epoch(wall(2, 30)) for _ in range(2)] == [utc(2026, 10, 25, 0, 30), utc(2026, 10, 25, 1, 30)]
    # outside a DST change a time is itself, whatever came before
    c = Clock(zone("UTC"))
    assert [c.epoch(dt.datetime(2026, 11, 2, 10, 0)) for _ in range(2)] == [utc(2026, 11, 2, 10, 0)] * 2


@pytest.mark.parametrize("month,number", [(m, k) for k, m in enumerate(
    ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"), 1)])
def test_each_month_name_is_its_month(month, number):
    assert parse_aaa_date(f"01-{month}-2026", None) == dt.date(2026, number, 1)
    assert parse_zzzz_date(f"01-{month.lower()}-2026") == dt.date(2026, number, 1)


def test_only_two_digit_years_are_read_as_20yy():
    assert parse_aaa_date("13/04/0100", None) == dt.date(100, 4, 13)       # four digits: as written
    assert parse_aaa_date("13/04/2099", None) == dt.date(2099, 4, 13)
