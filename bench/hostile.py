"""Hostile clients against a real exporter: the figures the adversarial tests bound.

    python3 bench/hostile.py

Prints one row per attack: 6.3 MB of headers (status, RSS growth), 400 slow-header
connections (latency of a normal scrape, thread count), a client announcing a 1e9 s scrape
timeout (latency of the next normal scrape), basic auth (unknown user vs wrong password).
"""
import base64
import http.client
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import free_port, start  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as fh:
        return int(next(l for l in fh if l.startswith("VmRSS:")).split()[1]) / 1024


def get(port, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    t0 = time.perf_counter()
    c.request("GET", "/metrics", headers=headers or {})
    r = c.getresponse()
    r.read()
    c.close()
    return r.status, time.perf_counter() - t0


def main():
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
                if get(port, ok)[0] == 200:
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
        lat = sorted(get(port, ok)[1] for _ in range(20))
        print(f"| 400 slow-header connections open | normal scrape p50 {lat[10] * 1e3:.1f} ms, max "
              f"{lat[-1] * 1e3:.1f} ms; threads {len(os.listdir(f'/proc/{proc.pid}/task'))} |")
        for c in conns:
            c.close()
        status, t = get(port, {**ok, "X-Prometheus-Scrape-Timeout-Seconds": "1e9"})
        status2, t2 = get(port, {**ok, "X-Prometheus-Scrape-Timeout-Seconds": "3"})
        print(f"| announced timeout 1e9, then 3 | {status} in {t * 1e3:.1f} ms, then {status2} in {t2 * 1e3:.1f} ms |")
        def auth(user, i):   # a new guess each time: no cached answer
            h = {"Authorization": "Basic " + base64.b64encode(f"{user}:guess-{user}-{i}".encode()).decode()}
            return get(port, h)[1]
        unknown = sorted(auth("nobody", i) for i in range(9))[4]
        wrong = sorted(auth("prometheus", i) for i in range(9))[4]
        print(f"| basic auth: unknown user vs wrong password (median of 9 new guesses) | {unknown * 1e3:.1f} ms "
              f"vs {wrong * 1e3:.1f} ms |")
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
