// Before/after comparison of the 4 KB and 16 MB regimes, in the style of IBM's z/VM
// performance reports: rows of figures, columns of runs, ratios to the base run.
local g = import '../lib/grafana.libsonnet';
local i = 'instance=~"$instance"';
local t = g.target;

// Each figure: [row label, PromQL with OFFSET where the offset goes].
local figures = [
  ['1 Tape throughput (MiB/s)', 'sum by (instance) (rate(aix_tape_written_bytes_total{%s}[$window] OFFSET) + rate(aix_tape_read_bytes_total{%s}[$window] OFFSET)) / 1048576' % [i, i]],
  ['2 Tape transfers (/s)', 'sum by (instance) (avg_over_time(aix_tape_transfers_per_second{%s}[$window] OFFSET))' % i],
  ['3 User CPU (%)', 'avg by (instance) (avg_over_time(aix_vmstat_cpu_ratio{%s,mode="user"}[$window] OFFSET)) * 100' % i],
  ['4 System CPU (%)', 'avg by (instance) (avg_over_time(aix_vmstat_cpu_ratio{%s,mode="sys"}[$window] OFFSET)) * 100' % i],
  ['5 Wait (%)', 'avg by (instance) (avg_over_time(aix_vmstat_cpu_ratio{%s,mode="wait"}[$window] OFFSET)) * 100' % i],
  ['6 pin_seg_range miss ratio', 'max by (instance) (avg_over_time(aix_splat_function_miss_ratio{%s,function=".pin_seg_range"}[$window] OFFSET))' % i],
  ['7 Monitored 4 KB memory (GiB)', 'sum by (instance) (avg_over_time(aix_process_inuse_bytes{%s,psize="4K"}[$window] OFFSET)) / 1073741824' % i],
  ['8 Monitored 16 MB pages', 'sum by (instance) (avg_over_time(aix_process_inuse_bytes{%s,psize="16M"}[$window] OFFSET)) / 16777216' % i],
  ['9 lgpg_regions', 'max by (instance) (max_over_time(aix_vmo_tunable{%s,tunable="lgpg_regions",setting="current"}[$window] OFFSET))' % i],
];
local at(expr, offset) = std.strReplace(expr, 'OFFSET', 'offset ' + offset);
local labelled(offset) = std.join('\nor\n', [
  'label_replace(%s, "figure", "%s", "", "")' % [at(f[1], offset), f[0]]
  for f in figures
]);
local ratio = std.join('\nor\n', [
  'label_replace((%s) / (%s), "figure", "%s", "", "")' % [at(f[1], '$after'), at(f[1], '$before'), f[0]]
  for f in figures
]);
local pair(title, idx, unit, y, x) = [
  g.stat(title + ' - before', [t(at(figures[idx][1], '$before'), '{{instance}}')], unit, g.pos(x, y, 4, 5)),
  g.stat(title + ' - after', [t(at(figures[idx][1], '$after'), '{{instance}}')], unit, g.pos(x + 4, y, 4, 5)),
];
g.dashboard('AIX / 4K versus 16M pages', 'aix-4k-vs-16m',
  'Key figures of a before window (4 KB pages) and an after window (16 MB pages) side by side, with the after/before ratio. Set $before and $after to how long ago each window ended, $window to its length.',
  [
    g.table('Comparison: after relative to before (window $window, ended $before and $after ago)',
            [t(labelled('$before'), '', instant=true, format='table'),
             t(labelled('$after'), '', instant=true, format='table'),
             t(ratio, '', instant=true, format='table')],
            'short', g.pos(0, 0, 24, 11),
            desc='Rows: figures; columns: the base run (before), the new run (after) and the ratio after/before, as in the z/VM reports.',
            transformations=[
              { id: 'merge', options: {} },
              { id: 'organize', options: {
                excludeByName: { Time: true, instance: true },
                renameByName: { figure: 'Figure', 'Value #A': 'Before (base)', 'Value #B': 'After', 'Value #C': 'After / before' },
                indexByName: { figure: 0, 'Value #A': 1, 'Value #B': 2, 'Value #C': 3 },
              } },
              { id: 'sortBy', options: { sort: [{ field: 'Figure' }] } },
            ]),
  ]
  + pair('Tape MiB/s', 0, 'short', 11, 0)
  + pair('User CPU %', 2, 'short', 11, 8)
  + pair('pin miss ratio', 5, 'percentunit', 11, 16)
  + [
    g.timeseries('Tape throughput: now and $before earlier', [
      t('sum by (instance) (rate(aix_tape_written_bytes_total{%s}[5m]) + rate(aix_tape_read_bytes_total{%s}[5m]))' % [i, i], '{{instance}} now'),
      t('sum by (instance) (rate(aix_tape_written_bytes_total{%s}[5m] offset $before) + rate(aix_tape_read_bytes_total{%s}[5m] offset $before))' % [i, i],
        '{{instance}} $before earlier'),
    ], 'binBps', g.pos(0, 16, 12, 8)),
    g.timeseries('CPU user and sys: now and $before earlier', [
      t('aix_vmstat_cpu_ratio{%s,mode=~"user|sys"}' % i, '{{instance}} {{mode}} now'),
      t('aix_vmstat_cpu_ratio{%s,mode=~"user|sys"} offset $before' % i, '{{instance}} {{mode}} $before earlier'),
    ], 'percentunit', g.pos(12, 16, 12, 8)),
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
    g.annotation('LDR_CNTRL changed', 'count by (instance, large_page_data) (aix_process_ldr_cntrl_info{%s}) unless count by (instance, large_page_data) (aix_process_ldr_cntrl_info{%s} offset 5m)' % [i, i],
                 'blue', 'LARGE_PAGE_DATA={{large_page_data}} on {{instance}}'),
  ],
  time='now-8h')
