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
            g.pos(0, 33, 24, 8), desc='dsmadmc query mount: one row per drive with a volume mounted: the volume, the drive\'s device and status.',
            transformations=[{ id: 'organize', options: {
              excludeByName: { Time: true, Value: true, __name__: true, job: true },
              indexByName: { instance: 0, drive: 1, device: 2, volume: 3, status: 4 },
            } }]),
    // per drive, one truth (issue 60): the OS device's MiB/s beside the server's drive of that device, its state and the volume in it
    local os = 'aix:tape_bytes:rate5m{%s} / 1048576' % i;
    local server = g.named('label_replace(aix_tsm_drive_info{%s}, "device", "$1", "device", "/dev/(.+)") * on (instance, job, library, drive) group_left () aix_tsm_drive_online{%s}' % [i, i],
                           'state', [[1, 'online'], [0, 'offline']], by=['instance', 'job', 'device', 'drive']);
    local mounted = 'max by (instance, job, device, volume) (label_replace(aix_tsm_drive_mount_info{%s}, "device", "$1", "device", "/dev/(.+)"))' % i;
    // each join keeps the devices it cannot match, with '-' (no drive of the server, no volume) or n/a (no answer)
    local join(x, y, labels, missing) = '(%s) + on (instance, job, device) group_left (%s) (0 * %s) or on (instance, job, device) %s' % [
      x, std.join(', ', labels), y, std.foldl(function(e, l) 'label_replace(%s, "%s", "%s", "", "")' % [e, l[0], l[1]], missing, x)];
    local withDrive = join(os, server, ['drive', 'state'], [['drive', '-'], ['state', 'n/a']]);
    g.table('Drives: the OS device, the server\'s drive, its volume', [t(join(withDrive, mounted, ['volume'], [['volume', '-']]), '', instant=true, format='table')],
            'short', g.pos(0, 41, 24, 9),
            desc='Each tape device (iostat -p: MiB/s over 5 minutes) with the server\'s drive whose path opens it, that drive\'s state (DRIVES ONLINE; n/a where the TSM checklist does not answer) and the volume mounted in it (query mount; - for none).',
            transformations=[{ id: 'organize', options: {
              excludeByName: { Time: true, job: true },
              renameByName: { instance: 'LPAR', device: 'Device', drive: 'Drive', state: 'Server', volume: 'Volume', Value: 'MiB/s' },
              indexByName: { instance: 0, device: 1, drive: 2, state: 3, volume: 4, Value: 5 },
            } }]) {
      fieldConfig+: { overrides: [{ matcher: { id: 'byName', options: 'MiB/s' }, properties: [{ id: 'decimals', value: 1 }] }] },
    },
    g.timeseries('Tape errors per drive (errpt, last hour)', [t('aix:tape_drive_errors:increase1h{%s} or 0 * aix:tape_busy:ratio5m{%s}' % [i, i], '{{instance}} {{device}}')],
                 'short', g.pos(0, 50, 12, 9),
                 desc='Hardware entries in the error log against each drive over the last hour (TAPE_ERR6: it asks for cleaning; TAPE_ERR1: a permanent error). A drive with errors moves less for a reason of its own: a before/after comparison across them is not the page size\'s alone.'),
    g.timeseries('Written to tape: the OS against the TSM server', [t('aix:tape_written_bytes_all:rate5m{%s}' % i, '{{instance}} OS wrote (iostat -p)'),
                                                                    t('aix:tsm_moved_bytes:rate5m{%s}' % i, '{{instance}} server moved (processes, sessions received)')],
                 'binBps', g.pos(12, 50, 12, 9),
                 desc='What AIX wrote to the drives beside what the TSM server says it moved (its processes\' bytes and its sessions\' received bytes, which include disk-pool traffic). The server\'s line is at or above the OS\'s when the server is the only writer; the OS above it is a writer the server does not know (AixTapeWritesUnaccounted).'),
  ], selector=c.aixSelector)
