"""--web.config.file: TLS and basic auth in the Prometheus exporter-toolkit format.

    tls_server_config:
      cert_file: server.crt          # relative paths are relative to this file
      key_file: server.key
      client_auth_type: RequireAndVerifyClientCert   # or NoClientCert (default), RequestClientCert,
                                                     # RequireAnyClientCert, VerifyClientCertIfGiven
      client_ca_file: ca.crt
      min_version: TLS12             # TLS10 TLS11 TLS12 TLS13
    basic_auth_users:
      prometheus: $2y$10$...         # bcrypt hash (htpasswd -nBC 10 "" | tr -d ':\\n')

Basic auth needs the `bcrypt` package (pip install 'aix-exporter[auth]').
"""
from __future__ import annotations

import base64
import hashlib
import os
import ssl
import threading
from dataclasses import dataclass, field
from typing import Optional

import yaml

from .config import ConfigError

_CLIENT_AUTH = {
    "NoClientCert": ssl.CERT_NONE,
    "RequestClientCert": ssl.CERT_OPTIONAL,
    "RequireAnyClientCert": ssl.CERT_REQUIRED,
    "VerifyClientCertIfGiven": ssl.CERT_OPTIONAL,
    "RequireAndVerifyClientCert": ssl.CERT_REQUIRED,
}
_VERSIONS = {"TLS10": ssl.TLSVersion.TLSv1, "TLS11": ssl.TLSVersion.TLSv1_1, "TLS12": ssl.TLSVersion.TLSv1_2,
             "TLS13": ssl.TLSVersion.TLSv1_3}


@dataclass
class WebConfig:
    ssl_context: Optional[ssl.SSLContext] = None
    users: dict = field(default_factory=dict)     # user -> bcrypt hash (bytes)
    _ok: dict = field(default_factory=dict)       # (user, sha256(password)) -> True, verified before
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def authorized(self, header: Optional[str]) -> bool:
        if not self.users:
            return True
        if not header or not header.startswith("Basic "):
            return False
        try:
            user, _, password = base64.b64decode(header[6:], validate=True).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return False
        hashed = self.users.get(user)
        if hashed is None:
            return False
        key = (user, hashlib.sha256(password.encode()).hexdigest())
        with self._lock:
            if key in self._ok:
                return True
        import bcrypt
        if bcrypt.checkpw(password.encode(), hashed):
            with self._lock:
                if len(self._ok) > 1000:
                    self._ok.clear()
                self._ok[key] = True
            return True
        return False


def load(path: Optional[str]) -> WebConfig:
    if not path:
        return WebConfig()
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh) or {}
    except OSError as e:
        raise ConfigError(f"{path}: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {str(e).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping")
    unknown = set(data) - {"tls_server_config", "basic_auth_users", "http_server_config"}
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    base = os.path.dirname(os.path.abspath(path))
    rel = lambda p: p if os.path.isabs(p) else os.path.join(base, p)
    wc = WebConfig()
    tls = data.get("tls_server_config")
    if tls:
        if not tls.get("cert_file") or not tls.get("key_file"):
            raise ConfigError(f"{path}: tls_server_config needs cert_file and key_file")
        auth = tls.get("client_auth_type", "NoClientCert")
        if auth not in _CLIENT_AUTH:
            raise ConfigError(f"{path}: client_auth_type {auth!r} is not one of {', '.join(_CLIENT_AUTH)}")
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = _VERSIONS.get(tls.get("min_version", "TLS12"), None) or _bad(path, "min_version", tls)
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
    users = data.get("basic_auth_users") or {}
    if users:
        try:
            import bcrypt  # noqa: F401
        except ImportError:
            raise ConfigError(f"{path}: basic_auth_users needs the bcrypt package (pip install 'aix-exporter[auth]')") from None
        for user, hashed in users.items():
            if not isinstance(hashed, str) or not hashed.startswith(("$2a$", "$2b$", "$2y$")):
                raise ConfigError(f"{path}: basic_auth_users.{user}: expected a bcrypt hash")
            wc.users[str(user)] = hashed.encode()
    return wc


def _bad(path, key, tls):
    raise ConfigError(f"{path}: {key} {tls.get(key)!r} is not one of {', '.join(_VERSIONS)}")
