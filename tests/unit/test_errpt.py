"""errpt -a, errpt and errpt -t (parsers/errpt.py, issue 60): each entry's label, class, type,
resource and sequence; a damaged entry skipped and counted; the summary and template rows."""
import datetime as dt

import pytest

from aix_exporter.parsers import ParseError, errpt
from tests.lib import fixture_text


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
    (("Resource Class:  tape", "Resource Class:  tape drive} 1\\nx"), "is not a resource class"),
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


# -- the collector: each entry counted once, by its sequence number --------------------------------
def report(*entries):
    """A Report of (sequence, label, resource) entries, newest first as errpt prints them."""
    return errpt.Report(entries=[errpt.Entry(label=label, identifier="0000E6E6", time=dt.datetime(2026, 11, 24, 3, s % 60),
                                             zone="UTC", sequence=s, error_class="H", error_type="TEMP", resource=res,
                                             resource_class="tape", description="x")
                                 for s, label, res in sorted(entries, reverse=True)])


def counted(c):
    from tests.lib.checks import samples
    m = samples(c.families(report()))
    return ({dict(k[1])["label"] + "@" + dict(k[1])["resource"]: v for k, v in m.items()
             if k[0] == "aix_errpt_entries_total"}, m[("aix_errpt_entries_lost_total", ())])


def collector():
    from aix_exporter.collectors.errpt import ErrptCollector
    from aix_exporter.config import Settings
    return ErrptCollector(Settings())


def test_the_first_read_is_history_and_each_later_entry_is_counted_once():
    c = collector()
    c.count(report((1040, "ERRLOG_ON", "errdemon"), (1041, "TAPE_ERR1", "rmt5")))
    assert counted(c) == ({"ERRLOG_ON@errdemon": 0, "TAPE_ERR1@rmt5": 0}, 0)   # history is not news: at 0
    c.count(report((1040, "ERRLOG_ON", "errdemon"), (1041, "TAPE_ERR1", "rmt5"), (1042, "TAPE_ERR6", "rmt3")))
    c.count(report((1041, "TAPE_ERR1", "rmt5"), (1042, "TAPE_ERR6", "rmt3"), (1043, "TAPE_ERR6", "rmt3")))
    c.count(report((1042, "TAPE_ERR6", "rmt3"), (1043, "TAPE_ERR6", "rmt3")))   # nothing new: nothing counted
    assert counted(c) == ({"ERRLOG_ON@errdemon": 0, "TAPE_ERR1@rmt5": 0, "TAPE_ERR6@rmt3": 2}, 0)


def test_entries_that_left_a_wrapped_log_unread_are_counted_lost():
    c = collector()
    c.count(report((10, "A", "rmt0")))
    c.count(report((15, "B", "rmt1"), (16, "B", "rmt1")))   # 11-14 left the log before they were read
    assert counted(c) == ({"A@rmt0": 0, "B@rmt1": 2}, 4)


def test_a_cleared_log_that_starts_again_is_counted_as_new():
    c = collector()
    c.count(report((500, "A", "rmt0")))
    c.count(report((1, "ERRLOG_ON", "errdemon"), (2, "TAPE_ERR6", "rmt3")))   # errclear, then two entries
    assert counted(c) == ({"A@rmt0": 0, "ERRLOG_ON@errdemon": 1, "TAPE_ERR6@rmt3": 1}, 0)
    c.count(report((1, "ERRLOG_ON", "errdemon"), (2, "TAPE_ERR6", "rmt3"), (3, "TAPE_ERR6", "rmt3")))
    assert counted(c) == ({"A@rmt0": 0, "ERRLOG_ON@errdemon": 1, "TAPE_ERR6@rmt3": 2}, 0)


def test_the_collector_over_a_simulated_lpar_with_a_drive_that_needs_cleaning():
    """The checklist-trouble scenario's offline drive rmt8: a media error at 10 min, then
    TAPE_ERR6 every 20 minutes; read at 15 and at 65 minutes: the three cleaning requests between
    are counted, the history before the first read is not; the newest entry's time per resource
    class, to the second errpt prints."""
    from aix_exporter.sources.simulate import SimulatedSource
    from tests.lib.checks import samples
    c, src = collector(), SimulatedSource("checklist-trouble?seed=1")
    src.set_time(900.0)
    c.collect(src)
    src.set_time(3900.0)
    m = samples(c.collect(src))
    assert {k[1]: v for k, v in m.items() if k[0] == "aix_errpt_entries_total"} == {
        (("class", "O"), ("label", "ERRLOG_ON"), ("resource", "errdemon"), ("type", "TEMP")): 0,
        (("class", "H"), ("label", "TAPE_ERR1"), ("resource", "rmt8"), ("type", "PERM")): 0,
        (("class", "H"), ("label", "TAPE_ERR6"), ("resource", "rmt8"), ("type", "TEMP")): 3}
    assert m[("aix_errpt_last_entry_timestamp_seconds", (("resource_class", "tape"),))] == int(src.epoch(3600.0))
    assert m[("aix_errpt_last_entry_timestamp_seconds", (("resource_class", "none"),))] == int(src.epoch(-3600.0))


# -- errpt.state_file: nothing lost or counted twice across a restart ------------------------------
def collector_with(state_file):
    from aix_exporter.collectors.errpt import ErrptCollector
    from aix_exporter.config import Settings
    s = Settings()
    s.errpt.state_file = str(state_file)
    return ErrptCollector(s)


def test_a_restart_counts_the_entries_logged_while_it_was_down_once(tmp_path):
    state = tmp_path / "errpt.state"
    a = collector_with(state)
    a.count(report((10, "ERRLOG_ON", "errdemon")))
    a.count(report((10, "ERRLOG_ON", "errdemon"), (11, "TAPE_ERR6", "rmt3")))
    a._save()
    # the exporter stops; two entries are logged; a new one starts from the file
    b = collector_with(state)
    b.count(report((10, "ERRLOG_ON", "errdemon"), (11, "TAPE_ERR6", "rmt3"), (12, "TAPE_ERR6", "rmt3"),
                   (13, "TAPE_ERR1", "rmt5")))
    assert counted(b) == ({"ERRLOG_ON@errdemon": 0, "TAPE_ERR6@rmt3": 2, "TAPE_ERR1@rmt5": 1}, 0)
    import json
    assert json.loads(state.read_text())["kind"] == "aix_exporter errpt state"
    # without the file, a restart takes the log as history (nothing counted twice, the two lost)
    c = collector()
    c.count(report((10, "ERRLOG_ON", "errdemon"), (11, "TAPE_ERR6", "rmt3"), (12, "TAPE_ERR6", "rmt3")))
    assert counted(c)[0]["TAPE_ERR6@rmt3"] == 0


def test_a_damaged_state_with_no_previous_one_counts_the_log_again_from_its_start(tmp_path, caplog):
    """As the TSM state does: the log counted again into counters from 0, rather than lost."""
    state = tmp_path / "errpt.state"
    state.write_text('{"kind": "aix_exporter errpt state", "last": -5}')   # ours, but damaged
    c = collector_with(state)
    c.count(report((10, "ERRLOG_ON", "errdemon"), (11, "TAPE_ERR6", "rmt3")))
    assert counted(c) == ({"ERRLOG_ON@errdemon": 1, "TAPE_ERR6@rmt3": 1}, 0)
    assert any("collector=errpt msg=state file damaged and no previous state" in r.getMessage() for r in caplog.records)


def test_a_state_file_that_is_somebody_elses_fails_the_errpt_collector_only(tmp_path):
    from aix_exporter.sources import SourceError
    from aix_exporter.sources.simulate import SimulatedSource
    state = tmp_path / "passwd"
    state.write_text("root:x:0:0:root:/root:/bin/sh\n")
    c = collector_with(state)
    with pytest.raises(SourceError) as e:
        c.collect(SimulatedSource("steady?seed=1"))
    assert str(e.value).startswith(f"errpt.state_file: {state} exists and is not an aix_exporter state file")
    assert str(e.value).endswith("point errpt.state_file at a new path")
    assert state.read_text() == "root:x:0:0:root:/root:/bin/sh\n"   # never written over


def test_the_errpt_and_tsm_state_files_are_one_file_each_and_targets_keep_theirs_in_memory(tmp_path):
    from aix_exporter.config import ConfigError, load, target_settings
    cfg = tmp_path / "c.yml"
    cfg.write_text(f"tsm: {{state_file: {tmp_path}/one.state}}\nerrpt: {{state_file: {tmp_path}//one.state}}\n")
    with pytest.raises(ConfigError) as e:
        load(str(cfg))
    assert f"the state file {tmp_path}/one.state is used twice (tsm.state_file {tmp_path}/one.state, " \
           f"errpt.state_file {tmp_path}//one.state)" in str(e.value)
    cfg.write_text(f"errpt: {{state_file: {tmp_path}/errpt.state, interval_seconds: 600}}\n"
                   "targets:\n  - {name: a, source: 'ssh://u@h'}\n")
    s = load(str(cfg))
    t = target_settings(s, s.targets[0])
    assert (t.errpt.state_file, t.errpt.interval_seconds) == (None, 600)
    assert s.errpt.state_file == f"{tmp_path}/errpt.state"


def test_check_config_names_an_errpt_state_file_that_is_somebody_elses(tmp_path):
    from aix_exporter.config import Settings, file_problems
    s = Settings()
    s.errpt.state_file = str(tmp_path / "passwd")
    (tmp_path / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    assert [(w, m.split(":", 1)[0]) for w, m in file_problems(s) if w.startswith("errpt")] == [
        ("errpt.state_file", "errpt.state_file")]
    (tmp_path / "passwd").unlink()
    assert [w for w, _ in file_problems(s) if w.startswith("errpt")] == []


# -- a target's own errpt section: its LPAR's position and counts across restarts (issue 60) ------
def test_a_target_keeps_its_error_log_position_in_its_own_state_file(tmp_path):
    from aix_exporter.collectors.errpt import ErrptCollector
    from aix_exporter.config import load, target_settings
    cfg = tmp_path / "c.yml"
    cfg.write_text(f"errpt: {{state_file: {tmp_path}/own.state}}\n"
                   "targets:\n"
                   f"  - {{name: a, source: 'ssh://u@h', errpt: {{state_file: {tmp_path}/a.state}}}}\n"
                   "  - {name: b, source: 'ssh://u@i'}\n")
    s = load(str(cfg))
    a, b = (target_settings(s, t) for t in s.targets)
    assert (a.errpt.state_file, b.errpt.state_file, s.errpt.state_file) == (
        f"{tmp_path}/a.state", None, f"{tmp_path}/own.state")
    first = ErrptCollector(a)
    first.count(report((10, "ERRLOG_ON", "errdemon")))
    first.count(report((10, "ERRLOG_ON", "errdemon"), (11, "TAPE_ERR6", "rmt3")))
    first._save()
    # the exporter stops; the LPAR logs two more; the target's new collector starts from its file
    again = ErrptCollector(target_settings(load(str(cfg)), load(str(cfg)).targets[0]))
    again.count(report((10, "ERRLOG_ON", "errdemon"), (11, "TAPE_ERR6", "rmt3"), (12, "TAPE_ERR6", "rmt3"),
                       (13, "TAPE_ERR1", "rmt5")))
    assert counted(again) == ({"ERRLOG_ON@errdemon": 0, "TAPE_ERR6@rmt3": 2, "TAPE_ERR1@rmt5": 1}, 0)
    assert not (tmp_path / "own.state").exists()   # (the top level's file is its own LPAR's, untouched)


@pytest.mark.parametrize("body, users", [
    # a target's errpt file and the top level's, by another spelling of one place
    ("errpt: {state_file: DIR/x.state}\ntargets:\n  - {name: a, source: 'ssh://u@h', errpt: {state_file: DIR//x.state}}\n",
     "errpt.state_file DIR/x.state, a's errpt.state_file DIR//x.state"),
    # two targets' errpt files
    ("targets:\n  - {name: a, source: 'ssh://u@h', errpt: {state_file: DIR/x.state}}\n"
     "  - {name: b, source: 'ssh://u@i', errpt: {state_file: DIR/x.state}}\n",
     "a's errpt.state_file DIR/x.state, b's errpt.state_file DIR/x.state"),
    # one target's errpt file and its own activity-log state
    ("targets:\n  - {name: a, source: 'ssh://u@h', tsm: {state_file: DIR/x.state}, errpt: {state_file: DIR/./x.state}}\n",
     "a's DIR/x.state, a's errpt.state_file DIR/./x.state"),
    # a target's errpt file and the top level's activity-log state
    ("tsm: {state_file: DIR/x.state}\ntargets:\n  - {name: a, source: 'ssh://u@h', errpt: {state_file: DIR/x.state}}\n",
     "tsm.state_file DIR/x.state, a's errpt.state_file DIR/x.state"),
])
def test_every_pair_that_can_share_an_errpt_state_file_is_refused(tmp_path, body, users):
    from aix_exporter.config import ConfigError, load
    cfg = tmp_path / "c.yml"
    cfg.write_text(body.replace("DIR", str(tmp_path)))
    with pytest.raises(ConfigError) as e:
        load(str(cfg))
    assert f"the state file {tmp_path}/x.state is used twice ({users.replace('DIR', str(tmp_path))})" in str(e.value)


def test_a_targets_errpt_state_file_must_be_absolute(tmp_path):
    from aix_exporter.config import ConfigError, load
    cfg = tmp_path / "c.yml"
    cfg.write_text("targets:\n  - {name: a, source: 'ssh://u@h', errpt: {state_file: a.state}}\n")
    with pytest.raises(ConfigError) as e:
        load(str(cfg))
    assert "targets.a: errpt.state_file: must be an absolute path" in str(e.value)
