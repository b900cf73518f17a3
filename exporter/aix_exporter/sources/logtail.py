"""Incremental reading of a growing log file: rotation, copytruncate, truncation and
NUL-filled regions handled, so no line is lost or counted twice.

A position is ``{"inode": n, "offset": bytes, "tail": hex}``: the file being read, how far,
and the last bytes read before ``offset`` (a fingerprint). Only complete lines are returned;
a partial last line waits for the next read.

* Rotation (the path is a new file): the rest of the old file is read first, found among the
  path's siblings (``dsmserv.log.1`` ...) by its inode and its fingerprint (an inode number is
  reused once its file is deleted), then every sibling rotated after it (files rotated in and
  out between two reads: oldest first), then the new file from its start. When the old file is
  no longer on the disk (more rotations between two reads than are kept, or an exporter stopped
  over them), every sibling still there is newer than the position: all are read, oldest first,
  and the position says ``"gap": 1``: the rest of the old file and any file rotated in and out
  with it are lost, a number of lines no one can know (the tsm collector counts such gaps in
  ``aix_tsm_log_rotation_gaps_total``). "Newer" is by the position's time (``t``, when it was
  read): a sibling last written before it holds nothing unread. The same holds when the path's
  inode number is ours again (reused after our file was deleted) but its bytes are not: no copy
  holds our fingerprint, and siblings written since our read are what rotated in.
* copytruncate (same file, but the bytes before the offset are no longer the fingerprint:
  shorter, or truncated and grown again past the offset): the copy that holds the lines
  written before the truncation is found among the siblings by the fingerprint, and read
  from the offset to its end, then the truncated file from its start.
* A position that lost its offset (a damaged state file) but kept its fingerprint resumes
  just after the fingerprint's last occurrence in the file.
* Runs of NUL bytes (sparse regions left by copytruncate or a crash) are dropped; a whole
  chunk without a newline is passed over rather than waited on forever.
* Only regular files are read, opened without blocking: a FIFO in the log's place is an error.
"""
from __future__ import annotations

import mmap
import os
import time

from ..parsers.tsm_actlog import timestamp_key
from . import SourceError, open_regular

MAX_CHUNK = 64 << 20   # never read more than 64 MiB in one cycle
FINGERPRINT = 64       # bytes before the offset kept to recognise the file again
MAX_SIBLINGS = 64      # rotated files looked at


class LocalFiles:
    """The files the tail reads, on this host. ``remotelog.RemoteFiles`` answers the same
    questions on an LPAR over SSH, so a remote log follows exactly these rules."""

    def now(self) -> float:
        """The clock the files' mtimes are on."""
        return time.time()

    def open(self, path: str):
        """(handle, stat) of a regular file, with ``st_ino``, ``st_size`` and ``st_mtime``; a
        SourceError when it is missing or not a regular file. The handle is a context manager."""
        return open_regular(path, "log file")

    def listdir(self, directory: str) -> list:
        return os.listdir(directory)

    def rfind(self, fh, want: bytes) -> int:
        """Where the last occurrence of ``want`` starts in the file, or -1."""
        if not want or not os.fstat(fh.fileno()).st_size:
            return -1
        try:
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
                return m.rfind(want)
        except (OSError, ValueError):
            return -1


LOCAL = LocalFiles()


def _read(fh, offset: int, limit: int) -> bytes:
    """Up to ``limit`` bytes at ``offset`` of an open log (a remote one reads itself)."""
    read_at = getattr(fh, "read_at", None)
    if read_at is not None:
        return read_at(offset, limit)
    fh.seek(offset)
    return fh.read(limit)


def _age_key(base: str, name: str):
    """Sort key, oldest first: numbered rotations (logrotate's .1 .. .N, .1 the newest) by
    number, then dated ones (dateext: -20261124, -2026-11-24, ...) by name. A suffix of 8 digits
    or more is a date, not a number: no log is rotated ten million times."""
    suffix = name[len(base):].lstrip(".-_")
    return (0, -int(suffix)) if suffix.isdigit() and len(suffix) < 8 else (1, suffix)


def _siblings(path: str, fs=LOCAL) -> list:
    """Rotated copies of ``path`` (dsmserv.log.1, dsmserv.log-20261125, ...), oldest first;
    compressed ones left out (they are no log text)."""
    d, base = os.path.split(os.path.abspath(path))
    try:
        names = [n for n in fs.listdir(d) if n.startswith(base) and n != base
                 and not n.endswith((".gz", ".Z", ".bz2", ".xz", ".zst"))]
    except (OSError, SourceError):
        return []
    names.sort(key=lambda n: _age_key(base, n))
    return [os.path.join(d, n) for n in names[-MAX_SIBLINGS:]]


def _whole_files(paths: list, since=None, fs=LOCAL) -> list:
    """The complete lines of each file, oldest first (unreadable ones passed over); with
    ``since``, only files last written after that time."""
    out = []
    for p in paths:
        try:
            fh, st = fs.open(p)
        except SourceError:
            continue
        with fh:
            if since is not None and st.st_mtime <= since:
                continue
            data = _read(fh, 0, MAX_CHUNK)
        out.append(data[: data.rfind(b"\n") + 1])
    return out


def _rest_of_old_file(path: str, position: dict, copy: bool, fs=LOCAL) -> tuple:
    """(bytes, gap): what was appended to the file we were reading after our last read, from its
    rotated name (same inode and fingerprint) or, after copytruncate, from the copy (same bytes
    before the offset); after a rotation, also every file rotated after it (the whole of each,
    oldest first). ``gap``: after a rotation the old file is gone from the disk, so every sibling
    is newer than the position and all of them are read."""
    offset, tail_hex = position.get("offset", 0), position.get("tail", "")
    fingerprint = bytes.fromhex(tail_hex) if tail_hex else b""
    siblings = _siblings(path, fs)
    for i, sib in enumerate(siblings):
        try:
            fh, st = fs.open(sib)
        except SourceError:
            continue
        with fh:
            if st.st_size < offset:
                continue
            if not copy and st.st_ino != position.get("inode"):
                continue
            if fingerprint and _read(fh, offset - len(fingerprint), len(fingerprint)) != fingerprint:
                continue    # copytruncate's copy, or a reused inode number: the bytes decide
            if copy and not fingerprint:
                continue
            data = _read(fh, offset, MAX_CHUNK)
            out = [data[: data.rfind(b"\n") + 1]]
        if not copy:
            out += _whole_files(siblings[i + 1:], fs=fs)   # rotated in and out since our last read
        return b"".join(out), False
    if "inode" not in position:
        return b"", False
    since = position.get("t")
    if copy and since is None:
        return b"", False        # a truncation without a copy, and no time to tell new siblings by
    rotated_in = _whole_files(siblings, since, fs)
    return b"".join(rotated_in), bool(rotated_in) or not copy


def _fingerprint_ok(fh, position: dict, fs=LOCAL) -> bool:
    """The bytes before the saved offset are still the saved fingerprint (no position, or
    none saved: nothing to compare)."""
    tail_hex = position.get("tail", "")
    offset = position.get("offset", 0)
    if not tail_hex or offset < len(tail_hex) // 2:
        return True
    want = bytes.fromhex(tail_hex)
    return _read(fh, offset - len(want), len(want)) == want


def _find_fingerprint(fh, tail_hex: str, fs=LOCAL) -> int:
    """The offset just after the last occurrence of the fingerprint, or -1."""
    want = bytes.fromhex(tail_hex)
    at = fs.rfind(fh, want)
    return at + len(want) if at >= 0 else -1


def tail(path: str, position, start_at_end: bool = False, fs=LOCAL):
    """Return (text, new_position). ``position`` None: from the start, or from
    the end when ``start_at_end`` (a fresh exporter does not recount history). ``fs``: where
    the files are (this host, or an LPAR over SSH: remotelog.RemoteFiles)."""
    read_at = fs.now()          # (before the read: a file written after this holds lines newer than it)
    fh, st = fs.open(path)
    gap = False
    with fh:
        before = b""
        if position is not None and "offset" not in position and position.get("tail"):
            found = _find_fingerprint(fh, position["tail"], fs)    # a damaged state: its fingerprint only
            position = {**position, "offset": found} if found >= 0 else None
        if position is None:
            offset = st.st_size if start_at_end else 0
        elif position.get("inode") != st.st_ino and "inode" in position:
            before, gap = _rest_of_old_file(path, position, copy=False, fs=fs)       # rotated
            offset = 0
        elif st.st_size < position.get("offset", 0) or not _fingerprint_ok(fh, position, fs):
            before, gap = _rest_of_old_file(path, position, copy=True, fs=fs)        # copytruncate / truncated (and regrown)
            offset = 0
        else:
            offset = position.get("offset", 0)   # a position without an offset: from the start
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
    return text, {"inode": st.st_ino, "offset": new_offset, "tail": tail_bytes.hex(), "t": read_at,
                  **({"gap": 1} if gap else {})}


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
