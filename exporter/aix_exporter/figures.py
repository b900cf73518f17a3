"""The before/after figures (figures.json), as the report reads them. The recording rules and
the dashboards read the same file from jsonnet; tests/unit/test_figures.py checks that none of
them defines a figure of its own."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Optional

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "figures.json"), encoding="utf-8") as _fh:
    TABLE = json.load(_fh)

SAME_BAND: float = TABLE["same_band"]     # after/before within 1 +- this is "same"
RECORDS: dict = {r["record"]: r["minute"] for r in TABLE["records"]}   # per-regime rule -> one minute's expression


@dataclass(frozen=True)
class Part:
    part: str
    select: str = ""     # extra label matchers, e.g. mode="user"

    def window(self, sel: str, length: str, at: str) -> str:
        """The part averaged (or, for counters, the rate) over a window of ``length`` ending at
        ``at`` (' @ 1700000000' or ' offset 5h'), for series matching ``sel``."""
        matchers = ",".join(m for m in (sel, self.select) if m)
        expr = TABLE["parts"][self.part]["window"]
        return expr.replace("SEL", matchers).replace("RANGE", length).replace("AT", at)

    @property
    def record(self) -> str:
        return TABLE["parts"][self.part]["record"]


@dataclass(frozen=True)
class Figure:
    key: str
    title: str           # the report's words
    row: str             # the dashboards' row text
    unit: str
    better: str          # "higher", "lower" or "" (no direction: a fact, not a score)
    digits: int
    of: Part
    per: Optional[Part] = None   # a ratio of the two window averages
    scale: str = ""              # PromQL appended to the value, e.g. " / 1048576"

    def window(self, sel: str, length: str, at: str) -> str:
        """The figure over one window: (of) or ((of) / (per)), then the scale."""
        value = f"({self.of.window(sel, length, at)})"
        if self.per is not None:
            value = f"({value} / ({self.per.window(sel, length, at)}))"
        return value + self.scale


def _part(d: dict) -> Part:
    return Part(d["part"], d.get("select", ""))


FIGURES = tuple(
    Figure(f["key"], f["title"], f["row"], f["unit"], f["better"], f["digits"], _part(f["of"]),
           _part(f["per"]) if "per" in f else None, f.get("scale", ""))
    for f in TABLE["figures"])
