"""Collector rules that no fixture shows on its own: the registry and the family builder, how
often background collectors run, the defaults that must agree with the config file's, ratio
rounding, every vmstat column's family, and the TSM state file's round trip and log lines."""
import inspect
import json
import os

import pytest

from aix_exporter.collectors import base, ldr_cntrl, process, splat as splat_collector, tape, tsm, tsm_server, vmstat
from aix_exporter.collectors.base import Collector, Families, register
from aix_exporter.config import Settings
from aix_exporter.parsers import ParseError, splat, vmstat as vmstat_parser
from tests.lib.checks import samples


class TextSource:
    """A source that answers every command and the log with the same text."""

    def __init__(self, text):
        self.text = text

    def read(self, key):
        return self.text

    def read_log(self, key, position):
        return self.text, {"offset": len(self.text)}

    def report_time(self, key):
        return None


def test_register_refuses_a_nameless_collector_and_a_second_one_of_the_same_name():
    class Nameless(Collector):
        pass

    with pytest.raises(TypeError) as e:
        register(Nameless)
    assert str(e.value) == "Nameless has no name"

    class Twin(Collector):
        name = "vmstat"

    with pytest.raises(TypeError) as e:
        register(Twin)
    assert str(e.value) == "two collectors are named 'vmstat'"
    assert register(vmstat.VmstatCollector) is vmstat.VmstatCollector      # the same class again: no error
    assert base.registry()["vmstat"] is vmstat.VmstatCollector


def test_a_sample_must_name_exactly_its_family_s_labels():
    f = Families()
    f.set("m", "help", 1, {"a": "x", "b": "y"})
    f.set("m", "help", 2, {"b": "z", "a": "w"})          # any order
    with pytest.raises(ValueError) as e:
        f.set("m", "help", 3, {"a": "x", "c": "y"})       # as many labels, another name
    assert str(e.value) == "m: labels ['a', 'c'] differ from the family's ['a', 'b']"
    with pytest.raises(ValueError) as e:
        f.set("m", "help", 3, {"a": "x"})
    assert str(e.value) == "m: labels ['a'] differ from the family's ['a', 'b']"
    assert [(s.labels, s.value) for s in f.result()[0].samples] == [({"a": "x", "b": "y"}, 1.0), ({"a": "w", "b": "z"}, 2.0)]


def test_the_collector_interface_defaults():
    base = Settings()
    c = Collector(base)
    assert (c.name, c.keys, c.help, c.default_enabled, c.requires_system, c.requires_module, c.metrics,
            c.settings_section) == ("", (), "", True, False, "", (), None)
    assert (c.settings, c.config, c.period(), c.max_age(), c.no_data(), Collector.configured(Settings())) == (
        base, None, 15.0, None, [], True)
    # a collector with a section reads it from its settings (required: no defaults of its own)
    s = Settings()
    s.vmstat.interval_seconds = 7
    assert vmstat.VmstatCollector(s).config is s.vmstat
    with pytest.raises(TypeError):
        vmstat.VmstatCollector()


def test_background_collectors_run_every_command_length_and_drop_old_results():
    s = Settings()
    s.vmstat.interval_seconds, s.vmstat.max_age_seconds = 7, 50
    s.tape.interval_seconds, s.tape.max_age_seconds = 3, 40
    s.splat.every_minutes, s.splat.max_age_seconds = 15, 3000
    # vmstat/iostat INTERVAL 2 take two intervals; splat runs every N minutes
    assert (vmstat.VmstatCollector(s).period(), vmstat.VmstatCollector(s).max_age()) == (14, 50)
    assert (tape.TapeCollector(s).period(), tape.TapeCollector(s).max_age()) == (6, 40)
    assert (splat_collector.SplatCollector(s).period(), splat_collector.SplatCollector(s).max_age()) == (900, 3000)


def test_collectors_that_need_configuration_on_a_real_system():
    s = Settings()
    assert not splat_collector.SplatCollector.configured(s)
    s.splat.report_dir = "/var/perf/splat"
    assert splat_collector.SplatCollector.configured(s)
    s.splat.report_dir, s.splat.enabled_trace = None, True
    assert splat_collector.SplatCollector.configured(s)
    assert not tsm_server.TsmServerCollector.configured(s)
    s.tsm.admin_id = "monitor"
    assert not tsm_server.TsmServerCollector.configured(s)      # both or neither
    s.tsm.password_file = "/etc/aix_exporter/tsm.pw"
    assert tsm_server.TsmServerCollector.configured(s)
    s.tsm.admin_id = None
    assert not tsm_server.TsmServerCollector.configured(s)


def test_function_defaults_agree_with_the_config_defaults():
    s = Settings()

    def default(fn, arg):
        return inspect.signature(fn).parameters[arg].default

    assert default(splat_collector.families_from, "top_n") == s.splat.top_n
    assert default(process.families_from, "max_processes") == s.process.max_processes
    assert default(ldr_cntrl.ldr_families, "max_processes") == s.process.max_processes
    assert default(tsm_server.families_from, "hours") == s.tsm.summary_hours


def test_collectors_take_their_limits_from_the_config(tmp_path):
    from aix_exporter.sources.replay import ReplaySource
    from tests.lib import FIXTURES
    s = Settings()
    s.process.max_processes = 1
    src = ReplaySource(str(FIXTURES / "replay" / "tsm-lpar"))
    infos = [k for k in samples(ldr_cntrl.LdrCntrlCollector(s).collect(src)) if k[0] == "aix_process_ldr_cntrl_info"]
    assert len(infos) == 1
    assert len([k for k in samples(ldr_cntrl.LdrCntrlCollector(Settings()).collect(src))]) > 1


def test_ratios_are_rounded_to_8_decimals():
    """A ratio computed from sums (1 missed in 3) is served to 8 decimals, not as float noise."""
    rep = splat.SplatReport(window_seconds=5.0, functions={"f": splat.FunctionStats("f", 3, 1.0, 0)},
                            locks=[splat.LockRow("L", "simple", 3, 0, None, 0.0)])
    m = samples(splat_collector.families_from(rep))
    assert m[("aix_splat_function_miss_ratio", (("function", "f"),))] == 0.33333333
    assert m[("aix_splat_lock_miss_ratio", (("lock", "L"), ("type", "simple")))] == 0.0   # N/A %Miss: 0
    assert ("aix_splat_report_timestamp_seconds", ()) not in m
    m = samples(splat_collector.families_from(rep, report_time=1700000000.0))
    assert m[("aix_splat_report_timestamp_seconds", ())] == 1700000000.0


def test_splat_collector_serves_the_report_time_when_the_source_knows_it():
    class Watched(TextSource):
        def report_time(self, key):
            return 1700000000.0

    text = "Elapsed Real Time: 5.0\n"
    assert ("aix_splat_report_timestamp_seconds", ()) not in samples(splat_collector.SplatCollector(Settings()).collect(TextSource(text)))
    watched = samples(splat_collector.SplatCollector(Settings()).collect(Watched(text)))
    assert watched[("aix_splat_report_timestamp_seconds", ())] == 1700000000.0


def test_every_vmstat_column_has_its_family():
    head = " r  b  p avm fre re pi po fr sr cy in sy cs us sy id wa pc ec alp flp fi fo"
    row = " 2  3  4 100 200 11 12 13 14 15  0 21 22 23 31 32 33 34 1.5 40.5 5 6 16 17"
    rec = vmstat_parser.parse(f"{head}\n{row}\n")
    m = samples(vmstat.families_from(rec))
    assert {k[1][0][1]: v for k, v in m.items() if k[0] == "aix_vmstat_cpu_ratio"} == {
        "user": 0.31, "sys": 0.32, "idle": 0.33, "wait": 0.34}
    assert {k[1][0][1]: v for k, v in m.items() if k[0] == "aix_vmstat_paging_pages_per_second"} == {
        "re": 11, "pi": 12, "po": 13, "fr": 14, "sr": 15, "fi": 16, "fo": 17}
    plain = {k[0]: v for k, v in m.items() if not k[1]}
    assert plain == {"aix_vmstat_runqueue_threads": 2, "aix_vmstat_blocked_threads": 3,
                     "aix_vmstat_raw_io_blocked_threads": 4, "aix_vmstat_active_virtual_bytes": 100 * 4096,
                     "aix_vmstat_free_list_bytes": 200 * 4096, "aix_vmstat_physical_cpus_consumed": 1.5,
                     "aix_vmstat_entitlement_consumed_ratio": 0.405, "aix_vmstat_large_pages_active": 5,
                     "aix_vmstat_large_pages_free": 6, "aix_vmstat_interrupts_per_second": 21,
                     "aix_vmstat_syscalls_per_second": 22, "aix_vmstat_context_switches_per_second": 23}


def test_tape_busy_and_rates_come_from_the_last_interval_report():
    """The first report is since boot, each later one an interval: bytes sum over all of them,
    busy and tps come from the last one only (a drive missing from it has no such figures)."""
    from aix_exporter.parsers import iostat_tape
    head = "Tapes:       % tm_act     Kbps      tps    Kb_read   Kb_wrtn\n"
    text = (head + "rmt0             5.0      10.0      1.0        100       200\n"
                   "rmt1             6.0      11.0      2.0        300       400\n\n" +
            head + "rmt0            50.0      20.0      3.0         10        20\n"
                   "rmt1            60.0      21.0      4.0         30        40\n\n" +
            head + "rmt1            80.0      31.0      6.0          3         4\n")
    m = samples(tape.families_from(iostat_tape.parse_reports(text)))
    assert m[("aix_tape_busy_ratio", (("device", "rmt1"),))] == 0.8
    assert m[("aix_tape_transfers_per_second", (("device", "rmt1"),))] == 6.0
    assert m[("aix_tape_throughput_bytes_per_second", (("device", "rmt1"),))] == 31.0 * 1024
    assert ("aix_tape_busy_ratio", (("device", "rmt0"),)) not in m
    assert m[("aix_tape_read_bytes_total", (("device", "rmt1"),))] == (300 + 30 + 3) * 1024
    assert m[("aix_tape_written_bytes_total", (("device", "rmt0"),))] == (200 + 20) * 1024
    assert m[("aix_tape_devices", ())] == 2
    fams = tape.families_from([])
    assert [(f.name, f.documentation, samples([f])) for f in fams] == [
        ("aix_tape_devices", "Tape drives in the iostat -p report.", {("aix_tape_devices", ()): 0})]


def _tsm_settings(tmp_path, ids=("ANR0358E", "ANR9999D")):
    s = Settings()
    s.tsm.state_file = str(tmp_path / "state" / "tsm.json")
    s.tsm.message_ids = list(ids)
    return s




def test_tsm_defaults_come_from_the_settings():
    c = tsm.TsmCollector(Settings())
    assert (c.ids, c.state_file, c.position, c.counts, c.unparsed) == (["ANR0358E", "ANR9999D"], None, None, {}, 0)


def test_tsm_state_file_round_trip(tmp_path, caplog):
    s = _tsm_settings(tmp_path)
    c = tsm.TsmCollector(s)
    text = "11/19/2026 00:00:07  ANR0358E x\n11/19/2026 00:00:08  no id here\n11/19/2026 00:00:09  ANR2121W y\n"
    c.collect(TextSource(text))
    assert oct(os.stat(tmp_path / "state").st_mode & 0o777) == oct(0o700)   # a directory it made itself
    state = json.loads((tmp_path / "state" / "tsm.json").read_text())
    assert state == {"kind": "aix_exporter tsm state", "position": {"offset": len(text)},
                     "counts": {"ANR0358E:E": 1, "ANR2121W:W": 1}, "unparsed": 1, "gaps": 0}
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("aix_exporter", "WARNING", "collector=tsm command='TSM activity log' msg=odd line skipped: tsm activity log: "
         "dated line without a message id (line 2: '11/19/2026 00:00:08  no id here')")]
    again = tsm.TsmCollector(s)
    assert (again.position, again.counts, again.unparsed) == ({"offset": len(text)}, {("ANR0358E", "E"): 1, ("ANR2121W", "W"): 1}, 1)
    m = samples(again.collect(TextSource("")))
    assert m[("aix_tsm_messages_total", (("msgid", "ANR2121W"), ("severity", "W")))] == 1
    assert m[("aix_tsm_unparsed_lines_total", ())] == 1


def test_an_unreadable_state_file_starts_fresh_with_one_warning(tmp_path, caplog):
    """(With no previous state to resume from: tests/unit/test_tsm_state.py has the rest.)"""
    s = _tsm_settings(tmp_path)
    os.makedirs(tmp_path / "state")
    (tmp_path / "state" / "tsm.json").write_text('{"position": {"off')
    c = tsm.TsmCollector(s)
    assert (c.position, c.counts, c.unparsed) == ({}, {}, 0)      # {}: the log from its start, no line lost
    (rec,) = caplog.records
    assert (rec.name, rec.levelname) == ("aix_exporter", "WARNING")
    assert rec.getMessage() == ("collector=tsm msg=state file damaged and no previous state: counting from 0, the log "
                                f"read from its start file={tmp_path / 'state' / 'tsm.json'} error=not valid JSON "
                                "(cut short or emptied?)")


def test_binary_data_in_the_log_fails_the_cycle_and_is_no_odd_line(tmp_path):
    c = tsm.TsmCollector(_tsm_settings(tmp_path))
    with pytest.raises(ParseError) as e:
        c.collect(TextSource("11/19/2026 00:00:07  ANR0358E x\n\x00\x00\x00\n"))   # 36 characters
    assert "tsm activity log: binary data in output" in str(e.value)
    assert c.unparsed == 0 and c.position == {"offset": 36}       # the bytes are not read again


def test_counted_ids_without_configured_ones_are_still_counters(tmp_path):
    c = tsm.TsmCollector(_tsm_settings(tmp_path, ids=()))
    fams = c.collect(TextSource("11/19/2026 00:00:07  ANR0358E x\n"))
    (fam,) = [f for f in fams if f.name == "aix_tsm_messages"]
    assert fam.type == "counter" and samples([fam]) == {
        ("aix_tsm_messages_total", (("msgid", "ANR0358E"), ("severity", "E"))): 1}


def test_splat_collector_keeps_the_configured_top_n():
    from tests.lib import fixture_text
    s = Settings()
    s.splat.top_n = 1
    m = samples(splat_collector.SplatCollector(s).collect(TextSource(fixture_text("splat", "tsm-4k-pin-seg-range.txt"))))
    assert len([k for k in m if k[0] == "aix_splat_lock_acquisitions"]) == 1
    assert len([k for k in m if k[0] == "aix_splat_function_acquisitions"]) == 1


def test_a_state_file_written_before_the_unparsed_count_existed(tmp_path):
    s = _tsm_settings(tmp_path)
    os.makedirs(tmp_path / "state")
    (tmp_path / "state" / "tsm.json").write_text(json.dumps({"position": {"offset": 5}, "counts": {"ANR0358E:E": 2}}))
    c = tsm.TsmCollector(s)
    assert (c.position, c.counts, c.unparsed) == ({"offset": 5}, {("ANR0358E", "E"): 2}, 0)
