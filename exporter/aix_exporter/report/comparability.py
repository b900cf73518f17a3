"""Whether a before/after comparison's two windows are comparable for tape (issue 60): tape MB/s
also falls when a drive needs cleaning, when media errors force retries, when a drive or its path
is offline, when fewer drives are at work in one window than in the other, or when the library
runs short of scratch tapes. The report names each such confounder per window, keeps the tape
figures it explains from a verdict, and gives the figures per drive beside the totals.

Per window (each query at the window's end over its length):

* the drives at work: a drive (``aix_tape_*{device}``, iostat -p) that moved more than
  ``AT_WORK`` (1 MiB/s) on average;
* tape errors per drive: the error log's hardware entries against ``rmtN`` in the window
  (``aix_errpt_entries_total{class="H"}``, TAPE_ERR6 the drive asking for cleaning); a series
  born in the window counts from 0 (the collector counts from its start);
* the server's drives and paths offline at some point (``aix_tsm_drive_online``,
  ``aix_tsm_path_online`` 0), and a library below ``tsmScratchMin`` scratch tapes.

Without per-drive tape figures in a window (nmon recordings), comparability cannot be checked,
and the report says so; a history without the error log or the checklist is checked on what it
has, and says what it lacks.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from ..monitoring import CONFIG

MIB = 1 << 20
AT_WORK = MIB   # bytes per second: a drive moving less on average is not at work


@dataclass
class DriveRow:
    device: str
    mibps: tuple                  # (before, after) MiB/s averaged over the window; None without data
    errors: tuple                 # ({label: count} before, {label: count} after)

    def errors_text(self, k: int) -> str:
        return ", ".join(f"{label} x{n}" for label, n in sorted(self.errors[k].items())) or "-"

    def mib_text(self, k: int) -> str:
        v = self.mibps[k]
        return "n/a" if v is None else f"{v:,.1f}"


@dataclass
class Comparability:
    drives: list = field(default_factory=list)            # DriveRow per device, by device number
    at_work: tuple = (0, 0)                               # drives at work before, after
    offline: tuple = ((), ())                             # ("drive DRIVE3", "path TSMSRV -> DRIVE3") per window
    scratch_low: tuple = ((), ())                         # ("TS4500 (4 scratch)", ...) per window
    has_errpt: bool = False
    has_checklist: bool = False
    checked: bool = True                                  # per-drive tape figures in both windows

    def confounders(self) -> tuple:
        """What makes the windows unsafe to compare for tape, as (before, after) lists of text."""
        out: tuple = ([], [])
        if not self.checked:
            return out
        for k, name in ((0, "before"), (1, "after")):
            for d in self.drives:
                if d.errors[k]:
                    out[k].append(f"{d.device} logged {d.errors_text(k)} during the {name} window")
            out[k].extend(f"{what} offline during the {name} window" for what in self.offline[k])
            out[k].extend(f"library {lib} short of scratch tapes during the {name} window" for lib in self.scratch_low[k])
        if self.at_work[0] != self.at_work[1]:
            out[1].append(f"{self.at_work[1]} drives at work in the after window, {self.at_work[0]} before")
        return out

    @property
    def comparable(self) -> Optional[bool]:
        """True: nothing found; False: a confounder; None: not checked (no per-drive data)."""
        if not self.checked:
            return None
        before, after = self.confounders()
        return not (before or after)

    @property
    def state(self) -> str:
        return {True: "comparable", False: "not comparable", None: "not checked"}[self.comparable]

    def lines(self) -> list:
        """What each window had, for the report's Comparability section."""
        out = [f"Drives at work (more than 1 MiB/s on average): {self.at_work[0]} before, {self.at_work[1]} after"]
        for k, name in ((0, "before"), (1, "after")):
            if self.offline[k]:
                out.append(f"Offline during the {name} window: {', '.join(self.offline[k])}")
            if self.scratch_low[k]:
                out.append(f"Short of scratch tapes during the {name} window: {', '.join(self.scratch_low[k])}")
        if not self.has_errpt:
            out.append("No error log (errpt) in this history: tape errors not checked")
        if not self.has_checklist:
            out.append("No TSM checklist (drives, paths, scratch) in this history: not checked")
        return out

    def clean(self) -> list:
        """The drives at work in both windows with no errors in either."""
        return [d for d in self.drives if not d.errors[0] and not d.errors[1]
                and all(v is not None and v > AT_WORK / MIB for v in d.mibps)]

    def sentence(self) -> str:
        """One sentence for the verdict: comparable, or what makes it unsafe and how the others moved."""
        if not self.checked:
            return ("Comparability could not be checked: this history has no per-drive tape figures in both windows "
                    "(nmon recordings have none).")
        lacking = [w for w, has in (("the error log (errpt)", self.has_errpt),
                                    ("the server's drives and paths (the TSM checklist)", self.has_checklist)) if not has]
        lack = f" ({and_list(lacking)} not in this history: not checked)" if lacking else ""
        before, after = self.confounders()
        if not (before or after):
            n = self.at_work[0]
            return (f"Comparable for tape: {n} drive{'s' if n != 1 else ''} at work in both windows, no tape "
                    f"errors, no drive or path offline and no scratch shortage{lack}.")
        clean = self.clean()
        others = ""
        if clean:
            b = sum(d.mibps[0] for d in clean) / len(clean)
            a = sum(d.mibps[1] for d in clean) / len(clean)
            others = (f"; the other {_count(len(clean))} drive{'s' if len(clean) != 1 else ''} moved from {b:,.1f} to "
                      f"{a:,.1f} MiB/s each ({a / b:.2f}x)" if b else "")
        return (f"Not comparable for tape: {'; '.join(before + after)}{others}{lack}. The tape figures are shown, "
                f"not judged.")


_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def _count(n: int) -> str:
    return _WORDS[n] if n < len(_WORDS) else str(n)


def and_list(names: list) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def device_key(device: str):
    m = re.search(r"(\d+)$", device)
    return (device.rstrip("0123456789"), int(m.group(1)) if m else -1)


def drives_in(prom, sel: str, w) -> tuple:
    """One window's (compare.Window) tape figures per drive: ({device: bytes/s averaged over the
    window}, {device: {label: hardware errors logged in it}}, whether the history has the error
    log in it). The report compares two windows with it; the plan reads its one window."""
    rng = f"{w.seconds}s"
    rates: dict = {}
    errors: dict = {}
    tape = (f"sum by (device) (rate(aix_tape_read_bytes_total{{{sel}}}[{rng}]) + "
            f"rate(aix_tape_written_bytes_total{{{sel}}}[{rng}]))")
    for r in prom.instant(tape, w.end):
        rates[r["metric"].get("device", "?")] = r["value"]
    has_errpt = bool(prom.instant(f"count(max_over_time(aix_errpt_entries_total{{{sel}}}[{rng}]))", w.end))
    errpt = f'aix_errpt_entries_total{{{sel},class="H",resource=~"rmt[0-9]+"}}'
    born = (f"sum by (resource, label) (max_over_time({errpt}[{rng}]) - (last_over_time({errpt}[1d] offset {rng}) "
            f"or max_over_time({errpt}[{rng}]) * 0))")
    for r in prom.instant(born, w.end):
        n = int(round(r["value"]))
        if n > 0:
            errors.setdefault(r["metric"].get("resource", "?"), {})[r["metric"].get("label", "?")] = n
    return rates, errors, has_errpt


def check(prom, sel: str, before, after) -> Comparability:
    """The comparability of two windows (compare.Window) of the series ``sel`` selects."""
    c = Comparability()
    rates: list = [{}, {}]
    errors: list = [{}, {}]
    offline: list = [[], []]
    scratch: list = [[], []]
    for k, w in enumerate((before, after)):
        rng = f"{w.seconds}s"
        rates[k], errors[k], has_errpt = drives_in(prom, sel, w)
        c.has_errpt = c.has_errpt or has_errpt
        for r in prom.instant(f"min_over_time(aix_tsm_drive_online{{{sel}}}[{rng}])", w.end):
            c.has_checklist = True
            if r["value"] == 0:
                offline[k].append(f"drive {r['metric'].get('drive', '?')}")
        for r in prom.instant(f"min_over_time(aix_tsm_path_online{{{sel}}}[{rng}]) == 0", w.end):
            offline[k].append(f"path {r['metric'].get('source', '?')} -> {r['metric'].get('destination', '?')}")
        for r in prom.instant(f'min_over_time(aix_tsm_library_volumes{{{sel},status="scratch"}}[{rng}]) < '
                              f'{CONFIG["tsmScratchMin"]}', w.end):
            scratch[k].append(f"{r['metric'].get('library', '?')} ({int(r['value'])} scratch)")
    devices = sorted(set(rates[0]) | set(rates[1]) | set(errors[0]) | set(errors[1]), key=device_key)
    c.drives = [DriveRow(d, tuple(None if rates[k].get(d) is None else rates[k][d] / MIB for k in (0, 1)),
                         (errors[0].get(d, {}), errors[1].get(d, {}))) for d in devices]
    c.at_work = tuple(sum(1 for v in rates[k].values() if v > AT_WORK) for k in (0, 1))
    c.offline = (tuple(sorted(offline[0])), tuple(sorted(offline[1])))
    c.scratch_low = (tuple(sorted(scratch[0])), tuple(sorted(scratch[1])))
    c.checked = bool(rates[0]) and bool(rates[1])
    return c
