"""Every fixture of every command parses to the record stored beside it (jc's shape):
tests/fixtures/<key>/<case>.txt -> <case>.json. Regenerate with `python3 -m tests.records`
after a deliberate parser change and review the diff."""
import json

import pytest

from aix_exporter.commands import COMMANDS
from tests.records import cases, record_of

CASES = [pytest.param(key, txt, id=f"{key}/{txt.name}") for key in COMMANDS for txt in cases(key)]


@pytest.mark.parametrize("key,txt", CASES)
def test_fixture_parses_to_its_recorded_record(key, txt):
    expected = txt.with_suffix(".json")
    assert expected.exists(), f"{expected.name} missing: python3 -m tests.records {key}"
    assert record_of(key, txt.read_text()) == json.loads(expected.read_text())


def test_no_record_without_its_fixture():
    for cmd in COMMANDS.values():
        from tests.lib import FIXTURES
        for js in (FIXTURES / cmd.fixture_dir).glob("*.json"):
            assert js.with_suffix(".txt").exists(), js
