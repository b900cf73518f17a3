"""Every message of a refused configuration, written out whole (config.py): an admin reads
them in --check-config and in the journal, so the key, the reason and the position are each
part of the contract, not a substring of it. The file:line:column prefix is where the value
starts in the file."""
import os

import pytest

from aix_exporter import config
from aix_exporter.config import MAX_CONFIG_BYTES, ConfigError, Settings, load, validate


def refused(tmp_path, text):
    p = tmp_path / "c.yml"
    p.write_text(text)
    with pytest.raises(ConfigError) as e:
        load(str(p))
    return str(e.value).replace(str(p), "F")


# (file text, every line of the message, F for the file's path)
CASES = [
    ("splat:\n  enabled_trace: 'yes'\n",
     ["F:2:18: splat.enabled_trace: expected true or false, got 'yes'"]),
    ("command_timeout_seconds: 0\n",
     ["F:1:26: command_timeout_seconds: must be positive, got 0"]),
    ("command_timeout_seconds: 601\n",
     ["F:1:26: command_timeout_seconds: must be between 0.1 and 600, got 601"]),
    ("vmo:\n  tunables: lgpg_regions\n",
     ["F:2:13: vmo.tunables: expected a list, got 'lgpg_regions'"]),
    ("vmo:\n  tunables: [lgpg_regions, 'x;rm']\n",
     ["F:2:13: vmo.tunables: 'x;rm' is not a vmo tunable name ([a-z0-9_%]+)"]),
    ("process:\n  commands: [dsmserv, 'ds m']\n",
     ["F:2:13: process.commands: 'ds m' is not a command name ([A-Za-z0-9_.+-]+)"]),
    ("tsm:\n  message_ids: [ANR0358E, anr1]\n",
     ["F:2:16: tsm.message_ids: 'anr1' is not a message id like ANR0358E"]),
    ("tsm:\n  dsmadmc: []\n",
     ["F:2:12: tsm.dsmadmc: expected a non-empty list of strings (argv)"]),
    ("tsm:\n  dsmadmc: [/usr/bin/dsmadmc, 7]\n",
     ["F:2:12: tsm.dsmadmc: expected a non-empty list of strings (argv)"]),
    ("tsm:\n  dsmadmc: [dsmadmc, -dataonly=yes]\n",
     ["F:2:12: tsm.dsmadmc: the first element must be an absolute path"]),
    ("tsm:\n  actlog_file: /tsm/log\n  dsmadmc: [/usr/bin/dsmadmc, q, actlog]\n",
     ["F:3:12: tsm.dsmadmc: tsm.actlog_file and tsm.dsmadmc are both set: the activity log comes from one "
      "of them (a log file, or a dsmadmc query)"]),
    ("tsm:\n  dsmadmc: [/usr/bin/dsmadmc, -pa=secret, q, actlog]\n",
     ["F:2:12: tsm.dsmadmc: a password on the command line (every user sees it in ps): use tsm.admin_id and "
      "tsm.password_file, which go to dsmadmc on standard input"]),
    ("tsm:\n  admin_id: 'ad min'\n  password_file: /etc/pw\n",
     ["F:2:13: tsm.admin_id: 'ad min' is not an administrator name ([A-Za-z0-9_.+-]+)"]),
    ("tsm:\n  admin_id: 7\n  password_file: /etc/pw\n",
     ["F:2:13: tsm.admin_id: 7 is not an administrator name ([A-Za-z0-9_.+-]+)"]),
    ("tsm:\n  admin_id: monitor\n",
     # (no line: the key that is missing is not in the file)
     ["F: tsm.password_file: tsm.admin_id and tsm.password_file go together (the server view needs both)"]),
    # every path setting, relative: each named, in this order
    ("command_root: bin\nsplat:\n  work_dir: w\n  report_dir: r\n"
     "tsm:\n  password_file: p\n  admin_id: monitor\n  dsmadmc_binary: d\n  actlog_file: a\n  state_file: s\n",
     ["F:3:13: splat.work_dir: must be an absolute path",
      "F:1:15: command_root: must be an absolute path",
      "F:6:18: tsm.password_file: must be an absolute path",
      "F:8:19: tsm.dsmadmc_binary: must be an absolute path",
      "F:4:15: splat.report_dir: must be an absolute path",
      "F:9:16: tsm.actlog_file: must be an absolute path",
      "F:10:15: tsm.state_file: must be an absolute path"]),
    ("tsm:\n  actlog_file: /tsm/log\n  state_file: /tsm/log\n",
     ["F:3:15: tsm.state_file: /tsm/log is tsm.actlog_file or inside it; the state file must be a file of "
      "its own (it is overwritten)"]),
    # a path below the log file's is refused too: it could never be written
    ("tsm:\n  actlog_file: /tsm/log\n  state_file: /tsm/log/state.json\n",
     ["F:3:15: tsm.state_file: /tsm/log/state.json is tsm.actlog_file or inside it; the state file must be a "
      "file of its own (it is overwritten)"]),
    ("command_root: /opt/cmds\ntsm:\n  state_file: /opt/cmds/usr/state.json\n",
     ["F:3:15: tsm.state_file: /opt/cmds/usr/state.json is command_root or inside it; the state file must be "
      "a file of its own (it is overwritten)"]),
    ("splat:\n  work_dir: /var/splat\ntsm:\n  state_file: /var/splat/s.json\n",
     ["F:4:15: tsm.state_file: /var/splat/s.json is splat.work_dir or inside it; the state file must be a "
      "file of its own (it is overwritten)"]),
    ("splat:\n  report_dir: /var/perfpmr\ntsm:\n  state_file: /var/perfpmr/state.json\n",
     ["F:4:15: tsm.state_file: /var/perfpmr/state.json is splat.report_dir or inside it; the state file must "
      "be a file of its own (it is overwritten)"]),
    # an unknown key does not stop the keys after it from being checked
    ("colour: blue\ncommand_timeout_seconds: -1\n",
     ["F:1:9: colour: unknown key; known in the top level: command_timeout_seconds, command_root, vmstat, vmo, "
      "tape, process, splat, tsm, errpt, ssh, probe, targets",
      "F:2:26: command_timeout_seconds: must be positive, got -1"]),
    # YAML: the problem and where it is, not pyyaml's context line
    ("vmstat: {interval_seconds: [1, 2}\n",
     ["F:1:33: not valid YAML: expected ',' or ']', but got '}'"]),
    ("a: &x 1\nb: *x\n",
     ["F:2:4: not valid YAML: aliases (*name) are not allowed in this file"]),
    # a control character stops pyyaml's reader, which has no position of its own: the file
    ("vmstat: \x07\n",
     ["F: not valid YAML: unacceptable character #x0007: special characters are not allowed"]),
]


@pytest.mark.parametrize("text,lines", CASES, ids=[c[1][0][:60] for c in CASES])
def test_each_refusal_says_where_what_and_why_exactly(tmp_path, text, lines):
    assert refused(tmp_path, text).split("\n") == lines


@pytest.mark.parametrize("text,state", [
    ("command_root: /opt/AIX\ntsm:\n  state_file: /opt/AI/state.json\n", "/opt/AI/state.json"),   # a prefix
    ("command_root: /opt/cmds\ntsm:\n  state_file: /var/lib/aix/state.json\n", "/var/lib/aix/state.json"),
    ("tsm:\n  actlog_file: /tsm/log\n  state_file: /tsm/log.state\n", "/tsm/log.state"),
])
def test_a_state_file_of_its_own_is_accepted(tmp_path, text, state):
    p = tmp_path / "c.yml"
    p.write_text(text)
    assert load(str(p)).tsm.state_file == state


def test_validate_lists_every_problem_one_per_line():
    s = Settings()
    s.vmo.tunables = ["a b"]
    s.process.commands = ["c d"]
    with pytest.raises(ConfigError) as e:
        validate(s)
    assert str(e.value) == ("vmo.tunables: 'a b' is not a vmo tunable name ([a-z0-9_%]+)\n"
                            "process.commands: 'c d' is not a command name ([A-Za-z0-9_.+-]+)")
    assert validate(Settings()) == Settings()


def test_the_size_limit_is_one_mebibyte_inclusive(tmp_path):
    assert MAX_CONFIG_BYTES == 1048576
    p = tmp_path / "c.yml"
    p.write_text("#" * 1048575 + "\n")     # exactly 1 MiB: read (a comment)
    assert load(str(p)) == Settings()
    p.write_text("#" * 1048576 + "\n")     # one byte more
    with pytest.raises(ConfigError) as e:
        load(str(p))
    assert str(e.value) == f"{p}: larger than 1048576 bytes; not a configuration file"


def test_a_missing_file_names_the_file_and_the_reason(tmp_path):
    with pytest.raises(ConfigError) as e:
        load(str(tmp_path / "none.yml"))
    assert str(e.value) == f"{tmp_path / 'none.yml'}: No such file or directory"


def check_files(tmp_path, text):
    p = tmp_path / "c.yml"
    p.write_text(text)
    with pytest.raises(ConfigError) as e:
        load(str(p), check_files=True)
    return str(e.value).replace(str(p), "F").replace(str(tmp_path), "T").split("\n")


def test_check_files_names_missing_files_and_directories(tmp_path):
    assert check_files(tmp_path, f"tsm:\n  actlog_file: {tmp_path}/no.log\n") == [
        "F:2:16: T/no.log: no such file"]
    assert check_files(tmp_path, f"tsm:\n  admin_id: monitor\n  password_file: {tmp_path}/pw\n") == [
        "F:3:18: T/pw: No such file or directory"]
    assert check_files(tmp_path, f"splat:\n  report_dir: {tmp_path}/perf\n") == [
        "F:2:15: T/perf: no such directory"]


def test_check_files_refuses_a_password_file_others_can_read(tmp_path):
    pw = tmp_path / "pw"
    pw.write_text("secret\n")
    os.chmod(pw, 0o644)
    assert check_files(tmp_path, f"tsm:\n  admin_id: monitor\n  password_file: {pw}\n") == [
        "F:3:18: T/pw: readable by others (mode 644); chmod 600 it"]
    os.chmod(pw, 0o600)
    p = tmp_path / "c.yml"
    p.write_text(f"tsm:\n  admin_id: monitor\n  password_file: {pw}\n")
    assert load(str(p), check_files=True).tsm.password_file == str(pw)


def test_check_files_names_what_this_user_cannot_read(tmp_path, monkeypatch):
    """Unreadable files, as a user who is not root (the test may run as root: os.access is
    replaced by one that grants existence only, as for a file of mode 000)."""
    log = tmp_path / "actlog"
    log.write_text("")
    pw = tmp_path / "pw"
    pw.write_text("x")
    os.chmod(pw, 0o600)
    (tmp_path / "perf").mkdir()
    asked = []

    def access(path, mode):
        asked.append(mode)
        return mode == os.F_OK
    monkeypatch.setattr(config.os, "access", access)
    uid = os.geteuid()
    assert check_files(tmp_path, f"tsm:\n  actlog_file: {log}\n  admin_id: monitor\n  password_file: {pw}\n"
                                 f"splat:\n  report_dir: {tmp_path}/perf\n") == [
        f"F:2:16: T/actlog: not readable by this user (uid {uid})",
        f"F:4:18: T/pw: not readable by this user (uid {uid})",
        f"F:6:15: T/perf: not readable by this user (uid {uid})"]
    # a directory must be readable and searchable: both asked at once
    assert asked == [os.R_OK, os.R_OK, os.R_OK | os.X_OK]


def test_a_readable_report_directory_passes_the_file_check(tmp_path):
    (tmp_path / "perf").mkdir()
    p = tmp_path / "c.yml"
    p.write_text(f"splat:\n  report_dir: {tmp_path}/perf\n")
    assert load(str(p), check_files=True).splat.report_dir == f"{tmp_path}/perf"
