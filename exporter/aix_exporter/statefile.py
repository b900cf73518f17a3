"""The collectors' state files, saved after each read so that a restarted exporter neither loses
nor recounts a line: the TSM collector's (the activity-log position and the message counts:
``TSM``, the default) and the errpt collector's (the last sequence number counted and the
entry counts: ``ERRPT``). Each kind has its own ``kind`` field, its own validation and its own
temporary files; the rules below are the same for both.

* Ours only: a file is written only if it is absent or is one of ours (``kind``), an old state
  file of ours (only ``position``, ``counts``, ``unparsed``), empty, or damaged beyond reading:
  bytes no text file holds (NUL, not UTF-8) or JSON that is not an object. A damaged one is
  moved aside as ``FILE.damaged`` at load, with one log line. Anything else at that path (a typo
  of the config path, a copy of /etc/passwd: readable text that is not a state of ours) is
  refused in ``--check-config`` and before every write, never overwritten; then the tsm
  collector fails with that reason, and only it.
* Written whole: a temporary file in the same directory, fsync, rename. The state it replaces
  is kept as ``FILE.1``: a state damaged outside the exporter (truncated, emptied, wrong types)
  is taken from there, one read older, whose position and counts belong together; the lines
  since that position are read again and counted once.
* Temporary files left by a kill during a write (``.tsm-state-*``) are removed at start.
"""
from __future__ import annotations

import glob
import json
import logging
import os
import re
import tempfile
from dataclasses import dataclass
from typing import Callable, Optional

log = logging.getLogger("aix_exporter")

KIND = "aix_exporter tsm state"
OLD_KEYS = {"position", "counts", "unparsed", "gaps"}
TEMP_PREFIX = ".tsm-state-"
MAX_STATE_BYTES = 16 << 20   # a state file holds a position and a few hundred counts
_OURS_START = re.compile(rb'^\s*\{\s*"(kind|position|counts|unparsed|gaps)"')   # the start of one of ours, even cut short


@dataclass(frozen=True)
class Kind:
    """One collector's kind of state file: its ``kind`` field, how a good one is told (``valid``:
    None or what is wrong), the start of one of ours even cut short, its temporary files'
    prefix, the collector and setting its log lines and refusals name, and its fresh state."""
    name: str
    valid: Callable
    ours_start: "re.Pattern"
    temp_prefix: str
    collector: str
    setting: str
    fresh: dict


def _count(n) -> bool:
    """A count or a sequence number: a whole number, not a bool, not negative."""
    return isinstance(n, int) and not isinstance(n, bool) and n >= 0


def _counts_problem(state: dict, key_ok: Callable, what: str, totals: tuple) -> Optional[str]:
    """What is wrong with a state's ``counts`` ({key: count}, each key as ``key_ok`` wants it) and
    its ``totals`` (counts of their own), or None."""
    counts = state.get("counts", {})
    if not isinstance(counts, dict) or not all(isinstance(k, str) and key_ok(k) and _count(v) for k, v in counts.items()):
        return f"counts are not {what}"
    for key in totals:
        if not _count(state.get(key, 0)):
            return f"{key} is not a count"
    return None


def _valid(state) -> Optional[str]:
    """None when ``state`` is a state of ours with every field of its type, else what is wrong."""
    if not isinstance(state, dict):
        return "not a JSON object"
    if state.get("kind", KIND) != KIND or not set(state) - {"kind"} <= OLD_KEYS:
        return "not a state of ours"
    pos = state.get("position")
    if pos is not None:
        if not isinstance(pos, dict):
            return "position is not an object"
        for key, kind in (("inode", int), ("offset", int), ("tail", str), ("mark", str), ("seen", list), ("t", (int, float))):
            if key in pos and (not isinstance(pos[key], kind) or isinstance(pos[key], bool)):
                return f"position.{key} has the wrong type"
        if pos.get("offset", 0) < 0 or not re.fullmatch(r"(?:[0-9a-f]{2})*", pos.get("tail", "")):
            return "position.offset or position.tail is out of range"
    return _counts_problem(state, lambda k: ":" in k, "message counts", ("unparsed", "gaps"))


def _valid_errpt(state) -> Optional[str]:
    """None when ``state`` is an errpt state of ours: the last sequence counted and the counts."""
    if not isinstance(state, dict):
        return "not a JSON object"
    if state.get("kind") != ERRPT.name or not set(state) - {"kind"} <= {"last", "counts", "lost", "unparsed"}:
        return "not an errpt state of ours"
    last = state.get("last")
    if last is not None and not _count(last):
        return "last is not a sequence number"
    return _counts_problem(state, lambda k: k.count("|") == 3, "entry counts", ("lost", "unparsed"))


# (fresh: the state a damaged file with no previous one gives way to: the log read again from
# its start, counted into counters from 0, rather than lost)
TSM = Kind(KIND, _valid, _OURS_START, TEMP_PREFIX, "tsm", "tsm.state_file", {"position": {}, "counts": {}, "unparsed": 0})
ERRPT = Kind("aix_exporter errpt state", _valid_errpt, re.compile(rb'^\s*\{\s*"(kind|last|counts|lost|unparsed)"'),
             ".errpt-state-", "errpt", "errpt.state_file", {"last": 0, "counts": {}})


def _read(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as fh:
            return fh.read(MAX_STATE_BYTES + 1)
    except FileNotFoundError:
        return None


def _inspect(path: str, kind: Kind = TSM) -> tuple:
    """(why the file at ``path`` must not be written over or None, its bytes or None)."""
    if not os.path.lexists(path):
        return None, None
    if not os.path.isfile(path) or os.path.islink(path):
        return f"{path} exists and is not a regular file", None
    data = _read(path)
    if data is None or not data.strip() or kind.ours_start.match(data) or damaged(data):
        return None, data
    return (f"{path} exists and is not an aix_exporter state file (a typo of the path?): it is never "
            f"overwritten; point {kind.setting} at a new path"), data


def damaged(data: bytes) -> bool:
    """Bytes at the state's own path that no text file of anyone's holds: NUL bytes, bytes that
    are not UTF-8, or JSON that is not an object (a state of ours written over or cut up)."""
    if b"\0" in data:
        return True
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    try:
        return not isinstance(json.loads(text), dict)
    except ValueError:
        return False   # readable text that is not JSON: somebody's file, not ours


def foreign(path: str, kind: Kind = TSM) -> Optional[str]:
    """Why the file at ``path`` must not be written over, or None (absent, or ours, damaged or not)."""
    return _inspect(path, kind)[0]


def _parse(path: str, kind: Kind = TSM):
    return _state_of(_read(path), kind)


def _state_of(data: Optional[bytes], kind: Kind = TSM):
    """(state, None) for a good state of ours, else (None, what is wrong)."""
    if data is None:
        return None, "absent"
    if len(data) > MAX_STATE_BYTES:   # (_read reads one byte more to see this)
        return None, f"larger than {MAX_STATE_BYTES} bytes: not a state file"
    try:
        state = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None, "not valid JSON (cut short or emptied?)"
    why = kind.valid(state)
    return (state, None) if why is None else (None, why)


def load(path: str, kind: Kind = TSM) -> Optional[dict]:
    """The saved state, from FILE or, when FILE is damaged or missing, from FILE.1; None when
    neither holds one and FILE was absent. A damaged file is logged in one line; one damaged
    beyond reading (``damaged``) is moved aside as FILE.damaged first. Without a state to resume
    from, a damaged one reads the log from its start (``{"position": {}}``): its lines are counted
    again into counters that start from 0, which Prometheus' rate() takes as a reset, rather than
    lost. Raises OSError for a file that is not ours (``foreign``)."""
    clean_temp(path, kind)
    refused = foreign(path, kind)
    if refused is not None:
        raise OSError(refused)
    state, why = _parse(path, kind)
    if state is not None:
        return state
    data = _read(path) if why != "absent" else None
    if data is not None and damaged(data):
        try:
            os.replace(path, path + ".damaged")
            log.warning("collector=%s msg=state file damaged, moved aside file=%s moved_to=%s error=%s",
                        kind.collector, path, path + ".damaged", why)
        except OSError as e:
            log.warning("collector=%s msg=state file damaged and cannot be moved aside file=%s error=%s",
                        kind.collector, path, e.strerror)
    previous, _ = _parse(path + ".1", kind)
    if previous is not None:
        log.warning("collector=%s msg=state file %s, resumed from the previous state file=%s error=%s",
                    kind.collector, "missing" if why == "absent" else "damaged", path, why)
        return previous
    if why != "absent":
        log.warning("collector=%s msg=state file damaged and no previous state: counting from 0, the log read "
                    "from its start file=%s error=%s", kind.collector, path, why)
        return json.loads(json.dumps(kind.fresh))   # (a copy: the collector changes it)
    return None


def save(path: str, state: dict, kind: Kind = TSM) -> None:
    """Write ``state`` (temp file, fsync, rename), the state it replaces kept as FILE.1."""
    why, replaced = _inspect(path, kind)   # (read once: to refuse a file not ours, and to keep a good one)
    if why is not None:
        raise OSError(why)
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, mode=0o700, exist_ok=True)   # (the installer makes it; a new path works too)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=kind.temp_prefix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"kind": kind.name, **state}, fh)
            fh.flush()
            os.fsync(fh.fileno())
        if _state_of(replaced, kind)[0] is not None:   # the state it replaces, when it is a good one
            os.replace(path, path + ".1")
        os.replace(tmp, path)
    except BaseException:
        try:   # a full disk must not leave one temp file per cycle behind
            os.unlink(tmp)
        except OSError:
            pass
        raise


def clean_temp(path: str, kind: Kind = TSM) -> int:
    """Remove the temporary files of writes killed half way (ours by name, in the state's
    directory, owned by us). Returns how many."""
    n = 0
    for tmp in glob.glob(os.path.join(os.path.dirname(os.path.abspath(path)), kind.temp_prefix + "*")):
        try:
            if os.stat(tmp).st_uid == os.getuid():
                os.unlink(tmp)
                n += 1
        except OSError:
            pass
    return n
