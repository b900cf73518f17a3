"""Files the subcommands write (--out, --openmetrics): checked before any work is done, and
written under a temporary name beside the target, renamed only once complete, so a command
that fails leaves no file, and a half-written one never stands under the name asked for."""
from __future__ import annotations

import os
import tempfile

from .errors import CommandError


class OutputError(CommandError, ValueError):
    """One line for the user: why the output cannot be written there."""


def check(path: str, flag: str = "--out") -> None:
    """OutputError when ``path`` cannot take a file: a directory, or a directory that is missing.
    Its message names the option (``--out x: ...``), as the command line says it."""
    if os.path.isdir(path):
        raise OutputError(f"{flag} {path} is a directory: give a file name")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise OutputError(f"{flag} {parent} does not exist: make it first, or give another {flag}")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"{flag} {parent} is not writable by this user")


def temporary(path: str, flag: str = "--out") -> str:
    """A new, empty temporary file beside ``path`` (its name hidden), for a writer to fill."""
    check(path, flag)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                               prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    os.close(fd)
    return tmp


def publish(tmp: str, path: str) -> None:
    """Move a complete temporary file to ``path`` (readable as a new file would be)."""
    os.chmod(tmp, 0o666 & ~_umask())
    os.replace(tmp, path)


def discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def write_text(path: str, text: str, flag: str = "--out") -> None:
    """``text`` into ``path`` whole, or nothing there (OutputError before any write)."""
    tmp = temporary(path, flag)
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        publish(tmp, path)
    except BaseException:
        discard(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
