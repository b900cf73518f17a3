"""Before/after comparison of one LPAR from Prometheus: the windows, the key figures of each,
their ratios, and a verdict. Works the same on live exporter data and on imported nmon
history (the metric names are the same; figures a recording lacks are "n/a").

Windows are absolute (``--before FROM..TO --after FROM..TO``), or found from the data
(``--auto``): the last run of 4 KB regime (``aix:regime_16m:bool`` = 0) and the 16 MB run
that follows it, each trimmed by a margin so restarts and warm-up do not count.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..figures import FIGURES, SAME_BAND, Figure
from ..monitoring import SELECTOR, label_value, matchers

MIB = 1 << 20
GIB = 1 << 30


class ReportError(RuntimeError):
    pass

# time series plotted across both windows
SERIES = {
    "tape": ("Tape MiB/s (read + written)",
             "(sum(rate(aix_tape_read_bytes_total{{{sel}}}[5m])) + sum(rate(aix_tape_written_bytes_total{{{sel}}}[5m]))) / 1048576"),
    "cpu": ("CPU %: user and system",
            "avg by (mode) (aix_vmstat_cpu_ratio{{{sel},mode=~\"user|sys\"}}) * 100"),
    "pin_miss": ("pin_seg_range miss ratio",
                 "max(aix_splat_function_miss_ratio{{{sel},function=~\"\\\\.?pin_seg_range\"}})"),
    "pool": ("16 MB pages: configured, in use, free",
             "label_replace(aix:large_pages_configured:count{{{sel}}}, \"what\", \"configured\", \"\", \"\") "
             "or label_replace(sum by (instance) (aix_vmstat_large_pages_active{{{sel}}}), \"what\", \"in use\", \"\", \"\") "
             "or label_replace(sum by (instance) (aix_vmstat_large_pages_free{{{sel}}}), \"what\", \"free\", \"\", \"\")"),
}


def utc(t: float) -> str:
    """A Unix time as the report prints it: 2026-11-23 21:30 UTC."""
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


@dataclass
class Window:
    start: float
    end: float

    @property
    def seconds(self) -> int:
        return max(60, int(self.end - self.start))

    def label(self) -> str:
        return f"{utc(self.start)} .. {utc(self.end)}"


@dataclass
class FigureRow:
    figure: Figure
    before: Optional[float]
    after: Optional[float]

    @property
    def ratio(self) -> Optional[float]:
        if self.before is None or self.after is None:
            return None
        if self.before == 0:
            return None
        return self.after / self.before

    @property
    def ratio_text(self) -> str:
        if self.before is None or self.after is None:
            return "n/a"
        if self.before == 0:
            return "new" if self.after else "-"
        return f"{self.ratio:.2f}"

    @property
    def verdict(self) -> str:
        """better, worse or same (within the table's band, 5 %), by the figure's good direction."""
        r = self.ratio
        if not self.figure.better or r is None:
            return ""
        if abs(r - 1) < SAME_BAND:
            return "same"
        up = r > 1
        return "better" if up == (self.figure.better == "higher") else "worse"

    def fmt(self, v: Optional[float]) -> str:
        return "n/a" if v is None else f"{v:,.{self.figure.digits}f}"


@dataclass
class Comparison:
    instance: str
    before: Window
    after: Window
    rows: list
    change_at: Optional[float] = None          # end of the last 4 KB run (--auto)
    series: dict = field(default_factory=dict)  # key -> (title, [(label, [(t, v)])])

    def row(self, key: str) -> FigureRow:
        return next(r for r in self.rows if r.figure.key == key)

    def verdict(self) -> str:
        """A short verdict in words, from the rows that have a direction."""
        parts = []
        tape = self.row("tape")
        if tape.ratio is not None:
            parts.append(f"Tape throughput went from {tape.fmt(tape.before)} to {tape.fmt(tape.after)} MiB/s "
                         f"({tape.ratio:.2f}x).")
        user, sys_ = self.row("user"), self.row("sys")
        if user.ratio is not None and sys_.before is not None and sys_.after is not None:
            parts.append(f"User CPU {user.ratio:.1f}x; system CPU from {sys_.fmt(sys_.before)} % to "
                         f"{sys_.fmt(sys_.after)} %.")
        pin = self.row("pin_miss")
        if pin.before is not None and pin.after is not None:
            parts.append(f"The pin_seg_range lock missed {pin.before:.0%} of its acquisitions before and "
                         f"{pin.after:.1%} after.")
        better = [r.figure.title for r in self.rows if r.verdict == "better"]
        worse = [r.figure.title for r in self.rows if r.verdict == "worse"]
        if better and not worse:
            parts.append("Every figure with a direction improved: the change helped.")
        elif worse and not better:
            parts.append(f"Worse: {', '.join(worse)}. The change did not help.")
        elif better or worse:
            parts.append(f"Better: {', '.join(better)}. Worse: {', '.join(worse)}.")
        else:
            parts.append("No figure with a direction has data in both windows.")
        return " ".join(parts)


def _server_error(e: urllib.error.HTTPError) -> str:
    """The error text Prometheus (or VictoriaMetrics) put in an HTTP error's JSON body, else
    the start of the body: the server's own reason, not only 'HTTP Error 400'."""
    try:
        raw = e.read(4096).decode("utf-8", "replace")
    except Exception:   # the body is gone: the status line is all there is
        return ""
    try:
        return str(json.loads(raw).get("error") or raw).strip()
    except (ValueError, AttributeError):
        return " ".join(raw.split())[:300]


class Prometheus:
    # Prometheus refuses a range query of more than 11,000 points per series; longer ranges
    # are asked for in pieces of at most this many points and joined
    MAX_POINTS = 10000

    def __init__(self, url: str, timeout: float = 60.0):
        self.url, self.timeout = url.rstrip("/"), timeout

    MAX_BODY = 256 << 20   # bytes of one answer; a report's largest range answer is a few MB

    def _get(self, path: str, params: dict) -> list:
        """The result list of one API call, within ``timeout`` seconds overall (a server that
        drips its answer is cut off too) and MAX_BODY bytes; anything else is a ReportError of
        one line."""
        q = urllib.parse.urlencode(params)
        deadline = time.monotonic() + self.timeout
        chunks: list = []
        size = 0
        try:
            with urllib.request.urlopen(f"{self.url}{path}?{q}", timeout=self.timeout) as r:
                while True:
                    chunk = r.read1(65536) if hasattr(r, "read1") else r.read(65536)
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > self.MAX_BODY:
                        raise ReportError(f"{self.url}: the answer is larger than {self.MAX_BODY >> 20} MiB; "
                                          "narrow the window or the step")
                    if time.monotonic() > deadline:
                        raise ReportError(f"{self.url}: no complete answer within {self.timeout:g} s")
                    chunks.append(chunk)
        except ReportError:
            raise
        except urllib.error.HTTPError as e:
            reason = _server_error(e)
            raise ReportError(f"{self.url}: HTTP {e.code}" + (f": {reason}" if reason else f" {e.reason}")) from None
        except Exception as e:   # urllib's many errors: one line for the user
            raise ReportError(f"{self.url}: {type(e).__name__}: {e}") from None
        raw = b"".join(chunks)
        try:
            body = json.loads(raw)
        except ValueError:
            start = " ".join(raw[:120].decode("utf-8", "replace").split())
            raise ReportError(f"{self.url}: not a Prometheus API answer (not JSON): {start!r}") from None
        if not isinstance(body, dict) or body.get("status") != "success":
            why = body.get("error", body) if isinstance(body, dict) else body
            raise ReportError(f"{self.url}: {' '.join(str(why).split())[:300]}")
        result = (body.get("data") or {}).get("result") if isinstance(body.get("data"), dict) else None
        if not isinstance(result, list) or not all(isinstance(x, dict) for x in result):
            raise ReportError(f"{self.url}: not a Prometheus API answer (no data.result list)")
        return result

    def scalar(self, expr: str, at: float) -> Optional[float]:
        res = self._get("/api/v1/query", {"query": expr, "time": f"{at:.3f}"})
        if not res:
            return None
        try:
            v = float(res[0]["value"][1])
        except (KeyError, IndexError, TypeError, ValueError):
            raise ReportError(f"{self.url}: not a Prometheus API answer (a sample without a value)") from None
        return None if math.isnan(v) or math.isinf(v) else v

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
                    raise ReportError(f"{self.url}: not a Prometheus API answer (a series without metric and values)")
                key = tuple(sorted(r["metric"].items()))
                series.setdefault(key, {"metric": r["metric"], "values": []})["values"] += r["values"]
            if b >= end:
                break
            a = b + step
        return list(series.values())


def selector(instance: str, base: str = SELECTOR) -> str:
    """The series of one LPAR: the mixin's selector (monitoring.json, or --selector) and its instance."""
    return matchers(base, f"instance={label_value(instance)}")


def find_regimes(prom: Prometheus, instance: str, start: float, end: float, margin: float = 600.0,
                 base: str = SELECTOR) -> tuple:
    """(before, after, change_at) from aix:regime_16m:bool: the last 4 KB run before the
    last 16 MB run. ``margin`` seconds are cut from both runs' edges (restart, warm-up)."""
    step = 60
    res = prom.range(f"aix:regime_16m:bool{{{selector(instance, base)}}}", start, end, step)
    if not res:
        raise ReportError(f"no aix:regime_16m:bool for instance {instance!r} between the given times: are the "
                          "recording rules loaded and backfilled?")
    points = sorted((float(t), float(v)) for t, v in res[0]["values"])
    runs: list = []   # [regime, first t, last t]: a regime lasts until another one is seen (gaps in the
    for t, v in points:   # data, such as hourly nmon snapshots or a restart, do not end it)
        if runs and runs[-1][0] == v:
            runs[-1][2] = t
        else:
            runs.append([v, t, t])
    last16 = max((i for i, r in enumerate(runs) if r[0] == 1), default=None)
    last4 = max((i for i, r in enumerate(runs[:last16] if last16 is not None else []) if r[0] == 0), default=None)
    if last16 is None or last4 is None:
        raise ReportError(f"no change from 4 KB to 16 MB pages found for {instance!r}; give --before and --after")
    b, a = runs[last4], runs[last16]
    before = Window(b[1] + margin, b[2] - margin) if b[2] - b[1] > 3 * margin else Window(b[1], b[2])
    after = Window(a[1] + margin, a[2] - margin) if a[2] - a[1] > 3 * margin else Window(a[1], a[2])
    return before, after, b[2]


def compare(prom: Prometheus, instance: str, before: Window, after: Window, change_at: Optional[float] = None,
            progress: Optional[Callable] = None, plots: bool = True, base: str = SELECTOR) -> Comparison:
    sel = selector(instance, base)
    rows = []
    for i, fig in enumerate(FIGURES, 1):
        vals = []
        for w in (before, after):
            expr = fig.window(sel, f"{w.seconds}s", f" @ {w.end:.0f}")
            vals.append(prom.scalar(expr, w.end))
        rows.append(FigureRow(fig, *vals))
        if progress:
            progress(f"figure {i}/{len(FIGURES)}: {fig.title}")
    cmp = Comparison(instance, before, after, rows, change_at)
    if plots:
        start, end = min(before.start, after.start), max(before.end, after.end)
        step = max(60, int((end - start) / 400))
        for key, (title, expr) in SERIES.items():
            res = prom.range(expr.format(sel=sel), start, end, step)
            lines = []
            for r in res:
                label = r["metric"].get("mode") or r["metric"].get("what") or key
                lines.append((label, [(float(t), float(v)) for t, v in r["values"]]))
            cmp.series[key] = (title, lines)
            if progress:
                progress(f"series: {title}")
    return cmp


def parse_time(s: str) -> float:
    """An ISO date-time (UTC unless it names a zone) or a Unix time."""
    s = s.strip()
    try:
        return float(s)
    except ValueError:
        pass
    try:
        d = dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        raise ReportError(f"{s!r}: not a date-time (2026-11-20T08:00, 2026-11-20 08:00+01:00) "
                          "or a Unix time") from None
    if d.tzinfo is None:
        d = d.replace(tzinfo=dt.timezone.utc)
    return d.timestamp()


def parse_window(text: str) -> Window:
    """'FROM..TO' with each end an ISO date-time (UTC unless it names a zone) or a Unix time."""
    if ".." not in text:
        raise ReportError(f"window {text!r}: expected FROM..TO")
    a, b = text.split("..", 1)
    w = Window(parse_time(a), parse_time(b))
    if w.end <= w.start:
        raise ReportError(f"window {text!r}: its end is not after its start")
    return w
