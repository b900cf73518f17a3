"""--web.config.file: TLS and basic auth in the Prometheus exporter-toolkit format.

    tls_server_config:
      cert_file: server.crt          # relative paths are relative to this file
      key_file: server.key
      client_auth_type: RequireAndVerifyClientCert   # or NoClientCert (default), VerifyClientCertIfGiven
      client_ca_file: ca.crt
      min_version: TLS12             # TLS10 TLS11 TLS12 TLS13
    basic_auth_users:
      prometheus: $2y$10$...         # bcrypt hash (htpasswd -nBC 10 "" | tr -d ':\\n')

Basic auth uses the compiled `bcrypt` module when it is installed (pip install
'aix-exporter[auth]'). Where it cannot be (an offline AIX LPAR: there is no bcrypt wheel for
AIX), the built-in pure-Python verifier (``purebcrypt``) checks the same hashes, slowly: a
cost-10 hash takes seconds, once per user and password, since answers are kept.

As exporter-toolkit does it: unknown keys are rejected (a typo such as ``client_auth_typ``
must not turn client certificates off), every hash is checked at start, a password over
bcrypt's 72 bytes is refused (401), an unknown user is checked against a dummy hash so it
takes as long as a wrong password, results are cached and bcrypt runs one check at a time.
``RequestClientCert`` and ``RequireAnyClientCert`` (a client certificate requested or
required but not verified) cannot be had with Python's TLS, which verifies every certificate
it accepts: they are refused at start with that reason. The certificate and key are read
again when their files change.
"""
from __future__ import annotations

import base64
import hashlib
import os
import ssl
import threading
from dataclasses import dataclass, field
from typing import Callable, Optional

import yaml

from . import purebcrypt
from .config import ConfigError, load_yaml, read_config_text


def _verifier():
    """(name, checkpw) of the bcrypt implementation to use: the compiled module if present."""
    try:
        import bcrypt
    except ImportError:
        return "built-in (pure Python, slow: install the bcrypt module for speed)", purebcrypt.checkpw
    return "bcrypt", bcrypt.checkpw

_CLIENT_AUTH = {
    "NoClientCert": ssl.CERT_NONE,
    "VerifyClientCertIfGiven": ssl.CERT_OPTIONAL,
    "RequireAndVerifyClientCert": ssl.CERT_REQUIRED,
}
_UNVERIFIED = ("RequestClientCert", "RequireAnyClientCert")
_TLS_KEYS = {"cert_file", "key_file", "client_auth_type", "client_ca_file", "min_version", "max_version",
             "cipher_suites", "prefer_server_cipher_suites", "curve_preferences", "client_allowed_sans"}
_SUPPORTED_TLS_KEYS = {"cert_file", "key_file", "client_auth_type", "client_ca_file", "min_version"}
MAX_PASSWORD_BYTES = 72   # bcrypt looks at 72 bytes at most; longer ones are refused, not truncated
MAX_GOOD_CREDENTIALS = 64     # right (user, password) pairs remembered: one per client, in practice
MAX_BAD_CREDENTIALS = 1000    # wrong ones remembered, the oldest forgotten first
MAX_WEB_CONFIG_BYTES = 1 << 20
WARN_ABOVE_COST = 12          # exporter-toolkit's htpasswd examples use 10; each step doubles a check's time
# a valid bcrypt hash of a random password: unknown users are checked against it (equal timing)
_DUMMY_HASH = b"$2b$10$hXXhg3mDTj2.3C5i8gPQre6NaUoFJuzaZKaIb5qDO8iOjjq/q8Frq"
_VERSIONS = {"TLS10": ssl.TLSVersion.TLSv1, "TLS11": ssl.TLSVersion.TLSv1_1, "TLS12": ssl.TLSVersion.TLSv1_2,
             "TLS13": ssl.TLSVersion.TLSv1_3}


@dataclass
class WebConfig:
    ssl_context: Optional[ssl.SSLContext] = None
    users: dict = field(default_factory=dict)     # user -> bcrypt hash (bytes)
    verifier: str = ""                            # which bcrypt implementation checks them
    checkpw: Optional[Callable] = None            # and its check, chosen once at load
    cert_files: tuple = ()                        # (cert, key) as loaded, for reloading
    warnings: list = field(default_factory=list)  # one line each, logged at start (bcrypt costs above 12)
    dummy: bytes = _DUMMY_HASH                    # checked for an unknown user: a configured hash of the highest cost
    _mtimes: tuple = ()
    _good: set = field(default_factory=set)       # (user, sha256(password)) found right
    _bad: dict = field(default_factory=dict)      # (user, sha256(password)) found wrong, oldest first
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _bcrypt: threading.Lock = field(default_factory=threading.Lock)

    def _key(self, header: Optional[str]):
        """(user, sha256 of the password, the password) of a Basic Authorization header, or None."""
        scheme, _, value = (header or "").partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            user, _, password = base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return None
        secret = password.encode()
        if len(secret) > MAX_PASSWORD_BYTES:
            return None
        return user, hashlib.sha256(secret).hexdigest(), secret

    def known(self, header: Optional[str]) -> Optional[bool]:
        """The answer without bcrypt: True or False for credentials checked before (or not even
        Basic), None when only bcrypt can tell. Cheap: the server calls it on its event loop."""
        if not self.users:
            return True
        key = self._key(header)
        if key is None:
            return False
        with self._lock:
            if key[:2] in self._good:
                return True
            return self._bad.get(key[:2])

    def authorized(self, header: Optional[str]) -> bool:
        if not self.users:
            return True
        key = self._key(header)
        if key is None:
            return False
        user, digest, secret = key
        with self._lock:
            if (user, digest) in self._good:
                return True
            if (user, digest) in self._bad:
                return False
        hashed = self.users.get(user)
        checkpw = self.checkpw or _verifier()[1]
        with self._bcrypt:   # one bcrypt check at a time: guessing clients cannot starve scrapes
            try:
                # an unknown user costs what a known one does: its check runs on a configured hash
                ok = checkpw(secret, hashed if hashed is not None else self.dummy) and hashed is not None
            except ValueError:
                ok = False
        with self._lock:
            # right credentials are kept apart from wrong ones: a flood of wrong passwords
            # cannot push the right ones out and send them back to bcrypt
            if ok:
                if len(self._good) >= MAX_GOOD_CREDENTIALS:
                    self._good.clear()
                self._good.add((user, digest))
            else:
                if len(self._bad) >= MAX_BAD_CREDENTIALS:
                    self._bad.pop(next(iter(self._bad)))   # the oldest
                self._bad[(user, digest)] = False
        return ok

    def reload_if_changed(self) -> bool:
        """Load the certificate and key again when either file changed; True when reloaded."""
        if self.ssl_context is None or not self.cert_files:
            return False
        mtimes = tuple(os.stat(p).st_mtime_ns for p in self.cert_files)
        if mtimes == self._mtimes:
            return False
        self.ssl_context.load_cert_chain(*self.cert_files)
        self._mtimes = mtimes
        return True


def load(path: Optional[str]) -> WebConfig:
    """The web config, or a ConfigError of one line for anything wrong with it."""
    if not path:
        return WebConfig()
    try:
        return _load(path)
    except ConfigError:
        raise
    except (TypeError, AttributeError, ValueError, KeyError) as e:
        raise ConfigError(f"{path}: malformed web configuration: {e}") from None


def _load(path: str) -> WebConfig:  # noqa: C901 (issue 46: too complex today, must not grow)
    # the main configuration's reader and loader: a regular file of at most 1 MiB, no aliases,
    # no duplicate keys (a second tls_server_config must not replace the first)
    text = read_config_text(path, "web configuration", MAX_WEB_CONFIG_BYTES)
    try:
        data = load_yaml(text)[1] or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {str(e).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping")
    unknown = set(data) - {"tls_server_config", "basic_auth_users", "http_server_config"}
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    if "http_server_config" in data:   # exporter-toolkit's http2 and headers: refused, not silently ignored
        raise ConfigError(f"{path}: http_server_config not supported here (the exporter serves HTTP/1.1 only, "
                          "with no custom headers); remove it")
    base = os.path.dirname(os.path.abspath(path))
    rel = lambda p: p if os.path.isabs(p) else os.path.join(base, p)
    wc = WebConfig()
    tls = data.get("tls_server_config")
    if "tls_server_config" in data and not tls:   # present but empty: exporter-toolkit refuses it too
        raise ConfigError(f"{path}: tls_server_config is empty: give cert_file and key_file, or remove the key "
                          "to serve plain HTTP")
    if tls is not None and not isinstance(tls, dict):
        raise ConfigError(f"{path}: tls_server_config: expected a mapping")
    if tls:
        unknown = set(tls) - _TLS_KEYS
        if unknown:
            raise ConfigError(f"{path}: tls_server_config: unknown key(s) {', '.join(sorted(map(str, unknown)))}; "
                              f"known: {', '.join(sorted(_SUPPORTED_TLS_KEYS))}")
        unsupported = set(tls) - _SUPPORTED_TLS_KEYS
        if unsupported:
            raise ConfigError(f"{path}: tls_server_config: {', '.join(sorted(unsupported))} not supported here")
        if tls.get("client_auth_type") in _UNVERIFIED:
            raise ConfigError(f"{path}: client_auth_type {tls['client_auth_type']}: Python's TLS verifies every "
                              "client certificate it accepts; use RequireAndVerifyClientCert with client_ca_file")
        if not tls.get("cert_file") or not tls.get("key_file"):
            raise ConfigError(f"{path}: tls_server_config needs cert_file and key_file")
        auth = tls.get("client_auth_type", "NoClientCert")
        if auth not in _CLIENT_AUTH:
            raise ConfigError(f"{path}: client_auth_type {auth!r} is not one of {', '.join(_CLIENT_AUTH)}")
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = _VERSIONS.get(tls.get("min_version", "TLS12"), None) or _bad(path, "min_version", tls)
        for key in ("cert_file", "key_file", "client_ca_file"):
            if tls.get(key) and not os.path.isfile(rel(tls[key])):
                raise ConfigError(f"{path}: tls_server_config.{key}: {rel(tls[key])} does not exist")
        try:
            ctx.load_cert_chain(rel(tls["cert_file"]), rel(tls["key_file"]))
            if tls.get("client_ca_file"):
                ctx.load_verify_locations(rel(tls["client_ca_file"]))
        except (OSError, ssl.SSLError) as e:
            raise ConfigError(f"{path}: cannot load TLS files: {e}") from None
        if auth in ("RequireAndVerifyClientCert", "VerifyClientCertIfGiven") and not tls.get("client_ca_file"):
            raise ConfigError(f"{path}: client_auth_type {auth} needs client_ca_file")
        ctx.verify_mode = _CLIENT_AUTH[auth]
        wc.ssl_context = ctx
        wc.cert_files = (rel(tls["cert_file"]), rel(tls["key_file"]))
        wc._mtimes = tuple(os.stat(p).st_mtime_ns for p in wc.cert_files)
    users = data.get("basic_auth_users") or {}
    if not isinstance(users, dict):
        raise ConfigError(f"{path}: basic_auth_users: expected a mapping of user to bcrypt hash")
    if users:
        wc.verifier, wc.checkpw = _verifier()
        for user, hashed in users.items():
            if not isinstance(hashed, str) or not hashed.startswith(("$2a$", "$2b$", "$2y$")):
                raise ConfigError(f"{path}: basic_auth_users.{user}: expected a bcrypt hash")
            try:   # a malformed hash (or a cost outside 4..31) is refused now, not by a failing login later
                cost = purebcrypt.parse(hashed.encode())[0]
            except purebcrypt.HashError as e:
                raise ConfigError(f"{path}: basic_auth_users.{user}: malformed bcrypt hash: {e}") from None
            wc.users[str(user)] = hashed.encode()
            if cost > WARN_ABOVE_COST:
                wc.warnings.append(f"{path}: basic_auth_users.{user}: bcrypt cost {cost}: one check takes about "
                                   f"{check_seconds(wc.checkpw, cost):.3g} s here with {wc.verifier.split(' ')[0]} "
                                   f"(each cost step doubles it; 10 is usual)")
        wc.dummy = max(wc.users.values(), key=lambda h: int(h[4:6]))
    return wc


def check_seconds(checkpw, cost: int) -> float:
    """About how long one check of a hash of ``cost`` takes: a cost-4 check timed, doubled per step."""
    import time
    probe = purebcrypt.hashpw(b"probe", b"0123456789abcdef", 4)
    t0 = time.perf_counter()
    checkpw(b"probe", probe)
    return (time.perf_counter() - t0) * 2 ** (cost - 4)


def _bad(path, key, tls):
    raise ConfigError(f"{path}: {key} {tls.get(key)!r} is not one of {', '.join(_VERSIONS)}")
