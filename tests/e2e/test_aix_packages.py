"""The AIX packages (deploy/aix/build-packages.sh): the RPM inspected with rpm and installed into
a scratch root, the .pyz run in a clean virtual environment without any dependency and its
install step run against stand-in AIX commands, the SBOM validated against CycloneDX."""
import json
import os
import subprocess
import sys
import venv

import pytest

from tests.lib import ROOT, need

AIX = ROOT / "deploy" / "aix"
STANDINS = ("lssrc", "mkssys", "chssys", "rmssys", "startsrc", "stopsrc", "mkitab", "rmitab", "lsitab", "telinit", "lsuser",
            "mkuser", "chuser", "lsrole", "mkrole", "rmrole", "setkst", "lssecattr", "chown")


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    need("rpmbuild")
    out = tmp_path_factory.mktemp("dist")
    r = subprocess.run(["bash", str(AIX / "build-packages.sh"), str(out)], capture_output=True, text=True,
                       timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    version = subprocess.run([sys.executable, "-c", "import importlib.metadata as m; print(m.version('aix-exporter'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    return {"dir": out, "version": version, "rpm": out / f"aix_exporter-{version}-1.noarch.rpm",
            "pyz": out / f"aix_exporter-{version}.pyz", "sbom": out / f"aix_exporter-{version}.cdx.json",
            "said": r.stdout}


@pytest.fixture(scope="module")
def signed_dist(dist, tmp_path_factory):
    """A newer build (release 2), signed with a throw-away GnuPG key made for the test."""
    need("gpg")
    need("rpmsign")
    home = tmp_path_factory.mktemp("gnupg")
    os.chmod(home, 0o700)
    env = {**os.environ, "GNUPGHOME": str(home)}
    subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", "aix_exporter test <test@example.invalid>",
                    "rsa2048", "sign", "1d"], env=env, check=True, capture_output=True, timeout=120)
    out = tmp_path_factory.mktemp("dist2")
    r = subprocess.run(["bash", str(AIX / "build-packages.sh"), str(out)], capture_output=True, text=True, timeout=600,
                       cwd=ROOT, env={**env, "AIX_EXPORTER_RPM_RELEASE": "2",
                                      "AIX_EXPORTER_SIGNING_KEY": "test@example.invalid"})
    assert r.returncode == 0, r.stderr
    yield {"dir": out, "env": env, "said": r.stdout, "rpm": out / f"aix_exporter-{dist['version']}-2.noarch.rpm"}
    # gpg started an agent for this keyring: end it through the keyring's own socket (not by name)
    subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=env, capture_output=True, timeout=30)


def test_an_unsigned_build_says_so(dist):
    assert "unsigned (set AIX_EXPORTER_SIGNING_KEY" in dist["said"]
    assert "Signature   : (none)" in rpm("-qpi", str(dist["rpm"]))
    assert not (dist["dir"] / "SHA256SUMS.asc").exists()


def test_a_signed_build_verifies_as_the_readme_says(signed_dist, tmp_path):
    """rpm -K with the imported key, gpg --verify of SHA256SUMS.asc, sha256sum -c: all pass, and
    a changed byte in the RPM or in SHA256SUMS fails them."""
    out, env = signed_dist["dir"], signed_dist["env"]
    fpr = subprocess.run(["gpg", "--batch", "--with-colons", "--fingerprint", "test@example.invalid"], env=env,
                         capture_output=True, text=True, check=True).stdout.split("fpr:::::::::")[1].split(":")[0]
    assert f"signed with {fpr}:" in signed_dist["said"]
    db = tmp_path / "db"
    rpm("--dbpath", str(db), "--import", str(out / "RPM-GPG-KEY-aix_exporter"))
    assert rpm("--dbpath", str(db), "-K", str(signed_dist["rpm"])).strip().endswith("digests signatures OK")
    assert fpr[-16:].lower() in rpm("-qpi", str(signed_dist["rpm"]))
    ok = subprocess.run(["gpg", "--batch", "--verify", "SHA256SUMS.asc", "SHA256SUMS"], cwd=out, env=env,
                        capture_output=True, text=True)
    assert ok.returncode == 0 and "Good signature" in ok.stderr
    assert subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=out, capture_output=True).returncode == 0
    tampered = tmp_path / "SHA256SUMS"
    tampered.write_text((out / "SHA256SUMS").read_text().replace("noarch.rpm", "noarch.rpm "))
    bad = subprocess.run(["gpg", "--batch", "--verify", str(out / "SHA256SUMS.asc"), str(tampered)], env=env,
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "BAD signature" in bad.stderr
    data = bytearray(signed_dist["rpm"].read_bytes())
    data[-100] ^= 1
    broken = tmp_path / signed_dist["rpm"].name
    broken.write_bytes(bytes(data))
    r = subprocess.run(["rpm", "--dbpath", str(db), "-K", str(broken)], capture_output=True, text=True)
    assert r.returncode != 0


def version_line(dist):
    """--version of a built package: the version, the checkout's revision, the build time."""
    import re
    rev = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=ROOT).returncode != 0
    pkg = __import__("zipfile").ZipFile(dist["pyz"]).read("aix_exporter/build.json").decode()
    built = re.fullmatch(r'\{"revision": "[^"]+", "built": "(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"\}\n', pkg).group(1)
    return f"aix_exporter {dist['version']} (revision {rev}{'+changes' if dirty else ''}, built {built})"


def rpm(*args):
    r = subprocess.run([need("rpm"), *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_checksums_cover_every_artifact(dist):
    r = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=dist["dir"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    names = {line.split()[1] for line in (dist["dir"] / "SHA256SUMS").read_text().splitlines()}
    assert names == {dist["rpm"].name, dist["pyz"].name, dist["sbom"].name}


def test_rpm_files_config_and_requirements(dist):
    files = rpm("-qpl", str(dist["rpm"])).split()
    for path in ("/opt/aix_exporter/bin/aix-exporter", "/opt/aix_exporter/share/src-setup.sh", "/etc/aix_exporter.yml",
                 "/opt/aix_exporter/share/aix-exporter-ssh-wrapper",
                 "/opt/aix_exporter/lib/__main__.py", "/opt/aix_exporter/lib/aix_exporter/cli/__init__.py",
                 "/opt/aix_exporter/lib/prometheus_client/__init__.py", "/opt/aix_exporter/lib/yaml/__init__.py",
                 "/opt/aix_exporter/lib/h11/__init__.py"):
        assert path in files, path
    assert not [f for f in files if f.endswith((".so", ".pyc"))]   # pure Python: noarch for AIX
    assert not [f for f in files if "psutil" in f]                  # optional, from the AIX Toolbox
    assert rpm("-qpc", str(dist["rpm"])).split() == ["/etc/aix_exporter.yml"]
    # %config(noreplace): the file flags of the config carry RPMFILE_CONFIG (1) and RPMFILE_NOREPLACE (16)
    flags = dict(line.split() for line in rpm("-qp", "--qf", "[%{FILENAMES} %{FILEFLAGS}\n]", str(dist["rpm"])).splitlines())
    assert int(flags["/etc/aix_exporter.yml"]) & 17 == 17
    assert int(flags["/opt/aix_exporter/lib/aix_exporter/cli/__init__.py"]) & 1 == 0
    requires = rpm("-qpR", str(dist["rpm"])).splitlines()
    assert "python3 >= 3.9" in requires and not [r for r in requires if r.startswith(("python(abi)", "python3dist"))]
    assert rpm("-qp", "--qf", "%{ARCH} %{PAYLOADCOMPRESSOR}", str(dist["rpm"])) == "noarch gzip"


def test_rpm_scripts_create_restart_and_remove_the_subsystem_with_the_shared_script(dist, tmp_path):
    scripts = rpm("-qp", "--scripts", str(dist["rpm"]))
    parts = {}
    current = None
    for line in scripts.splitlines():
        if line.endswith("scriptlet (using /bin/sh):"):
            current = line.split()[0]
            parts[current] = []
        elif current:
            parts[current].append(line)
    assert set(parts) == {"postinstall", "preuninstall"}   # (no %postun: an upgrade restarts once, in %post)
    setup = "/opt/aix_exporter/share/src-setup.sh"
    assert f"/bin/sh {setup} install -x /opt/aix_exporter/bin/aix-exporter" in parts["postinstall"]
    # the scriptlets run against the packaged script (paths moved into a scratch tree) and stand-ins
    root = tmp_path / "root"
    rpm("--root", str(root), "--dbpath", str(tmp_path / "db"), "--nodeps", "--noscripts", "-i", str(dist["rpm"]))
    calls = tmp_path / "calls"
    bin_ = standins(tmp_path, calls, active=True)
    for name, arg, expected in (("preuninstall", "0", [["stopsrc", "-s", "aix_exporter"], ["rmssys", "-s", "aix_exporter"]]),
                                ("preuninstall", "1", [])):
        calls.write_text("")
        text = "\n".join(parts[name]).replace("/opt/aix_exporter", str(root / "opt" / "aix_exporter"))
        r = subprocess.run(["/bin/sh", "-c", text, name, arg], capture_output=True, text=True,
                           env={"PATH": f"{bin_}:/usr/bin:/bin", "LC_ALL": "C"}, timeout=60)
        assert r.returncode == 0, (name, arg, r.stderr)
        got = [c.split("\t") for c in calls.read_text().splitlines() if c.split("\t")[0] not in ("lssrc", "lsitab", "lsrole")]
        assert got == expected, (name, arg, got)


def test_rpm_upgrade_keeps_the_edited_config_and_the_state_file(dist, signed_dist, tmp_path):
    """rpm -U of a newer build (release 2) over an installed one: the edited configuration and
    the TSM state file (not the package's) stay, the package's files are the new ones."""
    root, db = tmp_path / "root", tmp_path / "db"
    rpm("--root", str(root), "--dbpath", str(db), "--nodeps", "--noscripts", "-i", str(dist["rpm"]))
    config = root / "etc" / "aix_exporter.yml"
    config.write_text(config.read_text() + "\n# edited by the admin\n")
    state = root / "var" / "lib" / "aix_exporter" / "tsm-state.json"
    state.parent.mkdir(parents=True)
    state.write_text('{"offset": 4096}')
    rpm("--root", str(root), "--dbpath", str(db), "--nodeps", "--noscripts", "--nosignature", "-U",
        str(signed_dist["rpm"]))
    assert rpm("--root", str(root), "--dbpath", str(db), "-q", "aix_exporter").strip() == \
        f"aix_exporter-{dist['version']}-2.noarch"
    assert config.read_text().endswith("# edited by the admin\n") and not list(root.glob("etc/*.rpmnew"))
    assert state.read_text() == '{"offset": 4096}'
    assert (root / "opt" / "aix_exporter" / "lib" / "aix_exporter" / "cli" / "__init__.py").exists()


def test_rpm_installs_into_a_scratch_root(dist, tmp_path):
    root = tmp_path / "root"
    rpm("--root", str(root), "--dbpath", str(tmp_path / "db"), "--nodeps", "--noscripts", "-i", str(dist["rpm"]))
    launcher = root / "opt" / "aix_exporter" / "bin" / "aix-exporter"
    assert os.access(launcher, os.X_OK)
    assert "exec /opt/freeware/bin/python3 -s /opt/aix_exporter/lib" in launcher.read_text()
    assert (root / "etc" / "aix_exporter.yml").read_text() == (AIX / "aix_exporter.yml").read_text()
    assert (root / "opt" / "aix_exporter" / "share" / "src-setup.sh").read_text() == (AIX / "src-setup.sh").read_text()
    # the installed lib/ runs as the launcher runs it, with the dependencies it carries only
    r = subprocess.run([sys.executable, "-s", "-I", str(root / "opt" / "aix_exporter" / "lib"), "--version"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == version_line(dist), r.stderr


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory):
    """A virtual environment with nothing installed (not even pip)."""
    d = tmp_path_factory.mktemp("bare-venv")
    venv.create(d, with_pip=False, system_site_packages=False)
    py = d / "bin" / "python"
    r = subprocess.run([str(py), "-c", "import yaml"], capture_output=True)
    assert r.returncode != 0   # really bare
    return py


def test_pyz_runs_without_any_installed_dependency(dist, bare_python):
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    r = subprocess.run([str(bare_python), str(dist["pyz"]), "--version"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == version_line(dist), r.stderr
    r = subprocess.run([str(bare_python), str(dist["pyz"]), "--source", "simulate:case-study", "--once"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert 'aix_exporter_source_info{source="simulate:case-study"} 1.0' in lines
    assert [l for l in lines if l.startswith("aix_vmstat_large_pages_free ")]
    assert not [l for l in lines if l.startswith("aix_exporter_collector_success") and l.endswith(" 0.0")]


def test_pyz_serves_basic_auth_without_the_bcrypt_module(dist, bare_python, tmp_path):
    """The offline-LPAR case: no bcrypt module at all, the bundle checks the hash itself."""
    import base64
    import http.client
    import time
    from aix_exporter import purebcrypt
    from tests.lib import free_port
    web = tmp_path / "web.yml"
    web.write_text(f"basic_auth_users:\n  prometheus: '{purebcrypt.hashpw(b's3cret', os.urandom(16), 5).decode()}'\n")
    port = free_port()
    proc = subprocess.Popen([str(bare_python), str(dist["pyz"]), "--source", "simulate:case-study",
                             "--web.listen-address", f"127.0.0.1:{port}", "--web.config.file", str(web)],
                            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)

    def status(password):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        token = base64.b64encode(f"prometheus:{password}".encode()).decode()
        conn.request("GET", "/metrics", headers={"Authorization": f"Basic {token}"})
        r = conn.getresponse()
        body = r.read().decode()
        return r.status, body

    try:
        for _ in range(300):
            assert proc.poll() is None, proc.communicate()[1]
            try:
                first = status("s3cret")
                break
            except OSError:
                time.sleep(0.1)
        assert first[0] == 200 and "aix_vmstat_large_pages_free" in first[1]
        assert status("wrong")[0] == 401
        assert status("s3cret")[0] == 200
    finally:
        os.killpg(proc.pid, 15)
        _, err = proc.communicate(timeout=30)
    assert "the bcrypt module is not installed; the built-in pure-Python verifier" in err


def standins(tmp_path, calls, active=False):
    """Stand-ins for the AIX commands: each appends its name and arguments to ``calls``.
    lssrc answers as for a defined subsystem (active or not); the other ls* find nothing."""
    bin_ = tmp_path / "aixbin"
    bin_.mkdir(exist_ok=True)
    for name in STANDINS:
        body = f'printf "%s" "{name}" >> "{calls}"; for a in "$@"; do printf "\\t%s" "$a" >> "{calls}"; done; echo >> "{calls}"\n'
        if name == "lssrc":
            state = "active" if active else "inoperative"
            body += f'echo "Subsystem Group PID Status"; echo " aix_exporter monitoring 4242 {state}"\n'
        elif name.startswith("ls"):
            body += "exit 1\n"
        (bin_ / name).write_text("#!/bin/sh\n" + body)
        (bin_ / name).chmod(0o755)
    return bin_


def test_pyz_install_sets_up_the_src_subsystem_with_stand_in_commands(dist, bare_python, tmp_path):
    calls = tmp_path / "calls"
    calls.write_text("")
    bin_ = standins(tmp_path, calls)
    prefix, config, log = tmp_path / "opt", tmp_path / "etc" / "aix_exporter.yml", tmp_path / "log" / "aix.log"
    config.parent.mkdir()
    log.parent.mkdir()
    env = {"PATH": f"{bin_}:/usr/bin:/bin", "LC_ALL": "C"}
    state = tmp_path / "aix_exporter-state"
    r = subprocess.run([str(bare_python), str(dist["pyz"]), "install", "-p", str(prefix), "-u", "root", "-c", str(config),
                        "-l", str(log), "-s", str(state), "-L", "127.0.0.1:10990"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    launcher = prefix / "bin" / "aix-exporter"
    args = config.parent / "aix_exporter.args"
    assert args.read_text() == f"--config.file={config}\n--web.listen-address=127.0.0.1:10990\n--log.file={log}\n"
    assert state.is_dir() and oct(state.stat().st_mode & 0o777) == "0o700"
    assert (prefix / "aix_exporter.pyz").read_bytes() == dist["pyz"].read_bytes()
    assert config.read_text() == (AIX / "aix_exporter.yml").read_text() and log.exists()
    got = [c.split("\t") for c in calls.read_text().splitlines()]
    ch = [c for c in got if c[0] in ("mkssys", "chssys")]
    # the stand-in lssrc answers as for a defined subsystem: changed in place, never removed
    assert ch == [["chssys", "-s", "aix_exporter", "-p", str(launcher), "-a", f"@{args}", "-u", "0",
                   "-o", str(log), "-e", str(log)]]
    assert got.index(ch[0]) < got.index(["startsrc", "-s", "aix_exporter"])
    assert ["rmssys", "-s", "aix_exporter"] not in got
    assert got.count(["startsrc", "-s", "aix_exporter"]) == 1
    # the launcher runs the installed bundle (the install ran its --check-config already)
    r = subprocess.run([str(launcher), "--version"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == version_line(dist)
    # an edited configuration and the flags set at install are never overwritten by installing again;
    # flags from a version without --log.file gain it (the log is then rotated)
    config.write_text(config.read_text() + "\n# edited\n")
    args.write_text(f"--config.file={config}\n--web.listen-address=127.0.0.1:10990\n")
    r = subprocess.run([str(bare_python), str(dist["pyz"]), "install", "-p", str(prefix), "-u", "root", "-c", str(config),
                        "-l", str(log), "-s", str(state)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and config.read_text().endswith("# edited\n")
    assert args.read_text() == f"--config.file={config}\n--web.listen-address=127.0.0.1:10990\n--log.file={log}\n"
    web = tmp_path / "web.yml"
    web.write_text("")
    r = subprocess.run([str(bare_python), str(dist["pyz"]), "install", "-p", str(prefix), "-u", "root", "-c", str(config),
                        "-l", str(log), "-s", str(state), "-W", str(web)], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert args.read_text() == (f"--config.file={config}\n--web.listen-address=127.0.0.1:10990\n"
                                f"--web.config.file={web}\n--log.file={log}\n")
    calls.write_text("")
    r = subprocess.run([str(bare_python), str(dist["pyz"]), "install", "-r"], capture_output=True, text=True, env=env,
                       timeout=60)
    assert r.returncode == 0
    assert [c.split("\t") for c in calls.read_text().splitlines() if not c.startswith("ls")] == [
        ["stopsrc", "-s", "aix_exporter"], ["rmssys", "-s", "aix_exporter"]]
    assert state.is_dir() and args.exists() and log.exists()     # -r alone keeps them
    # -P: the state directory, the flags and the logs go too; the configuration stays
    (log.parent / (log.name + ".1")).write_text("rotated\n")
    r = subprocess.run([str(bare_python), str(dist["pyz"]), "install", "-r", "-P", "-u", "root", "-c", str(config),
                        "-l", str(log), "-s", str(state)], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert not state.exists() and not args.exists() and not list(log.parent.iterdir())
    assert config.read_text().endswith("# edited\n")
    assert "rmuser" not in calls.read_text()                      # root is never removed
    r = subprocess.run([str(bare_python), str(dist["pyz"]), "install", "-r", "-P", "-n"], capture_output=True,
                       text=True, env=env, timeout=60)
    # (a dry run on a machine where install made nothing: the default state directory is not its to remove)
    assert "+ 'rmuser' '-p' 'aixexp'" in r.stdout and "+ 'rm' '-rf' '/var/lib/aix_exporter'" not in r.stdout
    assert "keeping /var/lib/aix_exporter: install did not make it (not in /etc/aix_exporter.created)" in r.stdout


def test_pyz_install_refuses_a_relative_path(dist, bare_python):
    r = subprocess.run([str(bare_python), str(dist["pyz"]), "install", "-n", "-p", "opt"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "must be an absolute path" in r.stderr


@pytest.mark.parametrize("flag", ["-p", "-c", "-l", "-s", "-W"])
def test_installers_refuse_paths_with_blanks(dist, bare_python, flag):
    r = subprocess.run([str(bare_python), str(dist["pyz"]), "install", "-n", flag, "/opt/my exporter"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "'/opt/my exporter' contains a blank: SRC and inittab would split it" in r.stderr
    r = subprocess.run(["sh", str(AIX / "src-setup.sh"), "install", "-n", "-x", "/opt/x/bin/aix-exporter",
                        "-l", "/var/log/my log"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "'/var/log/my log' contains a blank" in r.stderr


def test_sbom_lists_every_bundled_component_and_validates(dist):
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator
    text = dist["sbom"].read_text()
    assert JsonStrictValidator(SchemaVersion.V1_5).validate_str(text) is None
    bom = json.loads(text)
    assert bom["bomFormat"] == "CycloneDX" and bom["metadata"]["component"]["name"] == "aix-exporter"
    libs = {c["name"].lower(): c["version"] for c in bom["components"] if c["type"] == "library"}
    pinned = dict(line.split("==") for line in (AIX / "bundle-requirements.txt").read_text().splitlines()
                  if line and not line.startswith("#"))
    assert libs == {k.lower(): v for k, v in pinned.items()}
    files = {c["name"]: c["hashes"][0]["content"] for c in bom["components"] if c["type"] == "file"}
    import hashlib
    assert files == {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (dist["rpm"], dist["pyz"])}


def test_sbom_hashes_every_bundled_library_as_it_is_installed(dist, tmp_path):
    """Each library: the SHA-256 of the wheel it came from, and of its files as the RPM installs
    them (recomputed here from the installed tree, as an admin would)."""
    import hashlib
    import re
    bom = json.loads(dist["sbom"].read_text())
    root = tmp_path / "root"
    rpm("--root", str(root), "--dbpath", str(tmp_path / "db"), "--nodeps", "--noscripts", "-i", str(dist["rpm"]))
    lib = root / "opt" / "aix_exporter" / "lib"
    libs = [c for c in bom["components"] if c["type"] == "library"]
    assert len(libs) == 3
    for c in libs:
        assert [h["alg"] for h in c["hashes"]] == ["SHA-256"] and re.fullmatch(r"[0-9a-f]{64}", c["hashes"][0]["content"])
        (record,) = [p for p in lib.glob("*.dist-info/RECORD") if p.parent.name.lower().startswith(
            c["name"].lower().replace("-", "_") + "-")]
        lines = []
        for row in record.read_text().splitlines():
            path = row.split(",", 1)[0]
            if path and (lib / path).is_file() and not path.endswith("RECORD"):
                lines.append(f"{path} {hashlib.sha256((lib / path).read_bytes()).hexdigest()}")
        want = hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()
        assert {p["name"]: p["value"] for p in c["properties"]} == {"aix_exporter:bundled-files-sha256": want}


def test_rpm_metadata_is_complete(dist):
    info = rpm("-qpi", str(dist["rpm"]))
    assert "URL         : https://github.com/aix-exporter/aix_exporter" in info
    assert "Vendor      : aix_exporter project" in info
    assert rpm("-qp", "--changelog", str(dist["rpm"])).startswith("* Wed Nov 25 2026 aix_exporter project - 0.1.0-1")
