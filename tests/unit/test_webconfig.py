"""The web configuration's security defaults and limits, each asserted with its value
(webconfig.py; the real TLS and basic-auth clients are tests/e2e/test_tls_auth.py)."""
import base64
import re
import ssl
import subprocess

import pytest

from aix_exporter import purebcrypt, webconfig
from aix_exporter.config import ConfigError

@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    d = tmp_path_factory.mktemp("pki")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
                    "server.crt", "-days", "2", "-subj", "/CN=127.0.0.1"], cwd=d, check=True, capture_output=True)
    return d


def load(tmp_path, text):
    p = tmp_path / "web.yml"
    p.write_text(text)
    return webconfig.load(str(p))


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def tls_yaml(pki, extra=""):
    return f"tls_server_config:\n  cert_file: {pki}/server.crt\n  key_file: {pki}/server.key\n{extra}"


def test_without_a_file_nothing_is_required():
    wc = webconfig.load(None)
    assert wc.ssl_context is None and wc.users == {}
    assert wc.authorized(None) is True and wc.known(None) is True


def test_tls_defaults_to_tls_1_2_at_least_and_no_client_certificate(pki, tmp_path):
    wc = load(tmp_path, tls_yaml(pki))
    assert wc.ssl_context.minimum_version == ssl.TLSVersion.TLSv1_2
    assert wc.ssl_context.verify_mode == ssl.CERT_NONE
    assert wc.cert_files == (f"{pki}/server.crt", f"{pki}/server.key")


@pytest.mark.parametrize("name, version", [("TLS10", ssl.TLSVersion.TLSv1), ("TLS11", ssl.TLSVersion.TLSv1_1),
                                           ("TLS12", ssl.TLSVersion.TLSv1_2), ("TLS13", ssl.TLSVersion.TLSv1_3)])
def test_each_min_version_maps_to_its_own_protocol(pki, tmp_path, name, version):
    assert load(tmp_path, tls_yaml(pki, f"  min_version: {name}\n")).ssl_context.minimum_version == version


@pytest.mark.parametrize("auth, mode", [("NoClientCert", ssl.CERT_NONE), ("VerifyClientCertIfGiven", ssl.CERT_OPTIONAL),
                                        ("RequireAndVerifyClientCert", ssl.CERT_REQUIRED)])
def test_each_client_auth_type_maps_to_its_verify_mode(pki, tmp_path, auth, mode):
    extra = f"  client_auth_type: {auth}\n" + (f"  client_ca_file: {pki}/server.crt\n" if auth != "NoClientCert" else "")
    assert load(tmp_path, tls_yaml(pki, extra)).ssl_context.verify_mode == mode


@pytest.mark.parametrize("extra, message", [
    ("  client_auth_type: RequireAnyClientCert\n", "client_auth_type RequireAnyClientCert: Python's TLS verifies every "
                                                  "client certificate it accepts; use RequireAndVerifyClientCert with "
                                                  "client_ca_file"),
    ("  client_auth_type: RequestClientCert\n", "client_auth_type RequestClientCert: Python's TLS verifies every "
                                               "client certificate it accepts; use RequireAndVerifyClientCert with "
                                               "client_ca_file"),
    ("  client_auth_type: Sometimes\n", "client_auth_type 'Sometimes' is not one of NoClientCert, "
                                       "VerifyClientCertIfGiven, RequireAndVerifyClientCert"),
    ("  client_auth_type: RequireAndVerifyClientCert\n", "client_auth_type RequireAndVerifyClientCert needs client_ca_file"),
    ("  client_auth_type: VerifyClientCertIfGiven\n", "client_auth_type VerifyClientCertIfGiven needs client_ca_file"),
    ("  min_version: TLS14\n", "min_version 'TLS14' is not one of TLS10, TLS11, TLS12, TLS13"),
    ("  cipher_suites: [TLS_AES_128_GCM_SHA256]\n", "tls_server_config: cipher_suites not supported here"),
    # exporter-toolkit's other keys: known, and refused by name (not as typos)
    ("  max_version: TLS13\n", "tls_server_config: max_version not supported here"),
    ("  prefer_server_cipher_suites: true\n", "tls_server_config: prefer_server_cipher_suites not supported here"),
    ("  curve_preferences: [X25519]\n", "tls_server_config: curve_preferences not supported here"),
    ("  client_allowed_sans: [a]\n", "tls_server_config: client_allowed_sans not supported here"),
    ("  ciphers: x\n", "tls_server_config: unknown key(s) ciphers; known: cert_file, client_auth_type, "
                      "client_ca_file, key_file, min_version"),
])
def test_weaker_or_unknown_tls_settings_are_refused_by_name(pki, tmp_path, extra, message):
    with pytest.raises(ConfigError) as e:
        load(tmp_path, tls_yaml(pki, extra))
    assert str(e.value) == f"{tmp_path / 'web.yml'}: {message}"


@pytest.mark.parametrize("text, message", [
    ("http_server_config:\n  http2: true\n", "http_server_config not supported here (the exporter serves HTTP/1.1 "
                                              "only, with no custom headers); remove it"),
    ("tls_server_config:\n  cert_file: a.crt\n", "tls_server_config needs cert_file and key_file"),
    ("basic_auth_users:\n  admin: secret\n", "basic_auth_users.admin: expected a bcrypt hash"),
    ("basic_auth_users:\n  admin: $2b$04$short\n", "basic_auth_users.admin: malformed bcrypt hash: not a bcrypt "
                                                  "hash ($2a$, $2b$ or $2y$, two-digit cost, 53 characters)"),
    ("basic_auth_users: [admin]\n", "basic_auth_users: expected a mapping of user to bcrypt hash"),
    ("listen: 1\n", "unknown key(s) listen"),
])
def test_a_wrong_file_is_one_clear_error(tmp_path, text, message):
    with pytest.raises(ConfigError) as e:
        load(tmp_path, text)
    assert str(e.value) == f"{tmp_path / 'web.yml'}: {message}"


def test_the_limits_are_what_their_comments_say():
    assert webconfig.MAX_PASSWORD_BYTES == 72     # what bcrypt reads; longer is refused
    assert webconfig.MAX_GOOD_CREDENTIALS == 64
    assert webconfig.MAX_BAD_CREDENTIALS == 1000


@pytest.fixture
def users(tmp_path):
    hashed = purebcrypt.hashpw(b"secret", b"0123456789abcdef", 4)   # cost 4: fast, same rules
    return load(tmp_path, f"basic_auth_users:\n  admin: '{hashed.decode()}'\n")


def test_only_the_right_user_and_password_pass(users):
    assert users.authorized(basic("admin", "secret")) is True
    assert users.authorized(basic("admin", "Secret")) is False
    assert users.authorized(basic("nobody", "secret")) is False        # checked against the dummy hash
    assert users.authorized("Bearer abc") is False
    assert users.authorized(None) is False
    assert users.authorized("Basic %%%") is False


def test_a_password_of_73_bytes_is_refused_before_bcrypt_and_72_is_checked(users, monkeypatch):
    calls = []
    real = users.checkpw
    users.checkpw = lambda s, h: calls.append(len(s)) or real(s, h)
    assert users.authorized(basic("admin", "x" * 73)) is False
    assert users.known(basic("admin", "x" * 73)) is False
    assert calls == []
    assert users.authorized(basic("admin", "x" * 72)) is False
    assert calls == [72]


def test_answers_are_remembered_right_apart_from_wrong(users):
    assert users.known(basic("admin", "secret")) is None      # only bcrypt can tell yet
    assert users.authorized(basic("admin", "secret")) is True
    assert users.known(basic("admin", "secret")) is True
    assert users.authorized(basic("admin", "wrong")) is False
    assert users.known(basic("admin", "wrong")) is False
    assert len(users._good) == 1 and len(users._bad) == 1


def test_wrong_answers_are_bounded_and_the_oldest_forgotten_first(users, monkeypatch):
    monkeypatch.setattr(webconfig, "MAX_BAD_CREDENTIALS", 3)
    users.checkpw = lambda s, h: False
    for k in range(4):
        users.authorized(basic("admin", f"guess{k}"))
    assert len(users._bad) == 3
    assert users.known(basic("admin", "guess0")) is None          # forgotten, the oldest
    assert users.known(basic("admin", "guess3")) is False


def test_right_answers_are_bounded_and_a_flood_of_wrong_ones_keeps_them(users, monkeypatch):
    monkeypatch.setattr(webconfig, "MAX_GOOD_CREDENTIALS", 2)
    monkeypatch.setattr(webconfig, "MAX_BAD_CREDENTIALS", 2)
    users.checkpw = lambda s, h: s.startswith(b"ok")
    users.users["other"] = users.users["admin"]
    assert users.authorized(basic("admin", "ok1")) and users.authorized(basic("other", "ok2"))
    for k in range(5):
        users.authorized(basic("admin", f"bad{k}"))
    assert users.known(basic("admin", "ok1")) is True and users.known(basic("other", "ok2")) is True
    assert users.authorized(basic("admin", "ok3")) is True                # a third right one: the set starts again
    assert len(users._good) == 1


def test_the_compiled_bcrypt_is_used_when_installed_else_the_built_in_one(monkeypatch):
    import sys
    import types
    fake = types.ModuleType("bcrypt")
    fake.checkpw = lambda secret, hashed: True
    monkeypatch.setitem(sys.modules, "bcrypt", fake)
    assert webconfig._verifier() == ("bcrypt", fake.checkpw)
    monkeypatch.setitem(sys.modules, "bcrypt", None)      # not installed: import fails
    assert webconfig._verifier() == ("built-in (pure Python, slow: install the bcrypt module for speed)",
                                     purebcrypt.checkpw)


def test_a_wrong_password_stays_wrong_and_a_right_one_right_when_asked_again(users):
    for _ in range(2):
        assert users.authorized(basic("admin", "wrong")) is False
        assert users.authorized(basic("admin", "secret")) is True


def test_credentials_that_are_not_clean_base64_are_refused_not_repaired(users):
    good = base64.b64encode(b"admin:secret").decode()
    assert users.authorized("Basic " + good) is True
    assert users.authorized("Basic " + good[:4] + "!" + good[4:]) is False     # a stray byte: refused
    assert users.authorized("basic " + good) is True                            # the scheme's case does not matter


def test_a_hash_the_verifier_cannot_read_refuses_and_unknown_users_meet_a_real_dummy_hash(users):
    seen = []

    def raising(secret, hashed):
        seen.append(hashed)
        raise ValueError("invalid salt")
    users.checkpw = raising
    assert users.authorized(basic("admin", "other")) is False
    # an unknown user is checked against a dummy hash of the same cost, so it takes as long
    users.checkpw = lambda secret, hashed: seen.append(hashed) or False
    assert users.authorized(basic("nobody", "x")) is False
    assert seen[-1] == users.users["admin"] == users.dummy                  # the configured hash: the same cost
    assert purebcrypt.parse(webconfig._DUMMY_HASH)[0] == 10           # without users: a real bcrypt hash, cost 10


def test_defaults_and_a_config_built_without_a_verifier():
    wc = webconfig.WebConfig()
    assert (wc.ssl_context, wc.users, wc.verifier, wc.checkpw, wc.cert_files, wc._mtimes) == (None, {}, "", None, (), ())
    assert wc.reload_if_changed() is False
    hashed = purebcrypt.hashpw(b"pw", b"0123456789abcdef", 4)
    direct = webconfig.WebConfig(users={"u": hashed})                  # no checkpw: the module's own is used
    assert direct.authorized(basic("u", "pw")) is True


def test_the_certificate_is_loaded_again_only_when_a_file_changes(pki, tmp_path):
    import os
    wc = load(tmp_path, tls_yaml(pki))
    assert wc.reload_if_changed() is False
    st = os.stat(pki / "server.crt")
    os.utime(pki / "server.crt", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert wc.reload_if_changed() is True
    assert wc.reload_if_changed() is False
    no_files = webconfig.WebConfig(ssl_context=wc.ssl_context)
    assert no_files.reload_if_changed() is False


def test_each_refusal_of_the_file_itself_is_written_out_whole(pki, tmp_path):
    p = tmp_path / "web.yml"
    cases = [
        ("a: [1, 2\n", f"{p}: not valid YAML: while parsing a flow sequence"),
        ("- a\n", f"{p}: expected a mapping"),
        ("zeta: 1\nalpha: 2\n", f"{p}: unknown key(s) alpha, zeta"),
        ("tls_server_config: [a]\n", f"{p}: tls_server_config: expected a mapping"),
        (tls_yaml(pki, "  b: 1\n  a: 2\n"), f"{p}: tls_server_config: unknown key(s) a, b; known: cert_file, "
                                            "client_auth_type, client_ca_file, key_file, min_version"),
        (tls_yaml(pki, "  max_version: TLS13\n  cipher_suites: []\n"),
         f"{p}: tls_server_config: cipher_suites, max_version not supported here"),
        (f"tls_server_config:\n  cert_file: {pki}/server.crt\n  key_file: {pki}/none.key\n",
         f"{p}: tls_server_config.key_file: {pki}/none.key does not exist"),
        (tls_yaml(pki, f"  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: {pki}/none.crt\n"),
         f"{p}: tls_server_config.client_ca_file: {pki}/none.crt does not exist"),
        (f"tls_server_config:\n  cert_file: {pki}/server.key\n  key_file: {pki}/server.key\n",
         re.compile(rf"{re.escape(str(p))}: cannot load TLS files: \[SSL\] PEM lib \(_ssl\.c:\d+\)")),
        ("basic_auth_users:\n  ? [a, b]\n  : x\n", None),
    ]
    for text, message in cases:
        p.write_text(text)
        with pytest.raises(ConfigError) as e:
            webconfig.load(str(p))
        if message is None:        # a key YAML can read but Python cannot hash: one line, not a traceback
            assert str(e.value).startswith(f"{p}: ") and "\n" not in str(e.value)
        elif isinstance(message, re.Pattern):   # (OpenSSL's message names its source line)
            assert message.fullmatch(str(e.value)), str(e.value)
        else:
            assert str(e.value) == message, text
    with pytest.raises(ConfigError) as e:
        webconfig.load(str(tmp_path / "none.yml"))
    assert str(e.value) == f"{tmp_path / 'none.yml'}: No such file or directory"


def test_a_structure_python_cannot_use_is_a_malformed_configuration(tmp_path):
    p = tmp_path / "web.yml"
    p.write_text("basic_auth_users:\n  admin: 7\n")
    with pytest.raises(ConfigError) as e:
        webconfig.load(str(p))
    assert str(e.value) == f"{p}: basic_auth_users.admin: expected a bcrypt hash"
    p.write_text("tls_server_config:\n  cert_file: 7\n  key_file: 8\n")
    with pytest.raises(ConfigError) as e:
        webconfig.load(str(p))
    assert str(e.value).startswith(f"{p}: malformed web configuration: ")


@pytest.mark.parametrize("prefix", ["$2a$", "$2b$", "$2y$"])
def test_each_bcrypt_prefix_is_taken(tmp_path, prefix):
    """htpasswd -B writes $2y$, Python's bcrypt $2b$, older tools $2a$: each is the same bcrypt."""
    hashed = prefix + "05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
    wc = load(tmp_path, f"basic_auth_users:\n  prometheus: '{hashed}'\n")
    assert wc.users == {"prometheus": hashed.encode()}


# ---------------------------------------------------------------- hostile round 3 (issue 45): TLS cannot be lost silently

def test_a_duplicate_key_anywhere_is_refused_with_its_line(tmp_path, pki):
    with pytest.raises(ConfigError) as e:
        load(tmp_path, tls_yaml(pki) + "tls_server_config:\n")      # the second, empty, would replace the first
    assert str(e.value) == f"{tmp_path / 'web.yml'}: not valid YAML: duplicate key 'tls_server_config'"
    with pytest.raises(ConfigError) as e:
        load(tmp_path, tls_yaml(pki, "  cert_file: other.crt\n"))
    assert str(e.value) == f"{tmp_path / 'web.yml'}: not valid YAML: duplicate key 'cert_file'"
    with pytest.raises(ConfigError, match="duplicate key 'p'"):
        load(tmp_path, "basic_auth_users:\n  p: $2b$04$x\n  p: $2b$04$y\n")


@pytest.mark.parametrize("text", ["tls_server_config: {}\n", "tls_server_config:\n", "tls_server_config: ~\n"])
def test_an_empty_tls_server_config_is_refused_not_plain_http(tmp_path, text):
    with pytest.raises(ConfigError) as e:
        load(tmp_path, text)
    assert str(e.value) == (f"{tmp_path / 'web.yml'}: tls_server_config is empty: give cert_file and key_file, or "
                            "remove the key to serve plain HTTP")


def test_a_fifo_a_directory_and_a_large_file_are_refused_without_reading_them(tmp_path):
    import os
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, why in ((fifo, "not a regular file (a FIFO, device or directory); not a web configuration"),
                      (tmp_path, "not a regular file (a FIFO, device or directory); not a web configuration")):
        with pytest.raises(ConfigError) as e:
            webconfig.load(str(path))
        assert str(e.value) == f"{path}: {why}"
    big = tmp_path / "big.yml"
    big.write_text("#" * webconfig.MAX_WEB_CONFIG_BYTES + "\n")
    with pytest.raises(ConfigError) as e:
        webconfig.load(str(big))
    assert str(e.value) == f"{big}: larger than 1048576 bytes; not a web configuration"
    big.write_text("#" * (webconfig.MAX_WEB_CONFIG_BYTES - 1) + "\n")     # exactly the limit: read
    assert webconfig.load(str(big)).users == {}


def test_aliases_are_refused_in_the_web_configuration_too(tmp_path):
    with pytest.raises(ConfigError, match="aliases"):
        load(tmp_path, "basic_auth_users: &u\n  p: x\nother: *u\n")


# purebcrypt.hashpw(b"x", b"0123456789abcdef", 12), made once (16 s of pure-Python CPU; the
# compiled bcrypt checks it): the test is about the cost the configuration names, not the hashing
COST_12 = "$2b$12$KBCwKxOzLha2MUDgW0PjXeR1M6SvEOjOdWuGd5fCgTjLPnfdE6X9a"


def test_the_cost_12_hash_is_the_hash_of_its_password():
    bcrypt = pytest.importorskip("bcrypt")
    assert bcrypt.checkpw(b"x", COST_12.encode())


@pytest.mark.parametrize("cost, warned", [(4, False), (12, False), (13, True)])
def test_a_cost_above_12_is_warned_with_the_time_a_check_takes(tmp_path, cost, warned):
    hashed = COST_12 if cost == 12 else purebcrypt.hashpw(b"x", b"0123456789abcdef", cost).decode() if cost < 13 else \
        "$2b$13$" + purebcrypt.hashpw(b"x", b"0123456789abcdef", 4).decode()[7:]
    wc = load(tmp_path, f"basic_auth_users:\n  p: {hashed}\n")
    assert bool(wc.warnings) is warned
    if warned:
        (w,) = wc.warnings
        assert re.fullmatch(rf"{re.escape(str(tmp_path / 'web.yml'))}: basic_auth_users\.p: bcrypt cost 13: one check "
                            r"takes about [\d.e+-]+ s here with \S+ \(each cost step doubles it; 10 is usual\)", w), w


def test_costs_outside_4_to_31_are_refused(tmp_path):
    good = purebcrypt.hashpw(b"x", b"0123456789abcdef", 4).decode()
    for cost in ("03", "32"):
        with pytest.raises(ConfigError, match=f"bcrypt cost {int(cost)} is outside 4..31"):
            load(tmp_path, f"basic_auth_users:\n  p: $2b${cost}${good[7:]}\n")


def test_an_unknown_user_is_checked_against_a_configured_hash_of_the_highest_cost(tmp_path):
    low = purebcrypt.hashpw(b"a", b"0123456789abcdef", 4).decode()
    high = purebcrypt.hashpw(b"b", b"fedcba9876543210", 5).decode()
    wc = load(tmp_path, f"basic_auth_users:\n  low: {low}\n  high: {high}\n")
    assert wc.dummy == high.encode()
    checked = []
    wc.checkpw = lambda password, hashed: checked.append(hashed) or True
    assert wc.authorized(basic("nobody", "b")) is False          # the check passes on the dummy: still refused
    assert checked == [high.encode()]
