"""The temporary Prometheus behind `report --tsdb` and `import nmon --rules`: the blocks' range
from their meta.json, a real Prometheus (Debian package prometheus) started on the blocks with a
retention longer than any history, polled until ready, stopped by its PID, and what it leaves
beside the blocks removed; each way it cannot start is one line."""
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest

from aix_exporter.tools import tempprom


def block(tsdb, name, first_ms, last_ms):
    os.makedirs(tsdb / name)
    (tsdb / name / "meta.json").write_text(json.dumps({"ulid": name, "minTime": first_ms, "maxTime": last_ms,
                                                       "version": 1}))


def test_the_range_of_the_blocks(tmp_path):
    assert tempprom.block_range(str(tmp_path)) == (None, None)
    block(tmp_path, "01B", 1_700_007_200_000, 1_700_014_400_500)
    block(tmp_path, "01A", 1_700_000_000_000, 1_700_007_200_000)
    block(tmp_path, "01C", 1_700_003_600_000, 1_700_010_800_000)     # inside the others
    os.makedirs(tmp_path / "wal")                                     # not a block
    (tmp_path / "lock").write_text("")
    assert tempprom.block_range(str(tmp_path)) == (1_700_000_000.0, 1_700_014_400.5)


def test_a_free_loopback_port():
    port = tempprom.free_port()
    assert 1024 <= port <= 65535
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))                                   # still free


def test_stop_ends_a_server_by_its_pid_and_one_that_ignores_sigterm_by_sigkill():
    polite = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    tempprom.stop(polite)
    assert polite.returncode == -15
    stubborn = subprocess.Popen([sys.executable, "-c", "import signal, sys, time\n"
                                 "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\n"
                                 "time.sleep(60)"], stdout=subprocess.PIPE)
    assert stubborn.stdout.readline() == b"ready\n"
    tempprom.stop(stubborn, timeout=0.5)
    assert stubborn.returncode == -9
    stubborn.stdout.close()
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    tempprom.stop(done)                                               # already ended: nothing to do
    assert done.returncode == 0


needs_prometheus = pytest.mark.skipif(not shutil.which("prometheus"), reason="needs Debian's prometheus")


def started_by(monkeypatch) -> list:
    """The processes tempprom starts, as they start (subprocess.Popen still starts them)."""
    started: list = []
    real = subprocess.Popen

    def popen(argv, **kw):
        started.append(real(argv, **kw))
        return started[-1]
    monkeypatch.setattr(tempprom.subprocess, "Popen", popen)
    return started


@needs_prometheus
def test_a_temporary_prometheus_on_the_blocks_leaves_them_as_they_were(tmp_path, monkeypatch):
    tsdb = tmp_path / "tsdb"
    tsdb.mkdir()
    (tsdb / "mine.txt").write_text("kept")
    started = started_by(monkeypatch)
    with tempprom.serve(str(tsdb)) as url:
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(f"{url}/api/v1/status/flags", timeout=10) as r:
            flags = json.load(r)["data"]
        assert flags["storage.tsdb.retention.time"] == "100y"
        assert flags["storage.tsdb.path"] == str(tsdb)
        assert flags["web.listen-address"] == url[len("http://"):]
        with urllib.request.urlopen(f"{url}/api/v1/status/config", timeout=10) as r:
            assert "evaluation_interval: 1m" in json.load(r)["data"]["yaml"]
        work = os.path.dirname(flags["config.file"])
        assert os.path.basename(work).startswith("aix-exporter-prometheus-")
    assert started[0].returncode is not None                        # ended when the block ended
    assert sorted(os.listdir(tsdb)) == ["mine.txt"]                 # its wal, lock, chunks_head removed
    assert not os.path.exists(work)


@needs_prometheus
def test_the_configuration_given_is_the_one_served(tmp_path):
    with tempprom.serve(str(tmp_path), config="global: {evaluation_interval: 15s}\n") as url:
        with urllib.request.urlopen(f"{url}/api/v1/status/config", timeout=10) as r:
            assert "evaluation_interval: 15s" in json.load(r)["data"]["yaml"]


@needs_prometheus
def test_a_prometheus_that_cannot_start_is_one_line_with_its_reason(tmp_path):
    t0 = time.monotonic()
    with pytest.raises(tempprom.TempPrometheusError) as e:
        with tempprom.serve(str(tmp_path), config="global: {evaluation_interval: bogus}\n"):
            pass
    assert str(e.value).startswith(f"a temporary Prometheus on {tmp_path} did not start: ")
    assert "bogus" in str(e.value) and "\n" not in str(e.value)
    assert time.monotonic() - t0 < 60                               # it saw the process end, not the deadline


def test_without_prometheus_or_the_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(tempprom.shutil, "which", lambda name: "/usr/bin/prometheus")   # not started
    with pytest.raises(tempprom.TempPrometheusError) as e:
        with tempprom.serve(str(tmp_path / "none")):
            pass
    assert str(e.value) == f"{tmp_path / 'none'}: no such directory"
    monkeypatch.setattr(tempprom.shutil, "which", lambda name: None)
    with pytest.raises(tempprom.TempPrometheusError) as e:
        with tempprom.serve(str(tmp_path)):
            pass
    assert str(e.value) == "prometheus not found (Debian package prometheus)"


@needs_prometheus
def test_the_temporary_prometheus_runs_in_a_process_group_of_its_own(tmp_path, monkeypatch):
    started = started_by(monkeypatch)
    with tempprom.serve(str(tmp_path)):
        pid = started[0].pid
        assert os.getpgid(pid) == pid != os.getpgid(0)      # a terminal's ^C does not reach it


def test_a_log_with_undecodable_bytes_is_read_for_the_reason(tmp_path, monkeypatch):
    fake = tmp_path / "prometheus"
    fake.write_text("#!/bin/sh\nprintf 'bad \\377 flag\\n'\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(tempprom.shutil, "which", lambda name: str(fake))
    with pytest.raises(tempprom.TempPrometheusError) as e:
        with tempprom.serve(str(tmp_path)):
            pass
    assert str(e.value) == f"a temporary Prometheus on {tmp_path} did not start: bad \ufffd flag"


def test_a_prometheus_that_cannot_start_is_quoted_by_the_last_400_characters_of_its_log(tmp_path, monkeypatch):
    fake = tmp_path / "prometheus"
    fake.write_text("#!/bin/sh\nprintf '%s' \"" + "x" * 500 + "END\"\nexit 1\n")   # says much, then ends
    fake.chmod(0o755)
    monkeypatch.setattr(tempprom.shutil, "which", lambda name: str(fake) if name == "prometheus" else None)
    (tmp_path / "db").mkdir()
    with pytest.raises(tempprom.TempPrometheusError) as e:
        with tempprom.serve(str(tmp_path / "db")):
            pass
    assert str(e.value) == f"a temporary Prometheus on {tmp_path / 'db'} did not start: " + "x" * 397 + "END"
