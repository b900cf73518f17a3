"""The server's own status monitor (issue 59, QUERY MONITORSTATUS) as one state-set per row with
its value, beside the schedule events in the tsm_health collector's families."""
import pytest

from aix_exporter.collectors.tsm_checklist import health_families
from aix_exporter.parsers import ParseError, tsm_events, tsm_monitor
from tests.conftest import fixture_text
from tests.unit.helpers import samples


def test_the_monitor_rows_keep_their_names_states_and_values():
    rows = tsm_monitor.parse(fixture_text("tsm_monitor", "errors-warnings-and-a-decimal-comma.txt"))
    assert [(r.name, r.state, r.value) for r in rows] == [
        ("STORAGE POOL UTILIZATION (TAPEPOOL)", "error", 96.2),      # (the later WARNING row is the better state)
        ("STORAGE POOL UTILIZATION (BACKUPPOOL)", "warning", 87.5),  # "87,5": a decimal comma
        ("OFFLINE DRIVES", "warning", 1.0), ("SERVER STATUS", "normal", None)]


def test_ibms_example_rows_are_named_by_their_activity():
    rows = tsm_monitor.parse(fixture_text("tsm_monitor", "ibm-example.txt"))
    assert [(r.name, r.state, r.value) for r in rows] == [
        ("CAPACITY OF PRIMARY DISK AND FILE STORAGE", "normal", 0.0),
        ("USED CAPACITY OF PRIMARY DISK AND FILE STORAGE", "normal", 0.0)]
    assert tsm_monitor.parse(fixture_text("tsm_monitor", "monitor-off.txt")) == []


@pytest.mark.parametrize("text,why", [
    (fixture_text("tsm_monitor", "unknown-state.txt"), "element state 'CRITICAL' is not NORMAL, WARNING or ERROR"),
    ("S,D,A,A,ninety,,NORMAL\n", "'ninety' is not a number"),
    ("S,D,A,A,1,NORMAL\n", "expected 7 comma-separated fields"),
])
def test_what_is_not_a_monitor_answer_is_one_error(text, why):
    with pytest.raises(ParseError) as e:
        tsm_monitor.parse(text)
    assert why in str(e.value)


def test_the_families_one_state_set_per_row_and_every_result():
    ev = tsm_events.parse(fixture_text("tsm_events", "every-exception.txt"))
    rows = tsm_monitor.parse(fixture_text("tsm_monitor", "errors-warnings-and-a-decimal-comma.txt"))
    m = samples(health_families(ev, rows))
    assert m[("aix_tsm_client_schedule_events", (("result", "failed"),))] == 1
    assert m[("aix_tsm_client_schedule_events", (("result", "other"),))] == 0
    tape = "STORAGE POOL UTILIZATION (TAPEPOOL)"
    assert {s: m[("aix_tsm_monitor_status", (("activity", tape), ("status", s)))]
            for s in ("normal", "warning", "error")} == {"normal": 0, "warning": 0, "error": 1}
    assert m[("aix_tsm_monitor_value", (("activity", tape),))] == 96.2
    assert ("aix_tsm_monitor_value", (("activity", "SERVER STATUS"),)) not in m   # (no number: no value)
    assert sum(1 for k in m if k[0] == "aix_tsm_monitor_status") == 3 * len(rows)


def test_the_checklist_trouble_server_fails_schedules_and_its_monitor_says_error():
    from aix_exporter.sources.simulate import SimulatedSource
    got = {}
    for scenario in ("checklist-trouble", "steady"):
        src = SimulatedSource(f"{scenario}?seed=1")
        src.set_time(3600.0)
        m = samples(health_families(tsm_events.parse(src.read("tsm_events")),
                                    tsm_monitor.parse(src.read("tsm_monitor"))))
        got[scenario] = ({r: m[("aix_tsm_client_schedule_events", (("result", r),))]
                          for r in ("completed", "failed", "missed")},
                         sorted(dict(k[1])["activity"] for k, v in m.items()
                                if k[0] == "aix_tsm_monitor_status" and dict(k[1])["status"] == "error" and v == 1))
    assert got["checklist-trouble"] == ({"completed": 35, "failed": 3, "missed": 2},
                                        ["STORAGE POOL UTILIZATION (TAPEPOOL)"])
    assert got["steady"] == ({"completed": 40, "failed": 0, "missed": 0}, [])
