"""The TSM admin's daily checklist, from the server itself through dsmadmc (issue 59): the
database's space and its last backup, the recovery log's active and archive space
(tsm_checklist); the storage pools, the library's volumes, the drives and the paths
(tsm_storage); the client schedules' events and the server's status monitor (tsm_health).

The queries run in the background once every ``tsm.checklist_interval_seconds`` (300 s), each
one select of a few values, so the server's database is asked a handful of times an interval
whatever the scrape interval; each figure is the server's at that query, served until two
intervals have passed without a new answer (then absent, never stale).

* ``aix_tsm_db_space_bytes{kind}``: total (TOT_FILE_SYSTEM_MB: the file systems the database
  is on), used (USED_DB_SPACE_MB: by the database) and free (FREE_SPACE_MB: left for it);
* ``aix_tsm_db_last_backup_timestamp_seconds``: when the last database backup ran, from its age
  by the server's own clock (CURRENT_TIMESTAMP minus LAST_BACKUP_DATE, so the server's time zone
  does not matter); absent when the database was never backed up (said once in the log);
* ``aix_tsm_db_buffer_hit_ratio``: the database's buffer pool hit ratio since the server started;
* ``aix_tsm_log_space_bytes{log,kind}``: the active log's total, used and free space, and the
  archive log's file system's;
* ``aix_tsm_storage_pool_capacity_bytes{pool}``, ``aix_tsm_storage_pool_used_ratio{pool}`` and
  ``aix_tsm_storage_pool_info{pool,device_class,pool_type}``;
* ``aix_tsm_library_volumes{library,status}`` (scratch, private);
* ``aix_tsm_drive_online{library,drive}``, ``aix_tsm_path_online{source,destination}`` (1 or 0)
  and ``aix_tsm_drive_info{library,drive,device}``: the device its path opens, which joins the
  server's drive to the OS tape figures (``aix_tape_*{device="rmt0"}`` carry the name without
  /dev/);
* ``aix_tsm_client_schedule_events{result}``: the client schedules' events scheduled in the last
  24 hours, by status as QUERY EVENT gives it (completed, failed, missed, severed ...);
* ``aix_tsm_monitor_status{activity,status}`` (1 for the row's current state, 0 for the other two)
  and ``aix_tsm_monitor_value{activity}``: the server's status monitor (QUERY MONITORSTATUS), at
  most ``tsm_monitor.MAX_ROWS`` rows (``aix_tsm_monitor_rows_omitted`` the rest, said once).
"""
from __future__ import annotations

import logging
import time

from ..parsers import tsm_db, tsm_drives, tsm_events, tsm_libvolumes, tsm_log, tsm_monitor, tsm_paths, tsm_stgpools
from .base import Collector, Families, register

log = logging.getLogger("aix_exporter")


def families_from(db: tsm_db.Db, lg: tsm_log.Log, now: float) -> list:
    f = Families()
    for kind, value in (("total", db.total_bytes), ("used", db.used_bytes), ("free", db.free_bytes)):
        f.set("aix_tsm_db_space_bytes", "The server database's space at the last checklist query (DB table: total "
              "the file systems it is on, used by the database, free for it).", value, {"kind": kind})
    f.set("aix_tsm_db_buffer_hit_ratio", "The server database's buffer pool hit ratio since the server started "
          "(DB table BUFF_HIT_RATIO / 100).", round(db.buffer_hit_ratio, 6))
    age = db.backup_age_seconds()
    if age is not None:
        backed_up = now - age
    elif db.last_backup is not None:   # (an answer without the server's clock: its time read in this host's zone)
        backed_up = db.last_backup.timestamp()
    else:
        backed_up = None
    if backed_up is not None:
        f.set("aix_tsm_db_last_backup_timestamp_seconds", "When the server database's last backup ran (Unix time; "
              "DB table LAST_BACKUP_DATE, aged by the server's own clock). Absent when it was never backed up.",
              backed_up)
    spaces = [("active", lg.active)] + ([("archive", lg.archive)] if lg.archive is not None else [])
    for name, sp in spaces:
        for kind, value in (("total", sp.total_bytes), ("used", sp.used_bytes), ("free", sp.free_bytes)):
            f.set("aix_tsm_log_space_bytes", "The server's recovery log space at the last checklist query (LOG "
                  "table: the active log's space; the archive log's file system).", value, {"log": name, "kind": kind})
    return f.result()


def storage_families(pools: list, volumes: dict, drives: list, paths: list) -> list:
    f = Families()
    for p in pools:
        f.set("aix_tsm_storage_pool_info", "A storage pool of the server at the last checklist query (STGPOOLS "
              "table: its device class, '-' for none, and its type); 1.", 1,
              {"pool": p.name, "device_class": p.device_class, "pool_type": p.pool_type})
        if p.capacity_bytes is not None:
            f.set("aix_tsm_storage_pool_capacity_bytes", "A storage pool's estimated capacity at the last checklist "
                  "query (STGPOOLS EST_CAPACITY_MB, or a cloud pool's TOTAL_CLOUD_SPACE_MB).", p.capacity_bytes,
                  {"pool": p.name})
        if p.used_ratio is not None:
            f.set("aix_tsm_storage_pool_used_ratio", "The share of a storage pool's capacity holding data at the last "
                  "checklist query (STGPOOLS PCT_UTILIZED / 100, or a cloud pool's used over total space).",
                  round(p.used_ratio, 6), {"pool": p.name})
    # scratch and private for every library the server has volumes or drives in, 0 where the
    # select's groups have none (a library whose scratch tapes ran out has no scratch row)
    libraries = {lib for lib, _ in volumes} | {d.library for d in drives}
    counts = {(lib, status): 0 for lib in libraries for status in ("scratch", "private")}
    counts.update(volumes)
    for (library, status), n in sorted(counts.items()):
        f.set("aix_tsm_library_volumes", "The library's volumes by status at the last checklist query (LIBVOLUMES "
              "counted: scratch, private), all media types together.", n, {"library": library, "status": status})
    # a drive's device is the one the server's own path opens: the server is the source with a
    # path to the drive's library (a storage agent has paths to the drives only); else the first
    servers = {(p.source, p.destination) for p in paths if p.destination_type == "LIBRARY"}
    devices: dict = {}
    for p in sorted((p for p in paths if p.destination_type == "DRIVE"),
                    key=lambda p: (p.source, p.library) not in servers):
        devices.setdefault((p.library, p.destination), p.device)
    for d in drives:
        f.set("aix_tsm_drive_online", "1 when the server has the drive online at the last checklist query (DRIVES "
              "ONLINE), 0 when it is offline.", 1 if d.online else 0, {"library": d.library, "drive": d.name})
        f.set("aix_tsm_drive_info", "A drive of the server and the device its path opens (/dev/rmtN: the key to the "
              "OS tape figures' device label; '-' without a path); 1.", 1,
              {"library": d.library, "drive": d.name, "device": devices.get((d.library, d.name), "-")})
    for p in paths:
        f.set("aix_tsm_path_online", "1 when the path from a source (the server, a storage agent) to a drive or "
              "library is online at the last checklist query (PATHS ONLINE), 0 when it is offline.",
              1 if p.online else 0, {"source": p.source, "destination": p.destination})
    return f.result()


def health_families(events: tsm_events.Events, monitor: list, omitted: int = 0) -> list:
    f = Families()
    f.set("aix_tsm_monitor_rows_omitted", "Rows of the server's status monitor left out at the last checklist query "
          f"(beyond {tsm_monitor.MAX_ROWS} rows the worst states are served first): 0 on any sane server.", omitted)
    for result, n in events.counts.items():
        f.set("aix_tsm_client_schedule_events", "The client schedules' events scheduled in the last 24 hours at the "
              "last checklist query, by status (EVENTS table: completed, failed, failed_no_restart, missed, severed, "
              "started, in_progress, pending, restarted, uncertain, future, not_started, other).", n, {"result": result})
    for row in monitor:
        for state in tsm_monitor.STATES:
            f.set("aix_tsm_monitor_status", "The server's status monitor at the last checklist query (QUERY "
                  "MONITORSTATUS, active rows): 1 for a row's current state, 0 for the other two.",
                  1 if row.state == state else 0, {"activity": row.name, "status": state})
        if row.value is not None:
            f.set("aix_tsm_monitor_value", "The numeric value of a status-monitor row at the last checklist query "
                  "(QUERY MONITORSTATUS Element Numeric Value, in the row's own unit).", row.value,
                  {"activity": row.name})
    return f.result()


MAX_SAID = 64   # distinct things a checklist collector says once each (a server's answers name them)


class _Checklist(Collector):
    """What the checklist's collectors share: the tsm settings, dsmadmc configured, the interval,
    and what is said once (a warning about the server's answers, logged the first time only)."""
    settings_section = "tsm"

    def __init__(self, settings):
        super().__init__(settings)
        self._said: set = set()

    def _say_once(self, key, message: str, *args) -> None:
        """Log ``message`` the first time ``key`` comes; at most MAX_SAID keys, then one line that
        the rest are not logged (a server answering new names each time cannot grow the set)."""
        if key in self._said:
            return
        if len(self._said) < MAX_SAID:
            self._said.add(key)
            log.warning(message, *args)
        elif None not in self._said:   # (None: the line saying so, once)
            self._said.add(None)
            log.warning("msg=further warnings about the server's answers are not logged collector=%s", self.name)

    @classmethod
    def configured(cls, settings) -> bool:
        """On a real system the checklist needs tsm.admin_id and tsm.password_file."""
        return bool(settings.tsm.admin_id and settings.tsm.password_file)

    def period(self) -> float:
        return float(self.config.checklist_interval_seconds)

    def max_age(self):
        """Two intervals and a query's deadline: a result older is not served."""
        return 2.0 * self.config.checklist_interval_seconds + self.settings.command_timeout_seconds



@register
class TsmChecklistCollector(_Checklist):
    name = "tsm_checklist"
    keys = ("tsm_db", "tsm_log")
    help = "the TSM admin's daily checklist from dsmadmc: database space and last backup, recovery log space"
    metrics = ("aix_tsm_db_space_bytes", "aix_tsm_db_last_backup_timestamp_seconds", "aix_tsm_db_buffer_hit_ratio",
               "aix_tsm_log_space_bytes")

    def collect(self, source) -> list:
        db = tsm_db.parse(source.read("tsm_db"))
        lg = tsm_log.parse(source.read("tsm_log"))
        if db.last_backup is None:
            self._say_once("never backed up", "msg=the TSM database was never backed up: "
                           "aix_tsm_db_last_backup_timestamp_seconds is absent until its first backup (BACKUP DB) "
                           "collector=tsm_checklist database=%s", db.name)
        when = source.report_time("tsm_db")   # (the simulator's clock in a history; else None: now)
        return families_from(db, lg, time.time() if when is None else when)


@register
class TsmStorageCollector(_Checklist):
    name = "tsm_storage"
    keys = ("tsm_stgpools", "tsm_libvolumes", "tsm_drives", "tsm_paths")
    help = "the TSM admin's daily checklist from dsmadmc: storage pools, library volumes, drives and paths"
    metrics = ("aix_tsm_storage_pool_capacity_bytes", "aix_tsm_storage_pool_used_ratio", "aix_tsm_storage_pool_info",
               "aix_tsm_library_volumes", "aix_tsm_drive_online", "aix_tsm_drive_info", "aix_tsm_path_online")

    def collect(self, source) -> list:
        return storage_families(tsm_stgpools.parse(source.read("tsm_stgpools")),
                                tsm_libvolumes.parse(source.read("tsm_libvolumes")),
                                tsm_drives.parse(source.read("tsm_drives")), tsm_paths.parse(source.read("tsm_paths")))


@register
class TsmHealthCollector(_Checklist):
    name = "tsm_health"
    keys = ("tsm_events", "tsm_monitor")
    help = "the TSM admin's daily checklist from dsmadmc: client schedule events, the server's status monitor"
    metrics = ("aix_tsm_client_schedule_events", "aix_tsm_monitor_status", "aix_tsm_monitor_value",
               "aix_tsm_monitor_rows_omitted")

    def collect(self, source) -> list:
        events = tsm_events.parse(source.read("tsm_events"))
        for status in events.unknown:
            self._say_once(("status", status), "msg=an event status outside QUERY EVENT's list is counted as "
                           "result=other collector=tsm_health status=%r", status)
        rows, omitted = tsm_monitor.bounded(tsm_monitor.parse(source.read("tsm_monitor")))
        if omitted:
            self._say_once("omitted", "msg=the status monitor answered more rows than are served, the worst states "
                           "first collector=tsm_health served=%d omitted=%d", len(rows), omitted)
        return health_families(events, rows, omitted)
