"""The monitoring mixin's settings (monitoring.json): the series selector, thresholds and
windows. mixin.libsonnet reads the same file for the rules and the dashboards; the report takes
its --selector default from here, so a deployment changes the selector in one place."""
from __future__ import annotations

import json
from importlib import resources

# read as package data: the .pyz bundle holds it inside its zip, where open() cannot reach
SETTINGS: dict = json.loads(resources.files(__package__).joinpath("monitoring.json").read_text(encoding="utf-8"))["config"]

CONFIG: dict = {name: s["value"] for name, s in SETTINGS.items()}
SELECTOR: str = CONFIG["aixSelector"]    # e.g. job=~"aix.*": the LPARs' series


def label_value(text: str) -> str:
    """A PromQL string literal (double-quoted, backslash and quote escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def matchers(*parts: str) -> str:
    """Label matchers joined with commas, the empty ones left out."""
    return ",".join(p for p in parts if p)
