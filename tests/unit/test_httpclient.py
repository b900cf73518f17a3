"""The outbound HTTP client of the offline tools (httpclient.py, issue 45): a whole-request
deadline a dripping server cannot stretch, a cap on the answer, userinfo sent as an
Authorization header and never shown; against stand-in servers on loopback."""
import base64
import time
from http.server import BaseHTTPRequestHandler

import pytest

from aix_exporter import httpclient
from tests.lib.checks import serving


class Hostile(BaseHTTPRequestHandler):
    seen: list = []

    def log_message(self, *a):
        pass

    def do_GET(self):
        Hostile.seen.append(dict(self.headers))
        if self.path == "/drip":                  # a byte every 0.2 s, for ever
            self.send_response(200)
            self.send_header("Content-Length", "1000000")
            self.end_headers()
            try:
                for _ in range(200):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.2)
            except OSError:
                pass
        elif self.path in ("/drip-status", "/drip-headers"):   # the head itself a byte every 0.2 s
            head = (b"HTTP/1.1 200 OK\r\n" + b"X-Drip: y\r\n" * 200) if self.path == "/drip-status" else None
            try:
                if head is None:              # a whole status line, then header lines for ever
                    self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                    for i in range(200):
                        self.wfile.write(b"X-Drip-%d: y\r\n" % i)
                        self.wfile.flush()
                        time.sleep(0.2)
                else:
                    for byte in head:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(0.2)
            except OSError:
                pass
            self.close_connection = True
        elif self.path == "/huge":                # gigabytes, as fast as it can
            self.send_response(200)
            self.end_headers()
            block = b"y" * 65536
            try:
                for _ in range(40000):
                    self.wfile.write(block)
            except OSError:
                pass
        elif self.path == "/silent":              # headers, then nothing
            self.send_response(200)
            self.send_header("Content-Length", "10")
            self.end_headers()
            self.wfile.flush()
            time.sleep(5)
        elif self.path == "/missing":
            body = b'{"error": "no such thing"}'
            self.send_response(404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            body = b'{"status": "success"}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)


@pytest.fixture
def hostile():
    Hostile.seen = []
    yield from serving(Hostile)


@pytest.mark.parametrize("path", ["/drip", "/silent", "/drip-status", "/drip-headers"])
def test_a_server_that_drips_or_stalls_is_cut_off_at_the_deadline(hostile, path):
    """Every way a peer can approach the deadline: the body a byte at a time, nothing after the
    headers, the status line a byte at a time, header lines for ever (issue 61, item 1)."""
    t0 = time.monotonic()
    with pytest.raises(httpclient.HTTPClientError) as e:
        httpclient.request(hostile + path, timeout=1.0)
    took = time.monotonic() - t0
    assert str(e.value) == f"{hostile}{path}: no complete answer within 1 s"
    assert took < 1.5, took                        # the deadline of the whole request, not of each read


def test_an_answer_over_the_cap_is_refused_without_reading_it_all(hostile):
    with pytest.raises(httpclient.HTTPClientError) as e:
        httpclient.request(hostile + "/huge", timeout=30.0, max_bytes=1 << 20)
    assert str(e.value) == f"{hostile}/huge: the answer is larger than 1 MiB"


def test_a_refusal_carries_its_status_and_body(hostile):
    with pytest.raises(httpclient.HTTPClientError) as e:
        httpclient.request(hostile + "/missing")
    assert (e.value.status, e.value.body, e.value.reason) == (404, b'{"error": "no such thing"}', "HTTP 404 Not Found")


def test_userinfo_becomes_a_header_and_is_never_shown(hostile):
    port = hostile.rsplit(":", 1)[1]
    url = f"http://admin:s%40cret@127.0.0.1:{port}/api"
    assert httpclient.request(url) == b'{"status": "success"}'
    assert Hostile.seen[-1]["Authorization"] == "Basic " + base64.b64encode(b"admin:s@cret").decode()
    assert httpclient.shown(url) == f"http://127.0.0.1:{port}/api"
    with pytest.raises(httpclient.HTTPClientError) as e:
        httpclient.request(f"http://admin:s%40cret@127.0.0.1:{port}/missing")
    assert "cret" not in str(e.value) and "admin" not in str(e.value)
    assert httpclient.split("http://u@h:1/x") == ("http://h:1/x", {"Authorization": "Basic " + base64.b64encode(b"u:").decode()})
    assert httpclient.split("https://h/x?q=1") == ("https://h/x?q=1", {})


@pytest.mark.parametrize("url, why", [
    ("127.0.0.1:9090", "not an http:// or https:// URL (give the scheme, e.g. http://HOST:9090)"),
    ("ftp://h/x", "not an http:// or https:// URL (give the scheme, e.g. http://HOST:9090)"),
    ("http://h:port/x", "not a URL: Port could not be cast to integer value as 'port'"),
])
def test_a_url_that_is_not_one_is_said_in_one_line(url, why):
    with pytest.raises(httpclient.HTTPClientError) as e:
        httpclient.request(url)
    assert e.value.reason == why


def test_a_refused_connection_is_one_line():
    with pytest.raises(httpclient.HTTPClientError) as e:
        httpclient.request("http://127.0.0.1:9/x", timeout=5)
    assert str(e.value) == "http://127.0.0.1:9/x: Connection refused"
