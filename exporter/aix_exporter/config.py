"""Typed settings from the YAML config file (``--config.file``), validated at start.

Every value that reaches a command line is checked against a strict pattern
here, so no configuration can smuggle arguments or shell syntax into a command.
"""
from __future__ import annotations

import math
import os
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


# stated bounds of every number (inclusive): a timeout of .inf or an interval of .nan would
# leave commands unkilled or start them in a loop
BOUNDS = {
    "command_timeout_seconds": (0.1, 600), "vmstat.interval_seconds": (1, 300),
    "vmstat.max_age_seconds": (1, 86400), "process.max_processes": (1, 1000),
    "splat.trace_seconds": (1, 60), "splat.every_minutes": (1, 1440), "splat.top_n": (1, 1000),
    "splat.max_age_seconds": (1, 7 * 86400),
}
MAX_CONFIG_BYTES = 1 << 20


class _NoAliasLoader(yaml.SafeLoader):
    """YAML without anchors and aliases: a 'billion laughs' file cannot blow up at load."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed in this file",
                                              event.start_mark)
        return super().compose_node(parent, index)


def _check_type(where, value, default):
    if value is None:
        return None
    expected = type(default) if default is not None else None
    if isinstance(default, bool) and not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where}: expected a number, got {value!r}")
        if not math.isfinite(value):
            raise ConfigError(f"{where}: must be a finite number, got {value!r}")
        if value <= 0:
            raise ConfigError(f"{where}: must be positive, got {value!r}")
        low, high = BOUNDS.get(where, (None, None))
        if low is not None and not low <= value <= high:
            raise ConfigError(f"{where}: must be between {low:g} and {high:g}, got {value!r}")
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
    state = s.tsm.state_file
    if state:
        inputs = {"tsm.actlog_file": s.tsm.actlog_file, "command_root": s.command_root,
                  "splat.report_dir": s.splat.report_dir, "splat.work_dir": s.splat.work_dir}
        real = os.path.realpath(state)
        for name, value in inputs.items():
            if value and (real == os.path.realpath(value)
                          or real.startswith(os.path.realpath(value).rstrip("/") + "/") and name != "tsm.actlog_file"):
                raise ConfigError(f"tsm.state_file: {state} is {name} or inside it; the state file must be "
                                  "a file of its own (it is overwritten)")
    if s.splat.trace_seconds > 60:
        raise ConfigError("splat.trace_seconds: at most 60 (trace overhead)")
    if s.vmstat.interval_seconds > 300:
        raise ConfigError("vmstat.interval_seconds: at most 300")
    return s


def load(path: Optional[str]) -> Settings:
    if not path:
        return Settings()
    try:
        if os.path.getsize(path) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{path}: larger than {MAX_CONFIG_BYTES} bytes; not a configuration file")
        with open(path, encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=_NoAliasLoader)
    except OSError as e:
        raise ConfigError(f"{path}: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {str(e).splitlines()[0]}") from None
    return validate(_build(Settings, data, ""))
