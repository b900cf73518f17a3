// The TSM checklist's figures, as PromQL over a selector: one definition read by the rules
// (alerts.libsonnet: the alerts and aix:tsm_health:code) and the AIX / TSM server dashboard.
{
  // the server database's share of its space (used / used + free, the DB table)
  dbUsed(sel):: 'aix_tsm_db_space_bytes{%s,kind="used"} / ignoring (kind) (aix_tsm_db_space_bytes{%s,kind="used"} + ignoring (kind) aix_tsm_db_space_bytes{%s,kind="free"})' % [sel, sel, sel],
  // each recovery log's used share (the active log; the archive log's file system)
  logUsed(sel):: 'aix_tsm_log_space_bytes{%s,kind="used"} / ignoring (kind) (aix_tsm_log_space_bytes{%s,kind="total"} > 0)' % [sel, sel],
  // the client schedule events of the last 24 hours that did not do their work (QUERY EVENT's exceptions)
  failedResults:: 'failed|failed_no_restart|missed|severed',
  failedEvents(sel, by='instance, job'):: 'sum by (%s) (aix_tsm_client_schedule_events{%s,result=~"%s"})' % [by, sel, self.failedResults],
}
