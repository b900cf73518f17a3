"""The CHANGELOG's form (issue 46, item 9): version headings, the version the packages carry
first, and one tagged entry per change."""
import re

from aix_exporter import __version__
from tests.lib import ROOT

TAGS = ("[FEATURE]", "[ENHANCEMENT]", "[BUGFIX]", "[CHANGE]", "[SECURITY]")


def _changelog() -> str:
    return (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_the_newest_heading_is_the_version_the_packages_carry():
    versions = re.findall(r"^## (\S+) / (\S+)$", _changelog(), re.M)
    assert versions, "no '## VERSION / DATE' heading"
    assert versions[0][0] == __version__
    spec = (ROOT / "deploy" / "aix" / "aix_exporter.spec").read_text(encoding="utf-8")
    assert f"- {__version__}-" in spec.split("%changelog", 1)[1]
    assert re.search(rf'^version = "{re.escape(__version__)}"$',
                     (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)


def test_every_second_level_heading_is_a_version():
    for line in _changelog().splitlines():
        if line.startswith("## "):
            assert re.fullmatch(r"## \d+\.\d+\.\d+ / (unreleased|\d{4}-\d\d-\d\d)", line), line


def test_every_entry_starts_with_its_tag():
    entries = [ln for ln in _changelog().splitlines() if ln.startswith("- ")]
    assert len(entries) > 50
    untagged = [ln for ln in entries if not ln[2:].startswith(TAGS)]
    assert untagged == []
