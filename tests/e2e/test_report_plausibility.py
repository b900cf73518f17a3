"""The report refuses to judge what the data cannot support (issue 30): one LPAR per fault
in a real Prometheus (history written here in OpenMetrics, backfilled with promtool), each
fault in the after window only. A clean LPAR is judged; each faulty one has its figure marked
with the reason, left out of the verdict, and the usable share of the window printed."""
import csv
import io
import subprocess
import sys

import pytest

from aix_exporter.report.compare import coverage
from tests.lib.stores import blocks_from, start_prometheus
from tests.lib.processes import env, stop

MIB = 1 << 20

HOUR = 3600
FAULTS = ("clean", "reset", "failing", "fast", "gap", "ratio")


def history(start):
    """OpenMetrics text: for each fault an LPAR 'FAULT:10990' with 4 hours a minute apart;
    before = hour 0-1 (4 KB pages), after = hour 2-3, where the fault is."""
    fam = {"aix_tape_written_bytes": ("counter", []), "aix_tape_read_bytes": ("counter", []), "aix_vmstat_cpu_ratio": ("gauge", []),
           "aix_splat_function_miss_ratio": ("gauge", []), "aix_exporter_collector_success": ("gauge", [])}
    for fault in FAULTS:
        lab = f'instance="{fault}:10990",job="aix"'
        counters = {"rmt0": 0.0, "rmt1": 0.0}
        for minute in range(4 * 60):
            t = start + minute * 60
            after = minute >= 120
            in_fault = after and 150 <= minute < 170          # 20 minutes inside the after window
            if fault == "gap" and in_fault:
                continue                                         # the exporter was down: no samples at all
            tape_ok = not (fault == "failing" and in_fault)
            for dev in counters:
                rate = (150 if after else 100) * MIB
                if fault == "fast" and in_fault and dev == "rmt1":
                    rate = 2_000_000_000                         # more than any drive can move
                counters[dev] += rate * 60
                if fault == "reset" and minute == 150 and dev == "rmt0":
                    counters[dev] = rate * 60                    # the counter started again from 0
                if tape_ok:
                    fam["aix_tape_written_bytes"][1].append(
                        f'aix_tape_written_bytes_total{{device="{dev}",{lab}}} {counters[dev]:.0f} {t}')
                    fam["aix_tape_read_bytes"][1].append(f'aix_tape_read_bytes_total{{device="{dev}",{lab}}} 0 {t}')
            sys_ = 1.7 if fault == "ratio" and in_fault else (0.30 if after else 0.25)
            for mode, v in (("user", 0.30 if after else 0.05), ("sys", sys_)):
                fam["aix_vmstat_cpu_ratio"][1].append(f'aix_vmstat_cpu_ratio{{mode="{mode}",{lab}}} {v} {t}')
            fam["aix_splat_function_miss_ratio"][1].append(
                f'aix_splat_function_miss_ratio{{function="pin_seg_range",{lab}}} {0.005 if after else 0.25} {t}')
            for collector in ("tape", "vmstat", "splat"):
                ok = 0 if collector == "tape" and not tape_ok else 1
                fam["aix_exporter_collector_success"][1].append(
                    f'aix_exporter_collector_success{{collector="{collector}",{lab}}} {ok} {t}')
    out = []
    for name, (kind, lines) in fam.items():
        out.append(f"# TYPE {name} {kind}")
        # one series' samples together, in time order
        out += sorted(lines, key=lambda line: (line.rsplit(" ", 2)[0], int(line.rsplit(" ", 1)[1])))
    return "\n".join(out) + "\n# EOF\n"


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    import time
    tmp = tmp_path_factory.mktemp("faults")
    start = (int(time.time()) // HOUR - 6) * HOUR      # within Prometheus' retention
    (tmp / "h.om").write_text(history(start))
    blocks_from(tmp / "h.om", tmp / "tsdb")
    p = start_prometheus(tmp, "global:\n  scrape_interval: 60s\n", tsdb=tmp / "tsdb")
    p.start = start
    yield p
    stop(p.proc)


def report(p, fault, tmp_path, fmt="csv"):
    out = tmp_path / f"{fault}.{fmt}"
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "report", "--prometheus", p.url,
                        "--instance", f"{fault}:10990", "--tz", "UTC",
                        "--before", f"{p.start}..{p.start + HOUR}", "--after", f"{p.start + 2 * HOUR}..{p.start + 3 * HOUR}",
                        "--out", str(out)], capture_output=True, text=True, env=env(), timeout=300)
    assert r.returncode == 0, r.stderr
    rows = {row["figure"]: row for row in csv.DictReader(io.StringIO(out.read_text()))} if fmt == "csv" else out.read_text()
    return rows, r.stdout


def test_a_clean_lpar_is_judged(faulty, tmp_path):
    rows, said = report(faulty, "clean", tmp_path)
    assert rows["tape"]["verdict"] == "better" and float(rows["tape"]["after"]) == pytest.approx(300.0, rel=0.01)
    assert rows["sys_per_user"]["verdict"] == "better" and rows["pin_miss"]["verdict"] == "better"
    assert all(rows[k]["problems"] == "" and float(rows[k]["usable_after"]) == 1.0 for k in ("tape", "sys_per_user"))
    assert "the change helped" in said and "Not judged" not in said


@pytest.mark.parametrize("fault,figure,reason", [
    ("reset", "tape", "counter aix_tape_written_bytes_total reset 1 time"),
    ("failing", "tape", "collector tape failed in 32.8% of its collections"),
    ("fast", "tape", "a drive's bytes per second reached 2,000 MB/s, more than a drive can move (1,250 MB/s)"),
    ("gap", "tape", "only 67% of the window has data"),
    ("ratio", "sys_per_user", "values outside 0..1 (0.3 to 1.7): not physical"),
])
def test_a_fault_keeps_its_figure_out_of_the_verdict(faulty, tmp_path, fault, figure, reason):
    rows, said = report(faulty, fault, tmp_path)
    row = rows[figure]
    assert row["verdict"] == "not judged" and reason in row["problems"], row["problems"]
    assert row["problems"].startswith("after: ") and "before:" not in row["problems"]   # the before window is sound
    assert float(row["usable_before"]) == 1.0
    title = {"tape": "Tape throughput, read + written", "sys_per_user": "System / user CPU"}[figure]
    assert f"Not judged, the data cannot support it: {title} (after: " in said
    if figure == "tape":
        assert "Tape throughput went from" not in said     # nothing said of it as a result
    md, _ = report(faulty, fault, tmp_path, "md")
    assert "| not judged |" in md and f"* {title}: after: " in md


def test_the_usable_share_is_printed(faulty, tmp_path):
    md, _ = report(faulty, "gap", tmp_path, "md")
    assert "* Usable data (deciding figures): before 100%, after 67%" in md


@pytest.mark.parametrize("times,share", [
    ([], 0.0),
    ([float(t) for t in range(0, 3601, 60)], 1.0),                      # every minute
    ([float(t) for t in range(0, 3601, 300)], 1.0),                     # every 5 minutes (nmon): no gaps
    ([float(t) for t in range(0, 3601, 60) if not 600 < t < 1800], 1 - (1200 - 60) / 3600),
    ([float(t) for t in range(1800, 3601, 60)], 1 - (1800 - 60) / 3600),  # an empty first half
])
def test_coverage(times, share):
    assert coverage(times, 0.0, 3600.0) == pytest.approx(share)
