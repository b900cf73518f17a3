"""Stand-in AIX commands that print a replay directory, for ``--source system --path.commands DIR``.

    python3 -m aix_exporter.tools.standin REPLAY_DIR OUT_DIR [--config.file FILE]

Writes ``OUT_DIR/usr/bin/vmstat``, ``OUT_DIR/usr/bin/svmon``, ``OUT_DIR/usr/sbin/vmo`` ...:
one small ``/bin/sh`` script per executable of the command table, which prints the replay
file of the command whose arguments it was called with (the argv the table builds from the
settings), and fails like a real command on arguments it does not know. ``ps -e -o pid= -o
comm=`` lists the processes of the replay's ``ps_env.txt``, and ``ps eww PID`` prints that
process's line under the header. So the system source runs for real off AIX: argv lists,
absolute paths, pipes, timeouts, process discovery and background scheduling.
"""
from __future__ import annotations

import argparse
import os
import shlex
import stat
import sys
from typing import Optional

from ..commands import TABLE
from ..config import Settings, load

PS = "/usr/bin/ps"


def _monitored(replay_dir: str) -> list:
    """(pid, command name) of each process line of the replay's ps eww output."""
    path = os.path.join(replay_dir, "ps_env.txt")
    if not os.path.exists(path):
        return []
    out = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh.read().splitlines()[1:]:
            fields = line.split()
            if len(fields) >= 5 and fields[0].isdigit():
                out.append((fields[0], os.path.basename(fields[4])))
    return out


def scripts(replay_dir: str, settings: Settings) -> dict:
    """{absolute AIX path: shell script text}."""
    replay_dir = os.path.abspath(replay_dir)
    cases: dict = {}   # path -> [(case pattern, shell action)]

    def cat(key):
        return f"exec /bin/cat {shlex.quote(os.path.join(replay_dir, key + '.txt'))}"

    for cmd in TABLE:
        if cmd.fetch in ("run", "dsmadmc"):
            if cmd.fetch == "dsmadmc" and not settings.tsm.admin_id:
                continue
            assert cmd.argv is not None   # every run/dsmadmc row has one (tests/unit/test_commands.py)
            path, *args = cmd.argv(settings)
            cases.setdefault(path, []).append((shlex.quote(" ".join(args)), cat(cmd.key)))
        elif cmd.fetch in ("processes", "per_process"):
            assert cmd.argv is not None
            path, *args = cmd.argv(settings, ["PID"])
            fixed = " ".join(a for a in args if a != "PID")
            if cmd.fetch == "processes":
                action = cat(cmd.key)
            else:   # one process: the header and that process's line
                file = shlex.quote(os.path.join(replay_dir, cmd.key + ".txt"))
                action = f"exec /usr/bin/awk -v p=\"${len(args)}\" 'NR == 1 || $1 == p' {file}"
            cases.setdefault(path, []).append((shlex.quote(fixed) + "' '*", action))
    listing = "".join(f"{pid} {name}\\n" for pid, name in _monitored(replay_dir))
    cases.setdefault(PS, []).append((shlex.quote("-e -o pid= -o comm="), f"printf '{listing}'; exit 0"))
    out = {}
    for path, rows in cases.items():
        body = "".join(f"    {pattern}) {action};;\n" for pattern, action in rows)
        out[path] = (f"#!/bin/sh\n# stand-in for {path}: prints captured output from {replay_dir}\n"
                     f"case \"$*\" in\n{body}"
                     f"    *) echo \"{os.path.basename(path)}: stand-in has no output for: $*\" >&2; exit 2;;\nesac\n")
    return out


def write(replay_dir: str, out_dir: str, settings: Optional[Settings] = None) -> list:
    written = []
    for path, text in scripts(replay_dir, settings or Settings()).items():
        target = os.path.join(out_dir, path.lstrip("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(target, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP)
        written.append(target)
    return written


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m aix_exporter.tools.standin", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("replay_dir")
    p.add_argument("out_dir")
    p.add_argument("--config.file", dest="config", default=None)
    args = p.parse_args(argv)
    for path in write(args.replay_dir, args.out_dir, load(args.config)):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
