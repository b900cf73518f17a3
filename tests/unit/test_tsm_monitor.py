"""The server's own status monitor (issue 59, QUERY MONITORSTATUS) as one state-set per row with
its value, beside the schedule events in the tsm_health collector's families."""
import pytest

from aix_exporter.collectors.tsm_checklist import health_families
from aix_exporter.parsers import ParseError, tsm_events, tsm_monitor
from tests.lib import fixture_text
from tests.lib.checks import samples


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


def test_a_flood_of_rows_is_bounded_the_worst_kept_and_the_rest_counted_and_said_once(caplog):
    """Each row is a label value: a broken or hostile server printing thousands of rows must not
    make thousands of series. The worst states are kept first; the rest are counted."""
    from aix_exporter.collectors.tsm_checklist import TsmHealthCollector
    from aix_exporter.config import Settings

    flood = "".join(f"S,D,STORAGE POOL UTILIZATION,POOL{k:05d},{k},,{'ERROR' if k % 1000 == 7 else 'NORMAL'}\n"
                    for k in range(3000))
    rows = tsm_monitor.parse(flood)
    assert len(rows) == 3000
    kept, omitted = tsm_monitor.bounded(rows)
    assert (len(kept), omitted) == (tsm_monitor.MAX_ROWS, 3000 - tsm_monitor.MAX_ROWS)
    assert [r.name for r in kept[:3]] == [f"STORAGE POOL UTILIZATION (POOL{k:05d})" for k in (7, 1007, 2007)]
    assert all(r.state == "normal" for r in kept[3:])
    assert tsm_monitor.bounded(rows[:tsm_monitor.MAX_ROWS]) == (rows[:tsm_monitor.MAX_ROWS], 0)   # as they came

    class Source:
        def read(self, key):
            return {"tsm_events": fixture_text("tsm_events", "every-exception.txt"), "tsm_monitor": flood}[key]

    collector = TsmHealthCollector(Settings())
    with caplog.at_level("WARNING"):
        for _ in range(3):
            m = samples(collector.collect(Source()))
    assert m[("aix_tsm_monitor_rows_omitted", ())] == 2500
    assert sum(1 for k in m if k[0] == "aix_tsm_monitor_status") == 3 * tsm_monitor.MAX_ROWS
    said = [r.getMessage() for r in caplog.records if "more rows than are served" in r.getMessage()]
    assert said == ["msg=the status monitor answered more rows than are served, the worst states first "
                    "collector=tsm_health served=500 omitted=2500"]
    clean = samples(health_families(tsm_events.parse(fixture_text("tsm_events", "every-exception.txt")), rows[:3]))
    assert clean[("aix_tsm_monitor_rows_omitted", ())] == 0
