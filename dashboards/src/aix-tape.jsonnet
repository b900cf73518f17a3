local g = import '../lib/grafana.libsonnet';
function(c)
local i = g.matchers([c.aixSelector, 'instance=~"$instance"']);
local t = g.target;
g.dashboard('AIX / Tape', 'aix-tape',
  'Tape drive throughput: the AIX view (iostat -p: MB/s per drive and in total, transfers, busy) beside the TSM server view (dsmadmc: MB/s per server process and client, mounts per drive).',
  [
    g.timeseries('Throughput per drive', [t('aix:tape_bytes:rate5m{%s}' % i, '{{instance}} {{device}}')], 'binBps', g.pos(0, 0, 12, 9),
                 desc='One line per drive and LPAR (not stacked: with several LPARs selected a stack would add their drives together); the sum per LPAR is the next panel.'),
    g.timeseries('Total throughput', [t('aix:tape_bytes_all:rate5m{%s}' % i, '{{instance}}')], 'binBps', g.pos(12, 0, 12, 9),
                 desc='Case study: 139 MB/s with 4 KB pages, 378 MB/s with 16 MB pages.'),
    g.timeseries('Read and written', [t('sum by (instance) (rate(aix_tape_read_bytes_total{%s}[$__rate_interval]))' % i, '{{instance}} read'),
                                      t('sum by (instance) (rate(aix_tape_written_bytes_total{%s}[$__rate_interval]))' % i, '{{instance}} written')],
                 'binBps', g.pos(0, 9, 12, 8)),
    g.timeseries('Transfers per second', [t('aix_tape_transfers_per_second{%s}' % i, '{{instance}} {{device}}')], 'short', g.pos(12, 9, 12, 8)),
    g.timeseries('Busy', [t('aix_tape_busy_ratio{%s}' % i, '{{instance}} {{device}}')], 'percentunit', g.pos(0, 17, 12, 8), min=0, max=1),
    g.stat('Drives', [t('aix_tape_devices{%s}' % i, '{{instance}}')], 'short', g.pos(12, 17, 12, 8)),
    g.timeseries('TSM: per server process', [t('rate(aix_tsm_process_bytes{%s}[$__rate_interval])' % i, '{{instance}} {{process}} {{process_num}}')],
                 'binBps', g.pos(0, 25, 12, 8), desc='dsmadmc select from processes: bytes_processed of each running process, per second.'),
    g.timeseries('TSM: received per client', [t('sum by (instance, client) (rate(aix_tsm_session_received_bytes{%s}[$__rate_interval]))' % i, '{{instance}} {{client}}')],
                 'binBps', g.pos(12, 25, 12, 8), desc='dsmadmc select from sessions: bytes received over the open sessions, per client.'),
    g.table('TSM: volumes mounted per drive', [t('aix_tsm_drive_mount_info{%s}' % i, '', instant=true, format='table')], 'short',
            g.pos(0, 33, 24, 8), desc='dsmadmc query mount: one row per drive with a volume mounted: its device and status.',
            transformations=[{ id: 'organize', options: {
              excludeByName: { Time: true, Value: true, __name__: true, job: true },
              indexByName: { instance: 0, drive: 1, device: 2, status: 3 },
            } }]),
    // per drive, one truth (issue 60): the OS device's MiB/s beside the server's drive of that device and its state
    local os = 'aix:tape_bytes:rate5m{%s} / 1048576' % i;
    local server = g.named('label_replace(aix_tsm_drive_info{%s}, "device", "$1", "device", "/dev/(.+)") * on (instance, job, library, drive) group_left () aix_tsm_drive_online{%s}' % [i, i],
                           'state', [[1, 'online'], [0, 'offline']], by=['instance', 'job', 'device', 'drive']);
    g.table('Drives: the OS device and the server\'s drive', [t('%s + on (instance, job, device) group_left (drive, state) (0 * %s) or on (instance, job, device) label_replace(label_replace(%s, "drive", "-", "", ""), "state", "n/a", "", "")' % [os, server, os], '', instant=true, format='table')],
            'short', g.pos(0, 41, 12, 9),
            desc='Each tape device (iostat -p: MiB/s over 5 minutes) with the server\'s drive whose path opens it and that drive\'s state (DRIVES ONLINE; n/a where the TSM checklist does not answer).',
            transformations=[{ id: 'organize', options: {
              excludeByName: { Time: true, job: true },
              renameByName: { instance: 'LPAR', device: 'Device', drive: 'Drive', state: 'Server', Value: 'MiB/s' },
              indexByName: { instance: 0, device: 1, drive: 2, state: 3, Value: 4 },
            } }]) {
      fieldConfig+: { overrides: [{ matcher: { id: 'byName', options: 'MiB/s' }, properties: [{ id: 'decimals', value: 1 }] }] },
    },
    g.timeseries('Tape errors per drive (errpt, last hour)', [t('aix:tape_drive_errors:increase1h{%s} or 0 * aix:tape_busy:ratio5m{%s}' % [i, i], '{{instance}} {{device}}')],
                 'short', g.pos(12, 41, 12, 9),
                 desc='Hardware entries in the error log against each drive over the last hour (TAPE_ERR6: it asks for cleaning; TAPE_ERR1: a permanent error). A drive with errors moves less for a reason of its own: a before/after comparison across them is not the page size\'s alone.'),
  ], selector=c.aixSelector)
