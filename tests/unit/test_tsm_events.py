"""The checklist's client schedule events (issue 59): the EVENTS table's last 24 hours counted by
status as QUERY EVENT names it, every result served, a status outside the list counted as other."""
import logging

import pytest

from aix_exporter.collectors.tsm_checklist import TsmHealthCollector
from aix_exporter.parsers import tsm_events
from tests.lib import fixture_text
from tests.lib.checks import samples


def test_events_are_counted_by_status_each_status_its_own_result():
    ev = tsm_events.parse(fixture_text("tsm_events", "every-exception.txt"))
    assert {r: n for r, n in ev.counts.items() if n} == {
        "completed": 2, "failed": 1, "failed_no_restart": 1, "missed": 1, "severed": 1, "in_progress": 1,
        "restarted": 1}
    # every result is served, 0 where none: an alert compares a count, never an absence
    assert set(ev.counts) == set(tsm_events.RESULTS) | {"other"}


def test_no_event_is_an_answer_of_zeros():
    assert set(tsm_events.parse(fixture_text("tsm_events", "no-events.txt")).counts.values()) == {0}


@pytest.mark.parametrize("status,result", [("Completed", "completed"), ("Failed - no restart", "failed_no_restart"),
                                           ("In Progress", "in_progress"), ("Not Started", "not_started"),
                                           ("  MISSED ", "missed")])
def test_a_status_is_its_result_label(status, result):
    assert tsm_events.result(status) == result


class _Texts:
    def __init__(self, texts):
        self.texts = texts

    def read(self, key):
        return self.texts[key]


def test_a_status_outside_the_list_is_counted_as_other_and_said_once(caplog):
    from aix_exporter.config import Settings
    c = TsmHealthCollector(Settings())
    src = _Texts({"tsm_events": fixture_text("tsm_events", "a-status-outside-the-list.txt"),
                  "tsm_monitor": fixture_text("tsm_monitor", "monitor-off.txt")})
    with caplog.at_level(logging.WARNING, logger="aix_exporter"):
        first, second = samples(c.collect(src)), samples(c.collect(src))
    assert first[("aix_tsm_client_schedule_events", (("result", "other"),))] == 2 == \
        second[("aix_tsm_client_schedule_events", (("result", "other"),))]
    said = [r.getMessage() for r in caplog.records if "result=other" in r.getMessage()]
    assert len(said) == 1 and "status='Postponed'" in said[0]


def test_what_is_said_once_is_bounded_a_server_naming_new_statuses_cannot_grow_it(caplog):
    """A broken server answering a new status each time: each of the first MAX_SAID is said once,
    then one line says the rest are not logged, and the collector remembers no more of them."""
    from aix_exporter.collectors import tsm_checklist
    from aix_exporter.config import Settings
    c = TsmHealthCollector(Settings())
    with caplog.at_level(logging.WARNING, logger="aix_exporter"):
        for k in range(tsm_checklist.MAX_SAID + 20):
            c.collect(_Texts({"tsm_events": f"DAILY,Odd status {k}\n",
                              "tsm_monitor": fixture_text("tsm_monitor", "monitor-off.txt")}))
    said = [r.getMessage() for r in caplog.records]
    assert len([m for m in said if "result=other" in m]) == tsm_checklist.MAX_SAID
    assert said[tsm_checklist.MAX_SAID:] == [
        "msg=further warnings about the server's answers are not logged collector=tsm_health"]
    assert len(c._said) == tsm_checklist.MAX_SAID + 1
