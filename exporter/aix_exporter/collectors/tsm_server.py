"""The TSM server's own view of tape work, from dsmadmc (no AIX counter needed): bytes moved
per running server process and per client, volumes mounted per drive, and bytes of the
activities completed lately. Names follow treydock/tsm_exporter's vocabulary where it fits.

Each query's figures are what the server reports at the time of the scrape: processes and
sessions count bytes since they started (so a gauge that restarts at 0 with each new
process), the summary sums the last ``tsm.summary_hours``.
"""
from __future__ import annotations

from ..parsers import tsm_mounts, tsm_processes, tsm_sessions, tsm_summary
from .base import Collector, Families, register


def families_from(processes: list, sessions: list, mounts: list, activities: list, hours: int = 24) -> list:
    f = Families()
    f.set("aix_tsm_processes", "Server processes running (dsmadmc select from processes).", len(processes))
    for p in processes:
        lab = {"process_num": str(p.number), "process": p.process}
        f.set("aix_tsm_process_bytes", "Bytes processed by the running server process since it started "
              "(processes.bytes_processed).", p.bytes, lab)
        f.set("aix_tsm_process_files", "Files processed by the running server process since it started "
              "(processes.files_processed).", p.files, lab)
    f.set("aix_tsm_sessions", "Client sessions open (dsmadmc select from sessions).", len(sessions))
    per_client: dict = {}
    for s in sessions:
        sent, received = per_client.get(s.client, (0, 0))
        per_client[s.client] = (sent + s.bytes_sent, received + s.bytes_received)
    for client, (sent, received) in sorted(per_client.items()):
        f.set("aix_tsm_session_sent_bytes", "Bytes the server sent to the client over its open sessions "
              "(sessions.bytes_sent, summed per client).", sent, {"client": client})
        f.set("aix_tsm_session_received_bytes", "Bytes the server received from the client over its open sessions "
              "(sessions.bytes_received, summed per client).", received, {"client": client})
    f.set("aix_tsm_mounts", "Volumes mounted or waiting for a mount (dsmadmc query mount).", len(mounts))
    for m in mounts:
        if m.drive:
            f.set("aix_tsm_drive_mount_info", "A volume mounted in the drive, with the volume's name, the drive's "
                  "device and status (query mount: ANR8329I idle, ANR8330I in use, ANR8331I dismounting).", 1,
                  {"drive": m.drive, "device": m.device, "status": m.status.lower().replace(" ", "_"),
                   "volume": m.volume})
    f.set("aix_tsm_mounts_waiting", "Mount points waiting for a volume (query mount: ANR8379I).",
          sum(1 for m in mounts if not m.drive))
    for a in activities:
        lab = {"activity": a.activity.lower().replace(" ", "_")}
        f.set("aix_tsm_activity_bytes", f"Bytes of the activities completed in the last {hours} h "
              "(SUMMARY table, by activity).", a.bytes, lab)
        f.set("aix_tsm_activities", f"Activities completed in the last {hours} h (SUMMARY table).", a.count, lab)
    return f.result()


@register
class TsmServerCollector(Collector):
    name = "tsm_server"
    keys = ("tsm_processes", "tsm_sessions", "tsm_mounts", "tsm_summary")
    help = "the TSM server's view from dsmadmc: bytes per process and client, mounts per drive, recent activities"
    settings_section = "tsm"

    @classmethod
    def configured(cls, settings) -> bool:
        """On a real system the server view needs tsm.admin_id and tsm.password_file."""
        return bool(settings.tsm.admin_id and settings.tsm.password_file)

    def collect(self, source) -> list:
        return families_from(tsm_processes.parse(source.read("tsm_processes")),
                             tsm_sessions.parse(source.read("tsm_sessions")),
                             tsm_mounts.parse(source.read("tsm_mounts")),
                             tsm_summary.parse(source.read("tsm_summary")), self.config.summary_hours)
