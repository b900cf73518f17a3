"""Every outbound HTTP request of the offline tools (the report, plan and census queries, the
store writer of ``import --store``): one deadline for the whole request, a cap on the
answer's size, and ``user:password@`` in a URL sent as an Authorization header, never printed.

A server that drips its answer a byte at a time, or answers with gigabytes, costs at most the
deadline and the cap: a watchdog shuts the connection's socket down when the deadline passes,
whatever read is waiting, and the body is read in pieces and refused past the cap.
"""
from __future__ import annotations

import base64
import http.client
import socket
import ssl
import threading
import time
import urllib.parse
from typing import Optional

from .errors import CommandError

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_BYTES = 256 << 20


class HTTPClientError(CommandError, RuntimeError):
    """One line for the user, ``URL: reason``: what went wrong with which URL (shown without
    its userinfo). A non-2xx answer carries its status and the start of its body."""

    def __init__(self, url: str, reason: str, status: Optional[int] = None, body: bytes = b""):
        super().__init__(f"{url}: {reason}")
        self.url, self.reason, self.status, self.body = url, reason, status, body


def split(url: str) -> tuple:
    """(url without userinfo, headers carrying it as Basic auth) of ``url``."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, {}
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    clean = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    user = urllib.parse.unquote(parts.username or "")
    password = urllib.parse.unquote(parts.password or "")
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return clean, {"Authorization": f"Basic {token}"}


def shown(url: str) -> str:
    """The URL as it may be printed: without its userinfo."""
    try:
        return split(url)[0]
    except ValueError:
        return "<a URL that cannot be read>"


def request(url: str, data: Optional[bytes] = None, headers: Optional[dict] = None, method: Optional[str] = None,  # noqa: C901 (issue 46: too complex today, must not grow)
            timeout: float = DEFAULT_TIMEOUT, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The body of a 2xx answer to one request, read within ``timeout`` seconds in all and at most
    ``max_bytes``; HTTPClientError otherwise (a non-2xx answer carries its status and the start of
    its body)."""
    try:
        clean, auth = split(url)
        parts = urllib.parse.urlsplit(clean)
        port = parts.port
    except ValueError as e:
        raise HTTPClientError(shown(url), f"not a URL: {e}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HTTPClientError(shown(url), "not an http:// or https:// URL (give the scheme, e.g. http://HOST:9090)")
    deadline = time.monotonic() + timeout
    if parts.scheme == "https":
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            parts.hostname, port, timeout=timeout, context=ssl.create_default_context())
    else:
        conn = http.client.HTTPConnection(parts.hostname, port, timeout=timeout)
    expired = threading.Event()

    def cut() -> None:   # the deadline: whatever read is waiting ends now
        expired.set()
        sock = conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
    watchdog = threading.Timer(timeout, cut)
    watchdog.daemon = True
    watchdog.start()
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        conn.request(method or ("POST" if data is not None else "GET"), target, body=data,
                     headers={**(headers or {}), **auth})
        resp = conn.getresponse()
        chunks, size = [], 0
        while True:
            chunk = resp.read1(65536) if hasattr(resp, "read1") else resp.read(65536)
            if not chunk:
                break
            size += len(chunk)
            if size > max_bytes:
                raise HTTPClientError(clean, f"the answer is larger than {max_bytes >> 20} MiB")
            if time.monotonic() > deadline:
                expired.set()
                break
            chunks.append(chunk)
        if expired.is_set():
            raise HTTPClientError(clean, f"no complete answer within {timeout:g} s")
        body = b"".join(chunks)
        if not 200 <= resp.status < 300:
            raise HTTPClientError(clean, f"HTTP {resp.status} {resp.reason}", resp.status, body[:4096])
        return body
    except HTTPClientError:
        raise
    except (OSError, http.client.HTTPException, ValueError) as e:
        # the socket's own timeout (the same length) can fire before the watchdog's thread has
        # run: under load it did, and the reason read "timed out"
        if expired.is_set() or isinstance(e, (socket.timeout, TimeoutError)) or time.monotonic() >= deadline:
            raise HTTPClientError(clean, f"no complete answer within {timeout:g} s") from None
        reason = getattr(e, "strerror", None) or str(e) or type(e).__name__
        raise HTTPClientError(clean, reason) from None
    finally:
        watchdog.cancel()
        conn.close()
