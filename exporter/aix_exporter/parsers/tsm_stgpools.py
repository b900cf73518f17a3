"""The server's storage pools from the STGPOOLS table: ``dsmadmc -dataonly=yes -comma "select
DEVCLASS,EST_CAPACITY_MB,LOCAL_EST_CAPACITY_MB,LOCAL_PCT_LOGICAL,LOCAL_PCT_UTILIZED,PCT_LOGICAL,
PCT_UTILIZED,POOLTYPE,STGPOOL_NAME,STG_TYPE,TOTAL_CLOUD_SPACE_MB,USED_CLOUD_SPACE_MB from
stgpools"`` (rules in parsers/dsmadmc.py):

    DCULT7,3199882345.5,,,,99.7,42.6,PRIMARY,PTGPFS,DEVCLASS,,
    ,,"897775,0","100,0","0,0",,,PRIMARY,CLOUDTSMAZ,CLOUD,130,128

Format rules:

* 12 fields, in the column order above (treydock/tsm_exporter's, so its captured answers read
  the same): a device-class pool fills the first seven; a cloud pool (STG_TYPE CLOUD) leaves its
  device class and local estimates empty and gives the cloud space in MB instead.
* A pool's capacity is EST_CAPACITY_MB, or for a cloud pool TOTAL_CLOUD_SPACE_MB; its use
  PCT_UTILIZED (percent of the capacity holding data), or for a cloud pool USED over TOTAL
  cloud space. A pool that gives neither is kept with no figures (its info only).
* Numbers with a decimal point or a decimal comma; a percentage above 100 or below 0 is an error.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from . import ParseError
from . import dsmadmc

COMMAND = "dsmadmc select from stgpools"
COLUMNS = ("DEVCLASS", "EST_CAPACITY_MB", "LOCAL_EST_CAPACITY_MB", "LOCAL_PCT_LOGICAL", "LOCAL_PCT_UTILIZED",
           "PCT_LOGICAL", "PCT_UTILIZED", "POOLTYPE", "STGPOOL_NAME", "STG_TYPE", "TOTAL_CLOUD_SPACE_MB",
           "USED_CLOUD_SPACE_MB")
MB = 1 << 20


@dataclass
class Pool:
    name: str
    pool_type: str            # PRIMARY, COPY, ACTIVEDATA, ...
    device_class: str         # '-' for a cloud or directory-container pool without one
    storage_type: str         # DEVCLASS, DIRECTORY, CLOUD
    capacity_bytes: Optional[float]
    used_ratio: Optional[float]


def parse(text: str) -> list:
    pools = []
    for no, line, row in dsmadmc.numbered_rows(text, COMMAND, len(COLUMNS)):
        v = dict(zip(COLUMNS, row))
        numbers = {k: dsmadmc.decimal(v[k], COMMAND, line, no) if v[k] else None
                   for k in ("EST_CAPACITY_MB", "PCT_UTILIZED", "TOTAL_CLOUD_SPACE_MB", "USED_CLOUD_SPACE_MB")}
        number = numbers.__getitem__
        pct = number("PCT_UTILIZED")
        if pct is not None and not 0.0 <= pct <= 100.0:
            raise ParseError(f"{COMMAND}: PCT_UTILIZED {v['PCT_UTILIZED']} is not a percentage", no, line)
        capacity_mb, ratio = number("EST_CAPACITY_MB"), None if pct is None else pct / 100.0
        cloud_total, cloud_used = number("TOTAL_CLOUD_SPACE_MB"), number("USED_CLOUD_SPACE_MB")
        if capacity_mb is None and cloud_total is not None:
            capacity_mb = cloud_total
            if ratio is None and cloud_used is not None and cloud_total > 0:
                ratio = cloud_used / cloud_total
        if not v["STGPOOL_NAME"]:
            raise ParseError(f"{COMMAND}: a pool without a name", no, line)
        pools.append(Pool(name=v["STGPOOL_NAME"], pool_type=v["POOLTYPE"] or "-", device_class=v["DEVCLASS"] or "-",
                          storage_type=v["STG_TYPE"] or "-",
                          capacity_bytes=None if capacity_mb is None else capacity_mb * MB, used_ratio=ratio))
    return pools
