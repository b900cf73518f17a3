"""A command that hangs is killed at its timeout, leaves no zombie or orphan, and the other
collectors keep serving within the scrape deadline (real subprocesses, real HTTP server)."""
import os
import signal
import subprocess
import threading
import time
import urllib.request

from aix_exporter.collectors.memory import MemoryCollector
from aix_exporter.collectors.vmo import VmoCollector
from aix_exporter.config import Settings
from aix_exporter.exporter import Exporter
from aix_exporter.sources.system import SystemSource
from aix_exporter.web import make_server
from tests.lib import FIXTURES, free_port

MARK = "aix-exporter-hang-test-4711"


class LinuxStandIn(SystemSource):
    """The system source with its commands replaced: svmon hangs (a shell that started a
    child), vmo prints a captured output. Everything else is the real runner."""

    def argv(self, key):
        if key == "svmon_g":
            return ["/bin/sh", "-c", f"sleep 300 & echo {MARK} >/dev/null; wait", MARK]
        if key == "vmo":
            return ["/bin/cat", str(FIXTURES / "vmo" / "lgpg-L-tuned-pending.txt")]
        return super().argv(key)


def hung_group():
    """The process group of the hanging command: its shell's (the shell's argv holds MARK;
    the command runs in a session of its own), or None."""
    out = subprocess.run(["/bin/ps", "-eo", "pid,pgid,args"], capture_output=True, text=True).stdout
    for line in out.splitlines()[1:]:
        pid, pgid, args = line.split(None, 2)
        if MARK in args and args.startswith("/bin/sh"):
            return int(pgid)
    return None


def members(pgid):
    """Processes of the group that still run (a zombie waits only for its reaping)."""
    out = subprocess.run(["/bin/ps", "-eo", "pgid,stat,args"], capture_output=True, text=True).stdout
    return [l for l in out.splitlines()[1:] if l.split()[0] == str(pgid) and not l.split()[1].startswith("Z")]


def test_hung_command_is_killed_and_others_keep_serving():
    s = Settings()
    s.command_timeout_seconds = 3
    src = LinuxStandIn(s)
    e = Exporter(src, [MemoryCollector(s), VmoCollector(s)], min_interval=0)
    port = free_port()
    server = make_server(e, f"127.0.0.1:{port}")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        req = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers={"X-Prometheus-Scrape-Timeout-Seconds": "1.5"})
        t0 = time.monotonic()
        body = urllib.request.urlopen(req, timeout=10).read().decode()
        took = time.monotonic() - t0
        assert took < 1.5, took                        # served within the announced scrape timeout
        assert 'aix_exporter_collector_success{collector="vmo"} 1.0' in body
        assert 'aix_vmo_tunable{setting="current",tunable="lgpg_regions"} 160.0' in body
        assert 'aix_exporter_collector_success{collector="memory"} 0.0' in body
        pgid = hung_group()
        assert pgid is not None, "the hanging command should still be running before its timeout"
        assert any("sleep 300" in m for m in members(pgid)), members(pgid)   # with its child
        time.sleep(3.5)                                # past the command timeout: group killed
        # Nothing of the group runs any more. A killed grandchild can linger as a zombie only
        # until init reaps it (it was re-parented there when its shell died); our own child is reaped.
        assert members(pgid) == []
        body = urllib.request.urlopen(req, timeout=10).read().decode()
        assert 'aix_exporter_collector_success{collector="vmo"} 1.0' in body
        assert e.results["memory"].error.endswith(": timed out after 3s, process group killed")
    finally:
        server.shutdown()
        e.stop(wait=True)   # the killed command's run ends and logs here, inside the test
        pgid = hung_group()
        if pgid is not None:                          # only the group this test started, by its id
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
