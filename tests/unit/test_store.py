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
