"""Render model state as the exact text AIX commands print.

Layouts are those of the real samples in ../shared/corpus and seed 000 (the
project's fixtures under tests/fixtures are written in the same layouts):
vmstat -w -l, svmon -G (7.x with mmode/other and the PageSize table),
svmon -P (6.1/7.1 with the 16MB column), vmo -L, vmstat -v, vmstat -s,
iostat -p, splat -da, ps eww and the TSM activity log.
"""
from __future__ import annotations

import time

from .model import (ENT, FRAME, FRAMES_PER_LARGE, KERNEL_L, LCPU, MEM_FRAMES, PGSP_FRAMES, VCPU, Model, State)


def cpus(s: State) -> tuple:
    """(logical CPUs, entitlement, virtual processors) of the scenario's LPAR."""
    v = s.model.sc.vcpus if s.model else VCPU
    return LCPU * v // VCPU, ENT * v / VCPU, v

RULE80 = "-" * 80


def _ts(epoch: float, fmt: str) -> str:
    return time.strftime(fmt, time.gmtime(epoch))


# -- memory bookkeeping shared by svmon -G, svmon -P, vmstat -------------------
def process_pages(s: State) -> dict:
    """dsmserv's pages per page size (in that size's units) - the one truth
    svmon -P, svmon -G and vmstat all render."""
    if not s.server_up:
        return {}
    other_4k = 93802 + 4016
    s4k = s.heap_4k_frames + other_4k
    m64 = (428 if "SHMPSIZE=64K" in s.ldr_cntrl else 221) + s.heap_64k_pages
    return {
        "s": {"inuse": s4k, "pin": 8968 if s.mode == "N" else 292, "pgsp": 0, "virtual": s4k - 4016},
        "m": {"inuse": m64, "pin": 17, "pgsp": 0, "virtual": m64},
        "L": {"inuse": s.heap_l + KERNEL_L, "pin": s.heap_l + KERNEL_L, "pgsp": 0, "virtual": s.heap_l + KERNEL_L}
        if s.lgpg_regions else None,
    }


def mem_frames(s: State) -> int:
    """The LPAR's real memory in 4 KB frames (the scenario's; 64 GiB without a model)."""
    return s.model.sc.memory_gib * (1 << 30) // FRAME if s.model else MEM_FRAMES


def system_pages(s: State) -> dict:
    proc = process_pages(s)
    other = int(s.model.sc.other_work_gib * (1 << 30)) // FRAME if s.model else 0
    base_s = {"inuse": 4100000 + other, "pin": 1320000, "pgsp": 81920, "virtual": 1540000 + other}
    base_m = {"inuse": 222000, "pin": 51000, "pgsp": 0, "virtual": 222000}
    sp = {k: base_s[k] + proc.get("s", {}).get(k, 0) for k in base_s}
    mp = {k: base_m[k] + proc.get("m", {}).get(k, 0) for k in base_m}
    # file pages give way where memory is short: keep 2 % of it free, never below the computational
    over = sp["inuse"] + 16 * mp["inuse"] + s.lgpg_regions * FRAMES_PER_LARGE - mem_frames(s) * 98 // 100
    if over > 0:
        sp["inuse"] = max(sp["virtual"], sp["inuse"] - over)
    out = {"s": sp, "m": mp}
    if s.lgpg_regions:
        lin = s.pool_inuse
        out["L"] = {"pool": s.lgpg_regions, "inuse": lin, "pgsp": 0, "pin": s.lgpg_regions, "virtual": lin}
    return out


def memory_frames(s: State) -> dict:
    pages = system_pages(s)
    pool_frames = s.lgpg_regions * FRAMES_PER_LARGE
    inuse = pages["s"]["inuse"] + 16 * pages["m"]["inuse"] + pool_frames
    pin = pages["s"]["pin"] + 16 * pages["m"]["pin"] + pool_frames
    virtual = pages["s"]["virtual"] + 16 * pages["m"]["virtual"] + (s.pool_inuse * FRAMES_PER_LARGE if s.lgpg_regions else 0)
    size = mem_frames(s)
    return {"size": size, "inuse": inuse, "free": size - inuse, "pin": pin, "virtual": virtual}


# -- commands ---------------------------------------------------------------
def vmstat(model: Model, s: State, interval: int = 5) -> str:
    prev = model.state(max(0.0, s.t - interval), counters=False)
    lcpu, ent, vcpu = cpus(s)
    rows = []
    for st in (prev, s):
        mem = memory_frames(st)
        c = st.cpu
        us, sy, wa = round(c["us"]), round(c["sy"]), round(c["wa"])
        idle = max(0, 100 - us - sy - wa)
        pc = (c["us"] + c["sy"]) / 100.0 * vcpu
        ec = pc / ent * 100
        io = st.total_mibps * 4
        rows.append(f"{3 + int(io // 200):3d} {int(st.miss_ratio * 8):3d} {mem['virtual']:10d} {mem['free']:10d} "
                    f"{0:5d} {0:5d} {0:5d} {0:5d} {0:6d} {0:5d} {int(2200 + io * 9):5d} {int(24000 + io * 7):6d} "
                    f"{int(30000 + io * 3):5d} {us:2d} {sy:2d} {idle:2d} {wa:2d} {pc:5.2f} {ec:5.1f} "
                    f"{st.pool_inuse:6d} {st.pool_free:6d}")
    return ("\nSystem configuration: lcpu=%d mem=%dMB ent=%.2f\n\n" % (lcpu, mem_frames(s) * FRAME // (1 << 20), ent) +
            " kthr          memory                         page                       faults           cpu                 large-page\n"
            "------- --------------------- ------------------------------------ ------------------ ----------------------- -------------\n"
            "  r   b        avm        fre    re    pi    po    fr     sr    cy    in     sy    cs us sy id wa    pc    ec    alp    flp\n"
            + "\n".join(rows) + "\n")


def svmon_g(s: State) -> str:
    mem = memory_frames(s)
    pages = system_pages(s)
    lines = [
        "               size       inuse        free         pin     virtual   mmode",
        f"memory {mem['size']:12d}{mem['inuse']:12d}{mem['free']:12d}{mem['pin']:12d}{mem['virtual']:12d}     Ded",
        f"pg space {PGSP_FRAMES:10d}{81920:12d}",
        "",
        "               work        pers        clnt       other",
        f"pin    {mem['pin'] - 594432:12d}{0:12d}{0:12d}{594432:12d}",
        f"in use {mem['virtual']:12d}{0:12d}{mem['inuse'] - mem['virtual']:12d}",
        "",
        "PageSize   PoolSize       inuse        pgsp         pin     virtual",
    ]
    for letter, label in (("s", "s    4 KB"), ("m", "m   64 KB"), ("L", "L   16 MB")):
        p = pages.get(letter)
        if p is None:
            continue
        pool = f"{p['pool']:>10}" if "pool" in p else f"{'-':>10}"
        lines.append(f"{label} {pool}{p['inuse']:12d}{p['pgsp']:12d}{p['pin']:12d}{p['virtual']:12d}")
    return "\n".join(lines) + "\n"


def svmon_p(s: State) -> str:
    pages = process_pages(s)
    totals = {k: pages["s"][k] + 16 * pages["m"][k] + (FRAMES_PER_LARGE * pages["L"][k] if pages["L"] else 0)
              for k in ("inuse", "pin", "pgsp", "virtual")}
    out = ["", "-" * 79,
           "     Pid Command          Inuse      Pin     Pgsp  Virtual 64-bit Mthrd  16MB",
           f"{s.pid:8d} dsmserv  {totals['inuse']:13d}{totals['pin']:9d}{totals['pgsp']:9d}{totals['virtual']:9d}"
           f"      Y     Y     {s.mode}",
           "",
           "     PageSize                Inuse        Pin       Pgsp    Virtual"]
    for letter, label in (("s", "s    4 KB"), ("m", "m   64 KB"), ("L", "L   16 MB")):
        p = pages.get(letter)
        if p:
            out.append(f"     {label}  {p['inuse']:18d}{p['pin']:11d}{p['pgsp']:11d}{p['virtual']:11d}")
    out += ["", "    Vsid      Esid Type Description              PSize  Inuse   Pin Pgsp Virtual"]
    segs: list = []
    for i, (ps, use) in enumerate(s.heap_layout()):
        vsid = f"{(0x830bc3 if ps == 'L' else 0x1160816) + i * 0x10101:x}"
        segs.append((vsid, f"{0x11 + i:x}", "work", "text data BSS heap", ps, use, use if ps == "L" else 0, 0, use))
    if pages["L"]:
        segs.append(("0", "0", "work", "kernel segment (lgpg vsid=0)", "L", KERNEL_L, KERNEL_L, 0, KERNEL_L))
    segs.append(("8002ca", "9ffffffe", "work", "shared library text", "m", pages["m"]["inuse"], 17, 0, pages["m"]["inuse"]))
    segs.append(("8b050b", "-", "work", "", "s", 93802, pages["s"]["pin"], 0, 93802))
    segs.append(("9c0a2c", "-", "clnt", "/dev/tsmwin_lv:4106", "s", 4016, 0, "-", "-"))
    for v, e, t, d, ps, inuse, pin, pgsp, virt in segs:
        out.append(f"{v:>9} {e:>9} {t} {d:<28}{ps:>2} {inuse:6} {pin:5} {pgsp:>4} {virt:>7}")
    return "\n".join(out) + "\n"


def _agent_segments(k: int) -> list:
    """A storage agent's segment rows (Vsid, Esid, Type, Description, PSize, Inuse, Pin, Pgsp,
    Virtual), shaped like IBM's svmon -P sample: about ten segments, most of them small."""
    heap, m64 = 20000 + 37 * k, 300 + k % 50
    return [
        (f"{0x1160816 + k:x}", "11", "work", "text data BSS heap", "s", heap, 0, 0, heap),
        ("0", "0", "work", "kernel segment", "m", m64 - 80, 10, 0, m64 - 80),
        ("8002ca", "9ffffffe", "work", "shared library text", "m", 80, 0, 0, 80),
        (f"{0x1270a4c + k:x}", "f00000002", "work", "process private", "s", 1210 + k % 97, 3840, 0, 1210 + k % 97),
        (f"{0x1380b5d + k:x}", "9001000a", "work", "shared library data", "s", 412, 0, 0, 412),
        ("a10f31", "10", "clnt", "code,/dev/hd2:2392", "s", 2264, 0, "-", "-"),
        (f"{0x1490c6e + k:x}", "8fffffff", "work", "", "s", 96, 0, 0, 96),
        (f"{0x15a0d7f + k:x}", "-", "clnt", "/dev/tsmdb_lv:4117", "s", 352, 0, "-", "-"),
        (f"{0x16b0e80 + k:x}", "70000000", "work", "shared memory segment", "s", 64, 0, 0, 64),
        (f"{0x17c0f91 + k:x}", "-", "mmap", "mapped to sid 1160816", "s", 0, 0, "-", "-"),
        (f"{0x18d10a2 + k:x}", "-", "clnt", "/dev/hd9var:4135", "s", 8, 0, "-", "-"),
    ]


def storage_agents_svmon(n: int) -> str:
    """n storage-agent processes (dsmsta), for scaling benchmarks; each PageSize row is the sum
    of the segment rows of that size, and the Inuse column the sum in 4 KB frames."""
    out = []
    for k in range(n):
        pid = 3014682 + 131 * k
        segs = _agent_segments(k)
        sums = {ps: [sum(r[i] for r in segs if r[4] == ps and r[i] != "-") for i in (5, 6, 7, 8)] for ps in ("s", "m")}
        total = [sums["s"][i] + 16 * sums["m"][i] for i in range(4)]
        out += ["", "-" * 79,
                "     Pid Command          Inuse      Pin     Pgsp  Virtual 64-bit Mthrd  16MB",
                f"{pid:8d} dsmsta   {total[0]:13d}{total[1]:9d}{total[2]:9d}{total[3]:9d}      Y     Y     N",
                "", "     PageSize                Inuse        Pin       Pgsp    Virtual"]
        for ps, label in (("s", "s    4 KB"), ("m", "m   64 KB")):
            v = sums[ps]
            out.append(f"     {label}  {v[0]:18d}{v[1]:11d}{v[2]:11d}{v[3]:11d}")
        out += ["", "    Vsid      Esid Type Description              PSize  Inuse   Pin Pgsp Virtual"]
        out += [f"{v:>9} {e:>9} {t} {d:<28}{ps:>2} {inuse:6} {pin:5} {pgsp:>4} {virt:>7}"
                for v, e, t, d, ps, inuse, pin, pgsp, virt in segs]
    return "\n".join(out) + ("\n" if out else "")


def storage_agents_ps(n: int) -> str:
    return "".join(f"{3014682 + 131 * k:9d}      - A    1:02 /usr/tivoli/tsm/StorageAgent/bin/dsmsta quiet "
                   f"_=/usr/bin/nohup LANG=C PATH=/usr/bin:/etc:/usr/sbin LOGNAME=root\n" for k in range(n))


def vmo(s: State) -> str:
    return (
        "NAME                      CUR    DEF    BOOT   MIN    MAX    UNIT           TYPE\n"
        "     DEPENDENCIES\n" + RULE80 + "\n"
        f"{'lgpg_regions':<26}{s.lgpg_regions:<7}{0:<7}{s.lgpg_regions_boot:<7}{0:<7}{'8E-1':<7}{'':<18}D\n"
        "     lgpg_size\n" + RULE80 + "\n"
        f"{'lgpg_size':<26}{'16M' if s.lgpg_regions else '0':<7}{0:<7}{'16M' if s.lgpg_regions_boot else '0':<7}"
        f"{0:<7}{'16M':<7}{'bytes':<18}D\n"
        "     lgpg_regions\n" + RULE80 + "\n")


def asoo(s: State) -> str:
    """asoo -a: ASO's two tunables, as AIX 7.x prints them."""
    return f"aso_active = {1 if s.model and s.model.sc.aso_active else 0}\ndebug_level = -1\n"


def vmstat_v(s: State) -> str:
    mem = memory_frames(s)
    k = int(s.t // 60)
    size = mem_frames(s)
    rows = [(size, "memory pages"), (size - s.lgpg_regions * FRAMES_PER_LARGE - 582432, "lruable pages"),
            (mem["free"], "free pages"), (4, "memory pools"), (mem["pin"], "pinned pages"),
            (80.0, "maxpin percentage"), (3.0, "minperm percentage"), (90.0, "maxperm percentage"),
            (round(mem["inuse"] / size * 30, 1), "numperm percentage"), (2529152, "file pages"),
            (0.0, "compressed percentage"), (0, "compressed pages"),
            (round(mem["inuse"] / size * 30, 1), "numclient percentage"), (90.0, "maxclient percentage"),
            (2529152, "client pages"), (0, "remote pageouts scheduled"),
            (27 + k // 20, "pending disk I/Os blocked with no pbuf"), (0, "paging space I/Os blocked with no psbuf"),
            (2228, "filesystem I/Os blocked with no fsbuf"), (0, "client filesystem I/Os blocked with no fsbuf"),
            (4130 + k // 3, "external pager filesystem I/Os blocked with no fsbuf"),
            (round(mem["virtual"] / size * 100, 1), "percentage of memory used for computational pages")]
    return "".join(f"{v:>21} {label}\n" if isinstance(v, int) else f"{v:>21.1f} {label}\n" for v, label in rows)


def vmstat_s(s: State) -> str:
    up = int(s.uptime)
    xfers = sum(d.transfers for d in s.drives)
    rows = [(410356781 + up * 900, "total address trans. faults"), (602193 + up // 3, "page ins"),
            (3309102 + up // 2, "page outs"), (118, "paging space page ins"), (420, "paging space page outs"),
            (0, "total reclaims"), (201839911 + up * 400, "zero filled pages faults"),
            (9313 + up // 100, "executable filled pages faults"), (1204448, "pages examined by clock"),
            (2, "revolutions of the clock hand"), (380271, "pages freed by the clock"),
            (13904226 + up * 11, "backtracks"), (17, "free frame waits"), (0, "extend XPT waits"),
            (9011 + up // 50, "pending I/O waits"), (3911405 + xfers, "start I/Os"), (1822934 + xfers, "iodones"),
            (984311870 + up * 30000, "cpu context switches"), (21344108 + up * 2200, "device interrupts"),
            (52144098 + up * 600, "software interrupts"), (443392011 + up * 1600, "decrementer interrupts"),
            (8810 + up // 10, "mpc-sent interrupts"), (8810 + up // 10, "mpc-receive interrupts"),
            (0, "phantom interrupts"), (0, "traps"), (1989400130 + up * 24000, "syscalls")]
    return "".join(f"{v:>21} {label}\n" for v, label in rows)


def iostat_tape(model: Model, s: State, interval: int = 5) -> str:
    """iostat -p INTERVAL 2 read when it ends (at s.t): the report since boot printed at
    s.t - interval, then the report of the interval (rates and KB of that interval)."""
    prev = model.state(max(0.0, s.t - interval))
    lcpu, ent, vcpu = cpus(s)

    def report(rows):
        return ["", "tty:      tin         tout    avg-cpu: % user % sys % idle % iowait physc % entc",
                f"          0.1         12.4             {s.cpu['us']:6.1f} {s.cpu['sy']:5.1f} {s.cpu['id']:6.1f}"
                f" {s.cpu['wa']:8.1f} {(s.cpu['us'] + s.cpu['sy']) / 100 * vcpu:5.2f} "
                f"{(s.cpu['us'] + s.cpu['sy']) / 100 * vcpu / ent * 100:6.1f}",
                "", "Tapes:       % tm_act     Kbps      tps    Kb_read   Kb_wrtn"] + rows

    boot = []
    for d in prev.drives:
        kb = d.kb_read + d.kb_written
        boot.append(f"{d.name:<12}{d.busy_seconds / prev.uptime * 100:8.1f}{kb / prev.uptime:10.1f}"
                    f"{d.transfers / prev.uptime:9.1f} {d.kb_read:10d} {d.kb_written:9d}")
    last = []
    for p, d in zip(prev.drives, s.drives):
        kb_r, kb_w = d.kb_read - p.kb_read, d.kb_written - p.kb_written
        busy = min(100.0, (d.busy_seconds - p.busy_seconds) / interval * 100)
        last.append(f"{d.name:<12}{busy:8.1f}{(kb_r + kb_w) / interval:10.1f}"
                    f"{(d.transfers - p.transfers) / interval:9.1f} {kb_r:10d} {kb_w:9d}")
    head = [f"System configuration: lcpu={lcpu} drives=6 ent={ent:.2f} paths=12 vdisks=0 tapes={len(s.drives)}"]
    return "\n".join([""] + head + report(boot) + report(last)) + "\n"


def ps_env(s: State) -> str:
    env = "_=/usr/bin/nohup LANG=C " + (f"LDR_CNTRL={s.ldr_cntrl} " if s.ldr_cntrl else "") + \
          "PATH=/usr/bin:/etc:/usr/sbin LOGNAME=tsminst1 DSMSERV_DIR=/opt/tivoli/tsm/server/bin"
    mins = int(s.t // 60) % 100000
    return ("      PID    TTY STAT  TIME COMMAND\n"
            f"{s.pid:9d}      - A    {mins // 60}:{mins % 60:02d} /opt/tivoli/tsm/server/bin/dsmserv -u tsminst1 "
            f"-i /tsminst1 -q {env}\n")


def splat(s: State, epoch: float, window: float = 5.0) -> str:
    x = s.total_mibps
    io = x * 4                      # 256 KB I/Os per second
    m = s.miss_ratio
    lcpu = cpus(s)[0]
    funcs = [(".pin_seg_range", int(io * s.c_eff * 2 * window), m * 100, 1.35 * m),
             (".xlpin", int(io * 10 * 1.1 * window), m * 38, 0.4 * m),
             (".as_geth", int(1578 * (0.3 + x / 200)), m * 50, 0.6 * m),
             (".tcp_input0", int(11623 * (0.2 + x / 378) * 0.8), 11.96, 0.136),
             (".soreceive", int(12598 * (0.2 + x / 378) * 0.8), 10.10, 0.112),
             (".in_pcbhashlookup", int(11623 * (0.2 + x / 378) * 0.8), 6.40, 0.068)]
    pin_acq = funcs[0][1]
    locks = [("F10007165096B6F8", pin_acq, int(pin_acq * m * 1.35), m * 100),
             ("F100071650963FB8", int(5330 * (0.2 + x / 378)), int(1278 * (0.2 + x / 378)), 19.3402),
             ("F100060046ED8180", int(2381 * (0.2 + x / 378)), 78, 3.1720),
             ("F100060046ED8780", int(1985 * (0.2 + x / 378)), 52, 2.5528)]
    locks.sort(key=lambda l: -l[1])
    total = sum(l[1] for l in locks) or 1
    out = ["*" * 89,
           "splat Cmd: splat -i trace.lock.tr -n trace.syms -da -p -o splat.out",
           "Trace Cmd: trace -a -C all -J splat -T 20000000 -L 200000000 -o trace.raw",
           "Trace Host: tsmsrv01 (00F6A3E14C00) AIX 7.1",
           f"Trace Date: {_ts(epoch, '%a %b %d %H:%M:%S %Y')}",
           "PURR was used to calculate CPU times.",
           f"Elapsed Real Time: {window:.6f}",
           f"Number of CPUs Traced: {lcpu} (Observed):{lcpu}",
           f"Cumulative CPU Time: {window * lcpu:.6f}",
           "*" * 89, "", "*" * 105, "10 max entries, Summary sorted by Acquisitions:", "",
           "                        T Acqui-        Wait",
           "                        y sitions        or                      Locks or      Percent Holdtime",
           "Lock Names,             p or           Trans-                     Passes   Real     Real     Comb",
           "Class, or Address       e Passes Spins  form    %Miss   %Total   / CSec    CPU      Elapse   Spin",
           "**********************  * ****** ***** ****     *****   ******  *********  *******  ******   *******"]
    for name, acq, spins, miss in locks:
        out.append(f"{name:<24}D {acq:<6} {spins:<5} {0:<8} {miss:7.4f}  {acq / total * 100:7.4f}  "
                   f"{acq / window / 100:9.3f}  {min(99.9, 5 * m + 0.5):7.4f}  {min(99.9, 8 * m + 0.8):7.4f}  {m * 2.5:7.4f}")
    out += ["*" * 105, "",
            "[AIX SIMPLE Lock]                 ADDRESS: F10007165096B6F8          KEX: unknown",
            "=" * 86,
            f"         |              Trans-         |                  | Percent Held ( {window:9.6f}s )",
            "Type:    |  Miss  Spin   form   Busy   |    Secs Held     |  Real  Real    Comb   Real",
            "Disabled |  Rate  Count  Count  Count  |CPU      Elapsed  |  CPU  Elapsed  Spin   Wait",
            f"         |{m * 100:7.3f} {int(pin_acq * m * 1.35):<6} {0:<9} {0:<4}|{0.05 * window * m:8.6f} "
            f"{0.085 * window * m:8.6f} |  {5 * m:4.2f}   {8 * m:4.2f}   {m * 2.5:4.2f}   0.00",
            "-" * 86,
            f"Total Acquisitions: {pin_acq:7d} |SpinQ   Min   Max   Avg  | Krlocks SpinQ Min   Max   Avg",
            "Acq. holding krlock:      0 |Depth   0     7     2    | Depth         0     0     0",
            "-" * 86, "",
            "                  Acqui-   Miss  Spin   Transf.  Busy    Percent Held of Total Time",
            "Function Name    sitions   Rate  Count  Count   Count    CPU   Elapse  Spin   Transf.  Return Address   Start Address    Offset",  # noqa: E501 (splat's own)
            "^^^^^^^^^^^^^^^  ^^^^^^^^ ^^^^^^ ^^^^^^ ^^^^^^^ ^^^^^^  ^^^^^^ ^^^^^^ ^^^^^^ ^^^^^^^  ^^^^^^^^^^^^^^^^ ^^^^^^^^^^^^^^^^ ^^^^^^^^"]  # noqa: E501
    for i, (name, acq, rate, spin_factor) in enumerate(funcs):
        out.append(f"{name:<17}{acq:8d} {rate:6.2f} {int(acq * spin_factor):6d}  0       0        "
                   f"{min(99.99, acq / 20000):5.2f}  {min(99.99, acq / 12000):5.2f}  {rate / 40:5.2f}   0.00    "
                   f"{0x72A44 + i * 0x1000:016X} {0x72800 + i * 0x1000:016X} {0x244 + i:08X}")
    return "\n".join(out) + "\n"


def actlog(messages: list, epoch0: float) -> str:
    """The activity log as dsmadmc prints it: date, time, two spaces, id, text
    wrapped at 58 columns with continuation lines indented to column 22.
    ``messages`` are the model's (t, msgid, text), in time order."""
    out = []
    for t, msgid, text in messages:
        when = epoch0 + t
        text = text.replace("{time}", _ts(when, "%H:%M:%S"))
        words, lines, cur = text.split(), [], ""
        for w in words:
            if cur and len(cur) + 1 + len(w) > 58:
                lines.append(cur)
                cur = w
            else:
                cur = f"{cur} {w}" if cur else w
        lines.append(cur)
        out.append(f"{_ts(when, '%m/%d/%Y %H:%M:%S')}  {msgid} {lines[0]}")
        out += [" " * 22 + l for l in lines[1:]]
    return "\n".join(out) + ("\n" if out else "")


# -- the TSM server's view (dsmadmc -dataonly=yes [-comma]) ---------------------------------
NO_MATCH = "ANR2034E {what}: No match found using this criteria.\n"
PROCESS_START = 1800.0   # a BACKUP STORAGE POOL process starts every 30 simulated minutes (model.log)


def _since(model: Model, t: float, t0: float) -> list:
    """Per drive, KB moved between simulated times t0 and t (whole KB, as the counters show)."""
    return [int(a[0]) - int(b[0]) for a, b in zip(model.counters(t), model.counters(t0))]


def tsm_processes(model: Model, s: State) -> str:
    if not s.server_up:
        return NO_MATCH.format(what="SELECT")
    start = (s.t // PROCESS_START) * PROCESS_START
    kb = sum(_since(model, s.t, start))
    num = 801 + int(s.t // PROCESS_START)
    return f"{num},Backup Storage Pool,{kb * 1024},{int(kb // (64 * 1024))}\n"


def tsm_sessions(s: State) -> str:
    if not s.server_up:
        return NO_MATCH.format(what="SELECT")
    rows = []
    for i, client in enumerate(("TSMCLI01", "TSMCLI02", "DB2PRD01")):
        received = int(s.t * (12 + 5 * i) * 1024 * 1024)
        rows.append(f"{4711 + i},{client},{int(received / 4000)},{received}")
    return "\n".join(rows) + "\n"


def tsm_mounts(s: State) -> str:
    if not s.server_up:
        return NO_MATCH.format(what="QUERY MOUNT")
    lines = [f"ANR8330I LTO volume A{i:05d}L6 is mounted R/W in drive DRIVE{i} (/dev/{d.name}), status: IN USE."
             for i, d in enumerate(s.drives)]
    lines.append(f"ANR8334I         {len(s.drives)} matches found.")
    return "\n".join(lines) + "\n"


def tsm_summary(model: Model, s: State, hours: int = 24) -> str:
    done = int(min(s.t, hours * 3600.0) // PROCESS_START)
    if done == 0:
        return NO_MATCH.format(what="SELECT")
    start = max(0.0, (s.t // PROCESS_START) * PROCESS_START - done * PROCESS_START)
    kb = sum(_since(model, (s.t // PROCESS_START) * PROCESS_START, start))
    return f"STGPOOL BACKUP,{kb * 1024},{done}\n"


# The daily checklist (tsm_db, tsm_log): a 2 TiB file system for a 625 GiB database growing
# 120 MB an hour, backed up daily at 03:00 of the simulated day before the scenario (so 3 h
# before its start, then every 24 h); a 32 GiB active log; the archive log's 1 TiB file system
# fills between backups and is emptied by each.
DB_FS_MB = 2_097_152
DB_USED_MB = 640_000.0
ARCH_FS_MB = 1_048_576


def _db2_time(epoch: float) -> str:
    """A timestamp as the server's select prints it (its local time: UTC in the simulator)."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(epoch)) + ".000000"


def _since_backup(t: float, overdue: bool = False) -> float:
    """Seconds since the last database backup: daily at 03:00, or (a checklist in trouble) none
    since 30 h before the scenario's start."""
    return t + 30 * 3600.0 if overdue else (t + 3 * 3600.0) % 86400.0


def tsm_db(s: State, epoch0: float, overdue: bool = False) -> str:
    used = DB_USED_MB + s.t / 3600.0 * 120
    free = DB_FS_MB - used - 20_000
    pages = int(used * 32)   # 32 KB pages
    total_pages = int((used + 51_200) * 32)
    now = epoch0 + s.t
    return (f"98.3,TSMDB1,{total_pages - pages},{free:.2f},{_db2_time(now - _since_backup(s.t, overdue))},99.1,0,"
            f"{int(4_000_000_000 + s.t * 9000)},{total_pages},{DB_FS_MB},{total_pages - 1024},{used:.2f},{pages},"
            f"{_db2_time(now)}\n")


def tsm_log(s: State) -> str:
    active_used = 342.0 + (s.t % 3600.0) / 3600.0 * 2048
    arch_used = 20_000.0 + _since_backup(s.t) / 3600.0 * 9_000
    return (f"{32768 - active_used:.2f},32768.00,{active_used:.2f},{ARCH_FS_MB - arch_used:.2f},{ARCH_FS_MB:.2f},"
            f"{arch_used:.2f}\n")


# The checklist's storage (tsm_stgpools, tsm_libvolumes, tsm_drives, tsm_paths): a disk pool
# that fills during the day's backups and is migrated each hour, an LTO-7 tape pool slowly filling
# and its copy pool, one TS4500 library with the scenario's drives (DRIVE0 on /dev/rmt0, as
# q mount shows them), its scratch tapes used up at two an hour. A checklist in trouble adds a
# drive the workload does not use, offline with its path, and leaves the tape pool 96 % full
# with 4 scratch tapes.
SERVER = "TSMSRV"
LIBRARY = "TS4500"


def _pools(s: State, trouble: bool) -> list:
    """(pool, device class, capacity MB, PCT_UTILIZED, PCT_LOGICAL, pool type)."""
    disk = 10.0 + (s.t % 3600.0) / 3600.0 * 60.0
    tape = 96.2 if trouble else 42.6 + s.t / 3600.0 * 0.05
    return [("BACKUPPOOL", "DISK", "512000.0", disk, disk, "PRIMARY"),
            ("TAPEPOOL", "LTO7", "3199882345.5", tape, tape + 1.5, "PRIMARY"),
            ("COPYPOOL", "LTO7", "1599941172.7", 80.4, 81.0, "COPY")]


def tsm_stgpools(s: State, trouble: bool) -> str:
    return "".join(f"{dc},{mb},,,,{logical:.1f},{used:.1f},{kind},{name},DEVCLASS,,\n"
                   for name, dc, mb, used, logical, kind in _pools(s, trouble))


def tsm_libvolumes(s: State, trouble: bool) -> str:
    scratch = 4 if trouble else max(0, 153 - int(s.t // 1800))
    return f"LTO-7,Private,{LIBRARY},1082\nLTO-7,Scratch,{LIBRARY},{scratch}\n"


def _library_drives(s: State, trouble: bool) -> list:
    """(drive, device, online): the scenario's drives, and an offline spare in trouble."""
    drives = [(f"DRIVE{i}", f"/dev/{d.name}", True) for i, d in enumerate(s.drives)]
    if trouble:
        drives.append((f"DRIVE{len(s.drives)}", f"/dev/rmt{len(s.drives)}", False))
    return drives


def tsm_drives(s: State, trouble: bool) -> str:
    return "".join(f"{LIBRARY},{name},{'YES' if up else 'NO'},{'LOADED' if up else 'UNAVAILABLE'},"
                   f"{f'A{i:05d}L6' if up else ''}\n" for i, (name, _, up) in enumerate(_library_drives(s, trouble)))


def tsm_paths(s: State, trouble: bool) -> str:
    rows = [f"{SERVER},{LIBRARY},LIBRARY,,/dev/smc0,YES"]
    rows += [f"{SERVER},{name},DRIVE,{LIBRARY},{device},{'YES' if up else 'NO'}"
             for name, device, up in _library_drives(s, trouble)]
    return "\n".join(rows) + "\n"


# The checklist's health (tsm_events, tsm_monitor): 40 client nodes on one nightly schedule,
# so the last 24 hours hold one event each, all completed (a checklist in trouble: 3 failed and
# 2 missed); the status monitor's active rows, refreshed every 5 minutes: the two rows of IBM's
# documented example and one per storage pool, the tape pool's in ERROR in trouble (96 % used),
# and in trouble a WARNING row for the offline drive.
NODES = 40


def tsm_events(s: State, trouble: bool) -> str:
    """(``s``: asked of a running server only, as every checklist query.)"""
    failed, missed = (3, 2) if trouble else (0, 0)
    statuses = ["Failed"] * failed + ["Missed"] * missed
    statuses += ["Completed"] * (NODES - len(statuses))
    return "".join(f"DAILY_INCR,{st}\n" for st in statuses)


def tsm_monitor(s: State, epoch0: float, trouble: bool) -> str:
    refreshed = epoch0 + (s.t // 300.0) * 300.0
    when = time.strftime("%m/%d/%Y %H:%M:%S", time.gmtime(refreshed))
    rows = [("CAPACITY OF PRIMARY DISK AND FILE STORAGE", "", "0", "NORMAL"),
            ("USED CAPACITY OF PRIMARY DISK AND FILE STORAGE", "", "0", "NORMAL")]
    rows += [("STORAGE POOL UTILIZATION", pool, f"{pct:.1f}",
              "ERROR" if pct > 95 else "WARNING" if pct > 85 else "NORMAL")
             for pool, _, _, pct, _, _ in _pools(s, trouble)]
    if trouble:
        rows.append(("OFFLINE DRIVES", "", "1", "WARNING"))
    return "".join(f"{SERVER},{when},{act},{elem or act},{val},,{state}\n" for act, elem, val, state in rows)


# The error log (errpt -a): errdemon's start an hour before the scenario, then, for a checklist
# in trouble, its offline drive's errors: a media error 10 minutes in, then "needs cleaning"
# every 20 minutes. Newest first, as errpt prints them.
ERRPT_RULE = "-" * 75


def _errpt_entry(label: str, ident: str, epoch: float, seq: int, cls: str, kind: str, resource: str, rclass: str,
                 description: str) -> str:
    when = time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime(epoch))
    lines = [ERRPT_RULE, f"LABEL:          {label}", f"IDENTIFIER:     {ident}", "", f"Date/Time:       {when}",
             f"Sequence Number: {seq}", "Machine Id:      00C8D4F54C00", f"Node Id:         {SERVER.lower()}",
             f"Class:           {cls}", f"Type:            {kind}", "WPAR:            Global",
             f"Resource Name:   {resource:<16}"]
    if rclass:
        lines += [f"Resource Class:  {rclass}", "Resource Type:   3580"]
    return "\n".join(lines + ["", "Description", description, "", "Probable Causes", "UNDETERMINED", ""])


def errpt(s: State, epoch0: float, trouble: bool) -> str:
    entries = [(-3600.0, "ERRLOG_ON", "9DBCFDEE", "O", "TEMP", "errdemon", "", "ERROR LOGGING TURNED ON")]
    if trouble:
        rmt = f"rmt{len(s.drives)}"
        entries.append((600.0, "TAPE_ERR1", "4865FA9B", "H", "PERM", rmt, "tape", "TAPE OPERATION ERROR"))
        entries += [(1200.0 * k, "TAPE_ERR6", "0000E6E6", "H", "TEMP", rmt, "tape", "TAPE DRIVE NEEDS CLEANING")
                    for k in range(1, int(s.t // 1200.0) + 1)]
    entries += [(at, "TAPE_ERR6", "0000E6E6", "H", "TEMP", f"rmt{d}", "tape", "TAPE DRIVE NEEDS CLEANING")
                for at, d in (s.model.tape_errors(s.t) if s.model else [])]
    entries = sorted((e for e in entries if e[0] <= s.t), key=lambda e: e[0])
    text = [_errpt_entry(label, ident, epoch0 + at, 1000 + i, cls, kind, res, rc, desc)
            for i, (at, label, ident, cls, kind, res, rc, desc) in enumerate(entries)]
    return "\n".join(reversed(text)) + "\n"


# -- one renderer per command key (the keys of the package's command table) ---------------
class ProcessDown(Exception):
    """The monitored server is not running: a per-process command has nothing to report."""


class Context:
    """What a renderer needs: the model, its state at simulated time t, the wall time of
    t = 0, and how many monitored processes to show (extra ones are storage agents)."""
    __slots__ = ("model", "state", "t", "epoch0", "processes", "interval")

    def __init__(self, model: Model, state: State, t: float, epoch0: float, processes: int = 1, interval: int = 5):
        self.model, self.state, self.t, self.epoch0, self.processes = model, state, t, epoch0, processes
        self.interval = interval   # of the interval commands (iostat -p INTERVAL 2)


def _running(ctx: Context) -> State:
    if not ctx.state.server_up:
        raise ProcessDown("dsmserv is not running")
    return ctx.state


class ServerDown(Exception):
    """The TSM server does not answer dsmadmc: its query fails, as on AIX (the checklist's
    collectors fail with this one reason; a per-process command has no data instead)."""


def _answering(ctx: Context) -> State:
    if not ctx.state.server_up:
        raise ServerDown("ANS1017E Session rejected: TCP/IP connection failure")
    return ctx.state


RENDERERS = {
    "vmstat": lambda c: vmstat(c.model, c.state),
    "vmstat_v": lambda c: vmstat_v(c.state),
    "vmstat_s": lambda c: vmstat_s(c.state),
    "svmon_g": lambda c: svmon_g(c.state),
    "svmon_p": lambda c: svmon_p(_running(c)) + storage_agents_svmon(c.processes - 1),
    "ps_env": lambda c: ps_env(_running(c)) + storage_agents_ps(c.processes - 1),
    "vmo": lambda c: vmo(c.state),
    "asoo": lambda c: asoo(c.state),
    "splat": lambda c: splat(c.state, c.epoch0 + c.t),
    "iostat_tape": lambda c: iostat_tape(c.model, c.state, c.interval),
    "tsm_actlog": lambda c: actlog(c.model.log(c.t), c.epoch0),
    "tsm_processes": lambda c: tsm_processes(c.model, c.state),
    "tsm_sessions": lambda c: tsm_sessions(c.state),
    "tsm_mounts": lambda c: tsm_mounts(c.state),
    "tsm_summary": lambda c: tsm_summary(c.model, c.state),
    "tsm_db": lambda c: tsm_db(_answering(c), c.epoch0, c.model.sc.checklist_trouble),
    "tsm_log": lambda c: tsm_log(_answering(c)),
    "errpt": lambda c: errpt(c.state, c.epoch0, c.model.sc.checklist_trouble),
    "tsm_stgpools": lambda c: tsm_stgpools(_answering(c), c.model.sc.checklist_trouble),
    "tsm_libvolumes": lambda c: tsm_libvolumes(_answering(c), c.model.sc.checklist_trouble),
    "tsm_drives": lambda c: tsm_drives(_answering(c), c.model.sc.checklist_trouble),
    "tsm_paths": lambda c: tsm_paths(_answering(c), c.model.sc.checklist_trouble),
    "tsm_events": lambda c: tsm_events(_answering(c), c.model.sc.checklist_trouble),
    "tsm_monitor": lambda c: tsm_monitor(_answering(c), c.epoch0, c.model.sc.checklist_trouble),
}


def render(key: str, ctx: Context) -> str:
    """The text the command ``key`` prints in this state (KeyError for a key with no renderer)."""
    return RENDERERS[key](ctx)
