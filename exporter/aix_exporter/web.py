"""HTTP front: landing page at /, exposition at the telemetry path."""
from __future__ import annotations

import html
import logging
import math
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client.exposition import choose_encoder

from . import __version__

log = logging.getLogger("aix_exporter")

LANDING = """<!DOCTYPE html>
<html><head><title>AIX Exporter</title></head>
<body><h1>AIX Exporter</h1>
{banner}<p>Prometheus exporter for IBM AIX: CPU, memory and large pages, pin-lock contention, tape throughput, TSM activity log.</p>
<p>Version {version}, source <code>{source}</code>.</p>
<ul><li><a href="{path}">Metrics</a></li></ul>
</body></html>
"""


SIMULATED_BANNER = ('<p style="background:#fde68a;border:2px solid #b45309;padding:0.6em;font-weight:bold">'
                    'SIMULATED DATA: source {source} is the simulator, not a real AIX LPAR. '
                    'Use --source system on AIX.</p>\n')


def landing_page(source: str, telemetry_path: str) -> str:
    """The landing page: version, the source (with a banner when it is simulated), the metrics link."""
    src = html.escape(source)
    banner = SIMULATED_BANNER.format(source=src) if source.startswith("simulate:") else ""
    return LANDING.format(version=__version__, source=src, path=html.escape(telemetry_path), banner=banner)


DEFAULT_DEADLINE = 9.0   # Prometheus' default scrape timeout is 10 s
MARGIN = 0.5


MAX_SCRAPE_TIMEOUT = 60.0


def scrape_deadline(headers, max_timeout: float = MAX_SCRAPE_TIMEOUT) -> float:
    """Seconds a scrape may wait for collectors: Prometheus' announced timeout minus a margin.

    The header is a client's word: a value that is not a finite number above 0 is ignored
    (the default applies), and a larger one is clamped to ``max_timeout``
    (``--web.max-scrape-timeout``), so no client can hold a scrape open for long."""
    try:
        announced = float(headers.get("X-Prometheus-Scrape-Timeout-Seconds", ""))
    except ValueError:
        return min(DEFAULT_DEADLINE, max_timeout)
    if not math.isfinite(announced) or announced <= 0:
        return min(DEFAULT_DEADLINE, max_timeout)
    return max(0.1, min(announced, max_timeout) - MARGIN)


def make_server(exporter, address: str, telemetry_path: str = "/metrics", web_config=None,
                max_scrape_timeout: float = MAX_SCRAPE_TIMEOUT):
    from .webconfig import WebConfig
    web_config = web_config or WebConfig()
    host, _, port = address.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"

    class Handler(BaseHTTPRequestHandler):
        server_version = f"aix_exporter/{__version__}"

        def log_message(self, fmt, *args):  # quiet access log; errors go through logging
            log.debug("%s - %s", self.address_string(), fmt % args)

        def _send(self, code, ctype, body: bytes, extra=None):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self):
            self.do_GET()

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if not web_config.authorized(self.headers.get("Authorization")):
                self._send(401, "text/plain; charset=utf-8", b"Unauthorized\n",
                           {"WWW-Authenticate": 'Basic realm="aix_exporter"'})
                return
            if path == telemetry_path:
                encoder, ctype = choose_encoder(self.headers.get("Accept"))
                gz = "gzip" in (self.headers.get("Accept-Encoding") or "")
                body = exporter.render(encoder, ctype, gz, scrape_deadline(self.headers, max_scrape_timeout))
                self._send(200, ctype, body, {"Content-Encoding": "gzip"} if gz else {})
            elif path == "/":
                page = landing_page(exporter.source.name, telemetry_path)
                self._send(200, "text/html; charset=utf-8", page.encode())
            else:
                self._send(404, "text/plain; charset=utf-8", b"not found\n")

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128

        def get_request(self):
            conn, addr = super().get_request()
            if web_config.ssl_context is not None:
                # the TLS handshake happens in the request's own thread, not in accept()
                conn = web_config.ssl_context.wrap_socket(conn, server_side=True, do_handshake_on_connect=False)
            return conn, addr

        def handle_error(self, request, client_address):
            log.debug("connection from %s failed", client_address, exc_info=True)

    Handler.timeout = 30   # a client that never finishes its request cannot hold a thread forever
    return Server((host, int(port)), Handler)
