// aix_exporter alerting and recording rules (prometheusRules), read through ../mixin.libsonnet:
// every threshold, window and the selector come from its _config (exporter/aix_exporter/monitoring.json).
{
  local c = self._config,
  local S = c.aixSelector,
  local L = 16777216,  // bytes per 16 MB page
  // a recorded series as the alerts read it: with the selector too, so that rule files for
  // two jobs (the demo's aix-rules.yml and demo-fast-rules.yml) never alert on each other's
  local R(name) = '%s{%s}' % [name, S],
  // the TSM checklist: the database's share of its space, each recovery log's used share
  local tsm = import 'tsm.libsonnet',
  local TSM_DB_USED = tsm.dbUsed(S),
  local TSM_LOG_USED = tsm.logUsed(S),
  local TSM_FAILED_EVENTS = tsm.failedEvents(S),
  // the bytes one gauge (a process's, a client's sessions') grew by in the last 5 minutes: its
  // highest value then, less its value 5 minutes ago, or less 0 for a process or client born in
  // the window (it started from 0), so a process shorter than the window counts whole; a client's
  // sum that drops when a session closes counts 0, not less
  local grew(m) = 'clamp_min(max_over_time(%(m)s[5m]) - (last_over_time(%(m)s[1d] offset 5m) or max_over_time(%(m)s[5m]) * 0), 0)' % { m: m },
  // (each process, each client and the 0 are series of their own label sets, so 'or' keeps them all)
  local SERVER_MOVED = 'sum by (instance, job) (%s or %s or 0 * aix_tsm_processes{%s}) / 300' % [grew('aix_tsm_process_bytes{%s}' % S), grew('aix_tsm_session_received_bytes{%s}' % S), S],
  // the TSM server's health for the census: the worst of the checklist's alert conditions now
  // (their thresholds, without their 'for'). 2 critical: no checklist query answers (the server is
  // down or refuses dsmadmc: every checklist collector fails), the database or a recovery log over
  // the critical ratio, a status-monitor row in ERROR; 1 warning: over the warning ratio, the
  // database backup overdue or never made, a pool full, scratch tapes low, a drive or a path
  // offline, client schedules failed, a status-monitor row in WARNING; 0 ok: the checklist
  // answers and none of these holds. Absent on an LPAR without the checklist (no TSM server, or
  // dsmadmc not configured); a figure that answers alone is judged alone.
  local tsmHealth = std.join(' or ', ['(%s) * 0 + %d' % [e[1], e[0]] for e in [
    [2, 'max by (instance, job) (aix_exporter_collector_success{%s,collector=~"tsm_checklist|tsm_storage|tsm_health"}) == 0' % S],
    [2, 'max by (instance, job) (%s) > %g' % [TSM_DB_USED, c.tsmSpaceCriticalRatio]],
    [2, 'max by (instance, job) (%s) > %g' % [TSM_LOG_USED, c.tsmSpaceCriticalRatio]],
    [2, 'max by (instance, job) (aix_tsm_monitor_status{%s,status="error"}) == 1' % S],
    [1, 'max by (instance, job) (%s) > %g' % [TSM_DB_USED, c.tsmSpaceWarningRatio]],
    [1, 'max by (instance, job) (%s) > %g' % [TSM_LOG_USED, c.tsmSpaceWarningRatio]],
    [1, 'max by (instance, job) (time() - aix_tsm_db_last_backup_timestamp_seconds{%s}) > %d' % [S, c.tsmDbBackupMaxAgeSeconds]],
    [1, 'max by (instance, job) (aix_tsm_db_space_bytes{%s,kind="used"}) unless on (instance, job) aix_tsm_db_last_backup_timestamp_seconds{%s}' % [S, S]],
    [1, 'max by (instance, job) (aix_tsm_storage_pool_used_ratio{%s}) > %g' % [S, c.tsmPoolFullRatio]],
    [1, 'min by (instance, job) (aix_tsm_library_volumes{%s,status="scratch"}) < %d' % [S, c.tsmScratchMin]],
    [1, 'min by (instance, job) (aix_tsm_drive_online{%s}) == 0' % S],
    [1, 'min by (instance, job) (aix_tsm_path_online{%s}) == 0' % S],
    [1, '%s > %d' % [TSM_FAILED_EVENTS, c.tsmScheduleFailuresMax]],
    [1, 'max by (instance, job) (aix_tsm_monitor_status{%s,status="warning"}) == 1' % S],
    [0, 'max by (instance, job) (aix_tsm_db_space_bytes{%s,kind="used"})' % S],
  ]]),
  // The page-size regime, in bytes: 4096, 65536 or 16777216, the page size that holds most of
  // the monitored processes' data. Evidence, first found wins:
  //  1. svmon -P's split: the page size with the most of the processes' memory in use over
  //     their last 2 minutes (backfilled history has no staleness markers); ties go to the
  //     larger page;
  //  2. LDR_CNTRL (ps eww) where svmon -P has no split: LARGE_PAGE_DATA=Y or M asks for 16 MB
  //     pages, DATAPSIZE=64K puts the heap on 64 KB pages, anything else is 4 KB (so is a
  //     process svmon -P shows without a split and ps without LDR_CNTRL);
  //  3. for history without process figures (nmon imports), the LPAR's pools: 16 MB pages in
  //     use, else 64 KB when more memory is in 64 KB pages than in 4 KB pages, else 4 KB (also
  //     for a recording with no 4 KB section: its 16 MB pool unused).
  // Absent while the monitored processes are down (aix_process_monitored 0). Inlined in the per-regime rules: promtool
  // backfills rules that read raw series only.
  local procUse(psize) = 'sum by (instance, job) (last_over_time(aix_process_inuse_bytes{%s,psize="%s"}[2m]))' % [S, psize],
  local procMost = 'max by (instance, job) (sum by (instance, job, psize) (last_over_time(aix_process_inuse_bytes{%s,psize=~"4K|64K|16M"}[2m])))' % S,
  local bySplit = '((%s > 0) >= %s) * 0 + %d or ((%s > 0) >= %s) * 0 + %d or ((%s > 0) >= %s) * 0 + %d' % [
    procUse('16M'), procMost, L, procUse('64K'), procMost, 65536, procUse('4K'), procMost, 4096],
  local ldr(matcher) = 'max by (instance, job) (last_over_time(aix_process_ldr_cntrl_info{%s%s}[2m]))' % [S, matcher],
  local byLdr = '%s * %d or %s * %d or %s * %d or max by (instance, job) (last_over_time(aix_process_total_inuse_bytes{%s}[2m])) * 0 + %d' % [
    ldr(',large_page_data=~"[YyMm]"'), L, ldr(',datapsize=~"64[Kk]"'), 65536, ldr(''), 4096, S, 4096],
  local lparUse(psize) = 'sum by (instance, job) (aix_memory_page_inuse_bytes{%s,psize="%s"})' % [S, psize],
  local byPools = '(((%s > 0) * 0 + %d or (%s >= %s) * 0 + %d or sum by (instance, job) (aix_memory_page_inuse_bytes{%s}) * 0 + %d) unless on (instance, job) aix_process_monitored{%s})' % [
    lparUse('16M'), L, lparUse('64K'), lparUse('4K'), 65536, S, 4096, S],
  // the process evidence ends as soon as the process collector sees no monitored process (not
  // 2 minutes later): the pool is often resized while the server is down, and those minutes
  // must not count for the regime before
  local pageSize = '((%s or %s) unless on (instance, job) (max by (instance, job) (aix_process_monitored{%s}) == 0)) or %s' % [bySplit, byLdr, S, byPools],
  local regime = '(%s) == bool %d' % [pageSize, L],
  // the fleet census: one code per LPAR, the worst state first. 5: no monitored process runs and
  // the server logged ANR0358E within censusFailedWindow (it died for want of large pages). 4: a process with mandatory large
  // pages (LARGE_PAGE_DATA=M) and fewer free 16 MB pages than one heap segment (ANR0358E ahead);
  // 3: a process asking for large pages with =Y and no free page (it falls back to smaller pages);
  // 2: the monitored processes run on 16 MB pages; 1: on 64 KB pages; 0: on 4 KB pages
  local freePages = '((sum without (psize) (aix_memory_page_pool_size_bytes{%s,psize="16M"}) - sum without (psize) (aix_memory_page_inuse_bytes{%s,psize="16M"})) / %d)' % [S, S, L],
  // an LPAR with a monitored process whose svmon -P 16MB mode matches `mode` (census, pre-flight)
  local asking(mode) = 'on (instance, job) count by (instance, job) (aix_process_large_page_info{%s,mode=~"%s"})' % [S, mode],
  local failed = '(max by (instance, job) (aix_process_monitored{%s}) == 0) and on (instance, job) (max by (instance, job) (increase(aix_tsm_messages_total{%s,msgid="ANR0358E"}[%s])) > 0)' % [S, S, c.censusFailedWindow],
  local regimeCode = '((%(p)s) == %(L)d) * 0 + 2 or ((%(p)s) == 65536) * 0 + 1 or ((%(p)s) == 4096) * 0' % { p: pageSize, L: L },
  local census = 'max by (instance, job) ((%s) * 0 + 5 or ((%s < %d) and %s) * 0 + 4 or ((%s < 1) and %s) * 0 + 3 or (%s))' % [failed, freePages, c.mandatoryMinHeadroomPages, asking('M'), freePages, asking('Y'), regimeCode],
  // the restart pre-flight, for an LPAR whose monitored process asks for large pages: what it would
  // get from the 16 MB pool if restarted now. It comes back asking for the pages it holds now plus
  // one heap segment of growth (mandatoryMinHeadroomPages), and the pages other processes hold
  // stay held, so it is judged on the pool's free pages. 2: it comes up on 16 MB pages; 1: with
  // LARGE_PAGE_DATA=Y it comes up partly on 4 KB pages (the pin-lock contention returns); 0: with
  // =M it does not come up (ENOMEM, ANR0358E). The worst of the LPAR's processes.
  // (`or` keeps the first of equal label sets: the worst outcome comes first)
  local preflight = 'min by (instance, job) (((%(f)s < %(h)d) and %(M)s) * 0 or ((%(f)s < %(h)d) and %(Y)s) * 0 + 1 or ((%(f)s >= %(h)d) and %(yM)s) * 0 + 2)' % {
    f: freePages, h: c.mandatoryMinHeadroomPages, yM: asking('Y|M'), Y: asking('Y'), M: asking('M') },
  local regimeLabel = 'label_replace((%(p)s) == %(L)d, "regime", "16M", "", "") / %(L)d or label_replace((%(p)s) == 65536, "regime", "64K", "", "") / 65536 or label_replace((%(p)s) == 4096, "regime", "4K", "", "") / 4096' % { p: pageSize, L: L },
  local perRegime(record, figure) = { record: record, expr: '(%s) * on (instance, job) group_left (regime) (%s)' % [figure, regimeLabel] },
  // the before/after figures of each minute, labelled with the minute's regime: the records of
  // the one figure table the report and the comparison dashboards read too
  local figures = import '../exporter/aix_exporter/figures.json',
  local regimeRules = [perRegime(r.record, std.strReplace(r.minute, 'SEL', S)) for r in figures.records],
  local alert(name, severity, expr, forDur, summary, description) = {
    alert: name,
    expr: expr,
    [if forDur != '0s' then 'for']: forDur,
    labels: { severity: severity },
    annotations: {
      summary: summary,
      description: description,
      runbook_url: c.runbookBase + name + '.md',
    },
  },

  prometheusRules+:: {
    groups+: [
      {
        name: 'aix.rules',
        rules: [
          { record: 'aix:cpu_sys_per_user:ratio', expr: 'sum without (mode) (aix_vmstat_cpu_ratio{%s,mode="sys"}) / sum without (mode) (clamp_min(aix_vmstat_cpu_ratio{%s,mode="user"}, 0.01))' % [S, S] },
          { record: 'aix:large_pages_pool:count', expr: 'sum without (psize) (aix_memory_page_pool_size_bytes{%s,psize="16M"}) / %d' % [S, L] },
          { record: 'aix:large_pages_inuse:count', expr: 'sum without (psize) (aix_memory_page_inuse_bytes{%s,psize="16M"}) / %d' % [S, L] },
          // Recording rules read raw series only (no rule-on-rule), so promtool can backfill them.
          { record: 'aix:large_pages_free:count', expr: '(sum without (psize) (aix_memory_page_pool_size_bytes{%s,psize="16M"}) - sum without (psize) (aix_memory_page_inuse_bytes{%s,psize="16M"})) / %d' % [S, S, L] },
          { record: 'aix:large_pages_free:ratio', expr: '(sum without (psize) (aix_memory_page_pool_size_bytes{%s,psize="16M"}) - sum without (psize) (aix_memory_page_inuse_bytes{%s,psize="16M"})) / (sum without (psize) (aix_memory_page_pool_size_bytes{%s,psize="16M"}) > 0)' % [S, S, S] },
          { record: 'aix:large_pages_free_vmstat:ratio', expr: 'aix_vmstat_large_pages_free{%s} / ((aix_vmstat_large_pages_active{%s} + aix_vmstat_large_pages_free{%s}) > 0)' % [S, S, S] },
          { record: 'aix:large_pages_configured:count', expr: 'sum without (tunable, setting) (aix_vmo_tunable{%s,tunable="lgpg_regions",setting="current"})' % S },
          { record: 'aix:large_pages_recommended:count', expr: 'sum by (instance, job) (aix_process_heap_segments{%s}) * %d + %d' % [S, c.pagesPerHeapSegment, c.extraLargePages] },
          { record: 'aix:tape_bytes:rate5m', expr: 'rate(aix_tape_read_bytes_total{%s}[5m]) + rate(aix_tape_written_bytes_total{%s}[5m])' % [S, S] },
          { record: 'aix:tape_bytes_all:rate5m', expr: 'sum by (instance, job) (rate(aix_tape_read_bytes_total{%s}[5m]) + rate(aix_tape_written_bytes_total{%s}[5m]))' % [S, S] },
          { record: 'aix:tape_busy:ratio5m', expr: 'avg_over_time(aix_tape_busy_ratio{%s}[5m])' % S },
          // per drive, one truth (issue 60): the drives at work per LPAR (more than 1 MiB/s over
          // 5 minutes, iostat -p), and each drive's hardware errors in the error log over the
          // last hour, by its device (errpt's resource rmtN is iostat's device rmtN)
          { record: 'aix:tape_drives_at_work:count', expr: 'count by (instance, job) ((rate(aix_tape_read_bytes_total{%s}[5m]) + rate(aix_tape_written_bytes_total{%s}[5m])) > 1048576)' % [S, S] },
          // the server's bytes against the OS's (issue 60): what the LPAR wrote to its drives, what the
          // TSM server says it moved (its processes' bytes and its sessions' received bytes, each a
          // gauge since the process or session started: what each grew by in 5 minutes, `grew`
          // above, over 300 s; neither rate(), which each store reads differently at a new
          // process's first sample, nor deriv(), which loses a process shorter than a few samples),
          // and the two's ratio where both exist.
          // 0 for the server's side when its answer has no process and no session
          // (aix_tsm_processes present), none when the server did not answer.
          { record: 'aix:tape_written_bytes_all:rate5m', expr: 'sum by (instance, job) (rate(aix_tape_written_bytes_total{%s}[5m]))' % S },
          { record: 'aix:tsm_moved_bytes:rate5m', expr: SERVER_MOVED },
          { record: 'aix:tape_written_per_server_moved:ratio5m', expr: 'sum by (instance, job) (rate(aix_tape_written_bytes_total{%s}[5m])) / on (instance, job) ((%s) > 0)' % [S, SERVER_MOVED] },
          // per drive, mounted but idle: 1 for a volume the server has mounted and in use in a drive
          // whose OS device moved no byte over tapeIdleFor (or has no figure at all), 0 while it moves;
          // absent for a drive with nothing mounted in use
          { record: 'aix:tape_drive_mounted_idle:bool', expr: '(%(m)s unless on (instance, job, device) %(moving)s) or (%(m)s and on (instance, job, device) %(moving)s) * 0' % {
            m: 'max by (instance, job, device, drive, volume) (label_replace(aix_tsm_drive_mount_info{%s,status="in_use"}, "device", "$1", "device", "/dev/(.+)"))' % S,
            moving: '((rate(aix_tape_read_bytes_total{%s}[%s]) + rate(aix_tape_written_bytes_total{%s}[%s])) > 0)' % [S, c.tapeIdleFor, S, c.tapeIdleFor] } },
          { record: 'aix:tape_drive_errors:increase1h', expr: 'label_replace(sum by (instance, job, resource) (increase(aix_errpt_entries_total{%s,class="H",resource=~"rmt[0-9]+"}[1h])), "device", "$1", "resource", "(.+)")' % S },
          { record: 'aix:regime_page_size:bytes', expr: pageSize },
          // deprecated (kept for existing users; nothing of ours reads it): 1 on 16 MB pages, 0 on 4 KB or 64 KB
          { record: 'aix:regime_16m:bool', expr: regime },
        ] + regimeRules + [
          { record: 'aix:pin_lock_miss:ratio', expr: 'max by (instance, job) (aix_splat_function_miss_ratio{%s,function=~"\\\\.?pin_seg_range"})' % S },
          // pin_seg_range's lock misses per second over splat's traced window: its acquisitions
          // (a count splat prints exactly) times its miss share, divided by the window's length
          { record: 'aix:pin_lock_misses:rate', expr: 'max by (instance, job) (aix_splat_function_acquisitions{%s,function=~"\\\\.?pin_seg_range"} * on (instance, job, function) aix_splat_function_miss_ratio{%s,function=~"\\\\.?pin_seg_range"} / on (instance, job) group_left () (aix_splat_window_seconds{%s} > 0))' % [S, S, S] },
          { record: 'aix:census_regime:code', expr: census },
          { record: 'aix:restart_preflight:code', expr: preflight },
          { record: 'aix:tsm_health:code', expr: tsmHealth },
        ],
      },
      {
        name: 'aix.alerts',
        rules: [
          alert('AixLargePagePoolNearlyExhausted', 'warning',
                '%s < %g' % [R('aix:large_pages_free:ratio'), c.largePagePoolFreeWarningRatio], c.largePagePoolFreeWarningFor,
                '16 MB large-page pool on {{ $labels.instance }} is nearly exhausted',
                'Only {{ $value | humanizePercentage }} of the 16 MB pool is free on {{ $labels.instance }}. Processes with LARGE_PAGE_DATA=M fail with ENOMEM (ANR0358E) when it runs out; with =Y they silently fall back to 4 KB pages.'),
          alert('AixLargePagePoolExhausted', 'critical',
                '%s <= 0 and %s > 0' % [R('aix:large_pages_free:count'), R('aix:large_pages_pool:count')], c.largePagePoolExhaustedFor,
                '16 MB large-page pool on {{ $labels.instance }} is exhausted',
                'No 16 MB page is free on {{ $labels.instance }} ({{ $value }} free). New large-page allocations fail (LARGE_PAGE_DATA=M: ENOMEM, ANR0358E) or fall back to 4 KB pages (=Y).'),
          alert('AixLargePagePoolFillingUp', 'critical',
                'predict_linear(%s[%s], %d) < 0 and %s > 0' % [R('aix:large_pages_free:count'), c.largePagePoolForecastWindow, c.largePagePoolForecastHours * 3600, R('aix:large_pages_free:count')],
                c.largePagePoolForecastFor,
                '16 MB large-page pool on {{ $labels.instance }} will run out within %d hours' % c.largePagePoolForecastHours,
                'At the growth of the last %s the 16 MB pool on {{ $labels.instance }} runs out within %d hours (predicted free pages: {{ $value | humanize }}).' % [c.largePagePoolForecastWindow, c.largePagePoolForecastHours]),
          alert('AixMandatoryLargePagesAtRisk', 'critical',
                |||
                  (
                    %(free)s
                    < on (instance, job)
                    max by (instance, job) (clamp_min(deriv(aix_process_inuse_bytes{%(S)s,psize="16M"}[%(w)s]) * %(h)d / %(L)d, %(min)d))
                  )
                  and on (instance, job) count by (instance, job) (aix_process_large_page_info{%(S)s,mode="M"})
                ||| % { S: S, free: R('aix:large_pages_free:count'), w: c.mandatoryGrowthWindow, h: c.mandatoryGrowthHorizonSeconds, L: L, min: c.mandatoryMinHeadroomPages },
                c.mandatoryFor,
                'Mandatory large pages on {{ $labels.instance }}: the 16 MB pool is about to run out (ANR0358E ahead)',
                'A monitored process uses LARGE_PAGE_DATA=M on {{ $labels.instance }} and only {{ $value }} 16 MB pages are free, less than its likely growth. When the pool runs out malloc returns ENOMEM and the server stops with ANR0358E. Add large pages (vmo lgpg_regions) or switch to LARGE_PAGE_DATA=Y now.'),
          alert('AixLargePageSilentFallback', 'warning',
                |||
                  (
                    delta(aix_process_inuse_bytes{%(S)s,psize="4K"}[%(w)s]) > %(g)d
                    and on (instance, job, pid) abs(delta(aix_process_inuse_bytes{%(S)s,psize="16M"}[%(w)s])) < %(L)d
                    and on (instance, job, pid)
                    (aix_process_large_page_info{%(S)s,mode="Y"} or on (instance, job, pid) aix_process_ldr_cntrl_info{%(S)s,large_page_data!=""})
                  )
                  and on (instance, job) (%(free)s < 1)
                ||| % { S: S, free: R('aix:large_pages_free:count'), w: c.fallbackWindow, g: c.fallback4kGrowthBytes, L: L },
                c.fallbackFor,
                '{{ $labels.command }} ({{ $labels.pid }}) on {{ $labels.instance }} silently falls back to 4 KB pages',
                '{{ $labels.command }} asks for large pages but the 16 MB pool is exhausted: its 4 KB memory grew by {{ $value | humanize1024 }}B in %s while its 16 MB use stayed flat. Pin-lock contention returns with 4 KB buffers. Add large pages (vmo lgpg_regions).' % c.fallbackWindow),
          alert('AixRestartWouldFail', 'critical',
                '%s == 0' % R('aix:restart_preflight:code'), c.preflightFor,
                'A restart of the server on {{ $labels.instance }} would fail: too few free 16 MB pages for LARGE_PAGE_DATA=M',
                'The restart pre-flight (aix:restart_preflight:code, {{ $value }}) on {{ $labels.instance }}: a process with mandatory large pages (LARGE_PAGE_DATA=M) would come back asking for what it holds now plus one heap segment (%d pages), and fewer pages than that are free. If it restarts now, malloc returns ENOMEM and the server stops with ANR0358E. Raise lgpg_regions (aix-exporter plan gives the size) or start it with LARGE_PAGE_DATA=Y.' % c.mandatoryMinHeadroomPages),
          alert('AixLargePagesConfiguredButUnused', 'warning',
                'aix_process_large_page_info{%s,mode="N"} * on (instance, job) group_left () (%s > 0)' % [S, R('aix:large_pages_configured:count')],
                c.unusedFor,
                '{{ $labels.command }} on {{ $labels.instance }} runs without the configured large pages',
                'lgpg_regions is {{ $value }} on {{ $labels.instance }} but {{ $labels.command }} ({{ $labels.pid }}) uses no 16 MB pages (svmon -P 16MB=N). LDR_CNTRL is probably missing from the start script after a restart, or the non-root server user lacks CAP_BYPASS_RAC_VMM.'),
          alert('AixLargePagePoolUndersized', 'warning',
                '%s > 0 and %s < on (instance, job) %s' % [R('aix:large_pages_configured:count'), R('aix:large_pages_configured:count'), R('aix:large_pages_recommended:count')],
                c.undersizedFor,
                '16 MB pool on {{ $labels.instance }} is smaller than the sizing rule',
                'lgpg_regions on {{ $labels.instance }} is {{ $value }} pages, below the sizing rule of the case study (heap segments x %d + %d, see aix:large_pages_recommended:count). Large-page demand beyond the pool falls back to 4 KB pages or fails.' % [c.pagesPerHeapSegment, c.extraLargePages]),
          alert('AixLargePagePoolOversized', 'info',
                '%s > %d and on (instance, job) (%s > on (instance, job) (%g * %s))' % [R('aix:large_pages_free:count'), c.oversizedMinFreePages, R('aix:large_pages_configured:count'), c.oversizedFactor, R('aix:large_pages_recommended:count')],
                c.oversizedFor,
                '16 MB pool on {{ $labels.instance }} pins memory nobody uses',
                '{{ $value }} 16 MB pages are free on {{ $labels.instance }} and lgpg_regions is more than %g times the sizing rule. Large pages are pinned: that memory is lost to everything else.' % c.oversizedFactor),
          alert('AixPinLockContention', 'warning',
                '%s > %g and on (instance, job) %s > %g' % [R('aix:pin_lock_miss:ratio'), c.pinMissRatio, R('aix:cpu_sys_per_user:ratio'), c.sysPerUserRatio],
                c.contentionFor,
                'VMM pin-lock contention on {{ $labels.instance }}',
                'pin_seg_range misses the VMM segment lock {{ $value | humanizePercentage }} of the time on {{ $labels.instance }} and %%sys is more than %g times %%usr: tape threads are spinning on 4 KB page pins. Use 16 MB pages for the server heap (LDR_CNTRL LARGE_PAGE_DATA=Y).' % c.sysPerUserRatio),
          alert('AixTapeThroughputDrop', 'warning',
                '%s < %g * quantile_over_time(0.9, %s[%s]) and on (instance, job, device) %s > %g' % [R('aix:tape_bytes:rate5m'), c.tapeDropRatio, R('aix:tape_bytes:rate5m'), c.tapeBaselineWindow, R('aix:tape_busy:ratio5m'), c.tapeBusyRatio],
                c.tapeFor,
                'Tape {{ $labels.device }} on {{ $labels.instance }} is busy but slow',
                '{{ $labels.device }} moves {{ $value | humanize1024 }}B/s, under %g of its usual rate over %s, while busy more than %g of the time. Check pin-lock contention (4 KB pages) and the drive.' % [c.tapeDropRatio, c.tapeBaselineWindow, c.tapeBusyRatio]),
          alert('AixTsmDatabaseInitFailed', 'critical',
                'increase(aix_tsm_messages_total{%s,msgid="ANR0358E"}[%s]) > 0' % [S, c.tsmWindow], '0s',
                'TSM server on {{ $labels.instance }} logged ANR0358E',
                'ANR0358E (Database initialization failed: sufficient memory is not available) appeared {{ printf "%%.0f" $value }} times in the last %s on {{ $labels.instance }}: with LARGE_PAGE_DATA=M the 16 MB pool ran out.' % c.tsmWindow),
          alert('AixTsmDiagnosticError', 'warning',
                'increase(aix_tsm_messages_total{%s,msgid="ANR9999D"}[%s]) > 0' % [S, c.tsmWindow], '0s',
                'TSM server on {{ $labels.instance }} logged ANR9999D',
                'ANR9999D appeared {{ printf "%%.0f" $value }} times in the last %s on {{ $labels.instance }} (for example a memory allocation error before ANR0358E).' % c.tsmWindow),
          alert('AixTsmDatabaseSpaceHigh', 'warning',
                '%s > %g' % [TSM_DB_USED, c.tsmSpaceWarningRatio], c.tsmSpaceFor,
                'TSM database on {{ $labels.instance }} is {{ $value | humanizePercentage }} full',
                'The server database on {{ $labels.instance }} uses {{ $value | humanizePercentage }} of its space (used / used + free, DB table), above %g %%: extend it (EXTEND DBSPACE) or free space before it fills.' % (100 * c.tsmSpaceWarningRatio)),
          alert('AixTsmDatabaseSpaceCritical', 'critical',
                '%s > %g' % [TSM_DB_USED, c.tsmSpaceCriticalRatio], c.tsmSpaceFor,
                'TSM database on {{ $labels.instance }} is {{ $value | humanizePercentage }} full',
                'The server database on {{ $labels.instance }} uses {{ $value | humanizePercentage }} of its space, above %g %%: a full database stops the server.' % (100 * c.tsmSpaceCriticalRatio)),
          alert('AixTsmLogSpaceHigh', 'warning',
                '%s > %g' % [TSM_LOG_USED, c.tsmSpaceWarningRatio], c.tsmSpaceFor,
                'TSM {{ $labels.log }} log on {{ $labels.instance }} is {{ $value | humanizePercentage }} full',
                'The {{ $labels.log }} log (the archive log: its file system) on {{ $labels.instance }} is {{ $value | humanizePercentage }} full, above %g %%: a database backup frees the archive log; a full active log stops the server.' % (100 * c.tsmSpaceWarningRatio)),
          alert('AixTsmLogSpaceCritical', 'critical',
                '%s > %g' % [TSM_LOG_USED, c.tsmSpaceCriticalRatio], c.tsmSpaceFor,
                'TSM {{ $labels.log }} log on {{ $labels.instance }} is {{ $value | humanizePercentage }} full',
                'The {{ $labels.log }} log on {{ $labels.instance }} is {{ $value | humanizePercentage }} full, above %g %%: back up the database now (it frees the archive log) or add log space.' % (100 * c.tsmSpaceCriticalRatio)),
          alert('AixTsmDatabaseBackupOverdue', 'warning',
                'time() - aix_tsm_db_last_backup_timestamp_seconds{%s} > %d' % [S, c.tsmDbBackupMaxAgeSeconds], '0s',
                'TSM database on {{ $labels.instance }} last backed up {{ $value | humanizeDuration }} ago',
                'The last backup of the server database on {{ $labels.instance }} ran {{ $value | humanizeDuration }} ago, more than %d hours: check the BACKUP DB schedule (q event) and its device class. Without a recent database backup the server cannot be recovered.' % (c.tsmDbBackupMaxAgeSeconds / 3600)),
          alert('AixTsmDatabaseNeverBackedUp', 'warning',
                'aix_tsm_db_space_bytes{%s,kind="used"} unless on (instance, job) aix_tsm_db_last_backup_timestamp_seconds{%s}' % [S, S], c.tsmSpaceFor,
                'TSM database on {{ $labels.instance }} was never backed up',
                'The server database on {{ $labels.instance }} ({{ $value | humanize1024 }}B in use) has no backup (DB table LAST_BACKUP_DATE is empty): schedule BACKUP DB.'),
          alert('AixTsmStoragePoolFull', 'warning',
                'aix_tsm_storage_pool_used_ratio{%s} > %g' % [S, c.tsmPoolFullRatio], c.tsmSpaceFor,
                'TSM storage pool {{ $labels.pool }} on {{ $labels.instance }} is {{ $value | humanizePercentage }} full',
                'The storage pool {{ $labels.pool }} on {{ $labels.instance }} holds data in {{ $value | humanizePercentage }} of its estimated capacity (STGPOOLS PCT_UTILIZED), above %g %%: add volumes or scratch tapes (MAXSCRATCH), migrate or reclaim, before backups to it fail.' % (100 * c.tsmPoolFullRatio)),
          alert('AixTsmScratchVolumesLow', 'warning',
                'aix_tsm_library_volumes{%s,status="scratch"} < %d' % [S, c.tsmScratchMin], c.tsmSpaceFor,
                'TSM library {{ $labels.library }} on {{ $labels.instance }} has {{ $value }} scratch volumes',
                'The library {{ $labels.library }} on {{ $labels.instance }} has {{ $value }} scratch volumes left, fewer than %d: check in new tapes (CHECKIN LIBVOLUME) or reclaim, before tape pools cannot get a new volume.' % c.tsmScratchMin),
          alert('AixTsmDriveOffline', 'warning',
                'aix_tsm_drive_online{%s} == 0' % S, c.tsmOfflineFor,
                'TSM drive {{ $labels.drive }} in {{ $labels.library }} is offline on {{ $labels.instance }}',
                'The server on {{ $labels.instance }} has had the drive {{ $labels.drive }} of library {{ $labels.library }} offline for %s (DRIVES ONLINE=NO, aix_tsm_drive_online {{ $value }}): fewer drives serve the tape pools, and tape MB/s falls without any page-size change. Check the drive (errpt, cleaning) and UPDATE DRIVE ONLINE=YES.' % c.tsmOfflineFor),
          alert('AixTsmPathOffline', 'warning',
                'aix_tsm_path_online{%s} == 0' % S, c.tsmOfflineFor,
                'TSM path from {{ $labels.source }} to {{ $labels.destination }} is offline on {{ $labels.instance }}',
                'The path from {{ $labels.source }} to {{ $labels.destination }} on {{ $labels.instance }} has been offline for %s (PATHS ONLINE=NO, aix_tsm_path_online {{ $value }}): that source cannot use the device. Check the device file (lsdev, errpt) and UPDATE PATH ONLINE=YES.' % c.tsmOfflineFor),
          alert('AixTsmClientScheduleFailures', 'warning',
                '%s > %d' % [TSM_FAILED_EVENTS, c.tsmScheduleFailuresMax], '0s',
                'TSM on {{ $labels.instance }}: {{ $value }} client schedules failed or missed in 24 h',
                'The server on {{ $labels.instance }} has {{ $value }} client schedule events in the last 24 hours that failed, were missed or severed (EVENTS table), more than %d: those clients have no new backup. Look at q event * * begindate=-1 exceptionsonly=yes and the clients\' dsmsched.log.' % c.tsmScheduleFailuresMax),
          alert('AixTsmStatusMonitorError', 'critical',
                'aix_tsm_monitor_status{%s,status="error"} == 1' % S, c.tsmMonitorFor,
                'TSM status monitor on {{ $labels.instance }}: {{ $labels.activity }} is in ERROR',
                'The server\'s own status monitor on {{ $labels.instance }} has judged {{ $labels.activity }} ERROR for %s (aix_tsm_monitor_status {{ $value }}; QUERY MONITORSTATUS, against its DEFINE STATUSTHRESHOLD thresholds). Look at q monitorstatus f=d and the threshold that fired.' % c.tsmMonitorFor),
          alert('AixTsmStatusMonitorWarning', 'info',
                'aix_tsm_monitor_status{%s,status="warning"} == 1' % S, c.tsmMonitorFor,
                'TSM status monitor on {{ $labels.instance }}: {{ $labels.activity }} is in WARNING',
                'The server\'s own status monitor on {{ $labels.instance }} has judged {{ $labels.activity }} WARNING for %s (aix_tsm_monitor_status {{ $value }}; QUERY MONITORSTATUS): not yet an error; look at q monitorstatus f=d before it becomes one.' % c.tsmMonitorFor),
          alert('AixTapeDriveMountedIdle', 'warning',
                '%s == 1' % R('aix:tape_drive_mounted_idle:bool'), c.tapeIdleFor,
                'Tape {{ $labels.device }} on {{ $labels.instance }} is mounted in use but moves nothing',
                'The server has volume {{ $labels.volume }} mounted and in use in {{ $labels.drive }} ({{ $labels.device }}, q mount ANR8330I; aix:tape_drive_mounted_idle:bool {{ $value }}) on {{ $labels.instance }}, but iostat -p shows no byte read or written on it for %s: the drive, its path or the session feeding it is stuck. A stuck drive lowers the LPAR\'s tape MB/s without any page-size change.' % c.tapeIdleFor),
          alert('AixTapeDriveOfflineWhileWriting', 'warning',
                '(min by (instance, job) (aix_tsm_drive_online{%(S)s}) == 0 or min by (instance, job) (aix_tsm_path_online{%(S)s}) == 0) and on (instance, job) (sum by (instance, job) (rate(aix_tape_written_bytes_total{%(S)s}[5m])) > 1048576)' % { S: S }, c.tsmOfflineFor,
                'A drive or path is offline on {{ $labels.instance }} while it writes to tape',
                'The server on {{ $labels.instance }} has a drive or a path offline (aix_tsm_drive_online or aix_tsm_path_online {{ $value }}) for %s while the LPAR writes to tape: fewer drives serve the running backups, so tape MB/s measured now is not comparable with a window that had them all (the report\'s Comparability section names it).' % c.tsmOfflineFor),
          alert('AixTapeWritesUnaccounted', 'warning',
                '%s > 1048576 and %s > %g * %s' % [R('aix:tape_written_bytes_all:rate5m'), R('aix:tape_written_bytes_all:rate5m'), c.tapeUnaccountedRatio, R('aix:tsm_moved_bytes:rate5m')], c.tapeUnaccountedFor,
                'The OS on {{ $labels.instance }} writes more to tape than the TSM server says it moves',
                'The LPAR {{ $labels.instance }} wrote {{ $value | humanize1024 }}B/s to its tape drives (iostat -p, 5 minutes) for %s, more than %g %% of what the TSM server says it moved (its processes\' bytes and its sessions\' received bytes): something other than the server writes to the drives (a mksysb, a tar, another application), or the server\'s figures are stale. Tape MB/s measured now is not the server\'s alone.' % [c.tapeUnaccountedFor, 100 * c.tapeUnaccountedRatio]),
          alert('AixTapeDriveNeedsCleaning', 'warning',
                'increase(aix_errpt_entries_total{%s,label="TAPE_ERR6"}[%s]) > 0' % [S, c.errptWindow], '0s',
                'Tape drive {{ $labels.resource }} on {{ $labels.instance }} needs cleaning',
                'The error log on {{ $labels.instance }} has {{ $value | humanize }} TAPE_ERR6 entries for {{ $labels.resource }} within %s: the drive asks for a cleaning cartridge. Until it is cleaned its throughput falls and the tape figures of a before/after comparison are not the page size\'s alone.' % c.errptWindow),
          alert('AixTapeDriveHardwareError', 'warning',
                'increase(aix_errpt_entries_total{%s,class="H",type="PERM",resource=~"rmt[0-9]+"}[%s]) > 0' % [S, c.errptWindow], '0s',
                'Tape drive {{ $labels.resource }} on {{ $labels.instance }} logged {{ $labels.label }}',
                'The error log on {{ $labels.instance }} has {{ $value | humanize }} permanent hardware errors ({{ $labels.label }}) for {{ $labels.resource }} within %s: the drive or its media failed an operation. Look at errpt -a -N {{ $labels.resource }}; a failing drive lowers the LPAR\'s tape throughput without any page-size change.' % c.errptWindow),
          alert('AixLargePageRegionsChangePending', 'info',
                'aix_vmo_tunable{%s,tunable="lgpg_regions",setting="boot"} != ignoring (setting) aix_vmo_tunable{%s,tunable="lgpg_regions",setting="current"}' % [S, S],
                c.lgpgPendingFor,
                'lgpg_regions on {{ $labels.instance }} changes at the next boot',
                'The boot value of lgpg_regions is {{ $value }} on {{ $labels.instance }}, not the current value: a vmo -r change waits for bosboot and a reboot, or a vmo -o change was not made permanent with -p.'),
          alert('AixExporterCollectorFailing', 'warning',
                'aix_exporter_collector_success{%s} == 0' % S, c.collectorFailingFor,
                'aix_exporter collector {{ $labels.collector }} fails on {{ $labels.instance }}',
                'The {{ $labels.collector }} collector has failed for %s on {{ $labels.instance }} (aix_exporter_collector_success = {{ $value }}); its metrics are missing. The exporter log names the command and the line.' % c.collectorFailingFor),
          alert('AixExporterCollectorStale', 'warning',
                'time() - aix_exporter_collector_last_success_timestamp_seconds{%s} > %d' % [S, c.collectorStaleSeconds], '0s',
                'aix_exporter collector {{ $labels.collector }} has no fresh data on {{ $labels.instance }}',
                'The last successful run of {{ $labels.collector }} on {{ $labels.instance }} was {{ $value | humanizeDuration }} ago.'),
          alert('AixPagingSpaceLow', 'warning',
                'aix_paging_space_inuse_bytes{%s} / aix_paging_space_size_bytes{%s} > %g' % [S, S, c.pagingSpaceUsedRatio], c.pagingSpaceFor,
                'Paging space on {{ $labels.instance }} is {{ $value | humanizePercentage }} used',
                'Paging space use on {{ $labels.instance }} is {{ $value | humanizePercentage }}. AIX kills processes when paging space runs out; pinned 16 MB pages leave less memory for everything else.'),
          alert('AixFreeListLow', 'warning',
                'aix_vmstat_free_list_bytes{%s} / on (instance, job) aix_lpar_memory_bytes{%s} < %g' % [S, S, c.freeListRatio], c.freeListFor,
                'Free list on {{ $labels.instance }} is low',
                'The VMM free list on {{ $labels.instance }} is {{ $value | humanizePercentage }} of memory: the page stealer is working (check vmstat fr/sr and pinned memory).'),
        ],
      },
    ],
  },
}
