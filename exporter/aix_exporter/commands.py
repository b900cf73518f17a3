"""The command table: one row per logical command, the one place a command is declared.

Everything that deals in commands reads this table: the sources (what runs on AIX, the
replay file name, which commands take an interval and run in the background), the
simulator's completeness check, the property, fuzz, fixture and conformance tests, the
benchmarks and the Sources table of docs/configuration.md (``python -m aix_exporter.commands``).

A row's ``key`` is the command's only spelling: the parser module
``parsers/<key>.py``, the replay file ``<key>.txt``, the fixture directory
``tests/fixtures/<key>/`` and the simulator's renderer ``simulate.render.RENDERERS[key]``.
The real samples in ``../shared/corpus`` keep the corpus's own folder names; ``corpus``
maps a key onto them, here and nowhere else (``seeds_from``: folders of a related command,
such as disk iostat for the tape report, that seed the fuzzer but are not this command).

``fetch`` says how the system source obtains the text:

* ``run``: run ``argv(settings)``;
* ``processes``: run ``argv(settings, pids)`` once for the monitored processes
  (``sources/processes.py``);
* ``per_process``: run ``argv(settings, [pid])`` per monitored process, one header kept;
* ``splat``: the newest report of a watched directory, or a trace window
  (``sources/splat_window.py``);
* ``log``: a growing log read incrementally, or a ``dsmadmc`` query (``read_log``);
* ``dsmadmc``: run ``argv(settings)``, the TSM administrator's password on standard input.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, Optional

# (the checklist's columns: its query selects what the parser reads)
from .parsers import tsm_db, tsm_drives, tsm_events, tsm_libvolumes, tsm_log, tsm_paths, tsm_stgpools


@dataclass(frozen=True)
class Command:
    key: str
    title: str                            # the command as an admin names it (log lines)
    description: str                      # one line: what the command reports
    aix: str                              # what runs on AIX, for people (README)
    argv: Optional[Callable] = None       # settings[, pids] -> argv list (fetch run/dsmadmc; processes/per_process with pids)
    fetch: str = "run"
    background: bool = False              # runs on its own schedule on AIX: takes an interval, or is asked once an interval
    runs_for: Optional[Callable] = None   # settings -> seconds the command takes by design (its intervals)
    corpus: tuple = ()                    # ../shared/corpus folders with real samples of this command
    seeds_from: tuple = ()                # corpus folders of a related command that only seed fuzzing
    exit_ok_if: Optional[str] = None      # regex: a non-zero exit whose output matches is an answer, not a failure
    rbac: bool = False                    # a non-root user needs its access authorizations (src-setup.sh's role)

    @property
    def parser(self):
        """The parser module ``parsers/<key>.py``; its ``parse(text)`` returns the record."""
        return importlib.import_module(f"aix_exporter.parsers.{self.key}")

    def parse(self, text: str):
        return self.parser.parse(text)

    @property
    def replay_file(self) -> str:
        return f"{self.key}.txt"

    @property
    def fixture_dir(self) -> str:
        return self.key


def _dsmadmc(*query):
    def argv(s) -> list:
        q = query[0](s) if callable(query[0]) else list(query)
        return [s.tsm.dsmadmc_binary, f"-id={s.tsm.admin_id}", "-dataonly=yes", *q]
    return argv


_NO_MATCH = r"\bANR2034E\b"   # a query that matches nothing: dsmadmc exits 11 with this message


def _checklist(key: str, table: str, description: str, shown: str, columns: tuple, rest: str = "") -> "Command":
    """A row of the checklist's selects of several rows (a pool, a drive, a path each): the
    parser's columns, none an answer (ANR2034E), in the background once an interval."""
    return Command(key, f"dsmadmc select from {table}", description,
                   f"dsmadmc -id=ADMIN -dataonly=yes -comma \"select {shown} from {table}{rest}\" (password on "
                   "stdin; background, every tsm.checklist_interval_seconds)",
                   argv=_dsmadmc("-comma", "select " + ",".join(columns) + f" from {table}{rest}"), fetch="dsmadmc",
                   exit_ok_if=_NO_MATCH, background=True)


def _vmo(s) -> list:
    argv = ["/usr/sbin/vmo"]
    for t in s.vmo.tunables:
        argv += ["-L", t]
    return argv


TABLE = (
    Command("vmstat", "vmstat", "CPU, run queue, memory, paging, large pages (-l), pc/ec of the last interval",
            "/usr/bin/vmstat -w -l INTERVAL 2 (background, last row)",
            rbac=True, argv=lambda s: ["/usr/bin/vmstat", "-w", "-l", str(s.vmstat.interval_seconds), "2"], background=True,
            runs_for=lambda s: 2 * s.vmstat.interval_seconds,
            corpus=("vmstat", "vmstat-w", "vmstat-t", "vmstat-It", "vmstat-l")),
    Command("vmstat_v", "vmstat -v", "VMM counts and percentages since boot", "/usr/bin/vmstat -v",
            rbac=True, argv=lambda s: ["/usr/bin/vmstat", "-v"], corpus=("vmstat-v",)),
    Command("vmstat_s", "vmstat -s", "paging, fault, interrupt and syscall counters since boot", "/usr/bin/vmstat -s",
            rbac=True, argv=lambda s: ["/usr/bin/vmstat", "-s"], corpus=("vmstat-s",)),
    Command("svmon_g", "svmon -G", "memory, paging space and page-size pools", "/usr/bin/svmon -G",
            rbac=True, argv=lambda s: ["/usr/bin/svmon", "-G"], corpus=("svmon-G", "svmon-G-O")),
    Command("svmon_p", "svmon -P", "memory of the monitored processes by page size, 16 MB mode, segments",
            "/usr/bin/ps -e -o pid= -o comm=, then /usr/bin/svmon -P PID...",
            rbac=True, argv=lambda s, pids: ["/usr/bin/svmon", "-P", *pids], fetch="processes",
            corpus=("svmon-P", "svmon-C", "svmon-U")),
    Command("ps_env", "ps eww", "LDR_CNTRL in the environment of the monitored processes",
            "/usr/bin/ps eww PID per monitored process",
            argv=lambda s, pids: ["/usr/bin/ps", "eww", *pids], fetch="per_process"),
    Command("vmo", "vmo", "large-page tunables, current and boot values",
            "/usr/sbin/vmo -L lgpg_regions -L lgpg_size (replay: vmo -L or vmo -a)", rbac=True, argv=_vmo,
            corpus=("vmo-lgpg",)),
    Command("asoo", "asoo -a", "Active System Optimizer: aso_active (it can move segments to 16 MB pages)",
            "/usr/sbin/asoo -a (AIX 7.1 TL1 and later; missing before)", rbac=True,
            argv=lambda s: ["/usr/sbin/asoo", "-a"]),
    Command("splat", "splat", "lock contention of a traced window (splat -da)",
            "a trace window (trace, trcstop, trcrpt, gensyms, splat -da) or the newest report in a directory",
            fetch="splat", background=True, corpus=("splat",)),
    Command("iostat_tape", "iostat -p", "tape drives: bytes since boot; throughput, transfers and busy of the last interval",
            "/usr/bin/iostat -p INTERVAL 2 (background: since boot, then the interval)",
            rbac=True, argv=lambda s: ["/usr/bin/iostat", "-p", str(s.tape.interval_seconds), "2"], background=True,
            runs_for=lambda s: s.tape.interval_seconds,
            exit_ok_if=r"(?i)no tapes? (were )?found",
            seeds_from=("iostat",)),   # no real tape capture exists
    Command("tsm_actlog", "TSM activity log", "TSM activity log messages", "a log file read incrementally, or a dsmadmc query",
            fetch="log", corpus=("tsm-actlog",)),
    Command("tsm_processes", "dsmadmc select from processes", "bytes moved by each running server process",
            "dsmadmc -id=ADMIN -dataonly=yes -comma \"select process_num,process,bytes_processed,files_processed "
            "from processes\" (password on stdin)",
            argv=_dsmadmc("-comma", "select process_num,process,bytes_processed,files_processed from processes"),
            fetch="dsmadmc", exit_ok_if=_NO_MATCH),
    Command("tsm_sessions", "dsmadmc select from sessions", "bytes sent and received by each client session",
            "dsmadmc -id=ADMIN -dataonly=yes -comma \"select session_id,client_name,bytes_sent,bytes_received "
            "from sessions\" (password on stdin)",
            argv=_dsmadmc("-comma", "select session_id,client_name,bytes_sent,bytes_received from sessions"),
            fetch="dsmadmc", exit_ok_if=_NO_MATCH),
    Command("tsm_mounts", "dsmadmc query mount", "volumes mounted in each drive, with their status",
            "dsmadmc -id=ADMIN -dataonly=yes query mount (password on stdin)",
            argv=_dsmadmc("query", "mount"), fetch="dsmadmc", exit_ok_if=_NO_MATCH),
    Command("tsm_summary", "dsmadmc select from summary", "bytes and count of the activities completed lately",
            "dsmadmc -id=ADMIN -dataonly=yes -comma \"select activity,sum(bytes),count(*) from summary where "
            "end_time>current_timestamp-HOURS hours group by activity\" (password on stdin)",
            argv=_dsmadmc(lambda s: ["-comma", "select activity,sum(bytes),count(*) from summary where "
                                    f"end_time>current_timestamp-{int(s.tsm.summary_hours)} hours group by activity"]),
            fetch="dsmadmc", exit_ok_if=_NO_MATCH),
    Command("tsm_db", "dsmadmc select from db", "the server's database: space, hit ratio, the last backup",
            "dsmadmc -id=ADMIN -dataonly=yes -comma \"select BUFF_HIT_RATIO,...,USED_PAGES,CURRENT_TIMESTAMP from "
            "db\" (password on stdin; background, every tsm.checklist_interval_seconds)",
            argv=_dsmadmc("-comma", "select " + ",".join(tsm_db.COLUMNS) + " from db"), fetch="dsmadmc",
            background=True),
    Command("tsm_log", "dsmadmc select from log", "the server's recovery log: active and archive log space",
            "dsmadmc -id=ADMIN -dataonly=yes -comma \"select FREE_SPACE_MB,...,ARCHLOG_USED_FS_MB from log\" "
            "(password on stdin; background, every tsm.checklist_interval_seconds)",
            argv=_dsmadmc("-comma", "select " + ",".join(tsm_log.COLUMNS) + " from log"), fetch="dsmadmc",
            background=True),
    Command("errpt", "errpt -a", "the error log's entries in detail: label, class, type, resource, sequence",
            "/usr/bin/errpt -a (background, every errpt.interval_seconds)",
            argv=lambda s: ["/usr/bin/errpt", "-a"], background=True),
    _checklist("tsm_stgpools", "stgpools", "the server's storage pools: capacity and use",
               "DEVCLASS,...,USED_CLOUD_SPACE_MB", tsm_stgpools.COLUMNS),
    _checklist("tsm_libvolumes", "libvolumes", "the library's volumes counted by status (scratch)",
               ",".join(tsm_libvolumes.COLUMNS), tsm_libvolumes.COLUMNS,
               " group by (" + ",".join(tsm_libvolumes.COLUMNS[:3]) + ")"),
    _checklist("tsm_drives", "drives", "the server's drives: online or not, state, volume",
               ",".join(tsm_drives.COLUMNS), tsm_drives.COLUMNS),
    _checklist("tsm_paths", "paths", "the paths to the drives and libraries: online or not, device",
               ",".join(tsm_paths.COLUMNS), tsm_paths.COLUMNS),
    _checklist("tsm_events", "events", "the client schedules' events of the last 24 hours: their status",
               ",".join(tsm_events.COLUMNS), tsm_events.COLUMNS, tsm_events.WHERE),
    Command("tsm_monitor", "dsmadmc query monitorstatus", "the server's status monitor: each active row's state and value",
            "dsmadmc -id=ADMIN -dataonly=yes -comma query monitorstatus (password on stdin; background, every "
            "tsm.checklist_interval_seconds)",
            argv=_dsmadmc("-comma", "query", "monitorstatus"), fetch="dsmadmc", exit_ok_if=_NO_MATCH, background=True),
)
COMMANDS = {c.key: c for c in TABLE}


def rbac_executables(settings=None) -> list:
    """The executables a non-root service user needs access authorizations for: those of the
    commands marked rbac (deploy/aix/src-setup.sh's PRIV_CMDS; tests/unit/test_commands.py)."""
    from .config import Settings
    s = settings or Settings()
    out = set()
    for c in TABLE:
        if c.rbac:
            assert c.argv is not None   # an rbac command runs an executable
            out.add((c.argv(s, ["PID"]) if c.fetch in ("processes", "per_process") else c.argv(s))[0])
    return sorted(out)


def sources_table() -> str:
    """The Sources table of docs/configuration.md."""
    rows = ["| key | command | what it reports | what runs on AIX (`--source system`) | replay file |",
            "|---|---|---|---|---|"]
    for c in TABLE:
        rows.append(f"| `{c.key}` | {c.title} | {c.description} | {c.aix} | `{c.replay_file}` |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    import sys
    sys.stdout.write(sources_table())
