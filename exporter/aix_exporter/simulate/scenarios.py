"""Scenarios: timelines of an LPAR running a TSM server, in simulated seconds.

Each scenario is a list of phases; a phase holds from its start until the next
phase. Growth parameters make heap use change within a phase.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

HOUR = 3600
LDR_TUNED = "TEXTPSIZE=64K@STACKPSIZE=64K@SHMPSIZE=64K@LARGE_PAGE_DATA="
# IBM's Storage Protect start line on AIX ("Starting the server from the instance user ID"):
# the data heap, text, stack and shared memory on 64 KB pages, nothing pinned, no pool
LDR_IBM_64K = "TEXTPSIZE=64K@DATAPSIZE=64K@STACKPSIZE=64K@SHMPSIZE=64K"


@dataclass
class Phase:
    start: float                   # simulated seconds from the scenario start
    name: str
    server_up: bool = True
    lgpg_regions: int = 0          # current value
    lgpg_regions_boot: Optional[int] = None   # None: same as current
    ldr_cntrl: str = ""            # LDR_CNTRL in dsmserv's environment
    heap_l_target: int = 0         # large pages the heap wants (0 in the 4 KB regime)
    heap_growth_per_hour: float = 0.0   # large pages (or equivalent) added per hour
    pid: int = 2687182
    events: list = field(default_factory=list)   # (offset seconds, msgid, text)
    idle_drives: tuple = ()        # drives (by number) that move no data in this phase (fewer at work)
    dirty_drive: Optional[int] = None   # a drive that needs cleaning from dirty_after into the phase:
    dirty_after: float = 0.0            # half its throughput, and errpt's TAPE_ERR6 every 20 minutes

    @property
    def dirty_from(self) -> float:
        """When the phase's dirty drive starts to need cleaning (simulated seconds)."""
        return self.start + self.dirty_after

    def ldr(self, key: str) -> str:
        """One LDR_CNTRL setting ('' where unset)."""
        for item in self.ldr_cntrl.split("@"):
            if item.startswith(key + "="):
                return item.split("=", 1)[1]
        return ""

    @property
    def datapsize(self) -> str:
        """LDR_CNTRL's DATAPSIZE: the page size of the data heap outside 16 MB pages ('' = 4 KB)."""
        return self.ldr("DATAPSIZE").upper()

    @property
    def mode(self) -> str:
        """svmon -P 16MB column: N, Y or M, from LDR_CNTRL's LARGE_PAGE_DATA."""
        for item in self.ldr_cntrl.split("@"):
            if item.startswith("LARGE_PAGE_DATA="):
                return {"Y": "Y", "M": "M"}.get(item.split("=", 1)[1], "N")
        return "N"


@dataclass
class Scenario:
    name: str
    description: str
    duration: float
    phases: list
    drives: int = 8
    heap_segments: int = 8
    exhaust_fatal: bool = False    # mode M: running out of large pages kills the server
    memory_gib: int = 64           # the LPAR's real memory
    vcpus: int = 4                 # virtual processors (entitlement the same, 4 logical CPUs each)
    aso_active: bool = False       # asoo aso_active
    other_work_gib: float = 0.0    # computational memory of other work on the LPAR (4 KB pages)
    # the TSM checklist's troubles (simulate/render.py): the database backup overdue, a ninth
    # drive and its path offline, the tape pool near full and few scratch tapes
    checklist_trouble: bool = False


def case_study() -> Scenario:
    t1 = 4 * HOUR
    return Scenario(
        name="case-study",
        description="Seed 000: 4 KB pages with pin-lock contention for 4 h; lgpg_regions=160 and "
                    "LDR_CNTRL ...LARGE_PAGE_DATA=Y applied, dsmserv restarted; then the 16 MB regime.",
        duration=8 * HOUR,
        phases=[
            Phase(0, "4K", lgpg_regions=0, pid=2687182),
            Phase(t1, "tuning", server_up=False, lgpg_regions=160, pid=2687182,
                  events=[(0, "ANR0369I", "Stopping the database manager because of a server shutdown."),
                          (5, "ANR0991I", "Server shutdown complete.")]),
            Phase(t1 + 300, "16M", lgpg_regions=160, ldr_cntrl=LDR_TUNED + "Y", heap_l_target=102, pid=2753002,
                  events=[(0, "ANR0916I", "IBM Spectrum Protect distributed by International Business "
                                          "Machines is now ready for use.")]),
        ])


def exhaustion() -> Scenario:
    return Scenario(
        name="exhaustion",
        description="Mandatory large pages (LARGE_PAGE_DATA=M): the heap grows until the 16 MB pool "
                    "is exhausted; the server logs ANR9999D and ANR0358E and stays down.",
        duration=12 * HOUR,
        exhaust_fatal=True,
        phases=[Phase(0, "16M-mandatory", lgpg_regions=160, ldr_cntrl=LDR_TUNED + "M", heap_l_target=100,
                      heap_growth_per_hour=5.0, pid=2753002)])


def fallback() -> Scenario:
    return Scenario(
        name="fallback",
        description="LARGE_PAGE_DATA=Y with a pool too small: 16 MB use stays flat at the pool's limit, "
                    "4 KB use grows, pin-lock contention returns.",
        duration=8 * HOUR,
        phases=[Phase(0, "16M-undersized", lgpg_regions=64, ldr_cntrl=LDR_TUNED + "Y", heap_l_target=40,
                      heap_growth_per_hour=6.0, pid=2753002)])


def steady() -> Scenario:
    return Scenario(
        name="steady",
        description="A healthy tuned server: 16 MB pages, pool sized by the rule, no contention.",
        duration=8 * HOUR,
        phases=[Phase(0, "16M", lgpg_regions=160, ldr_cntrl=LDR_TUNED + "Y", heap_l_target=102, pid=2753002)])


def checklist_trouble() -> Scenario:
    return Scenario(
        name="checklist-trouble",
        description="The steady server whose daily checklist is not: its database backup 30 h old, a drive and "
                    "its path offline, the tape pool 96 % full and 4 scratch tapes left.",
        duration=2 * HOUR, checklist_trouble=True,
        phases=[Phase(0, "16M", lgpg_regions=160, ldr_cntrl=LDR_TUNED + "Y", heap_l_target=102, pid=2753002)])


def tight_memory() -> Scenario:
    return Scenario(
        name="tight-memory",
        description="The case study's contended 4 KB regime on a 32 GiB LPAR whose memory is mostly "
                    "computational (another 8 GiB workload beside the server): the 16 MB pool the sizing "
                    "rule asks for would leave too little for everything else.",
        duration=8 * HOUR, memory_gib=32, other_work_gib=8.0,
        phases=[Phase(0, "4K", lgpg_regions=0, pid=2687182)])


def ibm_64k_quiet() -> Scenario:
    return Scenario(
        name="ibm-64k-quiet",
        description="IBM's Storage Protect start line (LDR_CNTRL=TEXTPSIZE=64K@DATAPSIZE=64K@STACKPSIZE=64K@"
                    "SHMPSIZE=64K) with the case study's 8 drives: the heap on 64 KB pages pins a 256 KB buffer in "
                    "4 lock cycles; about 2 % misses and system/user CPU near 1, no contention worth a change.",
        duration=8 * HOUR,
        phases=[Phase(0, "64K", lgpg_regions=0, ldr_cntrl=LDR_IBM_64K, pid=2687182)])


def ibm_64k() -> Scenario:
    t1 = 4 * HOUR
    return Scenario(
        name="ibm-64k",
        description="IBM's 64 KB start line on a larger library: 48 tape drives on a 16-processor LPAR contend for "
                    "the pin lock even at 4 cycles per buffer (about 12 % misses, system CPU several times user) "
                    "for 4 h; lgpg_regions=160 and LDR_CNTRL ...LARGE_PAGE_DATA=Y applied, dsmserv restarted; then "
                    "the 16 MB regime.",
        duration=8 * HOUR, drives=48, vcpus=16, memory_gib=128,
        phases=[
            Phase(0, "64K", lgpg_regions=0, ldr_cntrl=LDR_IBM_64K, pid=2687182),
            Phase(t1, "tuning", server_up=False, lgpg_regions=160, ldr_cntrl=LDR_IBM_64K, pid=2687182,
                  events=[(0, "ANR0369I", "Stopping the database manager because of a server shutdown."),
                          (5, "ANR0991I", "Server shutdown complete.")]),
            Phase(t1 + 300, "16M", lgpg_regions=160, ldr_cntrl=LDR_TUNED + "Y", heap_l_target=102, pid=2753002,
                  events=[(0, "ANR0916I", "IBM Spectrum Protect distributed by International Business "
                                          "Machines is now ready for use.")]),
        ])


def dirty_drive() -> Scenario:
    """The case study's change, but rmt3 needs cleaning 10 minutes into the 16 MB run."""
    sc = case_study()
    sc.name = "dirty-drive"
    sc.description = ("The case study's 4 KB to 16 MB change, but one drive (rmt3) needs cleaning 10 minutes into the "
                      "after window: its throughput halves and errpt logs TAPE_ERR6 every 20 minutes.")
    sc.phases[-1].dirty_drive, sc.phases[-1].dirty_after = 3, 600.0
    return sc


def fewer_drives() -> Scenario:
    """The case study's change, but the after window runs 6 of the 8 drives."""
    sc = case_study()
    sc.name = "fewer-drives"
    sc.description = ("The case study's 4 KB to 16 MB change, but the after window runs 6 of its 8 drives (rmt6 and "
                      "rmt7 idle): fewer drives contend, and the total moves less for a reason of its own.")
    sc.phases[-1].idle_drives = (6, 7)
    return sc


SCENARIOS = {s().name: s for s in (case_study, exhaustion, fallback, steady, checklist_trouble, tight_memory,
                                   ibm_64k_quiet, ibm_64k, dirty_drive, fewer_drives)}


def get(name: str) -> Scenario:
    if name not in SCENARIOS:
        raise ValueError(f"unknown scenario {name!r}: choose one of {', '.join(sorted(SCENARIOS))}")
    return SCENARIOS[name]()
