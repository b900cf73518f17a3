"""Log lines that parse: logfmt (``ts=2026-11-25T02:31:44.123Z level=info msg="..." key=value``)
or one JSON object a line (--log.format=json), as the Prometheus exporters write them.

A message written as key=value pairs (``msg=...`` among them) is kept as its pairs; a value
with blanks, quotes, ``=`` or control characters is quoted, its control characters escaped
as JSON and go-logfmt read them (a newline as ``\\n``, ESC as ``\\u001b``). Free text is
the value of ``msg``. Every line has ``ts`` (ISO 8601, UTC, milliseconds), ``level`` (lower
case) and ``msg``.

The keys come from our own text only: a record's pairs are read from its format string
(``"msg=collection failed collector=%s error=%s"``) and each argument is put into its own
value, so what an argument carries (a remote command's stderr, an activity-log line, an error
text with `` pid=`` in it) stays data in its value and never makes a key of its own.
"""
from __future__ import annotations

import json
import logging
import logging.handlers
import os
import re
import sys
import time
from typing import Optional

from .redaction import redact

_KEY = re.compile(r"(?:^|\s)([a-z_][a-z0-9_.]*)=", re.IGNORECASE)


def pairs(message: str) -> list:
    """[(key, value)] of a message: ``k=v`` runs, where a value runs to the next `` k2=`` (so
    ``msg=odd line skipped: x`` keeps its blanks); free text before the first key is ``msg``."""
    found = list(_KEY.finditer(message))
    if not found:
        return [("msg", message)]
    out = []
    head = message[:found[0].start()].strip()
    if head:
        out.append(("msg", head))
    for m, nxt in zip(found, found[1:] + [None]):
        value = message[m.end():nxt.start() if nxt else len(message)].strip()
        out.append((m.group(1), value))
    if not any(k == "msg" for k, _ in out):
        out.insert(0, ("msg", ""))
    return out


_SPECIFIER = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsa%]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def record_pairs(record: logging.LogRecord) -> list:
    """[(key, value)] of a record: the keys of its format string, each value formatted with its
    own arguments; a record whose arguments do not fit its string is all ``msg``."""
    args = record.args
    if not args or not isinstance(args, tuple):
        return pairs(record.getMessage())
    left = list(args)
    out = []
    try:
        for key, value in pairs(str(record.msg)):
            n = sum(1 for m in _SPECIFIER.finditer(value) if m.group(0) != "%%")
            if n or "%%" in value:
                value, left = value % tuple(left[:n]), left[n:]
            out.append((key, value))
    except (TypeError, ValueError):
        return [("msg", record.getMessage())]
    return out if not left else [("msg", record.getMessage())]


def _value(v: str) -> str:
    if v and not re.search(r'[\s"=\\\x00-\x1f\x7f-\x9f]', v):
        return v
    v = v.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _CONTROL.sub(lambda m: _ESCAPES.get(m.group(0), f"\\u{ord(m.group(0)):04x}"), v) + '"'


def _ts(record: logging.LogRecord) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"


def _pairs(record: logging.LogRecord) -> list:
    """The record's pairs with every secret hidden (redaction.redact): the last line of defence."""
    return [(k, redact(v)) for k, v in record_pairs(record)]


class LogfmtFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        items = [("ts", _ts(record)), ("level", record.levelname.lower())] + _pairs(record)
        if record.exc_info:
            items.append(("error", redact(self.formatException(record.exc_info))))
        return " ".join(f"{k}={_value(v)}" for k, v in items)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out = {"ts": _ts(record), "level": record.levelname.lower()}
        out.update(_pairs(record))
        if record.exc_info:
            out["error"] = redact(self.formatException(record.exc_info))
        return json.dumps(out)


class RotatingLog(logging.handlers.RotatingFileHandler):
    """--log.file: the log kept under a size (FILE, FILE.1 .. FILE.N, the oldest dropped), with
    the process's stderr sent to the current file, so that what is not logged (a traceback, a
    message of the Python runtime) lands in the same file and is rotated with it. On AIX the
    SRC subsystem's -o/-e file is that same path: it holds what comes before this is set up."""

    def __init__(self, path: str, max_bytes: int, backups: int):
        super().__init__(path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8", delay=False)
        self._stderr_here()

    def _stderr_here(self) -> None:
        if self.stream is not None:
            sys.stderr.flush()
            os.dup2(self.stream.fileno(), 2)

    def doRollover(self) -> None:
        try:
            super().doRollover()
        except OSError as e:   # a directory the service user cannot write: say so once, keep logging
            self.maxBytes = 0
            if self.stream is None:
                self.stream = self._open()
            self.stream.write(f"ts={time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} level=error "
                              f'msg="cannot rotate the log file, it is no longer rotated" error="{e}"\n')
        self._stderr_here()


def setup(level: str, fmt: str = "logfmt", stream=None, file: Optional[str] = None,
          max_bytes: int = 10 << 20, backups: int = 3) -> None:
    handler: logging.Handler = RotatingLog(file, max_bytes, backups) if file else logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter() if fmt == "json" else LogfmtFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
