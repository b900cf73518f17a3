"""Before/after comparison of one LPAR from Prometheus: the windows, the key figures of each,
their ratios, and a verdict. Works the same on live exporter data and on imported nmon
history (the metric names are the same; figures a recording lacks are "n/a").

Windows are absolute (``--before FROM..TO --after FROM..TO``), or found from the data
(``--auto``): the last change of page-size regime (``aix:regime_page_size:bytes``: 4 KB, 64 KB or
16 MB pages), the run before it and the run after it, each trimmed by a margin so restarts and
warm-up do not count.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..promapi import Prometheus, QueryError
from . import comparability
from .comparability import Comparability, and_list
from ..figures import FIGURES, SAME_BAND, Figure
from ..monitoring import CONFIG, SELECTOR, label_value, matchers


# the report's errors and its query client's are one type: a line for the user
ReportError = QueryError

# the parts whose figures a tape confounder (report/comparability.py) explains
TAPE_PARTS = ("tape_bytes", "tape_transfers")

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


def zone(name: Optional[str]) -> Optional[dt.tzinfo]:
    """The time zone a report shows and reads times in: an IANA name (Europe/Berlin, UTC), or
    None for the machine's local zone."""
    if not name or name == "local":
        return None
    if name.upper() == "UTC":
        return dt.timezone.utc
    try:
        from zoneinfo import ZoneInfo
        return ZoneInfo(name)
    except (ImportError, ValueError, KeyError, OSError):
        raise ReportError(f"--tz {name!r}: not a time zone name (Europe/Berlin, America/Chicago, UTC)") from None


def when(t: float, tz: Optional[dt.tzinfo] = None) -> dt.datetime:
    """A Unix time in ``tz`` (None: the machine's local zone, its daylight saving included)."""
    return dt.datetime.fromtimestamp(t, tz) if tz is not None else dt.datetime.fromtimestamp(t).astimezone()


def stamp(t: float, tz: Optional[dt.tzinfo] = None) -> str:
    """A Unix time as the report prints it: 2026-11-23 21:30 CET."""
    return when(t, tz).strftime("%Y-%m-%d %H:%M %Z")


def utc(t: float) -> str:
    """A Unix time in UTC: 2026-11-23 21:30 UTC."""
    return stamp(t, dt.timezone.utc)


@dataclass
class Window:
    start: float
    end: float

    @property
    def seconds(self) -> int:
        return max(60, int(self.end - self.start))

    def label(self, tz: Optional[dt.tzinfo] = dt.timezone.utc) -> str:
        return f"{stamp(self.start, tz)} .. {stamp(self.end, tz)}"


@dataclass
class Check:
    """One part of a figure over one window: how much of it is usable, and why not all."""
    usable: Optional[float] = None    # share of the window with samples and a working collector; None: no samples
    problems: list = field(default_factory=list)   # reasons the window cannot be judged


@dataclass
class FigureRow:
    figure: Figure
    before: Optional[float]
    after: Optional[float]
    checks: tuple = (Check(), Check())   # (before, after), the figure's parts combined

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
    def problems(self) -> list:
        """Why the data cannot support a judgement of this figure: 'before: ...', 'after: ...'."""
        return [f"{name}: {p}" for name, c in zip(("before", "after"), self.checks) for p in c.problems]

    @property
    def judged(self) -> bool:
        """A deciding figure with data in both windows and nothing that makes either unusable."""
        return self.figure.decides and self.ratio is not None and not self.problems

    @property
    def verdict(self) -> str:
        """better, worse or same (within the table's band, 5 %) for a judged deciding figure;
        'not judged' when its data cannot support it; 'no data' when a window has none of it (nmon
        history: tape, pin-lock misses); '' for figures that do not decide."""
        if not self.figure.decides:
            return ""
        if self.problems:
            return "not judged"
        r = self.ratio
        if r is None:   # (a deciding figure the windows have no data for: the verdict names it too)
            return "no data" if self.before is None or self.after is None else ""
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
    change_at: Optional[float] = None          # end of the run before the change (--auto)
    regimes: tuple = ()                        # (before, after) page-size regimes, e.g. ("64 KB", "16 MB") (--auto)
    series: dict = field(default_factory=dict)  # key -> (title, [(label, [(t, v)])])
    tz: Optional[dt.tzinfo] = dt.timezone.utc  # the zone times are shown in (None: local)
    title: str = ""                            # --title, e.g. the change ticket
    note: str = ""                             # --note
    comparability: Optional[Comparability] = None   # the windows' tape confounders (issue 60)

    def at(self, t: float) -> str:
        return stamp(t, self.tz)

    @property
    def heading(self) -> str:
        """--title, else the LPAR and, with --auto, the two regimes compared."""
        if self.title:
            return self.title
        return f"Before/after: {self.instance}" + (f", {self.regimes[0]} to {self.regimes[1]} pages"
                                                   if self.regimes else "")

    @property
    def change_text(self) -> str:
        """What change_at is: the end of the run before the change."""
        return f"end of the last {self.regimes[0]} run" if self.regimes else "end of the run before the change"

    def window(self, w: Window) -> str:
        return w.label(self.tz)

    @property
    def zone_name(self) -> str:
        """The zone's name as the user gave it, else its abbreviation now (local: the machine's)."""
        return str(getattr(self.tz, "key", "") or when(self.after.end, self.tz).strftime("%Z"))

    def row(self, key: str) -> FigureRow:
        return next(r for r in self.rows if r.figure.key == key)

    def usable(self, k: int) -> Optional[float]:
        """The share of window k (0 before, 1 after) that the deciding figures can use: the
        least of theirs; None when none of them has data."""
        shares = [r.checks[k].usable for r in self.rows if r.figure.decides and r.checks[k].usable is not None]
        return min(shares) if shares else None

    def verdict(self) -> str:
        """The verdict in the case study's terms: the deciding figures (tape throughput, system
        per user CPU, the pin_seg_range miss ratio) judge; the data's problems are named and
        kept out; figures whose direction depends on the workload are named, not judged."""
        parts = [f"From {self.regimes[0]} to {self.regimes[1]} pages."] if self.regimes else []
        if self.comparability is not None:
            parts.append(self.comparability.sentence())
        tape, spu, pin = self.row("tape"), self.row("sys_per_user"), self.row("pin_miss")
        if tape.judged and tape.ratio is not None:
            parts.append(f"Tape throughput went from {tape.fmt(tape.before)} to {tape.fmt(tape.after)} MiB/s "
                         f"({tape.ratio:.2f}x).")
        if spu.judged and spu.before is not None and spu.after is not None:
            way = "less" if spu.after < spu.before else "more" if spu.after > spu.before else "the same"
            parts.append(f"System CPU per user CPU went from {spu.fmt(spu.before)} to {spu.fmt(spu.after)}: the "
                         f"kernel spends {way} time per unit of application work.")
        if pin.judged and pin.before is not None and pin.after is not None:
            parts.append(f"The pin_seg_range lock missed {pin.before:.1%} of its acquisitions before and "
                         f"{pin.after:.1%} after.")
        judged = [r for r in self.rows if r.judged]
        better = [r.figure.title for r in judged if r.verdict == "better"]
        worse = [r.figure.title for r in judged if r.verdict == "worse"]
        if better and not worse:
            parts.append("Every deciding figure that moved improved: the change helped.")
        elif worse and not better:
            parts.append(f"Worse: {', '.join(worse)}. The change did not help.")
        elif better or worse:
            parts.append(f"Better: {', '.join(better)}. Worse: {', '.join(worse)}.")
        elif judged:
            parts.append(f"No deciding figure moved by more than {SAME_BAND:.0%}.")
        else:
            parts.append("No deciding figure can be judged from this data.")
        lacking = [r for r in self.rows if r.figure.decides and not r.judged and not r.problems]
        if judged and lacking:   # a verdict on some of the deciding figures says which
            names = [r.figure.title for r in lacking]
            nmon = {r.figure.key for r in lacking} <= {"tape", "pin_miss"}
            parts.append(f"Judged on {and_list([r.figure.title for r in judged if r.figure.decides])} only: "
                         f"{and_list(names)} {'has' if len(names) == 1 else 'have'} no data in these windows"
                         + (" (nmon recordings have no tape or pin-lock data)." if nmon else "."))
        refused = [r for r in self.rows if r.figure.decides and r.problems]
        if refused:
            parts.append("Not judged, the data cannot support it: " + "; ".join(
                f"{r.figure.title} ({', '.join(r.problems)})" for r in refused) + ".")
        user, sys_ = self.row("user"), self.row("sys")
        said = set()
        if user.ratio is not None and sys_.ratio is not None and abs(sys_.ratio - 1) >= SAME_BAND:
            share = ("more of the CPU is the application's own work" if user.ratio > sys_.ratio
                     else "the kernel's share of the CPU grew" if user.ratio < sys_.ratio
                     else "their split is unchanged")
            parts.append(f"System CPU went from {sys_.fmt(sys_.before)} % to {sys_.fmt(sys_.after)} % and user CPU "
                         f"from {user.fmt(user.before)} % to {user.fmt(user.after)} %: {share}.")
            said.add("sys")
        context = [r for r in self.rows if not r.figure.decides and r.figure.better and r.ratio is not None
                   and abs(r.ratio - 1) >= SAME_BAND and r.figure.key not in said]
        if context:
            parts.append("Shown, not judged, as their direction depends on the workload: " + ", ".join(
                f"{r.figure.title} {r.fmt(r.before)} to {r.fmt(r.after)}{' ' + r.figure.unit if r.figure.unit else ''}"
                for r in context) + ".")
        return " ".join(parts)


def selector(instance: str, base: str = SELECTOR) -> str:
    """The series of one LPAR: the mixin's selector (monitoring.json, or --selector) and its instance."""
    return matchers(base, f"instance={label_value(instance)}")


# the page-size regimes, as aix:regime_page_size:bytes gives them
REGIME_NAMES = {4096: "4 KB", 65536: "64 KB", 16777216: "16 MB"}


def regime_name(page_size: float) -> str:
    return REGIME_NAMES.get(int(page_size), f"{page_size:g}-byte")


def missing(prom: Prometheus, instance: str, start: float, end: float, base: str, what: str) -> str:
    """Why ``what`` has no series for ``instance``: an instance Prometheus does not have (a typo:
    the instances it has are named), or one without the recording rules."""
    sel = f'__name__=~"aix_.+",{base}' if base else '__name__=~"aix_.+"'
    if prom.label_values("instance", f"{{{sel},instance={label_value(instance)}}}", start, end):
        return (f"no {what} for instance {instance!r} between the given times: are the recording rules "
                "loaded and backfilled?")
    return (f"no instance {instance!r} among the AIX series ({base or 'no selector'}) between the given times; "
            + instances_there(prom, base, start, end))


def instances_there(prom: Prometheus, base: str, start: float, end: float) -> str:
    """'the instances there: a, b ...' of the AIX series under ``base`` between start and end
    (eight named, the rest counted), or that there are none."""
    sel = f'__name__=~"aix_.+",{base}' if base else '__name__=~"aix_.+"'
    known = sorted(prom.label_values("instance", f"{{{sel}}}", start, end))
    shown = ", ".join(known[:8]) + (f" and {len(known) - 8} more" if len(known) > 8 else "")
    return f"the instances there: {shown}" if known else "there are none: is the exporter scraped?"


def find_regimes(prom: Prometheus, instance: str, start: float, end: float, margin: float = 600.0,
                 base: str = SELECTOR) -> tuple:
    """(before, after, change_at, (regime before, regime after)) from aix:regime_page_size:bytes:
    the last run of one page-size regime and the run before it, whichever two of 4 KB, 64 KB
    and 16 MB pages they are. ``margin`` seconds are cut from both runs' edges (restart, warm-up)."""
    step = 60
    res = prom.range(f"aix:regime_page_size:bytes{{{selector(instance, base)}}}", start, end, step)
    if not res:
        raise ReportError(missing(prom, instance, start, end, base, "aix:regime_page_size:bytes"))
    points = sorted((float(t), float(v)) for t, v in res[0]["values"])
    runs: list = []   # [regime, first t, last t]: a regime lasts until another one is seen (gaps in the
    for t, v in points:   # data, such as hourly nmon snapshots or a restart, do not end it)
        if runs and runs[-1][0] == v:
            runs[-1][2] = t
        else:
            runs.append([v, t, t])
    if len(runs) < 2:
        only = f" (only {regime_name(runs[0][0])} pages)" if runs else ""
        raise ReportError(f"no change of page-size regime found for {instance!r}{only}; give --before and --after")
    b, a = runs[-2], runs[-1]
    before = Window(b[1] + margin, b[2] - margin) if b[2] - b[1] > 3 * margin else Window(b[1], b[2])
    after = Window(a[1] + margin, a[2] - margin) if a[2] - a[1] > 3 * margin else Window(a[1], a[2])
    return before, after, b[2], (regime_name(b[0]), regime_name(a[0]))


def coverage(times: list, start: float, end: float) -> float:
    """The share of [start, end] covered by samples at ``times``: a gap is a spacing of more
    than 3 times the series' usual (median) spacing, and counts as missing beyond that usual
    spacing; so do an empty head or tail. Robust to any interval (15 s scrapes, 5 min nmon)."""
    if not times:
        return 0.0
    spacings = [b - a for a, b in zip(times, times[1:])]
    usual = sorted(spacings)[len(spacings) // 2] if spacings else end - start
    limit = 3 * usual
    missing = sum(x - usual for x in spacings if x > limit)
    for edge in (times[0] - start, end - times[-1]):
        if edge > limit:
            missing += edge - usual
    return max(0.0, 1.0 - missing / max(1.0, end - start))


def check_part(prom: Prometheus, part, sel: str, w: Window) -> Check:
    """Whether one part's data over one window can be judged (figures.json 'checks'): the
    share of the window with samples and a working collector, counter resets, failing
    collections, values outside physical bounds."""
    c = part.checks
    if not c:
        return Check()
    length, at = w.seconds, f" @ {w.end:.0f}"

    def fill(expr: str) -> str:   # the whole part (every mode, page size): a part's data is checked once
        return expr.replace("SEL", sel).replace("RANGE", f"{length}s").replace("AT", at)

    samples = fill(c["samples"])
    times = prom.sample_times(samples, length, w.end)
    if not times:
        return Check()
    usable = coverage(times, w.end - length, w.end)
    problems = []
    for counter in c.get("counters", []):
        n = prom.scalar(f"sum(resets({fill(counter)}[{length}s]{at}))", w.end)
        if n:
            problems.append(f"counter {counter.split('{')[0]} reset {n:.0f} time{'s' if n != 1 else ''}")
    success = f"aix_exporter_collector_success{{{sel},collector={label_value(c['collector'])}}}[{length}s]{at}"
    ok = prom.scalar(f"sum(sum_over_time({success})) / sum(count_over_time({success}))", w.end)
    if ok is not None:   # None: no self-metrics (imported history)
        failed = 1.0 - ok
        if failed > 0:
            problems.append(f"collector {c['collector']} failed in {failed:.1%} of its collections")
            usable = min(usable, 1.0 - failed)   # a failed collection serves no samples: mostly the same time
    lo_bound, hi_bound = c.get("min"), c.get("max")
    if lo_bound is not None or hi_bound is not None:
        lo = prom.scalar(f"min(min_over_time({samples}[{length}s]{at}))", w.end)
        hi = prom.scalar(f"max(max_over_time({samples}[{length}s]{at}))", w.end)
        if (lo_bound is not None and lo is not None and lo < lo_bound) or \
                (hi_bound is not None and hi is not None and hi > hi_bound):
            bounds = f"{lo_bound if lo_bound is not None else ''}..{hi_bound if hi_bound is not None else ''}"
            problems.append(f"values outside {bounds} ({lo:g} to {hi:g}): not physical")
    if "peak" in c:
        limit = float(CONFIG[c["peak_setting"]])
        peak = prom.scalar(fill(c["peak"]), w.end)
        if peak is not None and peak > limit:
            problems.append(f"{c['peak_what']} reached {peak / 1e6:,.0f} MB/s, more than a drive can move "
                            f"({limit / 1e6:,.0f} MB/s): not physical")
    threshold = float(CONFIG["reportMinUsableRatio"])
    if usable < threshold:
        problems.append(f"only {usable:.0%} of the window has data (gaps or failing collections)")
    return Check(usable, problems)


def _combined(checks: list) -> Check:
    """The checks of a figure's parts as one: the least usable share, every problem once."""
    usable = [c.usable for c in checks if c.usable is not None]
    problems: list = []
    for c in checks:
        problems += [p for p in c.problems if p not in problems]
    return Check(min(usable) if usable else None, problems)


def compare(prom: Prometheus, instance: str, before: Window, after: Window, change_at: Optional[float] = None,
            progress: Optional[Callable] = None, plots: bool = True, base: str = SELECTOR) -> Comparison:
    sel = selector(instance, base)
    rows = []
    checked: dict = {}
    for i, fig in enumerate(FIGURES, 1):
        vals, checks = [], []
        for w in (before, after):
            expr = fig.window(sel, f"{w.seconds}s", f" @ {w.end:.0f}")
            vals.append(prom.scalar(expr, w.end))
            for part in fig.parts:
                if (part.part, w.start, w.end) not in checked:
                    checked[(part.part, w.start, w.end)] = check_part(prom, part, sel, w)
            checks.append(_combined([checked[(part.part, w.start, w.end)] for part in fig.parts]))
        rows.append(FigureRow(fig, vals[0], vals[1], tuple(checks)))
        if progress:
            progress(f"figure {i}/{len(FIGURES)}: {fig.title}")
    for which, w, k in (("before", before, 0), ("after", after, 1)):
        if all((r.before, r.after)[k] is None for r in rows):   # nothing to compare: not a report of dashes
            raise ReportError(f"no data for instance {instance!r} in the {which} window "
                              f"({w.start:.0f}..{w.end:.0f}, Unix times): is the window in the history "
                              f"Prometheus keeps, and the instance spelled as it has it?")
    confounded = comparability.check(prom, sel, before, after)
    said = confounded.confounders()
    if said[0] or said[1]:   # the tape figures a confounder explains are shown, never judged
        rows = [FigureRow(r.figure, r.before, r.after,
                          tuple(Check(c.usable, c.problems + said[k]) for k, c in enumerate(r.checks)))
                if any(p.part in TAPE_PARTS for p in r.figure.parts) else r for r in rows]
    cmp = Comparison(instance, before, after, rows, change_at, comparability=confounded)
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


def parse_time(s: str, tz: Optional[dt.tzinfo] = dt.timezone.utc) -> float:
    """An ISO date-time (in ``tz`` unless it names a zone; None: the local zone) or a Unix time."""
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
        d = d.replace(tzinfo=tz) if tz is not None else d.astimezone()
    return d.timestamp()


def parse_window(text: str, tz: Optional[dt.tzinfo] = dt.timezone.utc) -> Window:
    """'FROM..TO' with each end an ISO date-time (in ``tz`` unless it names a zone) or a Unix time."""
    if ".." not in text:
        raise ReportError(f"window {text!r}: expected FROM..TO")
    a, b = text.split("..", 1)
    w = Window(parse_time(a, tz), parse_time(b, tz))
    if w.end <= w.start:
        raise ReportError(f"window {text!r}: its end is not after its start")
    return w
