"""Running server processes: ``dsmadmc -dataonly=yes -comma "select process_num,process,
bytes_processed,files_processed from processes"`` (rules in parsers/dsmadmc.py).

    12,Backup Storage Pool,1288490188800,5120
"""
from __future__ import annotations

from dataclasses import dataclass

from . import dsmadmc

COMMAND = "dsmadmc select from processes"


@dataclass
class ServerProcess:
    number: int
    process: str
    bytes: int
    files: int


def parse(text: str) -> list:
    return dsmadmc.records(text, COMMAND, ServerProcess, "isii")
