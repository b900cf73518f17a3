"""Each target its own lane (issue 57, item 3): slow LPARs never take a healthy one's turn, and a
flood of probes costs each LPAR at most one collection per --collect.min-interval.

    .venv/bin/python -m bench.perf probe_lanes [--seconds 30]

One real sshd (tests/lib/sshd.py) with the shipped wrapper and the tsm-lpar stand-ins; a slow
LPAR is the same sshd behind a TCP relay that holds every chunk 0.3 s each way (a slow link:
each command several seconds). The exporter runs with its defaults (probe.max_concurrent 8,
--collect.min-interval 5). Scenarios, each in a fresh exporter:

* control: two healthy targets, each probed 15 times one after another: p50 (these three with
  --collect.min-interval 0: every probe collects);
* one slow target probed by 8 connections at once, back to back, while the two healthy ones are
  probed 15 times each: how many of the 30 answered whole, p50;
* 36 slow targets, each probed back to back by its own client, beside two healthy ones probed
  15 times each: whole answers and p50 against the control;
* a flood: 40 clients probing 40 healthy targets back to back for --seconds, and "Prometheus"
  probing target 1 every 2 s (15 probes): its answers whole, and the commands each target ran
  per minute against the collections --collect.min-interval allows (12 a minute).

Prints a Markdown table for bench/perf/RESULTS.md.
"""
import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from bench.perf import common
from bench.perf.common import free_port, stop, wait
from bench.perf.ssh_fleet import lpar
from tests.lib.sshd import Sshd

DELAY = 0.3


def relay(target_port: int, delay: float) -> int:
    """A TCP relay on a free loopback port to 127.0.0.1:target_port, each chunk held ``delay``."""
    port = free_port()
    ready = threading.Event()

    async def pipe(reader, writer):
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                await asyncio.sleep(delay)
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def handle(cr, cw):
        try:
            sr, sw = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            cw.close()
            return
        await asyncio.gather(pipe(cr, sw), pipe(sr, cw))

    async def main():
        await asyncio.start_server(handle, "127.0.0.1", port)
        ready.set()
        await asyncio.Event().wait()

    threading.Thread(target=lambda: asyncio.run(main()), daemon=True).start()
    ready.wait(10)
    return port


def probe(url, name, timeout=30.0):
    started = time.monotonic()
    try:
        r = common.probe(url, name, scrape_timeout=10, timeout=timeout)
        body = r.body.decode() if r.status == 200 else ""
    except OSError:
        body = ""
    return time.monotonic() - started, "aix_exporter_probe_success 1.0" in body, body


def exporter(sshd, root, work, targets, min_interval="5"):
    """targets: [(name, port)] behind the sshd (or a relay); returns (process, url)."""
    known = sshd.dir / "known_hosts_all"
    key = (sshd.dir / "host_ed25519.pub").read_text().split()
    known.write_text("".join(f"[127.0.0.1]:{p} {key[0]} {key[1]}\n" for p in sorted({p for _, p in targets})))
    cfg = os.path.join(work, "lanes.yml")
    with open(cfg, "w") as fh:
        fh.write(f"command_root: {root}\nssh: {{key_file: {sshd.client_key}, known_hosts: {known}}}\ntargets:\n"
                 + "".join(f"  - {{name: {n}, source: 'ssh://{sshd.user}@127.0.0.1:{p}'}}\n" for n, p in targets))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "aix_exporter.cli", "--config.file", cfg, "--no-collector.cpu",
                             "--log.level", "error", "--collect.min-interval", min_interval,
                             "--web.listen-address", f"127.0.0.1:{port}"],
                            env=common.env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait(port, 60)
    return proc, f"http://127.0.0.1:{port}"


def healthy_rounds(url, names, n=15, gap=0.5):
    lat, ok = [], 0
    for _ in range(n):
        for name in names:
            took, whole, _ = probe(url, name)
            lat.append(took)
            ok += whole
        time.sleep(gap)
    return ok, len(lat), statistics.median(lat)


def hammer(url, name, stop_flag, counts):
    while not stop_flag.is_set():
        _, whole, _ = probe(url, name)
        counts.append(whole)


def runs(body: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in body.splitlines()
               if line.startswith("aix_exporter_command_runs_total{"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    a = ap.parse_args()
    sshd = Sshd()
    sshd.config.write_text(sshd.config.read_text() + "MaxStartups 200:30:400\n")
    sshd.start()
    work = tempfile.mkdtemp(prefix="aix-lanes-")
    rows = []
    try:
        root = lpar(sshd)
        slow_port = relay(sshd.port, DELAY)
        healthy = [("healthy1", sshd.port), ("healthy2", sshd.port)]

        proc, url = exporter(sshd, root, work, healthy, min_interval="0")
        try:
            healthy_rounds(url, ["healthy1", "healthy2"], n=1)   # connections open, background started
            time.sleep(5)
            ok, total, control = healthy_rounds(url, ["healthy1", "healthy2"])
        finally:
            stop(proc)
        rows.append(("control: 2 healthy targets", f"{ok} of {total}", f"{control * 1000:.0f} ms", ""))

        for slow_n, per_slow in ((1, 8), (36, 1)):
            slow = [(f"slow{i:02d}", slow_port) for i in range(1, slow_n + 1)]
            proc, url = exporter(sshd, root, work, healthy + slow, min_interval="0")
            stop_flag, counts = threading.Event(), []
            try:
                healthy_rounds(url, ["healthy1", "healthy2"], n=1)
                clients = [threading.Thread(target=hammer, args=(url, n, stop_flag, counts), daemon=True)
                           for n, _ in slow for _ in range(per_slow)]
                for c in clients:
                    c.start()
                time.sleep(5)
                ok, total, p50 = healthy_rounds(url, ["healthy1", "healthy2"])
                stop_flag.set()
                for c in clients:
                    c.join(60)
            finally:
                stop(proc)
            what = "1 slow target, 8 connections" if slow_n == 1 else "36 slow targets among 38"
            rows.append((what, f"{ok} of {total}", f"{p50 * 1000:.0f} ms ({p50 / control:.1f}x control)",
                         f"slow probes whole: {sum(counts)} of {len(counts)}"))

        flood = [(f"lpar{i:02d}", sshd.port) for i in range(1, 41)]
        proc, url = exporter(sshd, root, work, flood)
        stop_flag, counts = threading.Event(), []
        try:
            for n, _ in flood:
                probe(url, n)
            time.sleep(6)
            before = {n: runs(probe(url, n)[2]) for n, _ in flood}
            started = time.monotonic()
            clients = [threading.Thread(target=hammer, args=(url, n, stop_flag, counts), daemon=True) for n, _ in flood]
            for c in clients:
                c.start()
            prom = []
            for _ in range(15):
                prom.append(probe(url, "lpar01")[1])
                time.sleep(2)
            while time.monotonic() - started < a.seconds:
                time.sleep(0.5)
            stop_flag.set()
            for c in clients:
                c.join(60)
            took = time.monotonic() - started
            after = {n: runs(probe(url, n)[2]) for n, _ in flood}
        finally:
            stop(proc)
        per_collection = before["lpar01"] / 2 if before["lpar01"] else 1   # (two collections before: warm-up, measure)
        per_min = [(after[n] - before[n]) / per_collection / took * 60 for n, _ in flood]
        rows.append((f"flood: 40 clients on 40 targets, {took:.0f} s", f"Prometheus {sum(prom)} of 15",
                     f"{len(counts) / took:.0f} probes/s answered",
                     f"collections per target per minute: max {max(per_min):.1f} (allowed 12)"))
    finally:
        sshd.remove()
        shutil.rmtree(work, ignore_errors=True)
    print("| scenario | healthy probes whole | healthy p50 | other |")
    print("|---|---:|---:|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0

