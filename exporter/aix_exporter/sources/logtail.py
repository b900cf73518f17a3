"""Incremental reading of a growing log file, rotation and truncation handled.

A position is ``{"inode": n, "offset": bytes}``. Only complete lines are
returned; a partial last line waits for the next read.
"""
from __future__ import annotations

import os

from ..parsers.tsm_actlog import timestamp_key
from . import SourceError

MAX_CHUNK = 64 << 20   # never read more than 64 MiB in one cycle


def tail(path: str, position, start_at_end: bool = False):
    """Return (text, new_position). ``position`` None: from the start, or from
    the end when ``start_at_end`` (a fresh exporter does not recount history)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise SourceError(f"log file {path} does not exist") from None
    except OSError as e:
        raise SourceError(f"cannot stat {path}: {e.strerror}") from None
    if position is None:
        offset = st.st_size if start_at_end else 0
        if start_at_end:
            return "", {"inode": st.st_ino, "offset": offset}
    elif position.get("inode") != st.st_ino or st.st_size < position.get("offset", 0):
        offset = 0             # rotated (new inode) or truncated: read the new file from its start
    else:
        offset = position["offset"]
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            data = fh.read(MAX_CHUNK)
    except OSError as e:
        raise SourceError(f"cannot read {path}: {e.strerror}") from None
    end = data.rfind(b"\n") + 1
    return data[:end].decode("utf-8", errors="replace"), {"inode": st.st_ino, "offset": offset + end}


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
