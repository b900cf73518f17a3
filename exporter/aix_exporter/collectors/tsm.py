"""TSM activity log -> aix_tsm_messages_total{msgid,severity}.

Counted: every W, E, S and D message, and the configured ids (default
ANR0358E and ANR9999D, which are exported from 0 so an alert can use
increase() from the start).

Never twice: the log is read incrementally from a saved position. With
``tsm.state_file`` set, the position and the counts are written together
(temp file + rename) after each read, so a restarted exporter resumes from
the saved position with the saved counts; a crash between reading and saving
re-reads a batch whose counts were not saved either. statefile.py: only our own
files are written, and a damaged state falls back to the previous one. Without a state file the
counters start at 0 and the live log is read from its end (history is not
recounted as new). Replay counts the whole file once.
"""
from __future__ import annotations

import logging

from .. import statefile
from ..parsers import tsm_actlog
from ..sources import SourceError
from .base import Collector, Families, register

log = logging.getLogger("aix_exporter")
COUNTED = set("WESD")


@register
class TsmCollector(Collector):
    name = "tsm"
    keys = ("tsm_actlog",)
    help = "TSM activity log: warning, error, severe, diagnostic and configured message counts"
    settings_section = "tsm"

    @classmethod
    def configured(cls, settings) -> bool:
        """On a real system the activity log needs a log file or a dsmadmc query."""
        return bool(settings.tsm.actlog_file or settings.tsm.dsmadmc)

    def __init__(self, settings):
        super().__init__(settings)
        self.ids = list(settings.tsm.message_ids)
        self.state_file = settings.tsm.state_file
        self.position = None
        self.counts: dict = {}
        self.unparsed = 0
        self.gaps = 0              # rotations that took unread lines off the disk
        self.refused = ""          # the state file is somebody else's: this collector fails, only it
        if self.state_file:
            self._load()

    def _load(self):
        assert self.state_file   # called only with one
        try:
            state = statefile.load(self.state_file)   # (damaged: the previous state; see statefile.py)
        except OSError as e:
            self.refused = str(e)
            return
        if state is not None:
            self.position = state.get("position")
            self.counts = {tuple(k.split(":", 1)): v for k, v in state.get("counts", {}).items()}
            self.unparsed = state.get("unparsed", 0)
            self.gaps = state.get("gaps", 0)

    def _save(self):
        if not self.state_file:
            return
        statefile.save(self.state_file, {"position": self.position,
                                         "counts": {f"{m}:{s}": n for (m, s), n in self.counts.items()},
                                         "unparsed": self.unparsed, "gaps": self.gaps})

    def collect(self, source) -> list:
        if self.refused:
            raise SourceError(f"tsm.state_file: {self.refused}")
        text, position = source.read_log("tsm_actlog", self.position)
        messages, odd = tsm_actlog.parse_lenient(text)
        for m in messages:
            if m.severity in COUNTED or m.msgid in self.ids:
                key = (m.msgid, m.severity)
                self.counts[key] = self.counts.get(key, 0) + 1
        binary = [e for e in odd if "binary data" in e.message]
        for e in odd:
            if e not in binary:   # each odd line is read once, so logged once
                log.warning("collector=tsm command='TSM activity log' msg=odd line skipped: %s", e)
        self.unparsed += len(odd) - len(binary)
        if isinstance(position, dict) and position.pop("gap", 0):
            self.gaps += 1
            log.warning("collector=tsm command='TSM activity log' msg=the file being read was rotated off the disk "
                        "before its rest was read: its unread lines are lost (aix_tsm_log_rotation_gaps_total)")
        self.position = position
        self._save()
        if binary:
            raise binary[0]   # not a log: this cycle failed (the bytes are not read again)
        help_ = "TSM activity-log messages seen, by message id and severity letter."
        f = Families()
        for msgid in self.ids:
            f.set("aix_tsm_messages_total", help_, self.counts.get((msgid, msgid[-1]), 0),
                  {"msgid": msgid, "severity": msgid[-1]}, counter=True)
        for (msgid, sev), n in sorted(self.counts.items()):
            if msgid not in self.ids:
                f.set("aix_tsm_messages_total", help_, n, {"msgid": msgid, "severity": sev}, counter=True)
        f.set("aix_tsm_unparsed_lines_total", "Lines of the activity or console log that were skipped as "
              "neither a message nor its continuation (each logged once).", self.unparsed, counter=True)
        f.set("aix_tsm_log_rotation_gaps_total", "Times the activity log's tail found the file it was reading "
              "rotated off the disk before it read the rest (more rotations between two reads than are kept): "
              "lines were lost, how many cannot be known; every newer rotated file was read.", self.gaps, counter=True)
        return f.result()
