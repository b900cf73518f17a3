"""Property tests: mutated real-format outputs. Every parser returns a record or raises its
own ParseError, nothing else (no IndexError, KeyError, ValueError, ...)."""
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aix_exporter.commands import COMMANDS
from aix_exporter.parsers import ParseError
from aix_exporter.sources.simulate import SimulatedSource
from tests.lib import FIXTURES

PARSERS = {key: c.parse for key, c in COMMANDS.items()}
FIXTURE_DIRS = {key: c.fixture_dir for key, c in COMMANDS.items()}


def seeds(key):
    texts = [p.read_text() for p in sorted((FIXTURES / FIXTURE_DIRS[key]).glob("*.txt"))]
    for sc, t in (("case-study", 3600), ("exhaustion", 7 * 3600), ("fallback", 5 * 3600)):
        src = SimulatedSource(sc)
        src.set_time(t)
        try:
            texts.append(src.read(key))
        except Exception:
            pass
    return texts


SEEDS = {k: seeds(k) for k in PARSERS}
HUGE = ["9" * 40, "-1", "1e309", "nan", "0x1F", "4636223281790821470", "N/A", "-"]
ODD = ["\u0663", "\u00b2", "\u2460", "\U0001d7d9", "\u216b", "\xa0", "\t", "..", "...", "1.2.3", "_1", "+5", "1e5"]
LOCALE_WORDS = ["mémoire", "Speicher", "taille", "Größe", "使用中", "Seiten", "libre", "utilisé"]


@st.composite
def mutated(draw, key):
    text = draw(st.sampled_from(SEEDS[key]))
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["truncate", "dup", "drop", "huge", "huge_row", "odd_char", "binary", "locale",
                                   "swap", "empty_fields"]))
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        if op == "truncate":
            cut = draw(st.integers(0, len(lines[i])))
            lines = lines[:i] + [lines[i][:cut]]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "drop":
            del lines[i]
        elif op == "huge":
            toks = lines[i].split(" ")
            j = draw(st.integers(0, len(toks) - 1))
            toks[j] = draw(st.sampled_from(HUGE))
            lines[i] = " ".join(toks)
        elif op == "huge_row":  # every number of one line: a whole row overflows or turns negative
            big = draw(st.sampled_from(HUGE))
            lines[i] = " ".join(big if t.replace(".", "", 1).isdigit() else t for t in lines[i].split(" "))
        elif op == "odd_char":  # a character that str.isdigit() or str.split() accept and int() or AIX do not
            digits = [k for k, c in enumerate(lines[i]) if c.isdigit() or c in "./"]
            if digits:
                k = draw(st.sampled_from(digits))
                lines[i] = lines[i][:k] + draw(st.sampled_from(ODD)) + lines[i][k + 1:]
        elif op == "binary":
            blob = draw(st.binary(min_size=1, max_size=16)).decode("latin-1")
            lines[i] = lines[i][: len(lines[i]) // 2] + blob + lines[i][len(lines[i]) // 2:]
        elif op == "locale":
            toks = lines[i].split(" ")
            j = draw(st.integers(0, len(toks) - 1))
            toks[j] = draw(st.sampled_from(LOCALE_WORDS))
            lines[i] = " ".join(toks)
        elif op == "swap" and len(lines) > 1:
            k = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[k] = lines[k], lines[i]
        elif op == "empty_fields":
            lines[i] = " ".join(lines[i].split()[::2]) + "\n"
    return "".join(lines)


@pytest.mark.parametrize("key", sorted(PARSERS))
def test_parser_returns_a_record_or_raises_parse_error(key):
    @settings(max_examples=int(os.environ.get("AIX_EXPORTER_FUZZ_EXAMPLES", 150)), deadline=None, suppress_health_check=list(HealthCheck))
    @given(mutated(key))
    def run(text):
        try:
            PARSERS[key](text)
        except ParseError as e:
            assert str(e) and "\n" not in str(e)      # one line, for the log

    run()


@pytest.mark.parametrize("key", sorted(PARSERS))
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(max_size=400))
def test_arbitrary_text(key, text):
    try:
        PARSERS[key](text)
    except ParseError:
        pass
