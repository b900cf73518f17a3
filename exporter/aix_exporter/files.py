"""Opening a file that must be a regular file, without blocking: a FIFO or a device in its place
would make a read wait for ever (a log, a password file, a configuration). The callers turn the
errors into their own one-line messages (sources.open_regular, config.read_config_text)."""
from __future__ import annotations

import os
import stat


class NotRegular(OSError):
    """The path is a FIFO, a device, a directory or a socket."""


def open_regular(path: str):
    """(binary file object, stat) of the regular file at ``path``; FileNotFoundError, OSError or
    NotRegular otherwise."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotRegular(f"{path} is not a regular file")
    return os.fdopen(fd, "rb"), st
