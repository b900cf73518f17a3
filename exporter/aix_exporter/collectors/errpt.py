"""AIX's error log -> aix_errpt_entries_total{label,class,type,resource} (issue 60).

``errpt -a`` runs in the background once every ``errpt.interval_seconds`` (300 s). An entry is
counted once, by its sequence number (the error log's own, one higher for each entry):

* the first read sets the baseline: the entries already in the log are history, not news: their
  label sets are exported at 0, so that the next one of them is an increase() from the start;
* each later read counts the entries above the last sequence counted;
* entries that left the log unread (the log wrapped: more entries between two reads than it
  holds) are counted in ``aix_errpt_entries_lost_total`` from the gap in the sequence numbers;
* a log whose newest entry is below the last sequence counted was cleared and started again
  (``errclear``): its entries are counted as new.

With ``errpt.state_file`` set (this host's LPAR, or a target's own ``errpt:`` section), the last
sequence counted and the counts are
written after each read (statefile.py: temp file and rename, only our own files, a damaged one
falls back to the previous, and with none the log is counted again from its start), so a
restarted exporter counts the entries logged while it was down, once. Without one (a target
without its own) the position lives in memory: a restart sets a new baseline, and the entries
logged while it was down are not counted. Also:

* ``aix_errpt_last_entry_timestamp_seconds{resource_class}``: the newest entry of each resource
  class (tape, disk, adapter; ``none`` for an entry without one) in the log, its time as errpt
  prints it (the LPAR's local time, read in this host's time zone, or UTC where errpt says
  UTC or GMT);
* ``aix_errpt_unparsed_entries_total``: entries that did not read (one damaged entry never
  hides the others; the first one's reason is logged).
"""
from __future__ import annotations

import calendar
import logging
import time

from .. import statefile
from ..parsers import errpt
from ..sources import SourceError
from .base import Collector, Families, register

log = logging.getLogger("aix_exporter")


def epoch(entry: errpt.Entry) -> float:
    """The entry's time as Unix time: UTC where errpt says so, else this host's local zone."""
    if entry.zone in ("UTC", "GMT", "Z"):
        return float(calendar.timegm(entry.time.timetuple()))
    return time.mktime(entry.time.timetuple())


@register
class ErrptCollector(Collector):
    name = "errpt"
    keys = ("errpt",)
    help = "AIX error log (errpt -a): entries by label, class, type and resource, counted once by sequence number"
    settings_section = "errpt"
    metrics = ("aix_errpt_entries_total", "aix_errpt_entries_lost_total", "aix_errpt_unparsed_entries_total",
               "aix_errpt_last_entry_timestamp_seconds")

    def __init__(self, settings):
        super().__init__(settings)
        self.last = None           # the highest sequence number counted (None: no read yet)
        self.counts: dict = {}     # (label, class, type, resource) -> entries counted
        self.lost = 0
        self.unparsed = 0
        self.state_file = self.config.state_file
        self.refused = ""          # the state file is somebody else's: this collector fails, only it
        if self.state_file:
            try:
                state = statefile.load(self.state_file, statefile.ERRPT)
            except OSError as e:
                self.refused = str(e)
                state = None
            if state:
                self.last = state.get("last")
                self.counts = {tuple(k.split("|")): v for k, v in state.get("counts", {}).items()}
                self.lost, self.unparsed = state.get("lost", 0), state.get("unparsed", 0)

    def _save(self) -> None:
        if self.state_file:
            statefile.save(self.state_file, {"last": self.last, "counts": {"|".join(k): n for k, n in self.counts.items()},
                                             "lost": self.lost, "unparsed": self.unparsed}, statefile.ERRPT)

    def period(self) -> float:
        return float(self.config.interval_seconds)

    def max_age(self):
        return 2.0 * self.config.interval_seconds + self.settings.command_timeout_seconds

    def count(self, report: errpt.Report) -> None:
        """Count what is new in ``report`` since the last read (the module's rules)."""
        self.unparsed += report.skipped
        if report.skipped:
            log.warning("msg=errpt entries that do not read were skipped collector=errpt skipped=%d first=%r",
                        report.skipped, report.first_problem)
        if not report.entries:
            return
        seqs = [e.sequence for e in report.entries]
        if self.last is None:
            self.last = max(seqs)
            for e in report.entries:
                self.counts.setdefault((e.label, e.error_class, e.error_type, e.resource), 0)
            return
        if max(seqs) < self.last:   # cleared (errclear) and started again: all of it is new
            self.last = min(seqs) - 1
        new = sorted((e for e in report.entries if e.sequence > self.last), key=lambda e: e.sequence)
        # the log wrapped past entries never read (last 0: a fresh state, the log read from its start)
        if self.last and new and new[0].sequence > self.last + 1 and min(seqs) == new[0].sequence:
            self.lost += new[0].sequence - self.last - 1
        for e in new:
            key = (e.label, e.error_class, e.error_type, e.resource)
            self.counts[key] = self.counts.get(key, 0) + 1
        if new:
            self.last = new[-1].sequence

    def families(self, report: errpt.Report) -> list:
        f = Families()
        for (label, cls, kind, resource), n in sorted(self.counts.items()):
            f.set("aix_errpt_entries_total", "Error log entries counted since the exporter started reading the "
                  "LPAR's error log (errpt -a, once by sequence number), by label, class (H, S, O, U), type and "
                  "resource.", n, {"label": label, "class": cls, "type": kind, "resource": resource}, counter=True)
        f.set("aix_errpt_entries_lost_total", "Error log entries that left the log before they were read (a gap "
              "in the sequence numbers: the log wrapped between two reads), since the exporter started.", self.lost,
              counter=True)
        f.set("aix_errpt_unparsed_entries_total", "Error log entries that did not read (skipped and counted), since "
              "the exporter started.", self.unparsed, counter=True)
        newest: dict = {}
        for e in report.entries:
            rc = e.resource_class or "none"
            if rc not in newest or e.sequence > newest[rc].sequence:
                newest[rc] = e
        for rc, e in sorted(newest.items()):
            f.set("aix_errpt_last_entry_timestamp_seconds", "When the newest entry of each resource class in the "
                  "error log was logged (Unix time; errpt's local time read in the exporter's time zone).",
                  epoch(e), {"resource_class": rc})
        return f.result()

    def collect(self, source) -> list:
        if self.refused:
            raise SourceError(f"errpt.state_file: {self.refused}")
        report = errpt.parse(source.read("errpt"))
        self.count(report)
        self._save()
        return self.families(report)
