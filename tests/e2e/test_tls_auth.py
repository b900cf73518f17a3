"""TLS and basic auth from a web config file (exporter-toolkit format): accepted and rejected clients."""
import base64
import http.client
import ssl
import subprocess
import sys

import bcrypt
import pytest

from tests.lib import FIXTURES, free_port
from tests.lib.processes import start, stop

REPLAY = FIXTURES / "replay" / "tsm-lpar"


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    d = tmp_path_factory.mktemp("pki")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
            "-subj", "/CN=test-ca", cwd=d)
    (d / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    (d / "client.cnf").write_text("extendedKeyUsage=clientAuth\n")
    for name, ext in (("server", "san.cnf"), ("client", "client.cnf")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
                "-subj", f"/CN={name}", cwd=d)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", f"{name}.crt", "-days", "2", "-extfile", ext, cwd=d)
    return d


def serve(tmp_path, web_yaml):
    cfg = tmp_path / "web.yml"
    cfg.write_text(web_yaml)
    port = free_port()
    proc = start([sys.executable, "-m", "aix_exporter.cli", "--source", f"replay:{REPLAY}",
                  "--web.listen-address", f"127.0.0.1:{port}", "--web.config.file", str(cfg)])
    return port, proc


def get(port, ctx=None, auth=None):
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10) if ctx else \
        http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {}
    if auth:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
    conn.request("GET", "/metrics", headers=headers)
    r = conn.getresponse()
    return r.status, r.read().decode(errors="replace"), dict(r.getheaders())


def client_ctx(pki, cert=False):
    ctx = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    if cert:
        ctx.load_cert_chain(str(pki / "client.crt"), str(pki / "client.key"))
    return ctx


def wait_ready(port, proc, ctx, auth=None):
    import time
    for _ in range(100):
        if proc.poll() is not None:
            raise AssertionError(proc.stderr.read())
        try:
            get(port, ctx, auth)
            return
        except (OSError, ssl.SSLError):
            time.sleep(0.1)
    raise AssertionError("not ready")


def test_tls_with_basic_auth(pki, tmp_path):
    hashed = bcrypt.hashpw(b"s3cret", bcrypt.gensalt(rounds=4)).decode()
    port, proc = serve(tmp_path, f"tls_server_config:\n  cert_file: {pki}/server.crt\n  key_file: {pki}/server.key\n"
                                 f"basic_auth_users:\n  prometheus: '{hashed}'\n")
    try:
        ctx = client_ctx(pki)
        wait_ready(port, proc, ctx, ("prometheus", "s3cret"))
        status, body, _ = get(port, ctx, ("prometheus", "s3cret"))
        assert status == 200 and "aix_exporter_build_info" in body
        status, _, headers = get(port, ctx, ("prometheus", "wrong"))
        assert status == 401 and headers["WWW-Authenticate"] == 'Basic realm="aix_exporter"'
        assert get(port, ctx)[0] == 401
        assert get(port, ctx, ("nobody", "s3cret"))[0] == 401
        with pytest.raises((http.client.HTTPException, ConnectionError, OSError)):
            get(port)                                    # plain HTTP to the TLS port
        untrusting = ssl.create_default_context()        # a client that does not trust our CA
        with pytest.raises(ssl.SSLError):
            get(port, untrusting, ("prometheus", "s3cret"))
    finally:
        stop(proc)


def test_tls_client_certificate_required(pki, tmp_path):
    port, proc = serve(tmp_path, f"tls_server_config:\n  cert_file: {pki}/server.crt\n  key_file: {pki}/server.key\n"
                                 f"  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: {pki}/ca.crt\n")
    try:
        wait_ready(port, proc, client_ctx(pki, cert=True))
        status, body, _ = get(port, client_ctx(pki, cert=True))
        assert status == 200 and "aix_vmstat_cpu_ratio" in body
        with pytest.raises((ssl.SSLError, ConnectionError, OSError)):
            get(port, client_ctx(pki, cert=False))
    finally:
        stop(proc)


@pytest.mark.parametrize("text,message", [
    ("tls_server_config:\n  cert_file: /nope.crt\n  key_file: /nope.key\n", "cert_file: /nope.crt does not exist"),
    ("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Maybe\n", "client_auth_type"),
    ("basic_auth_users:\n  bob: plaintext\n", "expected a bcrypt hash"),
    ("listen: 1\n", "unknown key"),
    ("http_server_config:\n  http2: false\n", "http_server_config not supported here"),
    ("http_server_config:\n  headers:\n    X-Frame-Options: deny\n", "http_server_config not supported here"),
    ("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_typ: RequireAndVerifyClientCert\n",
     "unknown key(s) client_auth_typ"),
    ("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAnyClientCert\n",
     "verifies every client certificate"),
    ("basic_auth_users:\n  bob: '$2b$10$short'\n", "malformed bcrypt hash"),
    ("basic_auth_users: [bob]\n", "expected a mapping"),
    ("tls_server_config: [a, b]\n", "expected a mapping"),
    ("tls_server_config:\n  cert_file: [a]\n  key_file: b\n", "web configuration"),
])
def test_bad_web_config_is_rejected_at_start(tmp_path, text, message):
    cfg = tmp_path / "web.yml"
    cfg.write_text(text)
    r = subprocess.run([sys.executable, "-m", "aix_exporter.cli", "--web.config.file", str(cfg), "--check-config"],
                       capture_output=True, text=True, env=__import__("tests.lib.processes", fromlist=["env"]).env())
    assert r.returncode == 1 and message in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1   # one line, whatever is wrong


def test_certificate_is_reloaded_when_its_files_change(pki, tmp_path):
    import shutil
    from aix_exporter import webconfig
    for f in ("server.crt", "server.key", "client.crt", "client.key"):
        shutil.copy(pki / f, tmp_path / f)
    cfg = tmp_path / "web.yml"
    cfg.write_text("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n")
    wc = webconfig.load(str(cfg))
    assert wc.reload_if_changed() is False                       # nothing changed yet
    shutil.copy(tmp_path / "client.crt", tmp_path / "server.crt")   # a renewed certificate
    shutil.copy(tmp_path / "client.key", tmp_path / "server.key")
    assert wc.reload_if_changed() is True
    assert wc.reload_if_changed() is False
