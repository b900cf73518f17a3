"""Compile the dashboards: python3 dashboards/build_dashboards.py  (the mixin's grafanaDashboards ->
dashboards/*.json; sources in src/*.jsonnet, settings in exporter/aix_exporter/monitoring.json).

The compiled JSON is committed so users can import it as is; the test suite
checks it equals what the sources produce.
"""
import json
import os
import sys

import _jsonnet

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)   # where mixin.libsonnet, the one entry point, lives


def compile_all(overrides: str = "") -> dict:
    """File name -> JSON text of every dashboard, with ``overrides`` (jsonnet, "{ _config+:: {...} }")."""
    src = "((import 'mixin.libsonnet') + %s).grafanaDashboards" % (overrides or "{}")
    boards = json.loads(_jsonnet.evaluate_snippet(os.path.join(ROOT, "dashboards.jsonnet"), src, jpathdir=[ROOT]))
    return {name: json.dumps(board, indent=2, sort_keys=True) + "\n" for name, board in sorted(boards.items())}


def main() -> int:
    for name, text in compile_all().items():
        with open(os.path.join(HERE, name), "w") as fh:
            fh.write(text)
        print(f"wrote dashboards/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
