"""aix-exporter report --census: every LPAR of the fleet ranked by its large-page state and its
contention signature, from the recording rules, as the fleet-census dashboard shows it
(dashboards/src/aix-fleet-census.jsonnet reads the same columns; a test keeps them equal).

State (aix:census_regime:code, its last value in the hour before the end of the window): 5 down after ANR0358E
(no monitored process runs and the server logged ANR0358E within censusFailedWindow), 4 mandatory large pages at risk
(LARGE_PAGE_DATA=M and fewer free 16 MB pages than one heap segment), 3 falling back (=Y and no free
16 MB page: the heap grows in its data page size, 4 KB or 64 KB), 2 on 16 MB pages, 1 on 64 KB pages
(IBM's Storage Protect start line, DATAPSIZE=64K), 0 on 4 KB pages. Contention: system per
user CPU, the pin_seg_range miss ratio and its lock misses per second averaged over the window;
tape MiB/s likewise.
Worst first: state, then system per user CPU, then the miss ratio. ASO: whether the Active System
Optimizer is active (aix_aso_active), since it can take 16 MB pages from the pool on its own.
TSM health (aix:tsm_health:code): the worst of the TSM checklist's alert conditions now (critical,
warning, ok; critical too when no checklist query answers; n/a on an LPAR without the checklist).
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Optional

from ..monitoring import SELECTOR
from .compare import Prometheus

STATES = {5: "down after ANR0358E", 4: "mandatory at risk", 3: "falling back (pool full)", 2: "16 MB pages",
          1: "64 KB pages", 0: "4 KB pages"}

ASO = {1: "active", 0: "inactive"}

# aix:tsm_health:code: the worst of the TSM checklist's alert conditions now (alerts/alerts.libsonnet)
TSM_HEALTH = {2: "critical", 1: "warning", 0: "ok"}


def named(expr: str, label: str, names: dict) -> str:
    """``expr`` (a code per LPAR) with the code's name as ``label``, highest code first: one
    selection per code, since PromQL cannot turn a value into a label. A table then shows the
    name in its own column, in Grafana and in Perses alike; the value stays the code."""
    return f"max by (instance, job, {label}) (" + " or ".join(
        f'label_replace(({expr}) == {code}, "{label}", "{name}", "", "")'
        for code, name in sorted(names.items(), reverse=True)) + ")"


# column -> expression; SEL: the selector, RANGE: the window (the dashboard's $__range)
COLUMNS = {
    "state": named("last_over_time(aix:census_regime:code{SEL}[1h])", "state", STATES),
    "sys_per_user": "avg by (instance, job) (avg_over_time(aix:cpu_sys_per_user:ratio{SEL}[RANGE]))",
    "pin_miss": "avg by (instance, job) (avg_over_time(aix:pin_lock_miss:ratio{SEL}[RANGE]))",
    "pin_misses_s": "avg by (instance, job) (avg_over_time(aix:pin_lock_misses:rate{SEL}[RANGE]))",
    "tape_mib_s": "sum by (instance, job) (avg_over_time(aix:tape_bytes_all:rate5m{SEL}[RANGE])) / 1048576",
    "aso_active": named("last_over_time(aix_aso_active{SEL}[1h])", "aso", ASO),
    "tsm_health": named("last_over_time(aix:tsm_health:code{SEL}[1h])", "tsm", TSM_HEALTH),
}


def column(name: str, selector: str, window: str) -> str:
    return COLUMNS[name].replace("SEL", selector).replace("RANGE", window)


@dataclass
class Lpar:
    instance: str
    job: str
    state: Optional[float] = None
    sys_per_user: Optional[float] = None
    pin_miss: Optional[float] = None
    pin_misses_s: Optional[float] = None
    tape_mib_s: Optional[float] = None
    aso_active: Optional[float] = None         # asoo aso_active (1: ASO may take 16 MB pages on its own)
    tsm_health: Optional[float] = None         # aix:tsm_health:code (2 critical, 1 warning, 0 ok)

    @property
    def tsm_text(self) -> str:
        return "n/a" if self.tsm_health is None else TSM_HEALTH.get(int(self.tsm_health), str(self.tsm_health))

    @property
    def aso_text(self) -> str:
        return "n/a" if self.aso_active is None else ASO[int(bool(self.aso_active))]

    @property
    def state_text(self) -> str:
        return "n/a" if self.state is None else STATES.get(int(self.state), str(self.state))

    def rank(self) -> tuple:
        """Worst first: higher state, then more system per user CPU, then more misses (no data last)."""
        def down(v):
            return (v is None, -(v or 0.0))
        return (down(self.state), down(self.sys_per_user), down(self.pin_miss), self.instance)


def census(prom: Prometheus, at: float, window_seconds: int, selector: str = SELECTOR) -> list:
    """The fleet's LPARs, worst first."""
    lpars: dict = {}
    for name in COLUMNS:
        for r in prom.instant(column(name, selector, f"{window_seconds}s"), at):
            key = (r["metric"].get("instance", ""), r["metric"].get("job", ""))
            lpar = lpars.setdefault(key, Lpar(*key))
            setattr(lpar, name, r["value"])
    return sorted(lpars.values(), key=Lpar.rank)


def fmt(v: Optional[float], digits: int) -> str:
    return "n/a" if v is None else f"{v:,.{digits}f}"


def markdown(rows: list, when: str, window: str) -> str:
    counts = {text: sum(1 for r in rows if r.state_text == text) for text in STATES.values()}
    lines = [f"# Fleet census: {len(rows)} LPARs", "",
             f"State at {when}; contention and tape averaged over the {window} before it. Worst first.", "",
             "By state: " + ", ".join(f"{text} {n}" for text, n in counts.items()), "",
             "| LPAR | job | state | system / user CPU | pin_seg_range miss ratio | pin lock misses/s | tape MiB/s | ASO "
             "| TSM health |",
             "|---|---|---|---:|---:|---:|---:|---|---|"]
    for r in rows:
        lines.append(f"| {r.instance} | {r.job} | {r.state_text} | {fmt(r.sys_per_user, 2)} | "
                     f"{fmt(r.pin_miss, 4)} | {fmt(r.pin_misses_s, 0)} | {fmt(r.tape_mib_s, 1)} | {r.aso_text} | "
                     f"{r.tsm_text} |")
    return "\n".join(lines) + "\n"


def csv_text(rows: list) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["instance", "job", "state", "state_code", "sys_per_user", "pin_miss", "pin_misses_s", "tape_mib_s",
                "aso_active", "tsm_health"])
    for r in rows:
        w.writerow([r.instance, r.job, r.state_text] + ["" if v is None else v for v in
                                                         (r.state, r.sys_per_user, r.pin_miss, r.pin_misses_s,
                                                          r.tape_mib_s, r.aso_active, r.tsm_health)])
    return buf.getvalue()
