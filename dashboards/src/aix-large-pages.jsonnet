local g = import '../lib/grafana.libsonnet';
function(c)
local i = g.matchers([c.aixSelector, 'instance=~"$instance"']);
local t = g.target;
g.dashboard('AIX / Large pages', 'aix-large-pages',
  '16 MB large-page pool (vmo lgpg_regions), its use per process, the sizing rule and ANR0358E risk.',
  [
    g.row('16 MB pool', 0),
    g.timeseries('Pool: size, in use, free (pages)', [t('aix:large_pages_pool:count{%s}' % i, '{{instance}} pool'),
                                                     t('aix:large_pages_inuse:count{%s}' % i, '{{instance}} in use'),
                                                     t('aix:large_pages_free:count{%s}' % i, '{{instance}} free')], 'short', g.pos(0, 1, 12, 8), min=0,
                 desc='svmon -G L row: PoolSize, inuse; free = pool - inuse.'),
    g.timeseries('vmstat -l: active and free large pages', [t('aix_vmstat_large_pages_active{%s}' % i, '{{instance}} alp'),
                                                           t('aix_vmstat_large_pages_free{%s}' % i, '{{instance}} flp')], 'short', g.pos(12, 1, 12, 8), min=0),
    g.timeseries('Configured vs recommended (segments x 16 + 32)', [t('aix_vmo_tunable{%s,tunable="lgpg_regions"}' % i, '{{instance}} lgpg_regions {{setting}}'),
                                                                  t('aix:large_pages_recommended:count{%s}' % i, '{{instance}} recommended')],
                 'short', g.pos(0, 9, 12, 8), min=0, desc='Case-study sizing rule: text data BSS heap work segments x 16 + 32 pages.'),
    local forecast = 'predict_linear(aix:large_pages_free:count{%s}[%s], %d * 3600)' % [i, c.largePagePoolForecastWindow, c.largePagePoolForecastHours];
    g.timeseries('Exhaustion forecast: free pages in %d h' % c.largePagePoolForecastHours, [t('clamp_min(%s - clamp_min(%s - aix:large_pages_pool:count{%s}, 0), 0)' % [forecast, forecast, i], '{{instance}} predicted free (0: runs out)'),
                                                          t('aix:large_pages_free:count{%s}' % i, '{{instance}} free now')], 'short', g.pos(12, 9, 12, 8), min=0,
                 desc='A linear forecast over the last %s, shown between 0 and the pool\'s size: a pool the forecast empties reads 0 (AixLargePagePoolFillingUp); a pool freed at once (the server stopped) reads its size, not a trend beyond it.' % c.largePagePoolForecastWindow),
    g.stat('Active System Optimizer (asoo aso_active)', [t('aix_aso_active{%s}' % i, '{{instance}}')], 'short', g.pos(0, 40, 24, 4),
           desc='1: ASO is active and its large-page optimization can promote shared-memory segments to 16 MB pages from the same pool (exclude a process with ASO_OPTIONS=LARGE_PAGE=OFF); 0: inactive; no value: the aso collector has no data (asoo is missing before AIX 7.1 TL1).',
           thresholds=[{ color: 'green', value: null }, { color: 'orange', value: 1 }]),
    g.row('Processes', 17),
    g.timeseries('Memory per page size of the monitored processes', [t('aix_process_inuse_bytes{%s}' % i, '{{instance}} {{command}} {{pid}} {{psize}}')], 'bytes',
                 g.pos(0, 18, 12, 8), stack=true, desc='svmon -P PageSize table: 4K, 64K, 16M.'),
    g.timeseries('Heap segments (text data BSS heap)', [t('aix_process_heap_segments{%s}' % i, '{{instance}} {{command}} {{pid}}')], 'short', g.pos(12, 18, 12, 8)),
    g.table('16MB mode (svmon -P)', [t('aix_process_large_page_info{%s}' % i, '', instant=true, format='table')], 'short', g.pos(0, 26, 8, 6),
            desc='N: no large pages, Y: used when available, M: mandatory (ENOMEM and ANR0358E when the pool runs out).',
            transformations=[{ id: 'organize', options: { excludeByName: { Time: true, Value: true, __name__: true, job: true } } }]),
    g.table('LDR_CNTRL in effect (ps eww)', [t('aix_process_ldr_cntrl_info{%s}' % i, '', instant=true, format='table')], 'short', g.pos(8, 26, 16, 6),
            transformations=[{ id: 'organize', options: { excludeByName: { Time: true, Value: true, __name__: true, job: true } } }]),
    g.row('TSM', 32),
    g.timeseries('ANR0358E / ANR9999D per hour', [t('increase(aix_tsm_messages_total{%s,msgid=~"ANR0358E|ANR9999D"}[1h])' % i, '{{instance}} {{msgid}}')],
                 'short', g.pos(0, 33, 24, 7)),
  ], selector=c.aixSelector)
