"""HTTP front: landing page at /, exposition at the telemetry path.

One asyncio event loop serves every connection; h11 (a small, well-kept pure-Python HTTP/1.1
library) parses the protocol. Configured like node_exporter and exporter-toolkit:

* at most ``max_requests`` scrapes in flight (``--web.max-requests``, default 40); more are
  answered 503 at once;
* at most ``max_connections`` open connections (``--web.max-connections``), TLS handshakes
  in progress included (at most ``MAX_HANDSHAKES`` of those: a new one ends the oldest,
  however young, which a client completing its handshake in milliseconds never is: clients
  that reconnect with stalled handshakes cannot keep a scrape's handshake out). A handshake
  that the client ends before it completes is no error: the connection just closes. When full,
  the connection idle the longest (waiting for its next request) is closed to make room; with
  none idle, the new connection is closed on accept, with one log line a minute;
* the request head must arrive within ``header_timeout`` seconds and be at most 1 MB, else
  431, before any authentication; the heads being received hold at most
  ``MAX_TOTAL_HEAD_BYTES`` together (more: 503 and close); idle keep-alive connections close
  after ``idle_timeout`` seconds. A connection waiting for a request head (its first one too)
  or for the rest of a request body counts as idle: when full, the one idle the longest makes
  room, so clients that send their heads or bodies a byte at a time cannot hold every place;
* a request body (drained before the answer: a GET has none, other methods get 405) must arrive
  whole within ``header_timeout`` seconds and be at most 1 MB, else the connection just closes;
* a response goes out in one write and must be taken by the client within
  ``write_timeout`` seconds, else the connection is dropped;
* a failed basic-auth check (401) closes the connection; credentials checked before are
  answered from memory on the event loop; bcrypt checks run one at a time, the newest waiting
  first, unless the oldest has waited ``AUTH_OLDEST_AFTER`` seconds (then it goes first): a
  guessing client has at most one check waiting (its next guess comes only after its 401), so
  the first scrape after a restart, with the right password, waits for the check running and its
  own, or at most ``AUTH_OLDEST_AFTER`` and one check when guesses keep coming after it. At
  most ``AUTH_QUEUE`` checks wait: a new one makes the oldest give way, which is answered 503
  after ``AUTH_SHED_DELAY`` seconds (no
  work meanwhile: guessing clients are slowed down, not served faster), as is a check that
  waited ``AUTH_MAX_WAIT`` seconds (its client has given up); one log line a minute says so;
* HTTP/1.1 keep-alive, IPv4 and IPv6 listen addresses (``:10990`` listens on both);
* at the file-descriptor limit asyncio stops accepting for a second and logs it, instead of
  spinning;
* ``shutdown()`` (SIGTERM) stops accepting, lets scrapes in flight finish for up to
  ``drain_seconds``, then closes every connection.

Collection is blocking work: it runs in a thread pool of ``max_requests`` threads, never on
the event loop; bcrypt checks run one at a time in a thread of their own.
"""
from __future__ import annotations

import asyncio
import logging
import math
import socket
import ssl
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional, cast

import h11

from . import __version__, exposition

log = logging.getLogger("aix_exporter")

# the landing page is its own module and template (landing.py, templates/landing.html), as
# exporter-toolkit keeps its landing page apart from the server; re-exported here for callers
from .landing import landing_page  # noqa: E402,F401


DEFAULT_DEADLINE = 9.0   # Prometheus' default scrape timeout is 10 s
MARGIN = 0.5
MAX_SCRAPE_TIMEOUT = 60.0
MAX_HEADER_BYTES = 1 << 20
MAX_TOTAL_HEAD_BYTES = 32 << 20   # request heads being received, all connections together
AUTH_QUEUE = 64                    # bcrypt checks waiting at most; a new one makes the oldest give way ...
AUTH_SHED_DELAY = 1.0              # ... answered 503 after this many seconds
AUTH_MAX_WAIT = 10.0               # a check waiting this long is answered 503 (Prometheus' default timeout)
AUTH_OLDEST_AFTER = 3.0            # a check waiting this long goes before newer ones (none waits for ever)
MAX_HANDSHAKES = 512               # TLS handshakes in progress at most; a new one ends the oldest
LISTEN_BACKLOG = 512               # connections the kernel queues before accept (capped by somaxconn)
ERROR_WRITE_TIMEOUT = 5.0          # seconds an error answer (408, 431, 503...) waits for the client to take it
SERVER = f"aix_exporter/{__version__}".encode()
HEAD_TOO_LARGE = b"request header fields too large\n"   # the 431 body, from h11's bound or the head's length


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


def listen_addresses(address: str) -> list:
    """(family, sockaddr) pairs for a node_exporter-style address: ':10990' (every IPv4 and
    IPv6 address), '127.0.0.1:10990', '[::1]:10990', 'localhost:10990'."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"listen address {address!r}: expected HOST:PORT or :PORT")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    infos = socket.getaddrinfo(host or None, int(port), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    seen, out = set(), []
    for family, _, _, _, sockaddr in infos:
        if (family, sockaddr[:2]) not in seen:
            seen.add((family, sockaddr[:2]))
            out.append((family, sockaddr))
    return out


def _bind(address: str) -> list:
    socks = []
    try:
        for family, sockaddr in listen_addresses(address):
            s = socket.socket(family, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                s.bind(sockaddr)
            except OSError:
                s.close()
                raise
            s.listen(LISTEN_BACKLOG)
            s.setblocking(False)
            socks.append(s)
    except OSError:
        for s in socks:
            s.close()
        raise
    return socks


class _Headers:
    """Case-insensitive view of h11's header list (last value wins), like http.server's."""

    def __init__(self, pairs):
        self._d = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in pairs}

    def get(self, name: str, default=None):
        return self._d.get(name.lower(), default)


class Server:
    def __init__(self, exporter, socks: list, telemetry_path: str, web_config, max_scrape_timeout: float,
                 max_requests: int = 40, max_connections: int = 1024, header_timeout: float = 10.0,
                 idle_timeout: float = 60.0, drain_seconds: float = 5.0, write_timeout: float = 30.0):
        self.exporter, self.socks, self.telemetry_path = exporter, socks, telemetry_path
        self.fleet = None                     # targets.Fleet: /probe?target=NAME (targets: in the config)
        self.web_config, self.max_scrape_timeout = web_config, max_scrape_timeout
        self.max_requests, self.max_connections = max_requests, max_connections
        self.header_timeout, self.idle_timeout, self.drain_seconds = header_timeout, idle_timeout, drain_seconds
        self.write_timeout = write_timeout
        self.server_address = socks[0].getsockname() if socks else None
        self._pool = ThreadPoolExecutor(max_workers=max_requests, thread_name_prefix="scrape")
        self._auth_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bcrypt")
        self._in_flight = 0                   # scrapes collecting (bounded by max_requests)
        self._answering = 0                   # requests between their head and their response's last byte
        self._auth_stack: list = []          # (future, Authorization, since) of the checks waiting, oldest first
        self._auth_running = 0
        self._auth_wakeup: Optional[asyncio.Event] = None
        self._last_shed_log = float("-inf")
        self._head_bytes = 0                  # bytes of request heads being received, all connections
        self._connections: set = set()        # transports, from accept (before any TLS handshake)
        self._idle: dict = {}                 # transport -> None, in the order they went idle
        self._handshaking: dict = {}          # transport -> start, TLS handshakes in progress, oldest first
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._stopping: Optional[asyncio.Event] = None
        self._started = threading.Event()
        self._last_refused_log = float("-inf")   # never yet: the first one is logged, whatever the clock reads
        self._loop_errors: dict = {}          # kind of loop error -> [last logged, not logged since]

    # -- lifecycle -----------------------------------------------------------
    def serve_forever(self):
        asyncio.run(self._main())

    def shutdown(self):
        """Stop serving (thread-safe): no new connections, scrapes in flight finish for up to
        drain_seconds, then everything closes and serve_forever returns."""
        self._started.wait(5)
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                if self._stopping is not None:
                    loop.call_soon_threadsafe(self._stopping.set)
            except RuntimeError:   # the loop has already ended
                pass

    def server_close(self):
        for s in self.socks:
            s.close()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._auth_pool.shutdown(wait=False, cancel_futures=True)

    def _loop_exception(self, loop, context):
        """asyncio's own errors as one log line, at most one a minute of each kind (its message and
        exception type; a flood of failed TLS handshakes is one kind), the next saying how many
        were not logged; at the descriptor limit (accept() failing with EMFILE, which asyncio
        retries after a second) one line a minute."""
        message = context.get("message", "event loop error")
        exc = context.get("exception")
        if isinstance(exc, asyncio.CancelledError):
            # CPython 3.11.5+ (not Debian 12's 3.11.2): StreamReaderProtocol's done-callback asks a
            # connection task cancelled at shutdown for its exception; nothing went wrong
            return
        if "out of system resource" in message:
            if self._not_logged_since(("out of system resource",)) is not None:
                log.error("msg=cannot accept connections: %s; open connections=%d (raise the file descriptor "
                          "limit, ulimit -n, or lower --web.max-connections); retrying every second",
                          exc or message, len(self._connections))
            return
        skipped = self._not_logged_since((message, type(exc).__name__ if exc else ""))
        if skipped is not None:
            more = f" ({skipped} more of this kind in the last minute)" if skipped else ""
            log.error("msg=%s%s%s", message, f": {type(exc).__name__}: {exc}" if exc else "", more)

    def _not_logged_since(self, kind: tuple) -> Optional[int]:
        """None when a loop error of this kind was logged less than a minute ago (this one is
        counted, not logged); else how many were not logged since that line."""
        now = time.monotonic()
        seen = self._loop_errors.get(kind)
        if seen is not None and now - seen[0] < 60:
            seen[1] += 1
            return None
        if seen is None and len(self._loop_errors) >= 64:   # (kinds are few; a bound all the same)
            self._loop_errors.pop(next(iter(self._loop_errors)))
        self._loop_errors[kind] = [now, 0]
        return seen[1] if seen is not None else 0

    async def _main(self):
        self._loop = asyncio.get_running_loop()
        self._loop.set_exception_handler(self._loop_exception)
        self._stopping = asyncio.Event()
        ssl_ctx = self.web_config.ssl_context
        if ssl_ctx is not None:
            _small_tls_buffers()
        servers = [await self._loop.create_server(self._protocol, sock=s) for s in self.socks]
        reload_task = asyncio.ensure_future(self._reload_certificates()) if ssl_ctx else None
        self._auth_wakeup = asyncio.Event()
        auth_task = asyncio.ensure_future(self._auth_runner())
        self._started.set()
        await self._stopping.wait()
        for srv in servers:
            srv.close()
        deadline = time.monotonic() + self.drain_seconds
        while self._answering and time.monotonic() < deadline:   # until each has its whole response
            await asyncio.sleep(0.05)
        if self._answering:
            log.warning("msg=shutdown with %d request(s) still being answered after %.0fs", self._answering,
                        self.drain_seconds)
        for t in list(self._connections):
            t.abort()
        if reload_task:
            reload_task.cancel()
        auth_task.cancel()

    async def _reload_certificates(self):
        """Re-read the TLS certificate and key when their files change (checked every 10 s)."""
        while True:
            await asyncio.sleep(10)
            try:
                self.web_config.reload_if_changed()
            except Exception as e:   # keep serving with the certificate loaded before
                log.error("msg=cannot reload TLS certificate: %s", e)

    # -- connections ---------------------------------------------------------
    def _protocol(self):
        """A stream protocol per accepted connection; the connection is counted here, at accept,
        before any TLS handshake (pending handshakes hold memory too)."""
        reader = asyncio.StreamReader(limit=65536)
        return _Accepted(self, reader)

    def _admit(self, transport) -> bool:
        """Count an accepted connection; when full, close the one idle the longest to make room,
        or refuse this one when none is idle."""
        assert self._stopping is not None
        if self._stopping.is_set():
            return False
        if len(self._connections) >= self.max_connections:
            if self._idle:
                oldest = next(iter(self._idle))
                self._idle.pop(oldest, None)
                self._connections.discard(oldest)
                oldest.abort()
            else:
                now = time.monotonic()
                if now - self._last_refused_log > 60:
                    self._last_refused_log = now
                    log.warning("msg=connection refused: %d connections open, none idle (--web.max-connections)",
                                len(self._connections))
                return False
        self._connections.add(transport)
        return True

    def _release(self, transport):
        self._connections.discard(transport)
        self._idle.pop(transport, None)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        assert self._stopping is not None   # set in serve() before any connection
        transport = writer.transport
        ssl_ctx = self.web_config.ssl_context
        if ssl_ctx is not None:
            if len(self._handshaking) >= MAX_HANDSHAKES:
                oldest = next(iter(self._handshaking))            # the oldest stalled handshake makes room
                self._handshaking.pop(oldest, None)
                oldest.abort()
            self._handshaking[transport] = time.monotonic()
            try:
                writer = await _start_tls(writer, reader, ssl_ctx, self.header_timeout)
            except (ConnectionError, OSError, asyncio.TimeoutError, ssl.SSLError):
                self._release(transport)
                transport.abort()
                return
            finally:
                self._handshaking.pop(transport, None)
        await Connection(self, reader, writer, transport).run()

    # -- requests ------------------------------------------------------------
    async def _respond(self, req: h11.Request):
        text = "text/plain; charset=utf-8".encode()
        if req.method not in (b"GET", b"HEAD"):
            return 405, text, b"method not allowed\n", [(b"Allow", b"GET, HEAD")]
        headers = _Headers(req.headers)
        if self.web_config.users:
            authorization = headers.get("Authorization")
            ok = self.web_config.known(authorization)   # checked before: answered here, no queue
            if ok is None:
                ok = await self._check(authorization)
                if ok is None:
                    # answered after a pause that costs nothing (a sleeping coroutine): a client
                    # guessing passwords is slowed to one try a second instead of spinning
                    await asyncio.sleep(AUTH_SHED_DELAY)
                    return 503, text, b"too many password checks waiting\n", [(b"Retry-After", b"1")]
            if not ok:
                return 401, text, b"Unauthorized\n", [(b"WWW-Authenticate", b'Basic realm="aix_exporter"')]
        path, _, query = req.target.decode("latin-1").partition("?")
        if path == "/probe":
            return await self._probe(query, headers)
        if path == self.telemetry_path:
            return await self._scrape(headers, self.exporter.render)
        if path == "/":
            page = landing_page(self.exporter.source.name, self.telemetry_path, self.exporter.status())
            return 200, b"text/html; charset=utf-8", page.encode(), []
        return 404, text, b"not found\n", []


    async def _scrape(self, headers, render):
        """One exposition: ``render(encoder, content type, gzipped, deadline)`` in the scrape pool, at
        most max_requests at once, in the format and encoding the client asked for."""
        if self._in_flight >= self.max_requests:
            return 503, b"text/plain; charset=utf-8", (f"too many scrapes in flight (--web.max-requests="
                                                      f"{self.max_requests})\n").encode(), [(b"Retry-After", b"1")]
        encoder, ctype = exposition.choose(headers.get("Accept"))
        gz = "gzip" in (headers.get("Accept-Encoding") or "")
        deadline = scrape_deadline(headers, self.max_scrape_timeout)
        self._in_flight += 1
        try:
            body = await asyncio.get_running_loop().run_in_executor(self._pool, render, encoder, ctype, gz, deadline)
        finally:
            self._in_flight -= 1
        return 200, ctype.encode(), body, [(b"Content-Encoding", b"gzip")] if gz else []

    async def _probe(self, query: str, headers):
        """/probe?target=NAME: one configured target collected and answered (targets.py)."""
        import functools
        from urllib.parse import parse_qs
        text = b"text/plain; charset=utf-8"
        if self.fleet is None:
            return 404, text, b"no targets configured (targets: in --config.file)\n", []
        try:
            names = parse_qs(query, max_num_fields=8).get("target", [])
        except ValueError:   # (more than 8 fields: answered, never logged)
            return 400, text, b"too many query parameters: /probe?target=NAME\n", []
        if len(names) != 1 or not names[0]:
            return 400, text, b"give one target: /probe?target=NAME\n", []
        if names[0] not in self.fleet.exporters:
            return 404, text, b"unknown target (not in targets: of --config.file)\n", []
        return await self._scrape(headers, functools.partial(self.fleet.render, names[0]))

    # -- password checks: one at a time, the newest waiting first -------------------------
    # (next_check, below the class: which waiting check goes next)
    @property
    def _auth_waiting(self) -> int:
        """bcrypt checks waiting or running."""
        return len(self._auth_stack) + self._auth_running

    async def _check(self, authorization) -> Optional[bool]:
        """The bcrypt answer for ``authorization``, or None when its check gave way (to a newer
        one, AUTH_QUEUE waiting) or waited AUTH_MAX_WAIT seconds."""
        assert self._auth_wakeup is not None
        fut = asyncio.get_running_loop().create_future()
        shed = len(self._auth_stack) >= AUTH_QUEUE
        if shed:
            oldest = self._auth_stack.pop(0)[0]
            if not oldest.done():
                oldest.set_result(None)
        self._auth_stack.append((fut, authorization, time.monotonic()))
        if shed:
            self._log_shed()
        self._auth_wakeup.set()
        return await fut

    def _log_shed(self):
        now = time.monotonic()
        if now - self._last_shed_log >= 60:
            self._last_shed_log = now
            log.warning("msg=password checks shed: %d waiting, the oldest answered 503 (basic auth guessed "
                        "faster than bcrypt checks)", len(self._auth_stack))

    async def _auth_runner(self):
        """Run the waiting checks one at a time in the bcrypt thread, newest first; a check's
        answer also answers every other waiting request with the same credentials."""
        assert self._auth_wakeup is not None
        loop = asyncio.get_running_loop()
        while True:
            await self._auth_wakeup.wait()
            while self._auth_stack:
                now = time.monotonic()
                for waiting, _, since in self._auth_stack:   # (its client has given up: 503, never a wait for ever)
                    if not waiting.done() and now - since > AUTH_MAX_WAIT:
                        waiting.set_result(None)
                        self._log_shed()
                self._auth_stack[:] = [w for w in self._auth_stack if not w[0].done()]
                if not self._auth_stack:
                    break
                fut, authorization, since = self._auth_stack.pop(next_check(self._auth_stack, now))
                self._auth_running = 1
                try:
                    ok = await loop.run_in_executor(self._auth_pool, self.web_config.authorized, authorization)
                except Exception as e:   # a verifier's bug is one failed check, not a dead runner
                    log.error("msg=password check failed: %s: %s", type(e).__name__, e)
                    ok = False
                finally:
                    self._auth_running = 0
                if not fut.done():
                    fut.set_result(ok)
                for other, _, _ in [w for w in self._auth_stack if w[1] == authorization]:
                    if not other.done():
                        other.set_result(ok)
                self._auth_stack[:] = [w for w in self._auth_stack if not w[0].done()]
            self._auth_wakeup.clear()


class Connection:
    """One client connection: the h11 state machine and its read/answer loop (request heads
    within header_timeout, keep-alive within idle_timeout, bodies drained and bounded, each
    response taken by the client within write_timeout). The Server keeps the lifecycle, the
    admission (how many connections, heads and bytes at once) and the routing (_respond)."""

    def __init__(self, server: "Server", reader: asyncio.StreamReader, writer: asyncio.StreamWriter, transport):
        self.server, self.reader, self.writer, self.transport = server, reader, writer, transport
        writer.transport.set_write_buffer_limits(high=0)   # drain() waits until the client took it all
        self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEADER_BYTES)

    async def run(self):
        server, conn, writer, transport = self.server, self.conn, self.writer, self.transport
        assert server._stopping is not None
        first = True
        received = [0]   # bytes of the head being received on this connection
        try:
            while not server._stopping.is_set():
                server._idle[transport] = None   # waiting for a head: the first to make room when full
                try:
                    event = await asyncio.wait_for(self.next_event(received),
                                                   server.header_timeout if first else server.idle_timeout)
                except asyncio.TimeoutError:
                    if first or conn.their_state is not h11.IDLE:
                        await self.error(408, b"request head not received in time\n")
                    return
                finally:
                    server._idle.pop(transport, None)
                    server._head_bytes -= received[0]
                    received[0] = 0
                if isinstance(event, _Refused):
                    await self.error(event.status, event.body)
                    return
                if isinstance(event, h11.ConnectionClosed):
                    return
                if not isinstance(event, h11.Request):
                    return
                first = False
                server._answering += 1   # a shutdown waits for its response, up to drain_seconds
                try:
                    if not await self.answer(event):
                        return
                finally:
                    server._answering -= 1
                if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                    return
                conn.start_next_cycle()
        except (ConnectionError, OSError, h11.LocalProtocolError, asyncio.IncompleteReadError):
            return
        finally:
            server._release(transport)
            if _unsent(writer.transport):
                writer.transport.abort()
            else:
                writer.close()

    async def answer(self, event: h11.Request) -> bool:
        """Respond to one request, head and body in one write, taken by the client within
        write_timeout; False when the connection must end (a body over the limit, a client
        that does not read)."""
        # a GET has no body; anything else is drained (whole within header_timeout, up to the
        # header limit), then refused; while it arrives the connection counts as idle: a body
        # sent a byte at a time is the first to make room when the server is full
        conn, writer = self.conn, self.writer
        status, ctype, body, extra = await self.server._respond(event)
        self.server._idle[writer.transport] = None
        try:
            if not await self.drain_body():
                return False   # the body was not read to its end: no answer, the connection ends
        finally:
            self.server._idle.pop(writer.transport, None)
        headers = [(b"Content-Type", ctype), (b"Content-Length", str(len(body)).encode()),
                   (b"Server", SERVER)] + extra
        if status == 401:
            headers.append((b"Connection", b"close"))
        out = conn.send(h11.Response(status_code=status, headers=headers))
        if event.method != b"HEAD":
            out += conn.send(h11.Data(data=body))
        out += conn.send(h11.EndOfMessage())
        writer.write(out)   # head and body in one write: no wait for a delayed ACK between them
        try:
            await asyncio.wait_for(writer.drain(), self.server.write_timeout)
        except asyncio.TimeoutError:
            writer.transport.abort()   # a client that does not read its response
            return False               # (aborted: the connection ends either way)
        return True

    async def next_event(self, received=None):
        """The next h11 event, or _Refused for a request that gets an error and a close (a
        head that is malformed or too large; with ``received``, head bytes past the budget of
        all connections together, MAX_TOTAL_HEAD_BYTES). Returned, not raised: an exception
        through wait_for makes a reference cycle that keeps this connection's buffers (up to
        1 MB) until the garbage collector's next full pass (1,000 large heads kept 300 MB)."""
        # h11 bounds only a head still incomplete: one that arrives whole in the read that
        # crosses the limit would pass, so a head's own length is checked once it is in
        conn, reader = self.conn, self.reader
        buffered = len(conn.trailing_data[0])   # bytes h11 holds already (a pipelined head)
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as e:
                status = e.error_status_hint or 400
                return _Refused(status, HEAD_TOO_LARGE if status == 431 else b"bad request\n")
            if received is not None and isinstance(event, h11.Request) and (
                    buffered + received[0] - len(conn.trailing_data[0]) > MAX_HEADER_BYTES):
                return _Refused(431, HEAD_TOO_LARGE)
            if event is h11.NEED_DATA:
                data = await reader.read(65536)
                if received is not None:
                    received[0] += len(data)
                    self.server._head_bytes += len(data)
                    if self.server._head_bytes > MAX_TOTAL_HEAD_BYTES:
                        return _Refused(503, b"too many request heads in progress\n")
                conn.receive_data(data)   # b"" means the peer closed
                continue
            return event

    async def drain_body(self) -> bool:
        """Read a request body to its end, whole within header_timeout (not per piece: a body
        sent a byte at a time ends there) and at most MAX_HEADER_BYTES; False otherwise."""
        total = 0
        deadline = time.monotonic() + self.server.header_timeout
        while True:
            try:
                event = await asyncio.wait_for(self.next_event(),
                                               max(0.0, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                return False
            if isinstance(event, (_Refused, h11.ConnectionClosed)):   # a body cut short is a _Refused
                return False
            if isinstance(event, h11.EndOfMessage):
                return True
            if isinstance(event, h11.Data):
                total += len(event.data)
                if total > MAX_HEADER_BYTES:
                    return False

    async def error(self, status: int, body: bytes):
        conn, writer = self.conn, self.writer
        if conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            return
        try:
            writer.write(conn.send(h11.Response(status_code=status, headers=[
                (b"Content-Type", b"text/plain; charset=utf-8"), (b"Content-Length", str(len(body)).encode()),
                (b"Connection", b"close"), (b"Server", SERVER)])))
            writer.write(conn.send(h11.Data(data=body)))
            writer.write(conn.send(h11.EndOfMessage()))
            await asyncio.wait_for(writer.drain(), ERROR_WRITE_TIMEOUT)
        except (h11.LocalProtocolError, ConnectionError, OSError, asyncio.TimeoutError):
            pass


class _Refused:
    """A request answered with an error status, then the connection closed."""
    __slots__ = ("status", "body")

    def __init__(self, status: int, body: bytes):
        self.status, self.body = status, body


class _Accepted(asyncio.StreamReaderProtocol):
    """A connection as accepted: counted by the server before anything else happens."""

    def __init__(self, server: Server, reader: asyncio.StreamReader):
        super().__init__(reader, server._connection)
        self._server = server
        self._transport_seen = None

    def connection_made(self, transport):
        self._transport_seen = transport
        if not self._server._admit(transport):
            transport.abort()
            return
        super().connection_made(transport)

    def connection_lost(self, exc):
        if self._transport_seen is not None:
            self._server._release(self._transport_seen)
        super().connection_lost(exc)


# asyncio gives every TLS connection a 256 KiB read buffer up front, pending handshakes included
# (Python 3.11 and later: its SSLProtocol's max_size; before: its _SSLPipe's, the size of each
# read): 1,024 stalled handshakes held 330 MB. Requests to an exporter are small; a TLS record is
# at most 16 KiB, so 32 KiB reads lose nothing.
TLS_READ_BUFFER = 32 * 1024


def _unsent(transport) -> int:
    """Bytes the transport still holds to send. Before Python 3.11 a TLS transport whose
    connection is lost asks its SSL protocol's transport, which is then None (AttributeError):
    it holds nothing it can still send."""
    try:
        return transport.get_write_buffer_size()
    except AttributeError:
        return 0


def _small_tls_buffers():
    sslproto = getattr(asyncio, "sslproto", None)
    for cls in (getattr(sslproto, "SSLProtocol", None), getattr(sslproto, "_SSLPipe", None)):
        if cls is not None and getattr(cls, "max_size", 0) > TLS_READ_BUFFER:
            cls.max_size = TLS_READ_BUFFER


async def _start_tls(writer: asyncio.StreamWriter, reader: asyncio.StreamReader, ctx, timeout: float):
    """The server side of a TLS handshake on an accepted connection, within ``timeout``:
    StreamWriter.start_tls where Python has it (3.11), the loop's start_tls before. A handshake
    the client ended (or that was ended to make room) is a ConnectionError: 3.11's start_tls
    then fails on the transport it did not get (AttributeError on None, once per connection)."""
    if hasattr(writer, "start_tls"):
        plain, stream = writer.transport, cast(Any, writer)   # (stream: its private _transport is set back below)
        try:
            await writer.start_tls(ctx, ssl_handshake_timeout=timeout)
        except AttributeError:
            stream._transport = plain   # (start_tls left None: a StreamWriter's __del__, 3.11.5 on, reads it)
            raise ConnectionError("TLS handshake did not complete") from None
        if writer.transport is None or writer.transport.is_closing():
            if writer.transport is None:
                stream._transport = plain
            raise ConnectionError("TLS handshake did not complete")
        return writer
    loop = asyncio.get_running_loop()
    protocol: Any = writer.transport.get_protocol()
    tls = await loop.start_tls(writer.transport, protocol, ctx, server_side=True, ssl_handshake_timeout=timeout)
    if tls is None:
        raise ConnectionError("TLS handshake did not complete")
    new = asyncio.StreamWriter(tls, protocol, reader, loop)
    protocol._stream_writer = new          # (what 3.11's StreamWriter.start_tls does)
    protocol._transport = tls
    protocol._over_ssl = True
    return new


def make_server(exporter, address: str, telemetry_path: str = "/metrics", web_config=None,
                max_scrape_timeout: float = MAX_SCRAPE_TIMEOUT, max_requests: int = 40,
                max_connections: int = 1024, header_timeout: float = 10.0, fleet=None) -> Server:
    """Bind the listen address(es) now (so a busy port fails at start); serve with serve_forever()."""
    from .webconfig import WebConfig
    web_config = web_config or WebConfig()
    server = Server(exporter, _bind(address), telemetry_path, web_config, max_scrape_timeout,
                    max_requests=max_requests, max_connections=max_connections, header_timeout=header_timeout)
    server.fleet = fleet
    return server


def next_check(stack: list, now: float) -> int:
    """Which of the waiting password checks ([(future, credentials, since)], oldest first) runs
    next: the newest, so that a scrape arriving after a guessing client's check is not queued
    behind it, unless the oldest has waited AUTH_OLDEST_AFTER seconds: then it goes first. A
    guessing client's next guess always comes after the scrape, so newest-first alone could pass
    the scrape over for as long as strangers guess (a loaded machine answered it after none of
    30 s); with the oldest's turn, it waits at most AUTH_OLDEST_AFTER and one check."""
    return 0 if now - stack[0][2] >= AUTH_OLDEST_AFTER else len(stack) - 1
