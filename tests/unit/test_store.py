"""import --store: reading a store's retention, and the age check that refuses an import the
store would drop (issue 31). The writes themselves run against real stores in
tests/e2e/test_import_store.py."""
import pytest

from aix_exporter.tools import store

DAY = 86400
NOW = 1_795_000_000.0


@pytest.mark.parametrize("text,unit,seconds", [
    ("15d", "s", 15 * DAY), ("1y2d", "s", 367 * DAY), ("30d12h", "s", 30.5 * DAY), ("0s", "s", None),
    ("1", "month", 31 * DAY), ("100y", "month", 36500 * DAY), ("90s", "s", 90), ("500ms", "s", 0.5),
])
def test_durations_as_the_stores_write_them(text, unit, seconds):
    assert store.duration(text, unit) == seconds


def test_a_duration_that_is_not_one_is_an_error():
    with pytest.raises(store.StoreError, match="cannot read the duration"):
        store.duration("15 days")
    for text in ("15dx", "x15d", "15d 2h"):      # units read, but not all of the text
        with pytest.raises(store.StoreError) as e:
            store.duration(text)
        assert str(e.value) == f"cannot read the duration {text!r}"


def test_the_age_checks_from_both_sides_of_their_edges():
    vm = store.Store("http://vm:8428", "victoriametrics", 31 * DAY, "-retentionPeriod=1")
    assert vm.keeps(NOW - (31 * DAY - 3600), now=NOW) is None              # exactly an hour inside: kept
    assert vm.keeps(NOW - (31 * DAY - 3599), now=NOW) is not None          # a second less
    p = store.Store("http://p:9090", "prometheus", 3650 * DAY, "--storage.tsdb.retention.time=10y", 5400)
    assert p.keeps(NOW - 5400, now=NOW) is None                            # exactly the head block's reach
    assert p.keeps(NOW - 5401, now=NOW) is not None


def test_victoria_metrics_keeping_a_month_refuses_a_2016_history():
    vm = store.Store("http://vm:8428", "victoriametrics", 31 * DAY, "-retentionPeriod=1")
    why = vm.keeps(NOW - 3000 * DAY, now=NOW)
    assert why.startswith("the history starts 3000 days ago but http://vm:8428 keeps -retentionPeriod=1")
    assert "Restart the store with -retentionPeriod=3002d (or more)" in why
    assert vm.keeps(NOW - 30 * DAY, now=NOW) is None                 # inside the month
    assert vm.keeps(NOW - 31 * DAY + 1800, now=NOW) is not None      # within the hour's margin of the edge
    assert store.Store("u", "victoriametrics", None, "").keeps(NOW - 9000 * DAY, now=NOW) is None


def test_prometheus_needs_retention_and_an_out_of_order_window():
    p = store.Store("http://p:9090", "prometheus", 15 * DAY, "--storage.tsdb.retention.time=0s", 5400)
    assert "--storage.tsdb.retention.time=22d" in p.keeps(NOW - 20 * DAY, now=NOW)
    long = store.Store("http://p:9090", "prometheus", 3650 * DAY, "--storage.tsdb.retention.time=10y", 5400)
    why = long.keeps(NOW - 20 * DAY, now=NOW)
    assert "out_of_order_time_window: set it to 22d" in why and "--tsdb DIR" in why
    assert long.keeps(NOW - 3600, now=NOW) is None                    # the head block takes it
    ooo = store.Store("http://p:9090", "prometheus", 3650 * DAY, "x", 30 * DAY + 5400)
    assert ooo.keeps(NOW - 20 * DAY, now=NOW) is None


def test_snappy_block_of_literals():
    """The framing remote write requires: the length as a varint, then literal elements."""
    assert store.snappy_literals(b"abc") == b"\x03" + bytes([2 << 2]) + b"abc"
    data = bytes(range(256)) * 300                                     # 76,800 bytes: two literals
    framed = store.snappy_literals(data)
    assert framed[:3] == b"\x80\xd8\x04"                               # 76800 as a varint
    assert framed[3] == 61 << 2 and framed[4:6] == (65535).to_bytes(2, "little")
    assert framed[6:6 + 65536] == data[:65536]


# ---------------------------------------------------------------- against stand-in stores

import json                                    # noqa: E402
import urllib.parse                            # noqa: E402
from http.server import BaseHTTPRequestHandler   # noqa: E402

from tests.lib.checks import serving          # noqa: E402


class Stub(BaseHTTPRequestHandler):
    """A store at a loopback port: answers from ``routes`` (path -> (status, body)), records
    each request (method, path with query, body)."""
    routes: dict = {}
    seen: list = []

    def log_message(self, *a):
        pass

    def _answer(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) if self.command == "POST" else b""
        Stub.seen.append((self.command, self.path, body, dict(self.headers)))
        path = urllib.parse.urlparse(self.path).path
        status, data = Stub.routes.get(path, (404, b"not found"))
        if callable(data):
            data = data(urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query))
        data = data if isinstance(data, bytes) else json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer


@pytest.fixture
def stub():
    Stub.routes, Stub.seen = {}, []
    yield from serving(Stub)


VM_METRICS = b'vm_app_version{version="victoria-metrics-20231212"} 1\nflag{name="retentionPeriod", is_set="true", value="100y"} 1\n'


@pytest.mark.parametrize("metrics,retention,flag", [
    (VM_METRICS, 36500 * DAY, "-retentionPeriod=100y"),
    (b'vm_app_version{version="v"} 1\nflag{name="retentionPeriod",value="3"} 1\n', 93 * DAY, "-retentionPeriod=3"),
    (b'vm_app_version{version="v"} 1\n', 31 * DAY, "-retentionPeriod=1"),          # its default: a month
    (b'# \xff\nvm_app_version{version="v"} 1\n', 31 * DAY, "-retentionPeriod=1"),  # a byte that is not UTF-8
])
def test_victoria_metrics_is_known_by_its_metrics_and_its_retention_read(stub, metrics, retention, flag):
    Stub.routes = {"/metrics": (200, metrics)}
    s = store.connect(stub + "/")
    assert (s.url, s.kind, s.retention, s.retention_flag, s.old_limit) == (stub, "victoriametrics", retention, flag,
                                                                         None)


def prometheus(flags, config="global: {}\n"):
    return {"/metrics": (200, b"prometheus_build_info 1\n"),
            "/api/v1/status/flags": (200, {"status": "success", "data": flags}),
            "/api/v1/status/config": (200, {"status": "success", "data": {"yaml": config}})}


def test_prometheus_is_known_by_its_flags_and_its_limits_read(stub):
    Stub.routes = prometheus({"web.enable-remote-write-receiver": "true", "storage.tsdb.retention.time": "90d"},
                             "storage:\n  tsdb:\n    out_of_order_time_window: 30d\n")
    s = store.connect(stub)
    assert (s.kind, s.retention, s.retention_flag, s.old_limit) == (
        "prometheus", 90 * DAY, "--storage.tsdb.retention.time=90d", 30 * DAY + 5400)
    Stub.routes = prometheus({"web.enable-remote-write-receiver": "true", "storage.tsdb.retention.time": "0s"})
    s = store.connect(stub)
    assert (s.retention, s.old_limit) == (15 * DAY, 5400)                    # its defaults: 15 days, the head only
    Stub.routes = prometheus({"web.enable-remote-write-receiver": "true"})
    del Stub.routes["/api/v1/status/config"]
    assert store.connect(stub).old_limit == 5400                            # no config to read: the head only


@pytest.mark.parametrize("routes,message", [
    ({"/metrics": (200, b"x 1\n"), "/api/v1/status/flags": (200, {"data": {}})},
     "Prometheus takes remote write only with --web.enable-remote-write-receiver; start it so, or import with "
     "--tsdb DIR (blocks)"),
    ({"/metrics": (200, b"x 1\n"), "/api/v1/status/flags": (200, b"<html>")},
     "neither VictoriaMetrics nor Prometheus (Expecting value: line 1 column 1 (char 0))"),
    ({"/metrics": (200, b"x 1\n")}, "neither VictoriaMetrics nor Prometheus (HTTP 404 Not Found)"),
])
def test_a_store_that_cannot_take_the_history_is_one_line(stub, routes, message):
    Stub.routes = routes
    with pytest.raises(store.StoreError) as e:
        store.connect(stub)
    assert str(e.value) == f"{stub}: {message}"


def test_an_unreachable_store_is_one_line():
    with pytest.raises(store.StoreError) as e:
        store.connect("http://127.0.0.1:9")
    assert str(e.value).startswith("http://127.0.0.1:9: cannot reach the store: ")


OM = ('# TYPE aix_x gauge\naix_x{instance="a:1",job="aix",q="say \\"hi\\""} 1.5 1800000000.000\n'
      'aix_x{instance="a:1",job="aix",q="say \\"hi\\""} 2 1800000060.000\n'
      'aix_y_total{instance="a:1",job="aix"} 7 1800000000.5\n\n# EOF\n')


def test_the_samples_of_an_openmetrics_file(tmp_path):
    (tmp_path / "h.om").write_text(OM)
    got = list(store.samples(str(tmp_path / "h.om")))
    head = 'aix_x{instance="a:1",job="aix",q="say \\"hi\\""}'
    assert got == [(head, "1.5", 1_800_000_000_000), (head, "2", 1_800_000_060_000),
                   ('aix_y_total{instance="a:1",job="aix"}', "7", 1_800_000_000_500)]
    assert store.parse_series(head) == {"__name__": "aix_x", "instance": "a:1", "job": "aix", "q": 'say "hi"'}
    assert store.parse_series('m{a="x\\\\y\\nz"}') == {"__name__": "m", "a": "x\\y\nz"}
    assert store._series(got) == [(store.parse_series(head), [(1.5, 1_800_000_000_000), (2.0, 1_800_000_060_000)]),
                                  ({"__name__": "aix_y_total", "instance": "a:1", "job": "aix"},
                                   [(7.0, 1_800_000_000_500)])]


def test_victoria_metrics_gets_the_samples_in_batches_and_a_flush(stub, tmp_path, monkeypatch):
    (tmp_path / "h.om").write_text(OM)
    monkeypatch.setattr(store, "BATCH_SAMPLES", 2)
    Stub.routes = {"/api/v1/import/prometheus": (204, b""), "/internal/force_flush": (200, b"")}
    vm = store.Store(stub, "victoriametrics", None, "")
    assert store.write(vm, str(tmp_path / "h.om")) == 3
    posts = [(p, b) for m, p, b, _ in Stub.seen if m == "POST"]
    assert posts == [("/api/v1/import/prometheus",
                      b'aix_x{instance="a:1",job="aix",q="say \\"hi\\""} 1.5 1800000000000\n'
                      b'aix_x{instance="a:1",job="aix",q="say \\"hi\\""} 2 1800000060000\n'),
                     ("/api/v1/import/prometheus", b'aix_y_total{instance="a:1",job="aix"} 7 1800000000500\n')]
    assert {h["Content-Type"] for m, _, _, h in Stub.seen if m == "POST"} == {"text/plain"}
    assert Stub.seen[-1][:2] == ("GET", "/internal/force_flush")
    Stub.routes = {"/api/v1/import/prometheus": (204, b"")}                 # a store that refuses the flush
    assert store.write(vm, str(tmp_path / "h.om")) == 3


def test_prometheus_gets_remote_write(stub, tmp_path):
    (tmp_path / "h.om").write_text('m{a="b"} 1 1.000\n')
    Stub.routes = {"/api/v1/write": (204, b"")}
    assert store.write(store.Store(stub, "prometheus", None, ""), str(tmp_path / "h.om")) == 1
    method, path, body, headers = Stub.seen[0]
    assert (method, path) == ("POST", "/api/v1/write")
    assert (headers["Content-Encoding"], headers["Content-Type"], headers["X-Prometheus-Remote-Write-Version"]) == (
        "snappy", "application/x-protobuf", "0.1.0")
    # WriteRequest{timeseries: [{labels: [__name__=m, a=b], samples: [{value: 1.0, timestamp: 1000}]}]}
    label_a = b"\x0a\x06\x0a\x01a\x12\x01b"
    label_name = b"\x0a\x0d\x0a\x08__name__\x12\x01m"
    sample = b"\x12\x0c\x09" + bytes.fromhex("000000000000f03f") + b"\x10\xe8\x07"   # 1.0, 1000 ms
    series = label_name + label_a + sample
    request = b"\x0a" + bytes([len(series)]) + series
    assert body == bytes([len(request)]) + bytes([(len(request) - 1) << 2]) + request


def test_a_store_that_refuses_a_write_is_one_line_with_its_words(stub, tmp_path):
    (tmp_path / "h.om").write_text('m{a="b"} 1 1.000\n')
    vm = store.Store(stub, "victoriametrics", None, "")
    for said, shown in ((b"cannot parse line 1: bad timestamp", "cannot parse line 1: bad timestamp"),
                        (b"bad sample \xff here", "bad sample \ufffd here")):     # bytes that are not UTF-8 replaced
        Stub.routes = {"/api/v1/import/prometheus": (400, said)}
        with pytest.raises(store.StoreError) as e:
            store.write(vm, str(tmp_path / "h.om"))
        assert str(e.value) == f"{stub}/api/v1/import/prometheus: HTTP 400: {shown}"
    with pytest.raises(store.StoreError) as e:
        store.write(store.Store("http://127.0.0.1:9", "prometheus", None, ""), str(tmp_path / "h.om"))
    assert str(e.value) == "http://127.0.0.1:9/api/v1/write: Connection refused"


def test_the_samples_are_counted_back_per_instance_and_name(stub):
    def names(q):
        assert q["match[]"] == ['{instance="a:1",job="aix"}'] and (q["start"], q["end"]) == (["940"], ["2060"])
        return {"status": "success", "data": ["aix_x", "aix_y_total"]}

    def count(q):
        value = {'sum(count_over_time(aix_x{instance="a:1",job="aix"}[1060s]))': "2",
                 'sum(count_over_time(aix_y_total{instance="a:1",job="aix"}[1060s]))': "1"}[q["query"][0]]
        assert q["time"] == ["2001.000"]
        return {"status": "success", "data": {"resultType": "vector", "result": [{"metric": {}, "value": [0, value]}]}}
    Stub.routes = {"/api/v1/label/__name__/values": (200, names), "/api/v1/query": (200, count)}
    s = store.Store(stub, "victoriametrics", None, "")
    assert store.count_back(s, [{"job": "aix", "instance": "a:1"}], 1000.0, 2000.0) == 3
    Stub.routes["/api/v1/query"] = (200, {"status": "success", "data": {"result": []}})
    assert store.count_back(s, [{"job": "aix", "instance": "a:1"}], 1000.0, 2000.0) == 0
    Stub.routes["/api/v1/query"] = (200, b"<html>")
    with pytest.raises(store.StoreError) as e:
        store.count_back(s, [{"job": "aix", "instance": "a:1"}], 1000.0, 2000.0)
    assert str(e.value).startswith(f"{stub}: cannot count the samples back: ")


def test_varints_and_fields():
    assert store._varint(0) == b"\x00" and store._varint(127) == b"\x7f" and store._varint(128) == b"\x80\x01"
    assert store._varint(300) == b"\xac\x02"
    assert store._field(2, b"ab") == b"\x12\x02ab"
    assert store.snappy_literals(b"x" * 60) == b"\x3c" + bytes([59 << 2]) + b"x" * 60
    assert store.snappy_literals(b"x" * 61) == b"\x3d" + bytes([60 << 2, 60]) + b"x" * 61
    assert store.snappy_literals(b"x" * 256) == b"\x80\x02" + bytes([60 << 2, 255]) + b"x" * 256
    assert store.snappy_literals(b"x" * 257) == b"\x81\x02" + bytes([61 << 2]) + (256).to_bytes(2, "little") + b"x" * 257


def test_durations_in_weeks_and_bare_seconds_and_the_refusal_in_full():
    assert store.duration("2w") == 14 * DAY and store.duration("90") == 90 and store.duration(" 1h30m ") == 5400
    with pytest.raises(store.StoreError) as e:
        store.duration("15 days")
    assert str(e.value) == "cannot read the duration '15 days'"


def test_a_request_carries_20000_samples_at_most(stub, tmp_path):
    lines = "".join(f'm{{k="{k % 7}"}} {k} {1_800_000_000 + k}.000\n' for k in range(20001))
    (tmp_path / "h.om").write_text(lines)
    Stub.routes = {"/api/v1/import/prometheus": (204, b""), "/internal/force_flush": (200, b"")}
    assert store.write(store.Store(stub, "victoriametrics", None, ""), str(tmp_path / "h.om")) == 20001
    assert [body.count(b"\n") for m, _, body, _ in Stub.seen if m == "POST"] == [20000, 1]


def test_each_request_has_its_deadline_and_its_cap(monkeypatch):
    asked = []

    def request(url, data=None, headers=None, method=None, timeout=None, max_bytes=None):
        asked.append((method, timeout, max_bytes))
        return b'{"data": ["m"]}'
    monkeypatch.setattr(store.httpclient, "request", request)
    store._get("http://x/metrics")
    store._post("http://x/api/v1/write", b"", {})
    assert asked == [(None, 30.0, 64 << 20), ("POST", 50.0, 64 << 20)]


def test_what_a_store_would_drop_is_said_in_full():
    vm = store.Store("http://vm:8428", "victoriametrics", 31 * DAY, "-retentionPeriod=1")
    assert vm.keeps(NOW - 40 * DAY, now=NOW) == (
        "the history starts 40 days ago but http://vm:8428 keeps -retentionPeriod=1: its older samples would be "
        "dropped without an error. Restart the store with -retentionPeriod=42d (or more), or give --force to write "
        "what it keeps")
    p = store.Store("http://p:9090", "prometheus", 15 * DAY, "--storage.tsdb.retention.time=15d", 5400)
    assert p.keeps(NOW - 40 * DAY, now=NOW) == (
        "the history starts 40 days ago but http://p:9090 keeps --storage.tsdb.retention.time=15d: its older samples "
        "would be dropped without an error. Restart the store with --storage.tsdb.retention.time=42d (or more), or "
        "give --force to write what it keeps")
    p = store.Store("http://p:9090", "prometheus", 3650 * DAY, "x", 5400)
    assert p.keeps(NOW - 2 * DAY, now=NOW) == (
        "the history starts 2 days ago but Prometheus takes samples older than its head block over remote write "
        "only within storage.tsdb.out_of_order_time_window: set it to 4d in its configuration file (storage: tsdb: "
        "out_of_order_time_window) and reload, or import with --tsdb DIR (blocks) instead")


def test_an_empty_retention_flag_is_prometheus_default(stub):
    Stub.routes = prometheus({"web.enable-remote-write-receiver": "true", "storage.tsdb.retention.time": ""})
    assert store.connect(stub).retention == 15 * DAY


def test_a_request_of_two_series_is_both_series_requests_together():
    a, b = ({"__name__": "m", "k": "a"}, [(1.0, 1000)]), ({"__name__": "m", "k": "b"}, [(2.0, 2000), (3.0, 3000)])
    assert store.write_request([a, b]) == store.write_request([a]) + store.write_request([b])   # a repeated field
    assert len(store.write_request([a, b])) > len(store.write_request([b]))


def test_every_byte_of_a_long_block_is_framed_once():
    data = bytes(range(256)) * 300                                     # 76,800 bytes: 65,536 then 11,264
    framed = store.snappy_literals(data)
    second = 3 + 3 + 65536
    assert framed[second] == 61 << 2 and framed[second + 1:second + 3] == (11263).to_bytes(2, "little")
    assert framed[second + 3:] == data[65536:] and len(framed) == second + 3 + 11264


def test_a_long_error_body_is_cut_at_500_bytes(stub, tmp_path):
    (tmp_path / "h.om").write_text('m{a="b"} 1 1.000\n')
    Stub.routes = {"/api/v1/import/prometheus": (400, b"e" * 499 + b"XY" + b"z" * 99)}
    with pytest.raises(store.StoreError) as e:
        store.write(store.Store(stub, "victoriametrics", None, ""), str(tmp_path / "h.om"))
    assert str(e.value) == f"{stub}/api/v1/import/prometheus: HTTP 400: " + "e" * 499 + "X"


def test_a_store_that_cannot_be_reached_is_named_without_its_trailing_slash(monkeypatch):
    def unreachable(url, timeout=30.0):
        raise OSError("connection refused")
    monkeypatch.setattr(store, "_get", unreachable)
    with pytest.raises(store.StoreError) as e:
        store.connect("http://VMX/")                         # an upper-case host name, as AIX shops name them
    assert str(e.value) == "http://VMX: cannot reach the store: connection refused"



@pytest.mark.parametrize("answer, why", [
    (b"[" * 100000 + b"]" * 100000, "JSON nested too deep: not the answer of a store's API"),
    (b'[{"data": 1}]', "not the answer of a store's API (a JSON list)"),
    (b"not json", "Expecting value: line 1 column 1 (char 0)"),
])
def test_a_malformed_or_nested_answer_is_one_line(monkeypatch, answer, why):
    monkeypatch.setattr(store, "_get", lambda url, timeout=30.0: answer)
    with pytest.raises(store.StoreError) as e:
        store._json("http://s/api/v1/status/flags")
    assert str(e.value) == why
