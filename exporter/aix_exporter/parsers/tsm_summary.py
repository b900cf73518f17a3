"""Completed activities of the last hours from the SUMMARY table: ``dsmadmc -dataonly=yes -comma
"select activity,sum(bytes),count(*) from summary where end_time>current_timestamp-24 hours
group by activity"`` (rules in parsers/dsmadmc.py).

    STGPOOL BACKUP,6597069766656,12
"""
from __future__ import annotations

from dataclasses import dataclass

from . import dsmadmc

COMMAND = "dsmadmc select from summary"


@dataclass
class Activity:
    activity: str
    bytes: int
    count: int


def parse(text: str) -> list:
    return dsmadmc.records(text, COMMAND, Activity, "sii")
