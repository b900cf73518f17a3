"""The command table is complete: every key has a parser, a simulator renderer, a fixture
directory, a replay file and a fuzz entry; every collector reads keys of the table; the
simulator imports nothing from the rest of the package; the source is explicit off AIX."""
import ast
import importlib.util
import subprocess
import sys

import pytest

from aix_exporter.collectors import registry
from aix_exporter.commands import COMMANDS, TABLE
from aix_exporter.simulate import render
from tests.lib import FIXTURES, ROOT
from tests.lib.processes import env

PACKAGE = ROOT / "exporter" / "aix_exporter"


@pytest.mark.parametrize("key", list(COMMANDS))
def test_every_key_has_parser_renderer_fixtures_and_replay_file(key):
    cmd = COMMANDS[key]
    assert (PACKAGE / "parsers" / f"{key}.py").is_file(), f"parsers/{key}.py missing"
    assert callable(cmd.parser.parse)
    assert key in render.RENDERERS, f"simulate/render.py has no renderer for {key}"
    assert sorted((FIXTURES / cmd.fixture_dir).glob("*.txt")), f"tests/fixtures/{key}/ has no fixture"
    assert (FIXTURES / "replay" / "tsm-lpar" / cmd.replay_file).is_file(), f"replay fixture {cmd.replay_file} missing"
    assert (ROOT / "tests" / "unit" / f"test_{key}.py").is_file(), f"tests/unit/test_{key}.py (edge cases) missing"
    assert cmd.fetch in {"run", "processes", "per_process", "splat", "log", "dsmadmc"}
    assert (cmd.argv is not None) == (cmd.fetch in {"run", "processes", "per_process", "dsmadmc"}), key


def test_renderers_are_exactly_the_table():
    assert set(render.RENDERERS) == set(COMMANDS)


def test_every_key_has_a_fuzz_entry_with_seeds():
    pytest.importorskip("atheris")
    path = ROOT / "tests" / "fuzz" / "fuzz_parsers.py"
    spec = importlib.util.spec_from_file_location("fuzz_parsers_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert set(mod.PARSERS) == set(COMMANDS)
    for key in COMMANDS:
        assert mod.seeds(key), f"fuzz harness has no seed for {key}"


def test_collectors_read_only_keys_of_the_table():
    for name, cls in registry().items():
        assert set(cls.keys) <= set(COMMANDS), (name, cls.keys)
    read = {k for cls in registry().values() for k in cls.keys}
    assert read == set(COMMANDS), f"keys no collector reads: {set(COMMANDS) - read}"


def test_one_spelling_per_key():
    assert all(c.key == c.key.lower() for c in TABLE)
    assert len({c.key for c in TABLE}) == len(TABLE)


def test_simulator_imports_nothing_from_the_rest_of_the_package():
    offenders = []
    for path in (PACKAGE / "simulate").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level >= 2 or mod.startswith("aix_exporter"):
                    offenders.append(f"{path.name}: from {'.' * node.level}{mod}")
            elif isinstance(node, ast.Import):
                offenders += [f"{path.name}: import {a.name}" for a in node.names if a.name.startswith("aix_exporter")]
    assert offenders == []


def test_off_aix_without_a_source_exits_1_naming_the_alternatives():
    proc = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--once"], capture_output=True, text=True,
                          env=env(), timeout=60)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "--source simulate:SCENARIO" in proc.stderr and "--source replay:DIR" in proc.stderr
    assert "case-study" in proc.stderr


def test_source_info_names_the_source():
    proc = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--source", "simulate:case-study", "--once"],
                          capture_output=True, text=True, env=env(), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert 'aix_exporter_source_info{source="simulate:case-study"} 1.0' in proc.stdout


def test_the_command_table_cannot_be_changed_at_run_time():
    """One table, read by the collectors' threads at once: its rows are frozen."""
    import dataclasses
    with pytest.raises(dataclasses.FrozenInstanceError):
        COMMANDS["vmstat"].background = False     # type: ignore[misc]
    assert COMMANDS["vmstat"].background is True


def test_the_setup_scripts_privileged_commands_are_the_command_tables():
    """src-setup.sh gives a non-root service user the access authorizations of PRIV_CMDS: the
    executables of the command table's rbac commands, no more, no fewer."""
    import re

    from aix_exporter.commands import rbac_executables
    from tests.lib import ROOT
    script = (ROOT / "deploy" / "aix" / "src-setup.sh").read_text()
    line = re.search(r'^PRIV_CMDS="([^"]*)"$', script, re.M).group(1)
    assert line.split() == rbac_executables() == ["/usr/bin/iostat", "/usr/bin/svmon", "/usr/bin/vmstat", "/usr/sbin/asoo",
                                                                   "/usr/sbin/vmo"]
    # each command that reads kernel statistics is marked, svmon -G as well as svmon -P (one executable);
    # ps eww, the splat report, the activity log and dsmadmc need no authorization
    from aix_exporter.commands import COMMANDS
    assert [k for k, c in COMMANDS.items() if c.rbac] == [
        "vmstat", "vmstat_v", "vmstat_s", "svmon_g", "svmon_p", "vmo", "asoo", "iostat_tape"]


def test_each_commands_argv_with_the_settings_it_reads():
    """The argv each command runs, written out by hand for settings that differ from the
    defaults, so a setting read from the wrong place or an argument dropped shows."""
    from aix_exporter.config import Settings
    s = Settings()
    s.vmstat.interval_seconds, s.tape.interval_seconds = 7, 9
    s.vmo.tunables = ["lgpg_regions", "lgpg_size", "maxpin%"]
    s.tsm.admin_id, s.tsm.dsmadmc_binary, s.tsm.summary_hours = "monitor", "/opt/tivoli/tsm/client/ba/bin/dsmadmc", 6
    argv = {c.key: (c.argv(s, ["12", "34"]) if c.fetch in ("processes", "per_process") else c.argv(s))
            for c in TABLE if c.argv}
    dsm = ["/opt/tivoli/tsm/client/ba/bin/dsmadmc", "-id=monitor", "-dataonly=yes"]
    assert argv == {
        "vmstat": ["/usr/bin/vmstat", "-w", "-l", "7", "2"],
        "vmstat_v": ["/usr/bin/vmstat", "-v"],
        "vmstat_s": ["/usr/bin/vmstat", "-s"],
        "svmon_g": ["/usr/bin/svmon", "-G"],
        "asoo": ["/usr/sbin/asoo", "-a"],
        "svmon_p": ["/usr/bin/svmon", "-P", "12", "34"],
        "ps_env": ["/usr/bin/ps", "eww", "12", "34"],
        "vmo": ["/usr/sbin/vmo", "-L", "lgpg_regions", "-L", "lgpg_size", "-L", "maxpin%"],
        "iostat_tape": ["/usr/bin/iostat", "-p", "9", "2"],
        "tsm_processes": dsm + ["-comma", "select process_num,process,bytes_processed,files_processed from processes"],
        "tsm_sessions": dsm + ["-comma", "select session_id,client_name,bytes_sent,bytes_received from sessions"],
        "tsm_mounts": dsm + ["query", "mount"],
        "tsm_summary": dsm + ["-comma", "select activity,sum(bytes),count(*) from summary where "
                                        "end_time>current_timestamp-6 hours group by activity"],
        "tsm_db": dsm + ["-comma", "select BUFF_HIT_RATIO,DATABASE_NAME,FREE_PAGES,FREE_SPACE_MB,LAST_BACKUP_DATE,"
                                   "PKG_HIT_RATIO,SORT_OVERFLOW,TOTAL_BUFF_REQ,TOTAL_PAGES,TOT_FILE_SYSTEM_MB,"
                                   "USABLE_PAGES,USED_DB_SPACE_MB,USED_PAGES,CURRENT_TIMESTAMP from db"],
        "tsm_log": dsm + ["-comma", "select FREE_SPACE_MB,TOTAL_SPACE_MB,USED_SPACE_MB,ARCHLOG_FREE_FS_MB,"
                                    "ARCHLOG_TOL_FS_MB,ARCHLOG_USED_FS_MB from log"],
        "errpt": ["/usr/bin/errpt", "-a"],
        "tsm_stgpools": dsm + ["-comma", "select DEVCLASS,EST_CAPACITY_MB,LOCAL_EST_CAPACITY_MB,LOCAL_PCT_LOGICAL,"
                                         "LOCAL_PCT_UTILIZED,PCT_LOGICAL,PCT_UTILIZED,POOLTYPE,STGPOOL_NAME,STG_TYPE,"
                                         "TOTAL_CLOUD_SPACE_MB,USED_CLOUD_SPACE_MB from stgpools"],
        "tsm_libvolumes": dsm + ["-comma", "select MEDIATYPE,STATUS,LIBRARY_NAME,COUNT(*) from libvolumes group by "
                                           "(MEDIATYPE,STATUS,LIBRARY_NAME)"],
        "tsm_drives": dsm + ["-comma", "select LIBRARY_NAME,DRIVE_NAME,ONLINE,DRIVE_STATE,VOLUME_NAME from drives"],
        "tsm_paths": dsm + ["-comma", "select SOURCE_NAME,DESTINATION_NAME,DESTINATION_TYPE,LIBRARY_NAME,DEVICE,ONLINE "
                                      "from paths"],
        "tsm_events": dsm + ["-comma", "select SCHEDULE_NAME,STATUS from events where scheduled_start>=current_timestamp"
                                       "-24 hours and scheduled_start<=current_timestamp"],
        "tsm_monitor": dsm + ["-comma", "query", "monitorstatus"],
    }
    assert {c.key: c.fetch for c in TABLE} == {
        "vmstat": "run", "vmstat_v": "run", "vmstat_s": "run", "svmon_g": "run", "svmon_p": "processes",
        "ps_env": "per_process", "vmo": "run", "asoo": "run", "splat": "splat", "iostat_tape": "run", "tsm_actlog": "log",
        "tsm_processes": "dsmadmc", "tsm_sessions": "dsmadmc", "tsm_mounts": "dsmadmc", "tsm_summary": "dsmadmc",
        "tsm_db": "dsmadmc", "tsm_log": "dsmadmc", "errpt": "run", "tsm_stgpools": "dsmadmc", "tsm_libvolumes": "dsmadmc",
        "tsm_drives": "dsmadmc", "tsm_paths": "dsmadmc", "tsm_events": "dsmadmc", "tsm_monitor": "dsmadmc"}


def test_the_commands_that_take_an_interval_and_how_long_they_run():
    from aix_exporter.config import Settings
    s = Settings()
    s.vmstat.interval_seconds, s.tape.interval_seconds = 7, 9
    # (the checklist's queries run on their own schedule too: once every tsm.checklist_interval_seconds)
    assert {c.key for c in TABLE if c.background} == {"vmstat", "splat", "iostat_tape", "tsm_db", "tsm_log", "errpt",
                                                      "tsm_stgpools", "tsm_libvolumes", "tsm_drives", "tsm_paths",
                                                      "tsm_events", "tsm_monitor"}
    assert {c.key: c.runs_for(s) for c in TABLE if c.runs_for} == {"vmstat": 14, "iostat_tape": 9}


@pytest.mark.parametrize("key,output,answer", [
    ("iostat_tape", "No tapes were found.", True), ("iostat_tape", "no tape found", True),
    ("iostat_tape", "NO TAPES FOUND", True), ("iostat_tape", "iostat: 0551-157 Cannot open", False),
    ("tsm_mounts", "ANR2034E QUERY MOUNT: No match found using this criteria.", True),
    ("tsm_sessions", "ANR2034E SELECT: No match found using this criteria.", True),
    ("tsm_sessions", "ANR20345E something else", False), ("tsm_sessions", "XANR2034E", False),
    ("tsm_drives", "ANR2034E SELECT: No match found using this criteria.", True),
    ("tsm_drives", "ANR2020E SELECT: invalid column", False),
    ("tsm_events", "ANR2034E SELECT: No match found using this criteria.", True),
    ("tsm_monitor", "ANR2034E QUERY MONITORSTATUS: No match found using this criteria.", True),
])
def test_a_failure_that_is_an_answer(key, output, answer):
    import re
    assert bool(re.search(COMMANDS[key].exit_ok_if, output)) is answer
    assert {c.key for c in TABLE if c.exit_ok_if} == {"iostat_tape", "tsm_processes", "tsm_sessions", "tsm_mounts",
                                                    "tsm_summary", "tsm_stgpools", "tsm_libvolumes", "tsm_drives",
                                                    "tsm_paths", "tsm_events", "tsm_monitor"}


def test_the_readme_sources_table_rows():
    from aix_exporter.commands import sources_table
    lines = sources_table().splitlines()
    assert lines[:2] == ["| key | command | what it reports | what runs on AIX (`--source system`) | replay file |",
                         "|---|---|---|---|---|"]
    assert lines[2] == ("| `vmstat` | vmstat | CPU, run queue, memory, paging, large pages (-l), pc/ec of the last "
                        "interval | /usr/bin/vmstat -w -l INTERVAL 2 (background, last row) | `vmstat.txt` |")
    assert len(lines) == 2 + len(TABLE)
    assert COMMANDS["svmon_g"].fixture_dir == "svmon_g" and COMMANDS["svmon_g"].replay_file == "svmon_g.txt"


def test_the_module_prints_the_readme_sources_table():
    from aix_exporter.commands import sources_table
    proc = subprocess.run([sys.executable, "-m", "aix_exporter.commands"], capture_output=True, text=True, env=env(),
                          timeout=60)
    assert (proc.returncode, proc.stdout) == (0, sources_table())


def test_every_corpus_folder_a_command_names_exists():
    corpus = ROOT.parent / "shared" / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus is not beside the checkout")
    named = {f for c in TABLE for f in c.corpus + c.seeds_from}
    assert named and {f for f in named if not (corpus / f).is_dir()} == set()
    assert COMMANDS["iostat_tape"].seeds_from == ("iostat",)
