"""The report's Prometheus client against a stand-in server with Prometheus' own limits and
error bodies: --auto over the default 30 days (43,200 points at 60 s) is asked for in pieces
under the 11,000-point limit, and an HTTP error shows the server's reason."""
import json
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

import pytest

from aix_exporter.report.compare import Prometheus, ReportError, find_regimes
from tests.lib.checks import answer_json, serving

CHANGE = 1_700_000_000 + 20 * 86400          # the regime changes to 16 MB pages here
END = 1_700_000_000 + 30 * 86400


MALFORMED = {
    "notjson": b"<html>a proxy's login page</html>",
    "longpage": b"<html>" + b"0123456789" * 20 + b"</html>",
    "list": b'["success"]',
    "nodata": b'{"status": "success"}',
    "novalue": b'{"status": "success", "data": {"resultType": "vector", "result": [{"metric": {}}]}}',
    "errstatus": b'{"status": "error", "errorType": "bad_data", "error": "parse  error\\n at char 3"}',
    "longerror": b'{"status": "error", "error": "' + b"e" * 299 + b'XY"}',
    "badbytes": b"<html>\xff</html>",
}


# instant and range-vector answers by query, as Prometheus writes them (values as strings)
ANSWERS = {
    "vec": {"resultType": "vector", "result": [
        {"metric": {"instance": "a:1"}, "value": [1700000000, "2.5"]},
        {"metric": {"instance": "b:1"}, "value": [1700000000, "NaN"]},
        {"metric": {"instance": "c:1"}, "value": [1700000000, "+Inf"]},
        {"value": [1700000000, "-Inf"]}, {"value": [1700000000, "0"]}]},
    "nan": {"resultType": "vector", "result": [{"metric": {}, "value": [1700000000, "NaN"]}]},
    "m[3600s] @ 1700003600": {"resultType": "matrix", "result": [
        {"metric": {"k": "x"}, "values": [[1700000060, "1"], [1700000000, "2"]]},
        {"metric": {"k": "y"}, "values": [[1700000030, "1"], [1700000060, "5"]]}]},
    "novalues[60s] @ 1700003600": {"resultType": "matrix", "result": [{"metric": {}}]},
    "notime[60s] @ 1700003600": {"resultType": "matrix", "result": [{"metric": {}, "values": [["x", "1"]]}]},
}


class Stub(BaseHTTPRequestHandler):
    queries: list = []
    asked: list = []

    def log_message(self, *a):
        pass

    def _answer(self, code, body):
        answer_json(self, code, body)

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/api/v1/query_range":
            start, end, step = float(q["start"]), float(q["end"]), float(q["step"])
            points = int((end - start) / step) + 1
            Stub.queries.append((start, end, step, points))
            if points > 11000:   # Prometheus' words (promql/engine.go), with its HTTP status
                return self._answer(400, {"status": "error", "errorType": "bad_data",
                                          "error": "exceeded maximum resolution of 11,000 points per timeseries. "
                                                   "Try decreasing the query resolution (?step=XX)"})
            if q["query"] == "two":    # two series, told apart by their labels
                return self._answer(200, {"status": "success", "data": {"resultType": "matrix", "result": [
                    {"metric": {"k": "a"}, "values": [[start, "1"]]}, {"metric": {"k": "b"}, "values": [[start, "2"]]}]}})
            if q["query"] == "novalues":
                return self._answer(200, {"status": "success", "data": {"resultType": "matrix", "result": [
                    {"metric": {"k": "a"}}]}})
            values = [[start + k * step, "16777216" if start + k * step >= CHANGE else "4096"] for k in range(points)]
            return self._answer(200, {"status": "success", "data": {"resultType": "matrix", "result": [
                {"metric": {"instance": "tsmsrv01:10990"}, "values": values}]}})
        if url.path == "/api/v1/query" and q["query"] == "boom":
            return self._answer(422, {"status": "error", "errorType": "execution",
                                      "error": "query processing would load too many samples into memory"})
        if url.path == "/api/v1/query":
            Stub.asked.append(q)
        if url.path == "/api/v1/query" and q["query"] in ANSWERS:
            return self._answer(200, {"status": "success", "data": ANSWERS[q["query"]]})
        if url.path == "/api/v1/query" and q["query"] == "empty":
            self.send_response(502)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if url.path == "/api/v1/query" and q["query"] == "html":
            data = b"<html><body>502 Bad Gateway</body></html>"
            self.send_response(502)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            return self.wfile.write(data)
        if url.path == "/api/v1/query" and q["query"] in MALFORMED:
            data = MALFORMED[q["query"]]
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            return self.wfile.write(data)
        if url.path == "/api/v1/query" and q["query"] in ("drip", "big"):
            size = 10_000 if q["query"] == "drip" else 8 << 20
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            try:
                if q["query"] == "drip":     # one byte at a time, never a full answer within the deadline
                    for _ in range(size):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        time.sleep(0.05)
                else:
                    self.wfile.write(b" " * size)
            except OSError:
                pass
            return None
        return self._answer(200, {"status": "success", "data": {"resultType": "vector", "result": []}})


@pytest.fixture
def stub():
    Stub.queries, Stub.asked = [], []
    yield from serving(Stub)


def test_auto_over_the_default_30_days_asks_in_pieces_under_the_point_limit(stub):
    before, after, change, names = find_regimes(Prometheus(stub), "tsmsrv01:10990", END - 30 * 86400, END, 600)
    assert names == ("4 KB", "16 MB")
    # 43,201 points at 60 s: five pieces of at most 10,000 points, each starting a step after the last
    assert [q[3] for q in Stub.queries] == [10000, 10000, 10000, 10000, 3201]
    assert all(b[0] == a[1] + 60 for a, b in zip(Stub.queries, Stub.queries[1:]))
    assert Stub.queries[0][0] == END - 30 * 86400 and Stub.queries[-1][1] == END
    assert change == CHANGE - 60                    # the last 4 KB minute
    assert (before.start, before.end) == (END - 30 * 86400 + 600, CHANGE - 60 - 600)
    assert (after.start, after.end) == (CHANGE + 600, END - 600)


def test_a_short_range_is_one_query(stub):
    Prometheus(stub).range("up", END - 3600, END, 60)
    assert [q[3] for q in Stub.queries] == [61]


def test_http_errors_show_the_servers_own_reason(stub, monkeypatch):
    with pytest.raises(ReportError) as e:
        Prometheus(stub).scalar("boom", END)
    assert str(e.value) == f"{stub}: HTTP 422: query processing would load too many samples into memory"
    with pytest.raises(ReportError) as e:
        Prometheus(stub).scalar("html", END)
    assert str(e.value) == f"{stub}: HTTP 502: <html><body>502 Bad Gateway</body></html>"
    with pytest.raises(ReportError) as e:
        Prometheus(stub).scalar("empty", END)             # no body: the status line's reason
    assert str(e.value) == f"{stub}: HTTP 502 Bad Gateway"
    monkeypatch.setattr(Prometheus, "MAX_POINTS", 20000)   # pieces too large: the server's 400 in full
    with pytest.raises(ReportError) as e:
        Prometheus(stub).range("up", END - 30 * 86400, END, 60)
    assert "HTTP 400: exceeded maximum resolution of 11,000 points per timeseries" in str(e.value)


def test_malformed_answers_are_one_line_each(stub):
    want = {
        "notjson": f"{stub}: not a Prometheus API answer (not JSON): \"<html>a proxy's login page</html>\"",
        "longpage": f"{stub}: not a Prometheus API answer (not JSON): '<html>{'0123456789' * 11}0123'",  # 120 bytes
        "list": f"{stub}: ['success']",
        "nodata": f"{stub}: not a Prometheus API answer (no data.result list)",
        "novalue": f"{stub}: not a Prometheus API answer (a sample without a value)",
        "errstatus": f"{stub}: parse error at char 3",
        "longerror": f"{stub}: " + "e" * 299 + "X",                       # its first 300 characters
        "badbytes": f"{stub}: not a Prometheus API answer (not JSON): '<html>\ufffd</html>'",
    }
    for query, message in want.items():
        with pytest.raises(ReportError) as e:
            Prometheus(stub).scalar(query, END)
        assert str(e.value) == message, query


def test_a_dripping_server_and_a_huge_answer_end_within_the_deadline_and_the_cap(stub, monkeypatch):
    with pytest.raises(ReportError) as e:      # (the drip alone would take 500 s)
        Prometheus(stub, timeout=1.0).scalar("drip", END)
    assert str(e.value) == f"{stub}: no complete answer within 1 s"
    monkeypatch.setattr(Prometheus, "MAX_BODY", 1 << 20)
    with pytest.raises(ReportError) as e:
        Prometheus(stub).scalar("big", END)
    assert str(e.value) == f"{stub}: the answer is larger than 1 MiB; narrow the window or the step"


def test_an_answer_of_exactly_the_cap_is_read(stub, monkeypatch):
    size = len(json.dumps({"status": "success", "data": ANSWERS["nan"]}).encode())   # the stand-in's bytes
    monkeypatch.setattr(Prometheus, "MAX_BODY", size)
    assert Prometheus(stub).scalar("nan", END) is None
    monkeypatch.setattr(Prometheus, "MAX_BODY", size - 1)
    with pytest.raises(ReportError) as e:
        Prometheus(stub).scalar("nan", END)
    assert str(e.value) == f"{stub}: the answer is larger than 0 MiB; narrow the window or the step"


def test_instant_answers_without_nan_or_infinities(stub):
    p = Prometheus(stub)
    assert p.instant("vec", 1_700_000_000.5) == [{"metric": {"instance": "a:1"}, "value": 2.5},
                                                  {"metric": {}, "value": 0.0}]
    assert Stub.asked[-1] == {"query": "vec", "time": "1700000000.500"}
    assert p.scalar("nan", 1_700_000_000) is None and p.scalar("vec", 1_700_000_000.25) == 2.5
    assert Stub.asked[-1] == {"query": "vec", "time": "1700000000.250"}
    assert p.scalar("nothing", 1_700_000_000) is None                    # an empty result


def test_the_sample_times_of_a_selector_over_a_window(stub):
    assert Prometheus(stub).sample_times("m", 3600, 1_700_003_600) == [1_700_000_000.0, 1_700_000_030.0,
                                                                        1_700_000_060.0]
    assert Stub.asked[-1] == {"query": "m[3600s] @ 1700003600", "time": "1700003600.000"}
    for query, why in (("novalues", "a range vector without values"), ("notime", "a sample without a time")):
        with pytest.raises(ReportError) as e:
            Prometheus(stub).sample_times(query, 60, 1_700_003_600)
        assert str(e.value) == f"{stub}: not a Prometheus API answer ({why})"


def test_a_range_keeps_series_apart_by_their_labels_and_refuses_one_without_values(stub):
    got = Prometheus(stub).range("two", END - 120, END, 60)
    assert got == [{"metric": {"k": "a"}, "values": [[END - 120, "1"]]}, {"metric": {"k": "b"}, "values": [[END - 120, "2"]]}]
    with pytest.raises(ReportError) as e:
        Prometheus(stub).range("novalues", END - 120, END, 60)
    assert str(e.value) == f"{stub}: not a Prometheus API answer (a series without metric and values)"


def test_the_url_loses_its_trailing_slash_only():
    assert Prometheus("http://PROMX/").url == "http://PROMX"        # an upper-case host name, as AIX shops name them
    assert Prometheus("http://p:9090/prom/").url == "http://p:9090/prom"


def test_a_prometheus_that_cannot_be_reached_is_one_line():
    with pytest.raises(ReportError) as e:
        Prometheus("http://127.0.0.1:9", timeout=5).scalar("up", END)     # (the discard port: nothing listens)
    assert str(e.value) == "http://127.0.0.1:9: Connection refused"     # one line, no Python exception names



def test_a_404_says_the_url_may_be_an_exporters_not_a_stores():
    """Issue 58, item 7: --prometheus pointed at the exporter's port gave 'HTTP 404' alone."""
    import http.server
    import threading
    from aix_exporter.promapi import Prometheus, QueryError

    class NotFound(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(404)
            self.send_header("Content-Length", "10")
            self.end_headers()
            self.wfile.write(b"not found\n")

        def log_message(self, *a):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", 0), NotFound)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        with pytest.raises(QueryError) as e:
            Prometheus(f"http://127.0.0.1:{srv.server_port}").result("up")
    finally:
        srv.shutdown()
        srv.server_close()
    assert "HTTP 404" in str(e.value) and str(e.value).endswith(
        "is this Prometheus or VictoriaMetrics? (an exporter's port answers 404 here: the demo's Prometheus is "
        "http://127.0.0.1:19090)")
