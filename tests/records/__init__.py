"""Expected records of the fixtures, jc's way: next to each ``tests/fixtures/<key>/<case>.txt``
the parser's record as ``<case>.json``, checked by tests/unit/test_fixture_records.py.

Regenerate after a deliberate parser change, then read the diff:

    python3 -m tests.records            # every key of the command table
    python3 -m tests.records svmon_p    # one key

A fixture the parser rejects on purpose is recorded as {"error": "<the ParseError>"}.
"""
import dataclasses
import json

from aix_exporter.commands import COMMANDS
from aix_exporter.parsers import ParseError
from tests.lib import FIXTURES


def to_json(obj):
    """A record as plain JSON values: dataclasses become objects (with their type name),
    tuples lists, dict keys strings."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {"_type": type(obj).__name__}
        out.update({f.name: to_json(getattr(obj, f.name)) for f in dataclasses.fields(obj)})
        return out
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_json(v) for v in obj]
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if hasattr(obj, "isoformat"):   # a datetime: as the parser read it
        return obj.isoformat()
    raise TypeError(f"no JSON form for {type(obj).__name__}")


def record_of(key: str, text: str):
    try:
        return to_json(COMMANDS[key].parse(text))
    except ParseError as e:
        return {"error": str(e)}


def cases(key: str) -> list:
    return sorted((FIXTURES / COMMANDS[key].fixture_dir).glob("*.txt"))


def dump(record) -> str:
    return json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
