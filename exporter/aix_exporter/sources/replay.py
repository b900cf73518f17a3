"""replay:DIR: captured command output in files named ``<key>.txt``."""
from __future__ import annotations

import os

from . import KEYS, SourceError, open_regular


class ReplaySource:
    slow_keys: frozenset = frozenset()
    concurrent_reads = False   # its reads are this process's own work (sources/__init__.py)
    runs_commands = local_system = False

    def __init__(self, directory: str):
        if not os.path.isdir(directory):
            raise ValueError(f"replay directory {directory!r} does not exist or is not a directory")
        if not os.access(directory, os.R_OK | os.X_OK):
            raise ValueError(f"replay directory {directory!r} is not readable")
        self.directory = directory
        self.name = f"replay:{directory}"

    def path(self, key: str) -> str:
        if key not in KEYS:
            raise SourceError(f"unknown command key {key!r}")
        return os.path.join(self.directory, f"{key}.txt")

    def read(self, key: str) -> str:
        path = self.path(key)
        if not os.path.lexists(path):
            raise SourceError(f"no captured output {path}")
        fh, _ = open_regular(path, "captured output")
        try:
            with fh:
                data = fh.read()
        except OSError as e:
            raise SourceError(f"cannot read {path}: {e.strerror}") from None
        # Undecodable bytes become U+FFFD, which parsers reject as binary data.
        return data.decode("utf-8", errors="replace")

    def read_log(self, key: str, position):
        """Replay counts the whole file once; later reads return only what was appended."""
        from .logtail import tail
        path = self.path(key)
        if not os.path.exists(path):
            raise SourceError(f"no captured output {path}")
        return tail(path, position)

    def report_time(self, key: str):
        try:
            return os.stat(self.path(key)).st_mtime
        except OSError:
            return None

