"""import --store URL: write an imported history into a running store, without silent loss.

Two stores are known, found by asking the URL:

* **VictoriaMetrics** (its /metrics has ``vm_app_version``): written through its
  Prometheus-text import API (``/api/v1/import/prometheus``, timestamps in milliseconds).
  Its retention is ``-retentionPeriod`` (read from its ``flag`` metric; months without a
  unit): older rows are answered 204 and dropped, counted only in
  ``vm_rows_ignored_total{reason="small_timestamp"}``.
* **Prometheus** with ``--web.enable-remote-write-receiver`` (its ``/api/v1/status/flags``):
  written with remote write (protobuf, snappy framing with literals only, both written here:
  the format is small and fixed, and the exporter takes no compiled dependency for it). It
  keeps ``--storage.tsdb.retention.time``, and takes samples older than its head block only
  within ``storage.tsdb.out_of_order_time_window`` (its configuration file).

Before writing, the history's age is checked against what the store keeps: an import the
store would drop is refused with the setting to change (or written anyway with --force).
After writing, the samples are counted back per imported instance with ``count_over_time``.
"""
from __future__ import annotations

import json
import re
import struct
import time
from dataclasses import dataclass
from typing import Iterator, Optional

from .. import httpclient
from ..durations import DAY, DurationError, seconds
from ..errors import CommandError

BATCH_SAMPLES = 20000        # samples a request
TIMEOUT = 50.0               # seconds a request, the whole of it (a store that drips its answer is cut off)
MAX_ANSWER = 64 << 20        # bytes of one answer: the store's largest is its label values
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


class StoreError(CommandError, RuntimeError):
    """A store that cannot take the history, or did not keep it: one line for the user."""


def duration(text: str, default_unit: str = "s") -> Optional[float]:
    """Seconds of a Prometheus/VictoriaMetrics duration flag ('15d', '1y2d', '30d12h'; a bare
    number only where the store reads one, in ``default_unit``); None for 0 (no limit)."""
    try:
        value = seconds(text, default_unit)
    except DurationError:
        raise StoreError(f"cannot read the duration {text.strip()!r}") from None
    return value or None


def _get(url: str, timeout: float = 30.0) -> bytes:
    """One GET within ``timeout`` seconds in all and MAX_ANSWER bytes (httpclient.request)."""
    return httpclient.request(url, timeout=timeout, max_bytes=MAX_ANSWER)


def _json(url: str, timeout: float = 30.0) -> dict:
    """A JSON object answer; StoreError for one that is not (nested garbage included), one line."""
    raw = _get(url, timeout)
    try:
        body = json.loads(raw)
    except ValueError as e:
        raise StoreError(str(e)) from None
    except RecursionError:   # JSON nested thousands deep: no store answers so
        raise StoreError("JSON nested too deep: not the answer of a store's API") from None
    if not isinstance(body, dict):
        raise StoreError(f"not the answer of a store's API (a JSON {type(body).__name__})")
    return body


@dataclass
class Store:
    url: str
    kind: str                          # "victoriametrics" or "prometheus"
    retention: Optional[float]         # seconds kept; None: no limit
    retention_flag: str                # the setting that says so, as typed
    old_limit: Optional[float] = None  # Prometheus: seconds back it takes over remote write

    def keeps(self, oldest: float, now: Optional[float] = None) -> Optional[str]:
        """None when the store keeps samples as old as ``oldest``; else why not, with the fix."""
        age = (now or time.time()) - oldest
        days = int(age // DAY) + 2
        if self.retention is not None and age > self.retention - 3600:
            fix = (f"-retentionPeriod={days}d" if self.kind == "victoriametrics"
                   else f"--storage.tsdb.retention.time={days}d")
            return (f"the history starts {days - 2} days ago but {httpclient.shown(self.url)} keeps {self.retention_flag}: its older "
                    f"samples would be dropped without an error. Restart the store with {fix} (or more), or give "
                    "--force to write what it keeps")
        if self.kind == "prometheus" and self.old_limit is not None and age > self.old_limit:
            return (f"the history starts {days - 2} days ago but Prometheus takes samples older than its head block "
                    f"over remote write only within storage.tsdb.out_of_order_time_window: set it to {days}d in "
                    "its configuration file (storage: tsdb: out_of_order_time_window) and reload, or import with "
                    "--tsdb DIR (blocks) instead")
        return None


def connect(url: str) -> Store:
    """The store at ``url``: which one, and how far back it keeps samples. A ``user:password@``
    in the URL goes as an Authorization header; messages show the URL without it."""
    url = url.rstrip("/")
    shown = httpclient.shown(url)
    try:
        metrics = _get(f"{url}/metrics").decode("utf-8", "replace")
    except (httpclient.HTTPClientError, OSError) as e:
        raise StoreError(f"{shown}: cannot reach the store: {getattr(e, 'reason', None) or e}") from None
    if "vm_app_version" in metrics:
        m = re.search(r'^flag\{name="retentionPeriod", ?(?:is_set="[^"]*", ?)?value="([^"]*)"', metrics, re.M)
        flag = m.group(1) if m else "1"
        return Store(url, "victoriametrics", duration(flag, "month"), f"-retentionPeriod={flag}")
    try:
        flags = _json(f"{url}/api/v1/status/flags")["data"]
        if not isinstance(flags, dict):
            raise TypeError("data is not a mapping")
    except (httpclient.HTTPClientError, StoreError, KeyError, TypeError) as e:
        raise StoreError(f"{shown}: neither VictoriaMetrics nor Prometheus ({getattr(e, 'reason', None) or e})") from None
    if flags.get("web.enable-remote-write-receiver") != "true":
        raise StoreError(f"{shown}: Prometheus takes remote write only with --web.enable-remote-write-receiver; "
                         "start it so, or import with --tsdb DIR (blocks)")
    flag = flags.get("storage.tsdb.retention.time", "0s")
    retention = duration(flag) if flag not in ("0s", "") else 15 * DAY     # 0s: Prometheus' default, 15 days
    try:
        config = _json(f"{url}/api/v1/status/config")["data"]["yaml"]
        m = re.search(r"out_of_order_time_window:\s*(\S+)", config)
        ooo = duration(m.group(1)) if m else None
    except (httpclient.HTTPClientError, StoreError, KeyError, TypeError):
        ooo = None
    # the head block takes about the last 1.5 h in order; older only within the out-of-order window
    return Store(url, "prometheus", retention, f"--storage.tsdb.retention.time={flag}", (ooo or 0) + 5400)


def samples(om_path: str) -> Iterator[tuple]:
    """(series text, {labels}, value, timestamp in ms) of each sample line of an OpenMetrics file."""
    with open(om_path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip() or line.startswith("#"):
                continue
            head, value, ts = line.rstrip("\n").rsplit(" ", 2)
            yield head, value, int(round(float(ts) * 1000))


def parse_series(head: str) -> dict:
    name, _, rest = head.partition("{")
    labels = {"__name__": name}
    for k, v in _LABEL.findall(rest):
        labels[k] = v.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
    return labels


# --- remote write: a WriteRequest in protobuf, framed as a snappy block of literals ---------

def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:       # a length-delimited field
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def write_request(series: list) -> bytes:
    """prometheus.WriteRequest{timeseries: [{labels, samples}]} of [(labels dict, [(value, ms)])]."""
    out = bytearray()
    for labels, points in series:
        ts = bytearray()
        for k in sorted(labels):
            ts += _field(1, _field(1, k.encode()) + _field(2, labels[k].encode()))
        for value, ms in points:
            ts += _field(2, b"\x09" + struct.pack("<d", value) + b"\x10" + _varint(ms))
        out += _field(1, bytes(ts))
    return bytes(out)


def snappy_literals(data: bytes) -> bytes:
    """A valid snappy block (the format remote write requires) holding ``data`` as literals."""
    out = bytearray(_varint(len(data)))
    for i in range(0, len(data), 65536):
        chunk = data[i:i + 65536]
        n = len(chunk) - 1
        if n < 60:
            out.append(n << 2)
        elif n < 256:
            out += bytes([60 << 2, n])
        else:
            out += bytes([61 << 2]) + struct.pack("<H", n)
        out += chunk
    return bytes(out)


def _post(url: str, body: bytes, headers: dict) -> None:
    try:
        httpclient.request(url, data=body, headers=headers, method="POST", timeout=TIMEOUT, max_bytes=MAX_ANSWER)
    except httpclient.HTTPClientError as e:
        text = e.body[:500].decode("utf-8", "replace").strip()
        raise StoreError(f"{e.url}: HTTP {e.status}: {text}" if e.status and text else str(e)) from None


def _batches(om_path: str) -> Iterator[list]:
    """The samples of an OpenMetrics file in lists of up to BATCH_SAMPLES."""
    batch: list = []
    for sample in samples(om_path):
        batch.append(sample)
        if len(batch) >= BATCH_SAMPLES:
            yield batch
            batch = []
    if batch:
        yield batch


def _series(batch: list) -> list:
    """[(labels, [(value, ms)])] of a batch: a series' samples stand together in our files."""
    out: list = []
    last = None
    for head, value, ms in batch:
        if head != last:
            out.append((parse_series(head), []))
            last = head
        out[-1][1].append((float(value), ms))
    return out


def write(store: Store, om_path: str) -> int:
    """Write every sample of the OpenMetrics history; return how many."""
    written = 0
    for batch in _batches(om_path):
        if store.kind == "victoriametrics":
            _post(f"{store.url}/api/v1/import/prometheus",
                  "".join(f"{head} {value} {ms}\n" for head, value, ms in batch).encode(), {"Content-Type": "text/plain"})
        else:
            _post(f"{store.url}/api/v1/write", snappy_literals(write_request(_series(batch))),
                  {"Content-Encoding": "snappy", "Content-Type": "application/x-protobuf",
                   "X-Prometheus-Remote-Write-Version": "0.1.0"})
        written += len(batch)
    if store.kind == "victoriametrics":
        try:   # make the rows searchable now (the read-back follows); a store may refuse it
            _get(f"{store.url}/internal/force_flush")
        except httpclient.HTTPClientError:
            pass
    return written


def count_back(store: Store, targets: list, first: float, last: float) -> int:
    """Samples the store holds for the imported instances between ``first`` and ``last``:
    count_over_time per metric name (a selector of every name would give one label set
    many times once the name is dropped)."""
    from ..promapi import Prometheus
    prom = Prometheus(store.url, timeout=TIMEOUT)
    total = 0
    length = int(last - first) + 60
    for target in targets:
        sel = ",".join(f'{k}="{v}"' for k, v in sorted(target.items()))
        try:
            for name in prom.label_values("__name__", f"{{{sel}}}", first - 60, last + 60):
                total += int(prom.scalar(f"sum(count_over_time({name}{{{sel}}}[{length}s]))", last + 1) or 0)
        except (CommandError, ValueError, TypeError) as e:   # a QueryError: the store's answer or its silence
            raise StoreError(f"{httpclient.shown(store.url)}: cannot count the samples back: {e}") from None
    return total
