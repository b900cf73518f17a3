"""Client sessions: ``dsmadmc -dataonly=yes -comma "select session_id,client_name,bytes_sent,
bytes_received from sessions"`` (rules in parsers/dsmadmc.py).

    4711,TSMCLI01,1310720,858993459200
"""
from __future__ import annotations

from dataclasses import dataclass

from . import dsmadmc

COMMAND = "dsmadmc select from sessions"


@dataclass
class Session:
    session_id: int
    client: str
    bytes_sent: int
    bytes_received: int


def parse(text: str) -> list:
    return dsmadmc.records(text, COMMAND, Session, "isii")
