local g = import '../lib/grafana.libsonnet';
function(c)
local i = g.matchers([c.aixSelector, 'instance=~"$instance"']);
local t = g.target;
g.dashboard('AIX / Lock contention', 'aix-lock-contention',
  'VMM pin-lock contention from splat: .pin_seg_range miss ratio, top functions and locks, %sys beside it.',
  [
    g.timeseries('pin_seg_range miss ratio', [t('aix:pin_lock_miss:ratio{%s}' % i, '{{instance}}')], 'percentunit', g.pos(0, 0, 12, 8), min=0,
                 desc='About 0.25 with 4 KB pages and many tape threads (case study), near 0 with 16 MB pages.'),
    g.timeseries('%sys per %usr', [t('aix:cpu_sys_per_user:ratio{%s}' % i, '{{instance}}')], 'short', g.pos(12, 0, 12, 8)),
    g.timeseries('Top functions by lock misses', [t('topk by (instance) (5, aix_splat_function_acquisitions{%s} * aix_splat_function_miss_ratio{%s})' % [i, i], '{{instance}} {{function}}')],
                 'short', g.pos(0, 8, 12, 8)),
    g.timeseries('Function miss ratio', [t('aix_splat_function_miss_ratio{%s}' % i, '{{instance}} {{function}}')], 'percentunit', g.pos(12, 8, 12, 8)),
    g.timeseries('Top locks: acquisitions', [t('topk by (instance) (5, aix_splat_lock_acquisitions{%s})' % i, '{{instance}} {{lock}} {{type}}')], 'short', g.pos(0, 16, 12, 8)),
    g.timeseries('Top locks: miss ratio', [t('aix_splat_lock_miss_ratio{%s}' % i, '{{instance}} {{lock}} {{type}}')], 'percentunit', g.pos(12, 16, 12, 8)),
    g.stat('splat report age', [t('time() - aix_splat_report_timestamp_seconds{%s}' % i, '{{instance}}')], 's', g.pos(0, 24, 12, 5)),
    g.stat('Trace window', [t('aix_splat_window_seconds{%s}' % i, '{{instance}}')], 's', g.pos(12, 24, 12, 5)),
  ], selector=c.aixSelector)
