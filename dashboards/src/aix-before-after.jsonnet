// Before/after by regime, without picking windows: for one LPAR, every figure averaged over
// the time its workload ran with 4 KB pages and over the time it ran with 16 MB pages
// (recording rule aix:regime_16m:bool), within the dashboard's time range: set the range with
// the time picker to absolute dates around the change. Ratios in the z/VM style, coloured by
// the direction that is good for each figure; "new" where the base was 0. A fleet table lists
// every LPAR that ran in both regimes.
local g = import '../lib/grafana.libsonnet';
local i = 'instance=~"$instance"';   // a single LPAR: the variable is single-select here
local t = g.target;
local R = 'aix:regime_16m:bool';

// [row label, good direction (higher/lower/none), instant PromQL by (instance, job)]
local figures = [
  ['1 Tape throughput (MiB/s)', 'higher', 'sum by (instance, job) (rate(aix_tape_written_bytes_total{%s}[5m]) + rate(aix_tape_read_bytes_total{%s}[5m])) / 1048576' % [i, i]],
  ['2 Tape transfers (/s)', 'higher', 'sum by (instance, job) (aix_tape_transfers_per_second{%s})' % i],
  ['3 User CPU (%)', 'none', 'avg by (instance, job) (aix_vmstat_cpu_ratio{%s,mode="user"}) * 100' % i],
  ['4 System CPU (%)', 'lower', 'avg by (instance, job) (aix_vmstat_cpu_ratio{%s,mode="sys"}) * 100' % i],
  ['5 Wait (%)', 'lower', 'avg by (instance, job) (aix_vmstat_cpu_ratio{%s,mode="wait"}) * 100' % i],
  ['6 System / user CPU', 'lower', 'avg by (instance, job) (aix_vmstat_cpu_ratio{%s,mode="sys"}) / avg by (instance, job) (aix_vmstat_cpu_ratio{%s,mode="user"})' % [i, i]],
  ['7 CPU seconds per GiB to tape', 'lower', 'avg by (instance, job) (aix_vmstat_physical_cpus_consumed{%s}) / (sum by (instance, job) (rate(aix_tape_written_bytes_total{%s}[5m]) + rate(aix_tape_read_bytes_total{%s}[5m])) / 1073741824)' % [i, i, i]],
  ['8 pin_seg_range miss ratio', 'lower', 'max by (instance, job) (aix_splat_function_miss_ratio{%s,function=~"\\\\.?pin_seg_range"})' % i],
  ['9 Memory in 4 KB pages (GiB)', 'none', 'sum by (instance, job) (aix_memory_page_inuse_bytes{%s,psize="4K"}) / 1073741824' % i],
  ['10 Memory in 16 MB pages (GiB)', 'none', 'sum by (instance, job) (aix_memory_page_inuse_bytes{%s,psize="16M"}) / 1073741824' % i],
  ['11 lgpg_regions', 'none', 'max by (instance, job) (aix_vmo_tunable{%s,tunable="lgpg_regions",setting="current"})' % i],
];
// the figure averaged over the range's minutes in one regime (0: 4 KB, 1: 16 MB)
// (the regime's last 90 s only: backfilled history has no staleness markers to end a run)
local inRegime(expr, r) = 'avg_over_time(((%s) and on (instance, job) (last_over_time(%s{%s}[90s]) == %d))[$__range:1m])' % [expr, R, i, r];
local column(r) = std.join('\nor\n', ['label_replace(%s, "figure", "%s", "", "")' % [inRegime(f[2], r), f[0]] for f in figures]);
// after / before; a base of 0 gives +Inf, shown as "new" by a value mapping
local ratio = std.join('\nor\n', ['label_replace((%s) / (%s), "figure", "%s", "", "")' % [inRegime(f[2], 1), inRegime(f[2], 0), f[0]] for f in figures]);
// +1 when after/before moved the good way, -1 the bad way, 0 within 5 % or no direction
local verdict = std.join('\nor\n', [
  'label_replace(%s, "figure", "%s", "", "")' % [
    if f[1] == 'none' then '0 * (%s)' % inRegime(f[2], 1)
    else '((%s) / (%s) > bool 1.05) * %d + ((%s) / (%s) < bool 0.95) * %d' % [
      inRegime(f[2], 1), inRegime(f[2], 0), if f[1] == 'higher' then 1 else -1,
      inRegime(f[2], 1), inRegime(f[2], 0), if f[1] == 'higher' then -1 else 1],
    f[0]]
  for f in figures
]);
local tape(sel) = 'sum by (instance, job) (rate(aix_tape_written_bytes_total{%s}[5m]) + rate(aix_tape_read_bytes_total{%s}[5m]))' % [sel, sel];
local user(sel) = 'avg by (instance, job) (aix_vmstat_cpu_ratio{%s})' % std.join(',', [x for x in [sel, 'mode="user"'] if x != '']);
local fleetRatio(expr) = '(avg_over_time(((%s) and on (instance, job) (last_over_time(%s[90s]) == 1))[$__range:5m]) / avg_over_time(((%s) and on (instance, job) (last_over_time(%s[90s]) == 0))[$__range:5m]))' % [expr, R, expr, R];
local lparVariable = g.instanceVariable {
  multi: false, includeAll: false,
  query: { query: 'label_values(%s, instance)' % R, refId: 'instance' },
  definition: 'label_values(%s, instance)' % R,
  current: { selected: false, text: '', value: '' },
};

g.dashboard('AIX / Before and after by regime', 'aix-before-after',
  'For one LPAR: each figure over the minutes it ran with 4 KB pages (before) and with 16 MB pages (after), within the time range; set the range with the time picker (absolute dates work). aix-exporter report writes the same comparison as a file.',
  [
    g.table('$instance: 4 KB regime (before) and 16 MB regime (after) in the time range',
            [t(column(0), '', instant=true, format='table'),
             t(column(1), '', instant=true, format='table'),
             t(ratio, '', instant=true, format='table'),
             t(verdict, '', instant=true, format='table')],
            'short', g.pos(0, 0, 24, 13),
            desc='Rows: figures; columns: the base run (4 KB regime), the new run (16 MB regime), after/before coloured green when it moved the good way and red the bad way, "new" when the base was 0.',
            transformations=[
              { id: 'merge', options: {} },
              { id: 'organize', options: {
                excludeByName: { Time: true, instance: true, job: true },
                renameByName: { figure: 'Figure', 'Value #A': 'Before (4 KB)', 'Value #B': 'After (16 MB)', 'Value #C': 'After / before', 'Value #D': 'Verdict' },
                indexByName: { figure: 0, 'Value #A': 1, 'Value #B': 2, 'Value #C': 3, 'Value #D': 4 },
              } },
              { id: 'sortBy', options: { sort: [{ field: 'Figure' }] } },
            ]) {
      fieldConfig+: {
        overrides: [
          { matcher: { id: 'byName', options: 'After / before' }, properties: [
            { id: 'decimals', value: 2 },
            { id: 'mappings', value: [{ type: 'special', options: { match: 'nan', result: { text: '-' } } },
                                      { type: 'range', options: { from: 1e300, to: null, result: { text: 'new' } } }] },
          ] },
          { matcher: { id: 'byName', options: 'Verdict' }, properties: [
            { id: 'custom.cellOptions', value: { type: 'color-background' } },
            { id: 'mappings', value: [{ type: 'value', options: {
              '1': { text: 'better', color: 'green' }, '-1': { text: 'worse', color: 'red' }, '0': { text: '-', color: 'transparent' },
            } }] },
          ] },
        ],
      },
    },
    g.timeseries('$instance: tape MiB/s and the regime', [
      t(tape(i) + ' / 1048576', 'tape MiB/s'),
      t('%s{%s} * 100' % [R, i], '16 MB regime (100) or 4 KB (0)'),
    ], 'short', g.pos(0, 13, 12, 8)),
    g.timeseries('$instance: user and system CPU', [t('aix_vmstat_cpu_ratio{%s,mode=~"user|sys"}' % i, '{{mode}}')],
                 'percentunit', g.pos(12, 13, 12, 8)),
    g.table('Fleet: every LPAR that ran in both regimes in the time range',
            [t('label_replace(%s, "figure", "tape", "", "")' % fleetRatio(tape('')), '', instant=true, format='table'),
             t('label_replace(%s, "figure", "user", "", "")' % fleetRatio(user('')), '', instant=true, format='table')],
            'short', g.pos(0, 21, 24, 8),
            desc='After/before ratios per LPAR: tape throughput and user CPU, 16 MB regime over 4 KB regime.',
            transformations=[
              { id: 'merge', options: {} },
              { id: 'organize', options: {
                excludeByName: { Time: true, figure: true },
                renameByName: { instance: 'LPAR', 'Value #A': 'Tape after / before', 'Value #B': 'User CPU after / before' },
              } },
            ]),
  ],
  time='now-8h') + {
  templating: { list: [g.datasourceVariable, lparVariable] },
}
