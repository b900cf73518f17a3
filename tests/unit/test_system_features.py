"""System-source features that run real AIX commands, tested with the runner replaced:
the trace window's command sequence, the watched splat directory, dsmadmc deduplication,
the psutil CPU collector, and the simulate --out replay directory."""
import os
import subprocess
import sys
import time

import pytest

from aix_exporter.collectors.cpu import CpuCollector
from aix_exporter.config import Settings
from aix_exporter.sources import splat_window, system
from aix_exporter.sources.system import SystemSource, dsmadmc_new_lines
from tests.lib import FIXTURES, ROOT
from tests.lib.checks import samples


def test_trace_window_runs_trace_trcstop_trcrpt_gensyms_splat_in_order(monkeypatch, tmp_path):
    calls = []
    report = (FIXTURES / "splat" / "tsm-4k-pin-seg-range.txt").read_text()

    def fake_run(argv, timeout):
        calls.append(argv)
        if argv[0] == "/usr/bin/splat":
            (tmp_path / "splat.out").write_text(report)
        return "gensyms output\n" if argv[0] == "/usr/bin/gensyms" else ""

    monkeypatch.setattr(system, "run", fake_run)
    monkeypatch.setattr(splat_window.time, "sleep", lambda s: calls.append(["sleep", s]))
    s = Settings()
    s.splat.enabled_trace, s.splat.work_dir, s.splat.trace_seconds = True, str(tmp_path), 5
    text = SystemSource(s).read("splat")
    assert text == report
    assert [c[0] for c in calls] == ["/usr/bin/trace", "sleep", "/usr/bin/trcstop", "/usr/bin/trcrpt", "/usr/bin/gensyms",
                                     "/usr/bin/splat"]
    assert calls[0] == ["/usr/bin/trace", "-a", "-C", "all", "-J", "splat", "-T", "20000000", "-L", "200000000",
                        "-o", str(tmp_path / "trace.raw")]
    assert calls[1] == ["sleep", 5]
    assert calls[5] == ["/usr/bin/splat", "-i", str(tmp_path / "trace.tr"), "-n", str(tmp_path / "trace.syms"),
                        "-da", "-p", "-o", str(tmp_path / "splat.out")]
    assert (tmp_path / "trace.syms").read_text() == "gensyms output\n"


def test_watched_directory_newest_report_wins(tmp_path):
    old, new = tmp_path / "a.out", tmp_path / "b.out"
    old.write_text("old report")
    new.write_text("new report")
    os.utime(old, (time.time(), time.time()))
    os.utime(new, (time.time() - 100, time.time() - 100))
    s = Settings()
    s.splat.report_dir = str(tmp_path)
    src = SystemSource(s)
    assert src.read("splat") == "old report"             # newest by modification time
    assert abs(src.report_time("splat") - os.path.getmtime(old)) < 1e-6


def test_dsmadmc_overlapping_queries_never_count_twice():
    first = "11/19/2026 00:00:07  ANR9999D a\n  cont\n11/19/2026 00:00:08  ANR0358E b\n"
    text, pos = dsmadmc_new_lines(first, None)
    assert text == first
    again, pos = dsmadmc_new_lines(first + "11/19/2026 00:00:08  ANR2121W c\n11/19/2026 00:00:09  ANR0369I d\n", pos)
    assert again == "11/19/2026 00:00:08  ANR2121W c\n11/19/2026 00:00:09  ANR0369I d\n"
    nothing, _ = dsmadmc_new_lines(first, pos)
    assert nothing == ""


def test_cpu_collector_reads_psutil():
    m = samples(CpuCollector(Settings()).collect(None))
    modes = {k[1][0][1] for k in m if k[0] == "aix_cpu_seconds_total"}
    assert {"user", "sys", "idle"} <= modes
    assert all(v >= 0 for v in m.values())


def test_simulate_out_writes_a_replay_directory_that_replays(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "exporter")}
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "simulate", "--scenario", "case-study", "--out",
                        str(tmp_path), "--at", "7200"], capture_output=True, text=True, env=env)
    from aix_exporter.commands import COMMANDS
    assert r.returncode == 0 and f"wrote {len(COMMANDS)} files" in r.stdout, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{k}.txt" for k in COMMANDS)
    out = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--source", f"replay:{tmp_path}", "--once"],
                         capture_output=True, text=True, env=env).stdout
    assert out.count(" 1.0\n") and "aix_exporter_collector_success" in out
    assert all(f'aix_exporter_collector_success{{collector="{c}"}} 1.0' in out
               for c in ("vmstat", "memory", "vmo", "process", "ldr_cntrl", "splat", "tape", "tsm", "tsm_server"))
    assert 'aix_process_large_page_info{command="dsmserv",mode="N",pid="2687182"} 1.0' in out   # 4 KB regime at 2 h


def test_cpu_collector_maps_each_psutil_field_to_its_mode(monkeypatch):
    import collections
    import psutil
    Times = collections.namedtuple("Times", "user system idle iowait")
    monkeypatch.setattr(psutil, "cpu_times", lambda: Times(11.0, 22.0, 33.0, 44.0))
    fams = CpuCollector(Settings()).collect(None)
    assert [(f.name, f.type, f.documentation) for f in fams] == [
        ("aix_cpu_seconds", "counter", "CPU time spent in each mode since boot (psutil).")]
    m = samples(fams)
    assert m == {("aix_cpu_seconds_total", (("mode", "user"),)): 11.0, ("aix_cpu_seconds_total", (("mode", "sys"),)): 22.0,
                 ("aix_cpu_seconds_total", (("mode", "idle"),)): 33.0, ("aix_cpu_seconds_total", (("mode", "wait"),)): 44.0}


def test_without_psutil_the_cpu_collector_is_left_out_and_says_what_is_missing(monkeypatch, caplog):
    """psutil is optional (AIX Toolbox python3-psutil): without it the exporter starts with the
    cpu collector disabled and one log line naming the metric it then lacks."""
    import importlib.util
    import logging
    from aix_exporter.cli import serve as cli
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "psutil" else real(name, *a))
    args = cli.build_parser().parse_args([])

    class Src:
        name = "system"
        runs_commands = local_system = True   # (the Source protocol's: a system source)
    with caplog.at_level(logging.WARNING):
        names = [c.name for c in cli.selected_collectors(args, Settings(), Src())]
    # every other default collector is still chosen, those after cpu too
    assert names == ["vmstat", "memory", "vmo", "aso", "vmstat_v", "vmstat_s", "process", "ldr_cntrl", "tape", "errpt"]
    msgs = [r.getMessage() for r in caplog.records if "psutil" in r.getMessage()]
    assert msgs == ["msg=collector disabled: the Python module psutil is not installed, so aix_cpu_seconds_total "
                    "is not exported (AIX Toolbox: dnf install python3-psutil) collector=cpu"]
    # a collector of several metrics names each, comma-separated
    from aix_exporter.collectors.cpu import CpuCollector
    monkeypatch.setattr(CpuCollector, "metrics", ("aix_cpu_seconds_total", "aix_cpu_other"))
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        cli.selected_collectors(args, Settings(), Src())
    assert [r.getMessage() for r in caplog.records if "psutil" in r.getMessage()] == [
        "msg=collector disabled: the Python module psutil is not installed, so aix_cpu_seconds_total, "
        "aix_cpu_other is not exported (AIX Toolbox: dnf install python3-psutil) collector=cpu"]
    monkeypatch.setattr(importlib.util, "find_spec", real)
    assert "cpu" in [c.name for c in cli.selected_collectors(args, Settings(), Src())]


def test_cpu_collector_maps_every_psutil_field_as_a_counter(monkeypatch):
    """Linux-style fields too (nice, irq, softirq, steal), each under its own mode, as a
    counter family (aix_cpu_seconds, type counter, samples _total); it needs the system source."""
    import collections
    import psutil
    fields = "user system idle iowait nice irq softirq steal"
    Times = collections.namedtuple("Times", fields)
    monkeypatch.setattr(psutil, "cpu_times", lambda: Times(*[float(i) for i in range(1, 9)]))
    fams = CpuCollector(Settings()).collect(None)
    assert [(f.name, f.type) for f in fams] == [("aix_cpu_seconds", "counter")]
    m = samples(fams)
    assert {k[1][0][1]: v for k, v in m.items()} == {"user": 1.0, "sys": 2.0, "idle": 3.0, "wait": 4.0, "nice": 5.0,
                                                      "irq": 6.0, "softirq": 7.0, "steal": 8.0}
    assert {k[0] for k in m} == {"aix_cpu_seconds_total"}
    assert CpuCollector.requires_system is True and CpuCollector.keys == ()


def test_watched_directory_reads_only_splat_reports_and_refuses_old_or_huge_ones(tmp_path):
    from aix_exporter.sources import SourceError, splat_window
    s = Settings()
    s.splat.report_dir = str(tmp_path)
    (tmp_path / "notes.txt").write_text("not a report")
    (tmp_path / ".splat.out.swp").write_text("an editor's swap file")
    src = SystemSource(s)
    with pytest.raises(SourceError, match=r"^no splat report named \*\.out in "):
        src.read("splat")
    report = tmp_path / "splat.out"
    report.write_text("a report")
    assert src.read("splat") == "a report"
    os.utime(report, (time.time() - 3601, time.time() - 3601))    # max_age_seconds 3600
    with pytest.raises(SourceError, match=r"is 360[0-9] s old, older than splat.max_age_seconds \(3600\): not served"):
        src.read("splat")
    os.utime(report, (time.time() - 3590, time.time() - 3590))
    assert src.read("splat") == "a report"
    with open(report, "wb") as fh:   # a sparse file of 64 MiB + 1: never read
        fh.truncate(splat_window.MAX_REPORT_BYTES + 1)
    with pytest.raises(SourceError, match=r"splat.out: 67108865 bytes, more than a splat report has"):
        src.read("splat")


def test_binary_output_is_reported_without_copying_the_line():
    from aix_exporter.parsers import ParseError, text_lines
    with pytest.raises(ParseError) as e:
        text_lines("ok line\n" + "\x00" * (50 << 20), "svmon -G")
    assert e.value.line_no == 2 and e.value.line == "\\x00" * 20


@pytest.mark.parametrize("option", ["-pa", "-PAS", "-pass", "-PASSW", "-passwo", "-Passwor", "-password", "-PASSWORD"])
def test_every_spelling_of_the_dsmadmc_password_is_redacted(option):
    shown = system.redact(["/usr/bin/dsmadmc", "-id=monitor", f"{option}=s3cret", "-dataonly=yes", "q actlog"])
    assert shown == f"/usr/bin/dsmadmc -id=monitor {option}=*** -dataonly=yes q actlog"


@pytest.mark.parametrize("option", ["-p", "-pw", "-passwords", "-id"])
def test_other_options_are_shown_as_they_are(option):
    assert system.redact([f"{option}=x"]) == f"{option}=x"


def test_a_binary_config_file_is_one_clear_error(tmp_path):
    from aix_exporter.config import ConfigError, load
    from aix_exporter.webconfig import load as load_web_config
    junk = tmp_path / "config.yml"
    junk.write_bytes(b"vmstat:\n  interval_seconds: 5\n\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(ConfigError, match=r"config.yml: not a text file \(byte 30 is not UTF-8\); not a configuration file$"):
        load(str(junk))
    with pytest.raises(ConfigError, match=r"config.yml: not a text file \(byte 30 is not UTF-8\); not a web configuration$"):
        load_web_config(str(junk))


def test_a_command_that_leaves_a_child_holding_its_output_is_not_waited_for(tmp_path):
    """The command exits but a background child keeps its stdout open: its output is taken
    and the child's process group killed, instead of every scrape timing out."""
    script = tmp_path / "cmd"
    pid = tmp_path / "child.pid"
    script.write_text(f"#!/bin/sh\necho first line\nsleep 300 &\necho $! > {pid}\necho last line\nexit 0\n")
    script.chmod(0o755)
    assert system.run([str(script)], timeout=30) == "first line\nlast line\n"
    child = int(pid.read_text())
    for _ in range(50):
        if not os.path.exists(f"/proc/{child}") or open(f"/proc/{child}/stat").read().split()[2] == "Z":
            break
        time.sleep(0.1)
    else:
        os.kill(child, 9)
        raise AssertionError("the child holding the pipe was left running")


def test_kill_running_ends_the_commands_in_flight(tmp_path):
    import threading
    script = tmp_path / "hang"
    script.write_text("#!/bin/sh\nexec sleep 300\n")
    script.chmod(0o755)
    errors = []

    def run():
        try:
            system.run([str(script)], 300)
        except system.CommandFailed as e:
            errors.append(str(e))

    t = threading.Thread(target=run)
    t.start()
    for _ in range(50):
        if system._running:
            break
        time.sleep(0.05)
    assert system.kill_running() == 1
    t.join(10)
    assert not t.is_alive() and not system._running
    assert errors == [f"{script}: exit status -9"]


def test_at_the_end_a_command_is_killed_or_never_started(tmp_path, monkeypatch):
    """serve's last step, kill_running(close=True): the command in flight is killed, and one a
    collector thread starts after it is refused, never left running past the exporter (under
    load a child ran before Popen returned, and the kill between the two missed it: the spawn
    and its registration are now one step under the lock the kill takes)."""
    import threading
    monkeypatch.setattr(system, "_closed", False)   # (this process's runner: open again after the test)
    script = tmp_path / "hang"
    script.write_text("#!/bin/sh\nexec sleep 300\n")
    script.chmod(0o755)
    errors = []
    t = threading.Thread(target=lambda: errors.append(_failure(lambda: system.run([str(script)], 300))))
    with system._running_lock:   # the kill comes while the command is being spawned
        t.start()
        time.sleep(0.2)
        assert not system._running
    assert system.kill_running(close=True) in (0, 1)
    t.join(10)
    assert not t.is_alive() and not system._running
    assert errors in ([f"{script}: exit status -9"], [f"{script}: not started, the exporter is stopping"])
    with pytest.raises(system.SourceError) as e:
        system.run(["/bin/true"], 5)
    assert str(e.value) == "/bin/true: not started, the exporter is stopping"


def _failure(call) -> str:
    try:
        call()
    except system.SourceError as e:
        return str(e)
    return "ran"


def test_each_command_costs_its_own_cpu_and_wall_time(tmp_path):
    """aix_exporter_command_cpu_seconds_total comes from the child's own usage (wait4), not
    from the exporter's: a shell loop that burns CPU shows it, a sleep shows wall time only."""
    from aix_exporter.exporter import cost_families
    burn, nap = tmp_path / "burn", tmp_path / "nap"
    burn.write_text("#!/bin/sh\ni=0\nwhile [ $i -lt 400000 ]; do i=$((i+1)); done\necho done\n")
    nap.write_text("#!/bin/sh\nsleep 0.5\necho done\n")
    for p in (burn, nap):
        p.chmod(0o755)
    before = system.command_costs()
    assert system.run([str(burn)], 60) == "done\n"
    assert system.run([str(nap)], 60) == "done\n"
    after = system.command_costs()
    cpu, wall, runs = (a - b for a, b in zip(after["burn"], before.get("burn", (0, 0, 0))))
    assert runs == 1 and cpu > 0.05 and wall >= cpu * 0.9
    cpu, wall, runs = (a - b for a, b in zip(after["nap"], before.get("nap", (0, 0, 0))))
    assert runs == 1 and cpu < 0.05 and 0.5 <= wall < 5
    fams = {f.name: f for f in cost_families()}
    samples = {(s.name, s.labels.get("command")): s.value for f in fams.values() for s in f.samples}
    assert samples[("aix_exporter_command_runs_total", "burn")] == after["burn"][2]
    assert samples[("aix_exporter_command_cpu_seconds_total", "burn")] == after["burn"][0]
    assert samples[("aix_exporter_cpu_seconds_total", None)] > 0
    assert samples[("aix_exporter_max_resident_memory_bytes", None)] > 10 << 20
