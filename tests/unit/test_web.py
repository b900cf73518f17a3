"""The HTTP front (web.py) at unit level, in seconds: the landing page written out whole, every
limit and default pinned, and a Server on a loopback port of this process answering each kind
of request with its exact status, headers and body. The fake exporter and web config stand in
for the real ones (tests/e2e/test_http.py and test_tls_auth.py run those)."""
import asyncio
import base64
import inspect
import select
import socket
import sys
import threading
import time

import pytest

from aix_exporter import __version__, web

SERVER_HEADER = f"aix_exporter/{__version__}"


def test_every_limit_and_default_of_the_front_is_the_documented_one():
    assert (web.DEFAULT_DEADLINE, web.MARGIN, web.MAX_SCRAPE_TIMEOUT) == (9.0, 0.5, 60.0)
    assert web.MAX_HEADER_BYTES == 1048576                 # a request head: 1 MiB
    assert web.MAX_TOTAL_HEAD_BYTES == 33554432            # all heads being received: 32 MiB
    assert (web.AUTH_QUEUE, web.AUTH_SHED_DELAY, web.AUTH_MAX_WAIT) == (64, 1.0, 10.0)
    assert (web.MAX_HANDSHAKES, web.LISTEN_BACKLOG) == (512, 512)
    assert web.ERROR_WRITE_TIMEOUT == 5.0
    assert web.TLS_READ_BUFFER == 32768
    assert web.SERVER == SERVER_HEADER.encode()
    defaults = {k: p.default for k, p in inspect.signature(web.Server).parameters.items()
                if p.default is not inspect.Parameter.empty}
    assert defaults == {"max_requests": 40, "max_connections": 1024, "header_timeout": 10.0, "idle_timeout": 60.0,
                        "drain_seconds": 5.0, "write_timeout": 30.0}
    defaults = {k: p.default for k, p in inspect.signature(web.make_server).parameters.items()
                if p.default is not inspect.Parameter.empty}
    assert defaults == {"telemetry_path": "/metrics", "web_config": None, "max_scrape_timeout": 60.0,
                        "max_requests": 40, "max_connections": 1024, "header_timeout": 10.0, "fleet": None}


def test_the_landing_page_written_out_whole():
    from aix_exporter import landing
    assert web.landing_page is landing.landing_page          # its own module and template (issue 46)
    assert landing.LANDING.template.startswith("<!DOCTYPE html>") and "${collectors}" in landing.LANDING.template
    collectors = [{"name": "vmstat", "schedule": "every 5 s", "ok": True, "ran": True, "age": 4.6, "error": ""},
                  {"name": "svmon<G>", "schedule": "on scrape", "ok": False, "ran": True, "age": None,
                   "error": "svmon -G: exit status 1 & <not privileged>"},
                  {"name": "splat", "schedule": "background", "ok": False, "ran": False, "age": None, "error": ""}]
    assert web.landing_page("simulate:case-study", "/metrics", collectors) == (
        '<!DOCTYPE html>\n<html><head><title>AIX Exporter</title></head>\n<body><h1>AIX Exporter</h1>\n'
        '<p style="background:#fde68a;border:2px solid #b45309;padding:0.6em;font-weight:bold">'
        'SIMULATED DATA: source simulate:case-study is the simulator, not a real AIX LPAR. '
        'Use --source system on AIX.</p>\n'
        '<p>Prometheus exporter for IBM AIX: CPU, memory and large pages, pin-lock contention, tape throughput, '
        'TSM activity log.</p>\n'
        f'<p>Version {__version__}, source <code>simulate:case-study</code>.</p>\n'
        '<ul><li><a href="/metrics">Metrics</a></li></ul>\n'
        '<h2>Collectors</h2>\n<table border="1" cellpadding="4"><tr><th>enabled collector</th>'
        '<th>runs</th><th>state</th><th>last success</th><th>last error</th></tr>\n'
        '<tr><td>vmstat</td><td>every 5 s</td><td>ok</td><td>5 s ago</td><td><code></code></td></tr>\n'
        '<tr><td>svmon&lt;G&gt;</td><td>on scrape</td><td>failing</td><td>never</td>'
        '<td><code>svmon -G: exit status 1 &amp; &lt;not privileged&gt;</code></td></tr>\n'
        '<tr><td>splat</td><td>background</td><td>not run yet</td><td>never</td><td><code></code></td></tr>\n'
        '</table>\n</body></html>\n')
    # a real source: no banner; no collector: no table; the path and source escaped
    assert web.landing_page("replay:<d>", "/m&x") == (
        '<!DOCTYPE html>\n<html><head><title>AIX Exporter</title></head>\n<body><h1>AIX Exporter</h1>\n'
        '<p>Prometheus exporter for IBM AIX: CPU, memory and large pages, pin-lock contention, tape throughput, '
        'TSM activity log.</p>\n'
        f'<p>Version {__version__}, source <code>replay:&lt;d&gt;</code>.</p>\n'
        '<ul><li><a href="/m&amp;x">Metrics</a></li></ul>\n</body></html>\n')


def test_listen_addresses_and_their_refusals():
    assert web.listen_addresses("127.0.0.1:10990") == [(socket.AF_INET, ("127.0.0.1", 10990))]
    assert [(f, a[:2]) for f, a in web.listen_addresses("[::1]:0")] == [(socket.AF_INET6, ("::1", 0))]
    assert web.listen_addresses("127.0.0.1:65535")[0][1] == ("127.0.0.1", 65535)
    for bad in ("10990", "127.0.0.1:65536", "127.0.0.1:x", "127.0.0.1:-1"):
        with pytest.raises(ValueError) as e:
            web.listen_addresses(bad)
        assert str(e.value) == f"listen address {bad!r}: expected HOST:PORT or :PORT"


def test_headers_are_case_insensitive_and_the_last_value_wins():
    h = web._Headers([(b"Accept", b"a"), (b"ACCEPT", b"b"), (b"X-Y", b"\xe9")])
    assert h.get("accept") == "b" and h.get("x-y") == "\xe9" and h.get("none", "d") == "d" and h.get("none") is None


# -- a Server in this process ------------------------------------------------------------------

class FakeExporter:
    def __init__(self):
        self.calls, self.threads = [], []
        self.gate = threading.Event()
        self.gate.set()

    class source:
        name = "system"

    def status(self):
        return [{"name": "vmstat", "schedule": "on scrape", "ok": True, "ran": True, "age": 1.0, "error": ""}]

    body = b"aix_up 1\n"

    def render(self, encoder, ctype, gz, deadline):
        self.calls.append((ctype, gz, deadline))
        self.threads.append(threading.current_thread().name)
        self.gate.wait(10)
        return self.body


class FakeWebConfig:
    ssl_context = None

    def __init__(self, users=None):
        self.users = users or {}
        self.gate = threading.Event()
        self.gate.set()
        self.checked = 0
        self.active = self.most = 0
        self.threads = []
        self.count_lock = threading.Lock()

    def known(self, header):
        return None

    def authorized(self, header):
        with self.count_lock:
            self.active += 1
            self.most = max(self.most, self.active)
        self.threads.append(threading.current_thread().name)
        self.gate.wait(10)
        with self.count_lock:
            self.active -= 1
        self.checked += 1
        return header == "Basic YTpi"     # a:b

    def reload_if_changed(self):
        pass


def tls_config(server_cert) -> FakeWebConfig:
    """A FakeWebConfig that serves TLS with the test certificate (tests/conftest.py's server_cert)."""
    import ssl
    config = FakeWebConfig()
    config.ssl_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    config.ssl_context.load_cert_chain(*server_cert)
    return config


def stalled_handshakes(r, n: int) -> list:
    """``n`` TCP connections to a TLS server, each handshake waiting for a hello that never
    comes, once the server counts them all; the caller closes them."""
    socks = [r.connect() for _ in range(n)]
    wait_while(lambda: len(r.server._handshaking) < n)
    return socks


class Running:
    def __init__(self, **kw):
        self.exporter = FakeExporter()
        self.config = kw.pop("web_config", None) or FakeWebConfig()
        self.server = web.Server(self.exporter, web._bind("127.0.0.1:0"), "/metrics", self.config, 60.0, **kw)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        assert self.server._started.wait(5)
        self.port = self.server.server_address[1]

    def connect(self):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        return s

    def stop(self):
        self.exporter.gate.set()
        self.config.gate.set()
        self.server.shutdown()
        self.thread.join(10)
        self.server.server_close()


@pytest.fixture
def running(request):
    made = []

    def start(**kw):
        r = Running(**kw)
        made.append(r)
        return r
    yield start
    for r in made:
        r.stop()


def read_response(s, head_only=False) -> tuple:
    """(status, {header: value}, body) of one response, or None when the server closed first;
    ``head_only`` for the answer to a HEAD (a Content-Length, no body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = 0 if head_only else int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body


def request(s, method="GET", path="/metrics", headers=(), body=b""):
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers)
    s.sendall(f"{method} {path} HTTP/1.1\r\nHost: x\r\n{extra}\r\n".encode() + body)
    return read_response(s, head_only=method == "HEAD")


def wait_while(condition, seconds=5.0):
    """Poll ``condition`` until it is false or ``seconds`` pass (the assertion after it says
    which): for the server's counters, which change on its own thread."""
    deadline = time.monotonic() + seconds
    while condition() and time.monotonic() < deadline:
        time.sleep(0.02)


def closed(s, timeout=5.0) -> bool:
    s.settimeout(timeout)
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True


def test_each_kind_of_request_gets_its_status_headers_and_body(running):
    r = running()
    with r.connect() as s:                        # one keep-alive connection for all of them
        status, h, body = request(s, headers=[("X-Prometheus-Scrape-Timeout-Seconds", "10")])
        assert (status, body) == (200, b"aix_up 1\n")
        assert h["server"] == SERVER_HEADER and h["content-length"] == "9"
        assert h["content-type"] == "text/plain; version=0.0.4; charset=utf-8" and "content-encoding" not in h
        assert r.exporter.calls[-1] == ("text/plain; version=0.0.4; charset=utf-8", False, 9.5)
        # collection blocks: it runs in the scrape pool, never on the event loop's thread
        assert r.exporter.threads[-1].startswith("scrape_")
        status, h, body = request(s, path="/metrics?x=1", headers=[("Accept-Encoding", "gzip")])
        assert status == 200 and h["content-encoding"] == "gzip" and r.exporter.calls[-1][1:] == (True, 9.0)
        status, h, body = request(s, path="/")
        assert (status, h["content-type"]) == (200, "text/html; charset=utf-8")
        assert body.decode() == web.landing_page("system", "/metrics", r.exporter.status())
        assert request(s, path="/other")[::2] == (404, b"not found\n")
        status, h, body = request(s, method="POST", headers=[("Content-Length", "3")], body=b"abc")
        assert (status, h["allow"], body) == (405, "GET, HEAD", b"method not allowed\n")
        status, h, body = request(s, method="HEAD")
        assert (status, h["content-length"], body) == (200, "9", b"")
        # (no body came: the next response starts right after the head)
        assert request(s, path="/other")[0] == 404


class FakeFleet:
    exporters = {"lpar01": None}

    def __init__(self):
        self.rendered = []

    def render(self, name, encoder, ctype, gz, deadline):
        self.rendered.append(name)
        return b"aix_exporter_probe_success 1\n"


def test_probe_is_behind_basic_auth_and_a_flood_of_parameters_gets_400_unlogged(running, caplog):
    """Issue 57, item 3: /probe asks for the web config's basic auth as /metrics does (an
    unauthenticated flood never reaches an LPAR), and a query of nine or more parameters is
    answered 400 with no log line (it raised ValueError, logged once a request)."""
    import logging
    r = running(web_config=FakeWebConfig(users={"a": "hash"}))
    r.server.fleet = FakeFleet()
    with r.connect() as s:
        assert request(s, path="/probe?target=lpar01")[0] == 401
    assert r.server.fleet.rendered == []
    auth = [("Authorization", "Basic YTpi")]
    with r.connect() as s, caplog.at_level(logging.DEBUG, logger="aix_exporter"):
        assert request(s, path="/probe?target=lpar01", headers=auth)[::2] == (200, b"aix_exporter_probe_success 1\n")
        many = "/probe?target=lpar01" + "".join(f"&x{i}=1" for i in range(8))
        for _ in range(50):
            assert request(s, path=many, headers=auth)[::2] == (400, b"too many query parameters: /probe?target=NAME\n")
        assert request(s, path="/probe?target=lpar01&target=lpar02", headers=auth)[0] == 400
    assert r.server.fleet.rendered == ["lpar01"]
    assert [rec.getMessage() for rec in caplog.records if rec.name == "aix_exporter"] == []


def test_a_malformed_request_line_gets_400_and_a_close(running):
    r = running()
    with r.connect() as s:
        s.sendall(b"GARBAGE\r\n\r\n")
        status, h, body = read_response(s)
        assert (status, body, h["connection"], h["content-length"]) == (400, b"bad request\n", "close", "12")
        assert closed(s)


def test_a_request_head_over_1_mib_gets_431_and_one_under_it_is_served(running):
    r = running()
    with r.connect() as s:
        status, h, body = request(s, headers=[("X-Pad", "a" * 1_000_000)])
        assert status == 200
    with r.connect() as s:
        status, h, body = request(s, headers=[("X-Pad", "a" * 1_100_000)])
        assert (status, body, h["connection"]) == (431, b"request header fields too large\n", "close")
        assert (h["content-type"], h["content-length"], h["server"]) == (
            "text/plain; charset=utf-8", "32", web.SERVER.decode())
        assert closed(s)


def test_a_head_is_bounded_by_its_own_length_however_it_arrives(running, monkeypatch):
    """A head of exactly MAX_HEADER_BYTES (stood in as 1,000) is served, one byte more gets
    431 even when it arrives whole in one read (h11 itself bounds only an incomplete head);
    on a kept-alive connection, with the next request already sent behind the first."""
    monkeypatch.setattr(web, "MAX_HEADER_BYTES", 1000)
    r = running()

    def head(size, path="/metrics"):
        start = f"GET {path} HTTP/1.1\r\nHost: x\r\nX-Pad: ".encode()
        return start + b"a" * (size - len(start) - 4) + b"\r\n\r\n"
    assert len(head(1000)) == 1000
    with r.connect() as s:
        s.sendall(head(1000))
        assert read_response(s)[0] == 200
        s.sendall(head(1001))
        status, h, body = read_response(s)
        assert (status, body, h["connection"]) == (431, b"request header fields too large\n", "close")
        assert closed(s)
    with r.connect() as s, s.makefile("rb") as f:

        def statuses(n):                 # n responses in a row, read through one buffered file
            out = []
            for _ in range(n):
                status = int(f.readline().split()[1])
                length = 0
                for line in iter(f.readline, b"\r\n"):
                    name, _, value = line.decode("latin-1").partition(":")
                    length = int(value) if name.lower() == "content-length" else length
                f.read(length)
                out.append(status)
            return out
        s.sendall(head(1000) + head(1000, "/"))                    # pipelined: the second already buffered
        assert statuses(2) == [200, 200]
        s.sendall(head(600) + head(1001))
        assert statuses(2) == [200, 431]


def test_a_body_beyond_1_mib_is_not_answered(running):
    r = running()
    with r.connect() as s:
        s.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1100000\r\n\r\n" + b"a" * 1_100_000)
        assert read_response(s) is None
    with r.connect() as s:
        assert request(s, method="POST", headers=[("Content-Length", "1000000")], body=b"a" * 1_000_000)[0] == 405
    with r.connect() as s:                       # exactly 1 MiB is drained and answered; a byte more is not
        status, h, body = request(s, method="POST", headers=[("Content-Length", str(1 << 20))], body=b"a" * (1 << 20))
        assert (status, h["content-type"], body) == (405, "text/plain; charset=utf-8", b"method not allowed\n")
    with r.connect() as s:
        s.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n" + b"a" * ((1 << 20) + 1))
        assert read_response(s) is None


def test_a_body_that_stops_arriving_or_ends_early_is_not_answered(running):
    """A request body is drained before the answer; a body that stalls for header_timeout,
    or whose client ends its side before the last byte, gets no response: the connection
    just closes (the server reads nothing it has not been sent, so the close is clean)."""
    r = running(header_timeout=0.3)
    with r.connect() as s:
        s.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
        assert read_response(s) is None
    with r.connect() as s:
        s.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
        s.shutdown(socket.SHUT_WR)
        assert read_response(s) is None
    with r.connect() as s:                       # a chunked body that breaks h11's framing
        s.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
        assert read_response(s) is None
    with r.connect() as s:                       # the whole body: answered, on the same connection
        assert request(s, method="POST", headers=[("Content-Length", "10")], body=b"abcdefghij")[0] == 405
        assert request(s)[0] == 200

def test_the_head_bytes_in_progress_go_back_to_zero(running):
    """Head bytes are counted while received and given back once the head is in, answered or
    not: after two partial heads the count is their sum, and once each connection is done 0."""
    r = running(header_timeout=2.0)
    a, b = r.connect(), r.connect()
    try:
        a.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")           # 23 + 9 bytes, not finished
        b.sendall(b"GET /other HTTP/1.1\r\n")                          # 21 bytes
        wait_while(lambda: r.server._head_bytes < 53, 5)
        assert r.server._head_bytes == 53
        a.sendall(b"\r\n")
        assert read_response(a)[0] == 200
        wait_while(lambda: r.server._head_bytes != 21, 5)
        assert r.server._head_bytes == 21                               # b's alone
        assert read_response(b)[0] == 408                                # b times out: its bytes given back
        wait_while(lambda: r.server._head_bytes != 0, 5)
        assert r.server._head_bytes == 0
        with r.connect() as c:
            assert request(c)[0] == 200 and request(c, path="/")[0] == 200
        wait_while(lambda: r.server._head_bytes != 0, 5)
        assert r.server._head_bytes == 0
    finally:
        a.close()
        b.close()


def test_heads_being_received_are_bounded_at_32_mib_together(running):
    """Incomplete heads of 999,996 bytes: 32 of them (31,999,872 bytes) are all kept waiting;
    two more (33,999,864 > 32 MiB = 33,554,432) get a 503."""
    r = running(header_timeout=120.0)
    pad = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * (1_000_000 - 40)
    socks = []
    try:
        for _ in range(32):
            s = r.connect()
            s.sendall(pad)
            socks.append(s)
        wait_while(lambda: r.server._head_bytes < 32 * len(pad), 10)
        assert r.server._head_bytes == 32 * len(pad)
        for s in socks:
            s.setblocking(False)
            with pytest.raises(BlockingIOError):     # none answered yet
                s.recv(1)
            s.setblocking(True)
        refused = []
        for _ in range(2):
            s = r.connect()
            s.sendall(pad)
            socks.append(s)
        pending, deadline = list(socks), time.monotonic() + 10
        while pending and time.monotonic() < deadline:
            readable = select.select(pending, [], [], 0.5)[0]
            if not readable and refused:
                break                               # the one answer came, and no other follows
            for s in readable:
                pending.remove(s)
                got = read_response(s)
                if got:
                    refused.append(got)
        # one of the two last is refused (both, when their reads cross the limit together)
        assert {(st, b) for st, _, b in refused} == {(503, b"too many request heads in progress\n")}
        assert 1 <= len(refused) <= 2
    finally:
        for s in socks:
            s.close()


def test_a_head_not_received_in_time_gets_408_and_an_idle_connection_just_closes(running):
    r = running(header_timeout=0.3, idle_timeout=0.3)
    with r.connect() as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\n")
        status, h, body = read_response(s)
        assert (status, body, h["connection"]) == (408, b"request head not received in time\n", "close")
    with r.connect() as s:
        assert request(s)[0] == 200
        assert closed(s)                       # idle after a response: closed, no 408


def test_scrapes_beyond_max_requests_get_503_at_once(running):
    r = running(max_requests=2)
    r.exporter.gate.clear()
    busy = [r.connect(), r.connect()]
    try:
        for s in busy:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        wait_while(lambda: r.server._in_flight < 2)
        with r.connect() as s:
            status, h, body = request(s)
            assert (status, h["retry-after"], body) == (503, "1", b"too many scrapes in flight (--web.max-requests=2)\n")
            assert request(s, path="/")[0] == 200     # the landing page is not a scrape
        r.exporter.gate.set()
        assert [read_response(s)[0] for s in busy] == [200, 200]
    finally:
        for s in busy:
            s.close()


def test_when_full_the_connection_idle_the_longest_makes_room(running):
    r = running(max_connections=2)
    a, b = r.connect(), r.connect()
    try:
        assert request(a)[0] == 200 and request(b)[0] == 200      # both idle now, a the longest
        with r.connect() as c:
            assert request(c)[0] == 200
            assert closed(a) and request(b)[0] == 200
    finally:
        a.close()
        b.close()


def basic_auth(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def test_password_checks_run_newest_first_and_the_oldest_gives_way_when_full(running, monkeypatch, caplog):
    """One bcrypt check at a time, in its own thread; the newest waiting goes next (a guesser has
    one check waiting at most: a scrape arriving after the guesses is checked right after the
    check running); with AUTH_QUEUE waiting, a new one makes the oldest give way: 503 after
    AUTH_SHED_DELAY, with one log line."""
    monkeypatch.setattr(web, "AUTH_QUEUE", 3)
    config = FakeWebConfig(users={"a": "hash"})
    order = []
    real = config.authorized

    def authorized(header):
        order.append(header)
        return real(header)
    config.authorized = authorized
    r = running(web_config=config)
    slept = []
    real_sleep = asyncio.sleep

    async def sleep(delay, *a):
        slept.append(delay)
        return await real_sleep(0, *a)
    monkeypatch.setattr(web.asyncio, "sleep", sleep)
    caplog.set_level("WARNING", logger="aix_exporter")
    config.gate.clear()
    socks = {}
    try:
        for k, who in enumerate(["running", "guess1", "guess2", "guess3", "scrape"]):
            s = r.connect()
            s.sendall(f"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: {basic_auth(who, 'p')}\r\n\r\n".encode())
            socks[who] = s
            wait_while(lambda k=k: r.server._auth_waiting < min(k + 1, 4))
        # full (3 waiting) when the scrape came: the oldest waiting, guess1, gave way
        status, h, body = read_response(socks["guess1"])
        assert (status, h["retry-after"], body) == (503, "1", b"too many password checks waiting\n")
        assert web.AUTH_SHED_DELAY in slept
        assert [x.getMessage() for x in caplog.records if x.name == "aix_exporter"] == [
            "msg=password checks shed: 3 waiting, the oldest answered 503 (basic auth guessed faster than bcrypt "
            "checks)"]
        config.gate.set()
        for who in ("running", "scrape", "guess3", "guess2"):
            assert read_response(socks[who])[0] == 401
        assert order == [basic_auth(w, "p") for w in ("running", "scrape", "guess3", "guess2")]   # newest first
        assert config.most == 1 and all(t.startswith("bcrypt_") for t in config.threads)
        wait_while(lambda: r.server._auth_waiting != 0)
        assert r.server._auth_waiting == 0
    finally:
        for s in socks.values():
            s.close()
    with r.connect() as s:                     # the right password: 200
        assert request(s, headers=[("Authorization", "Basic YTpi")])[0] == 200
    with r.connect() as s:                     # a wrong password: 401, and the connection closes
        status, h, body = request(s, headers=[("Authorization", "Basic YTpj")])
        assert (status, body, h["www-authenticate"], h["connection"]) == (
            401, b"Unauthorized\n", 'Basic realm="aix_exporter"', "close")
        assert closed(s)


def test_a_check_that_waited_too_long_is_answered_503(running, monkeypatch):
    monkeypatch.setattr(web, "AUTH_MAX_WAIT", 0.3)
    config = FakeWebConfig(users={"a": "hash"})
    r = running(web_config=config)
    config.gate.clear()
    a, b = r.connect(), r.connect()
    try:
        a.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YTpi\r\n\r\n")   # running
        wait_while(lambda: r.server._auth_running < 1)
        b.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YTpj\r\n\r\n")   # waits
        wait_while(lambda: r.server._auth_waiting < 2)
        time.sleep(0.5)                                       # b has waited longer than AUTH_MAX_WAIT
        config.gate.set()
        assert read_response(a)[0] == 200 and read_response(b)[0] == 503 and config.checked == 1
    finally:
        a.close()
        b.close()


def test_requests_waiting_with_the_same_credentials_share_one_check(running):
    config = FakeWebConfig(users={"a": "hash"})
    r = running(web_config=config)
    config.gate.clear()
    socks = [r.connect() for _ in range(3)]
    try:
        socks[0].sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic eDp5\r\n\r\n")   # x:y runs
        wait_while(lambda: r.server._auth_running < 1)
        for s in socks[1:]:                                   # the same right password, twice
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YTpi\r\n\r\n")
        wait_while(lambda: r.server._auth_waiting < 3)
        config.gate.set()
        assert [read_response(s)[0] for s in socks] == [401, 200, 200] and config.checked == 2
    finally:
        for s in socks:
            s.close()


def test_when_full_with_none_idle_the_new_connection_is_closed_and_logged_once(running, caplog):
    r = running(max_connections=1)
    r.exporter.gate.clear()
    caplog.set_level("WARNING", logger="aix_exporter")
    with r.connect() as a:
        a.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")     # in a scrape: not idle
        wait_while(lambda: r.server._in_flight < 1)
        for _ in range(2):
            with r.connect() as b:
                assert closed(b)
        assert [(x.name, x.levelname, x.getMessage()) for x in caplog.records if x.name.startswith("aix")] == [
            ("aix_exporter", "WARNING", "msg=connection refused: 1 connections open, none idle (--web.max-connections)")]
        r.exporter.gate.set()
        assert read_response(a)[0] == 200


def test_a_bracket_on_one_side_only_is_not_an_ipv6_address():
    with pytest.raises(OSError):
        web.listen_addresses("[::1:10990")


def test_a_client_that_does_not_take_its_response_is_dropped_after_the_write_timeout(running):
    r = running(write_timeout=0.5)
    r.exporter.body = b"x" * (32 << 20)          # more than the socket buffers hold
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", r.port))
    try:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")   # and never reads
        wait_while(lambda: not r.server._connections, 10)
        assert len(r.server._connections) == 1
        wait_while(lambda: r.server._connections, 10)
        assert not r.server._connections
    finally:
        s.close()


def test_asyncio_errors_are_one_log_line_and_the_descriptor_limit_one_a_minute(caplog, monkeypatch):
    server = web.Server(FakeExporter(), [], "/metrics", FakeWebConfig(), 60.0)
    caplog.set_level("ERROR", logger="aix_exporter")
    now = [30.0]              # a monotonic clock that started 30 s ago: the first line is logged all the same
    monkeypatch.setattr(web.time, "monotonic", lambda: now[0])
    emfile = {"message": "socket.accept() out of system resource", "exception": OSError(24, "Too many open files")}
    server._loop_exception(None, emfile)
    now[0] += 59
    server._loop_exception(None, emfile)          # within the minute: not logged again
    now[0] += 2
    server._loop_exception(None, emfile)
    server._loop_exception(None, {"message": "Task exception was never retrieved", "exception": ValueError("x")})
    server._loop_exception(None, {"message": "Unclosed transport"})
    line = ("msg=cannot accept connections: [Errno 24] Too many open files; open connections=0 (raise the file "
            "descriptor limit, ulimit -n, or lower --web.max-connections); retrying every second")
    assert [r.getMessage() for r in caplog.records if r.name == "aix_exporter"] == [
        line, line, "msg=Task exception was never retrieved: ValueError: x", "msg=Unclosed transport"]


def test_a_flood_of_one_kind_of_asyncio_error_is_one_line_a_minute(caplog, monkeypatch):
    """Issue 57, item 6: a TLS handshake flood wrote 3,068 tracebacks in 40 s. Each kind (its
    message and exception type) is logged at most once a minute, the next line with the count."""
    import ssl
    server = web.Server(FakeExporter(), [], "/metrics", FakeWebConfig(), 60.0)
    caplog.set_level("ERROR", logger="aix_exporter")
    now = [30.0]
    monkeypatch.setattr(web.time, "monotonic", lambda: now[0])
    tls = {"message": "Fatal error on SSL transport", "exception": ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER]")}
    for _ in range(3000):
        server._loop_exception(None, tls)
        now[0] += 0.013
    server._loop_exception(None, {"message": "Fatal error on SSL transport", "exception": OSError(9, "x")})  # another kind
    now[0] = 30.0 + 60.5
    server._loop_exception(None, tls)
    lines = [r.getMessage() for r in caplog.records if r.name == "aix_exporter"]
    assert len(lines) == 3, lines
    assert lines[0].startswith("msg=Fatal error on SSL transport: SSLError:") and "more of this kind" not in lines[0]
    assert lines[1].startswith("msg=Fatal error on SSL transport: OSError:")
    assert lines[2].endswith("(2999 more of this kind in the last minute)"), lines[2]


def test_shutdown_of_a_server_that_never_ran_returns():
    server = web.Server(FakeExporter(), [], "/metrics", FakeWebConfig(), 60.0)
    server._started.set()          # (else shutdown waits up to 5 s for the loop to start)
    assert server.shutdown() is None
    server.server_close()


def test_admission_refuses_while_stopping_and_logs_a_full_server_once_a_minute(caplog, monkeypatch):
    server = web.Server(FakeExporter(), [], "/metrics", FakeWebConfig(), 60.0, max_connections=0)
    server._stopping = asyncio.Event()
    caplog.set_level("WARNING", logger="aix_exporter")
    now = [30.0]
    monkeypatch.setattr(web.time, "monotonic", lambda: now[0])
    logged = []
    for t in (30.0, 89.0, 90.0, 90.5):          # full, none idle: refused; logged at 30 and 90.5 only
        now[0] = t
        assert server._admit(object()) is False
        logged.append(len([r for r in caplog.records if r.name == "aix_exporter"]))
    assert logged == [1, 1, 1, 2]
    assert [r.getMessage() for r in caplog.records if r.name == "aix_exporter"] == [
        "msg=connection refused: 0 connections open, none idle (--web.max-connections)"] * 2
    server.max_connections = 5
    assert server._admit("a") is True and server._connections == {"a"}
    server._stopping.set()                      # stopping: nothing more is admitted, nor counted
    assert server._admit("b") is False and server._connections == {"a"}


def test_the_descriptor_limit_is_logged_again_exactly_a_minute_later(caplog, monkeypatch):
    server = web.Server(FakeExporter(), [], "/metrics", FakeWebConfig(), 60.0)
    caplog.set_level("ERROR", logger="aix_exporter")
    now = [30.0]
    monkeypatch.setattr(web.time, "monotonic", lambda: now[0])
    emfile = {"message": "socket.accept() out of system resource", "exception": OSError(24, "x")}
    for t in (30.0, 89.999, 90.0):
        now[0] = t
        server._loop_exception(None, emfile)
    server._loop_exception(None, {"exception": KeyError("k")})     # no message of its own
    assert [r.getMessage()[:40] for r in caplog.records if r.name == "aix_exporter"] == ["msg=cannot accept connections: [Errno 24"] * 2 + [
        "msg=event loop error: KeyError: 'k'"]


def test_shutdown_lets_a_scrape_in_flight_finish_then_closes(running):
    r = running(drain_seconds=30.0)
    r.exporter.gate.clear()
    with r.connect() as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        wait_while(lambda: r.server._in_flight < 1)
        stopper = threading.Thread(target=r.server.shutdown)
        stopper.start()
        time.sleep(0.3)
        assert r.thread.is_alive()              # draining: the scrape is still answered
        r.exporter.gate.set()
        assert read_response(s)[0] == 200
        r.thread.join(10)
        stopper.join(10)
        assert not r.thread.is_alive()          # returned once nothing was in flight, not after 30 s


def test_shutdown_after_the_drain_period_says_what_was_cut_off(running, caplog):
    r = running(drain_seconds=1.0)
    r.exporter.gate.clear()
    caplog.set_level("WARNING", logger="aix_exporter")
    with r.connect() as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        wait_while(lambda: r.server._in_flight < 1)
        r.server.shutdown()
        r.thread.join(10)
        assert not r.thread.is_alive() and closed(s)
    assert [x.getMessage() for x in caplog.records if x.name == "aix_exporter"] == [
        "msg=shutdown with 1 request(s) still being answered after 1s"]


def test_shutdown_counts_every_request_being_answered(running, caplog):
    r = running(drain_seconds=0.5)
    r.exporter.gate.clear()
    caplog.set_level("WARNING", logger="aix_exporter")
    with r.connect() as a, r.connect() as b:
        for s in (a, b):
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        wait_while(lambda: r.server._answering < 2)
        assert r.server._answering == 2
        r.server.shutdown()
        r.thread.join(10)
        assert not r.thread.is_alive() and closed(a) and closed(b)
    assert [x.getMessage() for x in caplog.records if x.name == "aix_exporter"] == [
        "msg=shutdown with 2 request(s) still being answered after 0s"]

def test_closing_neither_waits_for_a_running_password_check_nor_runs_queued_ones(running):
    config = FakeWebConfig(users={"a": "hash"})
    config.known = lambda header: True if header == "Basic c2NyYXBlcjpvaw==" else None   # scraper:ok
    r = running(web_config=config, drain_seconds=0.2)
    config.gate.clear()
    r.exporter.gate.clear()                     # and a scrape that hangs in a collector
    socks = []
    try:
        s = r.connect()
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic c2NyYXBlcjpvaw==\r\n\r\n")
        socks.append(s)
        wait_while(lambda: r.server._in_flight < 1)
        for _ in range(3):
            s = r.connect()
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YTpi\r\n\r\n")
            socks.append(s)
        wait_while(lambda: r.server._auth_waiting < 3)
        r.server.shutdown()                     # (the three requests are drained for 0.2 s, then cut)
        r.thread.join(10)
        closer = threading.Thread(target=r.server.server_close)
        closer.start()
        closer.join(5)
        assert not closer.is_alive()            # did not wait for the check or the scrape in progress
        config.gate.set()
        time.sleep(0.5)
        assert config.checked == 1              # the two queued were cancelled
    finally:
        for s in socks:
            s.close()


def test_a_credential_checked_before_is_answered_without_the_password_queue(running):
    config = FakeWebConfig(users={"a": "hash"})
    config.known = lambda header: {"Basic YTpi": True, "Basic YTp4": False}.get(header)   # a:b good, a:x bad
    r = running(web_config=config)
    with r.connect() as s:
        assert request(s, headers=[("Authorization", "Basic YTpi")])[0] == 200
    with r.connect() as s:
        assert request(s, headers=[("Authorization", "Basic YTp4")])[0] == 401
    assert (config.checked, config.threads) == (0, [])          # neither went to the bcrypt thread
    with r.connect() as s:                                      # one not known: checked there
        assert request(s, headers=[("Authorization", "Basic YTpj")])[0] == 401
    assert (config.checked, config.threads) == (1, ["bcrypt_0"])


def test_tls_shrinks_the_read_buffers_and_rechecks_the_certificate_every_10_s(running, monkeypatch, caplog):
    import ssl
    # where asyncio keeps its TLS read size: SSLProtocol (Python 3.11 on), _SSLPipe (3.9, 3.10)
    proto = asyncio.sslproto.SSLProtocol if hasattr(asyncio.sslproto.SSLProtocol, "max_size") \
        else asyncio.sslproto._SSLPipe
    monkeypatch.setattr(proto, "max_size", 256 * 1024)
    real_sleep = asyncio.sleep
    slept = []

    async def sleep(delay, *a):
        slept.append(delay)
        return await real_sleep(0.01 if delay == 10 else delay, *a)
    monkeypatch.setattr(web.asyncio, "sleep", sleep)
    config = FakeWebConfig()
    config.ssl_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    calls = []

    def reload_if_changed():
        calls.append(1)
        if len(calls) == 2:
            raise ValueError("boom")
        return False
    config.reload_if_changed = reload_if_changed
    caplog.set_level("ERROR", logger="aix_exporter")
    running(web_config=config)
    wait_while(lambda: len(calls) < 3)
    assert proto.max_size == web.TLS_READ_BUFFER
    assert len(calls) >= 3 and 10 in slept
    assert [x.getMessage() for x in caplog.records if x.name == "aix_exporter"][:1] == ["msg=cannot reload TLS certificate: boom"]


@pytest.fixture(scope="module")
def server_cert(tmp_path_factory):
    import shutil
    import subprocess
    if not shutil.which("openssl"):
        pytest.skip("needs openssl")
    d = tmp_path_factory.mktemp("cert")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", "k.pem", "-out", "c.pem", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], cwd=d, check=True, capture_output=True, timeout=60)
    return d / "c.pem", d / "k.pem"


# The loop's start_tls is the handshake of Pythons whose StreamWriter has no start_tls (3.9,
# 3.10; tests/e2e/test_pythons.py runs them). A Python whose StreamWriter closes its transport
# when it is dropped (__del__, 3.11.5 and later) has start_tls, so never takes that path: there
# the path cannot be emulated (the dropped plain writer closes the connection under the TLS one).
LOOP_PATH_IMPOSSIBLE = ("this Python's StreamWriter closes its transport when dropped and has start_tls: the loop's "
                        "start_tls is never its path" if "__del__" in vars(asyncio.StreamWriter) else "")


@pytest.mark.parametrize("start_tls", ["StreamWriter.start_tls", "the loop's start_tls (Python before 3.11)"])
def test_a_scrape_over_tls_by_either_handshake(running, monkeypatch, server_cert, start_tls):
    import ssl
    if start_tls.startswith("the loop"):
        if LOOP_PATH_IMPOSSIBLE:
            pytest.skip(LOOP_PATH_IMPOSSIBLE)
        monkeypatch.delattr(asyncio.StreamWriter, "start_tls", raising=False)
    r = running(web_config=tls_config(server_cert))
    client = ssl.create_default_context(cafile=str(server_cert[0]))
    with client.wrap_socket(r.connect(), server_hostname="127.0.0.1") as s:
        assert request(s)[::2] == (200, b"aix_up 1\n")
        assert request(s, path="/")[0] == 200              # the connection carries on after the handshake
    wait_while(lambda: r.server._handshaking)
    assert r.server._handshaking == {}


def test_each_scrape_gives_its_place_back(running):
    r = running(max_requests=1)
    with r.connect() as s:
        assert [request(s)[0] for _ in range(3)] == [200, 200, 200]
    assert r.server._in_flight == 0


def test_a_connection_lost_before_its_handler_ran_is_no_longer_counted():
    """The accepting protocol counts a connection when it is made and forgets it when it is
    lost, whether or not its handler ever ran (a client gone at once)."""
    server = web.Server(FakeExporter(), [], "/metrics", FakeWebConfig(), 60.0)
    server._stopping = asyncio.Event()

    class Transport:
        def abort(self):
            pass

        def is_closing(self):   # (a dropped StreamWriter asks, 3.11.5 on)
            return True

        def get_extra_info(self, name, default=None):
            return default

    async def go():
        proto = web._Accepted(server, asyncio.StreamReader())
        t = Transport()
        before = asyncio.all_tasks()
        proto.connection_made(t)                   # admitted: counted, its handler scheduled
        (handler,) = asyncio.all_tasks() - before  # (3.11 keeps it as proto._task; 3.9 keeps it nowhere)
        assert server._connections == {t}
        proto.connection_lost(None)                # lost before its handler ran (it has not: no await yet)
        assert server._connections == set()
        handler.cancel()                           # (never runs: this fake transport has no socket)
        return t
    asyncio.run(go())
    assert server._connections == set()


def test_tls_handshakes_in_progress_are_bounded_and_the_oldest_makes_room_however_young(running, monkeypatch,
                                                                                      server_cert, caplog):
    """MAX_HANDSHAKES (stood in as 2) in progress at most: a newcomer ends the oldest stalled
    one, however young (clients reconnecting with stalled handshakes kept scrapes out: 9 of 20
    probes), and a scrape's own handshake completes; the ended ones log nothing."""
    import ssl
    monkeypatch.setattr(web, "MAX_HANDSHAKES", 2)
    caplog.set_level("WARNING")
    r = running(web_config=tls_config(server_cert))
    socks = stalled_handshakes(r, 2)
    try:
        first = list(r.server._handshaking)
        socks += stalled_handshakes(r, 1)
        assert closed(socks[0])                                   # the oldest, not the newcomer
        wait_while(lambda: first[0] in r.server._handshaking)
        assert first[0] not in r.server._handshaking and first[1] in r.server._handshaking
        client = ssl.create_default_context(cafile=str(server_cert[0]))
        with client.wrap_socket(r.connect(), server_hostname="127.0.0.1") as s:
            assert request(s)[0] == 200                           # a scrape's handshake gets through
        assert len(r.server._handshaking) <= 2
    finally:
        for s in socks:
            s.close()
    wait_while(lambda: r.server._handshaking)
    assert [x.getMessage() for x in caplog.records if x.levelno >= 30] == []


def test_the_heads_budget_is_refused_only_past_its_last_byte(running, monkeypatch):
    monkeypatch.setattr(web, "MAX_TOTAL_HEAD_BYTES", 100)
    r = running(header_timeout=60.0)
    head = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Pad: "
    with r.connect() as s:
        s.sendall(head + b"a" * (100 - len(head)))          # exactly the budget, the head not complete yet
        wait_while(lambda: r.server._head_bytes < 100)
        assert r.server._head_bytes == 100
        s.setblocking(False)
        time.sleep(0.3)
        with pytest.raises(BlockingIOError):                 # not answered: still within the budget
            s.recv(1)
        s.setblocking(True)
        s.sendall(b"a")                                      # one byte past it
        assert read_response(s)[::2] == (503, b"too many request heads in progress\n")



def test_a_tls_client_that_closes_its_side_is_closed_without_asyncio_warnings(running, monkeypatch, server_cert,
                                                                               caplog):
    import ssl
    if not LOOP_PATH_IMPOSSIBLE:
        monkeypatch.delattr(asyncio.StreamWriter, "start_tls", raising=False)   # the loop's start_tls (before 3.11)
    r = running(web_config=tls_config(server_cert))
    caplog.set_level("WARNING", logger="asyncio")
    client = ssl.create_default_context(cafile=str(server_cert[0]))
    with client.wrap_socket(r.connect(), server_hostname="127.0.0.1") as s:
        assert request(s)[0] == 200
        try:
            plain = s.unwrap()                    # TLS close_notify, answered by the server's
        except ssl.SSLEOFError:
            # asyncio's SSL protocol before Python 3.11 answers a close_notify by closing the TCP
            # stream without one of its own; a client on OpenSSL 3 reads that as an unexpected EOF.
            # The server has closed its end all the same (the wait below).
            assert sys.version_info < (3, 11)
        else:
            plain.shutdown(socket.SHUT_WR)        # then the client's end of the stream
            assert closed(plain)
    wait_while(lambda: r.server._connections)
    assert [x.getMessage() for x in caplog.records if x.name == "asyncio"] == []


# ---------------------------------------------------------------- hostile round 3 (issue 45): slow heads and bodies

def test_when_full_a_connection_sending_its_first_head_slowly_makes_room(running):
    """A client that sends its first request head a byte at a time counts as idle: when the
    server is full the one idle the longest makes room, so a scrape gets in."""
    r = running(max_connections=2, header_timeout=30.0)
    a, b = r.connect(), r.connect()
    try:
        a.sendall(b"GET /metrics HTTP/1.1\r\nHo")                    # a head that never ends
        b.sendall(b"GET /metrics HTTP/1.1\r\nHo")
        wait_while(lambda: len(r.server._idle) < 2)
        with r.connect() as c:
            assert request(c)[0] == 200
        assert closed(a)                                           # the longest waiting made room
        b.sendall(b"st: x\r\n\r\n")
        assert read_response(b)[0] == 200
    finally:
        a.close()
        b.close()


def test_when_full_a_connection_sending_its_body_slowly_makes_room(running):
    r = running(max_connections=1, header_timeout=30.0)
    with r.connect() as a:
        a.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nx")
        wait_while(lambda: len(r.server._idle) < 1)
        with r.connect() as b:
            assert request(b)[0] == 200
        assert closed(a)


def test_a_body_must_arrive_whole_within_the_head_timeout_not_per_piece(running):
    """One body byte every 0.1 s would reset a per-read timeout for ever: the whole body has
    header_timeout (0.5 s here) and the connection closes without an answer after it."""
    r = running(header_timeout=0.5)
    with r.connect() as s:
        s.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
        s.settimeout(5.0)
        sent = 0
        try:
            for _ in range(200):                                   # 20 s of drip if nobody stops it
                s.sendall(b"x")
                sent += 1
                time.sleep(0.1)
        except OSError:                                            # the server closed the connection
            pass
        assert sent < 200 and read_response(s) is None


def test_the_newest_check_goes_next_unless_the_oldest_has_waited_its_turn():
    """Newest first keeps a scrape from waiting behind guesses queued before it; but a guessing
    client's next guess always comes after the scrape, so on a loaded machine newest-first alone
    passed the scrape over for 30 s (a fresh-clone run under load). The oldest goes first once it
    has waited AUTH_OLDEST_AFTER seconds."""
    now = 1000.0
    young = [(None, "scrape", now - 0.5), (None, "guess1", now - 0.2), (None, "guess2", now - 0.1)]
    assert web.next_check(young, now) == 2
    aged = [(None, "scrape", now - web.AUTH_OLDEST_AFTER), (None, "guess1", now - 0.2), (None, "guess2", now - 0.1)]
    assert web.next_check(aged, now) == 0
    assert web.next_check([(None, "alone", now)], now) == 0
    assert web.AUTH_OLDEST_AFTER < web.AUTH_MAX_WAIT   # (its turn comes before its client gives up)
