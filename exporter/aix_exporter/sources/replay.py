"""replay:DIR: captured command output in files named ``<key>.txt``."""
from __future__ import annotations

import os

from . import KEYS, SourceError


class ReplaySource:
    slow_keys = frozenset()

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
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise SourceError(f"no captured output {path}") from None
        except OSError as e:
            raise SourceError(f"cannot read {path}: {e.strerror}") from None
        # Undecodable bytes become U+FFFD, which parsers reject as binary data.
        return data.decode("utf-8", errors="replace")

    def available(self) -> list:
        return [k for k in KEYS if os.path.exists(self.path(k))]
