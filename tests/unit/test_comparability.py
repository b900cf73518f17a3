"""Whether a report's two windows are comparable for tape (issue 60), on answers written by hand:
each confounder named in its window, the other drives' figures beside them, and what a history
without per-drive figures, the error log or the checklist cannot say."""
from aix_exporter.report import comparability as cb
from aix_exporter.report.compare import Window

MIB = 1 << 20
BEFORE, AFTER = Window(0, 3600), Window(7200, 10800)


class Answers:
    """Instant queries answered by the first (text, window end, rows) whose text is in the query."""

    def __init__(self, answers):
        self.answers, self.asked = answers, []

    def instant(self, expr, at):
        self.asked.append((expr, at))
        for text, end, rows in self.answers:
            if text in expr and end == at:
                return rows
        return []


def tape(end, rates):
    return ("sum by (device) (rate(aix_tape_read_bytes_total", end,
            [{"metric": {"device": d}, "value": v * MIB} for d, v in rates.items()])


EIGHT_BEFORE = tape(3600, {f"rmt{i}": 17.4 for i in range(8)})
ERRLOG = [("count(max_over_time(aix_errpt_entries_total", end, [{"metric": {}, "value": 1.0}]) for end in (3600, 10800)]
CHECKLIST = [("min_over_time(aix_tsm_drive_online", end, [{"metric": {"drive": "DRIVE0"}, "value": 1.0}])
             for end in (3600, 10800)]


def test_the_same_drives_clean_in_both_windows_are_comparable():
    prom = Answers([EIGHT_BEFORE, tape(10800, {f"rmt{i}": 47.3 for i in range(8)})] + ERRLOG + CHECKLIST)
    c = cb.check(prom, 'job="aix"', BEFORE, AFTER)
    assert (c.comparable, c.state, c.at_work) == (True, "comparable", (8, 8))
    assert c.sentence() == ("Comparable for tape: 8 drives at work in both windows, no tape errors, no drive or path "
                            "offline and no scratch shortage.")
    # every query carries the selector and is asked at its window's end
    assert all('job="aix"' in q for q, _ in prom.asked) and {at for _, at in prom.asked} == {3600, 10800}


def test_a_drive_that_needs_cleaning_after_is_named_and_the_others_figures_given():
    after = {f"rmt{i}": 47.3 for i in range(8)}
    after["rmt3"] = 23.6
    born = ("sum by (resource, label) (max_over_time(aix_errpt_entries_total", 10800,
            [{"metric": {"resource": "rmt3", "label": "TAPE_ERR6"}, "value": 10.0},
             {"metric": {"resource": "rmt5", "label": "TAPE_ERR1"}, "value": 0.0}])   # (none in the window)
    c = cb.check(Answers([EIGHT_BEFORE, tape(10800, after), born] + ERRLOG + CHECKLIST), 'job="aix"', BEFORE, AFTER)
    assert c.comparable is False and c.confounders() == ([], ["rmt3 logged TAPE_ERR6 x10 during the after window"])
    assert c.sentence() == ("Not comparable for tape: rmt3 logged TAPE_ERR6 x10 during the after window; the other "
                            "seven drives moved from 17.4 to 47.3 MiB/s each (2.72x). The tape figures are shown, not "
                            "judged.")
    rmt3 = next(d for d in c.drives if d.device == "rmt3")
    assert (rmt3.mib_text(0), rmt3.mib_text(1), rmt3.errors_text(0), rmt3.errors_text(1)) == (
        "17.4", "23.6", "-", "TAPE_ERR6 x10")


def test_fewer_drives_at_work_offline_drives_and_scratch_shortage_are_each_named():
    prom = Answers([EIGHT_BEFORE, tape(10800, {**{f"rmt{i}": 47.3 for i in range(6)}, "rmt6": 0.0, "rmt7": 0.2}),
                    ("min_over_time(aix_tsm_drive_online", 10800, [{"metric": {"drive": "DRIVE6"}, "value": 0.0},
                                                                     {"metric": {"drive": "DRIVE0"}, "value": 1.0}]),
                    ("min_over_time(aix_tsm_drive_online", 3600, [{"metric": {"drive": "DRIVE6"}, "value": 1.0}]),
                    ("aix_tsm_path_online", 10800, [{"metric": {"source": "TSMSRV", "destination": "DRIVE6"},
                                                     "value": 0.0}]),
                    ('status="scratch"', 10800, [{"metric": {"library": "TS4500"}, "value": 4.0}])] + ERRLOG)
    c = cb.check(prom, 'job="aix"', BEFORE, AFTER)
    assert c.at_work == (8, 6)   # (rmt7 moved 0.2 MiB/s: not at work)
    assert c.confounders()[1] == [
        "drive DRIVE6 offline during the after window", "path TSMSRV -> DRIVE6 offline during the after window",
        "library TS4500 (4 scratch) short of scratch tapes during the after window",
        "6 drives at work in the after window, 8 before"]
    assert c.lines()[:3] == ["Drives at work (more than 1 MiB/s on average): 8 before, 6 after",
                             "Offline during the after window: drive DRIVE6, path TSMSRV -> DRIVE6",
                             "Short of scratch tapes during the after window: TS4500 (4 scratch)"]
    assert "the other six drives moved from 17.4 to 47.3 MiB/s each" in c.sentence()


def test_without_per_drive_figures_comparability_is_not_checked():
    c = cb.check(Answers([EIGHT_BEFORE] + ERRLOG), 'job="aix"', BEFORE, AFTER)   # (none after: an nmon history)
    assert (c.comparable, c.state, c.confounders()) == (None, "not checked", ([], []))
    assert c.sentence().startswith("Comparability could not be checked: this history has no per-drive tape figures")


def test_a_history_without_the_error_log_or_the_checklist_says_what_was_not_checked():
    c = cb.check(Answers([EIGHT_BEFORE, tape(10800, {f"rmt{i}": 47.3 for i in range(8)})]), 'job="aix"', BEFORE, AFTER)
    assert c.comparable is True
    assert c.sentence().endswith("no scratch shortage (the error log (errpt) and the server's drives and paths (the "
                                 "TSM checklist) not in this history: not checked).")
    assert c.lines()[1:] == ["No error log (errpt) in this history: tape errors not checked",
                             "No TSM checklist (drives, paths, scratch) in this history: not checked"]


def test_devices_sort_by_their_number():
    assert sorted(["rmt10", "rmt2", "rmt1"], key=cb.device_key) == ["rmt1", "rmt2", "rmt10"]
    assert [cb._count(n) for n in (1, 7, 13)] == ["one", "seven", "13"]
