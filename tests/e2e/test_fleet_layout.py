"""The compose 'fleet' profile run for real (issue 31), from the Debian binaries, since this
machine has no container runtime: each service's command line is read from
deploy/compose/docker-compose.yml, with only what a container gives for free replaced (its
hostnames and ports become free loopback ports, its volumes temporary directories), and
deploy/compose/fleet/vmagent.yml and the shipped alerts/aix-rules.yml are used as they are,
except for two intervals shortened so that the test takes seconds (60 s scrape and evaluation
interval: 5 s here).

Three simulated LPARs stand in for fleet/targets/aix.yml's three, with its labels: two of them
carry the same LPAR name on two frames. Checked: the two vmagent replicas share the targets
(each scraped by exactly one), every LPAR arrives in VictoriaMetrics under its own lpar_id
(name@serial), vmalert writes the recording rules and the census for every LPAR with no rule
error, and an alert vmalert fires reaches the Alertmanager of the same profile.

The 'agentless' profile too (issue 49): its two collectors run with their compose command line
over fleet/agentless/aix_exporter.yml, whose LPARs are stand-ins behind one real sshd
(tests/lib/sshd.py; the configuration's addresses and key paths put in, and command_root for
the stand-ins); the vmagents probe them through the collector each entry of
fleet/agentless/targets names."""
import json
import sys
import time
import urllib.parse
import urllib.request

import pytest
import yaml

from tests.lib import ROOT, free_port, need
from tests.lib.processes import start, stop, wait_http
from tests.lib.sshd import Sshd

COMPOSE = ROOT / "deploy" / "compose"
INTERVAL = "5s"
# the ANR0358E of the exhaustion scenario is logged at 31,740 simulated seconds (the pool runs out
# at 31,680, the server gives up a minute later): start 15 s before it
EXHAUSTION_AT = 31740 - 15
SCENARIOS = ["case-study?at=7200", "case-study?at=25000", f"exhaustion?at={EXHAUSTION_AT}"]


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def query(url, expr):
    return get_json(f"{url}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))["data"]["result"]


class Fleet:
    """The profile's services with their compose command lines; `hosts` maps a compose service
    name to its loopback address, `mounts` a container path to a host path."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.compose = yaml.safe_load((COMPOSE / "docker-compose.yml").read_text())["services"]
        self.hosts, self.procs = {}, []

    def argv(self, service, mounts):
        out = []
        for arg in self.compose[service]["command"]:
            if arg.startswith("-httpListenAddr="):    # a container's own port: a loopback one here
                continue
            for name, addr in self.hosts.items():
                arg = arg.replace(f"//{name}:{self.port_of(name)}", f"//{addr}")
            for inside, outside in mounts.items():
                arg = arg.replace(f"={inside}", f"={outside}")
            out.append(arg)
        return out

    def port_of(self, service):
        return self.compose[service]["ports"][0].split(":")[-1] if "ports" in self.compose[service] else {
            "vmagent-0": "8429", "vmagent-1": "8429", "vmalert": "8880"}[service]

    def run(self, service, binary, mounts, listen, *extra, ready="/health"):
        port = free_port()
        self.hosts[service] = f"127.0.0.1:{port}"
        log = open(self.tmp / f"{service}.log", "w")
        argv = [need(binary), *self.argv(service, mounts), listen + self.hosts[service], *extra]
        proc = start(argv, stdout=log, stderr=log)
        self.procs.append(proc)
        wait_http(f"http://127.0.0.1:{port}{ready}", timeout=60, proc=proc)
        return f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fleet")
    f = Fleet(tmp)
    exporters = []
    try:
        # the LPARs: fleet/targets/aix.yml's entries, each pointed at a simulated LPAR
        example = yaml.safe_load((COMPOSE / "fleet" / "targets" / "aix.yml").read_text())
        assert len(example) == len(SCENARIOS)
        targets = []
        for entry, spec in zip(example, SCENARIOS):
            port = free_port()
            exporters.append(start([sys.executable, "-m", "aix_exporter.cli", "--source", f"simulate:{spec}",
                                    "--web.listen-address", f"127.0.0.1:{port}"]))
            wait_http(f"http://127.0.0.1:{port}/metrics", proc=exporters[-1])
            targets.append({"targets": [f"127.0.0.1:{port}"], "labels": entry["labels"]})
        (tmp / "targets").mkdir()
        (tmp / "targets" / "aix.yml").write_text(yaml.safe_dump(targets))
        scrape = (COMPOSE / "fleet" / "vmagent.yml").read_text()
        assert "scrape_interval: 60s" in scrape and "/etc/vmagent/targets/" in scrape
        scrape = (scrape.replace("/etc/vmagent/targets/", f"{tmp / 'targets'}/")
                  .replace("scrape_interval: 60s", f"scrape_interval: {INTERVAL}").replace("scrape_timeout: 50s", "scrape_timeout: 4s"))
        scrape = scrape.replace("/etc/vmagent/agentless/", f"{tmp / 'agentless'}/")
        (tmp / "vmagent.yml").write_text(scrape)
        f.sshd = Sshd()
        f.collectors = agentless(f, tmp)

        f.vm = f.run("victoriametrics", "victoria-metrics", {"/storage": tmp / "vm"}, "-httpListenAddr=",
                     "-search.latencyOffset=0s", "-search.disableCache")
        f.am = f.run("alertmanager", "prometheus-alertmanager",
                     {"/etc/alertmanager/alertmanager.yml": COMPOSE / "alertmanager" / "alertmanager.yml",
                      "/alertmanager": tmp / "am"},
                     "--web.listen-address=", "--cluster.listen-address=", ready="/-/ready")
        f.agents = [f.run(f"vmagent-{n}", "vmagent",
                          {"/etc/vmagent/vmagent.yml": tmp / "vmagent.yml", "/vmagent-data": tmp / f"vmagent-{n}"},
                          "-httpListenAddr=", "-remoteWrite.flushInterval=1s")
                    for n in (0, 1)]
        # the evaluation interval is a flag the compose file sets: the later one wins
        f.vmalert = f.run("vmalert", "vmalert", {"/etc/vmalert/aix-rules.yml": ROOT / "alerts" / "aix-rules.yml"},
                          "-httpListenAddr=", f"-evaluationInterval={INTERVAL}", f"-datasource.queryStep={INTERVAL}",
                          "-remoteWrite.flushInterval=1s")
        f.targets = targets
        yield f
    finally:
        for p in reversed(f.procs):
            stop(p)
        for p in exporters:
            stop(p)
        if getattr(f, "sshd", None) is not None:
            f.sshd.remove()


def agentless(f, tmp):
    """The agentless profile's LPARs behind f.sshd, and its two collectors, started with their
    compose command line; the agentless targets file with the collectors' loopback addresses."""
    import shutil
    from aix_exporter.config import load as load_config
    from aix_exporter.tools import standin
    sshd = f.sshd
    replay = ROOT / "tests" / "fixtures" / "replay" / "tsm-lpar"
    shutil.copytree(replay, sshd.dir / "replay")
    standin.write(str(sshd.dir / "replay"), str(sshd.dir / "root"), load_config(None))
    for p in (sshd.dir / "root").rglob("*"):
        p.chmod(0o755)
    sshd.start()
    cfg = (COMPOSE / "fleet" / "agentless" / "aix_exporter.yml").read_text()
    for name in ("tsmsrv02", "db2prd02"):
        cfg = cfg.replace(f"ssh://aixmon@{name}.example.com", sshd.spec)
    cfg = (cfg.replace("/etc/aix_exporter/ssh/id_ed25519", str(sshd.client_key))
           .replace("/etc/aix_exporter/ssh/known_hosts", str(sshd.known_hosts)))
    (tmp / "collector.yml").write_text(cfg + f"command_root: {sshd.dir / 'root'}\n")
    urls = []
    for n in (0, 1):
        service = f.compose[f"aix-collector-{n}"]
        argv = [str(tmp / "collector.yml") if a == "/etc/aix_exporter/aix_exporter.yml" else a for a in service["command"]]
        port = free_port()
        argv[argv.index("--web.listen-address") + 1] = f"127.0.0.1:{port}"
        log = open(tmp / f"collector-{n}.log", "w")
        f.procs.append(start([sys.executable, "-m", "aix_exporter.cli", *argv], stdout=log, stderr=log))
        wait_http(f"http://127.0.0.1:{port}/metrics", proc=f.procs[-1])
        urls.append(f"127.0.0.1:{port}")
    targets = (COMPOSE / "fleet" / "agentless" / "targets" / "aix.yml").read_text()
    for n in (0, 1):
        targets = targets.replace(f"aix-collector-{n}:10990", urls[n])
    (tmp / "agentless").mkdir()
    (tmp / "agentless" / "aix.yml").write_text(targets)
    return urls


def wait_for(what, fn, timeout=90):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        got = fn()
        if got:
            return got
        last = got
        time.sleep(1)
    raise AssertionError(f"not within {timeout} s: {what} (last: {last!r})")


def test_every_service_runs_with_its_compose_command_line(fleet):
    # the argv really is the compose file's: its flags, with addresses and paths put in
    for service in ("vmagent-0", "vmagent-1", "vmalert"):
        flags = {a.split("=", 1)[0] for a in fleet.compose[service]["command"]}
        assert flags <= {a.split("=", 1)[0] for a in fleet.argv(service, {})}
    assert "-promscrape.cluster.membersCount=2" in fleet.compose["vmagent-0"]["command"]


def test_the_two_vmagents_share_the_targets_each_scraped_once(fleet):
    def active():
        out = []
        for url in fleet.agents:
            body = get_json(f"{url}/api/v1/targets")
            out.append({t["labels"]["instance"] for t in body["data"]["activeTargets"]
                        if t["health"] == "up" and t["scrapePool"] == "aix"})
        return out if sum(len(s) for s in out) == len(fleet.targets) else None
    shards = wait_for("every target up on one vmagent", active)
    everything = {t["targets"][0] for t in fleet.targets}
    assert shards[0] | shards[1] == everything and not shards[0] & shards[1]
    # and in the store: one `up` series per LPAR, never two (a target scraped by both replicas)
    ups = wait_for("up for every target", lambda: (r := query(fleet.vm, 'up{job="aix"}')) and len(r) == 3 and r)
    assert sorted(float(r["value"][1]) for r in ups) == [1.0, 1.0, 1.0]


def test_every_lpar_has_its_own_identity_even_with_one_name_on_two_frames(fleet):
    expr = 'count by (lpar_id, lpar, serial, role) (aix_exporter_build_info{job="aix"})'
    got = wait_for("lpar_id on every LPAR", lambda: (r := query(fleet.vm, expr)) and len(r) == 3 and r)
    ids = sorted(r["metric"]["lpar_id"] for r in got)
    assert ids == ["db2prd01@02-78ABC1D", "tsmsrv01@02-78ABC1D", "tsmsrv01@02-78FFE2A"]
    assert {r["metric"]["role"] for r in got} == {"tsm-server", "db2"}


def test_vmalert_records_the_rules_and_the_census_for_every_lpar(fleet):
    census = wait_for("the census for three LPARs",
                      lambda: (r := query(fleet.vm, 'aix:census_regime:code{job="aix"}')) and len(r) == 3 and r)
    code = {r["metric"]["instance"]: float(r["value"][1]) for r in census}
    inst = [t["targets"][0] for t in fleet.targets]
    assert code[inst[0]] == 0      # the case study's 4 KB hours
    assert code[inst[1]] == 2      # ...and its 16 MB hours
    # the exhaustion LPAR: its server died for want of 16 MB pages (ANR0358E), its pool free again
    assert code[inst[2]] == 5
    miss = {r["metric"]["instance"]: float(r["value"][1]) for r in query(fleet.vm, "aix:pin_lock_miss:ratio")}
    assert miss[inst[0]] == pytest.approx(0.25, abs=0.02) and miss[inst[1]] < 0.01
    groups = get_json(f"{fleet.vmalert}/api/v1/rules")["data"]["groups"]
    rules = [r for g in groups for r in g["rules"]]
    shipped = yaml.safe_load((ROOT / "alerts" / "aix-rules.yml").read_text())
    assert len(rules) == sum(len(g["rules"]) for g in shipped["groups"])
    assert [(r["name"], r["lastError"]) for r in rules if r.get("lastError")] == []


def test_an_alert_vmalert_fires_reaches_the_profiles_alertmanager(fleet):
    # the exhaustion LPAR logs ANR0358E seconds after the start: AixTsmDatabaseInitFailed (no
    # 'for') fires in vmalert and is sent to the Alertmanager
    def alerts():
        body = get_json(f"{fleet.am}/api/v2/alerts")
        return [a for a in body if a["labels"]["alertname"] == "AixTsmDatabaseInitFailed"]
    got = wait_for("AixTsmDatabaseInitFailed in Alertmanager", alerts, timeout=120)
    assert got[0]["labels"]["instance"] == fleet.targets[2]["targets"][0]
    assert got[0]["labels"]["severity"] == "critical"
    assert "ANR0358E" in got[0]["annotations"]["summary"]


def test_agentless_lpars_arrive_through_their_collector_each_probed_once(fleet):
    """Each agentless LPAR is probed by one vmagent through the collector its entry names, every
    collector of it succeeds, it carries its identity, and a collector connects only to the
    LPARs it is probed for."""
    expr = 'aix_exporter_probe_success{job="aix-agentless"}'
    got = wait_for("both agentless LPARs probed", lambda: (r := query(fleet.vm, expr)) and len(r) == 2 and r)
    assert sorted((r["metric"]["instance"], r["metric"]["lpar_id"], float(r["value"][1])) for r in got) == [
        ("db2prd02", "db2prd02@02-78FFE2A", 1.0), ("tsmsrv02", "tsmsrv02@02-78ABC1D", 1.0)]
    assert "collector" not in got[0]["metric"]
    failing = query(fleet.vm, 'aix_exporter_collector_success{job="aix-agentless"} == 0')
    assert failing == []
    pools = [{t["labels"]["instance"] for t in get_json(f"{url}/api/v1/targets")["data"]["activeTargets"]
              if t["scrapePool"] == "aix-agentless"} for url in fleet.agents]
    assert sorted(pools[0] | pools[1]) == ["db2prd02", "tsmsrv02"] and not pools[0] & pools[1]
    for n in (0, 1):   # each collector opened one connection: to its own LPAR only
        log = (fleet.tmp / f"collector-{n}.log").read_text()
        assert log.count("msg=\"ssh connected\"") == 1, log
