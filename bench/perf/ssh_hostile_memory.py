"""Hostile LPARs over SSH and the exporter's memory (issue 57, item 4).

    .venv/bin/python -m bench.perf ssh_hostile_memory [--rounds 3]

One real sshd (tests/lib/sshd.py) with the shipped forced-command wrapper serves three
hostile targets (aliases of one "LPAR" whose stand-ins answer svmon -G with 80 MiB, vmstat
with endless output, vmo with 63 MiB of newlines and asoo with 80 MiB of NULs), beside two
healthy targets (simulate:case-study). Each round probes all five at once. Figures, from the
exporter's /proc/PID/status: RSS after the healthy targets' first probes (the baseline), the
peak (VmHWM) over the rounds, and RSS 10 s after the last round; whether every healthy probe
succeeded, and how the hostile commands failed. Prints a Markdown table for bench/perf/RESULTS.md.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from bench.perf import common
from bench.perf.common import free_port, rss_bytes, stop, wait
from bench.perf.ssh_fleet import lpar
from tests.lib.sshd import Sshd

HOSTILE = {   # stand-in -> what it prints
    "usr/bin/svmon": "head -c 83886080 /dev/zero | tr '\\000' a",       # 80 MiB
    "usr/bin/vmstat": "exec yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",       # endless
    "usr/sbin/vmo": "yes '' | head -c 66060288",                          # 63 MiB of newlines
    "usr/sbin/asoo": "head -c 83886080 /dev/zero",                        # 80 MiB of NULs
}


def probe(url, name, out):
    out[name] = common.probe(url, name, timeout=90).checked(url).body.decode()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    sshd = Sshd().start()
    work = tempfile.mkdtemp(prefix="aix-hostile-mem-")
    try:
        root = lpar(sshd)
        for rel, script in HOSTILE.items():
            path = root / rel
            path.write_text(f"#!/bin/sh\n{script}\n")
            path.chmod(0o755)
        hostile = [f"hostile{i}" for i in range(1, 4)]
        healthy = ["healthy1", "healthy2"]
        cfg = os.path.join(work, "fleet.yml")
        with open(cfg, "w") as fh:
            fh.write(f"command_root: {root}\ncommand_timeout_seconds: 20\n"
                     f"ssh: {{key_file: {sshd.client_key}, known_hosts: {sshd.known_hosts}}}\ntargets:\n"
                     + "".join(f"  - {{name: {n}, source: '{sshd.spec}'}}\n" for n in hostile)
                     + "".join(f"  - {{name: {n}, source: 'simulate:case-study'}}\n" for n in healthy))
        port = free_port()
        log = open(os.path.join(work, "exporter.log"), "w")
        proc = subprocess.Popen([sys.executable, "-m", "aix_exporter.cli", "--config.file", cfg, "--no-collector.cpu",
                                 "--collect.min-interval", "0", "--web.listen-address", f"127.0.0.1:{port}"],
                                env=common.env(),
                                stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            wait(port, 60)
            out: dict = {}
            for n in healthy:
                probe(url, n, out)
            time.sleep(2)
            baseline = rss_bytes(proc.pid)
            ok = 0
            for _ in range(a.rounds):
                out = {}
                threads = [threading.Thread(target=probe, args=(url, n, out)) for n in hostile + healthy]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                ok += sum("aix_exporter_probe_success 1.0" in out.get(n, "") for n in healthy)
            peak = rss_bytes(proc.pid, "VmHWM")
            time.sleep(10)
            after = rss_bytes(proc.pid)
        finally:
            stop(proc)
            log.close()
        text = open(os.path.join(work, "exporter.log")).read()
        kinds = {"budget": text.count("ssh.output_budget_bytes"), "cap": text.count("printed more than"),
                 "timeout": text.count("timed out")}
    finally:
        sshd.remove()
        shutil.rmtree(work, ignore_errors=True)
    print("| rounds | RSS baseline | peak RSS (VmHWM) | RSS 10 s after | healthy probes whole | hostile failures |")
    print("|---:|---:|---:|---:|---:|---|")
    print(f"| {a.rounds} | {baseline / 2**20:.0f} MiB | {peak / 2**20:.0f} MiB | {after / 2**20:.0f} MiB | "
          f"{ok} of {a.rounds * len(healthy)} | {', '.join(f'{k} {v}' for k, v in kinds.items())} |")
    return 0

