"""One HTTP GET for the tests' drivers and the benchmarks (issue 61, item 3): status, body,
headers and the seconds it took, never an exception for an HTTP error status (a caller that
wants one calls ``checked()``)."""
import http.client
import time
import urllib.parse
from typing import NamedTuple, Optional


class Reply(NamedTuple):
    status: int
    body: bytes
    seconds: float
    headers: dict

    def checked(self, url: str = "") -> "Reply":
        """This reply, or a RuntimeError naming the status and the body's start."""
        if self.status >= 400:
            raise RuntimeError(f"{url[:300]}: HTTP {self.status}: {self.body[:500].decode('utf-8', 'replace')}")
        return self


def get(url: str, headers: Optional[dict] = None, timeout: float = 30,
        conn: Optional[http.client.HTTPConnection] = None, redirects: int = 5) -> Reply:
    """GET ``url`` (http://host:port/path?query); on ``conn`` when given (kept open: a scraper's
    keep-alive), else on a connection of its own, closed after, following up to ``redirects``
    redirects as a browser does. A refused connection or a timeout raises OSError, as urllib does."""
    reply = _get(url, headers, timeout, conn)
    while conn is None and redirects > 0 and reply.status in (301, 302, 303, 307, 308) and "location" in reply.headers:
        url, redirects = urllib.parse.urljoin(url, reply.headers["location"]), redirects - 1
        reply = _get(url, headers, timeout, None)
    return reply


def _get(url, headers, timeout, conn) -> Reply:
    parts = urllib.parse.urlsplit(url)
    own = conn is None
    if conn is None:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        t0 = time.perf_counter()
        conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else "") or "/", headers=headers or {})
        r = conn.getresponse()
        body = r.read()
        return Reply(r.status, body, time.perf_counter() - t0, {k.lower(): v for k, v in r.getheaders()})
    finally:
        if own:
            conn.close()
