"""Hostile clients against a real exporter process, bounded in count and time (issue: hostile
clients, hung reads). Each test states the figure it must meet."""
import base64
import http.client
import os
import socket
import subprocess
import sys
import time

import pytest

from tests.lib import fetch, free_port
from tests.lib.processes import start, stop, wait_http


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as fh:
        return int(next(l for l in fh if l.startswith("VmRSS:")).split()[1])


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


@pytest.fixture
def exporter():
    port = free_port()
    proc = start([sys.executable, "-m", "aix_exporter.cli", "--source", "simulate:case-study?at=20000",
                  "--web.listen-address", f"127.0.0.1:{port}", "--web.max-requests", "4"])
    wait_http(f"http://127.0.0.1:{port}/metrics", proc=proc)
    yield port, proc
    stop(proc)


def get(port, path="/metrics", headers=None, timeout=10):
    """(status, body) of one GET (tests/lib/fetch)."""
    r = fetch.get(f"http://127.0.0.1:{port}{path}", headers, timeout=timeout)
    return r.status, r.body


def test_huge_headers_get_431_and_memory_stays_flat(exporter):
    port, proc = exporter
    before = rss_kb(proc.pid)
    for _ in range(5):   # 6.3 MB of headers each time
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        head = b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"".join(
            b"X-Junk-%d: %s\r\n" % (i, b"a" * 8000) for i in range(800))
        try:
            s.sendall(head)
        except OSError:
            pass   # the server may answer and close before it has read everything
        reply = s.recv(4096)
        s.close()
        assert reply.startswith(b"HTTP/1.1 431"), reply[:100]
    assert rss_kb(proc.pid) - before < 20 * 1024
    assert get(port)[0] == 200


def test_slow_header_connections_do_not_stop_scrapes_or_grow_threads(exporter):
    port, proc = exporter
    before = threads(proc.pid)
    conns = []
    try:
        for _ in range(400):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")   # and never finish
            conns.append(s)
        t0 = time.monotonic()
        status, body = get(port)
        assert status == 200 and b"aix_exporter_build_info" in body
        assert time.monotonic() - t0 < 2.0
        assert threads(proc.pid) <= before + 8      # no thread per connection
    finally:
        for s in conns:
            s.close()


def test_keep_alive_serves_several_requests_on_one_connection(exporter):
    port, _ = exporter
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for _ in range(3):
        c.request("GET", "/metrics")
        r = c.getresponse()
        assert r.status == 200 and r.version == 11 and b"aix_exporter_build_info" in r.read()
    c.close()


def test_absurd_scrape_timeouts_are_answered_within_the_default():
    port = free_port()
    proc = start([sys.executable, "-m", "aix_exporter.cli", "--source", "simulate:case-study?at=20000",
                  "--web.listen-address", f"127.0.0.1:{port}"])
    try:
        wait_http(f"http://127.0.0.1:{port}/metrics", proc=proc)
        for value in ("inf", "nan", "1e9", "0", "-1"):
            status, body = get(port, headers={"X-Prometheus-Scrape-Timeout-Seconds": value})
            assert status == 200 and body.rstrip().endswith(b"1.0"), value
    finally:
        stop(proc)


def test_ipv6_listen_address():
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    try:
        socket.socket(socket.AF_INET6).bind(("::1", 0))
    except OSError:
        pytest.skip("no ::1 here")
    port = free_port()
    proc = start([sys.executable, "-m", "aix_exporter.cli", "--source", "simulate:case-study",
                  "--web.listen-address", f"[::1]:{port}"])
    try:
        wait_http(f"http://[::1]:{port}/", proc=proc)
        c = http.client.HTTPConnection("::1", port, timeout=10)
        c.request("GET", "/metrics")
        assert c.getresponse().status == 200
    finally:
        stop(proc)


def test_sigterm_with_a_hung_collector_exits_within_5_seconds(tmp_path):
    """A stand-in svmon that never answers (a hung read); SIGTERM still ends the process, the
    hung command with it (it was left running, re-parented to init), and without a traceback."""
    from aix_exporter.tools import standin
    from tests.lib import FIXTURES
    root = tmp_path / "root"
    standin.write(str(FIXTURES / "replay" / "tsm-lpar"), str(root))
    pidfile = tmp_path / "svmon.pid"
    (root / "usr" / "bin" / "svmon").write_text(f"#!/bin/sh\necho $$ > {pidfile}\nexec sleep 300\n")
    cfg = tmp_path / "c.yml"
    cfg.write_text("command_timeout_seconds: 300\n")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "aix_exporter.cli", "--source", "system", "--path.commands",
                             str(root), "--config.file", str(cfg), "--no-collector.cpu",
                             "--web.listen-address", f"127.0.0.1:{port}"],
                            env=__import__("tests.lib.processes", fromlist=["env"]).env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_http(f"http://127.0.0.1:{port}/", proc=proc)
        get(port, headers={"X-Prometheus-Scrape-Timeout-Seconds": "2"})   # svmon now hangs in a worker
        hung = int(pidfile.read_text())
        t0 = time.monotonic()
        proc.terminate()
        proc.wait(timeout=10)
        assert time.monotonic() - t0 < 5
        assert "Traceback" not in proc.stderr.read()
        time.sleep(0.2)
        assert not os.path.exists(f"/proc/{hung}") or "Z" in open(f"/proc/{hung}/stat").read().split()[2], \
            "the hung command outlived the exporter"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
        if pidfile.exists():   # ours, by its pid (never by name: other work shares the machine)
            try:
                os.killpg(int(pidfile.read_text()), 9)
            except (ProcessLookupError, ValueError):
                pass


def test_too_many_scrapes_in_flight_get_503():
    """--web.max-requests 1 and a collector that takes a while: the second concurrent scrape is 503."""
    import threading
    port = free_port()
    proc = start([sys.executable, "-m", "aix_exporter.cli", "--source", "simulate:case-study?at=20000&processes=2000",
                  "--web.listen-address", f"127.0.0.1:{port}", "--web.max-requests", "1",
                  "--collect.min-interval", "0"])
    try:
        wait_http(f"http://127.0.0.1:{port}/", proc=proc)
        statuses = []
        lock = threading.Lock()

        def one():
            s, _ = get(port, timeout=30)
            with lock:
                statuses.append(s)

        ts = [threading.Thread(target=one) for _ in range(6)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert 200 in statuses and 503 in statuses and set(statuses) <= {200, 503}, statuses
    finally:
        stop(proc)


def test_basic_auth_timing_and_long_passwords(tmp_path):
    bcrypt = pytest.importorskip("bcrypt")
    hashed = bcrypt.hashpw(b"s3cret", bcrypt.gensalt(10)).decode()
    web = tmp_path / "web.yml"
    web.write_text(f"basic_auth_users:\n  prometheus: '{hashed}'\n")
    port = free_port()
    proc = start([sys.executable, "-m", "aix_exporter.cli", "--source", "simulate:case-study",
                  "--web.listen-address", f"127.0.0.1:{port}", "--web.config.file", str(web)])
    auth = lambda u, p: {"Authorization": "Basic " + base64.b64encode(f"{u}:{p}".encode()).decode()}
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if get(port, headers=auth("prometheus", "s3cret"))[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert get(port, headers={"Authorization": "basic " + auth("prometheus", "s3cret")["Authorization"][6:]})[0] == 200
        assert get(port, headers=auth("prometheus", "x" * 100))[0] == 401          # over 72 bytes: refused
        def timed(u, p):
            t0 = time.perf_counter()
            assert get(port, headers=auth(u, p))[0] == 401
            return time.perf_counter() - t0
        unknown = min(timed("nobody", f"guess{i}") for i in range(3))
        wrong = min(timed("prometheus", f"guess{i}") for i in range(3))
        assert max(unknown, wrong) < 3 * min(unknown, wrong), (unknown, wrong)
    finally:
        stop(proc)


def test_at_the_descriptor_limit_the_server_backs_off_logs_and_recovers(tmp_path):
    """RLIMIT_NOFILE 64 and 120 idle connections: accept() fails with EMFILE. The exporter must
    not spin a core on it, must say so in its log, and must answer once connections close."""
    import resource

    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "aix_exporter.cli", "--source", "simulate:case-study",
                             "--web.listen-address", f"127.0.0.1:{port}"], preexec_fn=low_limit,
                            env=__import__("tests.lib.processes", fromlist=["env"]).env(),
                            stdout=subprocess.DEVNULL, stderr=open(tmp_path / "err", "w"), start_new_session=True)
    conns = []
    try:
        wait_http(f"http://127.0.0.1:{port}/", proc=proc)
        for _ in range(120):
            conns.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        time.sleep(0.5)
        cpu0 = _cpu_seconds(proc.pid)
        time.sleep(3)
        assert _cpu_seconds(proc.pid) - cpu0 < 1.0        # backing off, not spinning
        for s in conns:
            s.close()
        conns = []
        deadline = time.monotonic() + 15
        while True:
            try:
                if get(port, timeout=5)[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "no answer after the connections closed"
            time.sleep(0.3)
    finally:
        for s in conns:
            s.close()
        stop(proc)
    err = (tmp_path / "err").read_text()
    lines = [l for l in err.splitlines() if "cannot accept connections" in l]
    assert len(lines) == 1 and "Too many open files" in lines[0], err[-2000:]
    assert "Traceback" not in err


def _cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
