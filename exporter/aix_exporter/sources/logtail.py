"""Incremental reading of a growing log file: rotation, copytruncate, truncation and
NUL-filled regions handled, so no line is lost or counted twice.

A position is ``{"inode": n, "offset": bytes, "tail": hex}``: the file being read, how far,
and the last bytes read before ``offset`` (a fingerprint). Only complete lines are returned;
a partial last line waits for the next read.

* Rotation (the path is a new file): the rest of the old file is read first, found among the
  path's siblings (``dsmserv.log.1`` ...) by its inode, then the new file from its start.
* copytruncate (same file, now shorter than the offset): the copy that holds the lines
  written before the truncation is found among the siblings by the fingerprint, and read
  from the offset to its end, then the truncated file from its start.
* Runs of NUL bytes (sparse regions left by copytruncate or a crash) are dropped; a whole
  chunk without a newline is passed over rather than waited on forever.
* Only regular files are read, opened without blocking: a FIFO in the log's place is an error.
"""
from __future__ import annotations

import os

from ..parsers.tsm_actlog import timestamp_key
from . import SourceError, open_regular

MAX_CHUNK = 64 << 20   # never read more than 64 MiB in one cycle
FINGERPRINT = 64       # bytes before the offset kept to recognise the file again
MAX_SIBLINGS = 64      # rotated files looked at


def _read(fh, offset: int, limit: int) -> bytes:
    fh.seek(offset)
    return fh.read(limit)


def _siblings(path: str) -> list:
    d, base = os.path.split(os.path.abspath(path))
    try:
        names = sorted(n for n in os.listdir(d) if n.startswith(base) and n != base)[:MAX_SIBLINGS]
    except OSError:
        return []
    return [os.path.join(d, n) for n in names]


def _rest_of_old_file(path: str, position: dict, copy: bool) -> bytes:
    """What was appended to the file we were reading after our last read, from its rotated
    name (same inode) or, after copytruncate, from the copy (same bytes before the offset)."""
    offset, tail_hex = position.get("offset", 0), position.get("tail", "")
    fingerprint = bytes.fromhex(tail_hex) if tail_hex else b""
    for sib in _siblings(path):
        try:
            fh, st = open_regular(sib, "log file")
        except SourceError:
            continue
        with fh:
            if st.st_size < offset:
                continue
            if not copy and st.st_ino != position.get("inode"):
                continue
            if copy and (not fingerprint or _read(fh, offset - len(fingerprint), len(fingerprint)) != fingerprint):
                continue
            data = _read(fh, offset, MAX_CHUNK)
            return data[: data.rfind(b"\n") + 1]
    return b""


def tail(path: str, position, start_at_end: bool = False):
    """Return (text, new_position). ``position`` None: from the start, or from
    the end when ``start_at_end`` (a fresh exporter does not recount history)."""
    fh, st = open_regular(path, "log file")
    with fh:
        before = b""
        if position is None:
            offset = st.st_size if start_at_end else 0
        elif position.get("inode") != st.st_ino:
            before = _rest_of_old_file(path, position, copy=False)       # rotated
            offset = 0
        elif st.st_size < position.get("offset", 0):
            before = _rest_of_old_file(path, position, copy=True)        # copytruncate / truncated
            offset = 0
        else:
            offset = position["offset"]
        try:
            data = b"" if (position is None and start_at_end) else _read(fh, offset, MAX_CHUNK)
            end = data.rfind(b"\n") + 1
            if end == 0 and len(data) == MAX_CHUNK:
                end = len(data)          # a whole chunk without a line end (NULs): pass over it
            new_offset = offset + end
            tail_bytes = _read(fh, max(0, new_offset - FINGERPRINT), min(FINGERPRINT, new_offset))
        except OSError as e:
            raise SourceError(f"cannot read {path}: {e.strerror}") from None
    text = (before + data[:end]).replace(b"\x00", b"").decode("utf-8", errors="replace")
    return text, {"inode": st.st_ino, "offset": new_offset, "tail": tail_bytes.hex()}


def dsmadmc_new_lines(text: str, position):
    """Messages of a 'q actlog' query that are newer than the watermark.

    The position keeps the newest timestamp seen and the message lines seen at
    that second, so overlapping query windows never count a message twice. The
    date grammar is the activity-log parser's (tsm_actlog.timestamp_key).
    """
    mark = (position or {}).get("mark", "")
    seen = set((position or {}).get("seen", []))
    out, keep = [], False
    new_mark, new_seen = mark, set(seen)
    for line in text.splitlines():
        ts = timestamp_key(line)
        if ts is not None:
            keep = ts > mark or (ts == mark and line not in seen)
            if ts > new_mark:
                new_mark, new_seen = ts, set()
            if ts == new_mark:
                new_seen.add(line)
        if keep:
            out.append(line)
    return "\n".join(out) + ("\n" if out else ""), {"mark": new_mark, "seen": sorted(new_seen)}
