"""The LPAR's clock as the remote log tail uses it (issue 57, item 6): a reading that is not a
number, that moves back or that jumps ahead once never loses or double-counts a line and never
reaches the state file. The tail runs the real Perl helper on local files through a fake runner
whose ``time`` answer is the test's LPAR clock."""
import math
import subprocess

import pytest

from aix_exporter.sources import SourceError
from aix_exporter.sources.remotelog import CLOCK_JUMP, PERL, RemoteClock, RemoteFiles
from aix_exporter.sources.logtail import tail


class Lpar:
    def __init__(self):
        self.readings = []     # what the LPAR's clock answers next (one each)
        self.now = 1_800_000_000.0

    def run(self, argv, timeout):
        if argv[3] == "time":
            return self.readings.pop(0) if self.readings else f"{self.now:.6f}\n"
        r = subprocess.run([PERL, *argv[1:]], capture_output=True, text=True, timeout=30)
        if r.returncode:
            from aix_exporter.sources import CommandFailed
            raise CommandFailed("helper failed", r.stdout, r.stderr)
        return r.stdout


class Mono:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_a_reading_that_is_not_a_number_moves_back_or_jumps_once():
    mono = Mono()
    clock = RemoteClock(clock=mono)
    assert clock.reading("1800000000.500000\n") == 1800000000.5
    for bad in ("nan", "inf", "-5", "1e308", "", "12:00"):
        with pytest.raises(SourceError, match="not seconds since 1970"):
            clock.reading(bad)
    mono.t += 10
    assert clock.reading("1799999000") == 1800000000.5        # back: the last reading stands
    mono.t += 10
    with pytest.raises(SourceError, match="jumped 3600s ahead"):
        clock.reading(f"{1800000000.5 + 10 + 3600}")          # one wrong reading: not used
    mono.t += 5
    assert clock.reading(f"{1800000000.5 + 25}") == 1800000025.5   # the next one is normal again
    mono.t += 5
    with pytest.raises(SourceError):
        clock.reading(f"{1800000030.5 + CLOCK_JUMP + 60}")
    mono.t += 5
    assert clock.reading(f"{1800000035.5 + CLOCK_JUMP + 60}") == 1800000035.5 + CLOCK_JUMP + 60   # confirmed: a step


@pytest.mark.parametrize("glitch", ["nan", "1e308", "-1", "BACK", "AHEAD"])
def test_one_wrong_reading_between_rotations_loses_and_doubles_no_line(tmp_path, glitch):
    lpar, log = Lpar(), tmp_path / "dsmserv.log"
    fs = RemoteFiles(lpar.run, 10, RemoteClock(clock=Mono()))
    log.write_text("a 1\n")
    text, pos = tail(str(log), None, fs=fs)
    assert text == "a 1\n"
    counted = [text]
    log.write_text("a 1\nb 2\n")
    lpar.readings = [{"BACK": f"{lpar.now - 86400:.6f}\n", "AHEAD": f"{lpar.now + 86400:.6f}\n"}.get(glitch, glitch)]
    try:
        text, pos2 = tail(str(log), pos, fs=fs)
    except SourceError:
        pos2, text = pos, ""   # the read failed: its position is not saved
    counted.append(text)
    assert all(isinstance(v, str) or math.isfinite(v) for v in pos2.values()), pos2
    assert pos2["t"] <= lpar.now
    log.rename(tmp_path / "dsmserv.log.1")   # rotated, then the new file gets a line
    log.write_text("c 3\n")
    text, pos3 = tail(str(log), pos2, fs=fs)
    counted.append(text)
    assert "".join(counted).splitlines() == ["a 1", "b 2", "c 3"], counted
