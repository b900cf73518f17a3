"""``ps eww <pid>...``: the environment of the monitored processes, for LDR_CNTRL.

AIX prints the Berkeley-style report: a header ``PID TTY STAT TIME COMMAND``
and one line per process whose COMMAND field is the command line followed by
the environment as ``NAME=value`` words. ``LDR_CNTRL`` is a list of
``KEY=VALUE`` settings joined by ``@``
(``TEXTPSIZE=64K@STACKPSIZE=64K@SHMPSIZE=64K@LARGE_PAGE_DATA=Y``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import ParseError, text_lines

COMMAND = "ps eww"
LDR_KEYS = ("LARGE_PAGE_DATA", "DATAPSIZE", "TEXTPSIZE", "STACKPSIZE", "SHMPSIZE")
# a process line: PID TTY STAT TIME COMMAND..., TIME as m:ss, m:ss:ss or d-hh:mm:ss
_TIME_RE = re.compile(r"\d+:\d{2}(?::\d{2})?|\d+-\d+:\d{2}:\d{2}")
_KEY_RE = re.compile(r"^[A-Z_][A-Z0-9_]*$")


@dataclass
class ProcessEnv:
    pid: int
    command: str            # basename of the program
    ldr_cntrl: dict = field(default_factory=dict)   # KEY -> value, {} when LDR_CNTRL is unset
    ldr_cntrl_raw: str = ""


def parse_ldr_cntrl(value: str) -> dict:
    out = {}
    for part in value.split("@"):
        if not part:
            continue
        key, sep, val = part.partition("=")
        if not sep or not _KEY_RE.match(key):
            raise ParseError(f"{COMMAND}: LDR_CNTRL item {part!r} is not KEY=VALUE")
        out[key] = val
    return out


def parse(text: str) -> list:
    lines = text_lines(text, COMMAND)
    header = next((i for i, l in enumerate(lines) if l.split()[:2] == ["PID", "TTY"]), None)
    if header is None:
        raise ParseError(f"{COMMAND}: no 'PID TTY STAT TIME COMMAND' header")
    out = []
    for no in range(header + 2, len(lines) + 1):
        line = lines[no - 1]
        if not line:  # (lines are right-stripped)
            continue
        fields = line.split(None, 4)
        if len(fields) < 5 or not fields[0].isdecimal() or not _TIME_RE.fullmatch(fields[3]):
            raise ParseError(f"{COMMAND}: not a process line", no, line)
        args = fields[4]
        program = args.split(None, 1)[0]
        env = ProcessEnv(int(fields[0]), program[program.rfind("/") + 1:], {})  # command: os.path.basename
        if "LDR_CNTRL=" not in args:
            out.append(env)
            continue
        for w in args.split()[1:]:
            if w.startswith("LDR_CNTRL="):
                env.ldr_cntrl_raw = w[len("LDR_CNTRL="):]
                try:
                    env.ldr_cntrl = parse_ldr_cntrl(env.ldr_cntrl_raw)
                except ParseError as e:
                    raise ParseError(e.message, no, line) from None
        out.append(env)
    if not out:
        raise ParseError(f"{COMMAND}: header without process lines")
    return out
