"""The monitoring mixin's settings (monitoring.json): the series selector, thresholds and
windows. mixin.libsonnet reads the same file for the rules and the dashboards; the report takes
its --selector default from here, so a deployment changes the selector in one place."""
from __future__ import annotations

import json
import os

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "monitoring.json"), encoding="utf-8") as _fh:
    SETTINGS: dict = json.load(_fh)["config"]

CONFIG: dict = {name: s["value"] for name, s in SETTINGS.items()}
SELECTOR: str = CONFIG["aixSelector"]    # e.g. job=~"aix.*": the LPARs' series


def label_value(text: str) -> str:
    """A PromQL string literal (double-quoted, backslash and quote escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def matchers(*parts: str) -> str:
    """Label matchers joined with commas, the empty ones left out."""
    return ",".join(p for p in parts if p)
