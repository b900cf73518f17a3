import subprocess
import sys

import pytest

from aix_exporter.config import ConfigError, load
from tests.lib.processes import env


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


def _check(tmp_path, text):
    import subprocess
    import sys
    from tests.lib.processes import env
    cfg = tmp_path / "c.yml"
    cfg.write_text(text)
    return subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--config.file", str(cfg), "--check-config"],
                          capture_output=True, text=True, env=env(), timeout=60), cfg


def test_check_config_reports_what_fails_at_once(tmp_path):
    """Issue 29: configs that passed --check-config and then failed every cycle. Each is refused,
    with the key's line."""
    pw = tmp_path / "tsm.pw"
    pw.write_text("secret\n")
    pw.chmod(0o644)
    cases = [
        (f"tsm:\n  actlog_file: {tmp_path}/missing.log\n", 2, f"{tmp_path}/missing.log: no such file"),
        (f"tsm:\n  admin_id: monitor\n  password_file: {tmp_path}/missing.pw\n", 3,
         f"{tmp_path}/missing.pw: No such file or directory"),
        (f"tsm:\n  admin_id: monitor\n  password_file: {pw}\n", 3,
         f"{pw}: readable by others (mode 644); chmod 600 it"),
        (f"splat:\n  report_dir: {tmp_path}/nodir\n", 2, f"{tmp_path}/nodir: no such directory"),
        ("tsm:\n  dsmadmc: [/usr/bin/dsmadmc, -id=monitor, -pa=secret, q actlog]\n", 2,
         "a password on the command line (every user sees it in ps)"),
        ("tsm:\n  dsmadmc: [/usr/bin/dsmadmc, -id=monitor, -PASSWO=secret, q actlog]\n", 2,
         "a password on the command line (every user sees it in ps)"),
    ]
    for text, line, message in cases:
        r, cfg = _check(tmp_path, text)
        assert r.returncode != 0, text
        assert f"{cfg}:{line}:" in r.stderr and message in r.stderr, (text, r.stderr)
    pw.chmod(0o600)
    log = tmp_path / "dsmserv.log"
    log.write_text("")
    r, _ = _check(tmp_path, f"tsm:\n  actlog_file: {log}\n  admin_id: monitor\n  password_file: {pw}\n")
    assert r.returncode == 0, r.stderr


def test_check_config_refuses_the_trace_window_for_a_user_that_is_not_root(tmp_path, monkeypatch):
    from aix_exporter.config import ConfigError, load
    cfg = tmp_path / "c.yml"
    cfg.write_text("splat:\n  enabled_trace: true\n")
    monkeypatch.setattr("os.geteuid", lambda: 202)
    with pytest.raises(ConfigError, match=r"c.yml:2:\d+: the trace window needs root .*uid 202"):
        load(str(cfg), check_files=True)
    assert load(str(cfg)).splat.enabled_trace is True   # (at start the collector says so itself)
    monkeypatch.setattr("os.geteuid", lambda: 0)
    assert load(str(cfg), check_files=True).splat.enabled_trace is True


def test_the_main_configuration_refuses_duplicate_keys_and_non_regular_files(tmp_path):
    """The same strict reader as the web configuration (issue 45): a repeated key would silently
    replace the first; a FIFO would block --check-config."""
    import os

    from aix_exporter.config import ConfigError, load
    p = tmp_path / "c.yml"
    p.write_text("tsm:\n  admin_id: monitor\ntsm:\n  admin_id: other\n")
    with pytest.raises(ConfigError) as e:
        load(str(p))
    assert str(e.value) == f"{p}:3:1: not valid YAML: duplicate key 'tsm'"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError) as e:
        load(str(fifo))
    assert str(e.value) == f"{fifo}: not a regular file (a FIFO, device or directory); not a configuration file"
