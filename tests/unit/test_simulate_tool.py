"""`aix-exporter simulate`: a replay directory of every command at the simulated time asked for
(the case study's pool is 0 pages at its start and 160 at its end), the history's targets and
steps, and each refusal of its arguments."""
import os

import pytest

from aix_exporter import cli
from aix_exporter.tools import simulate
from tests.lib.checks import promtool_only, simulated_lines

KEYS = ["vmstat", "vmstat_v", "vmstat_s", "svmon_g", "svmon_p", "ps_env", "vmo", "asoo", "splat", "iostat_tape",
        "tsm_actlog", "tsm_processes", "tsm_sessions", "tsm_mounts", "tsm_summary", "tsm_db", "tsm_log",
        "errpt", "tsm_stgpools", "tsm_libvolumes", "tsm_drives", "tsm_paths",
        "tsm_events", "tsm_monitor"]


def lgpg_regions(vmo_text):
    row = next(line for line in vmo_text.splitlines() if line.startswith("lgpg_regions "))
    return row.split()[1]


def test_a_replay_directory_at_the_time_asked_for(tmp_path, capsys):
    assert cli.main(["simulate", "--scenario", "case-study", "--out", str(tmp_path / "end")]) == 0
    assert capsys.readouterr().out == (f"wrote 24 files to {tmp_path / 'end'} ({', '.join(KEYS)}) at t=28800s\n")
    assert sorted(p.name for p in (tmp_path / "end").iterdir()) == sorted(f"{k}.txt" for k in KEYS)
    assert lgpg_regions((tmp_path / "end" / "vmo.txt").read_text()) == "160"
    assert cli.main(["simulate", "--scenario", "case-study", "--out", str(tmp_path / "start"), "--at", "0"]) == 0
    assert capsys.readouterr().out.endswith(" at t=0s\n")
    assert lgpg_regions((tmp_path / "start" / "vmo.txt").read_text()) == "0"
    assert (tmp_path / "start" / "vmstat.txt").read_text().lstrip().startswith("System configuration:")


def samples(path):
    out = {}
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            key, value, ts = line.rsplit(" ", 2)
            out.setdefault(key, []).append(float(ts))
    return out


def test_a_history_with_the_targets_labels_steps_and_end(tmp_path, capsys):
    om = tmp_path / "h.om"
    assert cli.main(["simulate", "--scenario", "steady", "--openmetrics", str(om), "--duration", "300", "--step", "100",
                          "--end", "1800000000", "--target", "job=lpar,instance=b:1,site=x"]) == 0
    got = samples(om)
    n = sum(len(v) for v in got.values())
    assert capsys.readouterr().out == f"wrote {n} samples to {om}\n"
    user = got['aix_vmstat_cpu_ratio{instance="b:1",job="lpar",mode="user",site="x"}']
    assert user == [1_799_999_700.0, 1_799_999_800.0, 1_799_999_900.0, 1_800_000_000.0]
    assert cli.main(["simulate", "--scenario", "steady", "--openmetrics", str(om), "--duration", "120", "--end",
                          "1800000000", "--tail", "30", "--tail-step", "10"]) == 0
    user = samples(om)['aix_vmstat_cpu_ratio{instance="tsmsrv01:10990",job="aix",mode="user"}']
    assert user == [1_799_999_880.0, 1_799_999_940.0, 1_799_999_970.0, 1_799_999_980.0, 1_799_999_990.0,
                    1_800_000_000.0]


@pytest.mark.parametrize("args,message", [
    ([], "give --out DIR, --openmetrics FILE and/or --tsdb DIR"),
    (["--openmetrics", "x.om", "--target", "job"], "--target takes k=v,k=v"),
    (["--openmetrics", "x.om", "--rules", "alerts/aix-rules.yml"], "--rules goes with --tsdb DIR"),
    (["--tsdb", "db", "--rules", "no/such/rules.yml"], "--rules no/such/rules.yml: no such file"),
])
def test_refusals(args, message, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["simulate", "--scenario", "steady", *args])
    assert e.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"aix-exporter simulate: error: {message}"


def test_the_history_of_a_scenario_ends_at_its_end_by_default(monkeypatch):
    monkeypatch.setattr(simulate.time, "time", lambda: 1_800_000_000.0)
    times = [t for t, _ in simulate.history("steady", step=14400)]
    assert times == [1_800_000_000.0 - 28800, 1_800_000_000.0 - 14400, 1_800_000_000.0]


@pytest.mark.skipif(not __import__("shutil").which("promtool"), reason="needs Debian's prometheus (promtool)")
def test_backfilled_history_as_blocks_with_the_rules_over_the_longest_run(tmp_path, monkeypatch):
    import json
    import os
    rules = tmp_path / "rules.yml"
    rules.write_text("groups:\n- name: t\n  rules:\n  - record: aix:test:sum\n    expr: sum(aix_vmstat_cpu_ratio)\n")
    said, ranges = [], []
    real = simulate.importing.backfill_rules

    def backfill(tsdb, files, start, end):
        ranges.append((start, end))
        return real(tsdb, files, start, end)
    monkeypatch.setattr(simulate.importing, "backfill_rules", backfill)
    db = tmp_path / "db"
    end = 1_800_000_000.0
    simulate.backfilled(str(db), [("steady", 1200, {"job": "a", "instance": "x:1"}), ("steady", 600, None)], end,
                        [str(rules)], said.append)
    assert said == ["simulating steady (0.333333 h) ...", "simulating steady (0.166667 h) ...",
                    "backfilling the recording rules ..."]
    assert ranges == [(int(end - 1200 - 60), int(end))]
    metas = [json.loads((db / b / "meta.json").read_text()) for b in os.listdir(db) if (db / b / "meta.json").exists()]
    assert min(m["minTime"] for m in metas) == int((end - 1200) * 1000)
    assert max(m["maxTime"] for m in metas) <= int(end * 1000) + 1


def test_backfilled_needs_promtool(tmp_path, monkeypatch):
    monkeypatch.setattr(simulate.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError) as e:
        simulate.backfilled(str(tmp_path), [("steady", 60, None)], 1_800_000_000.0, [])
    assert str(e.value) == "the history needs promtool (Debian package prometheus)"


def test_a_failing_promtool_is_one_line(tmp_path, monkeypatch):
    fake = tmp_path / "promtool"
    fake.write_text("#!/bin/sh\necho \"  error: out of order sample\" >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(simulate.shutil, "which", lambda name: str(fake))
    with pytest.raises(RuntimeError) as e:
        simulate.backfilled(str(tmp_path / "db"), [("steady", 60, None)], 1_800_000_000.0, [])
    assert str(e.value) == "promtool tsdb create-blocks-from failed: error: out of order sample"


def test_the_history_defaults_seed_1_no_tail_and_a_15_s_tail_step():
    end = 1_800_000_000.0
    default = [(t, [(s.name, s.labels, s.value) for f in fams for s in f.samples if not s.name.startswith(
        "aix_exporter_")]) for t, fams in simulate.history("steady", step=3600, end=end, duration=7200)]
    seeded = [(t, [(s.name, s.labels, s.value) for f in fams for s in f.samples if not s.name.startswith(
        "aix_exporter_")]) for t, fams in simulate.history("steady", 1, 3600, end, 7200)]
    assert default == seeded
    # no tail: the last step is not stretched to the end (100 s in steps of 30)
    assert [t - end for t, _ in simulate.history("steady", step=30, end=end, duration=100)] == [-100, -70, -40, -10]
    assert [t - end for t, _ in simulate.history("steady", step=60, end=end, duration=120, tail=30)] == [
        -120, -60, -30, -15, 0]


def test_the_history_is_what_the_exporter_would_serve_at_each_time():
    end = 1_800_000_000.0
    for t, fams in simulate.history("steady", step=600, end=end, duration=1200):
        names = {f.name for f in fams}
        assert "aix_cpu_seconds" not in names and "aix_vmstat_cpu_ratio" in names    # no host CPU of this machine
        stamps = {s.labels["collector"]: s.value for f in fams if f.name ==
                  "aix_exporter_collector_last_success_timestamp_seconds" for s in f.samples}
        assert stamps and set(stamps.values()) == {t}                                # the simulated clock


def test_simulate_openmetrics_default_tail_step_is_15_s(tmp_path, capsys):
    om = tmp_path / "h.om"
    assert cli.main(["simulate", "--scenario", "steady", "--openmetrics", str(om), "--duration", "120", "--end",
                          "1800000000", "--tail", "30"]) == 0
    user = samples(om)['aix_vmstat_cpu_ratio{instance="tsmsrv01:10990",job="aix",mode="user"}']
    assert user == [1_799_999_880.0, 1_799_999_940.0, 1_799_999_970.0, 1_799_999_985.0, 1_800_000_000.0]


def test_promtool_runs_in_the_c_locale(tmp_path, monkeypatch):
    fake = tmp_path / "promtool"
    fake.write_text("#!/bin/sh\necho \"LC_ALL=$LC_ALL LANG=$LANG\" >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(simulate.shutil, "which", lambda name: str(fake))
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    with pytest.raises(RuntimeError) as e:
        simulate.backfilled(str(tmp_path / "db"), [("steady", 60, None)], 1_800_000_000.0, [])
    assert str(e.value) == "promtool tsdb create-blocks-from failed: LC_ALL=C LANG=C"


@pytest.mark.parametrize("module,words", [("aix_exporter.cli simulate", "aix-exporter simulate"),
                                          ("aix_exporter.tools.standin", "python3 -m aix_exporter.tools.standin")])
def test_the_tools_run_as_modules(module, words):
    import subprocess
    import sys
    from tests.lib.processes import env
    r = subprocess.run([sys.executable, "-m", *module.split(), "--help"], capture_output=True, text=True, env=env(), timeout=60)
    assert r.returncode == 0 and r.stdout.startswith(f"usage: {words} ")


def test_a_replay_without_the_server_running_has_every_other_command(tmp_path):
    # at 4 h the case study stops dsmserv for its tuning: no monitored process, so no svmon -P or ps eww,
    # and dsmadmc cannot reach the server: no checklist answer either (the error log is the LPAR's: it answers)
    written = simulate.write_replay("case-study", str(tmp_path), 14400, 1)
    assert written == ["vmstat", "vmstat_v", "vmstat_s", "svmon_g", "vmo", "asoo", "splat", "iostat_tape", "tsm_actlog",
                       "tsm_processes", "tsm_sessions", "tsm_mounts", "tsm_summary", "errpt"]
    assert sorted(os.listdir(tmp_path)) == sorted(f"{k}.txt" for k in written)



def test_backfilled_into_a_folder_that_exists_backfills_the_rules_over_the_longest_run(tmp_path, monkeypatch):
    monkeypatch.setattr(simulate.shutil, "which", promtool_only)
    asked = []
    monkeypatch.setattr(simulate.importing, "backfill_rules", lambda *a: asked.append(a))
    simulate.backfilled(str(tmp_path), [], 1_800_000_000.0, ["r.yml"])      # no run: the rules over no history
    assert asked == [(str(tmp_path), ["r.yml"], 1_799_999_940, 1_800_000_000)]


def test_a_failing_promtool_is_quoted_by_its_last_500_characters(tmp_path, monkeypatch):
    import subprocess
    monkeypatch.setattr(simulate.shutil, "which", promtool_only)
    monkeypatch.setattr(simulate.subprocess, "run", lambda argv, **kw: subprocess.CompletedProcess(
        argv, 1, "", "START" + "e" * 499 + "Z\n"))
    with pytest.raises(RuntimeError) as e:
        simulate.backfilled(str(tmp_path / "db"), [("steady", 60, None)], 1_800_000_000.0, [])
    assert str(e.value) == "promtool tsdb create-blocks-from failed: " + "e" * 499 + "Z"


def test_the_simulate_commands_defaults_and_target(tmp_path, capsys):
    end = "1800000000"
    assert cli.main(["simulate", "--scenario", "case-study", "--openmetrics", str(tmp_path / "a.om"), "--end", end,
                          "--duration", "590", "--target", "job=aix,site=a=b"]) == 0
    simulate.write_openmetrics("case-study", str(tmp_path / "b.om"), 1, 60.0, 1_800_000_000.0, 590,
                               {"job": "aix", "site": "a=b"}, 0.0, 15.0)
    assert simulated_lines(tmp_path / "a.om") == simulated_lines(tmp_path / "b.om")   # --seed 1, no --tail by default
    assert 'site="a=b"' in (tmp_path / "a.om").read_text()


def test_a_later_piece_of_a_history_is_the_same_piece_of_the_whole():
    """--after: the gap between a history and a live exporter's first scrape, filled later.
    Its samples are the whole history's at the same times (the activity log's counts too,
    which a fresh collector reads from the log's start), and none at or before the epoch."""
    end = 1_800_000_000.0

    def figures(scenario, after=None):
        return [(t, sorted((s.name, tuple(sorted(s.labels.items())), s.value) for f in fams for s in f.samples
                           if not s.name.startswith("aix_exporter_")))
                for t, fams in simulate.history(scenario, end=end, tail=30, after=after)]
    for scenario in ("case-study", "exhaustion"):
        whole = figures(scenario)
        piece = figures(scenario, after=end - 30)
        assert [t - end for t, _ in piece] == [-15.0, 0.0]
        assert piece == whole[-2:]
        assert [t - end for t, _ in figures(scenario, after=end - 15)] == [0.0]
    # the exhaustion scenario's server has logged ANR9999D and ANR0358E by its end: counted in the piece
    assert [(labels, value) for name, labels, value in piece[-1][1] if name == "aix_tsm_messages_total"] == [
        ((("msgid", "ANR0358E"), ("severity", "E")), 1.0), ((("msgid", "ANR9999D"), ("severity", "D")), 1.0)]


def test_simulate_after_on_the_command_line(tmp_path, capsys):
    om = tmp_path / "gap.om"
    assert cli.main(["simulate", "--scenario", "steady", "--openmetrics", str(om), "--duration", "120", "--end",
                          "1800000000", "--tail", "30", "--after", "1799999985"]) == 0
    stamps = {line.rsplit(" ", 1)[1] for line in simulated_lines(om) if not line.startswith("#")}
    assert stamps == {"1800000000.000"}


def test_the_splat_reports_time_in_a_history_is_each_samples_time():
    """Issue 48: a slip in the splat report's time in simulated histories passed every test.
    At every step the report is the one just produced: its timestamp is the sample's own time,
    and its window the 5-second trace the simulated splat reports."""
    end = 1_800_000_000.0
    seen = []
    for epoch, families in simulate.history("steady", seed=1, step=60, end=end, duration=300):
        by_name = {f.name: f for f in families}
        stamp = by_name["aix_splat_report_timestamp_seconds"].samples[0].value
        window = by_name["aix_splat_window_seconds"].samples[0].value
        seen.append((epoch, stamp, window))
    assert [e for e, _, _ in seen] == [end - 300 + 60 * k for k in range(6)]
    assert all(stamp == epoch for epoch, stamp, _ in seen), seen
    assert {w for _, _, w in seen} == {5.0}


def test_simulate_tsdb_without_promtool_is_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("aix_exporter.cli.simulate.shutil.which", lambda name: None)
    assert cli.main(["simulate", "--scenario", "steady", "--tsdb", str(tmp_path / "db")]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(
        "promtool not found (Debian package prometheus): --tsdb needs it; --openmetrics FILE writes the history "
        "without it")
    assert not (tmp_path / "db").exists()


def test_simulate_tsdb_writes_blocks_then_backfills_the_rules_over_the_history(tmp_path, monkeypatch, capsys):
    """One end for the history and its rules: the rules' range is the history's, in whole minutes."""
    from aix_exporter.tools import importing
    calls = []
    monkeypatch.setattr("aix_exporter.cli.simulate.shutil.which", promtool_only)
    monkeypatch.setattr(importing, "create_blocks", lambda om, db: calls.append(("blocks", open(om).read()[:6], db)))
    monkeypatch.setattr(importing, "backfill_rules", lambda db, rules, start, end: calls.append(
        ("rules", db, rules, start, end)) or 3)
    db = str(tmp_path / "db")
    assert cli.main(["simulate", "--scenario", "steady", "--duration", "600", "--end", "1800000000", "--tsdb", db,
                     "--rules", "alerts/aix-rules.yml"]) == 0
    assert calls == [("blocks", "# TYPE", db),
                     ("rules", db, ["alerts/aix-rules.yml"], 1_799_999_400 - 60, 1_800_000_000 + 120)]
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [f"blocks written to {db}",
                       f"recording rules of alerts/aix-rules.yml backfilled over the simulated range (3 blocks, "
                       f"every 60 s) into {db}"]
