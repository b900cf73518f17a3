"""What every source and runner shares: the error types, the output bounds, and the rules a
command's run follows wherever it runs (this host or an LPAR over SSH): where the command
root puts the executable, and how a non-zero exit becomes one error line."""
from __future__ import annotations

import os

MAX_OUTPUT = 64 << 20    # bytes of stdout one command may print; more is an error, not memory
STDERR_KEPT = 4096       # bytes of a command's stderr kept for its error line


class SourceError(RuntimeError):
    """The command text could not be obtained (missing file, failed command, timeout)."""


class CommandFailed(SourceError):
    """A command ran and exited non-zero; its output is kept for a command whose failure
    with a known text is an answer (``iostat -p`` with no tapes)."""

    def __init__(self, message: str, output: str = "", stderr: str = ""):
        super().__init__(message)
        self.output, self.stderr = output, stderr


class TimedOut(SourceError):
    """A command ran past its deadline and was ended (its process group, or its channel)."""


class NotRunning(SourceError):
    """None of the monitored processes runs: no data, and not a failure."""


def rooted(argv: list, root) -> list:
    """``argv`` with its absolute executable under ``root`` (command_root, --path.commands:
    /usr/bin/svmon becomes ROOT/usr/bin/svmon), or as it is without one."""
    if root and argv and os.path.isabs(argv[0]):
        return [os.path.join(root, argv[0].lstrip("/")), *argv[1:]]
    return argv


def exit_failure(where: str, rc: int, out: bytes, err: bytes) -> CommandFailed:
    """The error of a command that exited ``rc``: ``WHERE: exit status RC: first stderr line``,
    its output and stderr kept (a known answer despite the status: iostat -p, no tapes)."""
    errtext = bytes(err).decode("utf-8", "replace")
    first = errtext.strip().splitlines()[:1]
    return CommandFailed(f"{where}: exit status {rc}" + (f": {first[0][:200]}" if first else ""),
                         bytes(out).decode("utf-8", "replace"), errtext)
