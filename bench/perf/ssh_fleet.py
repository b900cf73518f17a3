"""Many LPARs over SSH from one exporter (issue 49): CPU per target per scrape, probe latency at
a 60 s interval, memory per target.

    .venv/bin/python -m bench.perf ssh_fleet --targets 50 --rounds 2     (asyncssh: the test extra)

One real sshd on loopback (tests/lib/sshd.py: host key, known_hosts, the test user) serves N
targets, each its own name and SSH connection to the same sshd (aliases), running the stand-in
commands of the tsm-lpar replay fixtures through the forced-command wrapper, as an LPAR would.
Prometheus' schedule is played: each round probes every target once, spread evenly over
--interval seconds (60). Figures (the exporter's own /proc accounting, the background
collectors' vmstat and iostat included):

* CPU per target per scrape: the exporter's CPU over the measured rounds / (targets x rounds);
* probe latency: p50, p95 and max of the probes' wall times (/probe?target=NAME);
* memory per target: (RSS with N targets - RSS with 1) / (N - 1), after the rounds;
* failed probes, and which collectors failed in them.

A 1-target run first gives the baseline. Results go to stdout as a Markdown table row for
bench/perf/RESULTS.md.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from aix_exporter.config import load
from aix_exporter.tools import standin

from bench.perf import common
from bench.perf.common import ROOT, cpu_seconds, free_port, pct, rss_bytes, stop
from tests.lib.processes import wait_http
from tests.lib.sshd import Sshd

REPLAY = os.path.join(ROOT, "tests", "fixtures", "replay", "tsm-lpar")


def lpar(sshd):
    """The fixtures on the 'LPAR' (stand-ins under sshd.dir/root) and the wrapper as the key's command."""
    replay = sshd.dir / "replay"
    shutil.copytree(REPLAY, replay)
    root = sshd.dir / "root"
    standin.write(str(replay), str(root), load(None))
    for p in root.rglob("*"):
        p.chmod(0o755)
    wrapper = sshd.dir / "aix-exporter-ssh-wrapper"
    shutil.copy(os.path.join(ROOT, "deploy", "ssh", "aix-exporter-ssh-wrapper"), wrapper)
    sshd.set_forced_command(f"/usr/bin/perl {wrapper} --root {root} --files {sshd.dir} --lock {sshd.home}")
    return root


def config(sshd, root, n, workdir):
    lines = [f"command_root: {root}",
             f"ssh: {{key_file: {sshd.client_key}, known_hosts: {sshd.known_hosts}}}",
             f"probe: {{max_concurrent: {min(n, 16)}}}", "targets:"]
    lines += [f"  - {{name: lpar{i:03d}, source: '{sshd.spec}'}}" for i in range(1, n + 1)]
    path = os.path.join(workdir, f"fleet-{n}.yml")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def probe(url, name):
    started = time.monotonic()
    body = common.probe(url, name).checked(url).body.decode()
    failed = [line.split('"')[1] for line in body.splitlines()
              if line.startswith("aix_exporter_collector_success{") and line.endswith(" 0.0")]
    return time.monotonic() - started, "aix_exporter_probe_success 1.0" in body, failed


def run(sshd, root, n, rounds, interval, workdir):
    cfg = config(sshd, root, n, workdir)
    port = free_port()
    env = common.env()
    proc = subprocess.Popen([sys.executable, "-m", "aix_exporter.cli", "--config.file", cfg, "--no-collector.cpu",
                             "--web.listen-address", f"127.0.0.1:{port}", "--log.level", "error"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{url}/metrics", timeout=60, proc=proc)
        names = [f"lpar{i:03d}" for i in range(1, n + 1)]
        for name in names:            # warm-up: connections opened, background collectors started
            probe(url, name)
        time.sleep(6)                 # past --collect.min-interval (5 s): every measured probe collects
        cpu0 = cpu_seconds(proc.pid)
        lat, failed, which = [], 0, {}
        gap = interval / n
        start = time.monotonic()
        for r in range(rounds):
            for i, name in enumerate(names):
                at = start + r * interval + i * gap
                time.sleep(max(0.0, at - time.monotonic()))
                took, ok, collectors = probe(url, name)
                lat.append(took)
                failed += 0 if ok else 1
                for c in collectors:
                    which[c] = which.get(c, 0) + 1
        time.sleep(max(0.0, start + rounds * interval - time.monotonic()))
        cpu = cpu_seconds(proc.pid) - cpu0
        rss = rss_bytes(proc.pid)
    finally:
        stop(proc)
    return {"cpu_per_probe_ms": 1000 * cpu / (n * rounds), "p50_ms": 1000 * statistics.median(lat),
            "p95_ms": 1000 * pct(lat, 95), "max_ms": 1000 * max(lat), "rss": rss, "failed": failed,
            "cpu_share": cpu / (rounds * interval), "which": which}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--interval", type=float, default=60.0)
    a = ap.parse_args()
    sshd = Sshd()
    sshd.config.write_text(sshd.config.read_text() + "MaxStartups 200:30:400\n")   # 50 connections open at once
    sshd.start()
    workdir = tempfile.mkdtemp(prefix="aix-ssh-fleet-")
    try:
        root = lpar(sshd)
        one = run(sshd, root, 1, a.rounds, a.interval, workdir)
        many = run(sshd, root, a.targets, a.rounds, a.interval, workdir)
    finally:
        sshd.remove()
        shutil.rmtree(workdir, ignore_errors=True)
    per_target = (many["rss"] - one["rss"]) / max(1, a.targets - 1)
    print("| targets | CPU per target per scrape | share of one CPU | probe p50 / p95 / max | RSS | RSS per target | failed |")
    print("|---|---|---|---|---|---|---|")
    for n, r in ((1, one), (a.targets, many)):
        print(f"| {n} | {r['cpu_per_probe_ms']:.1f} ms | {100 * r['cpu_share']:.1f} % | {r['p50_ms']:.0f} / "
              f"{r['p95_ms']:.0f} / {r['max_ms']:.0f} ms | {r['rss'] / 2**20:.0f} MiB | "
              f"{per_target / 2**20:.2f} MiB | {r['failed']} |")
    for n, r in ((1, one), (a.targets, many)):
        if r["which"]:
            print(f"failed collectors with {n} target(s): " + ", ".join(f"{k} x{v}" for k, v in sorted(r["which"].items())))

