"""Golden end-to-end on the system source: the exporter runs as a server with
--source system --path.commands DIR, where DIR holds stand-in AIX commands that print the
tsm-lpar replay fixtures (aix_exporter.tools.standin). This is the code path that runs on AIX:
argv lists from the command table, absolute paths, pipes and timeouts, process discovery,
ps eww per process, the watched splat directory, the activity-log tail, and vmstat and
splat in background threads on their own schedule. The exposition is compared whole."""
import os
import shutil
import sys
import time
import urllib.request

from aix_exporter.config import load
from aix_exporter.tools import standin
from tests.lib import FIXTURES, ROOT, free_port
from tests.lib.processes import normalise, start, stop, wait_http

GOLDEN = ROOT / "tests" / "golden" / "tsm-lpar-system.prom"
REPLAY = FIXTURES / "replay" / "tsm-lpar"


def scrape(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def test_system_source_against_stand_in_commands(tmp_path):
    reports = tmp_path / "splat-reports"
    reports.mkdir()
    shutil.copy(REPLAY / "splat.txt", reports / "splat.out")
    log = tmp_path / "dsmserv.log"
    shutil.copy(REPLAY / "tsm_actlog.txt", log)
    cfg = tmp_path / "aix_exporter.yml"
    pw = tmp_path / "tsm.pw"
    pw.write_text("monitor-password\n")
    pw.chmod(0o600)
    cfg.write_text(f"vmstat: {{interval_seconds: 1}}\ntape: {{interval_seconds: 1}}\nsplat: {{report_dir: {reports}}}\n"
                   f"tsm: {{actlog_file: {log}, admin_id: monitor, password_file: {pw}}}\n")
    commands = tmp_path / "root"
    standin.write(str(REPLAY), str(commands), load(str(cfg)))   # argv as these settings build it
    port = free_port()
    proc = start([sys.executable, "-m", "aix_exporter.cli",
                  "--source", "system", "--path.commands", str(commands), "--config.file", str(cfg),
                  "--no-collector.cpu", "--collect.min-interval", "0",
                  "--web.listen-address", f"127.0.0.1:{port}"])
    try:
        url = f"http://127.0.0.1:{port}/metrics"
        wait_http(url, proc=proc)
        deadline = time.monotonic() + 30
        while True:   # the background collectors report after their first run
            out = scrape(url)
            if all(f'aix_exporter_collector_success{{collector="{c}"}} 1.0' in out for c in ("vmstat", "splat", "tape")):
                break
            assert time.monotonic() < deadline, out
            time.sleep(0.2)
        # an appended message is counted once: the log is tailed from where the exporter started
        with open(log, "a") as fh:
            fh.write("11/19/2026 09:00:00  ANR0358E Database initialization failed: insufficient memory.\n")
        out = scrape(url)
    finally:
        _, err = stop(proc)
    text = normalise(out).replace(str(tmp_path), "<tmp>")
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text(), "exposition changed: review, then UPDATE_GOLDEN=1"
    assert 'aix_tsm_messages_total{msgid="ANR0358E",severity="E"} 1.0' in out
    assert 'aix_exporter_source_info{source="system"} 1.0' in out
    assert "level=error" not in err, err


def test_system_and_replay_goldens_differ_only_where_the_sources_do():
    """Same fixtures, same parsers: the system source serves what replay serves, except the
    activity log (tailed from the exporter's start, not counted whole), the source name and
    what the commands cost (replay runs none)."""
    def samples(path):
        return {l for l in path.read_text().splitlines()
                if not l.startswith(("#", "aix_tsm_messages_total", "aix_exporter_source_info", "aix_exporter_command_"))}
    assert samples(GOLDEN) == samples(ROOT / "tests" / "golden" / "tsm-lpar.prom")
