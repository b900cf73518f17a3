// The fleet census: every LPAR in one table, ranked by its large-page state (the recording rule
// aix:census_regime:code: 5 down after ANR0358E, 4 mandatory large pages at risk, 3 falling back (pool full), 2 on
// 16 MB pages, 1 on 64 KB pages, 0 on 4 KB pages) and by its contention signature (system per user CPU, the
// pin_seg_range miss ratio and its lock misses per second), with its tape throughput. Every column reads a recording rule, so
// the table stays one query per column at a thousand LPARs, on Prometheus or VictoriaMetrics.
// `aix-exporter report --census` writes the same ranking as a file.
local g = import '../lib/grafana.libsonnet';
function(c)
local S = c.aixSelector;
local t = g.target;
local col(expr) = t(expr, '', instant=true, format='table');
local avg(record) = 'avg by (instance, job) (avg_over_time(%s{%s}[$__range]))' % [record, S];
// the census states, worst first: [code, name, colour]
local states = [[5, 'down after ANR0358E', 'dark-red'], [4, 'mandatory at risk', 'red'], [3, 'falling back (pool full)', 'orange'],
                [2, '16 MB pages', 'green'], [1, '64 KB pages', 'purple'], [0, '4 KB pages', 'blue']];
local named = g.named;
local code = 'last_over_time(aix:census_regime:code{%s}[1h])' % S;
// the TSM server's health (aix:tsm_health:code): the worst of the TSM checklist's alert conditions now
local tsm = [[2, 'critical', 'red'], [1, 'warning', 'orange'], [0, 'ok', 'green']];

g.dashboard('AIX / Fleet census', 'aix-fleet-census',
  'Every LPAR ranked: first by large-page state (mandatory at risk, falling back, 16 MB, 64 KB, 4 KB) at the end of the time range, then by contention (system per user CPU, pin_seg_range miss ratio) averaged over it.',
  [
    g.stat('Fleet: LPARs by large-page state (now)', [
      t('count(%s == %d) or vector(0)' % [named(code, 'state', states), k[0]], k[1], instant=true)
      for k in [[5, 'down after ANR0358E'], [4, 'mandatory at risk'], [3, 'falling back'], [2, '16 MB pages'], [1, '64 KB pages'], [0, '4 KB pages']]
    ], 'short', g.pos(0, 0, 24, 4), desc='How many LPARs are in each state now (aix:census_regime:code).',
           thresholds=[{ color: 'green', value: null }]) {
      options+: { textMode: 'value_and_name', graphMode: 'none' },
    },
    g.table('Fleet: state, contention and tape per LPAR, worst first',
            [col(named(code, 'state', states)),
             col(avg('aix:cpu_sys_per_user:ratio')),
             col(avg('aix:pin_lock_miss:ratio')),
             col(avg('aix:pin_lock_misses:rate')),
             col('sum by (instance, job) (avg_over_time(aix:tape_bytes_all:rate5m{%s}[$__range])) / 1048576' % S),
             col(named('last_over_time(aix_aso_active{%s}[1h])' % S, 'aso', [[1, 'active'], [0, 'inactive']])),
             col(named('last_over_time(aix:tsm_health:code{%s}[1h])' % S, 'tsm', tsm))],
            'short', g.pos(0, 4, 24, 20),
            desc='One row per LPAR. ASO: the Active System Optimizer, active (it can take 16 MB pages from the pool on its own) or not. TSM health: the worst of the TSM checklist\'s alert conditions now (critical, warning, ok; critical too when no checklist query answers; empty on an LPAR without the checklist). State at the end of the range; system/user CPU, pin_seg_range miss ratio, its lock misses per second (splat) and tape MiB/s averaged over the range. State (its code in Code): 16 MB pages (2) with a high system/user ratio is worth a look; 64 KB pages (1, IBM\'s start line) with a pin miss ratio above 10 % and system CPU several times user may gain from 16 MB pages; 4 KB pages (0) with a high pin miss ratio is the case study before its tuning.',
            transformations=[
              { id: 'merge', options: {} },
              { id: 'organize', options: {
                excludeByName: { Time: true, 'Value #F': true, 'Value #G': true },
                renameByName: { instance: 'LPAR', job: 'Job', state: 'State', 'Value #A': 'Code', 'Value #B': 'System / user CPU',
                                'Value #C': 'pin_seg_range miss ratio', 'Value #D': 'Pin lock misses/s', 'Value #E': 'Tape MiB/s',
                                aso: 'ASO', tsm: 'TSM health' },
                indexByName: { instance: 0, state: 1, 'Value #A': 2, 'Value #B': 3, 'Value #C': 4, 'Value #D': 5, 'Value #E': 6, aso: 7, tsm: 8, job: 9 },
              } },
              { id: 'sortBy', options: { sort: [{ field: 'Code', desc: true }, { field: 'System / user CPU', desc: true }] } },
            ]) {
      fieldConfig+: {
        overrides: [
          { matcher: { id: 'byName', options: 'State' }, properties: [
            { id: 'custom.cellOptions', value: { type: 'color-background' } },
            { id: 'mappings', value: [{ type: 'value', options: { [n[1]]: { color: n[2] } for n in states } }] },
          ] },
          { matcher: { id: 'byName', options: 'Code' }, properties: [{ id: 'decimals', value: 0 }] },
          { matcher: { id: 'byName', options: 'System / user CPU' }, properties: [{ id: 'decimals', value: 2 }] },
          { matcher: { id: 'byName', options: 'pin_seg_range miss ratio' }, properties: [{ id: 'unit', value: 'percentunit' }] },
          { matcher: { id: 'byName', options: 'Pin lock misses/s' }, properties: [{ id: 'decimals', value: 0 }] },
          { matcher: { id: 'byName', options: 'Tape MiB/s' }, properties: [{ id: 'decimals', value: 1 }] },
          { matcher: { id: 'byName', options: 'ASO' }, properties: [
            { id: 'mappings', value: [{ type: 'value', options: { active: { color: 'orange' }, inactive: { color: 'transparent' } } }] },
          ] },
          { matcher: { id: 'byName', options: 'TSM health' }, properties: [
            { id: 'custom.cellOptions', value: { type: 'color-background' } },
            { id: 'mappings', value: [{ type: 'value', options: { [n[1]]: { color: n[2] } for n in tsm } }] },
          ] },
        ],
      },
    },
  ],
  time='now-24h', selector=S)
