"""Processes a test starts and ends by its id (never by name): the exporter run once or as a
server, waiting for an HTTP answer, its environment (the checkout's package first), the
exposition with its volatile values normalised for a golden file."""
import os
import re
import signal
import subprocess
import sys
import time

from tests.lib import ROOT
from tests.lib.fetch import get

VOLATILE = re.compile(
    r"^(aix_exporter_collector_(?:duration_seconds|last_success_timestamp_seconds)\{[^}]*\}|aix_splat_report_timestamp_seconds"
    r"|aix_tsm_db_last_backup_timestamp_seconds"   # (now minus the backup's age: the age is in the answer)
    r"|aix_exporter_cpu_seconds_total|aix_exporter_max_resident_memory_bytes"
    r"|aix_exporter_command_(?:cpu|duration)_seconds_total\{[^}]*\}) .*$",
    re.M)


def normalise(exposition: str) -> str:
    """Blank the values that change from run to run (durations, timestamps) and the
    checkout's path (in aix_exporter_source_info{source="replay:..."})."""
    return VOLATILE.sub(r"\1 <volatile>", exposition).replace(str(ROOT), "<checkout>")


def run_once(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "aix_exporter.cli", *args, "--once"],
                          capture_output=True, text=True, timeout=120, env=env())
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}: {proc.stderr}")
    return proc


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT / "exporter") + os.pathsep + e.get("PYTHONPATH", "")
    return e


def wait_http(url, timeout=30.0, proc=None):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"process exited with {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
        try:
            r = get(url, timeout=2)
            if r.status == 200:
                return r.body
            last = f"HTTP {r.status}"
        except Exception as e:  # not ready yet
            last = e
        time.sleep(0.1)
    raise AssertionError(f"{url} not ready after {timeout}s: {last}")


def start(argv, **kw):
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen(argv, env=env(), text=True, start_new_session=True, **kw)


def stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    out, err = proc.communicate()
    return out, err
