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

from .files import NotRegular, open_regular
from .redaction import PASSWORD_OPTION, argv_has_password


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
class TapeSettings:
    interval_seconds: int = 5     # iostat -p INTERVAL 2, run in the background: the last interval's figures
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
    report_glob: str = "*.out"         # the reports' names in report_dir (splat -o splat.out)
    top_n: int = 10
    max_age_seconds: float = 3600
    work_dir: str = "/var/tmp/aix_exporter/splat"   # trace files of the trace window


@dataclass
class TsmSettings:
    actlog_file: Optional[str] = None
    state_file: Optional[str] = None
    dsmadmc: Optional[list] = None     # argv of a dsmadmc query, used when no file is set
    message_ids: list = field(default_factory=lambda: ["ANR0358E", "ANR9999D"])
    # the server's own view (collector tsm_server): an admin id and a password file that only
    # the exporter's user can read; the password goes to dsmadmc on standard input, never argv
    admin_id: Optional[str] = None
    password_file: Optional[str] = None
    dsmadmc_binary: str = "/usr/bin/dsmadmc"
    summary_hours: int = 24
    # the daily checklist (collector tsm_checklist): its queries run once an interval, in the
    # background, each a few values of the server's database (docs/aix.md)
    checklist_interval_seconds: int = 300


@dataclass
class ErrptSettings:
    # the error log (collector errpt): errpt -a once an interval, in the background; the last
    # entry counted and the counts kept in state_file across restarts (this host's LPAR; a target
    # keeps its own in its own errpt section, which replaces this one; without one, in memory)
    interval_seconds: int = 300
    state_file: Optional[str] = None


@dataclass
class SshSettings:
    """How to reach LPARs over SSH (--source ssh://USER@HOST[:PORT] and ssh targets)."""
    key_file: Optional[str] = None      # private key; refused when others can read it
    known_hosts: Optional[str] = None   # host keys are verified against it, never accepted on first sight
    connect_timeout_seconds: float = 10
    max_sessions: int = 8               # commands at once on one connection (OpenSSH's MaxSessions is 10)
    output_budget_bytes: int = 32 << 20  # command output one target's commands may hold at once while read


@dataclass
class ProbeSettings:
    max_concurrent: int = 64            # targets collecting at once for /probe (a slow one mostly waits); more wait


@dataclass
class TargetSettings:
    """One entry of ``targets:``, collected by /probe?target=NAME."""
    name: str = ""
    source: str = ""                    # ssh://USER@HOST[:PORT] (or replay:DIR, simulate:SCENARIO)
    collectors: Optional[list] = None   # collector names; default: those enabled by the flags
    key_file: Optional[str] = None      # default: ssh.key_file
    known_hosts: Optional[str] = None   # default: ssh.known_hosts
    tsm: Optional[dict] = None          # this target's tsm section (replaces the top-level one)
    errpt: Optional[dict] = None        # this target's errpt section: its own state_file (else in memory)


@dataclass
class Settings:
    command_timeout_seconds: float = 10
    command_root: Optional[str] = None   # run commands from under this directory (--path.commands; tests)
    vmstat: VmstatSettings = field(default_factory=VmstatSettings)
    vmo: VmoSettings = field(default_factory=VmoSettings)
    tape: TapeSettings = field(default_factory=TapeSettings)
    process: ProcessSettings = field(default_factory=ProcessSettings)
    splat: SplatSettings = field(default_factory=SplatSettings)
    tsm: TsmSettings = field(default_factory=TsmSettings)
    errpt: ErrptSettings = field(default_factory=ErrptSettings)
    ssh: SshSettings = field(default_factory=SshSettings)
    probe: ProbeSettings = field(default_factory=ProbeSettings)
    targets: list = field(default_factory=list)   # [TargetSettings], built by _targets


def _build(cls, data, path, errors: list):
    """The dataclass from a mapping; every problem is appended to ``errors`` as
    (key path, message) and the default kept, so that all of them are reported at once."""
    if data is None:
        return cls()
    if not isinstance(data, dict):
        errors.append((path, f"{path or 'config'}: expected a mapping, got {type(data).__name__}"))
        return cls()
    known = {f.name: f for f in fields(cls)}
    for name in sorted(set(data) - set(known), key=str):
        where = f"{path}.{name}" if path else str(name)
        errors.append((where, f"{where}: unknown key; known in {path or 'the top level'}: {', '.join(known)}"))
    kwargs = {}
    defaults = cls()
    for name, value in data.items():
        if name not in known:
            continue
        where = f"{path}.{name}" if path else name
        default = getattr(defaults, name)
        if is_dataclass(default):
            kwargs[name] = _build(type(default), value, where, errors)
            continue
        try:
            kwargs[name] = _check_type(where, value, default)
        except ConfigError as e:
            errors.append((where, str(e)))
    return cls(**kwargs)


# stated bounds of every number (inclusive): a timeout of .inf or an interval of .nan would
# leave commands unkilled or start them in a loop
BOUNDS = {
    "command_timeout_seconds": (0.1, 600), "vmstat.interval_seconds": (1, 300),
    "vmstat.max_age_seconds": (1, 86400), "process.max_processes": (1, 1000),
    "tape.interval_seconds": (1, 300), "tape.max_age_seconds": (1, 86400),
    "splat.trace_seconds": (1, 60), "splat.every_minutes": (1, 1440), "splat.top_n": (1, 1000),
    "splat.max_age_seconds": (1, 7 * 86400), "tsm.summary_hours": (1, 24 * 31),
    "tsm.checklist_interval_seconds": (60, 86400), "errpt.interval_seconds": (60, 86400),
    "ssh.connect_timeout_seconds": (0.1, 120), "ssh.max_sessions": (1, 64), "probe.max_concurrent": (1, 1000),
    "ssh.output_budget_bytes": (1 << 20, 1 << 30),
}
_TARGET_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def _targets(s: Settings, errors: list, collector_names=None) -> None:
    """``targets:`` as TargetSettings with their tsm sections built, every problem appended
    (``collector_names``: the collectors a target may name; None, not checked here)."""
    if not isinstance(s.targets, list):
        return
    built, seen = [], set()
    for i, entry in enumerate(s.targets):
        where = f"targets[{i}]"
        t = _build(TargetSettings, entry, where, errors)
        if not isinstance(t.name, str) or not _TARGET_NAME_RE.match(t.name):
            errors.append((f"{where}.name", f"{where}.name: {t.name!r} is not a target name ([A-Za-z0-9_.-]+)"))
        elif t.name in seen:
            errors.append((f"{where}.name", f"{where}.name: {t.name!r} is declared twice"))
        seen.add(t.name)
        if not isinstance(t.source, str) or not t.source:
            errors.append((f"{where}.source", f"{where}.source: missing (ssh://USER@HOST[:PORT])"))
        for key in ("key_file", "known_hosts"):
            v = getattr(t, key)
            if v is not None and (not isinstance(v, str) or not v.startswith("/")):
                errors.append((f"{where}.{key}", f"{where}.{key}: must be an absolute path"))
        unknown = [c for c in (t.collectors or []) if collector_names is not None and c not in collector_names]
        if unknown:
            errors.append((f"{where}.collectors", f"{where}.collectors: unknown {', '.join(map(str, unknown))}; "
                                                  f"known: {', '.join(collector_names)}"))
        if t.tsm is not None:
            t.tsm = _build(TsmSettings, t.tsm, f"{where}.tsm", errors)
        if t.errpt is not None:
            t.errpt = _build(ErrptSettings, t.errpt, f"{where}.errpt", errors)
        built.append(t)
    _one_owner_each(s, built, errors)
    s.targets = built


def _one_owner_each(s: Settings, built: list, errors: list) -> None:
    # a state file is one target's: two spellings of one real place (d/one.state, d//one.state, a
    # link) are one file, among the targets and with the top level's
    places: dict = {}
    if isinstance(s.tsm.state_file, str) and s.tsm.state_file:
        places.setdefault(os.path.realpath(s.tsm.state_file), []).append(f"tsm.state_file {s.tsm.state_file}")
    if isinstance(s.errpt.state_file, str) and s.errpt.state_file:
        places.setdefault(os.path.realpath(s.errpt.state_file), []).append(f"errpt.state_file {s.errpt.state_file}")
    for t in built:
        if isinstance(t.tsm, TsmSettings) and isinstance(t.tsm.state_file, str) and t.tsm.state_file:
            places.setdefault(os.path.realpath(t.tsm.state_file), []).append(f"{t.name}'s {t.tsm.state_file}")
        if isinstance(t.errpt, ErrptSettings) and isinstance(t.errpt.state_file, str) and t.errpt.state_file:
            places.setdefault(os.path.realpath(t.errpt.state_file), []).append(
                f"{t.name}'s errpt.state_file {t.errpt.state_file}")
    for real, users in sorted(places.items()):
        if len(users) > 1:
            what = "the state file" if any("errpt." in u for u in users) else "tsm.state_file"
            errors.append(("targets", f"targets: {what} {real} is used twice ({', '.join(users)}): each "
                                      "target and each log keeps its own position"))


def target_settings(s: Settings, t: TargetSettings) -> Settings:
    """The settings a target's collectors run with: the top level's, with the target's own tsm
    section (none: the TSM collectors are not configured for it; a log position, a password
    file and an admin id are one server's, never shared by targets)."""
    import copy
    import dataclasses
    out = copy.copy(s)
    out.tsm = t.tsm if isinstance(t.tsm, TsmSettings) else TsmSettings()
    # a target's own errpt section (its state file: its LPAR's position and counts), else the top
    # level's settings without its state file (that file is the top level's own LPAR's)
    out.errpt = t.errpt if isinstance(t.errpt, ErrptSettings) else dataclasses.replace(s.errpt, state_file=None)
    out.targets = []
    return out
MAX_CONFIG_BYTES = 1 << 20


class _NoAliasLoader(yaml.SafeLoader):
    """YAML without anchors and aliases (a 'billion laughs' file cannot blow up at load) and
    without duplicate keys in any mapping (as Prometheus and exporter-toolkit refuse them: a
    second ``tls_server_config:`` must not silently replace the first)."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed in this file",
                                              event.start_mark)
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: set = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:    # an unhashable key: SafeLoader says so itself
                    continue
                if duplicate:
                    raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


def read_config_text(path: str, what: str, limit: int = MAX_CONFIG_BYTES) -> str:
    """A configuration file's text: a regular file (a FIFO or a device would block or never
    end), at most ``limit`` bytes, UTF-8; a ConfigError of one line otherwise."""
    try:
        fh, st = open_regular(path)
    except NotRegular:
        raise ConfigError(f"{path}: not a regular file (a FIFO, device or directory); not a {what}") from None
    except OSError as e:
        raise ConfigError(f"{path}: {e.strerror}") from None
    with fh:
        if st.st_size > limit:
            raise ConfigError(f"{path}: larger than {limit} bytes; not a {what}")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise ConfigError(f"{path}: larger than {limit} bytes; not a {what}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not a text file (byte {e.start} is not UTF-8); not a {what}") from None


def load_yaml(text: str):
    """(node, data) of YAML text by the strict loader (no aliases, no duplicate keys)."""
    return yaml.compose(text, Loader=_NoAliasLoader), yaml.load(text, Loader=_NoAliasLoader)


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
        if low is not None and high is not None and not low <= value <= high:
            raise ConfigError(f"{where}: must be between {low:g} and {high:g}, got {value!r}")
        return type(default)(value) if expected is int and float(value).is_integer() else value
    if isinstance(default, list) and not isinstance(value, list):
        raise ConfigError(f"{where}: expected a list, got {value!r}")
    return value


def problems(s: Settings) -> list:  # noqa: C901 (issue 46: too complex today, must not grow)
    """(key path, message) for every value that may not reach a command line or the disk."""
    out = []
    add = lambda where, msg: out.append((where, f"{where}: {msg}"))
    for t in s.vmo.tunables:
        if not isinstance(t, str) or not _TUNABLE_RE.match(t):
            add("vmo.tunables", f"{t!r} is not a vmo tunable name ([a-z0-9_%]+)")
    for c in s.process.commands:
        if not isinstance(c, str) or not _COMMAND_RE.match(c):
            add("process.commands", f"{c!r} is not a command name ([A-Za-z0-9_.+-]+)")
    for m in s.tsm.message_ids:
        if not isinstance(m, str) or not _MSGID_RE.match(m):
            add("tsm.message_ids", f"{m!r} is not a message id like ANR0358E")
    if s.tsm.dsmadmc is not None:
        if isinstance(s.tsm.dsmadmc, str):
            add("tsm.dsmadmc", "one string: commands are argv lists, one element per argument and no shell "
                               "(write [/usr/bin/dsmadmc, -id=ADMIN, -dataonly=yes, query, actlog])")
        elif not s.tsm.dsmadmc or not all(isinstance(a, str) for a in s.tsm.dsmadmc):
            add("tsm.dsmadmc", "expected a non-empty list of strings (argv)")
        elif not s.tsm.dsmadmc[0].startswith("/"):
            add("tsm.dsmadmc", "the first element must be an absolute path")
        if s.tsm.actlog_file:
            add("tsm.dsmadmc", "tsm.actlog_file and tsm.dsmadmc are both set: the activity log comes from one of "
                               "them (a log file, or a dsmadmc query)")
        given = [s.tsm.dsmadmc] if isinstance(s.tsm.dsmadmc, str) else s.tsm.dsmadmc or []
        if argv_has_password(given):
            add("tsm.dsmadmc", "a password on the command line (every user sees it in ps): use tsm.admin_id and "
                               "tsm.password_file, which go to dsmadmc on standard input")
    if s.tsm.admin_id is not None and (not isinstance(s.tsm.admin_id, str) or not _COMMAND_RE.match(s.tsm.admin_id)):
        add("tsm.admin_id", f"{s.tsm.admin_id!r} is not an administrator name ([A-Za-z0-9_.+-]+)")
    if bool(s.tsm.admin_id) != bool(s.tsm.password_file):
        add("tsm.password_file", "tsm.admin_id and tsm.password_file go together (the server view needs both)")
    for where, v in (("splat.work_dir", s.splat.work_dir), ("command_root", s.command_root),
                     ("tsm.password_file", s.tsm.password_file), ("tsm.dsmadmc_binary", s.tsm.dsmadmc_binary),
                     ("splat.report_dir", s.splat.report_dir), ("tsm.actlog_file", s.tsm.actlog_file),
                     ("tsm.state_file", s.tsm.state_file), ("errpt.state_file", s.errpt.state_file),
                     ("ssh.key_file", s.ssh.key_file),
                     ("ssh.known_hosts", s.ssh.known_hosts)):
        if v is not None and (not isinstance(v, str) or not v.startswith("/")):
            add(where, "must be an absolute path")
    state = s.tsm.state_file
    if isinstance(state, str) and state.startswith("/"):
        inputs = {"tsm.actlog_file": s.tsm.actlog_file, "command_root": s.command_root,
                  "splat.report_dir": s.splat.report_dir, "splat.work_dir": s.splat.work_dir}
        real = os.path.realpath(state)
        for name, value in inputs.items():
            if isinstance(value, str) and (real == os.path.realpath(value)
                                           or real.startswith(os.path.realpath(value).rstrip("/") + "/")):
                add("tsm.state_file", f"{state} is {name} or inside it; the state file must be a file of its own "
                                      "(it is overwritten)")
    return out


def validate(s: Settings) -> Settings:
    errs = problems(s)
    if errs:
        raise ConfigError("\n".join(msg for _, msg in errs))
    return s


def _marks(node, path: str = "", out: Optional[dict] = None) -> dict:
    """key path -> (line, column), 1-based, of every value in a composed YAML document."""
    out = {} if out is None else out
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            where = f"{path}.{key.value}" if path else str(key.value)
            out[where] = (value.start_mark.line + 1, value.start_mark.column + 1)
            _marks(value, where, out)
    return out


# dsmadmc's -PAssword= in any abbreviation from -pa, any case (a password on a command line: ps
# shows it): refused in tsm.dsmadmc here, its value hidden in every text by redaction.redact()
DSMADMC_PASSWORD_OPTION = PASSWORD_OPTION


def password_mode_problem(path: str, mode: int) -> Optional[str]:
    """Why a password file of this mode must not be used (others can read it), or None."""
    if mode & 0o077:
        return f"{path}: readable by others (mode {mode & 0o777:o}); chmod 600 it"
    return None


def _state_file_problems(s: Settings) -> list:
    """A state file that is somebody else's (at start only its collector fails on it)."""
    from .statefile import ERRPT, TSM, foreign
    out = []
    for where, path, kind in (("tsm.state_file", s.tsm.state_file, TSM), ("errpt.state_file", s.errpt.state_file, ERRPT)):
        if isinstance(path, str) and path.startswith("/"):
            why = foreign(path, kind)
            if why is not None:
                out.append((where, f"{where}: {why}"))
    return out


def file_problems(s: Settings) -> list:
    """[(key path, message)] of what will make a collector fail at once on this machine, as
    this user: files and directories that are missing or unreadable, a password file others
    can read, features that need root. --check-config reports them (the installers run it)."""
    out: list = []
    tsm, sp = s.tsm, s.splat
    out += _state_file_problems(s)
    if tsm.actlog_file:
        if not os.path.isfile(tsm.actlog_file):
            out.append(("tsm.actlog_file", f"{tsm.actlog_file}: no such file"))
        elif not os.access(tsm.actlog_file, os.R_OK):
            out.append(("tsm.actlog_file", f"{tsm.actlog_file}: not readable by this user (uid {os.geteuid()})"))
    if tsm.password_file:
        try:
            st = os.stat(tsm.password_file)
        except OSError as e:
            out.append(("tsm.password_file", f"{tsm.password_file}: {e.strerror}"))
        else:
            unsafe = password_mode_problem(tsm.password_file, st.st_mode)
            if unsafe:
                out.append(("tsm.password_file", unsafe))
            elif not os.access(tsm.password_file, os.R_OK):
                out.append(("tsm.password_file", f"{tsm.password_file}: not readable by this user (uid {os.geteuid()})"))
    if sp.report_dir:
        if not os.path.isdir(sp.report_dir):
            out.append(("splat.report_dir", f"{sp.report_dir}: no such directory"))
        elif not os.access(sp.report_dir, os.R_OK | os.X_OK):
            out.append(("splat.report_dir", f"{sp.report_dir}: not readable by this user (uid {os.geteuid()})"))
    if sp.enabled_trace and os.geteuid() != 0:
        out.append(("splat.enabled_trace", f"the trace window needs root (trace, trcrpt, splat); this user is uid "
                                           f"{os.geteuid()}: run as root, or use splat.report_dir"))
    return out


def load(path: Optional[str], check_files: bool = False, collector_names=None) -> Settings:
    """Settings from the YAML file; a ConfigError listing every problem at once, each line
    ``FILE:LINE:COLUMN: key.path: message`` where the file says where. ``check_files``
    (--check-config): also what will fail at once on this machine (file_problems).
    ``collector_names``: the collectors a target may name (the exporter passes its registry's;
    this module imports no collector)."""
    if not path:
        return Settings()
    text = read_config_text(path, "configuration file")
    try:
        node, data = load_yaml(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(f"{where}: not valid YAML: {problem}") from None
    marks = _marks(node) if node is not None else {}
    errors: list = []
    settings = _build(Settings, data, "", errors)
    _targets(settings, errors, collector_names)
    errors += problems(settings)
    for t in settings.targets:   # the sections a target gives itself, checked as the top level's are
        own = tuple(f"{name}." for name, cls in (("tsm", TsmSettings), ("errpt", ErrptSettings))
                    if isinstance(getattr(t, name, None), cls))
        if isinstance(t, TargetSettings) and own:
            errors += [(f"targets.{t.name}.{w}", f"targets.{t.name}: {m}") for w, m in problems(target_settings(settings, t))
                       if w.startswith(own)]
    if check_files and not errors:
        errors += file_problems(settings)
    if errors:
        def locate(where):
            line_col = marks.get(where)
            return f"{path}:{line_col[0]}:{line_col[1]}" if line_col else path
        raise ConfigError("\n".join(f"{locate(where)}: {msg}" for where, msg in errors))
    return settings
