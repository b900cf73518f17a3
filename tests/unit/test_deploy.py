"""Deployment files: the compose stack validates with three independent tools, the AIX
installer parses and generates the right mkssys/mkitab commands, the systemd unit verifies."""
import configparser
import os
import shutil
import subprocess
import sys

import pytest
import yaml

from tests.lib import ROOT, need

COMPOSE = ROOT / "deploy" / "compose"
AIX = ROOT / "deploy" / "aix"


def test_compose_config_with_docker_compose():
    dc = need("docker-compose")
    r = subprocess.run([dc, "-f", str(COMPOSE / "docker-compose.yml"), "config", "-q"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_compose_against_the_compose_spec_schema():
    cj = need("check-jsonschema")
    r = subprocess.run([cj, "--builtin-schema", "vendor.compose-spec", str(COMPOSE / "docker-compose.yml")],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "ok -- validation done" in r.stdout, r.stdout + r.stderr


def test_compose_parses_with_the_compose_spec_package_and_mounts_exist():
    import compose_spec
    spec = compose_spec.PyCompose.from_yaml((COMPOSE / "docker-compose.yml").read_text()).to_spec()
    assert set(spec.services) == {"prometheus", "alertmanager", "grafana", "aix-exporter-demo", "victoriametrics",
                                  "vmagent-0", "vmagent-1", "vmalert", "aix-collector-0", "aix-collector-1"}
    demo = yaml.safe_load((COMPOSE / "docker-compose.yml").read_text())["services"]["aix-exporter-demo"]
    assert demo["profiles"] == ["demo"] and "simulate:case-study?at=28800" in demo["command"]
    dockerfile = (COMPOSE / "Dockerfile").read_text()
    for line in dockerfile.splitlines():   # every file the image copies exists in the build context
        if line.startswith("COPY "):
            for src in line.split()[1:-1]:
                assert (ROOT / demo["build"]["context"].replace("../..", ".") / src).exists(), src
    prom = yaml.safe_load((COMPOSE / "prometheus" / "prometheus.yml").read_text())
    assert {"job_name": "aix-demo", "static_configs": [{"targets": ["aix-exporter-demo:10990"],
                                                       "labels": {"lpar": "tsmsrv01-simulated"}}]} in prom["scrape_configs"]
    raw = yaml.safe_load((COMPOSE / "docker-compose.yml").read_text())
    for name, svc in raw["services"].items():
        for vol in svc.get("volumes", []):
            src = vol.split(":", 1)[0]
            if src.startswith("."):
                assert (COMPOSE / src).exists(), (name, src)
    assert "../../alerts/aix-rules.yml:/etc/prometheus/rules/aix-rules.yml:ro" in raw["services"]["prometheus"]["volumes"]


def test_prometheus_alertmanager_and_grafana_provisioning_configs(tmp_path):
    promtool = need("promtool")
    r = subprocess.run([promtool, "check", "config", "--syntax-only", str(COMPOSE / "prometheus" / "prometheus.yml")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    amtool = need("amtool")
    r = subprocess.run([amtool, "check-config", str(COMPOSE / "alertmanager" / "alertmanager.yml")], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    targets = yaml.safe_load((COMPOSE / "prometheus" / "targets" / "aix.yml").read_text())
    assert all(t["targets"] and all(":10990" in x for x in t["targets"]) for t in targets)
    prom = yaml.safe_load((COMPOSE / "prometheus" / "prometheus.yml").read_text())
    assert prom["scrape_configs"][0]["job_name"] == "aix"   # matches the rules' job=~"aix.*"
    ds = yaml.safe_load((COMPOSE / "grafana" / "provisioning" / "datasources" / "prometheus.yml").read_text())
    assert ds["datasources"][0]["type"] == "prometheus"
    dash = yaml.safe_load((COMPOSE / "grafana" / "provisioning" / "dashboards" / "aix.yml").read_text())
    assert dash["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards/aix"


def test_fleet_profile_shards_the_targets_and_keeps_the_identity_labels(tmp_path):
    """The 'fleet' profile: two vmagent replicas, each one shard of the same targets; vmalert
    with our rules; the scrape configuration parses (promtool, vmagent -dryRun) and its
    relabelling makes lpar_id from the LPAR name and the frame serial."""
    raw = yaml.safe_load((COMPOSE / "docker-compose.yml").read_text())["services"]
    fleet = {n for n, s in raw.items() if s.get("profiles") == ["fleet"]}
    assert fleet == {"victoriametrics", "vmagent-0", "vmagent-1", "vmalert"}
    members = sorted(next(a for a in raw[n]["command"] if a.startswith("-promscrape.cluster.memberNum="))
                     for n in ("vmagent-0", "vmagent-1"))
    assert members == ["-promscrape.cluster.memberNum=0", "-promscrape.cluster.memberNum=1"]
    assert all("-promscrape.cluster.membersCount=2" in raw[n]["command"] for n in ("vmagent-0", "vmagent-1"))
    assert "-datasource.queryStep=60s" in raw["vmalert"]["command"]
    assert "../../alerts/aix-rules.yml:/etc/vmalert/aix-rules.yml:ro" in raw["vmalert"]["volumes"]
    config = COMPOSE / "fleet" / "vmagent.yml"
    r = subprocess.run([need("promtool"), "check", "config", "--syntax-only", str(config)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    vmagent = need("vmagent")
    r = subprocess.run([vmagent, f"-promscrape.config={config}", "-dryRun"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-1500:]
    targets = yaml.safe_load((COMPOSE / "fleet" / "targets" / "aix.yml").read_text())
    ids = [f"{t['labels']['lpar']}@{t['labels']['serial']}" for t in targets]
    assert len(set(ids)) == len(ids) and len({t["labels"]["lpar"] for t in targets}) < len(ids)   # a name on two frames
    relabel = yaml.safe_load(config.read_text())["scrape_configs"][0]["relabel_configs"]
    assert relabel[0] == {"source_labels": ["lpar", "serial"], "separator": "@", "target_label": "lpar_id"}


def sh(*args):
    return subprocess.run(["sh", str(AIX / "install.sh"), *args], capture_output=True, text=True)


@pytest.mark.parametrize("script", ["install.sh", "src-setup.sh"])
def test_aix_installer_parses_with_sh_n(script):
    r = subprocess.run(["sh", "-n", str(AIX / script)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_aix_installer_generates_the_src_subsystem():
    r = sh("-n", "-u", "root", "-p", "/opt/aix_exporter", "-c", "/etc/aix_exporter.yml", "-l", "/var/log/aix_exporter/aix_exporter.log")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    mk = [l for l in lines if l.startswith("+ 'mkssys'")]
    assert mk == ["+ 'mkssys' '-s' 'aix_exporter' '-p' '/opt/aix_exporter/bin/aix-exporter' "
                  "'-a' '@/etc/aix_exporter.args' '-u' '0' "
                  "'-S' '-n' '15' '-f' '9' '-R' '-Q' '-i' '/dev/null' '-o' '/var/log/aix_exporter/aix_exporter.log' "
                  "'-e' '/var/log/aix_exporter/aix_exporter.log' '-G' 'monitoring'"]
    assert lines.index(mk[0]) < lines.index("+ 'startsrc' '-s' 'aix_exporter'")
    # the exporter's flags are kept in one file the service reads (@FILE), written at the first install
    assert ("+ write /etc/aix_exporter.args: --config.file=/etc/aix_exporter.yml --web.listen-address=:10990 "
            "--log.file=/var/log/aix_exporter/aix_exporter.log") in lines
    assert "+ '/opt/aix_exporter/bin/aix-exporter' '@/etc/aix_exporter.args' '--check-config'" in lines
    # the state directory (tsm.state_file) belongs to the service user
    assert lines.index("+ 'mkdir' '-p' '/var/lib/aix_exporter'") < lines.index("+ 'chown' 'root' '/var/lib/aix_exporter'") \
        < lines.index("+ 'chmod' '700' '/var/lib/aix_exporter'") < lines.index(mk[0])


def test_aix_installer_non_root_user_gets_a_user_and_owns_the_log():
    r = sh("-n", "-u", "aixexp")
    assert r.returncode == 0, r.stderr
    assert "+ 'mkuser' 'login=false' 'rlogin=false' 'pgrp=staff' 'home=/tmp' 'aixexp'" in r.stdout
    # the log's own directory too, so that the exporter can rotate the log (--log.file) in it
    assert "+ 'chown' 'aixexp' '/var/log/aix_exporter' '/var/log/aix_exporter/aix_exporter.log'" in r.stdout
    assert "+ 'chmod' '750' '/var/log/aix_exporter'" in r.stdout
    assert "+ 'chown' 'aixexp' '/var/lib/aix_exporter'" in r.stdout
    # the dry run shows the RBAC steps it would run on AIX, also where lssecattr does not exist
    assert ("+ 'mkrole' 'authorizations=<accessauths of /usr/bin/iostat /usr/bin/svmon /usr/bin/vmstat /usr/sbin/asoo /usr/sbin/vmo>' "
            "'dfltmsg=aix_exporter' 'aixexporter'") in r.stdout
    assert "+ 'chuser' 'roles=aixexporter' 'default_roles=aixexporter' 'aixexp'" in r.stdout


def test_aix_installer_inittab_and_remove():
    r = sh("-n", "-i")
    assert r.returncode == 0, r.stderr
    assert ("+ 'mkitab' 'aixexp:2:respawn:/opt/aix_exporter/bin/aix-exporter @/etc/aix_exporter.args "
            ">>/var/log/aix_exporter/aix_exporter.log 2>&1'") in r.stdout
    assert "mkssys" not in r.stdout
    r = sh("-n", "-r")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:3] == ["+ 'stopsrc' '-s' 'aix_exporter'", "+ 'rmssys' '-s' 'aix_exporter'", "+ 'rmitab' 'aixexp'"]


@pytest.mark.parametrize("args,message", [(["-u", "bad;user"], "bad user name"), (["-p", "relative/dir"], "must be an absolute path")])
def test_aix_installer_rejects_bad_values(args, message):
    r = sh("-n", *args)
    assert r.returncode == 2 and message in r.stderr


def test_example_config_is_valid():
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--config.file", str(AIX / "aix_exporter.yml"), "--check-config"],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "exporter")})
    assert r.returncode == 0, r.stderr


def test_systemd_unit(tmp_path):
    unit = (ROOT / "deploy" / "systemd" / "aix-exporter-demo.service").read_text()
    cp = configparser.ConfigParser(strict=False, interpolation=None)
    cp.read_string(unit)
    exec_start = cp["Service"]["ExecStart"].split()
    assert exec_start[0] == "/usr/local/bin/aix-exporter" and "simulate:case-study?at=28800" in exec_start
    assert cp["Service"]["DynamicUser"] == "yes" and cp["Install"]["WantedBy"] == "multi-user.target"
    analyze = shutil.which("systemd-analyze")
    exporter = shutil.which("aix-exporter")
    if not analyze or not exporter:
        pytest.skip("systemd-analyze or an installed aix-exporter is missing")
    local = tmp_path / "aix-exporter-demo.service"
    local.write_text(unit.replace("/usr/local/bin/aix-exporter", exporter))
    r = subprocess.run([analyze, "verify", str(local)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def test_src_setup_exit_codes():
    """The shared SRC script: 2 with the usage for an unknown action or a missing launcher,
    0 for a dry run of each action."""
    def run(*args):
        return subprocess.run(["sh", str(AIX / "src-setup.sh"), *args], capture_output=True, text=True)
    assert run().returncode == 2 and "src-setup.sh install -x LAUNCHER" in run().stderr
    assert run("upgrade").returncode == 2
    r = run("install", "-n")
    assert r.returncode == 2 and "needs -x LAUNCHER" in r.stderr
    assert run("install", "-n", "-x", "bin/aix-exporter").returncode == 2
    for action in (["install", "-x", "/opt/aix_exporter/bin/aix-exporter"], ["restart"], ["remove"]):
        r = run(*action, "-n")
        assert r.returncode == 0, (action, r.stderr)


@pytest.mark.parametrize("args, message", [
    (["-s", "/var/lib"], "-s STATEDIR '/var/lib' is a system directory"),
    (["-s", "/"], "-s STATEDIR '/' is a system directory"),
    (["-s", "/tmp/"], "-s STATEDIR '/tmp/' is a system directory"),
    (["-s", "/srv/state"], "-s STATEDIR '/srv/state' is not named for the exporter"),
    (["-s", "/var/lib/aix_exporter/../.."], "'/var/lib/aix_exporter/../..' is not a normalised path"),
    (["-s", "/var/lib//aix_exporter"], "'/var/lib//aix_exporter' is not a normalised path"),
    (["-l", "/etc/aix_exporter/../x.log"], "'/etc/aix_exporter/../x.log' is not a normalised path"),
    (["-l", "/var/log/aix_exporter/./x.log"], "'/var/log/aix_exporter/./x.log' is not a normalised path"),
    (["-L", ":10990;reboot"], "':10990;reboot' contains a shell metacharacter"),
    (["-c", "/etc/aix_exporter$(id).yml"], "contains a shell metacharacter"),
    (["-W", "/etc/web.yml`id`"], "contains a shell metacharacter"),
    (["-x", "/opt/aix_exporter/bin/aix-exporter>/etc/passwd"], "contains a shell metacharacter"),
])
@pytest.mark.parametrize("action", ["install", "remove"])
def test_src_setup_refuses_every_path_that_could_touch_a_system_directory(args, message, action):
    """Hostile round 3 (issue 45): each refused before anything runs, in one line, the dry run too."""
    base = ["-x", "/opt/aix_exporter/bin/aix-exporter"] if action == "install" else ["-P"]
    r = subprocess.run(["sh", str(AIX / "src-setup.sh"), action, "-n", *base, *args], capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == "", r.stdout
    assert r.stderr.startswith("src-setup.sh: ") and message in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_remove_p_deletes_only_what_install_made(tmp_path):
    """install records the directories it makes (CONFIG.created); remove -P deletes those and
    keeps a directory it did not make, even one named for the exporter."""
    made, kept = tmp_path / "aix_exporter_state", tmp_path / "aix_exporter_old"
    kept.mkdir()
    config = tmp_path / "aix_exporter.yml"
    (tmp_path / "aix_exporter.created").write_text(f"{made}\n")
    for statedir, verb in ((made, "+ 'rm' '-rf' '" + str(made) + "'"), (kept, f"keeping {kept}: install did not make it")):
        r = subprocess.run(["sh", str(AIX / "src-setup.sh"), "remove", "-n", "-P", "-c", str(config), "-s", str(statedir),
                            "-l", str(tmp_path / "aix_exporter.log")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert verb in r.stdout, r.stdout
        assert "'rm' '-rf'" not in r.stdout or statedir == made


def test_install_sh_refuses_a_system_prefix_and_metacharacters():
    for args, message in ((["-p", "/opt"], "-p PREFIX '/opt' is a system directory"),
                          (["-p", "/opt/aix_exporter;rm"], "contains a shell metacharacter"),
                          (["-l", "/var/log/../x.log"], "is not a normalised path")):
        r = sh("-n", *args)
        assert r.returncode == 2 and message in r.stderr, r.stderr
