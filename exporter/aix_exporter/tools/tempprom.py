"""A temporary Prometheus over a directory of TSDB blocks (imported history), for the rule
backfill of `import nmon --rules` and for `report --tsdb`: Debian's `prometheus` on a free
loopback port, polled until ready, stopped by its PID. Its retention is far longer than any
history (Prometheus deletes blocks older than its retention when it opens them), and what it
leaves beside the blocks (an empty WAL, lock files: nothing is ingested) is removed.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

from ..errors import CommandError

LEFT_BEHIND = ("wal", "chunks_head", "lock", "queries.active")


class TempPrometheusError(CommandError, RuntimeError):
    pass


def block_range(tsdb: str) -> tuple:
    """(first, last) sample time in Unix seconds over the blocks of ``tsdb`` (their meta.json),
    or (None, None) when it holds no block."""
    first = last = None
    for name in os.listdir(tsdb):
        meta = os.path.join(tsdb, name, "meta.json")
        if not os.path.isfile(meta):
            continue
        with open(meta, encoding="utf-8") as fh:
            m = json.load(fh)
        a, b = m["minTime"] / 1000.0, m["maxTime"] / 1000.0
        first = a if first is None else min(first, a)
        last = b if last is None else max(last, b)
    return first, last


def free_port() -> int:
    """A free TCP port on the loopback address."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop(proc: subprocess.Popen, timeout: float = 30.0) -> None:
    """End a server this process started, by its PID: SIGTERM, then SIGKILL after ``timeout``."""
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def serve(tsdb: str, config: str = "", timeout: float = 120.0):
    """Yield the URL of a Prometheus serving ``tsdb`` (``config``: its prometheus.yml text)."""
    prometheus = shutil.which("prometheus")
    if not prometheus:
        raise TempPrometheusError("prometheus not found (Debian package prometheus)")
    if not os.path.isdir(tsdb):
        raise TempPrometheusError(f"{tsdb}: no such directory")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    work = tempfile.mkdtemp(prefix="aix-exporter-prometheus-")
    before = set(os.listdir(tsdb))
    log_path = os.path.join(work, "prometheus.log")
    try:
        cfg = os.path.join(work, "prometheus.yml")
        with open(cfg, "w", encoding="utf-8") as fh:
            fh.write(config or "global: {evaluation_interval: 60s}\n")
        with open(log_path, "w") as log:
            proc = subprocess.Popen([prometheus, f"--config.file={cfg}", f"--storage.tsdb.path={tsdb}",
                                     f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=100y"],
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    urllib.request.urlopen(f"{url}/-/ready", timeout=2)
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        with open(log_path, errors="replace") as fh:
                            tail = " ".join(fh.read()[-400:].split())
                        raise TempPrometheusError(f"a temporary Prometheus on {tsdb} did not start: {tail}") from None
                    time.sleep(0.2)
            yield url
        finally:
            stop(proc)
        for name in set(os.listdir(tsdb)) - before:
            if name in LEFT_BEHIND:
                path = os.path.join(tsdb, name)
                shutil.rmtree(path) if os.path.isdir(path) else os.unlink(path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
