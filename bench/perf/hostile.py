"""Hostile clients against a real exporter: the figures the adversarial tests bound.

    python3 -m bench.perf hostile            # both rounds
    python3 -m bench.perf hostile --round 2  # the second round only, beside node_exporter
    python3 -m bench.perf hostile --round 3  # the third round only (issue 45), beside node_exporter

Round 1 prints one row per attack: 6.3 MB of headers (status, RSS growth), 400 slow-header
connections (latency of a normal scrape, thread count), a client announcing a 1e9 s scrape
timeout (latency of the next normal scrape), basic auth (unknown user vs wrong password).
Round 2 (issue 28) runs each attack against aix_exporter and, side by side, node_exporter
(Debian package prometheus-node-exporter) with the same TLS or basic-auth configuration:
1,030 idle keep-alive connections, a flood of wrong passwords, 3,000 stalled TLS
handshakes, 1,000 request heads of 960 KB, a reader taking one byte a second, and scrape
latency on a reused connection against a fresh one.
Round 3 (issue 45), the same way: 5 clients guessing passwords before the first scrape after a
(re)start (10 fresh servers), 1,030 connections sending POST bodies a byte every 5 s, 1,000
clients reconnecting with stalled TLS handshakes.
"""
import argparse
import base64
import http.client
import os
import socket
import sys
import time

from bench.perf.common import free_port, get, stalled_handshakes, start


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as fh:
        return int(next(l for l in fh if l.startswith("VmRSS:")).split()[1]) / 1024


def metrics(port, headers=None):
    """(status, seconds) of one GET /metrics."""
    r = get(f"http://127.0.0.1:{port}/metrics", headers)
    return r.status, r.seconds


def round1():
    import bcrypt
    web = "/tmp/aix-exporter-hostile-web.yml"
    with open(web, "w") as fh:
        fh.write(f"basic_auth_users:\n  prometheus: '{bcrypt.hashpw(b's3cret', bcrypt.gensalt(10)).decode()}'\n")
    port = free_port()
    proc = start([sys.executable, "-m", "aix_exporter.cli", "--source", "simulate:case-study?at=20000",
                  "--web.listen-address", f"127.0.0.1:{port}", "--web.config.file", web])
    ok = {"Authorization": "Basic " + base64.b64encode(b"prometheus:s3cret").decode()}
    try:
        deadline = time.time() + 30
        while True:
            try:
                if metrics(port, ok)[0] == 200:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                raise SystemExit("exporter did not start")
            time.sleep(0.2)
        print("| attack | figure |\n|---|---|")
        before = rss_mb(proc.pid)
        statuses = []
        for _ in range(100):
            s = socket.create_connection(("127.0.0.1", port))
            try:
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
                          + b"".join(b"X-%d: %s\r\n" % (i, b"a" * 8000) for i in range(800)))
            except OSError:
                pass
            statuses.append(s.recv(64)[:12].decode())
            s.close()
        print(f"| 100 requests with 6.3 MB of headers | {sorted(set(statuses))}; RSS {before:.1f} -> "
              f"{rss_mb(proc.pid):.1f} MB |")
        conns = []
        for _ in range(400):
            c = socket.create_connection(("127.0.0.1", port))
            c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            conns.append(c)
        lat = sorted(metrics(port, ok)[1] for _ in range(20))
        print(f"| 400 slow-header connections open | normal scrape p50 {lat[10] * 1e3:.1f} ms, max "
              f"{lat[-1] * 1e3:.1f} ms; threads {len(os.listdir(f'/proc/{proc.pid}/task'))} |")
        for c in conns:
            c.close()
        status, t = metrics(port, {**ok, "X-Prometheus-Scrape-Timeout-Seconds": "1e9"})
        status2, t2 = metrics(port, {**ok, "X-Prometheus-Scrape-Timeout-Seconds": "3"})
        print(f"| announced timeout 1e9, then 3 | {status} in {t * 1e3:.1f} ms, then {status2} in {t2 * 1e3:.1f} ms |")
        def auth(user, i):   # a new guess each time: no cached answer
            h = {"Authorization": "Basic " + base64.b64encode(f"{user}:guess-{user}-{i}".encode()).decode()}
            return metrics(port, h)[1]
        unknown = sorted(auth("nobody", i) for i in range(9))[4]
        wrong = sorted(auth("prometheus", i) for i in range(9))[4]
        print(f"| basic auth: unknown user vs wrong password (median of 9 new guesses) | {unknown * 1e3:.1f} ms "
              f"vs {wrong * 1e3:.1f} ms |")
    finally:
        proc.terminate()
        proc.wait(10)


# -- round 2: beside node_exporter --------------------------------------------------------
NODE = "/usr/bin/prometheus-node-exporter"


def _rss_peak(pid, until, every=0.1):
    peak = 0.0
    while time.time() < until:
        peak = max(peak, rss_mb(pid))
        time.sleep(every)
    return peak


def _server(kind, port, web_yml=None):
    if kind == "aix_exporter":
        argv = [sys.executable, "-m", "aix_exporter.cli", "--source", "simulate:case-study?at=20000",
                "--web.listen-address", f"127.0.0.1:{port}", "--log.level", "error"]
    else:
        argv = [NODE, "--web.listen-address", f"127.0.0.1:{port}", "--collector.disable-defaults",
                "--collector.cpu", "--collector.meminfo", "--log.level", "error"]
    if web_yml:
        argv += ["--web.config.file", web_yml]
    proc = start(argv)
    deadline = time.time() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc
        except OSError:
            if time.time() > deadline:
                raise SystemExit(f"{kind} did not start") from None
            time.sleep(0.1)


def _probe(port, headers=None, tls=None, timeout=10):
    t0 = time.perf_counter()
    try:
        if tls is not None:
            c = http.client.HTTPSConnection("127.0.0.1", port, context=tls, timeout=timeout)
        else:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        c.request("GET", "/metrics", headers=headers or {})
        r = c.getresponse()
        r.read()
        c.close()
        return r.status, time.perf_counter() - t0
    except (OSError, http.client.HTTPException):
        return None, time.perf_counter() - t0


def keep_alive_exhaustion(kind, port, proc):
    socks = []
    for _ in range(1030):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
            s.recv(4096)
            socks.append(s)
        except OSError:
            pass
    answered = sum(_probe(port)[0] == 200 for _ in range(47))
    for s in socks:
        s.close()
    return f"{answered}/47 probes answered"


def password_flood(kind, port, proc, ok):
    import threading
    stop = threading.Event()

    def guess(k):
        i = 0
        while not stop.is_set():
            i += 1
            h = {"Authorization": "Basic " + base64.b64encode(f"prometheus:wrong-{k}-{i}".encode()).decode()}
            _probe(port, h)

    threads = [threading.Thread(target=guess, args=(k,)) for k in range(200)]
    for t in threads:
        t.start()
    time.sleep(2)
    lat = [_probe(port, ok, timeout=15) for _ in range(21)]
    stop.set()
    for t in threads:
        t.join()
    good = sorted(t for st, t in lat if st == 200)
    p50 = f"{good[len(good) // 2] * 1e3:.0f} ms" if good else "-"
    return f"{len(good)}/21 legitimate scrapes answered, p50 {p50}"


def tls_stall(kind, port, proc, tls):
    socks = stalled_handshakes(port, 3000)
    peak = _rss_peak(proc.pid, time.time() + 3)
    fds = len(os.listdir(f"/proc/{proc.pid}/fd"))
    answered = sum(_probe(port, tls=tls, timeout=15)[0] == 200 for _ in range(5))
    for s in socks:
        s.close()
    time.sleep(2)
    return f"peak RSS {peak:.0f} MB, {fds} descriptors, {answered}/5 probes answered; {rss_mb(proc.pid):.0f} MB after"


def big_heads(kind, port, proc):
    head = b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: %s\r\n" % (i, b"a" * 9590) for i in range(100))
    socks, peak = [], 0.0
    for i in range(1000):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.settimeout(5)
            s.sendall(head)
            socks.append(s)
        except OSError:
            pass
        if i % 50 == 0:
            peak = max(peak, rss_mb(proc.pid))
    peak = max(peak, _rss_peak(proc.pid, time.time() + 2))
    for s in socks:
        s.close()
    time.sleep(2)
    return f"peak RSS {peak:.0f} MB, {rss_mb(proc.pid):.0f} MB after; scrape after: {_probe(port)[0]}"


def _sockets(pid):
    return sum(1 for fd in os.listdir(f"/proc/{pid}/fd")
               if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"))


def slow_reader(kind, port, proc):
    """A client that reads one byte a second: how long the server keeps the connection (its
    socket descriptors, counted)."""
    _probe(port)
    time.sleep(1)
    base = _sockets(proc.pid)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    t0 = time.time()
    s.settimeout(0.5)
    held, seen = None, False
    while time.time() - t0 < 120:
        try:
            s.recv(1)
        except OSError:
            pass
        time.sleep(0.5)
        n = _sockets(proc.pid)
        seen = seen or n > base
        if seen and n <= base:
            held = time.time() - t0
            break
    s.close()
    return f"the server let go after {held:.0f} s" if held is not None else "still held after 120 s"


def reused_vs_fresh(kind, port, proc):
    fresh = sorted(_probe(port)[1] for _ in range(21))[10]
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    lat = []
    for _ in range(21):
        t0 = time.perf_counter()
        c.request("GET", "/metrics")
        c.getresponse().read()
        lat.append(time.perf_counter() - t0)
    c.close()
    return f"p50 {sorted(lat)[10] * 1e3:.1f} ms reused, {fresh * 1e3:.1f} ms fresh"


def _setup(prefix):
    """A directory with a self-signed certificate, tls.yml and auth.yml (user prometheus, password
    s3cret), the matching Authorization header and a client TLS context that trusts anything;
    the open-file limit raised for the connection floods."""
    import resource
    import ssl
    import subprocess
    import tempfile

    import bcrypt
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 16384), hard))
    d = tempfile.mkdtemp(prefix=prefix)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{d}/k.pem", "-out",
                    f"{d}/c.pem", "-days", "2", "-subj", "/CN=localhost"], check=True, capture_output=True)
    with open(f"{d}/tls.yml", "w") as fh:
        fh.write(f"tls_server_config:\n  cert_file: {d}/c.pem\n  key_file: {d}/k.pem\n")
    with open(f"{d}/auth.yml", "w") as fh:
        fh.write(f"basic_auth_users:\n  prometheus: '{bcrypt.hashpw(b's3cret', bcrypt.gensalt(10)).decode()}'\n")
    ok = {"Authorization": "Basic " + base64.b64encode(b"prometheus:s3cret").decode()}
    tls = ssl.create_default_context()
    tls.check_hostname, tls.verify_mode = False, ssl.CERT_NONE
    return d, ok, tls


def round2():
    d, ok, tls = _setup("aix-exporter-hostile-")
    attacks = [
        ("1,030 idle keep-alive connections, then 47 probes", None, keep_alive_exhaustion, ()),
        ("200 clients guessing passwords, 21 legitimate scrapes", f"{d}/auth.yml", password_flood, (ok,)),
        ("3,000 stalled TLS handshakes", f"{d}/tls.yml", tls_stall, (tls,)),
        ("1,000 request heads of 960 KB", None, big_heads, ()),
        ("a reader taking one byte a second", None, slow_reader, ()),
        ("scrape latency, reused vs fresh connection", None, reused_vs_fresh, ()),
    ]
    print("| attack | aix_exporter | node_exporter 1.5 |\n|---|---|---|")
    for title, web_yml, fn, extra in attacks:
        # password_flood: the right password checked once before the flood, as Prometheus' is
        _table_row(title, web_yml, fn, extra, first=ok if fn is password_flood else None)


def _table_row(title, web_yml, fn, extra, first=None):
    """One attack against a fresh aix_exporter and a fresh node_exporter, printed as a table row;
    ``first``: headers of one probe sent before the attack."""
    row = []
    for kind in ("aix_exporter", "node_exporter"):
        if kind == "node_exporter" and not os.path.exists(NODE):
            row.append("(not installed)")
            continue
        port = free_port()
        proc = _server(kind, port, web_yml)
        try:
            if first is not None:
                _probe(port, first)
            row.append(fn(kind, port, proc, *extra))
        finally:
            proc.terminate()
            proc.wait(10)
    print(f"| {title} | {row[0]} | {row[1]} |", flush=True)


# -- round 3 (issue 45): beside node_exporter -------------------------------------------------
def cold_auth(kind, port, proc, ok, guessers=5):
    """Basic auth, the server just started: ``guessers`` clients send wrong passwords, then the
    right one is tried once, as Prometheus' first scrape would (each probe on a fresh server:
    see round3, which restarts it)."""
    import threading
    stop = threading.Event()

    def guess(k):
        i = 0
        while not stop.is_set():
            i += 1
            _probe(port, {"Authorization": "Basic " + base64.b64encode(f"prometheus:wrong-{k}-{i}".encode()).decode()})
    threads = [threading.Thread(target=guess, args=(k,)) for k in range(guessers)]
    for t in threads:
        t.start()
    time.sleep(1)
    status, _ = _probe(port, ok, timeout=10)
    stop.set()
    for t in threads:
        t.join()
    return status == 200


def slow_bodies(kind, port, proc):
    """1,030 connections each sending a POST with Content-Length 1,000,000 and one body byte every
    5 s, then 40 probes."""
    import threading
    socks = []
    for _ in range(1030):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nx")
            socks.append(s)
        except OSError:
            pass
    stop = threading.Event()

    def drip():
        while not stop.wait(5):
            for s in socks:
                try:
                    s.send(b"x")
                except OSError:
                    pass
    t = threading.Thread(target=drip)
    t.start()
    answered = sum(_probe(port, timeout=10)[0] == 200 for _ in range(40))
    stop.set()
    t.join()
    for s in socks:
        s.close()
    return f"{answered}/40 probes answered"


def tls_churn(kind, port, proc, tls, log=None):
    """1,000 clients reconnecting with stalled TLS handshakes (10 threads of 100, each batch held
    0.3 s), then 20 probes; the error lines the server logged meanwhile."""
    import threading
    stop = threading.Event()

    def churn():
        while not stop.is_set():
            socks = stalled_handshakes(port, 100)
            time.sleep(0.3)
            for s in socks:
                s.close()
    threads = [threading.Thread(target=churn) for _ in range(10)]
    for t in threads:
        t.start()
    time.sleep(3)
    answered = sum(_probe(port, tls=tls, timeout=10)[0] == 200 for _ in range(20))
    stop.set()
    for t in threads:
        t.join()
    return f"{answered}/20 probes answered"


def round3():
    d, ok, tls = _setup("aix-exporter-hostile3-")
    print("| attack (round 3) | aix_exporter | node_exporter 1.5 |\n|---|---|---|")
    row = []
    for kind in ("aix_exporter", "node_exporter"):   # attack 1: a fresh server for each of 10 first scrapes
        if kind == "node_exporter" and not os.path.exists(NODE):
            row.append("(not installed)")
            continue
        answered = 0
        for _ in range(10):
            port = free_port()
            proc = _server(kind, port, f"{d}/auth.yml")
            try:
                answered += cold_auth(kind, port, proc, ok)
            finally:
                proc.terminate()
                proc.wait(10)
        row.append(f"{answered}/10 first scrapes answered")
    print(f"| 5 clients guessing passwords before the first scrape after a (re)start | {row[0]} | {row[1]} |",
          flush=True)
    for title, web_yml, fn, extra in (("1,030 connections sending POST bodies a byte every 5 s", None, slow_bodies, ()),
                                      ("1,000 clients reconnecting with stalled TLS handshakes", f"{d}/tls.yml",
                                       tls_churn, (tls,))):
        _table_row(title, web_yml, fn, extra)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--round", type=int, choices=(1, 2, 3),
                    help="one round only (default: the first, then the second)")
    ap.add_argument("--attack", metavar="NAME", help="one attack of round 2 on both servers (slow_reader ...)")
    args = ap.parse_args()
    if args.attack:
        for kind in ("aix_exporter", "node_exporter"):
            port = free_port()
            proc = _server(kind, port)
            try:
                print(kind, globals()[args.attack](kind, port, proc), flush=True)
            finally:
                proc.terminate()
                proc.wait(10)
    elif args.round:
        (round1, round2, round3)[args.round - 1]()
    else:
        round1()
        print()
        round2()
