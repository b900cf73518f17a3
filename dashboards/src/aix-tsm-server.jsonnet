// The TSM admin's daily checklist (issue 59) on one page: the server's database and recovery logs,
// its last database backup, storage pools, library scratch tapes, drives and paths, client
// schedules and the server's own status monitor, from the checklist's dsmadmc queries
// (collectors tsm_checklist, tsm_storage, tsm_health). Thresholds are the alerts' (the mixin's _config).
local g = import '../lib/grafana.libsonnet';
local tsm = import '../../alerts/tsm.libsonnet';
function(c)
local S = c.aixSelector;
local i = g.matchers([S, 'instance=~"$instance"']);
local t = g.target;
local col(expr) = t(expr, '', instant=true, format='table');
local dbUsed = tsm.dbUsed(i);
local logUsed = tsm.logUsed(i);
local failed = tsm.failedEvents(i, by='instance');
local online = [[1, 'online'], [0, 'offline']];
local drives = 'aix_tsm_drive_online{%s} * on (instance, job, library, drive) group_left (device) aix_tsm_drive_info{%s}' % [i, i];
local stateColours = { id: 'mappings', value: [{ type: 'value', options: {
  online: { color: 'green' }, offline: { color: 'red' }, normal: { color: 'green' }, warning: { color: 'orange' }, 'error': { color: 'red' },
} }] };
local coloured(name) = { matcher: { id: 'byName', options: name }, properties: [{ id: 'custom.cellOptions', value: { type: 'color-background' } }, stateColours] };

g.dashboard('AIX / TSM server', 'aix-tsm-server',
  'The Storage Protect admin\'s daily checklist, from the server itself (dsmadmc, once every tsm.checklist_interval_seconds): database and recovery logs, the last database backup, storage pools, scratch tapes, drives and paths, client schedules and the server\'s status monitor.',
  [
    g.stat('Database used', [t('max by (instance) (%s)' % dbUsed, '{{instance}}')], 'percentunit', g.pos(0, 0, 6, 5),
           desc='Used / (used + free) of the server database (DB table). Orange above %g, red above %g (IBM\'s example thresholds; the alerts\').' % [c.tsmSpaceWarningRatio, c.tsmSpaceCriticalRatio],
           thresholds=[{ color: 'green', value: null }, { color: 'orange', value: c.tsmSpaceWarningRatio }, { color: 'red', value: c.tsmSpaceCriticalRatio }]),
    g.stat('Last database backup, age', [t('time() - max by (instance) (aix_tsm_db_last_backup_timestamp_seconds{%s})' % i, '{{instance}}')], 's', g.pos(6, 0, 6, 5),
           desc='Time since the last BACKUP DB (DB table LAST_BACKUP_DATE). Orange beyond %d hours (AixTsmDatabaseBackupOverdue); no value when the database was never backed up.' % (c.tsmDbBackupMaxAgeSeconds / 3600),
           thresholds=[{ color: 'green', value: null }, { color: 'orange', value: c.tsmDbBackupMaxAgeSeconds }]),
    g.stat('Client schedules failed or missed (24 h)', [t(failed, '{{instance}}')], 'short', g.pos(12, 0, 6, 5),
           desc='Client schedule events of the last 24 hours that failed, were missed or severed (EVENTS table).',
           thresholds=[{ color: 'green', value: null }, { color: 'orange', value: c.tsmScheduleFailuresMax + 1 }]),
    g.stat('Scratch volumes', [t('aix_tsm_library_volumes{%s,status="scratch"}' % i, '{{instance}} {{library}}')], 'short', g.pos(18, 0, 6, 5),
           desc='Scratch tapes left per library (LIBVOLUMES). Red below %d (AixTsmScratchVolumesLow).' % c.tsmScratchMin,
           thresholds=[{ color: 'red', value: null }, { color: 'green', value: c.tsmScratchMin }]),
    g.timeseries('Database and recovery logs used', [t(dbUsed, '{{instance}} database'), t(logUsed, '{{instance}} {{log}} log')],
                 'percentunit', g.pos(0, 5, 12, 8), min=0, max=1,
                 desc='The database (used / used + free), the active log and the archive log\'s file system (used / total): a full active log stops the server; a database backup frees the archive log.'),
    g.timeseries('Storage pools used', [t('aix_tsm_storage_pool_used_ratio{%s}' % i, '{{instance}} {{pool}}')], 'percentunit', g.pos(12, 5, 12, 8), min=0, max=1,
                 desc='PCT_UTILIZED of each storage pool (STGPOOLS; a cloud pool: used over total). AixTsmStoragePoolFull above %g.' % c.tsmPoolFullRatio),
    g.table('Drives', [col(g.named(drives, 'state', online, by=['instance', 'library', 'drive', 'device']))], 'short', g.pos(0, 13, 12, 8),
            desc='Each drive of the server, online or offline (DRIVES), and the device its path opens: the key to the OS tape figures of the Tape dashboard (device rmtN).',
            transformations=[{ id: 'organize', options: {
              excludeByName: { Time: true, Value: true },
              renameByName: { instance: 'LPAR', library: 'Library', drive: 'Drive', device: 'Device', state: 'State' },
              indexByName: { instance: 0, library: 1, drive: 2, device: 3, state: 4 },
            } }]) {
      fieldConfig+: { overrides: [coloured('State')] },
    },
    g.table('Paths', [col(g.named('aix_tsm_path_online{%s}' % i, 'state', online, by=['instance', 'source', 'destination']))], 'short', g.pos(12, 13, 12, 8),
            desc='Each path from a source (the server, a storage agent) to a drive or library, online or offline (PATHS).',
            transformations=[{ id: 'organize', options: {
              excludeByName: { Time: true, Value: true },
              renameByName: { instance: 'LPAR', source: 'Source', destination: 'Destination', state: 'State' },
              indexByName: { instance: 0, source: 1, destination: 2, state: 3 },
            } }]) {
      fieldConfig+: { overrides: [coloured('State')] },
    },
    g.timeseries('Client schedule events, last 24 h', [t('aix_tsm_client_schedule_events{%s,result=~"completed|failed|failed_no_restart|missed|severed"}' % i, '{{instance}} {{result}}')],
                 'short', g.pos(0, 21, 24, 8),
                 desc='The events scheduled in the 24 hours before each checklist query, by status (EVENTS table, as QUERY EVENT names them).'),
    g.table('Status monitor', [col('aix_tsm_monitor_status{%s} == 1' % i), col('aix_tsm_monitor_value{%s} * on (instance, job, activity) group_left (status) (aix_tsm_monitor_status{%s} == 1)' % [i, i])], 'short', g.pos(0, 29, 24, 8),
            desc='The server\'s own status monitor (QUERY MONITORSTATUS): each active row\'s state against the server\'s DEFINE STATUSTHRESHOLD thresholds, and its value. ERROR for %s alerts (AixTsmStatusMonitorError).' % c.tsmMonitorFor,
            transformations=[{ id: 'merge', options: {} }, { id: 'organize', options: {
              excludeByName: { Time: true, __name__: true, job: true, 'Value #A': true },
              renameByName: { instance: 'LPAR', activity: 'Activity', status: 'State', 'Value #B': 'Value' },
              indexByName: { instance: 0, activity: 1, status: 2, 'Value #B': 3 },
            } }]) {
      fieldConfig+: { overrides: [coloured('State')] },
    },
  ], selector=S)
