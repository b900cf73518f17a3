"""The README's demo as a test drives it: ``bash deploy/demo/run.sh`` on free loopback ports with a
scratch DEMO_DIR (``Demo``), and what a soak checks of it (``Soak``): the alerts the README names
and no other, the case study's tape figure live and in the history, the exporters' logs, the
banner's URLs, and that SIGTERM leaves nothing behind. tests/e2e/test_demo.py runs it briefly;
``python3 -m bench.perf demo_soak`` for ten minutes."""
import json
import os
import re
import signal
import socket
import subprocess
import time

from tests.lib import ROOT, free_port
from tests.lib.fetch import get

TAPE = ('sum by (instance) (rate(aix_tape_read_bytes_total{job="aix"}[5m]) '
        '+ rate(aix_tape_written_bytes_total{job="aix"}[5m])) / 2^20')
# What the README promises, per instance and alert: the states it may show. tsmsrv01 (the case
# study, healthy after the tuning) shows none. tsmsrv02 runs out of mandatory large pages.
EXPECTED = {
    ("tsmsrv02:10990", "AixMandatoryLargePagesAtRisk"): {"pending", "firing"},
    ("tsmsrv02:10990", "AixRestartWouldFail"): {"pending", "firing"},
    ("tsmsrv02:10990", "AixTsmDiagnosticError"): {"firing"},
    ("tsmsrv02:10990", "AixTsmDatabaseInitFailed"): {"firing"},
    # the pool is 91 % used from the start: pending at once, resolved when the server stops and
    # frees its pages, before their 15 and 30 minutes have passed
    ("tsmsrv02:10990", "AixLargePagePoolNearlyExhausted"): {"pending"},
    ("tsmsrv02:10990", "AixLargePagePoolFillingUp"): {"pending"},
    # once its server has died, dsmadmc gets no answer: the TSM checklist's collectors fail
    # (the story's one failure, said once each in its exporter's log) and, 10 minutes on, alert
    ("tsmsrv02:10990", "AixExporterCollectorFailing"): {"pending", "firing"},
}
PROBLEM_LINES = re.compile(r"parse error|Traceback|level=error", re.I)
# the error lines the story has: the checklist's queries of tsmsrv02's dead server
EXPECTED_LINES = re.compile(r'msg="collection failed" collector=tsm_(checklist|storage|health) .*'
                            r"the server does not answer: ANS1017E")


def _port_pair():
    """Two consecutive free ports: the demo's exporters use DEMO_PORT and DEMO_PORT + 1."""
    for _ in range(50):
        base = free_port()
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", base + 1))
            return base
        except OSError:
            continue
    raise RuntimeError("no two consecutive free ports")


class Demo:
    """bash deploy/demo/run.sh on free ports in its own session; stop() sends SIGTERM to the
    script only (its trap stops what it started) and reports what was left behind."""

    def __init__(self, workdir, venv=None):
        self.port = _port_pair()
        self.prom = free_port()
        while self.prom in (self.port, self.port + 1):
            self.prom = free_port()
        self.am = free_port()
        self.dir = os.path.join(workdir, "demo")
        env = {**os.environ, "DEMO_PORT": str(self.port), "DEMO_PROM_PORT": str(self.prom),
               "DEMO_AM_PORT": str(self.am), "DEMO_DIR": self.dir}
        if venv:
            env["AIX_EXPORTER_VENV"] = venv
        self.started = time.monotonic()
        self.proc = subprocess.Popen(["bash", str(ROOT / "deploy" / "demo" / "run.sh")], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     start_new_session=True)
        self.banner = []
        self.up_seconds = None

    def wait_banner(self):
        for line in self.proc.stdout:
            self.banner.append(line)
            if "Ctrl-C stops everything" in line:
                self.up_seconds = time.monotonic() - self.started
                return "".join(self.banner)
        raise RuntimeError("the demo ended before its banner:\n" + "".join(self.banner))

    def query(self, expr, at=None):
        from aix_exporter.promapi import Prometheus
        return Prometheus(f"http://127.0.0.1:{self.prom}").result(expr, at or None)

    def alerts(self):
        url = f"http://127.0.0.1:{self.prom}/api/v1/alerts"
        return json.loads(get(url).checked(url).body)["data"]["alerts"]

    def alertmanager(self):
        """The alerts Alertmanager holds (its API v2), [] when the demo runs without it."""
        try:
            r = get(f"http://127.0.0.1:{self.am}/api/v2/alerts")
        except OSError:
            return []
        return json.loads(r.body) if r.status == 200 else []

    def history_tape(self):
        """tsmsrv01's tape MiB/s at each minute of its history's 16 MB part, from the sixth minute
        of the regime (the [5m] window then no longer holds the restart) to the history's end."""
        from aix_exporter.promapi import Prometheus
        prom = Prometheus(f"http://127.0.0.1:{self.prom}")
        now = time.time()
        regime = prom.range('aix:regime_page_size:bytes{instance="tsmsrv01:10990"}', now - 9 * 3600, now, 60)
        starts = [float(t) for t, v in (regime[0]["values"] if regime else []) if float(v) == 16777216]
        if not starts:
            return []
        res = prom.range(TAPE.replace('job="aix"', 'job="aix",instance="tsmsrv01:10990"'), starts[0] + 360, now, 60)
        return [(float(t), float(v)) for t, v in (res[0]["values"] if res else [])]

    def overlap_warnings(self):
        with open(os.path.join(self.dir, "prometheus.log"), errors="replace") as fh:
            return sum("Overlapping blocks" in line for line in fh)

    def log_problems(self):
        out = []
        for name in sorted(os.listdir(self.dir)):
            if name.startswith("exporter-") and name.endswith(".log"):
                with open(os.path.join(self.dir, name), errors="replace") as fh:
                    out += [f"{name}: {line.rstrip()}" for line in fh
                            if PROBLEM_LINES.search(line) and not EXPECTED_LINES.search(line)]
        return out

    def _session(self):
        """{pid: (start time, command)} of the processes in the demo's session: a pid alone
        could be reused by another program once the demo's own ended."""
        out = subprocess.run(["ps", "-o", "pid=,lstart=,args=", "-s", str(self.proc.pid)], capture_output=True,
                             text=True).stdout
        procs = {}
        for line in out.splitlines():
            f = line.split(None, 6)
            if len(f) == 7:
                procs[f[0]] = (" ".join(f[1:6]), f[6])
        return procs

    def stop(self):
        """SIGTERM to the script; returns the processes it started that are still alive after it."""
        started = self._session()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
            time.sleep(1)
        finally:
            still = self._session()
            left = [f"{pid} {cmd}" for pid, (when, cmd) in still.items() if started.get(pid, (None,))[0] == when]
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return "\n".join(left)


def banner_urls(banner):
    return sorted(set(re.findall(r"http://127\.0\.0\.1:\d+[^\s)]*", banner)))


def banner_amtool(banner):
    m = re.search(r"(amtool [^\n]*alert query)", banner)
    return m.group(1).split() if m else None


class Soak:
    """Alerts and tape figures seen over a soak, and what was wrong with them."""

    def __init__(self, demo):
        self.demo = demo
        self.seen = {}        # (instance, alertname, state) -> seconds after the banner
        self.problems = []
        self.tape = {}        # instance -> [min, max] MiB/s
        self.off = []         # (seconds after the banner, MiB/s) of tsmsrv01's readings outside 2 % of 378
        self.fired = set()    # (alertname, instance) Prometheus has fired
        self.polls = 0
        self.t0 = time.monotonic()

    def poll(self):
        alerts = self.demo.alerts()
        keys = [(a["labels"].get("instance"), a["labels"]["alertname"], a["state"],
                 tuple(sorted(a["labels"].items()))) for a in alerts]
        if len(keys) != len(set(keys)):
            self.problems.append(f"an alert listed twice: {sorted(k[:3] for k in keys)}")
        self.fired |= {(name, inst) for inst, name, state, _ in keys if state == "firing"}
        held = self.demo.alertmanager()
        for a in held:
            key = (a["labels"].get("alertname"), a["labels"].get("instance"))
            if key not in self.fired:
                self.problems.append(f"Alertmanager holds {key[0]} on {key[1]}, which Prometheus has not fired")
        for a in alerts + held:
            for text in a.get("annotations", {}).values():
                if re.search(r"\b\d+\.\d+ times", text):
                    self.problems.append(f"a fractional count in {a['labels'].get('alertname')}: {text}")
        for inst, name, state, _ in keys:
            if (inst, name, state) not in self.seen:
                self.seen[(inst, name, state)] = round(time.monotonic() - self.t0)
                if state not in EXPECTED.get((inst, name), ()):
                    self.problems.append(f"unexpected alert {name} {state} on {inst}")
        for r in self.demo.query(TAPE):
            v = float(r["value"][1])
            lo, hi = self.tape.setdefault(r["metric"].get("instance"), [v, v])
            self.tape[r["metric"].get("instance")] = [min(lo, v), max(hi, v)]
            if r["metric"].get("instance") == "tsmsrv01:10990" and not 378 * 0.98 <= v <= 378 * 1.02:
                self.off.append((round(time.monotonic() - self.t0, 1), round(v, 1)))
        self.polls += 1

    def run(self, seconds, every=5.0):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.poll()
            time.sleep(max(0.0, min(every, end - time.monotonic())))

    def finish(self, banner):
        for inst, (lo, hi) in self.tape.items():
            if inst == "tsmsrv01:10990" and not (378 * 0.98 <= lo <= hi <= 378 * 1.02):
                self.problems.append(f"tsmsrv01 tape {lo:.1f}..{hi:.1f} MiB/s live, not within 2 % of 378: "
                                     f"{len(self.off)} readings off (s after the banner, MiB/s): {self.off[:8]}")
        self.history = self.demo.history_tape()
        off = [(t, v) for t, v in self.history if not 378 * 0.98 <= v <= 378 * 1.02]
        if not self.history or off:
            self.problems.append(f"tsmsrv01 tape in the history's 16 MB part: {len(off)} of {len(self.history)} "
                                 f"minutes outside 2 % of 378 MiB/s, e.g. {off[:3]}")
        self.overlaps = self.demo.overlap_warnings()
        if self.overlaps > 3:
            self.problems.append(f"Prometheus' log: {self.overlaps} 'Overlapping blocks' warnings")
        self.problems += [f"log: {line}" for line in self.demo.log_problems()]
        for url in banner_urls(banner):
            try:
                status = get(url).status
            except Exception as e:   # an HTTP error or no answer: the URL does not work
                status = repr(e)
            if status != 200:
                self.problems.append(f"banner URL {url}: {status}")
        amtool = banner_amtool(banner)
        if "Alertmanager" in banner:
            if not amtool:
                self.problems.append("the banner names Alertmanager but no amtool command to list its alerts")
            else:
                r = subprocess.run(amtool, capture_output=True, text=True, timeout=30)
                if r.returncode != 0:
                    self.problems.append(f"{' '.join(amtool)}: exit {r.returncode} {r.stderr.strip()}")
        return self.problems
