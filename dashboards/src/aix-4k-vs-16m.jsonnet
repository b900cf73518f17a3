// Before/after comparison of two windows in different page-size regimes (4 KB, 64 KB: IBM's
// Storage Protect start line, 16 MB), in the style of IBM's z/VM performance reports: rows of
// figures, columns of runs, ratios to the base run. (The file name and uid are those of the
// first version, the 4 KB versus 16 MB dashboard, so that links keep working.)
local g = import '../lib/grafana.libsonnet';
function(c)
local i = g.matchers([c.aixSelector, 'instance=~"$instance"']);
local t = g.target;

// Each figure of the one figure table (exporter/aix_exporter/figures.json) over a window of
// $window that ended OFFSET ago: the table's window form with its tokens filled in as the
// report's figures.py fills them (tests/unit/test_figures.py checks they are the same text).
local F = import '../../exporter/aix_exporter/figures.json';
local figures = F.figures;
local rowName(k) = '%d %s' % [k + 1, figures[k].row];
local part(p, offset) = std.strReplace(std.strReplace(std.strReplace(F.parts[p.part].window,
  'SEL', std.join(',', [i] + (if std.objectHas(p, 'select') then [p.select] else []))),
  'RANGE', '$window'), 'AT', ' offset ' + offset);
// zero_if_absent: no series of the figure's own while its part has others is 0 (svmon -G has no
// row for a page size that is not configured)
local of(f, offset) = if std.objectHas(f, 'zero_if_absent') && f.zero_if_absent
                      then '(%s) or (0 * %s)' % [part(f.of, offset), part({ part: f.of.part }, offset)]
                      else part(f.of, offset);
local at(f, offset) = (if std.objectHas(f, 'per') then '((%s) / (%s))' % [of(f, offset), part(f.per, offset)]
                       else '(%s)' % of(f, offset)) + (if std.objectHas(f, 'scale') then f.scale else '');
local index(key) = [k for k in std.range(0, std.length(figures) - 1) if figures[k].key == key][0];
local labelled(offset) = std.join('\nor\n', [
  'label_replace(%s, "figure", "%s", "", "")' % [at(figures[k], offset), rowName(k)]
  for k in std.range(0, std.length(figures) - 1)
]);
local ratio = std.join('\nor\n', [
  'label_replace((%s) / (%s), "figure", "%s", "", "")' % [at(figures[k], '$after'), at(figures[k], '$before'), rowName(k)]
  for k in std.range(0, std.length(figures) - 1)
]);
local pair(title, key, unit, y, x) = [
  g.stat(title + ' - before', [t(at(figures[index(key)], '$before'), '{{instance}}')], unit, g.pos(x, y, 4, 5)),
  g.stat(title + ' - after', [t(at(figures[index(key)], '$after'), '{{instance}}')], unit, g.pos(x + 4, y, 4, 5)),
];
g.dashboard('AIX / Page-size regimes: 4K, 64K, 16M', 'aix-4k-vs-16m',
  'Key figures of a before window and an after window side by side, with the after/before ratio, and the regime (the page size that holds most of the monitored processes\' data: 4 KB, 64 KB or 16 MB) each window ran in. Set $before and $after to how long ago each window ended, $window to its length.',
  [
    g.table('Comparison: after relative to before (window $window, ended $before and $after ago)',
            [t(labelled('$before'), '', instant=true, format='table'),
             t(labelled('$after'), '', instant=true, format='table'),
             t(ratio, '', instant=true, format='table')],
            'short', g.pos(0, 0, 24, 17),
            desc='Rows: figures; columns: the base run (before), the new run (after) and the ratio after/before, as in the z/VM reports.',
            transformations=[
              { id: 'merge', options: {} },
              { id: 'organize', options: {
                excludeByName: { Time: true, job: true },
                renameByName: { figure: 'Figure', instance: 'LPAR', 'Value #A': 'Before (base)', 'Value #B': 'After', 'Value #C': 'After / before' },
                indexByName: { figure: 0, instance: 1, 'Value #A': 2, 'Value #B': 3, 'Value #C': 4 },
              } },
              { id: 'sortBy', options: { sort: [{ field: 'Figure' }, { field: 'LPAR' }] } },
            ]) {
      fieldConfig+: {
        overrides: [{ matcher: { id: 'byName', options: 'After / before' }, properties: [
          { id: 'decimals', value: 2 },
          { id: 'mappings', value: [{ type: 'special', options: { match: 'nan', result: { text: '-' } } },
                                    { type: 'range', options: { from: 1e300, to: null, result: { text: 'new' } } }] },
        ] }],
      },
    },
  ]
  + pair('Tape MiB/s', 'tape', 'short', 17, 0)
  + pair('User CPU %', 'user', 'short', 17, 8)
  + pair('pin miss ratio', 'pin_miss', 'percentunit', 17, 16)
  + [
    g.timeseries('Tape throughput: now and $before earlier', [
      t('sum by (instance) (rate(aix_tape_written_bytes_total{%s}[5m]) + rate(aix_tape_read_bytes_total{%s}[5m]))' % [i, i], '{{instance}} now'),
      t('sum by (instance) (rate(aix_tape_written_bytes_total{%s}[5m] offset $before) + rate(aix_tape_read_bytes_total{%s}[5m] offset $before))' % [i, i],
        '{{instance}} $before earlier'),
    ], 'binBps', g.pos(0, 22, 12, 8)),
    g.timeseries('CPU user and sys: now and $before earlier', [
      t('aix_vmstat_cpu_ratio{%s,mode=~"user|sys"}' % i, '{{instance}} {{mode}} now'),
      t('aix_vmstat_cpu_ratio{%s,mode=~"user|sys"} offset $before' % i, '{{instance}} {{mode}} $before earlier'),
    ], 'percentunit', g.pos(12, 22, 12, 8)),
    g.timeseries('Page-size regime: 1 = 4 KB, 2 = 64 KB, 3 = 16 MB pages hold most of the data', [
      t('(aix:regime_page_size:bytes{%s} == bool 4096) + 2 * (aix:regime_page_size:bytes{%s} == bool 65536) + 3 * (aix:regime_page_size:bytes{%s} == bool 16777216)' % [i, i, i], '{{instance}}'),
    ], 'short', g.pos(0, 30, 24, 6), min=0, max=3,
       desc='aix:regime_page_size:bytes: 4 KB, 64 KB (IBM\'s Storage Protect start line, DATAPSIZE=64K) or 16 MB (LARGE_PAGE_DATA with a pool); absent while the server is down. Pick the windows where it is flat.'),
  ],
  variables=[
    g.customVariable('before', 'Before window ended', ['5h30m', '1d', '2d', '7d', '14d'], '5h30m'),
    g.customVariable('after', 'After window ended', ['30m', '1m', '1h', '6h', '1d'], '30m'),
    g.customVariable('window', 'Window length', ['1h', '30m', '3h', '6h'], '1h'),
  ],
  annotations=[
    g.annotation('lgpg_regions changed', 'changes(aix_vmo_tunable{%s,tunable="lgpg_regions",setting="current"}[5m]) > 0' % i, 'orange',
                 'lgpg_regions changed on {{instance}}'),
    g.annotation('16MB mode changed', 'count by (instance, mode) (aix_process_large_page_info{%s}) unless count by (instance, mode) (aix_process_large_page_info{%s} offset 5m)' % [i, i],
                 'purple', '16MB mode {{mode}} on {{instance}}'),
    g.annotation('LDR_CNTRL changed', 'count by (instance, large_page_data, datapsize) (aix_process_ldr_cntrl_info{%s}) unless count by (instance, large_page_data, datapsize) (aix_process_ldr_cntrl_info{%s} offset 5m)' % [i, i],
                 'blue', 'LARGE_PAGE_DATA={{large_page_data}} DATAPSIZE={{datapsize}} on {{instance}}'),
  ],
  time='now-8h', selector=c.aixSelector)
