"""The model: state of the LPAR and its TSM server at a simulated time.

Physics (calibrated to seed 000, documented in docs/simulator.md):

* Pinning a 256 KB buffer takes c lock cycles: 64 with 4 KB pages, 4 with
  64 KB, 1 with 16 MB (seed 000's table). Buffers live in the data heap, so the
  effective c is the heap's page-size mix:
  c = 64 x share_4K + 4 x share_64K + 1 x share_16M.
  The heap's page size: 16 MB pages where LDR_CNTRL asks for them
  (LARGE_PAGE_DATA=Y or M) and the pool has them; otherwise (and for what
  does not fit the pool under =Y) the data page size, 64 KB with
  DATAPSIZE=64K (IBM's Storage Protect start line), else 4 KB.
* With n tape threads in one process the VMM segment lock is contended:
  miss ratio m = 1 - 1/(1 + A c (n-1)); per-drive throughput
  T = T_MAX / (1 + K c (n-1)). A, K, T_MAX are fitted so that 8 drives give
  m = 0.25 and 139 MiB/s with 4 KB pages, 378 MiB/s with 16 MB pages.
* CPU (percent of an LPAR of 4 virtual processors, entitlement 4.0):
  us = 0.079 X u(w), sy = 4 + 0.07 X + 5m, wa = 4 + 64m, with X the total
  MiB/s and w = m (n-1) the expected waiters on the lock per pin. u(w), the
  application's work per MiB left over by the contention, is
  max(0.1, 1 - 3w/7): at the seed's 8 drives that is the fitted 1 - 3m
  (3/15/62/20 before, about 29/31/36/4 after), and it extends the seed to
  more tape threads (the collapse the seed describes: %sys several times
  %usr), floored where the threads do little else than wait. A scenario on a
  larger LPAR (``vcpus``) divides the load-driven terms by vcpus / 4.
* Large pages: the heap wants `need` 16 MB pages (its target plus growth).
  LARGE_PAGE_DATA=Y uses what the pool has left (pool minus the kernel's 16)
  and puts the rest in 4 KB pages; =M dies with ENOMEM instead (ANR9999D,
  then ANR0358E when the server cannot restart); no LARGE_PAGE_DATA keeps the
  whole heap in 4 KB pages.
* Deterministic: noise comes from a seeded hash of (seed, time step, item).
"""
from __future__ import annotations

import functools
import hashlib
import math
import threading
from array import array
from dataclasses import dataclass, field
from typing import Optional

from .scenarios import Scenario

MIB = 1 << 20
FRAME = 4096
LARGE = 16 << 20
FRAMES_PER_LARGE = LARGE // FRAME
MEM_FRAMES = 16777216          # 64 GiB LPAR
PGSP_FRAMES = 4194304          # 16 GiB paging space
LCPU, ENT, VCPU = 16, 4.0, 4
KERNEL_L = 16                  # the kernel segment's large pages (svmon -P shows them)
T_MAX = 48.58                  # MiB/s per drive without contention
K_THROUGHPUT = 0.004008
A_MISS = 0.000744
UPTIME_AT_START = 2 * 86400    # the LPAR booted two days before the scenario starts
STEP = 10.0                    # integration step of the tape counters (simulated seconds)
SNAPSHOT_EVERY = 60.0          # tape counters are kept at every multiple of this (a multiple of STEP)
BUFFER_KB = 256
CYCLES = {"4K": 64.0, "64K": 4.0, "16M": 1.0}   # lock cycles to pin a 256 KB buffer (seed 000)
USER_FLOOR = 0.1               # u(w) never falls below this share


def user_share(miss: float, drives: int) -> float:
    """u(w): the application's work per MiB left over by the lock contention, with w = m (n-1)
    the expected waiters per pin; 1 - 3w/7 is the seed's fitted 1 - 3m at 8 drives."""
    return max(USER_FLOOR, 1 - 3 * miss * (drives - 1) / 7)


def noise(seed: int, step: int, item: str, spread: float) -> float:
    """Deterministic multiplicative noise in [1-spread, 1+spread]."""
    h = hashlib.blake2b(f"{seed}:{step}:{item}".encode(), digest_size=8).digest()
    u = int.from_bytes(h, "big") / 2**64
    return 1.0 + spread * (2 * u - 1)


@dataclass
class Drive:
    name: str
    reader: bool
    mibps: float = 0.0
    busy: float = 0.0           # 0-1 over the last step
    kb_read: int = 0            # since boot
    kb_written: int = 0
    transfers: int = 0
    busy_seconds: float = 0.0


@dataclass
class State:
    t: float
    phase: str
    server_up: bool
    pid: int
    mode: str                   # N Y M
    ldr_cntrl: str
    lgpg_regions: int
    lgpg_regions_boot: int
    heap_segments: int
    heap_l: int                 # large pages used by the heap
    heap_4k_frames: int
    need_l: float
    miss_ratio: float
    c_eff: float
    total_mibps: float
    cpu: dict                   # us sy id wa (floats, percent)
    drives: list = field(default_factory=list)
    heap_64k_pages: int = 0     # the heap's 64 KB pages (DATAPSIZE=64K)
    uptime: float = 0.0
    model: Optional["Model"] = field(default=None, repr=False, compare=False)

    @property
    def log(self) -> list:
        """The activity log up to t, as (t, msgid, text); built when asked (it grows with t)."""
        return self.model.log(self.t) if self.model else []

    def heap_layout(self) -> list:
        """The heap's work segments as (psize letter, pages in that size): 16 MB
        segments hold 16 large pages, 64 KB segments 4096 pages, 4 KB segments
        65536 frames. Without large pages the heap is spread over `heap_segments`
        segments of its one page size."""
        out = []
        left = self.heap_l
        n = min(self.heap_l, max(self.heap_segments, -(-self.heap_l // 16)))
        for i in range(n):   # each segment holds 1..16 pages, filled in order
            take = min(16, left - (n - i - 1))
            out.append(("L", take))
            left -= take
        for letter, pages, per_segment in (("m", self.heap_64k_pages, 4096), ("s", self.heap_4k_frames, 65536)):
            if not pages:
                continue
            if self.heap_l == 0:
                n = self.heap_segments
                each = pages // n
                out += [(letter, each)] * (n - 1) + [(letter, pages - each * (n - 1))]
            else:
                left = pages
                while left > 0:
                    out.append((letter, min(per_segment, left)))
                    left -= per_segment
        return out

    @property
    def pool_inuse(self) -> int:
        return (KERNEL_L + self.heap_l) if self.lgpg_regions else 0

    @property
    def pool_free(self) -> int:
        return max(0, self.lgpg_regions - self.pool_inuse)


class Model:
    def __init__(self, scenario: Scenario, seed: int = 1):
        self.sc = scenario
        self.seed = seed
        # Tape counters (KB, transfers, busy seconds per drive) at t = k * SNAPSHOT_EVERY, for
        # k = 0 .. len - 1, flattened: snapshot k is _snap[k * width : (k + 1) * width]. Only
        # ever appended to, under _snap_lock; a read copies one snapshot and integrates from it.
        self._width = 3 * scenario.drives
        self._snap = array("d", [0.0] * self._width)
        self._snap_lock = threading.Lock()
        # counters(t) is pure, so the reads of one collection cycle (every command at the same
        # t, iostat also at t - interval) share one integration; lru_cache is thread-safe
        self.counters = functools.lru_cache(maxsize=64)(self._counters)
        self.exhausted_at = self._exhaustion_time()

    # -- timeline ----------------------------------------------------------
    def phase_at(self, t: float):
        cur = self.sc.phases[0]
        for p in self.sc.phases:
            if p.start <= t:
                cur = p
        return cur

    def need_l(self, phase, t: float) -> float:
        return phase.heap_l_target + phase.heap_growth_per_hour * max(0.0, t - phase.start) / 3600.0

    def _exhaustion_time(self) -> Optional[float]:
        """When a mandatory-large-page heap first needs more than the pool has."""
        if not self.sc.exhaust_fatal:
            return None
        for i, p in enumerate(self.sc.phases):
            if p.mode != "M" or not p.server_up:
                continue
            avail = p.lgpg_regions - KERNEL_L
            end = self.sc.phases[i + 1].start if i + 1 < len(self.sc.phases) else math.inf
            if p.heap_l_target > avail:
                return p.start
            if p.heap_growth_per_hour > 0:
                te = p.start + (avail - p.heap_l_target) / p.heap_growth_per_hour * 3600.0
                if te < end:
                    return te
        return None

    @staticmethod
    def dirty(phase, drive: int, t: float) -> bool:
        return phase.dirty_drive == drive and t >= phase.dirty_from

    def tape_errors(self, t: float) -> list:
        """(seconds, drive) of each TAPE_ERR6 logged up to t: every 20 minutes while a drive
        needs cleaning, from the phase's dirty_after."""
        out = []
        for i, p in enumerate(self.sc.phases):
            if p.dirty_drive is None:
                continue
            end = min(t, self.sc.phases[i + 1].start if i + 1 < len(self.sc.phases) else math.inf)
            at = p.dirty_from
            while at <= end:
                out.append((at, p.dirty_drive))
                at += 1200.0
        return out

    def server_up(self, phase, t: float) -> bool:
        if not phase.server_up:
            return False
        return self.exhausted_at is None or t < self.exhausted_at

    # -- the physics at one instant ------------------------------------------
    def regime(self, t: float) -> dict:
        p = self.phase_at(t)
        up = self.server_up(p, t)
        need = self.need_l(p, t)
        heap_l = 0
        rest = 0.0                  # the heap not in 16 MB pages, in 16 MB units
        if p.mode in ("Y", "M") and p.lgpg_regions:
            avail = max(0, p.lgpg_regions - KERNEL_L)
            heap_l = int(min(need, avail))
            rest = max(0.0, need - heap_l) if p.mode == "Y" else 0.0
        else:
            rest = need or 108
        # what is not in 16 MB pages sits in the data page size: 64 KB with DATAPSIZE=64K
        heap_64k = int(rest * FRAMES_PER_LARGE // 16) if p.datapsize == "64K" else 0
        heap_4k = 0 if heap_64k else int(rest * FRAMES_PER_LARGE)
        if not up:
            heap_l, heap_4k, heap_64k = 0, 0, 0
        total = heap_l * FRAMES_PER_LARGE + heap_4k + 16 * heap_64k
        share_4k = heap_4k / total if total else 1.0
        share_64k = 16 * heap_64k / total if total else 0.0
        c = CYCLES["4K"] * share_4k + CYCLES["64K"] * share_64k + CYCLES["16M"] * (1 - share_4k - share_64k)
        n = self.sc.drives - len(p.idle_drives)   # the drives at work contend for the lock
        miss = 1 - 1 / (1 + A_MISS * c * (n - 1)) if up else 0.0
        per_drive = T_MAX / (1 + K_THROUGHPUT * c * (n - 1)) if up else 0.0
        return {"t": t, "phase": p, "up": up, "need": need, "heap_l": heap_l, "heap_4k": heap_4k, "heap_64k": heap_64k,
                "c": c, "miss": miss, "per_drive": per_drive}

    def _drive_rates(self, r: dict, step: int) -> list:
        out = []
        p = r["phase"]
        for i in range(self.sc.drives):
            if not r["up"] or i in p.idle_drives:
                out.append((0.0, 0.0))
                continue
            mibps = r["per_drive"] * noise(self.seed, step, f"rmt{i}", 0.03)
            if self.dirty(p, i, r["t"]):   # a drive that needs cleaning: busy, at half its rate
                mibps *= 0.5
            busy = min(0.99, (0.86 + 0.06 * (1 - r["miss"] * 4)) * noise(self.seed, step, f"busy{i}", 0.02))
            out.append((mibps, busy))
        return out

    def _advance(self, acc: list, s: float, t: float) -> None:
        """Integrate the tape counters ``acc`` (flattened, as in a snapshot) from s to t in STEP
        slices aligned to multiples of STEP. A pure function of its arguments: the same
        snapshot and the same t give the same figures, bit for bit, in any order and thread."""
        while t - s > 1e-6:
            dt = min(STEP - s % STEP, t - s)
            rates = self._drive_rates(self.regime(s), int(s // STEP))
            for i, (mibps, busy) in enumerate(rates):
                kb = mibps * 1024 * dt
                acc[3 * i] += kb
                acc[3 * i + 1] += kb / BUFFER_KB
                acc[3 * i + 2] += busy * dt
            s = round(s + dt, 6)

    def _snapshot(self, k: int) -> list:
        """The counters at k * SNAPSHOT_EVERY, extending the snapshot grid to k first if needed
        (once, under the lock; later reads of any earlier instant cost at most one interval)."""
        w = self._width
        if (k + 1) * w > len(self._snap):
            with self._snap_lock:
                have = len(self._snap) // w
                acc = list(self._snap[(have - 1) * w:])
                for j in range(have, k + 1):
                    self._advance(acc, (j - 1) * SNAPSHOT_EVERY, j * SNAPSHOT_EVERY)
                    self._snap.extend(acc)
        return list(self._snap[k * w:(k + 1) * w])

    def _counters(self, t: float) -> tuple:
        """Per drive (KB moved, transfers, busy seconds) since boot at t: the nearest snapshot at
        or before t, integrated forward to t. Costs at most SNAPSHOT_EVERY / STEP steps once the
        grid reaches t, whatever t is; the same t always gives the same figures."""
        t = max(0.0, t)
        k = int(t // SNAPSHOT_EVERY)
        acc = self._snapshot(k)
        self._advance(acc, k * SNAPSHOT_EVERY, t)
        return tuple(tuple(acc[3 * i:3 * i + 3]) for i in range(self.sc.drives))

    def _drives(self, t: float, r: dict) -> list:
        """The drives at t: counters since boot and the rates of the current step."""
        out = []
        rates = self._drive_rates(r, int(t // STEP))
        for i, ((kb, xfers, busy_s), (mibps, busy)) in enumerate(zip(self.counters(t), rates)):
            reader = i < 2
            out.append(Drive(f"rmt{i}", reader=reader, mibps=mibps, busy=busy,
                             kb_read=int(kb) if reader else 0, kb_written=0 if reader else int(kb),
                             transfers=int(xfers), busy_seconds=busy_s))
        return out

    def cpu(self, r: dict, total: float, step: int) -> dict:
        m = r["miss"]
        if r["up"]:
            scale = 4.0 / self.sc.vcpus
            us = 0.079 * total * user_share(m, self.sc.drives) * scale
            sy = 4 + (0.07 * total + 5 * m) * scale
            wa = 4 + 64 * m
        else:
            us, sy, wa = 0.6, 2.0, 0.4
        us *= noise(self.seed, step, "us", 0.08)
        sy *= noise(self.seed, step, "sy", 0.05)
        wa *= noise(self.seed, step, "wa", 0.05)
        idle = max(0.0, 100 - us - sy - wa)
        return {"us": us, "sy": sy, "id": idle, "wa": wa}

    def state(self, t: float, counters: bool = True) -> State:
        """The state at t; counters=False skips the tape-counter integration
        (for an earlier vmstat row: rates only, no since-boot totals)."""
        r = self.regime(t)
        p = r["phase"]
        if counters:
            drives = self._drives(t, r)
        else:
            drives = [Drive(f"rmt{i}", reader=i < 2, mibps=m, busy=b)
                      for i, (m, b) in enumerate(self._drive_rates(r, int(t // STEP)))]
        total = sum(d.mibps for d in drives)
        step = int(t // 5)
        return State(
            t=t, phase=p.name, server_up=r["up"], pid=p.pid, mode=p.mode, ldr_cntrl=p.ldr_cntrl,
            lgpg_regions=p.lgpg_regions,
            lgpg_regions_boot=p.lgpg_regions if p.lgpg_regions_boot is None else p.lgpg_regions_boot,
            heap_segments=self.sc.heap_segments + int(max(0.0, r["need"] - 108) // 16),
            heap_l=r["heap_l"], heap_4k_frames=r["heap_4k"], heap_64k_pages=r["heap_64k"], need_l=r["need"],
            miss_ratio=r["miss"], c_eff=r["c"], total_mibps=total, cpu=self.cpu(r, total, step),
            drives=drives, uptime=UPTIME_AT_START + t, model=self)

    # -- the activity log ----------------------------------------------------
    def log(self, t: float, since: float = -1.0) -> list:
        """Messages with since < time <= t: routine backup-pool processes, scenario events,
        exhaustion. Only the 30-minute slots of that window are visited, so a read of the
        last interval costs the same at any simulated time."""
        out = []
        first = max(0, int(since // 1800) - 1) if since >= 0 else 0
        for k in range(first, int(t // 1800) + 1):
            ts = k * 1800.0 + 2
            if ts > t:
                break
            p = self.phase_at(ts)
            if not self.server_up(p, ts):
                continue
            proc = 801 + k
            out.append((ts, "ANR0984I", f"Process {proc} for BACKUP STORAGE POOL started in the BACKGROUND at "
                                        f"{{time}}. (SESSION: 1, PROCESS: {proc})"))
            out.append((ts + 2, "ANR8337I", f"LTO volume A{k % 1000:05d}L6 mounted in drive DRIVE{k % self.sc.drives} "
                                            f"(/dev/rmt{k % self.sc.drives}). (SESSION: 1, PROCESS: {proc})"))
        for p in self.sc.phases:
            for off, msgid, text in p.events:
                if p.start + off <= t:
                    out.append((p.start + off, msgid, text))
        te = self.exhausted_at
        if te is not None and te <= t:
            out.append((te, "ANR9999D", "Memory allocation error."))
        if te is not None and te + 60 <= t:
            out.append((te + 60, "ANR0358E", "Database initialization failed: sufficient memory is not available."))
        out = [m for m in out if m[0] > since]
        out.sort(key=lambda m: m[0])
        return out
