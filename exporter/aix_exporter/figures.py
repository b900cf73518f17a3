"""The before/after figures (figures.json), as the report reads them. The recording rules and
the dashboards read the same file from jsonnet; tests/unit/test_figures.py checks that none of
them defines a figure of its own."""
from __future__ import annotations

import json
from importlib import resources
from dataclasses import dataclass
from typing import Optional

# read as package data: the .pyz bundle holds it inside its zip, where open() cannot reach
TABLE = json.loads(resources.files(__package__).joinpath("figures.json").read_text(encoding="utf-8"))

SAME_BAND: float = TABLE["same_band"]     # after/before within 1 +- this is "same"
RECORDS: dict = {r["record"]: r["minute"] for r in TABLE["records"]}   # per-regime rule -> one minute's expression


@dataclass(frozen=True)
class Part:
    part: str
    select: str          # extra label matchers, e.g. mode="user" ("" for none)

    def window(self, sel: str, length: str, at: str) -> str:
        """The part averaged (or, for counters, the rate) over a window of ``length`` ending at
        ``at`` (' @ 1700000000' or ' offset 5h'), for series matching ``sel``."""
        matchers = ",".join(m for m in (sel, self.select) if m)
        expr = TABLE["parts"][self.part]["window"]
        return expr.replace("SEL", matchers).replace("RANGE", length).replace("AT", at)

    @property
    def record(self) -> str:
        return TABLE["parts"][self.part]["record"]

    @property
    def checks(self) -> dict:
        """What makes a window of this part unusable: its collector, the raw series whose
        samples show gaps, its counters (resets), its physical bounds."""
        return TABLE["parts"][self.part].get("checks", {})


@dataclass(frozen=True)
class Figure:
    key: str
    title: str           # the report's words
    row: str             # the dashboards' row text
    unit: str
    better: str          # "higher", "lower" or "" (no direction: a fact, not a score)
    digits: int
    of: Part
    per: Optional[Part]   # a ratio of the two window averages, or None
    scale: str            # PromQL appended to the value, e.g. " / 1048576"
    decides: bool         # judges the change (better/worse/same); the others are read, not judged
    reading: str          # one sentence: what the figure means
    zero_if_absent: bool  # no series of its own while the part has others is 0 (svmon: no row)

    def window(self, sel: str, length: str, at: str) -> str:
        """The figure over one window: (of) or ((of) / (per)), then the scale; with
        zero_if_absent, 0 where the part has data but not this figure's select."""
        value = f"({self.of.window(sel, length, at)})"
        if self.zero_if_absent:
            value = f"({value} or (0 * {Part(self.of.part, '').window(sel, length, at)}))"
        if self.per is not None:
            value = f"({value} / ({self.per.window(sel, length, at)}))"
        return value + self.scale

    @property
    def parts(self) -> tuple:
        return (self.of,) if self.per is None else (self.of, self.per)


def _part(d: dict) -> Part:
    return Part(d["part"], d.get("select", ""))


FIGURES = tuple(
    Figure(f["key"], f["title"], f["row"], f["unit"], f["better"], f["digits"], _part(f["of"]),
           _part(f["per"]) if "per" in f else None, f.get("scale", ""), bool(f.get("decides")), f["reading"],
           bool(f.get("zero_if_absent")))
    for f in TABLE["figures"])
