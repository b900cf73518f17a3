"""Collecting over SSH with nothing installed on the LPAR (issue 49), with real parts: Debian's
OpenSSH server on a loopback port (tests/lib/sshd.py), the stand-in AIX commands of the tsm-lpar
replay fixtures under a directory of the "LPAR" (``command_root``), and the exporter serving
``/probe?target=NAME`` from ``targets:`` in its configuration."""
import asyncio
import functools
import inspect
import itertools
import shutil
import socket
import sys
import threading
import time
import urllib.request

import pytest

from aix_exporter.config import Settings, load
from aix_exporter.sources import SourceError, open_source
from aix_exporter.tools import standin
from tests.lib import FIXTURES, ROOT, free_port
from tests.lib.processes import normalise, start, stop, wait_http
from tests.lib.sshd import Sshd, keygen

GOLDEN = ROOT / "tests" / "golden" / "tsm-lpar-system.prom"
WRAPPER = ROOT / "deploy" / "ssh" / "aix-exporter-ssh-wrapper"
REPLAY = FIXTURES / "replay" / "tsm-lpar"
ANR0358E = "11/19/2026 09:00:00  ANR0358E Database initialization failed: insufficient memory.\n"


def scrape(url, timeout=20):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


@pytest.fixture
def sshd():
    server = Sshd().start()
    yield server
    server.remove()


def lpar(tmp_path, sshd, extra_targets=""):
    """The tsm-lpar fixtures as an LPAR behind sshd (its files in sshd.dir, which the remote user
    reads), and the exporter's configuration for it (in tmp_path: the exporter's host)."""
    replay = sshd.dir / "replay"
    shutil.copytree(REPLAY, replay)
    reports = sshd.dir / "splat-reports"
    reports.mkdir()
    shutil.copy(REPLAY / "splat.txt", reports / "splat.out")
    log = sshd.dir / "dsmserv.log"
    shutil.copy(REPLAY / "tsm_actlog.txt", log)
    pw = tmp_path / "tsm.pw"
    pw.write_text("monitor-password\n")
    pw.chmod(0o600)
    commands = sshd.dir / "root"
    tsm = f"{{actlog_file: {log}, admin_id: monitor, password_file: {pw}, state_file: {tmp_path / 'lpar01.state'}}}"
    cfg = tmp_path / "aix_exporter.yml"
    cfg.write_text(f"command_root: {commands}\nvmstat: {{interval_seconds: 1}}\ntape: {{interval_seconds: 1}}\n"
                   f"splat: {{report_dir: {reports}}}\n"
                   f"ssh: {{key_file: {sshd.client_key}, known_hosts: {sshd.known_hosts}, connect_timeout_seconds: 3}}\n"
                   f"targets:\n  - {{name: lpar01, source: '{sshd.spec}', tsm: {tsm}}}\n" + extra_targets)
    settings = load(str(cfg))
    settings.tsm = settings.targets[0].tsm   # (the stand-ins answer the argv these settings build)
    standin.write(str(replay), str(commands), settings)
    for path in commands.rglob("*"):   # (stand-ins are 750: the LPAR's monitoring user is no group member here)
        path.chmod(0o755)
    return cfg, log


def serve(cfg):
    """The exporter over cfg; its log goes to exporter.log beside cfg (read by the tests)."""
    port = free_port()
    log = open(cfg.parent / "exporter.log", "w")
    proc = start([sys.executable, "-m", "aix_exporter.cli", "--config.file", str(cfg), "--no-collector.cpu",
                  "--collect.min-interval", "0", "--web.listen-address", f"127.0.0.1:{port}"], stderr=log)
    log.close()
    wait_http(f"http://127.0.0.1:{port}/metrics", proc=proc)
    return proc, f"http://127.0.0.1:{port}"


def until_background_ran(url, cfg, target="lpar01"):
    deadline = time.monotonic() + 40
    while True:   # the background collectors report after their first run
        out = scrape(f"{url}/probe?target={target}")
        if all(f'aix_exporter_collector_success{{collector="{c}"}} 1.0' in out for c in ("vmstat", "splat", "tape")):
            return out
        assert time.monotonic() < deadline, (cfg.parent / "exporter.log").read_text()[-3000:]
        time.sleep(0.3)


def samples(text):
    """The exposition's samples, without what differs by source by design: the source's name,
    what its commands cost, the process's own metrics (a probe has none) and the probe's."""
    skip = ("#", "aix_tsm_messages_total", "aix_exporter_source_info", "aix_exporter_command_",
            "aix_exporter_build_info", "aix_exporter_cpu_seconds", "aix_exporter_max_resident", "aix_exporter_probe_")
    return {line for line in normalise(text).splitlines() if not line.startswith(skip)}


def forced_wrapper(sshd):
    """The shipped forced-command wrapper as the key's only command (a copy the LPAR's user reads)."""
    wrapper = sshd.dir / "aix-exporter-ssh-wrapper"
    shutil.copy(WRAPPER, wrapper)
    sshd.set_forced_command(f"/usr/bin/perl {wrapper} --root {sshd.dir / 'root'} --files {sshd.dir} --lock {sshd.home}")


@pytest.mark.parametrize("wrapped", [False, True], ids=["login-shell", "forced-wrapper"])
def test_probe_through_sshd_serves_what_the_system_source_serves(tmp_path, sshd, wrapped):
    cfg, log = lpar(tmp_path, sshd)
    if wrapped:
        forced_wrapper(sshd)
    proc, url = serve(cfg)
    try:
        until_background_ran(url, cfg)
        with open(log, "a") as fh:    # appended on the LPAR after the tail started: counted once, remotely
            fh.write(ANR0358E)
        out = scrape(f"{url}/probe?target=lpar01")
        own = scrape(f"{url}/metrics")
        unknown = urllib.request.Request(f"{url}/probe?target=lpar99")
        with pytest.raises(urllib.error.HTTPError) as e404:
            urllib.request.urlopen(unknown, timeout=10)
    finally:
        stop(proc)
        err = (cfg.parent / "exporter.log").read_text()
    for c in ("vmstat", "vmstat_v", "vmstat_s", "memory", "process", "ldr_cntrl", "vmo", "aso", "splat", "tape", "tsm",
              "tsm_server", "tsm_checklist", "tsm_storage", "tsm_health", "errpt"):
        assert f'aix_exporter_collector_success{{collector="{c}"}} 1.0' in out, c
    assert "aix_exporter_probe_success 1.0" in out
    # the checklist over SSH through the wrapper's table (issue 59): a drive, its path and device
    assert 'aix_tsm_drive_info{device="/dev/rmt3",drive="DRIVE3",library="TS4500"} 1.0' in out
    assert 'aix_tsm_library_volumes{library="TS4500",status="scratch"} 153.0' in out
    assert 'aix_tsm_client_schedule_events{result="missed"} 1.0' in out          # the events select
    assert 'aix_tsm_monitor_value{activity="STORAGE POOL UTILIZATION (COPYPOOL)"} 80.4' in out   # q monitorstatus
    assert samples(out) == samples(GOLDEN.read_text())          # the same values as the system source's
    assert 'aix_tsm_messages_total{msgid="ANR0358E",severity="E"} 1.0' in out
    assert f'aix_exporter_source_info{{source="{sshd.spec}"}} 1.0' in out
    assert 'aix_exporter_command_duration_seconds_total{command="svmon"}' in out   # what it cost, per command
    # the remote command's own CPU time: known from the wrapper's report, not without it
    assert ('aix_exporter_command_cpu_seconds_total{command="svmon"}' in out) == wrapped
    assert "aix_exporter_build_info" not in out and "aix_exporter_collector_success{" not in own   # own metrics apart
    assert 'aix_exporter_source_info{source="targets"} 1.0' in own
    assert e404.value.code == 404
    assert "level=error" not in err, err + (sshd.dir / "sshd.log").read_text()[-4000:]
    assert "monitor-password" not in (sshd.dir / "sshd.log").read_text()   # on stdin, never in argv


def connect(sshd, **over):
    s = Settings()
    s.ssh.connect_timeout_seconds = 3
    src = open_source(sshd.spec, s, key_file=str(over.get("key", sshd.client_key)),
                      known_hosts=str(over.get("known_hosts", sshd.known_hosts)))
    return src


def refusal(sshd, **over) -> str:
    src = connect(sshd, **over)
    with pytest.raises(SourceError) as e:
        src.run(["/bin/echo", "hello"], 5)
    assert "\n" not in str(e.value)
    return str(e.value)


def test_a_wrong_host_key_an_unknown_host_and_a_loose_key_are_refused_with_one_line(tmp_path, sshd):
    assert connect(sshd).run(["/bin/echo", "hello"], 5) == "hello\n"
    other = keygen(tmp_path / "other_host")
    wrong = tmp_path / "wrong_known_hosts"
    wrong.write_text(f"[127.0.0.1]:{sshd.port} {' '.join(other.with_suffix('.pub').read_text().split()[:2])}\n")
    assert "host key refused" in refusal(sshd, known_hosts=wrong)
    empty = tmp_path / "empty_known_hosts"
    empty.write_text("")
    assert "host key refused" in refusal(sshd, known_hosts=empty)
    assert "does not exist" in refusal(sshd, known_hosts=tmp_path / "none")   # never accepted on first sight
    loose = tmp_path / "loose_key"
    shutil.copy(sshd.client_key, loose)
    loose.chmod(0o644)
    assert refusal(sshd, key=loose) == f"ssh key {loose}: readable by others (mode 644); chmod 600 it"
    stranger = keygen(tmp_path / "stranger")
    assert "permission denied" in refusal(sshd, key=stranger)


def test_the_session_is_aes_gcm_with_openssh_and_never_offers_cbc(sshd):
    """AES-GCM first (one AEAD call a packet; asyncssh's ChaCha20 built two cipher objects a
    packet, a third of a probe's CPU): Debian's sshd agrees to it; CBC is never offered."""
    from aix_exporter.sources.ssh import CIPHERS, _Loop
    assert not [c for c in CIPHERS if "cbc" in c or "3des" in c or "arcfour" in c]
    src = connect(sshd)
    try:
        assert src.run(["/bin/echo", "hello"], 5) == "hello\n"
        conn = src.connection._conn
        got = asyncio.run_coroutine_threadsafe(_extra(conn), _Loop.get()).result(5)
        assert got == ("aes128-gcm@openssh.com", "aes128-gcm@openssh.com")
    finally:
        src.close()


async def _extra(conn):
    return conn.get_extra_info("send_cipher"), conn.get_extra_info("recv_cipher")


def silent_listener():
    """A port that accepts and never says a word (a hung sshd, a firewall that swallows)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    held = []
    stop_flag = threading.Event()

    def accept():
        sock.settimeout(0.2)
        while not stop_flag.is_set():
            try:
                held.append(sock.accept()[0])
            except OSError:
                pass
    threading.Thread(target=accept, daemon=True).start()

    def close():
        stop_flag.set()
        for c in held:
            c.close()
        sock.close()
    return sock.getsockname()[1], close


def slow_svmon(tmp_path, seconds: float):
    """svmon on the LPAR answers after ``seconds`` (a scrape in flight for that long)."""
    svmon = tmp_path / "usr" / "bin" / "svmon"
    svmon.rename(svmon.with_name("svmon.real"))
    svmon.write_text(f"#!/bin/sh\n/bin/sleep {seconds}\nexec {svmon}.real \"$@\"\n")
    svmon.chmod(0o755)


def test_a_silent_target_and_a_stopped_sshd_fail_only_their_own_probe(tmp_path, sshd):
    port, close = silent_listener()
    cfg, _ = lpar(tmp_path, sshd, extra_targets=f"  - {{name: silent, source: 'ssh://{sshd.user}@127.0.0.1:{port}'}}\n")
    slow_svmon(sshd.dir / "root", 2)
    proc, url = serve(cfg)
    try:
        until_background_ran(url, cfg)
        headers = {"X-Prometheus-Scrape-Timeout-Seconds": "8"}
        started = time.monotonic()
        req = urllib.request.Request(f"{url}/probe?target=silent", headers=headers)
        with urllib.request.urlopen(req, timeout=30) as r:
            silent = r.read().decode()
        silent_took = time.monotonic() - started
        good = scrape(f"{url}/probe?target=lpar01")      # meanwhile the other target is whole
        req = urllib.request.Request(f"{url}/probe?target=lpar01", headers=headers)
        timer = threading.Timer(0.7, sshd.crash)          # the LPAR goes away while svmon runs
        timer.start()
        with urllib.request.urlopen(req, timeout=30) as r:
            gone = r.read().decode()
        timer.join()
        with urllib.request.urlopen(req, timeout=30) as r:
            after = r.read().decode()
        own = scrape(f"{url}/metrics")
    finally:
        stop(proc)
        err = (cfg.parent / "exporter.log").read_text()
        close()
    assert "aix_exporter_probe_success 0.0" in silent and 'aix_exporter_collector_success{collector="vmstat_v"} 0.0' in silent
    assert silent_took < 8, (silent_took, err[-3000:])          # within the scrape's deadline
    assert "aix_exporter_probe_success 1.0" in good, err[-3000:]
    assert "aix_exporter_probe_success 0.0" in gone and 'aix_exporter_collector_success{collector="memory"} 0.0' in gone, \
        err[-3000:]
    assert "aix_exporter_probe_success 0.0" in after and 'aix_exporter_collector_success{collector="vmstat_v"} 0.0' in after
    assert "aix_exporter_cpu_seconds" in own
    assert "no SSH answer within 3s" in err     # the silent target's failure, one line a collector
    assert "connection lost" in err and "next attempt in" in err    # the crash, then the backoff


def test_the_wrapper_refuses_a_command_outside_the_table_with_one_line(tmp_path, sshd):
    lpar(tmp_path, sshd)
    forced_wrapper(sshd)
    src = connect(sshd)
    assert src.run([str(sshd.dir / "root" / "usr" / "bin" / "vmstat"), "-v"], 10).startswith(
        (REPLAY / "vmstat_v.txt").read_text()[:40])
    with pytest.raises(SourceError) as e:
        src.run(["/bin/cat", "/etc/passwd"], 10)
    assert str(e.value) == (f"{sshd.user}@127.0.0.1:{sshd.port}: /bin/cat /etc/passwd: exit status 126: "
                            "aix-exporter-ssh-wrapper: refused: /bin/cat with these arguments is not in aix_exporter's "
                            "command table")


@pytest.mark.parametrize("how", ["deadline", "disconnect"])
def test_a_hung_command_and_its_children_end_on_the_lpar_with_the_channel(tmp_path, sshd, how):
    """Through the real sshd and the shipped wrapper: a command past the exporter's deadline, or
    one whose connection the exporter closes, is ended on the LPAR with its whole process group
    within a few seconds, not left running until a time limit (issue 57, item 2)."""
    from tests.unit.test_sshwrapper import _gone, _until
    lpar(tmp_path, sshd)
    forced_wrapper(sshd)
    svmon = sshd.dir / "root" / "usr" / "bin" / "svmon"
    (sshd.dir / "out").mkdir()
    (sshd.dir / "out").chmod(0o777)   # (the LPAR's user writes there)
    pids = sshd.dir / "out" / "hung.pids"
    svmon.write_text(f'#!/bin/sh\n/bin/sleep 300 &\necho "$$ $!" > {pids}\nexec /bin/sleep 300\n')
    svmon.chmod(0o755)
    src = connect(sshd)
    if how == "deadline":
        with pytest.raises(SourceError, match="timed out after 2s, channel closed"):
            src.run([str(svmon), "-G"], 2)
    else:
        threading.Timer(1.5, src.close).start()
        with pytest.raises(SourceError):
            src.run([str(svmon), "-G"], 30)
    assert _until(lambda: pids.exists() and len(pids.read_text().split()) == 2, 5)
    started = [int(p) for p in pids.read_text().split()]
    assert _until(lambda: all(_gone(p) for p in started), 5), f"still running on the LPAR after {how}"
    src.close()


def _running(path: str) -> list:
    """PIDs of the instances of ``path`` running on this host (the "LPAR"): the processes whose
    command line names it, less those whose parent is one of them. A shell script's child is
    a copy of it between fork and exec (its command line still the script's, for a moment):
    the stand-in's `sleep 1` each second would otherwise count as a second dsmadmc."""
    import os
    found = {}
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if path.encode() not in f.read():
                    continue
            with open(f"/proc/{pid}/stat") as f:
                found[int(pid)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            pass
    return [pid for pid, parent in found.items() if parent not in found]


def test_a_dsmadmc_that_never_answers_never_darkens_the_lpar(tmp_path, sshd):
    """Issue 57, item 2, with the real sshd and the shipped wrapper: dsmadmc hangs (the TSM
    server is down) and the target is probed every 3 s for 45 s (bench/perf/ssh_hung_dsmadmc.py: every
    15 s for 5 minutes, through AIX_EXPORTER_HUNG_SECONDS and AIX_EXPORTER_HUNG_EVERY). The other
    collectors succeed on every probe, no more than one dsmadmc ever runs on the LPAR, and after
    the exporter's SIGTERM none is left within 5 s."""
    import os
    seconds = float(os.environ.get("AIX_EXPORTER_HUNG_SECONDS", "45"))
    every = float(os.environ.get("AIX_EXPORTER_HUNG_EVERY", "3"))
    cfg, _ = lpar(tmp_path, sshd)
    forced_wrapper(sshd)
    dsmadmc = sshd.dir / "root" / "usr" / "bin" / "dsmadmc"
    dsmadmc.write_text("#!/bin/sh\nwhile :; do /bin/sleep 1; done\n")   # never answers, never exits
    dsmadmc.chmod(0o755)
    most, seen, stop_watch = [0], [], threading.Event()

    def watch():
        while not stop_watch.is_set():
            n = len(_running(str(dsmadmc)))
            most[0] = max(most[0], n)
            seen.append(n)
            time.sleep(0.2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    proc, url = serve(cfg)
    failed = []
    try:
        until_background_ran(url, cfg)
        headers = {"X-Prometheus-Scrape-Timeout-Seconds": "2.5"}
        end = time.monotonic() + seconds
        probes = 0
        while time.monotonic() < end:
            req = urllib.request.Request(f"{url}/probe?target=lpar01", headers=headers)
            with urllib.request.urlopen(req, timeout=30) as r:
                out = r.read().decode()
            probes += 1
            for c in ("vmstat", "vmstat_v", "vmstat_s", "memory", "process", "ldr_cntrl", "vmo", "aso", "splat", "tape",
                      "tsm"):
                if f'aix_exporter_collector_success{{collector="{c}"}} 1.0' not in out:
                    failed.append((probes, c))
            assert 'aix_exporter_collector_success{collector="tsm_server"} 0.0' in out
            time.sleep(every)
    finally:
        stop(proc)   # SIGTERM
        stopped = time.monotonic()
        left = _running(str(dsmadmc))
        while left and time.monotonic() - stopped < 5:
            time.sleep(0.1)
            left = _running(str(dsmadmc))
        stop_watch.set()
        watcher.join()
    err = (cfg.parent / "exporter.log").read_text()
    assert probes >= 10
    assert not failed, (failed[:5], err[-3000:])
    assert most[0] == 1, (most[0], err[-3000:])   # (0: dsmadmc never ran, the test would test nothing)
    assert not left, f"dsmadmc still running on the LPAR 5 s after the exporter's SIGTERM: {left}"


@pytest.mark.parametrize("output", ["yes", "nul", "newlines"])
def test_a_hostile_lpars_endless_output_fails_one_command_within_the_targets_budget(tmp_path, sshd, output):
    """Issue 57, item 4: endless output (or NULs, or newlines) from one command fails that command
    with one line once the target's output budget is held, and frees it; the next command of the
    same target is whole."""
    from aix_exporter.config import Settings
    lpar(tmp_path, sshd)
    forced_wrapper(sshd)
    svmon = sshd.dir / "root" / "usr" / "bin" / "svmon"
    producer = {"yes": "/usr/bin/yes aaaaaaaaaaaaaaaa", "nul": "/bin/cat /dev/zero",
                "newlines": "/usr/bin/yes ''"}[output]
    svmon.write_text(f"#!/bin/sh\nexec {producer}\n")
    svmon.chmod(0o755)
    s = Settings()
    s.ssh.connect_timeout_seconds, s.ssh.output_budget_bytes = 3, 2 << 20
    src = open_source(sshd.spec, s, key_file=str(sshd.client_key), known_hosts=str(sshd.known_hosts))
    try:
        with pytest.raises(SourceError) as e:
            src.run([str(svmon), "-G"], 20)
        assert str(e.value).endswith(f"output past the target's budget of {2 << 20} bytes held at once "
                                     "(ssh.output_budget_bytes), channel closed"), str(e.value)
        assert src.connection.held == 0
        vmstat = sshd.dir / "root" / "usr" / "bin" / "vmstat"
        assert src.run([str(vmstat), "-v"], 10).startswith((REPLAY / "vmstat_v.txt").read_text()[:40])
    finally:
        src.close()


def rotation_cases():
    """The local tail's test cases (tests/unit/test_logtail.py) that need only files, a clock
    and monkeypatch: each runs again here with the files on the LPAR, read over SSH."""
    from tests.unit import test_logtail
    out = []
    for name, fn in sorted(vars(test_logtail).items()):
        if name.startswith("test_") and callable(fn) and not hasattr(fn, "pytestmark"):
            params = set(inspect.signature(fn).parameters)
            if params and params <= {"tmp_path", "monkeypatch", "clock"} and "tmp_path" in params \
                    and "cannot_be_mapped" not in name:
                out.append(pytest.param(fn, id=name[5:]))
    return out


@pytest.fixture(scope="module")
def lpar_sshd():
    server = Sshd().start()
    yield server
    server.remove()


_cases = itertools.count()


@pytest.mark.parametrize("case", rotation_cases())
def test_the_remote_tail_passes_the_local_tails_rotation_cases_over_sshd(case, lpar_sshd, monkeypatch):
    from aix_exporter.sources import logtail, remotelog
    from tests.unit.test_logtail import T

    class OverSsh(remotelog.RemoteFiles):
        def now(self):          # (the case's clock, as in test_logtail's remote run)
            return logtail.time.time()

    src = connect(lpar_sshd)
    monkeypatch.setattr(logtail, "tail", functools.partial(logtail.tail, fs=OverSsh(src.connection.run, 30)))
    work = lpar_sshd.dir / f"case-{next(_cases)}"   # (on the LPAR: its user reads the files)
    work.mkdir()
    work.chmod(0o755)
    params = set(inspect.signature(case).parameters)
    kwargs = {"tmp_path": work, "monkeypatch": monkeypatch}
    if "clock" in params:
        monkeypatch.setattr(logtail.time, "time", lambda: T)
        kwargs["clock"] = T
    case(**{k: v for k, v in kwargs.items() if k in params})


# -- the SSH runner at each edge the local runner is tested at (issue 61, item 1) -----------------
def test_the_ssh_runner_reads_up_to_its_cap_and_a_byte_more_is_an_error(sshd):
    """As tests/unit/test_system_source.py's local runner: exactly the cap is an answer, one
    byte over it fails that command (and frees it)."""
    src = connect(sshd)
    assert src.runner.run(["/bin/sh", "-c", "printf 0123456789"], 10, max_output=10) == "0123456789"
    with pytest.raises(SourceError) as e:
        src.runner.run(["/bin/sh", "-c", "printf 0123456789x"], 10, max_output=10)
    assert str(e.value) == f"{sshd.spec[6:]}: /bin/sh -c printf 0123456789x: printed more than 10 bytes, channel closed"
    assert src.runner.held == 0


@pytest.mark.parametrize("how", ["a child killed (the wrapper's status)", "the session's own process killed"])
def test_a_command_killed_by_a_signal_is_a_failure_with_its_partial_output_never_an_answer(sshd, how):
    """A child killed by a signal comes back as the shell's or the wrapper's 128 + 9; the
    process sshd started killed comes back as sshd's exit-signal: either way a failure naming
    it, its partial output kept for the message, never taken as the command's answer."""
    from aix_exporter.sources import CommandFailed
    if how.startswith("the session's"):
        sshd.set_forced_command("printf partial; kill -9 $$")
    src = connect(sshd)
    with pytest.raises(CommandFailed) as e:
        src.runner.run(["/bin/sh", "-c", "printf partial; kill -9 $$"], 10)
    where = f"{sshd.spec[6:]}: /bin/sh -c printf partial; kill -9 $$"
    assert str(e.value) == (f"{where}: exit status 137: Killed" if how.startswith("a child")
                            else f"{where}: killed by signal KILL")
    assert e.value.output == "partial"


def test_a_table_command_killed_by_a_signal_under_the_wrapper_is_a_failure_never_an_answer(tmp_path, sshd):
    """Issue 61, item 1 (a wrapper child that dies of a signal): svmon prints half its answer and
    is killed; the wrapper reports 128 + 9 as its exit status, and the exporter takes it as a
    failure with the partial output kept for the message, never as svmon's answer."""
    from aix_exporter.sources import CommandFailed
    lpar(tmp_path, sshd)
    forced_wrapper(sshd)
    svmon = sshd.dir / "root" / "usr" / "bin" / "svmon"
    svmon.write_text("#!/bin/sh\nprintf 'Unit: page\\n'\nkill -9 $$\n")
    svmon.chmod(0o755)
    src = connect(sshd)
    with pytest.raises(CommandFailed) as e:
        src.runner.run([str(svmon), "-G"], 10)
    assert str(e.value).startswith(f"{sshd.spec[6:]}: {svmon} -G: exit status 137"), str(e.value)
    assert e.value.output == "Unit: page\n"


def delayed_proxy(port: int, delay: float):
    """A TCP port that forwards to ``port`` after holding each new connection ``delay`` seconds
    (a slow network or a busy LPAR's sshd): returns (its port, close)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    done = threading.Event()

    def pipe(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def serve(client):
        time.sleep(delay)
        if done.is_set():
            client.close()
            return
        upstream = socket.create_connection(("127.0.0.1", port))
        threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
        pipe(upstream, client)

    def accept():
        sock.settimeout(0.2)
        while not done.is_set():
            try:
                client, _ = sock.accept()
            except OSError:
                continue
            threading.Thread(target=serve, args=(client,), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()

    def close():
        done.set()
        sock.close()
    return sock.getsockname()[1], close


@pytest.mark.parametrize("deadline, command, ends", [
    (5, "/bin/sleep 30", "timed out after 5s, channel closed"),   # connected after 3 s: 2 s left for the command
    (2, "/bin/sleep 30", "timed out after 2s while connecting"),   # the deadline passes while connecting
    (8, "/bin/echo answered", None),                                # enough for both
])
def test_the_deadline_covers_a_slow_connection(sshd, deadline, command, ends):
    """A command's deadline counts from the call, connecting included: with a connection that
    takes 3 s, a 5 s deadline ends the command 5 s after the call, not 5 s after connecting."""
    port, close = delayed_proxy(sshd.port, 3.0)
    s = Settings()
    s.ssh.connect_timeout_seconds = 10
    (sshd.dir / "known_hosts_proxy").write_text(sshd.known_hosts.read_text().replace(f"]:{sshd.port} ", f"]:{port} "))
    src = open_source(sshd.spec.replace(f":{sshd.port}", f":{port}"), s, key_file=str(sshd.client_key),
                      known_hosts=str(sshd.dir / "known_hosts_proxy"))
    try:
        started = time.monotonic()
        if ends is None:
            assert src.runner.run(command.split(), deadline) == "answered\n"
        else:
            with pytest.raises(SourceError) as e:
                src.runner.run(command.split(), deadline)
            assert str(e.value).endswith(ends), str(e.value)
            assert time.monotonic() - started < deadline + 1.5   # (not the 3 s connect on top of it)
    finally:
        src.close()
        close()
