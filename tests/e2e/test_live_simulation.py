"""The simulated LPAR live, as a newcomer meets it: concurrent scrapes through the real HTTP
server, each a fresh collection (--collect.min-interval 0), for 90 s: several scenarios at
speed 1, 60 and 3600 (the last crosses 24 simulated hours), and the issue's own run, 45 scrapes
2 s apart at real speed. On every scrape every collector succeeds, tape
MiB/s per drive stays within what the drives can do, and counters never go back.

The simulator's shared counter cache raced under concurrent collectors (issue 25): the tape
collector failed on 39 of 45 scrapes and served up to 2,258,768 MiB/s.
"""
import functools
import re
import sys
import threading
import time
import urllib.request

from aix_exporter.simulate.model import MIB, T_MAX
from tests.lib import free_port
from tests.lib.processes import start, stop, wait_http

SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$", re.M)
COLLECTORS = {"vmstat", "memory", "vmo", "aso", "vmstat_v", "vmstat_s", "process", "ldr_cntrl", "splat", "tape",
              "tsm", "tsm_server", "tsm_checklist", "tsm_storage", "tsm_health", "errpt"}
CHECKLIST = {"tsm_checklist", "tsm_storage", "tsm_health"}
DRIVE_MAX = T_MAX * 1.03 * MIB          # the model's fastest drive: no contention, noise +3 %
RUNS = {   # spec -> what the run crosses
    "case-study?at=28800": "the issue's run: 45 scrapes 2 s apart, 90 s at real speed",
    "case-study?at=14100&speed=60": "the tuning restart (server down, then 16 MB) at speed 60",
    "exhaustion?at=31000&speed=60": "the heap growing towards exhaustion at speed 60",
    "fallback?at=600&speed=60": "Y with a pool too small at speed 60",
    "case-study?at=80000&speed=3600": "24 h and beyond at speed 3600 (90 simulated hours)",
}
LONE = "case-study?at=28800"   # scraped by one client every 2 s, as in the issue
SECONDS = 90


@functools.lru_cache(maxsize=None)
def server_down_within(spec: str) -> bool:
    """Whether the scenario's TSM server is down at some simulated time the run crosses (from
    its start to its end at its speed, a minute's slack), by the simulator's own model."""
    from aix_exporter.simulate.model import Model
    from aix_exporter.simulate.scenarios import get
    from aix_exporter.sources.simulate import parse_spec
    p = parse_spec(f"simulate:{spec}".split(":", 1)[1])
    model = Model(get(p["scenario"]), seed=p["seed"])
    end = p["at"] + (SECONDS + 60) * p["speed"]
    return any(not model.server_up(model.phase_at(t), t) for t in range(int(p["at"]), int(end) + 1, 10))


def parse(body: str) -> dict:
    out = {}
    for name, labels, value in SAMPLE.findall(body):
        out[(name, labels)] = float(value)
    return out


def test_concurrent_fresh_scrapes_of_every_scenario_stay_true():
    procs, problems, counts = {}, [], {spec: 0 for spec in RUNS}
    lock = threading.Lock()
    try:
        for spec in RUNS:
            port = free_port()
            procs[spec] = (port, start([sys.executable, "-m", "aix_exporter.cli", "--source", f"simulate:{spec}",
                                        "--web.listen-address", f"127.0.0.1:{port}",
                                        "--collect.min-interval", "0"]))
        for port, proc in procs.values():
            wait_http(f"http://127.0.0.1:{port}/metrics", proc=proc)
        t0 = time.monotonic()
        stop_at = t0 + SECONDS

        def scraper(spec, port, every):
            last = {}
            n = 0
            while t0 + n * every < stop_at - 0.5:   # scrapes due at 0, every, 2 every, ... before the end
                time.sleep(max(0.0, t0 + n * every - time.monotonic()))
                n += 1
                try:
                    body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=20).read().decode()
                except Exception as e:
                    with lock:
                        problems.append(f"{spec}: scrape failed: {e!r}")
                    continue
                m = parse(body)
                bad = []
                ok = {re.search(r'collector="([^"]+)"', k[1]).group(1): v
                      for k, v in m.items() if k[0] == "aix_exporter_collector_success"}
                # the checklist asks the TSM server (dsmadmc): while it is down the checklist's
                # collectors fail, as on AIX, and their failure stands until their next query
                # (tsm.checklist_interval_seconds); nothing else may fail
                excused = CHECKLIST if server_down_within(spec) else set()
                if set(ok) != COLLECTORS or any(v != 1 for c, v in ok.items() if c not in excused):
                    bad.append(f"collectors {sorted(c for c in COLLECTORS - excused if ok.get(c) != 1)} not successful")
                for (name, labels), v in m.items():
                    if name == "aix_tape_throughput_bytes_per_second" and not 0 <= v <= DRIVE_MAX:
                        bad.append(f"{name}{labels} = {v / MIB:.1f} MiB/s")
                    if name.endswith("_total") and name.startswith(("aix_tape_", "aix_tsm_messages")):
                        if v < last.get((name, labels), 0):
                            bad.append(f"{name}{labels} went back from {last[(name, labels)]} to {v}")
                        last[(name, labels)] = v
                with lock:
                    counts[spec] += 1
                    problems.extend(f"{spec}: {b}" for b in bad)

        threads = [threading.Thread(target=scraper, args=(LONE, procs[LONE][0], 2.0))]
        threads += [threading.Thread(target=scraper, args=(spec, port, 0.5))
                    for spec, (port, _) in procs.items() if spec != LONE for _ in range(2)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    finally:
        logs = {spec: stop(proc)[1] for spec, (_, proc) in procs.items()}
    assert problems == []
    assert counts[LONE] == 45
    for spec, n in counts.items():
        assert n >= 100 or spec == LONE, f"{spec} ({RUNS[spec]}): only {n} scrapes in {SECONDS} s"
    for spec, err in logs.items():
        assert "parse error" not in err and "Traceback" not in err, f"{spec}: {err[-2000:]}"
