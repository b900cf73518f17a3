"""The exporter's command line (cli/serve.py) as an admin meets it: each bound of its numeric flags
from both sides, the answer of --check-config, the refusal to run --source system off AIX
without stand-in commands, the collectors --once exports by flag, and one line for each way it
cannot start. Run as the installed command runs (a new process), so logging is its own."""
import os
import socket
import subprocess
import sys

import pytest

from tests.lib.processes import env


def run(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "aix_exporter.cli", *args], capture_output=True, text=True,
                          env=env(), timeout=timeout)


@pytest.mark.parametrize("args,ok", [
    (["--log.file.max-bytes", "65535"], False), (["--log.file.max-bytes", "65536"], True),
    (["--log.file.backups", "0"], False), (["--log.file.backups", "1"], True),
])
def test_log_rotation_bounds(args, ok):
    r = run(*args, "--check-config")
    if ok:
        assert (r.returncode, r.stdout) == (0, "aix-exporter: configuration (defaults) is valid\n")
    else:
        assert r.returncode == 2
        assert r.stderr.splitlines()[-1] == ("aix-exporter: error: --log.file.max-bytes must be 65536 or more and "
                                             "--log.file.backups 1 or more")


@pytest.mark.parametrize("flag,value,ok", [
    ("--web.max-requests", "0", False), ("--web.max-requests", "1", True), ("--web.max-requests", "10000", True),
    ("--web.max-requests", "10001", False),
    ("--web.max-connections", "0", False), ("--web.max-connections", "1", True),
    ("--web.max-connections", "1000000", True), ("--web.max-connections", "1000001", False),
])
def test_http_limits_bounds(flag, value, ok):
    r = run(flag, value, "--check-config")
    assert r.returncode == (0 if ok else 1)
    assert r.stderr == ("" if ok else "aix-exporter: --web.max-requests must be 1-10000 and --web.max-connections "
                                      "1-1000000\n")


@pytest.mark.parametrize("value,ok", [("0", False), ("-1", False), ("nan", False), ("inf", False), ("0.001", True)])
def test_the_scrape_timeout_bound(value, ok):
    r = run("--web.max-scrape-timeout", value, "--check-config")
    assert r.returncode == (0 if ok else 1)
    assert r.stderr == ("" if ok else "aix-exporter: --web.max-scrape-timeout must be a finite number of seconds "
                                      "above 0\n")


def test_the_commands_directory_is_an_absolute_directory(tmp_path):
    for bad in ("relative/dir", str(tmp_path / "none")):
        r = run("--path.commands", bad, "--check-config")
        assert (r.returncode, r.stderr) == (1, f"aix-exporter: --path.commands {bad}: not an absolute path to a "
                                               "directory\n")
    r = run("--path.commands", str(tmp_path), "--check-config")
    assert (r.returncode, r.stderr) == (0, "")


def test_check_config_names_the_files_it_found_valid(tmp_path):
    cfg, web = tmp_path / "c.yml", tmp_path / "web.yml"
    cfg.write_text("vmstat:\n  interval_seconds: 10\n")
    web.write_text("{}\n")
    r = run("--config.file", str(cfg), "--web.config.file", str(web), "--check-config")
    assert (r.returncode, r.stdout) == (0, f"aix-exporter: configuration {cfg} is valid, web configuration {web} "
                                           "is valid\n")


def test_one_problem_is_one_line_and_several_are_listed(tmp_path):
    cfg = tmp_path / "c.yml"
    cfg.write_text("vmstat:\n  interval_seconds: x\n")
    r = run("--config.file", str(cfg), "--check-config")
    assert r.returncode == 1
    assert r.stderr.startswith("aix-exporter: invalid configuration: ") and r.stderr.count("\n") == 1
    cfg.write_text("vmstat:\n  interval_seconds: x\nsplat:\n  every_minutes: 0\n")
    r = run("--config.file", str(cfg), "--check-config")
    lines = r.stderr.splitlines()
    assert r.returncode == 1 and lines[0] == "aix-exporter: invalid configuration (2 problems):"
    assert len(lines) == 3 and all(line.startswith(f"  {cfg}:") for line in lines[1:])


def test_off_aix_the_system_source_says_what_to_use_instead():
    r = run()
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "aix-exporter: this is not AIX (Linux), so --source system has no AIX commands to run.",
        "  For the simulated LPAR:        --source simulate:SCENARIO  (scenarios: case-study, checklist-trouble, "
        "dirty-drive, exhaustion, fallback, fewer-drives, ibm-64k, ibm-64k-quiet, steady, tight-memory)",
        "  For captured command output:   --source replay:DIR",
        "  For stand-in commands:         --source system --path.commands DIR"]


def test_on_aix_the_system_source_is_opened_without_stand_in_commands():
    """The refusal above is for other systems only: where platform.system() says AIX, the
    system source is opened (here a stand-in open_source says so and stops)."""
    code = ("import platform, sys; platform.system = lambda: 'AIX'\n"
            "from aix_exporter import cli\nfrom aix_exporter.cli import serve\n"
            "def opened(name, settings): raise ValueError(f'opened the {name} source')\n"
            "serve.open_source = opened\n"
            "sys.exit(cli.main(['--once']))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env(), timeout=60)
    assert (r.returncode, r.stderr) == (1, "aix-exporter: opened the system source\n")


def test_an_unknown_source_is_one_line():
    r = run("--source", "bogus")
    assert (r.returncode, r.stderr) == (1, "aix-exporter: unknown source 'bogus': use system, replay:DIR, "
                                           "simulate:SCENARIO or ssh://USER@HOST[:PORT]\n")
    r = run("--source", "Xray:dir")                    # only @ reads arguments from a file
    assert (r.returncode, r.stderr) == (1, "aix-exporter: unknown source 'Xray:dir': use system, replay:DIR, "
                                           "simulate:SCENARIO or ssh://USER@HOST[:PORT]\n")


def families(text):
    return {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}


def test_once_exports_the_collectors_enabled_and_not_those_disabled():
    r = run("--source", "simulate:case-study", "--once")
    assert r.returncode == 0
    every = families(r.stdout)
    assert {"aix_vmstat_cpu_ratio", "aix_splat_function_miss_ratio", "aix_exporter_collector_success"} <= every
    r = run("--source", "simulate:case-study", "--once", "--no-collector.vmstat")
    fewer = families(r.stdout)
    assert "aix_vmstat_cpu_ratio" not in fewer and "aix_splat_function_miss_ratio" in fewer
    assert 'collector="vmstat"' not in r.stdout


def test_a_collector_that_needs_the_system_is_left_out_elsewhere_and_says_so_when_asked_for():
    r = run("--source", "simulate:case-study", "--once", "--collector.cpu")
    assert r.returncode == 0
    assert r.stderr.split(" ", 1)[1] == 'level=warning msg="collector disabled: it needs --source system" collector=cpu\n'
    assert 'collector="cpu"' not in r.stdout
    assert "needs --source system" not in run("--source", "simulate:case-study", "--once").stderr


def test_the_log_level_warn_is_warning():
    r = run("--source", "simulate:case-study", "--once", "--collector.cpu", "--log.level", "warn")
    assert r.returncode == 0
    assert r.stderr.split(" ", 1)[1] == 'level=warning msg="collector disabled: it needs --source system" collector=cpu\n'
    r = run("--source", "simulate:case-study", "--once", "--collector.cpu", "--log.level", "error")
    assert (r.returncode, r.stderr) == (0, "")


def test_a_collector_asked_for_but_not_configured_says_so(tmp_path):
    r = run("--path.commands", str(tmp_path), "--once", "--collector.tsm_server", "--no-collector.vmstat")
    assert ('level=warning msg="collector disabled: enabled but not configured (see docs/configuration.md)" collector=tsm_server'
            in r.stderr)
    assert 'collector="tsm_server"' not in r.stdout


def test_a_log_file_that_cannot_be_written_is_one_line(tmp_path):
    r = run("--source", "simulate:steady", "--log.file", str(tmp_path / "no" / "such" / "dir" / "x.log"))
    assert r.returncode == 1
    assert r.stderr.startswith(f"aix-exporter: cannot write the log file {tmp_path}/no/such/dir/x.log: ")
    assert r.stderr.count("\n") == 1


def test_an_address_in_use_is_one_line():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        address = f"127.0.0.1:{s.getsockname()[1]}"
        r = run("--source", "simulate:steady", "--web.listen-address", address)
    assert r.returncode == 1
    assert r.stderr.splitlines()[-1].startswith(f"aix-exporter: cannot listen on {address}: ")


def serve_until(args, said, timeout=30, pythonpath=None, ready=None):
    """Start the exporter with ``args`` (``pythonpath``: a folder put first on its PYTHONPATH),
    wait until its log says ``said`` (and ``ready()`` holds, polled up to ``timeout``), end it with
    SIGTERM; (exit code, log lines)."""
    import signal
    import time
    e = env()
    if pythonpath:
        e["PYTHONPATH"] = f"{pythonpath}{os.pathsep}{e['PYTHONPATH']}"
    proc = subprocess.Popen([sys.executable, "-m", "aix_exporter.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=e, start_new_session=True)
    lines, deadline = [], time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            if said in line:
                break
        while ready is not None and not ready() and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        lines += proc.stderr.read().splitlines()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    return proc.returncode, lines


def test_serving_says_what_it_serves_and_ends_on_sigterm(tmp_path):
    import bcrypt
    web = tmp_path / "web.yml"
    web.write_text("basic_auth_users:\n  prometheus: " + bcrypt.hashpw(b"x", bcrypt.gensalt(4)).decode() + "\n")
    code, lines = serve_until(["--source", "simulate:steady", "--web.listen-address", "127.0.0.1:0",
                               "--web.config.file", str(web), "--no-collector.tsm"], "msg=listening")
    assert code == 0
    (listening,) = [line for line in lines if "msg=listening" in line]
    from aix_exporter import __version__
    assert listening.endswith(" level=info msg=listening address=127.0.0.1:0 tls=False basic_auth=True "
                              "source=simulate:steady collectors=vmstat,memory,vmo,aso,vmstat_v,vmstat_s,process,"
                              f"ldr_cntrl,splat,tape,tsm_server,tsm_checklist,tsm_storage,tsm_health,errpt version={__version__}")
    assert not any("pure-Python verifier" in line for line in lines)          # the compiled bcrypt checks them
    assert any("msg=\"stopping on signal 15: draining scrapes in flight\"" in line for line in lines)


def test_without_bcrypt_basic_auth_says_its_passwords_are_checked_slowly(tmp_path):
    import bcrypt
    web = tmp_path / "web.yml"
    web.write_text("basic_auth_users:\n  prometheus: " + bcrypt.hashpw(b"x", bcrypt.gensalt(4)).decode() + "\n")
    hidden = tmp_path / "nobcrypt"                   # an AIX host without python3-bcrypt
    hidden.mkdir()
    (hidden / "bcrypt.py").write_text('raise ImportError("not installed")\n')
    code, lines = serve_until(["--source", "simulate:steady", "--web.listen-address", "127.0.0.1:0",
                               "--web.config.file", str(web), "--no-collector.tsm"], "pure-Python", pythonpath=hidden)
    assert code == 0
    assert [line.split(" ", 1)[1] for line in lines if "bcrypt" in line] == [
        'level=warning msg="basic auth: the bcrypt module is not installed; the built-in pure-Python verifier checks '
        'passwords (seconds for each new user and password, answers kept). Install bcrypt for speed, or use TLS client '
        'certificates (docs/configuration.md: TLS and basic auth)"']


def test_a_command_still_running_at_shutdown_has_its_group_killed(tmp_path):
    root = tmp_path / "root"
    (root / "usr" / "bin").mkdir(parents=True)
    vmstat = root / "usr" / "bin" / "vmstat"
    pid = tmp_path / "vmstat.pid"
    vmstat.write_text(f"#!/bin/sh\necho $$ > {pid}\nexec sleep 287\n")
    vmstat.chmod(0o755)
    try:
        # SIGTERM once the stand-in runs (under load, 'listening' came before the background
        # collector had started it, and nothing was left to kill)
        code, lines = serve_until(["--path.commands", str(root), "--web.listen-address", "127.0.0.1:0",
                                   "--collector.vmstat", "--log.level", "debug"], "msg=listening",
                                  ready=lambda: pid.exists() and pid.read_text().strip() != "")
    finally:   # whatever happened to the exporter, the stand-in it started ends with the test
        if pid.exists():
            try:
                os.killpg(int(pid.read_text()), 9)
            except ProcessLookupError:
                pass
    assert code == 0
    assert any('msg="killed the process groups of commands still running"' in line for line in lines), lines


def _keys(tmp_path):
    """A key without a passphrase (600), the same key readable by the group, a key with a
    passphrase, and a known_hosts file."""
    keygen = "/usr/bin/ssh-keygen"
    if not os.path.exists(keygen):
        pytest.skip("ssh-keygen missing")
    out = {}
    for name, phrase, mode in (("ok", "", 0o600), ("loose", "", 0o640), ("phrase", "secret", 0o600)):
        subprocess.run([keygen, "-q", "-t", "ed25519", "-N", phrase, "-f", str(tmp_path / name)], check=True, timeout=30)
        (tmp_path / name).chmod(mode)
        out[name] = str(tmp_path / name)
    (tmp_path / "known_hosts").write_text("[h]:22 ssh-ed25519 AAAA\n")
    out["known_hosts"] = str(tmp_path / "known_hosts")
    return out


@pytest.mark.parametrize("target, want, start_refuses", [
    ("{name: a, source: 'ssh:/u@h'}", "target a: unknown source 'ssh:/u@h': the SSH form is ssh://USER@HOST[:PORT]", True),
    ("{name: a, source: 'sshh://u@h'}", "target a: unknown source 'sshh://u@h'", True),
    ("{name: a, source: 'ssh://u@h:99999'}", "target a: ssh://u@h:99999: port 99999 is not 1-65535", True),
    ("{name: a, source: 'replay:/no/such/dir'}", "target a: replay directory '/no/such/dir' does not exist", True),
    ("{name: a, source: 'ssh://u@h', key_file: @missing}", "target a: ssh key @missing: No such file or directory", False),
    ("{name: a, source: 'ssh://u@h', key_file: @loose}", "target a: ssh key @loose: readable by others (mode 640)", False),
    ("{name: a, source: 'ssh://u@h', key_file: @phrase}", "target a: ssh key @phrase: not a private key without a "
                                                           "passphrase", False),
    ("{name: a, source: 'ssh://u@h', known_hosts: @missing}", "target a: ssh known_hosts @missing: no such file", False),
])
def test_check_config_refuses_every_target_the_start_refuses_and_what_fails_at_once(tmp_path, target, want, start_refuses):
    """Issue 57, item 5: one validation of the targets (targets.open_sources) for the start and
    --check-config; the check also refuses the files that fail every probe at once."""
    keys = _keys(tmp_path)
    keys["missing"] = str(tmp_path / "missing")
    for name, path in keys.items():
        target, want = target.replace(f"@{name}", path), want.replace(f"@{name}", path)
    cfg = tmp_path / "c.yml"
    cfg.write_text(f"ssh: {{key_file: {keys['ok']}, known_hosts: {keys['known_hosts']}}}\ntargets:\n  - {target}\n")
    r = run("--config.file", str(cfg), "--check-config")
    assert r.returncode == 1 and want in r.stderr and r.stderr.count("\n") == 1, r.stderr
    if start_refuses:
        r = run("--config.file", str(cfg), "--web.listen-address", "127.0.0.1:0", timeout=30)
        assert r.returncode == 1 and want in r.stderr, r.stderr


def test_every_problem_of_the_targets_at_once_and_a_good_one_is_valid(tmp_path):
    keys = _keys(tmp_path)
    cfg = tmp_path / "c.yml"
    cfg.write_text(f"ssh: {{key_file: {keys['ok']}, known_hosts: {keys['known_hosts']}}}\ntargets:\n"
                   "  - {name: a, source: 'ssh:/u@h'}\n  - {name: b, source: 'ssh://u@h:0'}\n"
                   "  - {name: c, source: 'ssh://u@h'}\n")
    r = run("--config.file", str(cfg), "--check-config")
    assert r.returncode == 1 and r.stderr.splitlines()[0] == "aix-exporter: 2 problems with the targets:"
    assert [line.split(":")[0] for line in r.stderr.splitlines()[1:]] == ["  target a", "  target b"]
    cfg.write_text(cfg.read_text().replace("ssh:/u@h", "ssh://u@h").replace("h:0", "h:2222"))
    r = run("--config.file", str(cfg), "--check-config")
    assert (r.returncode, r.stdout) == (0, f"aix-exporter: configuration {cfg} is valid\n"), r.stderr


@pytest.mark.parametrize("states", [
    ("{d}/one.state", "{d}//one.state"),
    ("{d}/one.state", "{d}/./one.state"),
    ("{d}/one.state", "{d}/link/one.state"),
    ("TOP", "{d}/top.state"),
    ("TOP", "{d}/link/top.state"),    # a target and the top level, by real path, either spelled
    ("TOP", "{d}//top.state"),
    ("TOP:{d}/link/top.state", "{d}/top.state"),
])
def test_two_spellings_of_one_state_file_are_one_file(tmp_path, states):
    """Issue 57, item 5: d/one.state and d//one.state passed the check and, after a restart, one
    target counted 57 of 45 messages. A target that reuses the top level's file is refused too."""
    (tmp_path / "link").symlink_to(tmp_path)
    a, b = (s.format(d=tmp_path) for s in states)
    top_file = a[4:] if a.startswith("TOP:") else f"{tmp_path}/top.state"
    a = "TOP" if a.startswith("TOP") else a
    top = f"tsm: {{state_file: {top_file}}}\n" if a == "TOP" else ""
    entries = [f"  - {{name: t{i}, source: 'ssh://u@h', tsm: {{state_file: {s}}}}}\n"
               for i, s in enumerate([b] if a == "TOP" else [a, b])]
    cfg = tmp_path / "c.yml"
    cfg.write_text(top + "targets:\n" + "".join(entries))
    r = run("--config.file", str(cfg), "--check-config")
    real = f"{tmp_path}/top.state" if a == "TOP" else f"{tmp_path}/one.state"
    assert r.returncode == 1 and f"tsm.state_file {real} is used twice" in r.stderr, r.stderr


@pytest.mark.parametrize("argv", [["-password=X"], ["-password", "X"], ["-pa=X"], ["-pa", "X"], ["-PassW", "X"],
                                  ["-PA=X"]])
def test_a_password_in_dsmadmcs_argv_is_refused_in_every_form(tmp_path, argv):
    cfg = tmp_path / "c.yml"
    cfg.write_text(f"tsm: {{dsmadmc: [/usr/bin/dsmadmc, -id=a, {', '.join(argv)}, query, actlog]}}\n")
    r = run("--config.file", str(cfg), "--check-config")
    assert r.returncode == 1 and "tsm.dsmadmc: a password on the command line" in r.stderr, r.stderr
    assert "X" not in r.stderr   # (the value is never echoed)
