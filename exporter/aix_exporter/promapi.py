"""The one client of the Prometheus (and VictoriaMetrics) HTTP API: the report, the plan, the
census, the store writer's count-back, the tests and the benches ask through it. Every call
has a deadline over the whole answer and a cap on its size (httpclient.request); whatever goes
wrong is a QueryError of one line naming the server (without its user:password@)."""
from __future__ import annotations

import json
import math
import urllib.parse
from typing import Optional

from . import httpclient
from .errors import CommandError


class QueryError(CommandError, RuntimeError):
    """One line for the user: which server, and what it answered or why it did not."""


def _server_error(body: bytes) -> str:
    """The error text Prometheus (or VictoriaMetrics) put in an HTTP error's JSON body, else
    the start of the body: the server's own reason, not only 'HTTP Error 400'."""
    raw = body[:4096].decode("utf-8", "replace")
    try:
        return str(json.loads(raw).get("error") or raw).strip()
    except (ValueError, AttributeError, RecursionError):
        return " ".join(raw.split())[:300]


class Prometheus:
    # Prometheus refuses a range query of more than 11,000 points per series; longer ranges
    # are asked for in pieces of at most this many points and joined
    MAX_POINTS = 10000

    def __init__(self, url: str, timeout: float = 60.0):
        # a user:password@ in the URL goes as an Authorization header (httpclient) and is never shown
        self.endpoint, self.timeout = url.rstrip("/"), timeout
        self.url = httpclient.shown(self.endpoint)

    MAX_BODY = 256 << 20   # bytes of one answer; a report's largest range answer is a few MB

    def _get(self, path: str, params: dict, key: Optional[str] = "result") -> list:
        """The result list of one API call, within ``timeout`` seconds overall (a server that
        drips its answer is cut off too) and MAX_BODY bytes; anything else is a QueryError of
        one line (httpclient.request)."""
        q = urllib.parse.urlencode(params)
        try:
            raw = httpclient.request(f"{self.endpoint}{path}?{q}", timeout=self.timeout, max_bytes=self.MAX_BODY)
        except httpclient.HTTPClientError as e:
            if e.status is not None:
                reason = _server_error(e.body)
                hint = ("; is this Prometheus or VictoriaMetrics? (an exporter's port answers 404 here: the demo's "
                        "Prometheus is http://127.0.0.1:19090)") if e.status == 404 else ""
                raise QueryError(f"{self.url}: HTTP {e.status}" + (f": {reason}" if reason else
                                                                    f" {e.reason.split(' ', 2)[-1]}") + hint) from None
            if e.reason.startswith("the answer is larger"):
                raise QueryError(f"{self.url}: {e.reason}; narrow the window or the step") from None
            raise QueryError(f"{self.url}: {e.reason}") from None
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):   # (JSON nested thousands deep: RecursionError)
            start = " ".join(raw[:120].decode("utf-8", "replace").split())
            raise QueryError(f"{self.url}: not a Prometheus API answer (not JSON): {start!r}") from None
        if not isinstance(body, dict) or body.get("status") != "success":
            why = body.get("error", body) if isinstance(body, dict) else body
            raise QueryError(f"{self.url}: {' '.join(str(why).split())[:300]}")
        if key is None:   # data is the list itself (label values)
            data = body.get("data")
            if not isinstance(data, list):
                raise QueryError(f"{self.url}: not a Prometheus API answer (no data list)")
            return data
        result = (body.get("data") or {}).get(key) if isinstance(body.get("data"), dict) else None
        if not isinstance(result, list) or not all(isinstance(x, dict) for x in result):
            raise QueryError(f"{self.url}: not a Prometheus API answer (no data.result list)")
        return result

    def _value(self, sample: dict) -> Optional[float]:
        """The value of an instant-query sample; None for NaN and infinities."""
        try:
            v = float(sample["value"][1])
        except (KeyError, IndexError, TypeError, ValueError):
            raise QueryError(f"{self.url}: not a Prometheus API answer (a sample without a value)") from None
        return None if math.isnan(v) or math.isinf(v) else v

    def scalar(self, expr: str, at: float) -> Optional[float]:
        res = self._get("/api/v1/query", {"query": expr, "time": f"{at:.3f}"})
        return self._value(res[0]) if res else None

    def instant(self, expr: str, at: float) -> list:
        """[{"metric": labels, "value": float}] of an instant query; NaN and infinities left out."""
        out = []
        for r in self._get("/api/v1/query", {"query": expr, "time": f"{at:.3f}"}):
            v = self._value(r)
            if v is not None:
                out.append({"metric": r.get("metric") or {}, "value": v})
        return out

    def sample_times(self, expr: str, length: int, at: float) -> list:
        """The times of the raw samples of ``expr`` (a series selector) in the ``length``
        seconds up to ``at``, of all its series together, sorted."""
        res = self._get("/api/v1/query", {"query": f"{expr}[{length}s] @ {at:.0f}", "time": f"{at:.3f}"})
        times: set = set()
        for r in res:
            values = r.get("values")
            if not isinstance(values, list):
                raise QueryError(f"{self.url}: not a Prometheus API answer (a range vector without values)")
            try:
                times.update(float(v[0]) for v in values)
            except (TypeError, ValueError, IndexError):
                raise QueryError(f"{self.url}: not a Prometheus API answer (a sample without a time)") from None
        return sorted(times)

    def range(self, expr: str, start: float, end: float, step: int) -> list:
        """A range query at ``step`` seconds over any length: in pieces of at most MAX_POINTS
        points, the series of each piece joined by their labels."""
        series: dict = {}
        a = float(start)
        while True:
            b = min(float(end), a + step * (self.MAX_POINTS - 1))
            piece = self._get("/api/v1/query_range", {"query": expr, "start": f"{a:.0f}", "end": f"{b:.0f}",
                                                      "step": str(step)})
            for r in piece:
                if not isinstance(r.get("metric"), dict) or not isinstance(r.get("values"), list):
                    raise QueryError(f"{self.url}: not a Prometheus API answer (a series without metric and values)")
                key = tuple(sorted(r["metric"].items()))
                series.setdefault(key, {"metric": r["metric"], "values": []})["values"] += r["values"]
            if b >= end:
                break
            a = b + step
        return list(series.values())

    def result(self, expr: str, at: Optional[float] = None) -> list:
        """The raw result list of an instant query (each sample's value as the API gives it)."""
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        return self._get("/api/v1/query", params)

    def label_values(self, label: str, match: str, start: float, end: float) -> list:
        """The values of ``label`` on the series ``match`` selects between start and end."""
        return self._get(f"/api/v1/label/{urllib.parse.quote(label)}/values",
                         {"match[]": match, "start": f"{start:.0f}", "end": f"{end:.0f}"}, key=None)
