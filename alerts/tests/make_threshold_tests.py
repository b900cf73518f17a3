"""Write alerts/tests/thresholds.test.yml: every numeric setting of the mixin
(exporter/aix_exporter/monitoring.json)
pinned from both sides.

    python3 alerts/tests/make_threshold_tests.py

For each threshold, a case just beyond it that fires once its 'for' has passed, and a case just
short of it that never even goes pending over the whole window (ALERTS counted over the window).
The values here are numbers of our own choosing, written out once: they are NOT read from
monitoring.json, so halving or doubling a setting there makes one of the two cases fail
(`python3 -m bench.mutation.thresholds` measures that). The comment of each case says which
setting it pins and why its two values straddle it.
"""
import os

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
MIB = 1 << 20
PAGE = 16 * MIB
L = 'job="aix",instance="a:10990"'


def s(name, labels, values):
    return {"series": f"{name}{{{L}{',' + labels if labels else ''}}}", "values": values}


def const(v, n):
    return f"{v:.12g}x{n}"


def pool(free_pages, total=200, n=600):
    return [s("aix_memory_page_pool_size_bytes", 'psize="16M"', const(total * PAGE, n)),
            s("aix_memory_page_inuse_bytes", 'psize="16M"', const((total - free_pages) * PAGE, n))]


def fires(alert, at):
    return {"expr": f'count(ALERTS{{alertname="{alert}",alertstate="firing"}})', "eval_time": at,
            "exp_samples": [{"labels": "{}", "value": 1}]}


def quiet(alert, at, window):
    return {"expr": f'count(count_over_time(ALERTS{{alertname="{alert}"}}[{window}])) or vector(0)',
            "eval_time": at, "exp_samples": [{"labels": "{}", "value": 0}]}


def case(name, alert, series, fire, at, window=None):
    check = fires(alert, at) if fire else quiet(alert, at, window or at)
    return {"name": f"{alert} {'fires' if fire else 'stays quiet'}: {name}", "interval": "1m",
            "input_series": series, "promql_expr_test": [check]}


def heap(segments, configured, free, n=600):
    return pool(free, total=max(configured, free + 1), n=n) + [
        s("aix_vmo_tunable", 'tunable="lgpg_regions",setting="current"', const(configured, n)),
        s("aix_process_heap_segments", 'pid="4242",comm="dsmserv"', const(segments, n))]


def cases():
    out = []
    # largePagePoolFreeWarningRatio 0.10 (for 15m): 9 % free fires, 11 % stays quiet
    out.append(case("9 % of the pool free", "AixLargePagePoolNearlyExhausted", pool(18), True, "20m"))
    out.append(case("11 % of the pool free", "AixLargePagePoolNearlyExhausted", pool(22), False, "60m"))
    # largePagePoolForecastHours 4 (for 30m): free falls 1 page a minute; 230 free runs out in
    # 3.8 h and fires, 400 free (310 after 90 minutes) runs out in more than 5 h and stays quiet
    grow = f"{(10000 - 230) * PAGE}+{PAGE}x300"
    out.append(case("runs out in 3.8 h", "AixLargePagePoolFillingUp",
                    [s("aix_memory_page_pool_size_bytes", 'psize="16M"', const(10000 * PAGE, 300)),
                     s("aix_memory_page_inuse_bytes", 'psize="16M"', grow)], True, "45m"))
    grow = f"{(10000 - 400) * PAGE}+{PAGE}x300"
    out.append(case("runs out in 5 h or more", "AixLargePagePoolFillingUp",
                    [s("aix_memory_page_pool_size_bytes", 'psize="16M"', const(10000 * PAGE, 300)),
                     s("aix_memory_page_inuse_bytes", 'psize="16M"', grow)], False, "90m"))
    # mandatoryMinHeadroomPages 16 (mode M, no growth, for 5m): 14 free fires, 18 stays quiet
    mode_m = [s("aix_process_large_page_info", 'pid="4242",comm="dsmserv",mode="M"', const(1, 300))]
    flat16 = [s("aix_process_inuse_bytes", 'pid="4242",comm="dsmserv",psize="16M"', const(100 * PAGE, 300))]
    out.append(case("14 free pages, no growth", "AixMandatoryLargePagesAtRisk", pool(14) + mode_m + flat16, True, "10m"))
    out.append(case("18 free pages, no growth", "AixMandatoryLargePagesAtRisk", pool(18) + mode_m + flat16, False, "60m"))
    # mandatoryGrowthHorizonSeconds 7200: the process grows 1 page a minute, 120 pages in 2 h:
    # 100 free fires, 140 free stays quiet
    grow16 = [s("aix_process_inuse_bytes", 'pid="4242",comm="dsmserv",psize="16M"', f"{100 * PAGE}+{PAGE}x300")]
    out.append(case("100 free pages, 120 pages of growth in 2 h", "AixMandatoryLargePagesAtRisk",
                    pool(100) + mode_m + grow16, True, "30m"))
    out.append(case("140 free pages, 120 pages of growth in 2 h", "AixMandatoryLargePagesAtRisk",
                    pool(140) + mode_m + grow16, False, "90m"))
    # fallback4kGrowthBytes 32 MiB in 30m (for 15m): 4 KB use grows 40 MiB per 30 minutes and
    # fires, 26 MiB stays quiet; mode Y, pool exhausted, 16 MB flat
    fallback = pool(0) + [
        s("aix_process_large_page_info", 'pid="4242",comm="dsmserv",mode="Y"', const(1, 300)),
        s("aix_process_inuse_bytes", 'pid="4242",comm="dsmserv",psize="16M"', const(100 * PAGE, 300))]
    for mib, fire in ((40, True), (26, False)):
        step = mib * MIB / 30
        out.append(case(f"4 KB use grows {mib} MiB per 30 minutes", "AixLargePageSilentFallback",
                        fallback + [s("aix_process_inuse_bytes", 'pid="4242",comm="dsmserv",psize="4K"',
                                      f"{1 << 30}+{step:.0f}x300")], fire, "60m" if fire else "120m"))
    # pagesPerHeapSegment 16, extraLargePages 32 (undersized, for 1h): 8 segments -> 160 pages
    # recommended; 150 configured fires, 170 stays quiet
    out.append(case("150 configured, 160 recommended", "AixLargePagePoolUndersized", heap(8, 150, 10), True, "70m"))
    out.append(case("170 configured, 160 recommended", "AixLargePagePoolUndersized", heap(8, 170, 10), False, "180m"))
    # oversizedFactor 2, oversizedMinFreePages 64 (for 6h): 160 recommended; 340 configured with
    # 70 free fires; 300 configured stays quiet; 58 free stays quiet
    out.append(case("340 configured (> 2 x 160), 70 free", "AixLargePagePoolOversized", heap(8, 340, 70), True, "370m"))
    out.append(case("300 configured (< 2 x 160), 70 free", "AixLargePagePoolOversized", heap(8, 300, 70), False, "420m"))
    out.append(case("340 configured, 58 free", "AixLargePagePoolOversized", heap(8, 340, 58), False, "420m"))
    # pinMissRatio 0.10, sysPerUserRatio 3 (for 15m): miss 0.12 with sys 3.5 x usr fires; miss
    # 0.08 stays quiet; sys 2.5 x usr stays quiet

    def pin(miss, ratio):
        return [s("aix_splat_function_miss_ratio", 'function=".pin_seg_range"', const(miss, 300)),
                s("aix_vmstat_cpu_ratio", 'mode="user"', const(0.2, 300)),
                s("aix_vmstat_cpu_ratio", 'mode="sys"', const(0.2 * ratio, 300))]
    out.append(case("miss 0.12, sys 3.5 x usr", "AixPinLockContention", pin(0.12, 3.5), True, "20m"))
    out.append(case("miss 0.08, sys 3.5 x usr", "AixPinLockContention", pin(0.08, 3.5), False, "60m"))
    out.append(case("miss 0.12, sys 2.5 x usr", "AixPinLockContention", pin(0.12, 2.5), False, "60m"))
    # tapeDropRatio 0.5, tapeBusyRatio 0.5 (for 15m): 100 MiB/s for 3 h, then 40 MiB/s at 60 %
    # busy fires; 60 MiB/s stays quiet; 40 MiB/s at 40 % busy stays quiet

    def tape(after_mib, busy):
        before = 100 * MIB * 60
        start = before * 180
        return [s("aix_tape_written_bytes_total", 'device="rmt0"',
                  f"0+{before}x180 {start + after_mib * MIB * 60}+{after_mib * MIB * 60}x60"),
                s("aix_tape_read_bytes_total", 'device="rmt0"', const(0, 241)),
                s("aix_tape_busy_ratio", 'device="rmt0"', f"{const(0.9, 180)} {const(busy, 60)}")]
    out.append(case("40 MiB/s after 100, 60 % busy", "AixTapeThroughputDrop", tape(40, 0.6), True, "220m"))
    out.append(quiet_after("60 MiB/s after 100, 60 % busy", "AixTapeThroughputDrop", tape(60, 0.6), "240m", "60m"))
    out.append(quiet_after("40 MiB/s after 100, 40 % busy", "AixTapeThroughputDrop", tape(40, 0.4), "240m", "60m"))
    # collectorStaleSeconds 3600 (no for): last success at 0 fires at 67 minutes, quiet up to 53
    stale = [s("aix_exporter_collector_last_success_timestamp_seconds", 'collector="vmstat"', const(0, 120))]
    out.append(case("last success 67 minutes ago", "AixExporterCollectorStale", stale, True, "67m"))
    out.append(case("last success 53 minutes ago at most", "AixExporterCollectorStale", stale, False, "53m"))
    # pagingSpaceUsedRatio 0.80 (for 15m): 85 % used fires, 75 % stays quiet
    for used, fire in ((85, True), (75, False)):
        out.append(case(f"{used} % of paging space used", "AixPagingSpaceLow",
                        [s("aix_paging_space_inuse_bytes", "", const(used * MIB, 300)),
                         s("aix_paging_space_size_bytes", "", const(100 * MIB, 300))], fire, "20m" if fire else "60m"))
    # freeListRatio 0.01 (for 15m): 0.9 % of memory on the free list fires, 1.1 % stays quiet
    for pct, fire in ((0.9, True), (1.1, False)):
        out.append(case(f"{pct} % of memory on the free list", "AixFreeListLow",
                        [s("aix_vmstat_free_list_bytes", "", const(pct * 10 * MIB, 300)),
                         s("aix_lpar_memory_bytes", "", const(1000 * MIB, 300))], fire, "20m" if fire else "60m"))
    out += tsm_checklist()
    out += at_the_threshold(fallback, heap, pin, tape)
    return out


def tsm_db(used_pct):
    return [s("aix_tsm_db_space_bytes", 'kind="used"', const(used_pct * MIB, 300)),
            s("aix_tsm_db_space_bytes", 'kind="free"', const((100 - used_pct) * MIB, 300))]


def tsm_log(used_pct, log="active"):
    return [s("aix_tsm_log_space_bytes", f'log="{log}",kind="used"', const(used_pct * MIB, 300)),
            s("aix_tsm_log_space_bytes", f'log="{log}",kind="total"', const(100 * MIB, 300))]


def tsm_checklist():
    out = []
    # tsmSpaceWarningRatio 0.80 (for 15m): the database or a log 85 % full fires, 75 % stays quiet
    for pct, fire in ((85, True), (75, False)):
        out.append(case(f"the database {pct} % full", "AixTsmDatabaseSpaceHigh", tsm_db(pct), fire,
                        "20m" if fire else "60m"))
        out.append(case(f"the archive log {pct} % full", "AixTsmLogSpaceHigh", tsm_log(pct, "archive"), fire,
                        "20m" if fire else "60m"))
    # tsmSpaceCriticalRatio 0.90 (for 15m): 95 % fires, 85 % stays quiet
    for pct, fire in ((95, True), (85, False)):
        out.append(case(f"the database {pct} % full", "AixTsmDatabaseSpaceCritical", tsm_db(pct), fire,
                        "20m" if fire else "60m"))
        out.append(case(f"the active log {pct} % full", "AixTsmLogSpaceCritical", tsm_log(pct), fire,
                        "20m" if fire else "60m"))
    # tsmDbBackupMaxAgeSeconds 93600 (no for): a backup at 0 fires at 1561 minutes, quiet up to 1559
    backup = [s("aix_tsm_db_last_backup_timestamp_seconds", "", const(0, 1600))]
    out.append(case("the last backup 1561 minutes ago", "AixTsmDatabaseBackupOverdue", backup, True, "1561m"))
    out.append(case("the last backup 1559 minutes ago at most", "AixTsmDatabaseBackupOverdue", backup, False, "1559m"))
    # errptWindow 1h (no for): a cleaning request 59 minutes ago fires, one 61 minutes ago does not
    # (the counter steps from 0 to 1 at minute 1 and stays: increase over 1h sees it until minute 61)
    cleaning = [s("aix_errpt_entries_total", 'label="TAPE_ERR6",class="H",type="TEMP",resource="rmt3"',
                  f"0 {const(1, 299)}")]
    out.append(case("TAPE_ERR6 59 minutes ago", "AixTapeDriveNeedsCleaning", cleaning, True, "60m"))
    out.append(quiet_after("TAPE_ERR6 63 minutes ago", "AixTapeDriveNeedsCleaning", cleaning, "64m", "1m"))
    perm = [s("aix_errpt_entries_total", 'label="TAPE_ERR1",class="H",type="PERM",resource="rmt5"', f"0 {const(1, 299)}")]
    out.append(case("TAPE_ERR1 59 minutes ago", "AixTapeDriveHardwareError", perm, True, "60m"))
    out.append(quiet_after("TAPE_ERR1 63 minutes ago", "AixTapeDriveHardwareError", perm, "64m", "1m"))
    temp = [s("aix_errpt_entries_total", 'label="TAPE_ERR2",class="H",type="TEMP",resource="rmt5"', f"0 {const(1, 299)}")]
    out.append(case("a temporary tape error is no hardware error", "AixTapeDriveHardwareError", temp, False, "30m"))
    disk = [s("aix_errpt_entries_total", 'label="DISK_ERR4",class="H",type="PERM",resource="hdisk0"', f"0 {const(1, 299)}")]
    out.append(case("a disk's permanent error is not a tape drive's", "AixTapeDriveHardwareError", disk, False, "30m"))
    # tsmPoolFullRatio 0.90 (for 15m): a pool 92 % full fires, 88 % and exactly 90 % stay quiet
    for used, fire in ((0.92, True), (0.88, False), (0.90, False)):
        out.append(case(f"a storage pool {used:.0%} full", "AixTsmStoragePoolFull",
                        [s("aix_tsm_storage_pool_used_ratio", 'pool="TAPEPOOL"', const(used, 300))], fire,
                        "20m" if fire else "60m"))
    # tsmScratchMin 10 (for 15m): 9 scratch volumes fire, exactly 10 stay quiet
    for n, fire in ((9, True), (10, False)):
        out.append(case(f"{n} scratch volumes", "AixTsmScratchVolumesLow",
                        [s("aix_tsm_library_volumes", 'library="TS4500",status="scratch"', const(n, 300)),
                         s("aix_tsm_library_volumes", 'library="TS4500",status="private"', const(5, 300))], fire,
                        "20m" if fire else "60m"))
    # tsmOfflineFor 15m: a drive or a path offline from minute 0 fires at 16 minutes, not at 14
    for alert, series, labels in (("AixTsmDriveOffline", "aix_tsm_drive_online", 'library="TS4500",drive="DRIVE8"'),
                                  ("AixTsmPathOffline", "aix_tsm_path_online", 'source="TSMSRV",destination="DRIVE8"')):
        offline = [s(series, labels, const(0, 300))]
        out.append({"name": f"{alert} fires 15 minutes after the first offline reading, pending before",
                    "interval": "1m", "input_series": offline, "promql_expr_test": [
                        {"expr": f'count(ALERTS{{alertname="{alert}",alertstate="firing"}}) or vector(0)',
                         "eval_time": "14m", "exp_samples": [{"labels": "{}", "value": 0}]},
                        fires(alert, "16m")]})
        out.append(case("online", alert, [s(series, labels, const(1, 300))], False, "60m"))
    # tapeUnaccountedRatio 1.25 (for 15m): the OS writes 130 MB/s to tape while the server moved
    # 100 MB/s (1.3) fires; 120 and 124 MB/s stay quiet (not exactly 125: the two rates' rounding
    # decides an exact tie); 1.3 times above the 1 MiB/s floor (1.3 MB/s against 1 MB/s, 1.24
    # MiB/s) fires, below it (0.65 against 0.5 MB/s, 0.62 MiB/s) does not
    def unaccounted(os_per_s, server_per_s):
        return [s("aix_tape_written_bytes_total", 'device="rmt0"', f"0+{os_per_s * 60:.12g}x60"),
                s("aix_tsm_processes", "", const(1, 61)),
                s("aix_tsm_process_bytes", 'process="Migration",process_num="12"', f"0+{server_per_s * 60:.12g}x60")]
    for os_mb, server_mb, fire in ((130, 100, True), (120, 100, False), (124, 100, False), (1.3, 1, True), (0.65, 0.5, False)):
        out.append(case(f"the OS writes {os_mb} MB/s to tape, the server moved {server_mb}", "AixTapeWritesUnaccounted",
                        unaccounted(os_mb * 1e6, server_mb * 1e6), fire, "25m" if fire else "60m"))
    # tsmScheduleFailuresMax 0 (for 0s): one missed event fires at once; failures spread over
    # failed_no_restart and severed are summed; none (completed ones only) stays quiet
    def events(**counts):
        return [s("aix_tsm_client_schedule_events", f'result="{r}"', const(counts.get(r, 0), 300))
                for r in ("completed", "failed", "failed_no_restart", "missed", "severed", "in_progress")]
    out.append(case("one missed event", "AixTsmClientScheduleFailures", events(completed=39, missed=1), True, "1m"))
    out.append(case("a no-restart failure and a severed session", "AixTsmClientScheduleFailures",
                    events(completed=38, failed_no_restart=1, severed=1), True, "1m"))
    out.append(case("completed and in-progress events only", "AixTsmClientScheduleFailures",
                    events(completed=39, in_progress=1), False, "60m"))
    # tsmMonitorFor 15m: a status-monitor row in ERROR (or WARNING) from minute 0 fires at 16
    # minutes, not at 14; the other states of the same row (0) never fire
    for alert, state in (("AixTsmStatusMonitorError", "error"), ("AixTsmStatusMonitorWarning", "warning")):
        row = [s("aix_tsm_monitor_status", f'activity="STORAGE POOL UTILIZATION (TAPEPOOL)",status="{st}"',
                 const(1 if st == state else 0, 300)) for st in ("normal", "warning", "error")]
        out.append({"name": f"{alert} fires 15 minutes after the row turned {state.upper()}, pending before",
                    "interval": "1m", "input_series": row, "promql_expr_test": [
                        {"expr": f'count(ALERTS{{alertname="{alert}",alertstate="firing"}}) or vector(0)',
                         "eval_time": "14m", "exp_samples": [{"labels": "{}", "value": 0}]},
                        fires(alert, "16m")]})
        normal = [s("aix_tsm_monitor_status", f'activity="STORAGE POOL UTILIZATION (TAPEPOOL)",status="{st}"',
                    const(1 if st == "normal" else 0, 300)) for st in ("normal", "warning", "error")]
        out.append(case("the row NORMAL", alert, normal, False, "60m"))
    return out


def at_the_threshold(fallback, heap, pin, tape):
    """Each comparison of an alert at its exact threshold: a strict comparison (<, >) stays
    quiet there, so a mutant that widens it to <= or >= fires. The values are chosen to be exact
    in binary floating point (20/200, 0.75/0.25), and every range holds samples at both of its
    ends, so rate() and delta() do not extrapolate."""
    out = []
    # largePagePoolFreeWarningRatio 0.10: 20 of 200 pages free is exactly 10 %, not below it
    out.append(case("exactly 10 % of the pool free", "AixLargePagePoolNearlyExhausted", pool(20), False, "60m"))
    # exhausted means no page free (<= 0): none free fires (for 5m), one free page is not exhausted
    out.append(case("no page free", "AixLargePagePoolExhausted", pool(0), True, "10m"))
    out.append(case("one page free", "AixLargePagePoolExhausted", pool(1), False, "60m"))
    # the free pages run out after 120 minutes and stay at 0: while the pool is exhausted the
    # forecast has nothing left to predict (free > 0), AixLargePagePoolExhausted has it
    run_out = [s("aix_memory_page_pool_size_bytes", 'psize="16M"', const(120 * PAGE, 300)),
               s("aix_memory_page_inuse_bytes", 'psize="16M"', f"0+{PAGE}x120 {const(120 * PAGE, 180)}")]
    out.append(quiet_after("the pool ran out 35 minutes ago", "AixLargePagePoolFillingUp", run_out, "155m", "5m"))
    # the forecast crosses 0 (not 1, not at 0): free falls one page a minute from 400, so the
    # 4-hour forecast free - 240 is 0 at minute 160 and below 0 from 161; with for: 30m the
    # alert fires at 191, and is still pending at 190
    falling = [s("aix_memory_page_pool_size_bytes", 'psize="16M"', const(10000 * PAGE, 300)),
               s("aix_memory_page_inuse_bytes", 'psize="16M"', f"{(10000 - 400) * PAGE}+{PAGE}x300")]
    out.append({"name": "AixLargePagePoolFillingUp fires 30 minutes after the forecast falls below 0",
                "interval": "1m", "input_series": falling, "promql_expr_test": [
                    {"expr": 'count(ALERTS{alertname="AixLargePagePoolFillingUp",alertstate="firing"}) or vector(0)',
                     "eval_time": "190m", "exp_samples": [{"labels": "{}", "value": 0}]},
                    fires("AixLargePagePoolFillingUp", "191m")]})
    # mandatoryMinHeadroomPages 16, no growth: exactly 16 free is enough
    mode_m = [s("aix_process_large_page_info", 'pid="4242",comm="dsmserv",mode="M"', const(1, 300))]
    flat16 = [s("aix_process_inuse_bytes", 'pid="4242",comm="dsmserv",psize="16M"', const(100 * PAGE, 300))]
    out.append(case("exactly 16 free pages, no growth", "AixMandatoryLargePagesAtRisk", pool(16) + mode_m + flat16,
                    False, "60m"))
    # two processes with =M on one LPAR: the faster grower decides (120 pages in 2 h > 30 free),
    # not the flat one (16 pages of headroom < 30 free)
    two = [s("aix_process_large_page_info", 'pid="4343",comm="dsmserv",mode="M"', const(1, 300)),
           s("aix_process_inuse_bytes", 'pid="4343",comm="dsmserv",psize="16M"', const(50 * PAGE, 300))]
    grow16 = [s("aix_process_inuse_bytes", 'pid="4242",comm="dsmserv",psize="16M"', f"{100 * PAGE}+{PAGE}x300")]
    out.append(case("30 free, one of two =M processes grows 120 pages in 2 h", "AixMandatoryLargePagesAtRisk",
                    pool(30) + mode_m + grow16 + two, True, "30m"))
    # fallback4kGrowthBytes 32 MiB in 30m: 4 KB use steps up by exactly 32 MiB once, so the
    # 30-minute delta is exactly 32 MiB for 30 minutes, not more
    out.append(case("4 KB use grows by exactly 32 MiB", "AixLargePageSilentFallback",
                    fallback + [s("aix_process_inuse_bytes", 'pid="4242",comm="dsmserv",psize="4K"',
                              f"{const(1 << 30, 100)} {const((1 << 30) + 32 * MIB, 200)}")], False, "200m"))
    # 16 MB use that grows by exactly one page every 30 minutes is not flat: the process still
    # gets large pages (abs(delta) < one page is flat; delta, not the per-second deriv)
    grow4k = s("aix_process_inuse_bytes", 'pid="4242",comm="dsmserv",psize="4K"', f"{1 << 30}+{40 * MIB / 30:.0f}x300")
    # (vxn is n + 1 samples: the first step at minute 5, then one every 30 minutes)
    steps = " ".join([const(100 * PAGE, 4)] + [const((101 + k) * PAGE, 29) for k in range(10)])
    out.append(case("16 MB use grows one page every 30 minutes", "AixLargePageSilentFallback",
                    fallback[:2] + [fallback[2], s("aix_process_inuse_bytes", 'pid="4242",comm="dsmserv",psize="16M"',
                                                   steps), grow4k], False, "290m"))
    # exhausted is free < 1: with one page free the process does not fall back
    out.append(case("one page free", "AixLargePageSilentFallback",
                    pool(1) + fallback[2:] + [grow4k], False, "120m"))
    # configured but unused needs lgpg_regions > 0: 0 stays quiet, 1 fires
    unused = [s("aix_process_large_page_info", 'pid="4242",comm="dsmserv",mode="N"', const(1, 300))]
    for regions, fire in ((0, False), (1, True)):
        out.append(case(f"lgpg_regions={regions}, dsmserv in mode N", "AixLargePagesConfiguredButUnused",
                        unused + [s("aix_vmo_tunable", 'tunable="lgpg_regions",setting="current"', const(regions, 300))],
                        fire, "40m" if fire else "120m"))
    # undersized: exactly the 160 recommended is not under it; no pool at all (0) is not a pool
    # too small, one region is
    out.append(case("exactly 160 configured, 160 recommended", "AixLargePagePoolUndersized", heap(8, 160, 10),
                    False, "180m"))
    out.append(case("no pool configured", "AixLargePagePoolUndersized", heap(8, 0, 0), False, "180m"))
    out.append(case("1 region configured, 160 recommended", "AixLargePagePoolUndersized", heap(8, 1, 0), True, "70m"))
    # oversized: exactly 2 x 160 configured, or exactly 64 free, is not over
    out.append(case("exactly 320 configured (2 x 160), 70 free", "AixLargePagePoolOversized", heap(8, 320, 70),
                    False, "420m"))
    out.append(case("340 configured, exactly 64 free", "AixLargePagePoolOversized", heap(8, 340, 64), False, "420m"))
    # pinMissRatio 0.10 and sysPerUserRatio 3, each exactly
    out.append(case("miss exactly 0.10, sys 3.5 x usr", "AixPinLockContention", pin(0.10, 3.5), False, "60m"))
    exact3 = [s("aix_splat_function_miss_ratio", 'function=".pin_seg_range"', const(0.12, 300)),
              s("aix_vmstat_cpu_ratio", 'mode="user"', const(0.25, 300)),
              s("aix_vmstat_cpu_ratio", 'mode="sys"', const(0.75, 300))]
    out.append(case("miss 0.12, sys exactly 3 x usr", "AixPinLockContention", exact3, False, "60m"))
    # tapeDropRatio 0.5 and tapeBusyRatio 0.5, each exactly: 50 MiB/s after 100, 50 % busy
    out.append(quiet_after("exactly 50 MiB/s after 100, 60 % busy", "AixTapeThroughputDrop", tape(50, 0.6), "240m", "50m"))
    out.append(quiet_after("40 MiB/s after 100, exactly 50 % busy", "AixTapeThroughputDrop", tape(40, 0.5), "240m", "50m"))
    # collectorStaleSeconds 3600: exactly an hour since the last success is not stale yet
    stale = [s("aix_exporter_collector_last_success_timestamp_seconds", 'collector="vmstat"', const(0, 120))]
    out.append(case("last success exactly 60 minutes ago", "AixExporterCollectorStale", stale, False, "60m"))
    # pagingSpaceUsedRatio 0.80 and freeListRatio 0.01, each exactly (80/100, 10/1000)
    out.append(case("exactly 80 % of paging space used", "AixPagingSpaceLow",
                    [s("aix_paging_space_inuse_bytes", "", const(80 * MIB, 300)),
                     s("aix_paging_space_size_bytes", "", const(100 * MIB, 300))], False, "60m"))
    out.append(case("exactly 1 % of memory on the free list", "AixFreeListLow",
                    [s("aix_vmstat_free_list_bytes", "", const(10 * MIB, 300)),
                     s("aix_lpar_memory_bytes", "", const(1000 * MIB, 300))], False, "60m"))
    return out


def quiet_after(name, alert, series, at, window):
    """Quiet over the last ``window`` before ``at`` (the part of the input after a change)."""
    return case(name, alert, series, False, at, window)


def main():
    # the shipped alerting rules and the recording rules they read (alerts/build_rules.py writes
    # it from aix-rules.yml): the per-regime rules, which no alert reads, took 200 s of 216
    doc = {"rule_files": ["alerting-rules.yml"], "evaluation_interval": "1m", "tests": cases()}
    head = ("# Generated by alerts/tests/make_threshold_tests.py: every numeric threshold of\n"
            "# exporter/aix_exporter/monitoring.json pinned from both sides (promtool test rules thresholds.test.yml).\n")
    with open(os.path.join(HERE, "thresholds.test.yml"), "w") as fh:
        fh.write(head + yaml.safe_dump(doc, sort_keys=False, width=200))


if __name__ == "__main__":
    main()
