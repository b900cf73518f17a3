import subprocess
import sys

import pytest

from aix_exporter.config import ConfigError, load
from tests.e2e.helpers import env


def write(tmp_path, text):
    p = tmp_path / "c.yml"
    p.write_text(text)
    return str(p)


def test_defaults_without_file():
    s = load(None)
    assert s.vmo.tunables == ["lgpg_regions", "lgpg_size"]
    assert s.process.commands == ["dsmserv", "dsmsta"] and s.process.max_processes == 20
    assert s.tsm.message_ids == ["ANR0358E", "ANR9999D"]


def test_typed_values(tmp_path):
    s = load(write(tmp_path, "command_timeout_seconds: 3\nvmstat:\n  interval_seconds: 10\n"
                             "process:\n  commands: [dsmserv]\n  max_processes: 5\n"))
    assert s.command_timeout_seconds == 3 and s.vmstat.interval_seconds == 10
    assert s.process.commands == ["dsmserv"] and s.process.max_processes == 5


@pytest.mark.parametrize("text,message", [
    ("vmstat: 5\n", "vmstat: expected a mapping"),
    ("vmstat:\n  interval: 5\n", "unknown key"),
    ("vmstat:\n  interval_seconds: fast\n", "expected a number"),
    ("vmstat:\n  interval_seconds: -1\n", "must be positive"),
    ("vmo:\n  tunables: ['lgpg_regions; rm -rf /']\n", "not a vmo tunable name"),
    ("process:\n  commands: ['dsm serv']\n", "not a command name"),
    ("tsm:\n  dsmadmc: [dsmadmc, -id=admin]\n", "absolute path"),
    ("tsm:\n  message_ids: [hello]\n", "not a message id"),
    ("a: [unclosed\n", "not valid YAML"),
])
def test_invalid_config_is_rejected_with_a_clear_message(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        load(write(tmp_path, text))


def test_check_config_flag(tmp_path):
    good = write(tmp_path, "vmstat:\n  interval_seconds: 10\n")
    ok = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--config.file", good, "--check-config"],
                        capture_output=True, text=True, env=env())
    assert ok.returncode == 0 and "is valid" in ok.stdout
    (tmp_path / "bad.yml").write_text("vmstat:\n  interval_seconds: x\n")
    bad = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--config.file", str(tmp_path / "bad.yml"),
                          "--check-config"], capture_output=True, text=True, env=env())
    assert bad.returncode == 1 and "vmstat.interval_seconds: expected a number" in bad.stderr


@pytest.mark.parametrize("text,message", [
    ("command_timeout_seconds: .inf\n", "must be a finite number"),
    ("vmstat:\n  interval_seconds: .nan\n", "must be a finite number"),
    ("command_timeout_seconds: 100000\n", "must be between 0.1 and 600"),
    ("splat:\n  every_minutes: 0.001\n", "must be between 1 and 1440"),
    ("tsm:\n  actlog_file: /tsm/dsmserv.log\n  state_file: /tsm/dsmserv.log\n", "state file must be a file of its own"),
    ("splat:\n  report_dir: /var/perfpmr\ntsm:\n  state_file: /var/perfpmr/state.json\n", "inside it"),
    ("a: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b]\n", "aliases"),
])
def test_runaway_and_destructive_configs_are_refused(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        load(write(tmp_path, text))


def test_billion_laughs_is_refused_at_once(tmp_path):
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)]
    with pytest.raises(ConfigError, match="aliases"):
        load(write(tmp_path, "\n".join(lines) + "\n"))


def test_a_huge_config_file_is_refused(tmp_path):
    p = tmp_path / "c.yml"
    p.write_text("# " + "x" * (2 << 20) + "\n")
    with pytest.raises(ConfigError, match="larger than"):
        load(str(p))


def test_check_config_reports_every_error_at_once_with_line_and_column(tmp_path):
    text = ("command_timeout_seconds: fast\n"            # line 1, value at column 26
            "vmstat:\n"
            "  interval_seconds: .nan\n"                # line 3, column 21
            "  colour: blue\n"                          # line 4: unknown key
            "tsm:\n"
            "  actlog_file: /tsm/dsmserv.log\n"
            "  dsmadmc: [/usr/bin/dsmadmc, -dataonly=yes, q, actlog]\n")   # line 7: conflicts with actlog_file
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as e:
        load(path)
    lines = str(e.value).splitlines()
    assert len(lines) == 4, lines
    assert lines[0] == f"{path}:1:26: command_timeout_seconds: expected a number, got 'fast'"
    assert f"{path}:4:11: vmstat.colour: unknown key" in lines[1]
    assert lines[2].startswith(f"{path}:3:21: vmstat.interval_seconds: must be a finite number")
    assert lines[3].startswith(f"{path}:7:12: tsm.dsmadmc: tsm.actlog_file and tsm.dsmadmc are both set")
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--config.file", path, "--check-config"],
                       capture_output=True, text=True, env=env())
    assert r.returncode == 1 and "invalid configuration (4 problems)" in r.stderr
    assert r.stderr.count(f"{path}:") == 4


def test_yaml_syntax_error_names_line_and_column(tmp_path):
    path = write(tmp_path, "vmstat:\n  interval_seconds: [1, 2\n")
    with pytest.raises(ConfigError, match=rf"{path}:3:1: not valid YAML"):
        load(path)


def test_help_lists_subcommands_and_collector_flags():
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--help"], capture_output=True, text=True, env=env())
    assert r.returncode == 0
    assert "aix-exporter simulate" in r.stdout
    for name in ("vmstat", "memory", "process", "splat", "tsm"):
        assert f"--collector.{name}" in r.stdout and f"--no-collector.{name}" in r.stdout, name
