"""Compile the dashboards: python3 dashboards/build_dashboards.py  (src/*.jsonnet -> *.json).

The compiled JSON is committed so users can import it as is; the test suite
checks it equals what the sources produce.
"""
import json
import os
import sys

import _jsonnet

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")


def compile_all() -> dict:
    out = {}
    for name in sorted(os.listdir(SRC)):
        if name.endswith(".jsonnet"):
            text = _jsonnet.evaluate_file(os.path.join(SRC, name))
            out[name[: -len(".jsonnet")] + ".json"] = json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
    return out


def main() -> int:
    for name, text in compile_all().items():
        with open(os.path.join(HERE, name), "w") as fh:
            fh.write(text)
        print(f"wrote dashboards/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
