"""Conformance: every parser over every usable real sample in ../shared/corpus.

Exact samples must parse to the values visible in them; COLLAPSED, TRUNCATED,
EDITED and RECONSTRUCTED samples must never crash a parser (a record or a
ParseError, nothing else). Skips cleanly when ../shared is absent.
"""
import pytest

from aix_exporter.commands import TABLE
from aix_exporter.parsers import ParseError, svmon_p, vmstat
from tests.lib import CORPUS, corpus_or_skip

pytestmark = corpus_or_skip(CORPUS, "../shared/corpus")

# corpus folder -> parser, from the command table (the one place corpus names are mapped)
FAMILIES = {folder: c.parse for c in TABLE for folder in c.corpus}
# Files in those folders that are another command's output (pagesize -a/-af), not vmo.
NOT_THIS_COMMAND = {"csdn-aix-sga-largepage-pagesize-a.COLLAPSED.txt", "ibm-aix72-pagesize-af.txt"}
DAMAGED_MARKERS = (".COLLAPSED.", ".TRUNCATED.", ".EDITED.", "-PARTIAL")
P4K, P64K, P16M = 4096, 65536, 16 * 2**20


def row(name, text):
    return vmstat.parse(text).row


# Exact samples: file name -> check(record). Values are read off the sample.
EXACT = {
    "gh-gopsutil-load_aix_test_mock-vmstat-1-1-shared-lpar.txt": lambda r: (
        r.config == {"lcpu": 8, "mem_bytes": 4096 * 2**20, "ent": 0.2}
        and r.row["avm"] == 389541 and r.row["fre"] == 553213 and r.row["syscalls"] == 1083
        and r.row["us"] == 1 and r.row["id"] == 98 and r.row["pc"] == 0.01 and r.row["ec"] == 6.5),
    "gh-htdavis-epa-aix-aixSysStat-vmstat-1-2-tail-1.txt": lambda r: (
        r.row["r"] == 8 and r.row["avm"] == 4343133 and r.row["cs"] == 3595 and r.row["ec"] == 28.4),
    "gh-issue-neofetch-591-vmstat-oneshot-shared-lpar.txt": lambda r: (
        r.config["lcpu"] == 4 and r.config["ent"] == 0.1 and r.row["fre"] == 2869 and r.row["sr"] == 172
        and r.row["pc"] == 0.01 and r.row["ec"] == 10.2),
    "ibm-aix52-perf-guide-mem-used-vmstat-2-10.txt": lambda r: (
        r.rows == 6 and r.row["b"] == 5 and r.row["avm"] == 113858 and r.row["wa"] == 44 and "pc" not in r.row),
    "ibm-aix71-assess-paging-vmstat-5-8.txt": lambda r: (
        r.rows == 8 and r.config == {} and r.row["avm"] == 71938 and r.row["wa"] == 17 and r.row["id"] == 75),
    "gh-mnellemann-sysmon-vmstat-w-1-1.txt": lambda r: (
        r.config == {"lcpu": 8, "mem_bytes": 4096 * 2**20} and r.row["avm"] == 623244 and r.row["fre"] == 35470
        and r.row["syscalls"] == 1166 and r.row["id"] == 99),
    "gh-gnuplot-vmstat-script-aix7100-01-benchmark-2014.txt": lambda r: (
        r.row["avm"] == 2290622 and r.row["fre"] == 1071563 and r.row["time"] == "16:02:23" and r.row["us"] == 1),
    "gh-gnuplot-vmstat-script-aix7100-01-bogus-fr-sr.txt": lambda r: (
        r.row["fr"] == 4636223281790821470 and r.row["pc"] == 2.22 and r.row["ec"] == 138.7
        and r.row["time"] == "00:00:09" and r.row["us"] == 48),
    "gh-mnellemann-sysmon-vmstat-Iwt.txt": lambda r: (
        r.config["ent"] == 0.5 and r.row["p"] == 0 and r.row["fo"] == 13 and r.row["avm"] == 633739
        and r.row["ec"] == 0.1 and r.row["time"] == "07:53:28"),
    "ibm-aix73-sys-config-large-pages.txt": lambda r: (
        r.row["alp"] == 16 and r.row["flp"] == 16 and r.row["fre"] == 124523 and r.row["sy"] == 3),
    "gh-checkmk-checks-aix_memory-comment.txt": lambda p: (
        dict(p)["memory pages"] == 32702464 and dict(p)["paging space I/Os blocked with no psbuf"] == 860832
        and dict(p)["percentage of memory used for computational pages"] == 88.8 and len(p) == 22),
    "gh-gopsutil-load_mock_invoker_test-vmstat-s.txt": lambda p: (
        dict(p)["total address trans. faults"] == 3492560274 and dict(p)["syscalls"] == 12918944607
        and dict(p)["mpc-sent interrupts"] == 1106 and len(p) == 26),
    "gh-blog-2013-check-memory-usage-aix.txt": lambda r: (
        r.memory["size"] == 1003520 * P4K and r.memory["virtual"] == 1468212 * P4K and r.mode == "Ded"
        and r.paging_space["inuse"] == 829774 * P4K and r.segments["pin"]["other"] == 31551 * P4K
        and [(p.psize, p.inuse) for p in r.page_sizes] == [("4K", 276720 * P4K), ("64K", 45227 * P64K)]),
    "gh-cn-aix-perf-monitor-cmds.txt": lambda r: (
        r.memory["size"] == 65667072 * P4K and r.memory["pin"] == 3591255 * P4K
        and r.page_sizes[1].pin == 89855 * P64K and r.segments["inuse"]["clnt"] == 4940188 * P4K),
    "gh-issue-neofetch-591-svmon-G-i-2.txt": lambda r: (
        # the inuse invariant of the sample: memory inuse = s inuse + 16 x m inuse (4 KB frames)
        r.memory["inuse"] == r.page_sizes[0].inuse + r.page_sizes[1].inuse == 1041928 * P4K),
    "ibm-aix72-amount-mem-use-i1-2.txt": lambda r: (
        r.reports == 2 and r.memory["inuse"] == 425279 * P4K
        and [(p.psize, p.pool_size, p.pin) for p in r.page_sizes][1] == ("16M", 5 * P16M, 5 * P16M)),
    "gh-gopsutil-mem_aix_nocgo_test-svmon-G-O-unitKB.txt": lambda r: (
        r.unit == "kb" and r.memory["available"] == 2126476 * 1024 and r.paging_space["inuse"] == 14576 * 1024),
    "gh-mnellemann-sysmon-aix-svmon-G-O-unitKB.txt": lambda r: (
        r.memory["free"] == 157772 * 1024 and r.segments["pin"]["other"] == 430976 * 1024),
    "gh-mnellemann-sysmon-svmon-G-O-summary-longreal-unitKB.txt": lambda r: (
        r.memory["size"] == 4194304 * 1024 and r.memory["available"] == 1058012 * 1024
        and r.paging_space == {"size": 524288 * 1024}),
    "ibm-aix71-vmm-page-replacement-tuning-vmo-a.txt": lambda t: (
        t["lgpg_regions"].current == 0 and t["lgpg_size"].current == 0 and t["maxpin%"].current == 90
        and t["memory_frames"].current == 1048576 and t["ame_cpus_per_pool"].current is None),
    "gh-wily-epagent-svmon-P-O-segment-on-filterprop-notempty.txt": lambda ps: (
        len(ps) == 1 and ps[0].pid == 221326 and ps[0].inuse == 20619 * P4K and ps[0].virtual == 27584 * P4K
        and ps[0].large_page_mode == "unknown" and ps[0].segment_count == 7
        # 'sm' (mixed 4K/64K) segments count in 4 KB units; the row with no Esid and no description is s
        and ps[0].segment_pages == {"m": [585 + 443, 393, 1 + 4, 585 + 444],
                                    "sm": [2877 + 1082 + 105 + 7, 4, 7865 + 1473 + 106 + 24, 9064 + 1641 + 238 + 31],
                                    "s": [100, 34, 64, 146]}
        and ps[0].by_psize()["4K"]["inuse"] == (2877 + 1082 + 105 + 7 + 100) * P4K),
    "ibm-aix71-mem-use-processes-svmon-P.txt": lambda ps: (
        [(p.pid, p.command, p.large_page_mode) for p in ps] == [(16264, "IBM.ServiceRM", "N"), (17032, "IBM.CSMAgentR", "N")]
        and ps[0].by_psize()["4K"]["inuse"] == 10075 * P4K and ps[0].by_psize()["16M"]["inuse"] == 0
        # the 11 segment rows (pers and mmap rows with '-' Pgsp/Virtual) sum to the PageSize table's s row
        and ps[0].segment_count == 11 and ps[0].segment_pages == {"s": [10075, 3345, 3064, 13310]}
        and ps[0].heap_segments == 0 and ps[1].pin == 3347 * P4K),
    "ibm-aix71-process-report-O-unitKB-summary-basic.txt": lambda ps: (
        len(ps) == 6 and ps[0].command == "java" and ps[0].inuse == 119792 * 1024 and ps[5].virtual == 59284 * 1024
        and ps[0].by_psize() == {}),
    "ibm-aix71-disabled-simple-runq-lock-detail.txt": lambda r: (
        r.window_seconds == 35.568534 and r.details[0].name == "0000000020000D60"
        and r.details[0].acquisitions == 12945 and r.details[0].miss_percent == 100.0),
    "ibm-aix73-enabled-simple-lock-detail.txt": lambda r: (
        r.window_seconds == 26.235284 and r.details[0].name == "PROC_INT_CLASS.00000004"
        and r.details[0].acquisitions == 2498 and r.details[0].miss_percent == 0.438),
    "ibm-aix73-gross-lock-summary.txt": lambda r: (
        r.gross["aix_all_locks"] == 1323045 and r.gross["mutex"] == 1927771 and r.gross["transformed"] == 234
        and r.gross["pthread_condvar"] == 160623 and len(r.gross) == 9),
    "ibm-aix73-per-lock-summary.txt": lambda r: (
        len(r.locks) == 12 and (r.locks[0].name, r.locks[0].type, r.locks[0].acquisitions) == ("PROC_INT_CLASS.0003", "runq", 486490)
        and [(l.miss_percent, l.spins) for l in r.locks if l.name == "00000000200017E8"] == [(0.1088, 175)]
        and r.locks[-1].type == "condvar" and r.locks[8].spins == 0),
    "ibm-aix73-pthread-mutex-report.txt": lambda r: (
        r.details[0].name == "00000000F0154CD0" and r.details[0].type == "mutex" and r.details[0].acquisitions == 1
        and r.details[0].miss_percent == 0.0 and r.window_seconds == 26.235284),
    # APAR texts quote single messages as the server console prints them: no date and time
    "ibm-apar-IC85865-ANR9999D-checkposition.txt": lambda ms: (
        [(m.msgid, m.severity, m.date) for m in ms] == [("ANR9999D", "D", "")]),
    "ibm-apar-IT30502-ANR8300E-io-error-library.txt": lambda ms: (
        [(m.msgid, m.severity, m.date) for m in ms] == [("ANR8300E", "E", "")]),
    "ibm-apar-IC59770-actlog-session-tags.txt": lambda ms: (
        [m.msgid for m in ms] == ["ANR0407I", "ANR2017I", "ANR8333I", "ANR8333I", "ANR8334I", "ANR0405I"]
        and ms[0].date == "01/22/2009" and ms[0].time == "06:13:05"),
}
# Exact samples whose format rule rejects them on purpose: file -> message.
REJECTED = {
    # 'svmon -lP' segment rows cut out of their reports and interleaved with genld output.
    "gh-cn-shared-lib-private-load-svmon-lP-segment-rows.txt": "segment table before any process row",
    # five svmon -C segment lines quoted without their report.
    "gh-svmon-footprint-awk-segment-list-fragment.txt": "no process rows",
    # plain 'svmon -G' cut after its 'in use' row by the test's author (SOURCES.md): no pool rows.
    "gh-gopsutil-mem_aix_nocgo_test-svmon-G.txt": "without its PageSize table",
    # 'svmon -G -O ... | tail -7': the memory header and the Unit banner were cut away.
    "gh-htdavis-epa-aix-aixSysStat-svmon-G-O-summary-basic-unitMB-tail7.txt": "without its column header",
}


def corpus_files():
    out = []
    if not CORPUS.is_dir():
        return out
    for folder, parse in FAMILIES.items():
        for path in sorted((CORPUS / folder).glob("*.txt")):
            if path.name not in NOT_THIS_COMMAND:
                out.append(pytest.param(parse, path, id=f"{folder}/{path.name}"))
    return out


@pytest.mark.parametrize("parse,path", corpus_files())
def test_sample(parse, path):
    text = path.read_text(errors="replace")
    damaged = any(m in path.name for m in DAMAGED_MARKERS)
    if damaged:
        try:
            parse(text)
        except ParseError:
            pass  # documented error: fine for a damaged sample
        return
    if path.name in REJECTED:
        with pytest.raises(ParseError, match=REJECTED[path.name]):
            parse(text)
        return
    assert path.name in EXACT, f"exact sample {path.name} has no value check: add one"
    assert EXACT[path.name](parse(text)), f"values of {path.name} differ from the sample"


def test_every_exact_check_names_a_present_file():
    present = {p.name for folder in FAMILIES for p in (CORPUS / folder).glob("*.txt")}
    assert set(EXACT) | set(REJECTED) <= present


def test_svmon_c_segment_rows_parse_under_a_process_report():
    """The svmon -C fragment's rows (Esid '*       -', continuation lines) under real headers."""
    rows = (CORPUS / "svmon-C" / "gh-svmon-footprint-awk-segment-list-fragment.txt").read_text()
    head = ("     Pid Command          Inuse      Pin     Pgsp  Virtual\n"
            "  221326 java             20619     6326     9612    27584\n\n"
            "    Vsid      Esid Type Description              PSize  Inuse   Pin Pgsp Virtual\n")
    (p,) = svmon_p.parse(head + rows)
    # three rows (Esid '* -' is two fields); the source(s)= and children= continuations are skipped
    assert p.segment_count == 3
    assert p.segment_pages == {"sm": [74312, 0, 0, 74312], "m": [31360, 28992, 0, 31360]}


def test_no_real_line_is_longer_than_a_label_value_may_be():
    """A label value is a name read from one line of a command's output, so the bound on label
    values (domains.MAX_LABEL_VALUE) can refuse no real output if no real line is longer: every
    sample of every folder, the nmon recordings and dsmadmc answers included."""
    import gzip

    from aix_exporter import domains
    longest = (0, "")
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.suffix == ".md":
            continue
        opened = gzip.open(path, "rt", errors="replace") if path.suffix == ".gz" else path.open(errors="replace")
        with opened as fh:
            longest = max(longest, max(((len(line.rstrip("\n")), path.name) for line in fh), default=(0, "")))
    assert 300 < longest[0] <= domains.MAX_LABEL_VALUE, longest
