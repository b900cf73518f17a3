"""Small helpers of the unit tests: metric families as a dict of samples, a refusal's one line, a
local HTTP server with a handler, a time zone for a block, a terminal's width, a fake LPAR."""
import contextlib
import json
import os
import time


def samples(families):
    """{(name, ((label, value), ...)): value} for easy assertions."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in families for s in f.samples}


def names(families):
    return {s.name for f in families for s in f.samples}


class Terminal:
    """A terminal's stderr for a test: what is written to it (``text``), what of it was flushed
    (``flushed``), and isatty()."""

    def __init__(self):
        self.text = ""
        self.flushed = ""   # the text as it stood at the last flush()

    def write(self, s):
        self.text += s

    def flush(self):
        self.flushed = self.text

    def isatty(self):
        return True


def refusal(exc_type, call, *args, **kw) -> str:
    """The message of the ``exc_type`` that ``call(*args, **kw)`` must raise."""
    import pytest
    with pytest.raises(exc_type) as e:
        call(*args, **kw)
    return str(e.value)


def serving(handler):
    """A stand-in HTTP server on a free loopback port answering with ``handler`` (a
    BaseHTTPRequestHandler class), for a fixture: yields its URL, shut down after."""
    import threading
    from http.server import ThreadingHTTPServer
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


@contextlib.contextmanager
def local_zone(name: str):
    """The process's local time zone set to ``name`` (TZ, tzset) inside the block, then put back:
    for code that shows times in the machine's zone, on a machine whose zone is UTC."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = name
    time.tzset()
    try:
        yield
    finally:
        if old is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = old
        time.tzset()


def promtool_only(name):
    """shutil.which with only promtool on PATH."""
    return "/usr/bin/promtool" if name == "promtool" else None


def simulated_lines(path) -> list:
    """The lines of an OpenMetrics history but the exporter's own samples, which are measured
    on this machine (collector durations) and so differ from run to run."""
    return [line for line in open(path, encoding="utf-8").read().splitlines() if not line.startswith("aix_exporter_")]


def answer_json(handler, code: int, body) -> None:
    """A JSON answer from a stub server's BaseHTTPRequestHandler: status, type, length, body."""
    data = json.dumps(body).encode()
    handler.send_response(code)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class Lpar:
    """A source that answers each key with ``answer(key)`` (text, or raise a SourceError): an
    LPAR that runs commands, for tests of what an exporter does with one collector's answers."""
    name, slow_keys, concurrent_reads, runs_commands, local_system = "fake", frozenset(), False, True, True

    def __init__(self, answer):
        self.read = answer

    def report_time(self, key):
        return None
