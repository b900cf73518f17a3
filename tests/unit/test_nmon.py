"""nmon import: every input rule on our own fixtures (tests/fixtures/nmon), values and timestamps
checked; the command line's summary, ordering and deduplication across files."""
import datetime as dt
import gzip
import os
import random
import subprocess
import sys

import pytest

from aix_exporter.importers import nmon
from aix_exporter.tools.importing import run_import
from tests.lib import FIXTURES
from tests.lib.processes import env

NMON = FIXTURES / "nmon"


def om_samples(path):
    """{(sample name with labels): [(epoch, value)]} of an OpenMetrics file."""
    out = {}
    for line in path.read_text().splitlines():
        if line.startswith("#") or not line:
            continue
        key, value, ts = line.rsplit(" ", 2)
        out.setdefault(key, []).append((float(ts), float(value)))
    return out


def utc(*args):
    return dt.datetime(*args, tzinfo=dt.timezone.utc).timestamp()


def test_old_zzzz_takes_the_aaa_date_crosses_midnight_and_skips_what_does_not_fit(tmp_path):
    out = tmp_path / "h.om"
    with pytest.raises(nmon.NmonError, match=r"reads as 2011-04-03 \(dmy\) or 2011-03-04 \(mdy\)"):
        run_import("nmon", [str(NMON / "old-zzzz-midnight-largepage.nmon")], str(out), tz="UTC")
    s = run_import("nmon", [str(NMON / "old-zzzz-midnight-largepage.nmon")], str(out), tz="UTC", date_order="dmy")
    assert s["snapshots"] == 3
    assert s["rows_skipped"] == {"ERROR line": 1, "row before its section's header": 1,
                                 "field count differs from its header": 2,
                                 "snapshot without a ZZZZ time (truncated recording)": 1}
    m = om_samples(out)
    user = m['aix_vmstat_cpu_ratio{instance="tsmold01:10990",job="aix",mode="user"}']
    # 23:50 on 3 April, then 00:00 and 00:10 on 4 April (the clock went backwards: next day)
    assert [t for t, _ in user] == [utc(2011, 4, 3, 23, 50), utc(2011, 4, 4, 0, 0), utc(2011, 4, 4, 0, 10)]
    assert [v for _, v in user] == [0.031, 0.033, 0.309]
    # MEM of T0002 had a field too few: skipped, never misaligned
    free = m['aix_memory_free_bytes{instance="tsmold01:10990",job="aix"}']
    assert free == [(utc(2011, 4, 3, 23, 50), 17096.0 * 2**20), (utc(2011, 4, 4, 0, 10), 16984.0 * 2**20)]
    # LARGEPAGE: the T0001 row came before the header (skipped); the later rows map
    assert m['aix_vmstat_large_pages_free{instance="tsmold01:10990",job="aix"}'] == [
        (utc(2011, 4, 4, 0, 0), 38.0), (utc(2011, 4, 4, 0, 10), 36.0)]
    assert m['aix_vmstat_large_pages_active{instance="tsmold01:10990",job="aix"}'][-1] == (utc(2011, 4, 4, 0, 10), 124.0)
    # vmo -L in BBBP: CUR and BOOT at every snapshot, 16M in bytes
    assert [v for _, v in m['aix_vmo_tunable{instance="tsmold01:10990",job="aix",setting="current",tunable="lgpg_regions"}']] == [160] * 3
    assert [v for _, v in m['aix_vmo_tunable{instance="tsmold01:10990",job="aix",setting="boot",tunable="lgpg_regions"}']] == [200] * 3
    assert m['aix_vmo_tunable{instance="tsmold01:10990",job="aix",setting="current",tunable="lgpg_size"}'][0][1] == 16 << 20


def test_semicolons_decimal_commas_and_the_repeated_dst_hour(tmp_path):
    out = tmp_path / "h.om"
    s = run_import("nmon", [str(NMON / "semicolon-decimal-comma-dst-repeat.nmon")], str(out), tz="Europe/Paris")
    assert s["snapshots"] == 6 and s["duplicates_dropped"] == 0
    m = om_samples(out)
    user = m['aix_vmstat_cpu_ratio{instance="tsmdst01:10990",job="aix",mode="user"}']
    # 01:50, 02:20, 02:50 CEST (+02), then 02:20, 02:50 again in CET (+01), then 03:20 CET
    assert [t for t, _ in user] == [utc(2016, 10, 29, 23, 50), utc(2016, 10, 30, 0, 20), utc(2016, 10, 30, 0, 50),
                                    utc(2016, 10, 30, 1, 20), utc(2016, 10, 30, 1, 50), utc(2016, 10, 30, 2, 20)]
    assert user[0][1] == 0.115                        # '11,5' with a decimal comma
    assert m['aix_vmstat_cpu_ratio{instance="tsmdst01:10990",job="aix",mode="sys"}'][0][1] == 0.0525
    # 16 MB pool: size and use in bytes; the per-interval fault counts become a running counter
    pool = m['aix_memory_page_pool_size_bytes{instance="tsmdst01:10990",job="aix",psize="16M"}']
    assert pool[0][1] == 160 * 16 * 2**20
    assert m['aix_memory_page_inuse_bytes{instance="tsmdst01:10990",job="aix",psize="16M"}'][2][1] == (160 - 57) * 16 * 2**20
    faults = m['aix_memory_page_faults_total{instance="tsmdst01:10990",job="aix",psize="16M"}']
    assert [v for _, v in faults] == [1, 3, 6, 10, 15, 21]


def test_a_local_time_in_a_dst_gap_is_an_error_not_a_shift(tmp_path):
    with pytest.raises(nmon.NmonError, match="2016-03-27 02:30:00 does not exist in Europe/Paris"):
        run_import("nmon", [str(NMON / "dst-gap.nmon")], str(tmp_path / "h.om"), tz="Europe/Paris")


def test_time_zone_is_required_and_never_guessed(tmp_path):
    with pytest.raises(nmon.NmonError, match="names no time zone: give --tz"):
        run_import("nmon", [str(NMON / "dst-gap.nmon")], str(tmp_path / "h.om"))
    with pytest.raises(nmon.NmonError, match="unknown time zone 'Europe/Pariss'"):
        run_import("nmon", [str(NMON / "dst-gap.nmon")], str(tmp_path / "h.om"), tz="Europe/Pariss")
    # the file names UTC; a different --tz is refused rather than shifting every sample
    with pytest.raises(nmon.NmonError, match="names the time zone 'UTC' but --tz says 'Europe/Paris'"):
        run_import("nmon", [str(NMON / "multi-a.nmon")], str(tmp_path / "h.om"), tz="Europe/Paris")


def test_files_in_any_order_are_read_in_time_order_and_overlaps_written_once(tmp_path):
    out = tmp_path / "h.om"
    s = run_import("nmon", [str(NMON / "multi-b.nmon.gz"), str(NMON / "multi-a.nmon")], str(out))   # zone from AAA
    assert s["files"] == 2 and s["snapshots"] == 6
    assert s["duplicates_dropped"] == 4                 # hour 2 is in both files: its 4 CPU samples once
    user = om_samples(out)['aix_vmstat_cpu_ratio{instance="tsmmulti:10990",job="aix",mode="user"}']
    assert user == [(utc(2016, 3, 1, h), h / 100) for h in range(5)]


def test_target_labels_and_openmetrics_that_promtool_accepts(tmp_path):
    from tests.lib import need
    out = tmp_path / "h.om"
    run_import("nmon", [str(NMON / "semicolon-decimal-comma-dst-repeat.nmon")], str(out), tz="Europe/Paris",
               target={"job": "aix-nmon", "instance": "tsm01:10990", "lpar": "tsm01"})
    text = out.read_text()
    assert 'aix_vmstat_cpu_ratio{instance="tsm01:10990",job="aix-nmon",lpar="tsm01",mode="user"} 0.115 1477785000.000' in text
    assert text.endswith("# EOF\n") and "# TYPE aix_memory_page_faults counter" in text
    r = subprocess.run([need("promtool"), "tsdb", "create-blocks-from", "openmetrics", str(out), str(tmp_path / "tsdb")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_command_line_summary_and_errors(tmp_path):
    run = lambda *a: subprocess.run([sys.executable, "-m", "aix_exporter.cli", "import", "nmon", *a],
                                    capture_output=True, text=True, env=env(), timeout=120)
    r = run("--tz", "UTC", "--date-order", "dmy", "--out", str(tmp_path / "h.om"),
            str(NMON / "old-zzzz-midnight-largepage.nmon"))
    assert r.returncode == 0, r.stderr
    assert "imported 1 file(s), 3 snapshots" in r.stdout
    assert "time range: 2011-04-03 23:50:00 UTC .. 2011-04-04 00:10:00 UTC" in r.stdout
    assert "skipped: 2 x field count differs from its header" in r.stdout
    r = run("--out", str(tmp_path / "h.om"), str(NMON / "dst-gap.nmon"))
    assert r.returncode == 1 and "give --tz" in r.stderr and "Traceback" not in r.stderr
    r = run("--out", str(tmp_path / "h.om"), str(tmp_path / "missing.nmon"))
    assert r.returncode == 1 and "no such file" in r.stderr


def test_a_truncated_gzip_keeps_what_was_read(tmp_path):
    data = (NMON / "semicolon-decimal-comma-dst-repeat.nmon").read_bytes()
    cut = tmp_path / "cut.nmon.gz"
    cut.write_bytes(gzip.compress(data)[:-30])
    s = run_import("nmon", [str(cut)], str(tmp_path / "h.om"), tz="Europe/Paris")
    assert s["snapshots"] >= 1 and any("cut short" in k for k in s["rows_skipped"])


def test_blocks_read_from_a_file_give_the_records_of_its_lines(tmp_path, monkeypatch):
    """A recording is read in blocks of bytes (read1), not lines: lines cut at a block's end,
    CRLF and multi-byte characters split between blocks come out whole and in order, the same
    records as from the lines themselves."""
    text = (NMON / "semicolon-decimal-comma-dst-repeat.nmon").read_bytes().decode()
    text = text.replace("\r\n", "\n").replace("\n", "\r\n").replace("AAA;host;", "AAA;host;h\u00f6st-")
    path = tmp_path / "r.nmon"
    path.write_bytes(text.encode())
    monkeypatch.setattr(nmon.records, "_BLOCK_BYTES", 7)   # every block boundary falls inside a line
    from aix_exporter.tools.importing import open_text
    s_file, s_lines = nmon.Stats(), nmon.Stats()
    with open_text(str(path)) as fh:
        from_file = list(nmon.read_records(fh, s_file))
    from_lines = list(nmon.read_records(text.splitlines(keepends=True), s_lines))
    assert from_file == from_lines and len(from_file) > 20
    assert any("h\u00f6st-" in f for rec, _ in from_file for f in rec)
    assert s_file.sections_unmapped == s_lines.sections_unmapped


def test_the_sections_read_are_the_mapping_tables():
    """MAPPED_SECTIONS comes from GAUGES and PAGE_SECTIONS: a mapping row on a new section is
    read (it was a hand-typed list beside the tables, so such a row yielded no data)."""
    from aix_exporter.importers import nmon
    assert nmon.MAPPED_SECTIONS == {"CPU_ALL", "LPAR", "MEM", "LARGEPAGE", "PAGE", "PROC", "MEMPAGES4KB", "MEMPAGES64KB",
                                    "MEMPAGES16MB", "MEMPAGES16GB"}
    assert {sec for sec, _ in nmon.GAUGES} | set(nmon.PAGE_SECTIONS) == nmon.MAPPED_SECTIONS


def _cli(*a):
    return subprocess.run([sys.executable, "-m", "aix_exporter.cli", "import", "nmon", *a],
                          capture_output=True, text=True, env=env(), timeout=120)


def test_hostile_files_end_at_once_with_a_reason(tmp_path):
    """Bombs and non-recordings (issue 28): each ends with exit 1 and one line saying why,
    instead of running for minutes at gigabytes (1 GB of zeros in 4.7 MB of gzip), or exit 0
    with an empty history (random bytes)."""
    zeros = tmp_path / "zeros.nmon.gz"
    with gzip.open(zeros, "wb", compresslevel=1) as fh:
        for _ in range(64):
            fh.write(bytes(1 << 20))          # 64 MiB of NULs, no newline
    long_line = tmp_path / "long.nmon"
    long_line.write_bytes(b"AAA,host,x\n" + b"A" * (8 << 20) + b"\n")
    noise = tmp_path / "noise.nmon"
    noise.write_bytes(random.Random(7).randbytes(5 << 20))
    fifo = tmp_path / "pipe.nmon"
    os.mkfifo(fifo)
    out = str(tmp_path / "h.om")
    for path, reason in ((zeros, "a line longer than 1 MiB: not an nmon recording"),
                         (long_line, "a line longer than 1 MiB: not an nmon recording")):
        r = _cli("--tz", "UTC", "--out", out, str(path))
        assert (r.returncode, r.stderr) == (1, f"aix-exporter import nmon: {path}: {reason}\n")
    r = _cli("--tz", "UTC", "--out", out, str(noise))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.endswith("aix-exporter import nmon: no complete snapshot in any of the 1 file(s): "
                             "are they nmon recordings?\n"), r.stderr
    r = _cli("--tz", "UTC", "--out", out, str(fifo))
    assert (r.returncode, r.stderr) == (1, f"aix-exporter import nmon: {fifo}: not a regular file (a pipe or device: "
                                           "save the recording to a file first)\n")


def test_two_recordings_disagreeing_about_one_snapshot_are_named(tmp_path):
    src = (NMON / "multi-a.nmon").read_text()
    a, b = tmp_path / "a.nmon", tmp_path / "b.nmon"
    a.write_text(src)
    lines = src.splitlines(keepends=True)
    i = next(k for k, l in enumerate(lines) if l.startswith("CPU_ALL,T"))
    f = lines[i].split(",")
    f[2] = str(float(f[2]) + 10)      # User% of one snapshot differs
    lines[i] = ",".join(f)
    b.write_text("".join(lines))
    s = run_import("nmon", [str(a), str(b)], str(tmp_path / "h.om"), tz="UTC")
    assert s["conflicting"] == [(str(b), 1)]
    r = _cli("--tz", "UTC", "--out", str(tmp_path / "h2.om"), str(a), str(b))
    assert r.returncode == 0
    assert (f"  conflicting: {b} repeats 1 snapshot(s) read before with other values (the values read "
            "first are kept: two recordings of one LPAR at the same time?)\n") in r.stdout
    assert run_import("nmon", [str(a), str(a)], str(tmp_path / "h3.om"), tz="UTC")["conflicting"] == []


def test_a_recording_with_only_unmapped_sections_imports_nothing_and_says_so(tmp_path):
    """Issue 48: snapshots holding only sections no live metric comes from imported as
    '3 snapshots, 0 samples', wrote blocks and exited 0. Now: exit 1, one line, no file."""
    rec = tmp_path / "only-file.nmon"
    rows = ["AAA,progname,topas_nmon", "AAA,host,lpar9", "AAA,date,02-NOV-2026",
            "FILE,File I/O lpar9,iget,namei,dirblk,readch,writech,ttyrawch,ttycanch,ttyoutch"]
    for i in range(1, 4):
        rows += [f"ZZZZ,T000{i},0{i}:00:00,02-NOV-2026", f"FILE,T000{i},0,10,0,100,200,0,0,0"]
    rec.write_text("\n".join(rows) + "\n")
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "import", "nmon", "--tz", "UTC", str(rec),
                        "--out", str(tmp_path / "h.om")], capture_output=True, text=True, env=env(), timeout=60)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == ("aix-exporter import nmon: 3 snapshots but no sample of a section the exporter's metrics come "
                        "from (sections read but not mapped: FILE): nothing to import\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["only-file.nmon"]


def test_the_summary_is_in_utc_whatever_the_machines_zone(tmp_path):
    """Issue 48: the tests only ever ran in UTC. The summary's times are UTC (it says so) and the
    samples' times the recording's own zone, whatever TZ the importing machine has."""
    outs = {}
    for tz in ("UTC", "Asia/Kolkata", "America/Los_Angeles"):
        out = tmp_path / f"{tz.replace('/', '_')}.om"
        r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "import", "nmon", "--tz", "Europe/Paris",
                            str(FIXTURES / "nmon" / "tsmnm01-day1-4k.nmon"), "--out", str(out)],
                           capture_output=True, text=True, env={**env(), "TZ": tz}, timeout=60)
        assert r.returncode == 0, r.stderr
        outs[tz] = (r.stdout.replace(str(out), "OUT"), out.read_text())
    # 02-NOV-2026 00:00 in Paris (CET, +01:00) is 2026-11-01 23:00 UTC
    assert "  time range: 2026-11-01 23:00:00 UTC .. " in outs["UTC"][0]
    assert outs["Asia/Kolkata"] == outs["UTC"] == outs["America/Los_Angeles"]


def test_several_daily_files_of_one_lpar_make_one_series_in_time_order(tmp_path):
    """Issue 48: the import across several daily files of one LPAR. Given day 2 before day 1,
    one series per metric for tsmnm01:10990 runs through both days in time order: 24 hourly
    snapshots each, the pool 0 on day 1 (4 KB pages) and 160 pages of 16 MiB from day 2's first
    snapshot, user CPU 3 % then 28 %."""
    out = tmp_path / "h.om"
    s = run_import("nmon", [str(FIXTURES / "nmon" / "tsmnm01-day2-16m.nmon"), str(FIXTURES / "nmon" / "tsmnm01-day1-4k.nmon")],
                   str(out), tz="UTC")
    assert (s["files"], s["snapshots"], s["targets"]) == (2, 48, [{"instance": "tsmnm01:10990", "job": "aix"}])
    day1 = dt.datetime(2026, 11, 2, tzinfo=dt.timezone.utc).timestamp()
    assert (s["first"], s["last"]) == (day1, day1 + 47 * 3600)
    pool, user = [], []
    for line in out.read_text().splitlines():
        if line.startswith('aix_memory_page_pool_size_bytes{instance="tsmnm01:10990",job="aix",psize="16M"}'):
            pool.append((float(line.split()[2]), float(line.split()[1])))
        if line.startswith("aix_vmstat_cpu_ratio{") and 'mode="user"' in line:
            user.append((float(line.split()[2]), float(line.split()[1])))
    assert [t for t, _ in pool] == [day1 + h * 3600 for h in range(48)]              # one series, in order
    assert {v for t, v in pool if t < day1 + 86400} == {0.0} and {v for t, v in pool if t >= day1 + 86400} == {160 * 16 * 2**20}
    assert {v for t, v in user if t < day1 + 86400} == {0.03} and {v for t, v in user if t >= day1 + 86400} == {0.28}


def test_event_counters_run_on_across_the_daily_files_of_one_lpar(tmp_path):
    """Issue 61, item 8: nmon records MEMPAGES event counts per interval; the import makes them
    one running counter per LPAR, which must go on from day 1's last sum into day 2 (a sum that
    started again at each file would fall at midnight: a counter reset that rate() reads as a
    restart, and increase() over the day boundary would lose day 1's tail). tsmnm02's two days:
    2 faults, 1 page-in and 1 page-out a snapshot on day 1; 3 faults, 2 page-outs, 1 paging-space
    page-in and page-out on day 2, 24 hourly snapshots each, given day 2 first."""
    out = tmp_path / "h.om"
    run_import("nmon", [str(FIXTURES / "nmon" / "tsmnm02-day2-events.nmon"),
                        str(FIXTURES / "nmon" / "tsmnm02-day1-events.nmon")], str(out), tz="UTC")
    m = om_samples(out)

    def values(metric):
        return [v for _, v in m[f'{metric}{{instance="tsmnm02:10990",job="aix",psize="16M"}}']]
    assert values("aix_memory_page_faults_total") == [2 * h for h in range(1, 25)] + [48 + 3 * h for h in range(1, 25)]
    assert values("aix_memory_page_ins_total") == list(range(1, 25)) + [24] * 24
    assert values("aix_memory_page_outs_total") == list(range(1, 25)) + [24 + 2 * h for h in range(1, 25)]
    assert values("aix_memory_paging_space_page_outs_total") == [0] * 24 + list(range(1, 25))


def test_a_directory_given_as_a_recording_says_to_name_its_files(tmp_path):
    """Issue 58, item 7: `import nmon DIR` said 'a pipe or device' of a directory."""
    import subprocess
    import sys
    from tests.lib.processes import env
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "import", "nmon", str(tmp_path), "--out",
                        str(tmp_path / "h.om")], capture_output=True, text=True, env=env(), timeout=60)
    assert (r.returncode, r.stderr) == (1, f"aix-exporter import nmon: {tmp_path}: a directory: name its recordings "
                                           f"({tmp_path}/*.nmon)\n")
