"""Typed settings from the YAML config file (``--config.file``), validated at start.

Every value that reaches a command line is checked against a strict pattern
here, so no configuration can smuggle arguments or shell syntax into a command.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Optional

import yaml


class ConfigError(ValueError):
    pass


_TUNABLE_RE = re.compile(r"^[a-z0-9_%]{1,64}$")
_COMMAND_RE = re.compile(r"^[A-Za-z0-9_.+-]{1,64}$")
_MSGID_RE = re.compile(r"^[A-Z]{3}\d{4}[IWESD]$")


@dataclass
class VmstatSettings:
    interval_seconds: int = 5     # vmstat -w -l INTERVAL 2, run in the background
    max_age_seconds: float = 60   # older results are dropped, never served as fresh


@dataclass
class VmoSettings:
    tunables: list = field(default_factory=lambda: ["lgpg_regions", "lgpg_size"])


@dataclass
class ProcessSettings:
    commands: list = field(default_factory=lambda: ["dsmserv", "dsmsta"])
    max_processes: int = 20


@dataclass
class SplatSettings:
    enabled_trace: bool = False        # run trace + splat windows on AIX (root)
    trace_seconds: int = 5
    every_minutes: int = 15
    report_dir: Optional[str] = None   # watched directory of splat reports (newest wins)
    top_n: int = 10
    max_age_seconds: float = 3600
    work_dir: str = "/var/tmp/aix_exporter/splat"   # trace files of the trace window


@dataclass
class TsmSettings:
    actlog_file: Optional[str] = None
    state_file: Optional[str] = None
    dsmadmc: Optional[list] = None     # argv of a dsmadmc query, used when no file is set
    message_ids: list = field(default_factory=lambda: ["ANR0358E", "ANR9999D"])


@dataclass
class Settings:
    command_timeout_seconds: float = 10
    command_root: Optional[str] = None   # run commands from under this directory (--path.commands; tests)
    vmstat: VmstatSettings = field(default_factory=VmstatSettings)
    vmo: VmoSettings = field(default_factory=VmoSettings)
    process: ProcessSettings = field(default_factory=ProcessSettings)
    splat: SplatSettings = field(default_factory=SplatSettings)
    tsm: TsmSettings = field(default_factory=TsmSettings)


def _build(cls, data, path):
    if data is None:
        return cls()
    if not isinstance(data, dict):
        raise ConfigError(f"{path or 'config'}: expected a mapping, got {type(data).__name__}")
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(f"{path or 'config'}: unknown key(s) {', '.join(map(str, unknown))}; "
                          f"known: {', '.join(known)}")
    kwargs = {}
    defaults = cls()
    for name, value in data.items():
        where = f"{path}.{name}" if path else name
        default = getattr(defaults, name)
        if is_dataclass(default):
            kwargs[name] = _build(type(default), value, where)
            continue
        kwargs[name] = _check_type(where, value, default)
    return cls(**kwargs)


def _check_type(where, value, default):
    if value is None:
        return None
    expected = type(default) if default is not None else None
    if isinstance(default, bool) and not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where}: expected a number, got {value!r}")
        if value <= 0:
            raise ConfigError(f"{where}: must be positive, got {value!r}")
        return type(default)(value) if expected is int and float(value).is_integer() else value
    if isinstance(default, list) and not isinstance(value, list):
        raise ConfigError(f"{where}: expected a list, got {value!r}")
    return value


def validate(s: Settings) -> Settings:
    for t in s.vmo.tunables:
        if not isinstance(t, str) or not _TUNABLE_RE.match(t):
            raise ConfigError(f"vmo.tunables: {t!r} is not a vmo tunable name ([a-z0-9_%]+)")
    for c in s.process.commands:
        if not isinstance(c, str) or not _COMMAND_RE.match(c):
            raise ConfigError(f"process.commands: {c!r} is not a command name ([A-Za-z0-9_.+-]+)")
    if s.process.max_processes > 1000:
        raise ConfigError("process.max_processes: at most 1000")
    for m in s.tsm.message_ids:
        if not isinstance(m, str) or not _MSGID_RE.match(m):
            raise ConfigError(f"tsm.message_ids: {m!r} is not a message id like ANR0358E")
    if s.tsm.dsmadmc is not None:
        if not s.tsm.dsmadmc or not all(isinstance(a, str) for a in s.tsm.dsmadmc):
            raise ConfigError("tsm.dsmadmc: expected a non-empty list of strings (argv)")
        if not s.tsm.dsmadmc[0].startswith("/"):
            raise ConfigError("tsm.dsmadmc: the first element must be an absolute path")
    if not s.splat.work_dir.startswith("/"):
        raise ConfigError("splat.work_dir: must be an absolute path")
    if s.command_root is not None and (not isinstance(s.command_root, str) or not s.command_root.startswith("/")):
        raise ConfigError("command_root: must be an absolute path")
    for name in ("report_dir",):
        v = getattr(s.splat, name)
        if v is not None and (not isinstance(v, str) or not v.startswith("/")):
            raise ConfigError(f"splat.{name}: must be an absolute path")
    for name in ("actlog_file", "state_file"):
        v = getattr(s.tsm, name)
        if v is not None and (not isinstance(v, str) or not v.startswith("/")):
            raise ConfigError(f"tsm.{name}: must be an absolute path")
    if s.splat.trace_seconds > 60:
        raise ConfigError("splat.trace_seconds: at most 60 (trace overhead)")
    if s.vmstat.interval_seconds > 300:
        raise ConfigError("vmstat.interval_seconds: at most 300")
    return s


def load(path: Optional[str]) -> Settings:
    if not path:
        return Settings()
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except OSError as e:
        raise ConfigError(f"{path}: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {str(e).splitlines()[0]}") from None
    return validate(_build(Settings, data, ""))
