"""Command lines a key holder could send the forced-command wrapper, and what it must answer.

``mutations(n, seed, files)`` makes ``n`` command lines from the argvs the ssh source sends
(every command of the table under varied settings, and the log helper's five operations on
files under ``files``): words appended, inserted, replaced, dropped, doubled or swapped, Perl
and command switches, paths with ``..``, ``//``, ``/.`` and symlinks that lead outside, shell
syntax and quoting changed in the text itself. ``expected(line, files)`` is the oracle, written
apart from the wrapper: the words of shlex.join's grammar, then either a match of the table's
patterns (``sshwrapper.patterns``) or the helper's fixed form with real paths under ``files``.
A mutation that happens to make another valid command line is expected to run; every other
is expected to be refused.
"""
from __future__ import annotations

import os
import random
import re
import shlex

from aix_exporter.commands import TABLE
from aix_exporter.config import Settings
from aix_exporter.sources.remotelog import HELPER, PERL
from aix_exporter.sources.ssh import ENV_PREFIX
from aix_exporter.tools.sshwrapper import patterns

_WORD = re.compile(r"(?:[A-Za-z0-9_@%+=:,./-]|'[^']*'|\"'\")+")   # (one character a turn: no backtracking blow-up)
_PIECE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+|'([^']*)'|\"(')\"")
VERBS = {"time": "", "stat": "p", "list": "p", "read": "pnn", "rfind": "pxn"}
DSMADMC = "/usr/bin/dsmadmc"
HOSTILE = ["-e", "BEGIN{system('id')}", "-I/tmp", "-Mstrict;system(q(id))", "-MO=Deparse", "-x", "-n", "-p",
           "--", ";", "id", "/bin/sh", "-c", "2", "5", "-v", "-G", "", " ", "'", "$(id)", "`id`", "|", "&&",
           "/etc/shadow", "/etc/passwd", "..", "-id=admin", "-password=x", "delete", "volume", "-comma",
           "-dataonly=yes", "query", "mount", "eww", "-o", "args", "-L", "lgpg_regions", "0", "1;2",
           "time", "stat", "read", "list", "rfind", "unlink", "-1", "ff", "zz", "99999", "\n"]
SPECIAL = list(";|&$`\"\\\n<>(){}*?[]~!# \t'")


def table_argvs() -> list:
    """Every argv of the table the ssh source sends, under a few valid configurations."""
    out = []
    for interval, hours, admin, tunables, pids in ((5, 24, "monitor", ["lgpg_regions", "lgpg_size"], ["1"]),
                                                    (300, 744, "monitor.ro-1", ["vmm_mpsize_support"], ["123", "45678"])):
        s = Settings()
        s.vmstat.interval_seconds = s.tape.interval_seconds = interval
        s.tsm.summary_hours, s.tsm.admin_id, s.vmo.tunables = hours, admin, tunables
        out.append(["/usr/bin/ps", "-e", "-o", "pid=", "-o", "comm="])
        for c in TABLE:
            if c.argv is not None:
                out.append(c.argv(s, pids) if c.fetch in ("processes", "per_process") else c.argv(s))
    return out


def helper_argvs(files: str) -> list:
    log = os.path.join(files, "dsmserv.log")
    return [[PERL, "-e", HELPER, "time"], [PERL, "-e", HELPER, "stat", log], [PERL, "-e", HELPER, "list", files],
            [PERL, "-e", HELPER, "read", log, "0", "65536"], [PERL, "-e", HELPER, "rfind", log, "0a41", "67108864"]]


def make_files(base: str) -> str:
    """A --files directory with a log, and the links a hostile path can use to leave it."""
    files, outside = os.path.join(base, "files"), os.path.join(base, "outside")
    os.makedirs(files, exist_ok=True)
    os.makedirs(outside, exist_ok=True)
    for path, text in ((os.path.join(files, "dsmserv.log"), "log\n"), (os.path.join(outside, "secret"), "no\n")):
        with open(path, "w") as f:
            f.write(text)
    for name, target in (("to-secret", os.path.join(outside, "secret")), ("to-outside", outside), ("to-root", "/")):
        if not os.path.lexists(os.path.join(files, name)):
            os.symlink(target, os.path.join(files, name))
    return files


def _paths(files: str) -> list:
    return [os.path.join(files, "dsmserv.log"), files, f"{files}/../outside/secret", f"{files}//dsmserv.log",
            f"{files}/./dsmserv.log", f"{files}/to-secret", f"{files}/to-outside/secret", f"{files}/to-root/etc/passwd",
            f"{files}/..", f"{files}/missing.log", "/etc/passwd", "dsmserv.log", f"{files}/to-outside", f"{files}/."]


def mutations(n: int, seed: int, files: str) -> list:
    rng = random.Random(seed)
    bases = [[*ENV_PREFIX, *a] for a in table_argvs() + helper_argvs(files)]
    paths = _paths(files)
    out = []
    while len(out) < n:
        argv = list(rng.choice(bases))
        kind = rng.randrange(9)
        word = rng.choice(HOSTILE + paths)
        at = rng.randrange(len(ENV_PREFIX), len(argv) + 1)
        if kind == 0:
            argv.append(word)
        elif kind == 1:
            argv.insert(at, word)
        elif kind == 2 and at < len(argv):
            argv[at] = word
        elif kind == 3 and at < len(argv):
            del argv[at]
        elif kind == 4 and at < len(argv):
            argv.insert(at, argv[at])
        elif kind == 5 and len(argv) > len(ENV_PREFIX) + 1:
            i, j = rng.sample(range(len(ENV_PREFIX), len(argv)), 2)
            argv[i], argv[j] = argv[j], argv[i]
        elif kind == 6 and argv[len(ENV_PREFIX)] == PERL and len(argv) > len(ENV_PREFIX) + 4:
            argv[len(ENV_PREFIX) + 4] = rng.choice(paths)   # the helper on another path
        elif kind == 7:   # the text itself: a character of shell syntax or quoting somewhere
            line = shlex.join(argv)
            i = rng.randrange(len(line) + 1)
            out.append(line[:i] + rng.choice(SPECIAL) + line[i + rng.randrange(2):])
            continue
        elif kind == 8:   # the prefix changed
            argv[rng.randrange(len(ENV_PREFIX))] = word
        else:
            argv.append(word)
        out.append(shlex.join(argv))
    return out


def _words(line: str):
    """shlex.join's words, one space apart, or None (the wrapper's grammar, in Python)."""
    if len(line) > 65536 or not line:
        return None
    words, at = [], 0
    while True:
        m = _WORD.match(line, at)
        if not m:
            return None
        words.append("".join(p.group(1) if p.group(1) is not None else p.group(2) if p.group(2) is not None
                             else p.group(0) for p in _PIECE.finditer(m.group(0))))
        at = m.end()
        if at == len(line):
            return words
        if line[at] != " " or at + 1 == len(line):
            return None
        at += 1


def _under(path: str, files: str) -> bool:
    if not path.startswith("/"):
        return False
    if os.path.lexists(path) or os.path.exists(path):
        real = os.path.realpath(path)
    else:
        parent, name = os.path.split(path)
        if name in ("", ".", "..") or not os.path.isdir(parent):
            return False
        real = os.path.join(os.path.realpath(parent), name)
    top = os.path.realpath(files)
    return real == top or real.startswith(top + "/")


_cache: list = []


def _patterns() -> list:
    if not _cache:
        _cache.extend(patterns())
    return _cache


def expected(line: str, files: str, root: str = "", dsmadmc: str = DSMADMC) -> bool:
    """True when the wrapper must run this command line, False when it must refuse it."""
    words = _words(line)
    if words is None or words[:len(ENV_PREFIX)] != ENV_PREFIX or len(words) == len(ENV_PREFIX):
        return False
    argv = words[len(ENV_PREFIX):]
    if argv[0] == PERL:
        if len(argv) < 4 or argv[1:3] != ["-e", HELPER] or argv[3] not in VERBS:
            return False
        kinds = VERBS[argv[3]]
        if len(argv) != 4 + len(kinds):
            return False
        rules = {"p": lambda a: _under(a, files), "n": lambda a: re.fullmatch(r"[0-9]{1,18}", a) is not None,
                 "x": lambda a: re.fullmatch(r"(?:[0-9a-f]{2}){0,4096}", a) is not None}
        return all(rules[k](a) for k, a in zip(kinds, argv[4:]))
    joined = "\0".join(argv)
    for p, _factor, _alone in _patterns():
        q = p.replace("@ROOT@", re.escape(root)).replace("@DSMADMC@", re.escape(root + dsmadmc))
        if re.fullmatch(q, joined, re.S):
            return True
    return False
