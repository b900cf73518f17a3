"""The 16 MB large-page tuning of one LPAR as a reviewable change (aix-exporter plan).

From what the exporter recorded, at one instant: the evidence (is the server lock-bound, by the
case study's figures), the sizing (the project's rule: heap segments x 16 + 32 pages, with its
inputs), a memory-safety check (can the LPAR pin that much), a restart pre-flight (would the
server come up with LARGE_PAGE_DATA=Y or =M), the exact commands, their rollback, and the report
that verifies the change afterwards. Pure: ``gather`` reads a Prometheus, ``judge`` decides,
``blocks`` lays the document out, ``markdown`` and ``html`` write it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

from ..figures import FIGURES
from ..monitoring import CONFIG, SELECTOR
from ..simulate.model import A_MISS, CYCLES, K_THROUGHPUT
from . import comparability
from .compare import Prometheus, Window, selector

GIB = 1 << 30
LARGE = 16 << 20                      # one 16 MB page
LGPG_SIZE = 16777216                  # vmo lgpg_size for 16 MB pages
KERNEL_PAGES = 16                     # the kernel segment's 16 MB pages (svmon -P 'lgpg vsid=0')
LDR_CNTRL = "TEXTPSIZE=64K@STACKPSIZE=64K@SHMPSIZE=64K@LARGE_PAGE_DATA=Y"   # the case study's line
LDR_IBM_64K = "TEXTPSIZE=64K@DATAPSIZE=64K@STACKPSIZE=64K@SHMPSIZE=64K"     # IBM's Storage Protect start line
# One change at a time: from a server without LDR_CNTRL only the heap moves (the report after the
# change then measures the heap's step alone); from IBM's line its text, stack and shared-memory
# settings stay and only the heap's changes (LDR_CNTRL above)
LDR_HEAP_16M = "LARGE_PAGE_DATA=Y"
LDR_HEAP_64K = "DATAPSIZE=64K"
SETTINGS_FILE = "exporter/aix_exporter/monitoring.json"   # where planPreferWhenBothHelp is set
LIVE_PROMETHEUS = "http://PROMETHEUS:9090"                # a --tsdb plan's verification: the live one, to fill in
LIVE_NOTE = (f"{LIVE_PROMETHEUS} stands for the Prometheus that scrapes this LPAR: this plan read Prometheus "
             "blocks, which will never hold what comes after the change.")
REGIMES = ("4K", "64K", "16M")                   # smallest page first
REGIME_TEXT = {"4K": "4 KB", "64K": "64 KB", "16M": "16 MB"}
CAPABILITIES = "CAP_BYPASS_RAC_VMM,CAP_PROPAGATE"
NOW = "5m"                            # the state "now": the last sample of the 5 minutes before --at

# pin_seg_range's lock misses per second over splat's traced window: the expression of the
# recording rule aix:pin_lock_misses:rate (alerts/alerts.libsonnet; a unit test keeps the two
# equal), read from the raw series so that a plan works on history without the rules
PIN_MISSES = ('max by (instance, job) (aix_splat_function_acquisitions{SEL,function=~"\\\\.?pin_seg_range"} * on (instance, job, '
              'function) aix_splat_function_miss_ratio{SEL,function=~"\\\\.?pin_seg_range"} / on (instance, job) '
              'group_left () (aix_splat_window_seconds{SEL} > 0))')

# the case study's figures (seed 000) beside the LPAR's: 4 KB pages, then 16 MB pages
CASE_STUDY = {"tape": ("139", "378"), "sys_per_user": ("4.99", "1.04"), "pin_miss": ("25 %", "0.5 %")}


@dataclass
class Process:
    command: str
    pid: str
    mode: str                      # svmon -P 16MB column: N, Y, M
    heap_segments: float = 0.0
    large_page_data: str = ""      # LDR_CNTRL's LARGE_PAGE_DATA in its environment ('' unset)
    inuse_16m_bytes: float = 0.0
    datapsize: str = ""            # LDR_CNTRL's DATAPSIZE ('' unset: 4 KB)
    inuse_bytes: dict = field(default_factory=dict)   # svmon -P's split: psize -> bytes in use


@dataclass
class Facts:
    instance: str
    at: float
    window: int                    # seconds the evidence is averaged over
    tape_mib_s: Optional[float] = None
    user_pct: Optional[float] = None
    sys_pct: Optional[float] = None
    sys_per_user: Optional[float] = None
    pin_miss: Optional[float] = None
    pin_misses_s: Optional[float] = None
    processes: list = field(default_factory=list)
    heap_segments: Optional[float] = None     # all monitored processes (the sizing rule's input)
    lgpg_regions: Optional[float] = None
    lgpg_regions_boot: Optional[float] = None
    lgpg_size: Optional[float] = None
    memory_bytes: Optional[float] = None
    virtual_bytes: Optional[float] = None     # computational (svmon -G virtual), its peak in the window
    pool_bytes: float = 0.0
    pool_inuse_bytes: float = 0.0
    paging_used_bytes: Optional[float] = None
    paging_size_bytes: Optional[float] = None
    aso_active: Optional[float] = None        # asoo aso_active (None: the aso collector has no data)
    drives: Optional[float] = None            # tape drives that moved data in the window (those without errors)
    drive_errors: dict = field(default_factory=dict)   # device -> {errpt label: hardware errors in the window}
    tape_mib_s_all: Optional[float] = None    # every drive's MiB/s, where drives with errors were left out of tape_mib_s

    @property
    def regime(self) -> str:
        """The page size holding most of the monitored processes' data, as the recording rule
        aix:regime_page_size:bytes decides it: svmon -P's split (ties to the larger page), else
        LDR_CNTRL (LARGE_PAGE_DATA=Y/M: 16M, DATAPSIZE=64K: 64K), else 4K."""
        totals: dict = {}
        for p in self.processes:
            for psize, b in p.inuse_bytes.items():
                if psize in REGIMES and b > 0:
                    totals[psize] = totals.get(psize, 0.0) + b
        if totals:
            most = max(totals.values())
            return next(ps for ps in reversed(REGIMES) if totals.get(ps, 0.0) >= most)
        if any(p.large_page_data.upper() in ("Y", "M") for p in self.processes):
            return "16M"
        return "64K" if any(p.datapsize.upper() == "64K" for p in self.processes) else "4K"

    @property
    def server(self) -> Optional[Process]:
        """The monitored process the change is for: the one with the most heap segments."""
        return max(self.processes, key=lambda p: (p.heap_segments, p.command == "dsmserv"), default=None)


def gather(prom: Prometheus, instance: str, at: float, window: int, base: str = SELECTOR) -> Facts:
    sel = selector(instance, base)
    at_mod, length = f" @ {at:.0f}", f"{window}s"
    f = Facts(instance, at, window)
    fig = {x.key: x for x in FIGURES}

    def figure(key):
        return prom.scalar(fig[key].window(sel, length, at_mod), at)

    def now(expr, agg="max"):
        return prom.scalar(f"{agg}(last_over_time({expr}[{NOW}]{at_mod}))", at)

    f.tape_mib_s, f.user_pct, f.sys_pct = figure("tape"), figure("user"), figure("sys")
    f.sys_per_user, f.pin_miss = figure("sys_per_user"), figure("pin_miss")
    f.pin_misses_s = prom.scalar(f"max(avg_over_time(({PIN_MISSES.replace('SEL', sel)})[{length}:1m]{at_mod}))", at)
    procs = {}
    for r in prom.instant(f"last_over_time(aix_process_large_page_info{{{sel}}}[{NOW}]{at_mod})", at):
        m = r["metric"]
        procs[m.get("pid", "")] = Process(m.get("command", "?"), m.get("pid", "?"), m.get("mode", "unknown"))
    for r in prom.instant(f"last_over_time(aix_process_heap_segments{{{sel}}}[{NOW}]{at_mod})", at):
        if r["metric"].get("pid") in procs:
            procs[r["metric"]["pid"]].heap_segments = r["value"]
    for r in prom.instant(f"last_over_time(aix_process_ldr_cntrl_info{{{sel}}}[{NOW}]{at_mod})", at):
        if r["metric"].get("pid") in procs:
            procs[r["metric"]["pid"]].large_page_data = r["metric"].get("large_page_data", "")
            procs[r["metric"]["pid"]].datapsize = r["metric"].get("datapsize", "")
    for r in prom.instant(f'last_over_time(aix_process_inuse_bytes{{{sel}}}[{NOW}]{at_mod})', at):
        if r["metric"].get("pid") in procs:
            procs[r["metric"]["pid"]].inuse_bytes[r["metric"].get("psize", "")] = r["value"]
            if r["metric"].get("psize") == "16M":
                procs[r["metric"]["pid"]].inuse_16m_bytes = r["value"]
    f.processes = sorted(procs.values(), key=lambda p: (p.command, p.pid))
    f.heap_segments = now(f"aix_process_heap_segments{{{sel}}}", "sum")
    f.lgpg_regions = now(f'aix_vmo_tunable{{{sel},tunable="lgpg_regions",setting="current"}}')
    f.lgpg_regions_boot = now(f'aix_vmo_tunable{{{sel},tunable="lgpg_regions",setting="boot"}}')
    f.lgpg_size = now(f'aix_vmo_tunable{{{sel},tunable="lgpg_size",setting="current"}}')
    f.memory_bytes = now(f"aix_memory_size_bytes{{{sel}}}")
    f.virtual_bytes = prom.scalar(f"max(max_over_time(aix_memory_virtual_bytes{{{sel}}}[{length}]{at_mod}))", at)
    f.pool_bytes = now(f'aix_memory_page_pool_size_bytes{{{sel},psize="16M"}}', "sum") or 0.0
    f.pool_inuse_bytes = now(f'aix_memory_page_inuse_bytes{{{sel},psize="16M"}}', "sum") or 0.0
    f.paging_used_bytes = now(f"aix_paging_space_inuse_bytes{{{sel}}}")
    f.paging_size_bytes = now(f"aix_paging_space_size_bytes{{{sel}}}")
    f.aso_active = now(f"aix_aso_active{{{sel}}}")
    # each drive's rate and hardware errors over the window (the report's own query). A drive that
    # logged errors (TAPE_ERR6: it asks for cleaning) moves less for a reason of its own: it leaves
    # the drives counted and the tape figure the evidence and the model's estimates read, and the
    # evidence names it
    rates, f.drive_errors, _ = comparability.drives_in(prom, sel, Window(at - window, at))
    f.drives = float(sum(1 for d, v in rates.items() if v > 0 and d not in f.drive_errors)) or None
    if f.drive_errors and f.tape_mib_s is not None:
        f.tape_mib_s_all = f.tape_mib_s
        f.tape_mib_s = max(0.0, f.tape_mib_s - sum(rates.get(d, 0.0) for d in f.drive_errors) / comparability.MIB)
    return f


@dataclass
class Plan:
    facts: Facts
    contended: Optional[bool] = None          # None: the evidence is missing
    on_16m: bool = False
    regime: str = "4K"                        # the page-size regime now: 4K, 64K or 16M
    kind: str = ""                            # switch (to 16 MB pages), ibm64k (4 KB to IBM's 64 KB line), resize (the pool only), none
    steps: list = field(default_factory=list)  # [Step]: the regimes above the current one, with the model's estimates
    counted: list = field(default_factory=list)  # the processes the sizing counts (the server, LARGE_PAGE_DATA set)
    why: str = ""                             # why this step and not the other
    regions: Optional[int] = None             # the sizing rule's pages
    pool_now: int = 0                         # lgpg_regions now (0 without vmo figures)
    pool_after: Optional[int] = None          # lgpg_regions after the change
    outside_bytes: Optional[float] = None     # computational memory outside today's 16 MB pool
    left_bytes: Optional[float] = None        # real memory left for 4 KB pages after pinning
    margin_bytes: Optional[float] = None
    headroom: Optional[int] = None            # 16 MB pages to spare when the server restarts, after the change
    headroom_now: Optional[int] = None        # ... with today's pool (on 16 MB pages)
    preflight: str = ""                       # 'comes up', 'at risk', 'short'
    reasons: list = field(default_factory=list)   # why it is not recommended
    missing: list = field(default_factory=list)

    @property
    def recommended(self) -> bool:
        return not self.reasons and not self.missing and self.kind in ("switch", "resize", "ibm64k")

    @property
    def verdict(self) -> str:
        if self.missing:
            return "cannot plan: " + "; ".join(self.missing)
        if self.reasons:
            return "not recommended: " + "; ".join(self.reasons)
        if self.kind == "none":
            return ("no change: the server runs on 16 MB pages, the pool meets the sizing rule and a restart "
                    "would find one heap segment to spare")
        if self.kind == "resize":
            return (f"recommended: raise lgpg_regions from {self.pool_now} to {self.pool_after} "
                    "(the server already runs on 16 MB pages)")
        server = self.facts.server
        assert server is not None   # judged: a missing server is in `missing`
        if self.kind == "ibm64k":
            return (f"recommended: IBM's 64 KB start line (LDR_CNTRL with DATAPSIZE=64K) for {server.command}, "
                    "nothing pinned, no pool")
        return f"recommended: lgpg_regions={self.pool_after} (16 MB pages) and LARGE_PAGE_DATA=Y for {server.command}"


@dataclass
class Step:
    regime: str                    # 4K, 64K, 16M
    now: bool                      # the current regime (measured, not estimated)
    miss: Optional[float]          # pin_seg_range miss ratio
    tape_mib_s: Optional[float]


def estimate(f: Facts, regime: str, to: str) -> Step:
    """The model's estimate (simulate/model.py, fitted to the case study) of the figures at ``to``
    from those measured at ``regime``: with n tape threads the model's miss ratio is
    m = 1 - 1/(1 + A c (n-1)) and a drive's rate T = T_MAX / (1 + K c (n-1)), c the lock cycles
    per 256 KB buffer. The measured m gives x = A c (n-1) = m / (1 - m); at c' cycles
    m' = 1 - 1/(1 + x c'/c) and T' = T (1 + (K/A) x) / (1 + (K/A) x c'/c)."""
    if regime == to:
        return Step(to, True, f.pin_miss, f.tape_mib_s)
    if f.pin_miss is None or not 0 <= f.pin_miss < 1:
        return Step(to, False, None, None)
    x = f.pin_miss / (1 - f.pin_miss)
    share = CYCLES[to] / CYCLES[regime]
    ka = K_THROUGHPUT / A_MISS
    tape = None if f.tape_mib_s is None else f.tape_mib_s * (1 + ka * x) / (1 + ka * x * share)
    return Step(to, False, 1 - 1 / (1 + x * share), tape)


def outcome(headroom: int) -> str:
    """The restart pre-flight for ``headroom`` pages to spare, as aix:restart_preflight:code
    judges it: one heap segment (mandatoryMinHeadroomPages) or more comes up; less is at risk
    (=Y falls back as the heap grows, =M stops); none is short."""
    h = CONFIG["mandatoryMinHeadroomPages"]
    return "comes up" if headroom >= h else "at risk" if headroom >= 0 else "short"


def judge(f: Facts) -> Plan:
    p = Plan(f)
    c = CONFIG
    server = f.server
    present = [("the pin_seg_range miss ratio (splat collector)", f.pin_miss is not None),
               ("system and user CPU (vmstat collector)", f.sys_per_user is not None),
               ("the heap segments of a monitored process (process collector: svmon -P)", f.heap_segments is not None),
               ("a monitored server process (process collector: svmon -P)", f.heap_segments is None or server is not None),
               ("real memory and its computational part (memory collector: svmon -G)",
                f.memory_bytes is not None and f.virtual_bytes is not None)]
    p.missing = [what for what, ok in present if not ok]
    if p.missing:
        return p
    assert f.pin_miss is not None and f.sys_per_user is not None and f.heap_segments is not None
    assert f.memory_bytes is not None and f.virtual_bytes is not None and server is not None
    p.contended = f.pin_miss > c["pinMissRatio"] and f.sys_per_user > c["sysPerUserRatio"]
    p.on_16m = server.mode in ("Y", "M") and server.inuse_16m_bytes > 0
    p.regime = "16M" if p.on_16m else "64K" if f.regime == "64K" else "4K"
    p.steps = [estimate(f, p.regime, r) for r in REGIMES[REGIMES.index(p.regime):]]
    # sizing: the server and every monitored process that asks for large pages (LARGE_PAGE_DATA in its
    # environment: children inherit it across fork, so their heaps come from the same pool)
    p.counted = [server] + [x for x in f.processes if x is not server and x.large_page_data]
    segments = sum(x.heap_segments for x in p.counted) if len(p.counted) > 1 else f.heap_segments
    p.regions = int(segments) * c["pagesPerHeapSegment"] + c["extraLargePages"]
    h = c["mandatoryMinHeadroomPages"]
    # restart pre-flight: the server comes back asking for the 16 MB pages it holds now (on 4 KB
    # pages: every heap segment filled, 16 pages each, and the kernel segment's 16); the pages
    # other processes hold stay held. On 4 KB pages, the least pool with one heap segment to
    # spare is the sizing rule itself.
    held_by_others = max(0.0, f.pool_inuse_bytes - server.inuse_16m_bytes) / LARGE
    need = server.inuse_16m_bytes / LARGE if p.on_16m else server.heap_segments * c["pagesPerHeapSegment"] + KERNEL_PAGES
    p.pool_now = int(f.lgpg_regions or 0)
    p.pool_after = max(p.regions, p.pool_now, math.ceil(held_by_others + need + h))
    p.headroom = math.floor(p.pool_after - held_by_others - need)
    p.headroom_now = math.floor(p.pool_now - held_by_others - need) if p.on_16m else None
    p.preflight = outcome(p.headroom)    # sized with one heap segment to spare: always 'comes up'
    p.kind = "switch" if not p.on_16m else "resize" if p.pool_after > p.pool_now else "none"
    # memory: the pool after the change is pinned; the computational memory outside today's pool
    # stays where it is (the heap's 4 KB pages move into the pool only after the restart, and
    # the check does not count on it)
    p.outside_bytes = f.virtual_bytes - f.pool_inuse_bytes
    p.left_bytes = f.memory_bytes - p.pool_after * LARGE - p.outside_bytes
    p.margin_bytes = c["planMinFreeMemoryRatio"] * f.memory_bytes
    figures = (f"pin_seg_range miss ratio {f.pin_miss:.1%}, limit {c['pinMissRatio']:.0%}; system/user CPU "
               f"{f.sys_per_user:.2f}, limit {c['sysPerUserRatio']:g}")
    if p.regime == "64K" and not p.contended:
        p.reasons.append(f"on 64 KB pages the figures do not show the pin-lock contention the 16 MB step addresses "
                         f"({figures})")
    elif not p.on_16m and not p.contended:
        p.reasons.append(f"the figures do not show the pin-lock contention this change addresses ({figures})")
    affordable = not (p.pool_after * LARGE > (f.pool_bytes or 0) and p.left_bytes < p.margin_bytes)
    too_big = (f"a pool of {p.pool_after} pages ({p.pool_after * LARGE / GIB:.1f} GiB pinned) would leave "
               f"{max(p.left_bytes, 0) / GIB:.1f} GiB of {f.memory_bytes / GIB:.1f} GiB for 4 KB pages and the "
               f"file cache, less than the margin of {p.margin_bytes / GIB:.1f} GiB "
               f"({c['planMinFreeMemoryRatio']:.0%}, planMinFreeMemoryRatio)")
    if p.regime == "4K" and p.contended:
        # both steps help: the setting decides, and 64 KB pages where the pool cannot be afforded
        t64, t16 = (next((st.tape_mib_s for st in p.steps if st.regime == r), None) for r in ("64K", "16M"))
        gains = (f" ({_n(t64, '.0f')} and {_n(t16, '.0f')} MiB/s of tape by the model, from {_n(f.tape_mib_s, '.0f')} "
                 "now)")
        setting = (f"the setting planPreferWhenBothHelp ({c['planPreferWhenBothHelp']}) in {SETTINGS_FILE}, "
                   "the project's thresholds, decides between the two")
        if c["planPreferWhenBothHelp"] == "64K":
            p.kind, p.why = "ibm64k", (f"both steps cure the contention{gains}; 64 KB pages take most of the gain "
                                       f"with nothing pinned, no pool and no ANR0358E risk: {setting}")
        elif not affordable:
            p.kind, p.why = "ibm64k", (f"the 16 MB step does not fit this LPAR's memory: {too_big}; IBM's start "
                                       "line pins nothing")
        else:
            p.why = (f"both steps cure the contention{gains}; 16 MB pages gain the most, and this LPAR can pin "
                     f"the {p.pool_after * LARGE / GIB:.1f} GiB they need with memory to spare: {setting} (64K "
                     "prefers the step that pins nothing)")
    if p.kind != "ibm64k" and not affordable:
        p.reasons.append(too_big)
    return p


# -- the document ----------------------------------------------------------------------------
def _n(v: Optional[float], fmt: str) -> str:
    return "n/a" if v is None else format(v, fmt)


def _gib(v: Optional[float]) -> str:
    return "n/a" if v is None else f"{v / GIB:.1f}"


def blocks(p: Plan, when: str, source: str, source_args: str, user: Optional[str], script: Optional[str]) -> list:
    """The document as blocks: ('h1'|'h2'|'h3'|'p', text), ('table', header, rows), ('code', text).
    Its table of contents: the head and verdict, 1. the evidence (and the steps beyond this
    regime), then either IBM's 64 KB line (ibm64k_blocks) or the 16 MB change: 2. sizing and
    memory safety, 3. the restart pre-flight, 4. the commands, 5. the rollback, 6. the verification."""
    f = p.facts
    out: list = [("h1", f"Large-page change plan: {f.instance}"),
                 ("p", f"Evaluated at {when}: the figures are averages over the {f.window // 60} minutes before it, "
                       f"the state is its last sample. Source: {source}."),
                 ("p", f"**Verdict: {p.verdict}.**")]
    out += choice_blocks(p)
    out += evidence_blocks(p)
    if p.missing:
        return out + [("p", "Missing: " + "; ".join(p.missing) + ". Enable the collector and plan again.")]
    out += steps_blocks(p)
    if p.kind == "ibm64k":
        return out + ibm64k_blocks(p, source_args, start_script=script)
    out += sizing_blocks(p) + preflight_blocks(p)
    if not p.recommended:
        return out + [("h2", "4. Commands"), ("p", "None: the change is not recommended (" + p.verdict + ").")]
    if p.kind == "resize":
        return out + resize_blocks(p)
    return out + switch_blocks(p, source_args, user, script)


def choice_blocks(p: Plan) -> list:
    """The choice as a change board reads it: each way forward with its gain (measured now, the
    model's estimate after), what it pins, what can go wrong and how it is undone; then why."""
    f = p.facts
    if p.missing or len(p.steps) < 2:
        return []
    undo_ldr = "LDR_CNTRL back in the start script, restart the server"
    rows = [["no change (" + REGIME_TEXT[p.regime] + " pages)", f"{_n(f.tape_mib_s, '.0f')} (measured)",
             "as now", "the contention stays" if p.contended else "nothing new", "nothing to undo"]]
    for st in p.steps[1:]:
        if st.regime == "64K":
            rows.append(["64 KB pages for the heap (LDR_CNTRL " + (LDR_HEAP_64K if p.regime == "4K" else LDR_IBM_64K)
                         + ")", f"{_n(st.tape_mib_s, '.0f')} (model)", "nothing",
                         "nothing runs out; the gain may fall short of the model's", undo_ldr])
        else:
            rows.append([f"16 MB pages for the heap (lgpg_regions={p.pool_after}, LDR_CNTRL "
                         + (LDR_HEAP_16M if p.regime == "4K" else LDR_CNTRL) + ")", f"{_n(st.tape_mib_s, '.0f')} (model)",
                         f"{(p.pool_after or 0) * LARGE / GIB:.1f} GiB ({p.pool_after} pages of 16 MB)",
                         "a pool too small: a silent fallback to small pages (LARGE_PAGE_DATA=Y, alert "
                         "AixLargePageSilentFallback); with =M the server stops (ANR0358E)",
                         f"{undo_ldr}, then lgpg_regions={p.pool_now}"])
    out: list = [("h2", "The choice"),
                 ("table", ["change", "tape MiB/s", "memory pinned", "what can go wrong", "how to undo"], rows)]
    if p.why:
        out.append(("p", f"Why: {p.why}."))
    return out


def evidence_blocks(p: Plan) -> list:
    """1. Is the server lock-bound? This LPAR's figures beside the case study's, and what they say."""
    f, c = p.facts, CONFIG
    base4k = p.regime == "4K"
    out: list = [("h2", "1. Evidence: is the server lock-bound?")]
    out.append(("table", ["figure", "this LPAR", "contention when", "case study: 4 KB / 16 MB pages"], [
        ["Page-size regime (the page size holding most of the monitored processes' data)",
         f"{REGIME_TEXT[p.regime]} pages", "", "4 KB / 16 MB"],
        ["Tape throughput, MiB/s" + (" (the drives without errors)" if f.drive_errors else ""), _n(f.tape_mib_s, ".1f"),
         "(what the change is for)",
         " / ".join(CASE_STUDY["tape"]) if base4k else "(measured from 4 KB pages: not this LPAR's baseline)"],
        ["System / user CPU", _n(f.sys_per_user, ".2f"), f"above {c['sysPerUserRatio']:g}",
         " / ".join(CASE_STUDY["sys_per_user"])],
        ["System CPU, user CPU (%)", f"{_n(f.sys_pct, '.1f')}, {_n(f.user_pct, '.1f')}", "", "15.0, 3.0 / 30.5, 29.3"],
        ["pin_seg_range lock miss ratio", _n(f.pin_miss, ".1%"), f"above {c['pinMissRatio']:.0%}",
         " / ".join(CASE_STUDY["pin_miss"])],
        ["pin_seg_range lock misses/s", _n(f.pin_misses_s, ",.0f"), "", ""]]))
    if f.drive_errors:
        named = comparability.and_list([f"{d} ({', '.join(f'{lab} x{n}' for lab, n in sorted(e.items()))})"
                                        for d, e in sorted(f.drive_errors.items(), key=lambda x: comparability.device_key(x[0]))])
        out.append(("p", f"Left out of the tape figure and the model's estimates: {named} logged hardware errors in "
                         "the error log during the window (TAPE_ERR6: the drive asks for cleaning). A drive with "
                         "errors of its own moves less whatever the page size, so its rate is no evidence of lock "
                         f"contention. The other drives moved {_n(f.tape_mib_s, ',.1f')} MiB/s; all drives, "
                         f"{_n(f.tape_mib_s_all, ',.1f')} MiB/s. The pin-lock and CPU figures are the LPAR's and "
                         "stay as measured."))
    if p.contended is None:
        out.append(("p", "The evidence is incomplete: the plan cannot judge the contention."))
    elif p.regime == "64K":
        out.append(("p", "The server runs on 64 KB pages (IBM's Storage Protect start line, DATAPSIZE=64K): a 256 KB "
                         "buffer takes 4 pin cycles under the VMM segment lock, not the 64 of 4 KB pages. The case "
                         "study's gain was measured from 4 KB pages and does not apply here; the 16 MB step (1 cycle) "
                         "is judged on the figures measured at 64 KB only. " + (
                             "They show contention: with this many tape threads even 4 cycles per buffer miss the "
                             "lock." if p.contended else
                             "They do not show contention worth a pinned pool: no change.")))
    elif p.on_16m:
        out.append(("p", "The server already runs on 16 MB pages. " + (
            "It still shows the contention: part of its heap is on 4 KB pages (a pool too small for "
            "LARGE_PAGE_DATA=Y falls back silently). What is left to plan is the pool." if p.contended else
            "The figures show no pin-lock contention: the change has done its work. What is left to plan is the "
            "pool's size and the server's next restart.")))
    elif p.contended:
        out.append(("p", "These figures show the contention the case study cured: the tape threads pin their "
                         "buffers 4 KB page by page under the VMM segment lock, and miss it. 16 MB pages pin a "
                         "256 KB buffer in one lock cycle instead of 64."))
    else:
        out.append(("p", "These figures do not show that contention: 16 MB pages are not expected to help "
                         "here, and pinning memory for them has a cost. The plan stops short of recommending them."))
    return out


def sizing_blocks(p: Plan) -> list:
    """2. Sizing: the rule with its inputs, the ASO state, and whether the LPAR can afford the pool."""
    f, c, srv = p.facts, CONFIG, p.facts.server
    assert srv is not None and p.regions is not None and p.pool_after is not None
    lpd = srv.large_page_data or "unset"
    segments = (p.regions - c["extraLargePages"]) // c["pagesPerHeapSegment"]
    out: list = [("h2", "2. Sizing"), ("table", ["input", "value"], [
        ["server process (most heap segments)", f"{srv.command} (PID {srv.pid}), 16 MB pages now: {srv.mode} "
                                                f"(LARGE_PAGE_DATA {lpd})"],
        ["processes counted (the server, and every one with LARGE_PAGE_DATA in its environment: children "
         "inherit it)", ", ".join(f"{x.command} (PID {x.pid})" for x in p.counted)],
        ["heap segments of those processes (svmon -P 'text data BSS heap')", f"{segments:g}"],
        ["the sizing rule (the case study's)", f"{segments:g} x {c['pagesPerHeapSegment']} + "
                                               f"{c['extraLargePages']} = {p.regions} pages"],
        ["lgpg_regions now (boot value)", f"{_n(f.lgpg_regions, 'g')} ({_n(f.lgpg_regions_boot, 'g')})"],
        ["lgpg_regions after the change", f"{p.pool_after}: {p.pool_after * LARGE / GIB:.1f} GiB pinned"]])]
    out.append(("p", f"Each heap segment (256 MB) holds {c['pagesPerHeapSegment']} pages of 16 MB; the "
                     f"{c['extraLargePages']} extra pages are the kernel segment's 16 and one segment of growth. Large "
                     "pages are pinned: start here, then bring the pool down to what svmon -G shows in use."))
    out.append(("p", aso_text(f.aso_active)))
    out.append(("h3", "Memory safety"))
    pg = (f"{_gib(f.paging_used_bytes)} of {_gib(f.paging_size_bytes)}"
          + (f" ({f.paging_used_bytes / f.paging_size_bytes:.0%})" if f.paging_used_bytes is not None
             and f.paging_size_bytes else ""))
    out.append(("table", ["memory", "GiB"], [
        ["real memory (svmon -G size)", _gib(f.memory_bytes)],
        ["computational working set outside the 16 MB pool (svmon -G virtual, its peak in the window)",
         _gib(p.outside_bytes)],
        ["16 MB pool after the change (pinned)", f"{p.pool_after * LARGE / GIB:.1f}"],
        ["left for 4 KB pages and the file cache", _gib(max(p.left_bytes, 0.0)) if p.left_bytes is not None else "n/a"],
        [f"margin required (planMinFreeMemoryRatio {c['planMinFreeMemoryRatio']:.0%})", _gib(p.margin_bytes)],
        ["paging space in use", pg]]))
    assert p.left_bytes is not None and p.margin_bytes is not None
    if p.left_bytes >= p.margin_bytes:
        out.append(("p", "The LPAR can afford the pool: what is left covers the margin. The heap's 4 KB pages "
                         "move into the pool after the restart; the check does not count on that."))
    else:
        out.append(("p", "The LPAR cannot afford this pool: pinned 16 MB pages cannot be paged out, so everything "
                         "else would be pushed into paging. Add memory to the LPAR (DLPAR) or move work off it, "
                         "then plan again."))
    return out


def preflight_blocks(p: Plan) -> list:
    """3. Will the server come up after the restart, with the new pool and with today's?"""
    c, srv = CONFIG, p.facts.server
    assert srv is not None and p.headroom is not None
    h = c["mandatoryMinHeadroomPages"]
    pre = (f"With lgpg_regions={p.pool_after} the server comes up on 16 MB pages with {p.headroom} pages to "
           f"spare (at least {h}, one heap segment, are needed): with LARGE_PAGE_DATA=Y and with =M.")
    asks = (f"the {srv.inuse_16m_bytes / LARGE:g} pages of 16 MB it holds now (svmon -P)" if p.on_16m else
            f"its heap in 16 MB pages: every heap segment filled ({srv.heap_segments:g} x {c['pagesPerHeapSegment']}) "
            f"and the kernel segment's {KERNEL_PAGES}")
    out: list = [("h2", "3. Restart pre-flight"),
                 ("p", pre + f" The server comes back asking for {asks}; pages other processes hold stay held.")]
    if p.headroom_now is not None:
        state = outcome(p.headroom_now)
        out.append(("p", f"With today's pool (lgpg_regions={p.pool_now}) a restart would find "
                         f"{p.headroom_now} pages to spare: '{state}'; for {srv.command} with "
                         f"LARGE_PAGE_DATA={srv.mode} that is "
                         + ("a failed start (ANR0358E)" if state != "comes up" and srv.mode == "M" else
                            "a start partly on 4 KB pages" if state != "comes up" else "a clean start")
                         + ". The recording rule aix:restart_preflight:code gives the same judgement."))
    out.append(("p", "Use LARGE_PAGE_DATA=Y. =M is justified only where a server that does not start is "
                     "better than one that silently runs on 4 KB pages, and only with the pre-flight "
                     f"'comes up' (here: '{p.preflight}') and the alert AixRestartWouldFail routed to someone "
                     "who acts on it: the recording rule aix:restart_preflight:code makes this judgement every "
                     "minute."))
    return out


def resize_blocks(p: Plan) -> list:
    """4.-6. for a server already on 16 MB pages: only the pool grows, no restart."""
    return [
        ("h2", "4. The change (as root)"),
        ("p", "The server already runs on 16 MB pages: only the pool grows, no restart is needed. "
              "`vmo -L lgpg_regions` shows its TYPE: D (dynamic) applies now where the memory is free."),
        ("code", "\n".join([
            "vmo -L lgpg_regions -L lgpg_size                     # before: CUR and BOOT",
            f"vmo -p -o lgpg_regions={p.pool_after} -o lgpg_size={LGPG_SIZE}",
            "svmon -G | grep 'L   16 MB'                          # the pool: PoolSize " + str(p.pool_after)])),
        ("h2", "5. Rollback"),
        ("code", f"vmo -p -o lgpg_regions={p.pool_now} -o lgpg_size={LGPG_SIZE}"),
        ("h2", "6. Verification"),
        ("p", f"aix:restart_preflight:code for {p.facts.instance} turns 2 (comes up) and "
              "AixRestartWouldFail resolves; aix:large_pages_free:count shows the new free pages."),
    ]


def switch_blocks(p: Plan, source_args: str, user: Optional[str], script: Optional[str]) -> list:
    """4.-6. for the switch to 16 MB pages: the pool, the user's capabilities, LDR_CNTRL and the
    restart; the rollback; the report that verifies it."""
    f, srv = p.facts, p.facts.server
    assert srv is not None
    who = user or "$u"
    find_user = [] if user else [f"u=$(ps -o user= -p {srv.pid})        # the user {srv.command} runs as"]
    start = script or "the server's start script (rc.dsmserv of the instance, or /usr/tivoli/tsm/server/bin/rc.adsmserv)"
    out: list = [("h2", "4. The change (as root)")]
    out.append(("p", "Step 1, the pool: applies now where the memory is free, and at every boot (-p). "
                     "`vmo -L lgpg_regions` shows its TYPE: D (dynamic) needs nothing more; B needs "
                     "`bosboot -a` and a reboot, as in the case study."))
    out.append(("code", "\n".join([
        "vmo -L lgpg_regions -L lgpg_size                     # before: CUR and BOOT, note them for the rollback",
        f"vmo -p -o lgpg_regions={p.pool_after} -o lgpg_size={LGPG_SIZE}",
        "svmon -G | grep 'L   16 MB'                          # the pool: PoolSize " + str(p.pool_after)])))
    out.append(("p", "Step 2, the server's user may use large pages (skip when it runs as root). chuser "
                     "replaces the whole list: keep what lsuser shows (the case study also grants CAP_NUMA_ATTACH)."))
    cmds = find_user + [f"lsuser -a capabilities {who}                   # before: note it for the rollback",
                        f"[ \"{who}\" = root ] || chuser capabilities={CAPABILITIES} {who}"]
    out.append(("code", "\n".join(cmds)))
    out.append(("p", f"Step 3, in {start}, before {srv.command} starts (not in /etc/environment, not in the "
                     "user's profile: the case study warns that other programs then break)" + (
                         f", in place of IBM's line (LDR_CNTRL={LDR_IBM_64K}): LARGE_PAGE_DATA=Y takes the heap "
                         "from DATAPSIZE; text, stack and shared memory stay on 64 KB pages:" if p.regime == "64K"
                         else ". Only the heap moves, one change at a time, so that the report after it measures "
                              "this step alone; if the script sets LDR_CNTRL already (MAXDATA=..., for example), "
                              "add @LARGE_PAGE_DATA=Y to it and keep the rest:")))
    out.append(("code", f"LDR_CNTRL={LDR_CNTRL if p.regime == '64K' else LDR_HEAP_16M}\nexport LDR_CNTRL"))
    out.append(("p", f"Step 4, restart {srv.command} with that script, then check that it uses 16 MB pages "
                     "(16MB column Y, 'L' heap segments):"))
    out.append(("code", f"svmon -P $(ps -e -o pid= -o comm= | awk '$2==\"{srv.command}\"{{print $1}}') | head -12"))
    out.append(("h2", "5. Rollback"))
    out.append(("code", "\n".join([
        (f"# in {start}: put back LDR_CNTRL={LDR_IBM_64K}, then restart {srv.command} with it"
         if p.regime == "64K" else f"# in {start}: remove the two LDR_CNTRL lines (or the @LARGE_PAGE_DATA=Y added), "
                                      f"then restart {srv.command} with it"),
        f"vmo -p -o lgpg_regions={p.pool_now}" + (f" -o lgpg_size={int(f.lgpg_size)}" if f.lgpg_size else
                                            " -o lgpg_size=0"),
        f"chuser capabilities=<the value lsuser showed before> {who}    # only if step 2 changed it"])))
    out.append(("p", "Pinned pages return to the system when lgpg_regions goes down; a process still holding "
                     "16 MB pages keeps them until it stops, so restart the server first."))
    out.append(("h2", "6. Verification"))
    out.append(("p", "After the restart, once the server has run on 16 MB pages for a representative period "
                     "(a night of backups), compare the two regimes:"))
    out.append(("code", f"aix-exporter report {source_args} --instance {f.instance} --auto --out after-the-change.html"))
    if LIVE_PROMETHEUS in source_args:
        out.append(("p", LIVE_NOTE))
    out.append(("p", "--auto finds the windows from the recording rule aix:regime_page_size:bytes: before, the "
                     f"last run on {REGIME_TEXT[p.regime]} pages, up to this change; after, the run on 16 MB pages "
                     "since the restart; 10 minutes are cut from each edge (--margin). It judges tape MiB/s, system/user CPU and the "
                     "pin_seg_range miss ratio against these figures. AixLargePageSilentFallback and "
                     "AixRestartWouldFail watch the pool from then on."))
    return out


def aso_text(active: Optional[float]) -> str:
    if active is None:
        return ("ASO state unknown: the aso collector has no data (asoo is missing before AIX 7.1 TL1, or the "
                "exporter's user may not run it). Check `asoo -o aso_active`: when ASO is active it can promote "
                "shared-memory segments to 16 MB pages on its own, from the same pool.")
    if active:
        return ("**Warning: the Active System Optimizer is active** (asoo aso_active=1). Its large-page "
                "optimization can promote other workloads' shared-memory segments to 16 MB pages on its own, "
                "taking pages from this pool: watch svmon -G's 16 MB in-use after the change, exclude processes "
                "with ASO_OPTIONS=LARGE_PAGE=OFF in their environment, or size the pool for it.")
    return "The Active System Optimizer is inactive (asoo aso_active=0): it takes no pages from the pool."


def steps_blocks(p: Plan) -> list:
    """The regimes above the current one, each with the model's estimate from the measured miss ratio."""
    f = p.facts
    if len(p.steps) < 2:
        return []
    pinned = {"4K": "none", "64K": "none (the buffers only, as now)",
              "16M": f"{p.pool_after} pages, {p.pool_after * LARGE / GIB:.1f} GiB" if p.pool_after else "the pool"}
    risk = {"4K": "", "64K": "none: no pool, nothing to run out of",
            "16M": "=M: ANR0358E when the pool runs out; =Y: a silent fallback to smaller pages"}
    rows = []
    for st in p.steps:
        label = f"{REGIME_TEXT[st.regime]} pages" + (" (now)" if st.now else
                                                      " (IBM's start line)" if st.regime == "64K" else "")
        how = "measured" if st.now else "model's estimate"
        rows.append([label, f"{CYCLES[st.regime]:g}", f"{_n(st.miss, '.1%')} ({how})",
                     f"{_n(st.tape_mib_s, '.1f')} ({how})", pinned[st.regime], risk[st.regime]])
    drives = f" over {f.drives:g} drives ({f.tape_mib_s / f.drives:.1f} MiB/s each)" if f.drives and f.tape_mib_s else ""
    out = [("h3", "The steps beyond this regime"),
           ("table", ["pages for the heap", "pin cycles per 256 KB buffer", "pin_seg_range miss ratio",
                      "tape MiB/s", "pinned", "risk"], rows),
           ("p", f"How the estimates are made, for those who check them: a 256 KB buffer takes 64 lock cycles "
                 f"to pin with 4 KB pages, 4 with 64 KB and 1 with 16 MB (IBM's case study). The measured miss "
                 f"ratio m = {_n(f.pin_miss, '.1%')} at "
                 f"{CYCLES[p.regime]:g} cycles{drives} gives x = m / (1 - m) = A c (n-1) in the simulator's model "
                 f"(fitted to the case study); at c' cycles the model's miss ratio is 1 - 1/(1 + x c'/c) and the "
                 f"tape rate T (1 + {K_THROUGHPUT / A_MISS:.2f} x) / (1 + {K_THROUGHPUT / A_MISS:.2f} x c'/c). "
                 "They are the model's figures, not measurements: the report after the change measures.")]
    if any(st.regime == "64K" and not st.now for st in p.steps):
        out.append(("p", f"IBM's start line is `LDR_CNTRL={LDR_IBM_64K}` in the server's start script: the heap "
                         "on 64 KB pages, no vmo change, no capability, nothing pinned."))
    return out


def ibm64k_blocks(p: Plan, source_args: str, start_script: Optional[str]) -> list:
    """The change to IBM's 64 KB start line: LDR_CNTRL in the start script and a restart."""
    f, srv = p.facts, p.facts.server
    assert srv is not None
    start = start_script or "the server's start script (rc.dsmserv of the instance, or /usr/tivoli/tsm/server/bin/rc.adsmserv)"
    return [
        ("h2", "2. The change (as root)"),
        ("p", "Step 1, check that the processors offer 64 KB pages (POWER5+ and later; the list must include 65536):"),
        ("code", "pagesize -a"),
        ("p", f"Step 2, in {start}, before {srv.command} starts (not in /etc/environment, not in the user's "
              f"profile): the heap's part of IBM's Storage Protect start line (LDR_CNTRL={LDR_IBM_64K}). Only the "
              "heap moves, one change at a time, so that the report after it measures this step alone; text, "
              "stack and shared memory can follow in a change of their own. If the script sets LDR_CNTRL "
              "already, add @DATAPSIZE=64K to it and keep the rest. Nothing is pinned and no vmo change or "
              "capability is needed:"),
        ("code", f"LDR_CNTRL={LDR_HEAP_64K}\nexport LDR_CNTRL"),
        ("p", f"Step 3, restart {srv.command} with that script, then check that its heap is in 64 KB pages "
              "(PSize m on the 'text data BSS heap' segments):"),
        ("code", f"svmon -P $(ps -e -o pid= -o comm= | awk '$2==\"{srv.command}\"{{print $1}}') | head -12"),
        ("h2", "3. Rollback"),
        ("code", f"# in {start}: remove the two LDR_CNTRL lines (or the @DATAPSIZE=64K added), then restart "
                 f"{srv.command} with it"),
        ("h2", "4. Verification"),
        ("p", "After the restart, once the server has run on 64 KB pages for a representative period (a night of "
              "backups), compare the two regimes:"),
        ("code", f"aix-exporter report {source_args} --instance {f.instance} --auto --out after-the-change.html"),
        *([("p", LIVE_NOTE)] if LIVE_PROMETHEUS in source_args else []),
        ("p", "--auto finds the change from 4 KB to 64 KB pages in the recording rule aix:regime_page_size:bytes. "
              "If the figures still show contention afterwards, plan again: the plan then judges the 16 MB step "
              "from the figures measured at 64 KB."),
    ]


def markdown(bl: list) -> str:
    out = []
    for b in bl:
        if b[0] == "h1":
            out += [f"# {b[1]}", ""]
        elif b[0] == "h2":
            out += [f"## {b[1]}", ""]
        elif b[0] == "h3":
            out += [f"### {b[1]}", ""]
        elif b[0] == "p":
            out += [b[1], ""]
        elif b[0] == "code":
            out += ["```sh", b[1], "```", ""]
        elif b[0] == "table":
            out += ["| " + " | ".join(b[1]) + " |", "|" + "---|" * len(b[1])]
            out += ["| " + " | ".join(row) + " |" for row in b[2]] + [""]
    return "\n".join(out)


def html(bl: list, title: str) -> str:
    import re

    import jinja2
    from markupsafe import Markup, escape
    env = jinja2.Environment(autoescape=True, loader=jinja2.PackageLoader("aix_exporter.report", "templates"))
    strong = re.compile(r"\*\*(.+?)\*\*")
    code = re.compile(r"`([^`]+)`")

    def inline(text):   # the Markdown the blocks use inside a paragraph: **bold** and `code`
        text = str(escape(text))
        return Markup(code.sub(r"<code>\1</code>", strong.sub(r"<strong>\1</strong>", text)))
    env.filters["inline"] = inline
    return env.get_template("plan.html.j2").render(blocks=bl, title=title)
