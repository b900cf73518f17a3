// Before/after by regime, without picking windows: for one LPAR, every figure averaged over
// the time its workload ran in one page-size regime ($from: 4K, 64K or 16M) and over the time it
// ran in another ($to), from the per-regime recording rules aix:regime_*, labelled
// regime="4K"/"64K"/"16M" from aix:regime_page_size:bytes, within the dashboard's time range: set the range with
// the time picker to absolute dates around the change. Ratios in the z/VM style, coloured by
// the direction that is good for each figure; "new" where the base was 0. A fleet table lists
// every LPAR that ran in both regimes.
local g = import '../lib/grafana.libsonnet';
function(c)
local i = g.matchers([c.aixSelector, 'instance=~"$instance"']);   // a single LPAR: the variable is single-select here   // a single LPAR: the variable is single-select here
local t = g.target;
local R = 'aix:regime_page_size:bytes';

// every figure of the one figure table (exporter/aix_exporter/figures.json), in its order
local F = import '../../exporter/aix_exporter/figures.json';
local figures = F.figures;
local rowName(k) = '%d %s' % [k + 1, figures[k].row];
local regimes = ['$from', '$to'];
// a part averaged over the range's minutes in one regime (0: $from, 1: $to): the recording
// rules label each minute's figure with that minute's regime, so this is a plain range average
// (no subquery: a week of a fleet stays well under a second)
// (sel: the LPAR's matchers, or the selector alone for every LPAR)
local partIn(p, r, sel) = 'max by (instance, job) (avg_over_time(%s{%s}[$__range]))' % [
  F.parts[p.part].record,
  std.join(',', [m for m in [sel, 'regime="%s"' % regimes[r], if std.objectHas(p, 'select') then p.select else ''] if m != ''])];
// the figure in one regime: its part, or the ratio of its two parts' regime averages, then its scale
// (zero_if_absent: no series of the figure's own while its part has others is 0)
local ofIn(f, r, sel) = if std.objectHas(f, 'zero_if_absent') && f.zero_if_absent
                        then '(%s or 0 * %s)' % [partIn(f.of, r, sel), partIn({ part: f.of.part }, r, sel)]
                        else partIn(f.of, r, sel);
local inRegime(f, r, sel=i) = '(%s%s)' % [
  if std.objectHas(f, 'per') then '(%s) / (%s)' % [ofIn(f, r, sel), partIn(f.per, r, sel)] else ofIn(f, r, sel),
  if std.objectHas(f, 'scale') then f.scale else ''];
local column(r) = std.join('\nor\n', ['label_replace(%s, "figure", "%s", "", "")' % [inRegime(figures[k], r), rowName(k)]
                                       for k in std.range(0, std.length(figures) - 1)]);
// after / before; a base of 0 gives +Inf, shown as "new" by a value mapping
local ratio = std.join('\nor\n', ['label_replace((%s) / (%s), "figure", "%s", "", "")' % [inRegime(figures[k], 1), inRegime(figures[k], 0), rowName(k)]
                                   for k in std.range(0, std.length(figures) - 1)]);
// +1 when after/before moved the good way, -1 the bad way, 0 within the table's band or for a
// figure that does not decide (its direction depends on the workload: the report gives its reading)
// The verdict's name is a label (verdict="better", "worse" or "-"), so that a table shows it in
// its own column in Grafana and in Perses alike: one selection per value (PromQL cannot turn a
// value into a label).
local verdicts = [[1, 'better'], [-1, 'worse'], [0, '-']];
local verdict = std.join('\nor\n', [
  local f = figures[k];
  local v = if !std.objectHas(f, 'decides') || !f.decides then '0 * (%s)' % inRegime(f, 1)
            else '((%s) / (%s) > bool %g) * %d + ((%s) / (%s) < bool %g) * %d' % [
              inRegime(f, 1), inRegime(f, 0), 1 + F.same_band, if f.better == 'higher' then 1 else -1,
              inRegime(f, 1), inRegime(f, 0), 1 - F.same_band, if f.better == 'higher' then -1 else 1];
  'label_replace(%s, "figure", "%s", "", "")' % [
    std.join(' or ', ['label_replace((%s) == %d, "verdict", "%s", "", "")' % [v, n[0], n[1]] for n in verdicts]),
    rowName(k)]
  for k in std.range(0, std.length(figures) - 1)
]);
local figure(key) = [f for f in figures if f.key == key][0];
local tape(sel) = 'sum by (instance, job) (rate(aix_tape_written_bytes_total{%s}[5m]) + rate(aix_tape_read_bytes_total{%s}[5m]))' % [sel, sel];
// after / before of one figure for every LPAR that ran in both regimes
local fleetRatio(key) = '(%s) / (%s)' % [inRegime(figure(key), 1, c.aixSelector), inRegime(figure(key), 0, c.aixSelector)];
// Comparability for tape (issue 60): what else moved tape MB/s between the two regimes, over the
// minutes the LPAR ran in each (the per-regime tape record is the mask of those minutes): the
// drives at work on average, the error log's hardware entries against the drives, the minutes
// with a drive or path offline, the fewest scratch tapes. The report's Comparability section
// judges the same signals over its two windows.
local mask(r) = 'aix:regime_tape_bytes:rate5m{%s,regime="%s"}' % [i, regimes[r]];
local ran(r, collected) = '0 * (max by (instance, job) (last_over_time(%s[$__range])) and on (instance, job) max by (instance, job) (last_over_time(%s[$__range])))' % [mask(r), collected];
local errpt = 'aix_errpt_entries_total{%s,class="H",resource=~"rmt[0-9]+"}' % i;
local comparability = [
  ['Drives at work (average)',
   function(r) 'avg_over_time((max by (instance, job) (aix:tape_drives_at_work:count{%s} or 0 * %s) and on (instance, job) %s)[$__range:1m])' % [i, mask(r), mask(r)]],
  ['Tape drive errors (errpt, hardware)',
   function(r) 'sum_over_time((clamp_min(sum by (instance, job) (%s) - sum by (instance, job) (%s offset 1m), 0) and on (instance, job) %s)[$__range:1m]) or on (instance, job) %s' % [
     errpt, errpt, mask(r), ran(r, 'aix_exporter_collector_success{%s,collector="errpt"}' % i)]],
  ['Minutes with a drive or path offline',
   function(r) 'count_over_time(((min by (instance, job) (aix_tsm_drive_online{%s}) == 0 or min by (instance, job) (aix_tsm_path_online{%s}) == 0) and on (instance, job) %s)[$__range:1m]) or on (instance, job) %s' % [
     i, i, mask(r), ran(r, 'aix_tsm_drive_online{%s}' % i)]],
  ['Fewest scratch tapes',
   function(r) 'min_over_time((min by (instance, job) (aix_tsm_library_volumes{%s,status="scratch"}) and on (instance, job) %s)[$__range:1m])' % [i, mask(r)]],
];
local comparabilityColumn(r) = std.join('\nor\n', ['label_replace(%s, "figure", "%d %s", "", "")' % [comparability[k][1](r), k + 1, comparability[k][0]]
                                                    for k in std.range(0, std.length(comparability) - 1)]);
local lparVariable = g.instanceVariable(c.aixSelector) {
  multi: false, includeAll: false,
  query: { query: 'label_values(%s{%s}, instance)' % [R, c.aixSelector], refId: 'instance' },
  definition: 'label_values(%s{%s}, instance)' % [R, c.aixSelector],
  current: { selected: false, text: '', value: '' },
};

g.dashboard('AIX / Before and after by regime', 'aix-before-after',
  'For one LPAR: each figure over the minutes it ran in the $from page-size regime (before) and in the $to regime (after), within the time range; set the range with the time picker (absolute dates work). aix-exporter report writes the same comparison as a file.',
  [
    g.table('$instance: $from regime (before) and $to regime (after) in the time range',
            [t(column(0), '', instant=true, format='table'),
             t(column(1), '', instant=true, format='table'),
             t(ratio, '', instant=true, format='table'),
             t(verdict, '', instant=true, format='table')],
            'short', g.pos(0, 0, 24, 13),
            desc='Rows: figures; columns: the base run ($from regime), the new run ($to regime), after/before coloured green when it moved the good way and red the bad way, "new" when the base was 0.',
            transformations=[
              { id: 'merge', options: {} },
              { id: 'organize', options: {
                excludeByName: { Time: true, instance: true, job: true, 'Value #D': true },
                renameByName: { figure: 'Figure', 'Value #A': 'Before', 'Value #B': 'After', 'Value #C': 'After / before', verdict: 'Verdict' },
                indexByName: { figure: 0, 'Value #A': 1, 'Value #B': 2, 'Value #C': 3, verdict: 4 },
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
              better: { color: 'green' }, worse: { color: 'red' }, '-': { color: 'transparent' },
            } }] },
          ] },
        ],
      },
    },
    g.table('$instance: comparability for tape, $from regime (before) and $to regime (after)',
            [t(comparabilityColumn(0), '', instant=true, format='table'),
             t(comparabilityColumn(1), '', instant=true, format='table')],
            'short', g.pos(0, 13, 24, 7),
            desc='What else moves tape MB/s, over the minutes the LPAR ran in each regime: the drives at work (more than 1 MiB/s) on average, the error log\'s hardware entries against the drives (TAPE_ERR6: a drive asks for cleaning), the minutes with a drive or path offline (TSM checklist) and the fewest scratch tapes. Equal drives at work, no errors and no offline minutes: the tape figures above compare the page sizes alone; otherwise aix-exporter report names the confounder. A row is missing where its collector did not run.',
            transformations=[
              { id: 'merge', options: {} },
              { id: 'organize', options: {
                excludeByName: { Time: true, instance: true, job: true },
                renameByName: { figure: 'Signal', 'Value #A': 'Before', 'Value #B': 'After' },
                indexByName: { figure: 0, 'Value #A': 1, 'Value #B': 2 },
              } },
              { id: 'sortBy', options: { sort: [{ field: 'Signal' }] } },
            ]) {
      fieldConfig+: { defaults+: { decimals: 1 } },
    },
    g.timeseries('$instance: tape MiB/s and the regime', [
      t(tape(i) + ' / 1048576', 'tape MiB/s'),
      t('(%s{%s} == bool 65536) * 50 + (%s{%s} == bool 16777216) * 100' % [R, i, R, i], 'regime: 16 MB (100), 64 KB (50) or 4 KB (0)'),
    ], 'short', g.pos(0, 20, 12, 8)),
    g.timeseries('$instance: user and system CPU', [t('aix_vmstat_cpu_ratio{%s,mode=~"user|sys"}' % i, '{{mode}}')],
                 'percentunit', g.pos(12, 20, 12, 8)),
    g.table('Fleet: every LPAR that ran in both regimes in the time range',
            [t(fleetRatio('tape'), '', instant=true, format='table'),
             t(fleetRatio('user'), '', instant=true, format='table')],
            'short', g.pos(0, 28, 24, 8),
            desc='After/before ratios per LPAR: tape throughput and user CPU, $to regime over $from regime.',
            transformations=[
              { id: 'merge', options: {} },
              { id: 'organize', options: {
                excludeByName: { Time: true },
                renameByName: { instance: 'LPAR', job: 'Job', 'Value #A': 'Tape after / before', 'Value #B': 'User CPU after / before' },
                indexByName: { instance: 0, 'Value #A': 1, 'Value #B': 2, job: 3 },
              } },
            ]) {
      fieldConfig+: { defaults+: { decimals: 2 } },
    },
  ],
  time='now-8h', selector=c.aixSelector) + {
  templating: { list: [g.datasourceVariable, lparVariable,
                       g.customVariable('from', 'Before: regime', ['4K', '64K', '16M'], '4K'),
                       g.customVariable('to', 'After: regime', ['16M', '64K', '4K'], '16M')] },
}
