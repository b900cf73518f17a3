"""The README's demo, soaked: `bash deploy/demo/run.sh` as a user runs it, for ten minutes.

    python3 bench/demo_soak.py [--minutes 10]     (needs Debian's prometheus; run as root once
                                                   so the demo can install it, or install it)
    python3 bench/demo_soak.py --starts 3         (the start alone, three times: seconds to the banner)

Runs the demo on free loopback ports with a scratch DEMO_DIR, then every 5 s (--every) reads
Prometheus' alerts and the README's tape query. At the end it reports, and exits 1 on any
failure:
- seconds until the demo printed its banner ("Ctrl-C stops everything");
- every alert that went pending or firing (name, instance, state, first seen), against
  EXPECTED, the alerts the README names: any other alert, or one listed twice, fails;
- parse errors and tracebacks in the exporters' logs (any fails);
- tape MiB/s, read + written, per instance over the soak: tsmsrv01 within 2 % of 378 at every
  poll, and in every minute of its history's 16 MB part (from the regime's first five minutes,
  whose [5m] window still holds the restart, on);
- that Alertmanager holds no alert Prometheus has not fired (the backfill must not send any);
- that no alert text holds a fractional count ("appeared 1.003 times");
- the "Overlapping blocks" warnings in Prometheus' log (more than three fail: a flood);
- every URL the banner prints (each must answer 200) and the amtool command it prints;
- that SIGTERM to the script leaves no process of its session behind.
tests/e2e/test_demo.py runs the same checks over a shorter soak.
"""
import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))   # also when tests/e2e/test_demo.py loads this file
sys.path.insert(0, os.path.join(ROOT, "exporter"))   # (promapi: the standard library only)

from common import free_port  # noqa: E402
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


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read()


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
        self.proc = subprocess.Popen(["bash", os.path.join(ROOT, "deploy", "demo", "run.sh")], env=env,
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
        _, body = get(f"http://127.0.0.1:{self.prom}/api/v1/alerts")
        return json.loads(body)["data"]["alerts"]

    def alertmanager(self):
        """The alerts Alertmanager holds (its API v2), [] when the demo runs without it."""
        try:
            _, body = get(f"http://127.0.0.1:{self.am}/api/v2/alerts")
        except OSError:
            return []
        return json.loads(body)

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
                status, _ = get(url)
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


def starts(n):
    """Start the demo N times; for each, the seconds to its banner and what the banner promises
    at once: both exporters scraped, the recording rules' history four hours back."""
    problems = []
    for i in range(1, n + 1):
        with tempfile.TemporaryDirectory() as work:
            demo = Demo(work)
            try:
                demo.wait_banner()
                scraped = demo.query("count(up == 1)")
                recorded = demo.query('count({__name__=~"aix:.+"})', time.time() - 4 * 3600)
            finally:
                left = demo.stop()
        scraped_n = int(float(scraped[0]["value"][1])) if scraped else 0
        recorded_n = int(float(recorded[0]["value"][1])) if recorded else 0
        print(f"start {i}: banner after {demo.up_seconds:.1f} s; targets up {scraped_n}; "
              f"recorded series 4 h back {recorded_n}")
        if scraped_n != 2 or not recorded_n or left:
            problems.append(f"start {i}: up {scraped_n}, recorded {recorded_n}, left behind: {left or 'nothing'}")
    print("problems: " + ("none" if not problems else "; ".join(problems)))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--every", type=float, default=5.0, help="seconds between polls (default 5)")
    ap.add_argument("--starts", type=int, metavar="N",
                    help="only start the demo N times, one after the other, and report the seconds to each banner")
    args = ap.parse_args()
    if args.starts:
        return starts(args.starts)
    with tempfile.TemporaryDirectory() as work:
        demo = Demo(work)
        left = "not stopped"
        try:
            banner = demo.wait_banner()
            soak = Soak(demo)
            soak.run(args.minutes * 60, args.every)
            problems = soak.finish(banner)
        finally:
            left = demo.stop()
    if left:
        problems.append(f"left behind after SIGTERM: {left}")
    print(f"demo up after {demo.up_seconds:.1f} s; soaked {args.minutes:g} min, {soak.polls} polls")
    print("| instance | alert | state | first seen (s after the banner) |")
    print("|---|---|---|---|")
    for (inst, name, state), t in sorted(soak.seen.items(), key=lambda kv: kv[1]):
        print(f"| {inst} | {name} | {state} | {t} |")
    for inst, (lo, hi) in sorted(soak.tape.items()):
        print(f"tape MiB/s on {inst}: {lo:.1f} .. {hi:.1f}")
    if soak.history:
        values = [v for _, v in soak.history]
        print(f"tape MiB/s on tsmsrv01 in the history's 16 MB part, {len(values)} minutes: "
              f"{min(values):.1f} .. {max(values):.1f}")
    print(f"'Overlapping blocks' warnings in Prometheus' log: {soak.overlaps}")
    print("problems: " + ("none" if not problems else ""))
    for p in problems:
        print(f"  {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
