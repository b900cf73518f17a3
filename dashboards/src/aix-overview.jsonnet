local g = import '../lib/grafana.libsonnet';
function(c)
local i = g.matchers([c.aixSelector, 'instance=~"$instance"']);
local t = g.target;
g.dashboard('AIX / Overview', 'aix-overview',
  'CPU, run queue, entitlement, memory, paging and exporter health of AIX LPARs (aix_exporter).',
  [
    g.row('CPU', 0),
    g.timeseries('CPU (vmstat)', [t('aix_vmstat_cpu_ratio{%s}' % i, '{{instance}} {{mode}}')], 'percentunit', g.pos(0, 1, 12, 8), min=0, max=1,
                 desc='User, sys, idle and wait of the last vmstat interval.'),
    g.timeseries('%sys per %usr', [t('aix:cpu_sys_per_user:ratio{%s}' % i, '{{instance}}')], 'short', g.pos(12, 1, 6, 8),
                 desc='Several times 1 with tape threads spinning on the VMM pin lock (case study: 15 vs 3).'),
    g.timeseries('Run queue and blocked threads', [t('aix_vmstat_runqueue_threads{%s}' % i, '{{instance}} run queue'),
                                                 t('aix_vmstat_blocked_threads{%s}' % i, '{{instance}} blocked')], 'short', g.pos(18, 1, 6, 8)),
    g.timeseries('Entitlement consumed', [t('aix_vmstat_entitlement_consumed_ratio{%s}' % i, '{{instance}} ec')], 'percentunit', g.pos(0, 9, 8, 7)),
    g.timeseries('Physical CPUs consumed vs entitled', [t('aix_vmstat_physical_cpus_consumed{%s}' % i, '{{instance}} pc'),
                                                      t('aix_lpar_entitled_capacity_cpus{%s}' % i, '{{instance}} entitled')], 'short', g.pos(8, 9, 8, 7)),
    g.stat('Logical CPUs', [t('aix_lpar_logical_cpus{%s}' % i, '{{instance}}')], 'short', g.pos(16, 9, 8, 7)),
    g.row('Memory', 16),
    g.timeseries('Real memory', [t('aix_memory_size_bytes{%s}' % i, '{{instance}} size'), t('aix_memory_inuse_bytes{%s}' % i, '{{instance}} in use'),
                                 t('aix_memory_pinned_bytes{%s}' % i, '{{instance}} pinned'), t('aix_memory_virtual_bytes{%s}' % i, '{{instance}} virtual')],
                 'bytes', g.pos(0, 17, 12, 8)),
    g.timeseries('Memory by page size', [t('aix_memory_page_inuse_bytes{%s}' % i, '{{instance}} {{psize}}')], 'bytes', g.pos(12, 17, 12, 8), stack=true),
    g.timeseries('Free list', [t('aix_vmstat_free_list_bytes{%s}' % i, '{{instance}} fre')], 'bytes', g.pos(0, 25, 8, 7)),
    g.timeseries('Paging space used', [t('aix_paging_space_inuse_bytes{%s} / aix_paging_space_size_bytes{%s}' % [i, i], '{{instance}}')],
                 'percentunit', g.pos(8, 25, 8, 7)),
    g.timeseries('Paging space page-outs', [t('rate(aix_vmstat_paging_space_page_outs_total{%s}[$__rate_interval])' % i, '{{instance}}')],
                 'short', g.pos(16, 25, 8, 7)),
    g.row('Exporter', 32),
    g.table('Collectors', [t('aix_exporter_collector_success{%s}' % i, '', instant=true, format='table'),
                           t('time() - aix_exporter_collector_last_success_timestamp_seconds{%s}' % i, '', instant=true, format='table')],
            'short', g.pos(0, 33, 12, 8), desc='success 1/0 and seconds since the last success, per collector.',
            transformations=[{ id: 'merge', options: {} }, { id: 'organize', options: {
              excludeByName: { Time: true, __name__: true, job: true },
              renameByName: { instance: 'LPAR', collector: 'Collector', 'Value #A': 'Success', 'Value #B': 'Since last success' },
              indexByName: { instance: 0, collector: 1, 'Value #A': 2, 'Value #B': 3 },
            } }]) {
      fieldConfig+: { overrides: [
        { matcher: { id: 'byName', options: 'Success' }, properties: [{ id: 'decimals', value: 0 }] },
        { matcher: { id: 'byName', options: 'Since last success' }, properties: [{ id: 'unit', value: 's' }, { id: 'decimals', value: 0 }] },
      ] },
    },
    g.timeseries('Collector duration', [t('max by (collector) (aix_exporter_collector_duration_seconds{%s})' % i, '{{collector}}')], 's', g.pos(12, 33, 12, 8),
                 desc='Per collector, the longest of the selected LPARs (pick one LPAR for its own).'),
  ], selector=c.aixSelector)
