"""Property test: mutated nmon recordings import or stop with the importer's own NmonError,
never another exception (IndexError, ValueError, KeyError, UnicodeError ...)."""
import gzip
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aix_exporter.importers.nmon import NmonError
from aix_exporter.tools.importing import run_import
from tests.lib import CORPUS, FIXTURES

SEEDS = [p.read_text() for p in sorted((FIXTURES / "nmon").glob("*.nmon"))]
_REAL = CORPUS / "nmon" / "adejoux-nmon2influxdb-aixlpar-aix713.nmon.gz"
if _REAL.is_file():   # the real recording's first 2,500 lines: AAA, BBBP, headers and snapshots
    SEEDS.append("".join(gzip.open(_REAL, "rt", errors="replace").readlines()[:2500]))
ODD = ["", ",", ";", "T0001", "T1", "ZZZZ", "ZZZZ,T0001", "ZZZZ,T0001,25:61:61,31-FEB-2016", "AAA,date,99/99/99",
       "AAA,timezone,Mars/Olympus", "1e309", "nan", "-", "\u0663", "\x00", "\ufffd", '"', 'BBBP,1,vmo -L,"lgpg_size 1E 0 8E-1"']


@st.composite
def mutated(draw):
    lines = draw(st.sampled_from(SEEDS)).splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 5))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["truncate", "dup", "drop", "swap", "odd_field", "odd_line", "split"]))
        if op == "truncate":
            lines = lines[:i] + [lines[i][:draw(st.integers(0, len(lines[i])))]]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "drop":
            del lines[i]
        elif op == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif op == "odd_field":
            fields = lines[i].rstrip("\n").split(",")
            fields[draw(st.integers(0, len(fields) - 1))] = draw(st.sampled_from(ODD))
            lines[i] = ",".join(fields) + "\n"
        elif op == "odd_line":
            lines.insert(i, draw(st.sampled_from(ODD)) + "\n")
        elif op == "split":
            cut = draw(st.integers(0, len(lines[i])))
            lines[i:i + 1] = [lines[i][:cut] + "\n", lines[i][cut:]]
    return "".join(lines)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(), st.sampled_from(["UTC", "Europe/Paris"]), st.sampled_from([None, "dmy"]))
def test_mutated_recordings_import_or_raise_nmon_error(text, tz, order):
    with tempfile.TemporaryDirectory() as d:
        path = f"{d}/in.nmon"
        with open(path, "w", encoding="utf-8", errors="replace") as fh:
            fh.write(text)
        try:
            run_import("nmon", [path], f"{d}/out.om", tz=tz, date_order=order)
        except NmonError:
            pass
