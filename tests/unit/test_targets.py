"""Many LPARs from one exporter (issue 49) without a network: the ssh source's address form and
key rule, ``targets:`` in the configuration, and the Fleet behind /probe?target=NAME over
replay targets (tests/e2e/test_ssh.py runs the same over a real sshd)."""
import os
import threading
import time

import pytest

from aix_exporter.collectors.memory import MemoryCollector
from aix_exporter.collectors.vmstat_v import VmstatVCollector
from aix_exporter.config import ConfigError, Settings, TsmSettings, load, target_settings
from aix_exporter.exporter import Exporter
from aix_exporter.exposition import text
from aix_exporter.sources import SourceError
from aix_exporter.sources.replay import ReplaySource
from aix_exporter.sources.ssh import CPU_LINE, ENV_PREFIX, Connection, SshTarget, cpu_report, key_problem, parse_spec
from aix_exporter.targets import Fleet, UnknownTarget
from tests.lib import FIXTURES

REPLAY = FIXTURES / "replay" / "tsm-lpar"
CTYPE = "text/plain; version=0.0.4; charset=utf-8"


@pytest.mark.parametrize("spec, want", [
    ("ssh://aixmon@lpar01", ("aixmon", "lpar01", 22)),
    ("ssh://aixmon@lpar01.example.com:2222", ("aixmon", "lpar01.example.com", 2222)),
    ("ssh://aix_mon@10.1.2.3:22", ("aix_mon", "10.1.2.3", 22)),
    ("ssh://aixmon@[fd00::12]:2022", ("aixmon", "fd00::12", 2022)),
])
def test_the_ssh_address_form(spec, want):
    assert parse_spec(spec) == want


@pytest.mark.parametrize("spec", ["ssh://lpar01", "ssh://@lpar01", "ssh://a b@lpar01", "ssh://aixmon@lpar01:0",
                                  "ssh://aixmon@lpar01:65536", "ssh://aixmon@lpar01;rm", "ssh://-oProxyCommand=x@h"])
def test_an_ssh_address_that_is_not_one_is_refused_with_the_form(spec):
    with pytest.raises(ValueError) as e:
        parse_spec(spec)
    assert "ssh://USER@HOST[:PORT]" in str(e.value) or "is not 1-65535" in str(e.value)


def test_the_key_file_rule_is_the_password_files(tmp_path):
    key = tmp_path / "id"
    assert key_problem(None) == "no ssh key_file configured (key authentication only)"
    assert key_problem(str(key)) == f"ssh key {key}: No such file or directory"
    key.write_text("k")
    key.chmod(0o640)
    assert key_problem(str(key)) == f"ssh key {key}: readable by others (mode 640); chmod 600 it"
    key.chmod(0o600)
    assert key_problem(str(key)) is None
    assert key_problem(str(tmp_path)) == f"ssh key {tmp_path}: not a regular file"


def test_the_remote_command_line_is_the_argv_quoted_behind_lc_all_c():
    import shlex
    argv = ["/usr/bin/dsmadmc", "-id=monitor", "-comma", "select a,b from processes", "it's"]
    line = shlex.join([*ENV_PREFIX, *argv])
    assert line.startswith("/usr/bin/env LC_ALL=C LANG=C PATH=/usr/bin:/usr/sbin:/bin:/sbin /usr/bin/dsmadmc ")
    assert shlex.split(line)[4:] == argv          # what a POSIX shell and the wrapper make of it


def test_the_wrappers_cpu_report_is_read_and_taken_out_of_the_error_text():
    m = CPU_LINE.search(b"warning\naix-exporter-cpu: 0.25 0.50\n")
    assert m and float(m.group(1)) + float(m.group(2)) == 0.75
    c = Connection(SshTarget("h", "u"))
    c._account("/usr/bin/svmon", None, 0.5)
    c._account("/usr/bin/svmon", 0.75, 0.0, run=False)
    c._account("/usr/bin/svmon", None, 0.25)
    c._account("/usr/bin/vmstat", None, 1.0)
    assert c.command_costs() == {"svmon": (0.75, 0.75, 2), "vmstat": (None, 1.0, 1)}


@pytest.mark.parametrize("err, cpu, left", [
    (b"warning\naix-exporter-cpu: 0.250 0.500\n", 0.75, b"warning\n"),
    (b"aix-exporter-cpu: 1.000 0.000\n", 1.0, b""),
    # a forged line of another shape, or one that is not the last, is the command's own text
    (b"aix-exporter-cpu: 1.2.3 0\n", None, b"aix-exporter-cpu: 1.2.3 0\n"),
    (b"aix-exporter-cpu: 9 9\nno\n", None, b"aix-exporter-cpu: 9 9\nno\n"),
    (b"aix-exporter-cpu: nan inf\n", None, b"aix-exporter-cpu: nan inf\n"),
    (b"aix-exporter-cpu: 1e308 0\n", None, b"aix-exporter-cpu: 1e308 0\n"),
    (b"xaix-exporter-cpu: 1 0\n", None, b"xaix-exporter-cpu: 1 0\n"),
])
def test_only_the_wrappers_own_last_line_is_its_cpu_report(err, cpu, left):
    """Issue 57, item 6: the CPU line is parsed strictly; a bad one drops that figure and fails
    nothing (it failed every collector of the LPAR with a ValueError)."""
    assert cpu_report(err, err[-128:]) == (cpu, left)


def test_the_cpu_report_is_found_after_a_long_stderr():
    err = b"x" * 4096          # (the head kept, as STDERR_KEPT cuts it)
    tail = (b"y" * 5000 + b"\naix-exporter-cpu: 0.010 0.020\n")[-128:]
    got, left = cpu_report(err, tail)
    assert abs(got - 0.03) < 1e-9 and left == err


def test_an_unreachable_target_backs_off_instead_of_connecting_for_each_command(tmp_path):
    import asyncssh
    key = tmp_path / "id"
    key.write_text("k")
    key.chmod(0o600)
    c = Connection(SshTarget("127.0.0.1", "u", 22, str(key), str(tmp_path / "none")))
    with pytest.raises(SourceError) as e:
        c.run(["/usr/bin/vmstat", "-v"], 5)
    assert str(e.value).startswith(f"ssh key {key}: not a private key without a passphrase (")
    asyncssh.generate_private_key("ssh-ed25519").write_private_key(str(key))
    hosts = tmp_path / "known_hosts"
    hosts.write_text("")
    import socket
    with socket.socket() as s:          # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    c = Connection(SshTarget("127.0.0.1", "u", port, str(key), str(hosts), connect_timeout_seconds=2))
    with pytest.raises(SourceError) as first:
        c.run(["/usr/bin/vmstat", "-v"], 5)
    assert "cannot connect" in str(first.value)
    with pytest.raises(SourceError) as second:
        c.run(["/usr/bin/vmstat", "-v"], 5)
    assert "not connected (" in str(second.value) and "next attempt in 1s" in str(second.value)
    assert c._backoff == 2.0 and c.connects == 0


def config(tmp_path, body):
    p = tmp_path / "c.yml"
    p.write_text(body)
    return str(p)


def test_targets_in_the_configuration(tmp_path):
    s = load(config(tmp_path, "ssh: {key_file: /etc/aix_exporter/id, known_hosts: /etc/aix_exporter/known_hosts}\n"
                              "tsm: {actlog_file: /home/tsm/dsmserv.log}\n"
                              "targets:\n"
                              "  - {name: lpar01, source: 'ssh://aixmon@lpar01', collectors: [vmstat, memory],\n"
                              "     tsm: {admin_id: monitor, password_file: /etc/aix_exporter/lpar01.pw}}\n"
                              "  - {name: lpar02, source: 'ssh://aixmon@lpar02:2222', key_file: /etc/k2}\n"))
    one, two = s.targets
    assert (one.name, one.source, one.collectors, two.key_file) == ("lpar01", "ssh://aixmon@lpar01", ["vmstat", "memory"],
                                                                   "/etc/k2")
    assert isinstance(one.tsm, TsmSettings) and one.tsm.admin_id == "monitor"
    # a target's tsm section is its own: the top level's log is one server's, never inherited
    assert target_settings(s, one).tsm.actlog_file is None and target_settings(s, two).tsm == TsmSettings()
    assert target_settings(s, one).ssh.key_file == "/etc/aix_exporter/id" and s.tsm.actlog_file == "/home/tsm/dsmserv.log"


@pytest.mark.parametrize("body, want", [
    ("targets:\n  - {name: 'a b', source: 'ssh://u@h'}\n", "targets[0].name: 'a b' is not a target name"),
    ("targets:\n  - {name: a, source: 'ssh://u@h'}\n  - {name: a, source: 'ssh://u@i'}\n", "'a' is declared twice"),
    ("targets:\n  - {name: a}\n", "targets[0].source: missing (ssh://USER@HOST[:PORT])"),
    ("targets:\n  - {name: a, source: 'ssh://u@h', collectors: [nope]}\n", "targets[0].collectors: unknown nope"),
    ("targets:\n  - {name: a, source: 'ssh://u@h', key_file: id}\n", "targets[0].key_file: must be an absolute path"),
    ("targets:\n  - {name: a, source: 'ssh://u@h', colour: red}\n", "targets[0].colour: unknown key"),
    ("targets:\n  - {name: a, source: 'ssh://u@h', tsm: {admin_id: 'x;y', password_file: /p}}\n",
     "targets.a: tsm.admin_id: 'x;y' is not an administrator name"),
    ("targets:\n  - {name: a, source: 'ssh://u@h', tsm: {state_file: /s}}\n"
     "  - {name: b, source: 'ssh://u@i', tsm: {state_file: /s}}\n", "tsm.state_file /s is used twice"),
    ("ssh: {known_hosts: known_hosts}\n", "ssh.known_hosts: must be an absolute path"),
])
def test_a_wrong_target_is_refused_saying_which_and_why(tmp_path, body, want):
    from aix_exporter.collectors import registry
    with pytest.raises(ConfigError) as e:
        load(config(tmp_path, body), collector_names=list(registry()))   # (as the exporter loads it)
    assert want in str(e.value)


def replay_exporter():
    src = ReplaySource(str(REPLAY))
    return Exporter(src, [MemoryCollector(Settings()), VmstatVCollector(Settings())], own_metrics=False)


def test_a_probe_answers_with_its_targets_families_health_and_no_process_metrics():
    fleet = Fleet({"lpar01": replay_exporter()}, max_concurrent=2)
    out = fleet.render("lpar01", text, CTYPE, False, 5.0).decode()
    assert "aix_exporter_probe_success 1.0" in out
    assert 'aix_exporter_collector_success{collector="memory"} 1.0' in out
    assert "aix_vmstat_v_" in out or "aix_memory_" in out
    assert "aix_exporter_build_info" not in out and "aix_exporter_cpu_seconds" not in out
    import gzip
    zipped = gzip.decompress(fleet.render("lpar01", text, CTYPE, True, 5.0)).decode()
    assert "aix_exporter_probe_success 1.0" in zipped and 'aix_exporter_collector_success{collector="memory"} 1.0' in zipped
    with pytest.raises(UnknownTarget):
        fleet.render("lpar02", text, CTYPE, False, 5.0)


class Blocking:
    """A source whose every read waits until released (a slow LPAR)."""
    name = "blocking"
    slow_keys: frozenset = frozenset()

    def __init__(self):
        self.go = threading.Event()

    def read(self, key):
        self.go.wait(30)
        raise SourceError("released")


def test_a_slow_target_fails_only_its_own_probe_and_probes_beyond_the_bound_wait_their_turn():
    slow_src = Blocking()
    slow = Exporter(slow_src, [MemoryCollector(Settings())], own_metrics=False)
    fleet = Fleet({"slow": slow, "lpar01": replay_exporter()}, max_concurrent=1)
    try:
        started = time.monotonic()
        out = fleet.render("slow", text, CTYPE, False, 0.5).decode()
        assert time.monotonic() - started < 5
        assert "aix_exporter_probe_success 0.0" in out and 'aix_exporter_collector_success{collector="memory"} 0.0' in out
        # the bound: while a probe holds the only turn, another waits, then answers within its deadline
        holder = threading.Thread(target=fleet.render, args=("slow", text, CTYPE, False, 3.0))
        holder.start()
        time.sleep(0.3)
        out = fleet.render("lpar01", text, CTYPE, False, 0.5).decode()
        assert "aix_exporter_probe_success 0.0" in out
        holder.join()
        out = fleet.render("lpar01", text, CTYPE, False, 5.0).decode()   # its turn free again: the target is whole
        assert "aix_exporter_probe_success 1.0" in out
    finally:
        slow_src.go.set()
        slow.stop()


def test_probes_of_one_slow_target_share_its_turn_and_never_take_a_healthy_targets():
    """Issue 57, item 3: the bound counts targets, not probes. Eight probes of one slow target
    at once hold one turn among two; probes of healthy targets meanwhile answer whole, 15 of 15."""
    slow_src = Blocking()
    slow = Exporter(slow_src, [MemoryCollector(Settings())], own_metrics=False)
    healthy = {f"lpar{i:02d}": replay_exporter() for i in range(3)}
    fleet = Fleet({"slow": slow, **healthy}, max_concurrent=2)
    try:
        probes = [threading.Thread(target=fleet.render, args=("slow", text, CTYPE, False, 4.0)) for _ in range(8)]
        for t in probes:
            t.start()
        time.sleep(0.3)
        assert fleet._holding == {"slow": 8}   # one turn, shared
        answers = [fleet.render(name, text, CTYPE, False, 1.0).decode() for _ in range(5) for name in healthy]
        assert sum("aix_exporter_probe_success 1.0" in a for a in answers) == 15
        for t in probes:
            t.join()
        assert fleet._holding == {}
        # and the turns come back: two targets may collect at once again
        assert fleet._enter("lpar00", 0) and fleet._enter("lpar01", 0) and not fleet._enter("lpar02", 0.1)
        fleet._leave("lpar00")
        fleet._leave("lpar01")
    finally:
        slow_src.go.set()
        slow.stop()


def test_the_collection_says_each_collectors_success_as_the_exposition_does():
    slow_src = Blocking()
    ex = Exporter(slow_src, [MemoryCollector(Settings())], own_metrics=False)
    try:
        got = ex.collect(0.3)
        assert got.ran and got.cut == frozenset({"memory"}) and got.success == {"memory": False}
    finally:
        slow_src.go.set()
        ex.stop()
    ok = replay_exporter().collect(5.0)
    assert ok.ran and ok.cut == frozenset() and ok.success == {"memory": True, "vmstat_v": True}


def test_probes_within_the_min_interval_get_the_answer_encoded_once():
    """A flood of probes of one target costs one collection and one encoding per interval."""
    src = ReplaySource(str(REPLAY))
    ex = Exporter(src, [MemoryCollector(Settings())], own_metrics=False, min_interval=60)
    encoded = []

    def encoder(registry):
        encoded.append(1)
        return text(registry)

    fleet = Fleet({"lpar01": ex})
    first = fleet.render("lpar01", encoder, CTYPE, False, 5.0)
    assert all(fleet.render("lpar01", encoder, CTYPE, False, 5.0) is first for _ in range(20))
    assert len(encoded) == 1 and b"aix_exporter_probe_success 1.0" in first
    zipped = fleet.render("lpar01", encoder, CTYPE, True, 5.0)   # another encoding: its own answer
    assert len(encoded) == 2 and zipped is not first
    ex.min_interval = 0                                           # a new collection: a new answer
    assert fleet.render("lpar01", encoder, CTYPE, False, 5.0) is not first and len(encoded) == 3


def test_without_targets_the_top_level_sections_are_unchanged():
    s = load(None)
    assert s.targets == [] and os.path.isabs(s.tsm.dsmadmc_binary)


def test_the_newest_splat_report_is_read_on_the_lpar_by_the_local_rules(tmp_path):
    """The watched directory is the LPAR's: listed, stat'ed and read by the Perl helper (run here
    by the system source's runner), newest by mtime, hidden and unmatched names left out, too
    old refused rather than served as fresh."""
    from aix_exporter.sources import system
    from aix_exporter.sources.remotelog import remote_splat_report
    run = lambda argv, timeout: system.run(argv, timeout)
    s = Settings()
    s.splat.report_dir = str(tmp_path)
    with pytest.raises(SourceError) as e:
        remote_splat_report(run, s)
    assert str(e.value) == f"no splat report named *.out in {tmp_path}"
    now = time.time()
    for name, age, body in (("a.out", 300, "older"), ("b.out", 60, "newest"), (".c.out", 0, "hidden"),
                            ("d.txt", 0, "other name")):
        (tmp_path / name).write_text(body)
        os.utime(tmp_path / name, (now - age, now - age))
    (tmp_path / "e.out").mkdir()                      # a directory of a report's name is no report
    text, when = remote_splat_report(run, s)
    assert text == "newest" and abs(when - (now - 60)) < 1e-3
    s.splat.max_age_seconds = 30
    with pytest.raises(SourceError) as e:
        remote_splat_report(run, s)
    assert "older than splat.max_age_seconds (30): not served as fresh" in str(e.value)


def test_a_targets_background_collectors_start_at_its_first_probe_and_only_then():
    from aix_exporter.sources.simulate import SimulatedSource
    from aix_exporter.collectors.vmstat import VmstatCollector
    s = Settings()
    one = Exporter(SimulatedSource("case-study"), [VmstatCollector(s)], own_metrics=False)
    two = Exporter(SimulatedSource("case-study"), [VmstatCollector(s)], own_metrics=False)
    for ex in (one, two):   # (as on a source whose vmstat takes an interval: a background collector)
        ex.background, ex.on_scrape = ex.collectors, []
    fleet = Fleet({"one": one, "two": two})
    try:
        assert one._threads == [] and two._threads == []
        fleet.render("one", text, CTYPE, False, 5.0)
        fleet.render("one", text, CTYPE, False, 5.0)
        assert len(one._threads) == 1 and two._threads == []     # started once, the other never probed
    finally:
        one.stop()
        two.stop()
