"""The TSM activity log tailed, and the newest splat report read, on an LPAR over SSH, by the
local source's own rules.

``logtail.tail`` reads its files through a small interface (open with a stat, read at an
offset, list a directory, find a fingerprint, the files' clock); :class:`RemoteFiles` answers
those questions on the LPAR by running ``/usr/bin/perl -e HELPER OP ARGS`` there (Perl is
part of AIX's base, ``perl.rte``; nothing is installed). So rotation, copytruncate, gaps,
the fingerprint and the position are exactly the local tail's, and the position (kept per
target in its state file) holds the remote file's inode and offset. The files' ages are
compared on the LPAR's clock (``time``), never this host's.

One difference: a local tail holds the file open between its stat and its reads; a remote
read opens the path again, so a rotation between the two is seen at the next read (by the
inode or the fingerprint, as any rotation).
"""
from __future__ import annotations

import re
import time
from typing import Callable, Optional

from . import CommandFailed, SourceError
from .logtail import tail

PERL = "/usr/bin/perl"
# One operation a run; errors on stderr with exit status 2; a file only when regular, opened
# without blocking (a FIFO in the log's place is an error, never a read that waits).
HELPER = r"""use strict; use Fcntl; use Time::HiRes ();
my ($op, @a) = @ARGV; binmode STDOUT;
sub fail { print STDERR "$_[0]\n"; exit 2 }
sub fh { my ($p) = @_; sysopen(my $f, $p, O_RDONLY | O_NONBLOCK) or fail($!{ENOENT} ? "missing" : "$!");
  my @s = Time::HiRes::stat($f); -f $f or fail("notregular"); return ($f, @s) }
if ($op eq 'time') { printf "%.6f\n", Time::HiRes::time(); }
elsif ($op eq 'stat') { my ($f, @s) = fh($a[0]); print "$s[1] $s[7] $s[9]\n"; }
elsif ($op eq 'read') { my ($f) = fh($a[0]); sysseek($f, $a[1], 0) or fail("$a[0]: $!");
  my $left = $a[2]; while ($left > 0) { my $n = sysread($f, my $b, $left > 65536 ? 65536 : $left);
  defined $n or fail("$a[0]: $!"); last if !$n; print unpack('H*', $b); $left -= $n; } }
elsif ($op eq 'list') { opendir(my $d, $a[0]) or fail("$a[0]: $!"); print join("\0", readdir $d); }
elsif ($op eq 'rfind') { my ($f, @s) = fh($a[0]); my $w = pack('H*', $a[1]); my $all = '';
  while (sysread($f, my $b, 1 << 20)) { $all .= $b; last if length($all) >= $a[2]; }
  print rindex($all, $w), "\n"; }
else { fail("unknown operation $op") }
"""
MAX_RFIND = 64 << 20
READ_PIECE = 4 << 20    # bytes a read asks for at once (8 MiB of hex, under the target's output budget)
CLOCK_JUMP = 300.0   # seconds the LPAR's clock may run ahead of ours between two readings


class RemoteClock:
    """The LPAR's clock as the tail may use it (one per target, kept between reads).

    A reading that is not a finite number of seconds since 1970, or that runs more than
    CLOCK_JUMP ahead of the last one plus the time that passed here, is not used: the read fails
    (its position is not saved, so no line is lost or counted twice) and the next one tries
    again; a jump the next reading confirms is a real step and is taken. A reading behind the
    last is taken as the last: the tail's time never moves back (a file rotated before it would
    look new again and be counted twice)."""

    _NUMBER = re.compile(r"^[0-9]{1,11}(?:\.[0-9]{1,9})?$")

    def __init__(self, clock=time.monotonic):
        self._clock = clock
        self._last: Optional[tuple] = None      # (LPAR seconds, our monotonic seconds) of the last reading used
        self._suspect: Optional[tuple] = None   # a jump not yet confirmed

    def reading(self, text: str) -> float:
        text = text.strip()
        if not self._NUMBER.match(text):
            raise SourceError(f"remote log: the LPAR's clock answered {text[:40]!r}, not seconds since 1970")
        value, here = float(text), self._clock()
        if self._last is not None:
            expected = self._last[0] + (here - self._last[1])
            if value < self._last[0]:
                value = self._last[0]
            elif value > expected + CLOCK_JUMP:
                confirmed = self._suspect is not None and abs(value - (self._suspect[0] + here - self._suspect[1])) <= CLOCK_JUMP
                if not confirmed:
                    self._suspect = (value, here)
                    raise SourceError(f"remote log: the LPAR's clock jumped {value - expected:.0f}s ahead; "
                                      "not used until a second reading confirms it")
        self._suspect = None
        self._last = (value, here)
        return value


class _Handle:
    def __init__(self, files: "RemoteFiles", path: str, st):
        self.files, self.path, self.st = files, path, st

    def read_at(self, offset: int, limit: int) -> bytes:
        return self.files.read(self, offset, limit)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Stat:
    def __init__(self, ino: int, size: int, mtime: float):
        self.st_ino, self.st_size, self.st_mtime = ino, size, mtime


class RemoteFiles:
    """logtail's file questions, answered on the LPAR (``run``: the ssh source's runner)."""

    def __init__(self, run: Callable, timeout: float, clock: Optional[RemoteClock] = None):
        self._run, self.timeout = run, timeout
        self.clock = clock or RemoteClock()

    def _op(self, *args: str) -> str:
        try:
            return self._run([PERL, "-e", HELPER, *args], self.timeout)
        except CommandFailed as e:
            why = (e.stderr.strip().splitlines() or [str(e)])[0][:200]
            path = args[1] if len(args) > 1 else ""
            # the local tail's messages (sources.open_regular), so both read the same in a log
            if why == "missing":
                raise SourceError(f"log file {path} does not exist") from None
            if why == "notregular":
                raise SourceError(f"{path} is not a regular file") from None
            raise SourceError(f"cannot {args[0]} {path}: {why}" if path else f"remote log: {why}") from None

    def now(self) -> float:
        return self.clock.reading(self._op("time"))

    def open(self, path: str):
        fields = self._op("stat", path).split()
        if len(fields) != 3:
            raise SourceError(f"remote log: stat {path}: unexpected answer")
        st = _Stat(int(fields[0]), int(fields[1]), float(fields[2]))
        return _Handle(self, path, st), st

    def read(self, fh: _Handle, offset: int, limit: int) -> bytes:
        """The bytes as they are (sent as hex: the runner's text is UTF-8, a log may not be), in
        pieces under the runner's output cap, until ``limit`` or the end of the file."""
        out = bytearray()
        while offset >= 0 and len(out) < limit:
            want = min(READ_PIECE, limit - len(out))
            piece = bytes.fromhex(self._op("read", fh.path, str(offset + len(out)), str(want)).strip())
            out += piece
            if len(piece) < want:
                break
        return bytes(out)

    def listdir(self, directory: str) -> list:
        return [n for n in self._op("list", directory).split("\0") if n not in ("", ".", "..")]

    def rfind(self, fh: _Handle, want: bytes) -> int:
        return int(self._op("rfind", fh.path, want.hex(), str(MAX_RFIND)).strip() or -1)


def remote_tail(run: Callable, settings, position, clock: Optional[RemoteClock] = None):
    """(new complete text since position, new position) of tsm.actlog_file on the LPAR
    (``clock``: the target's RemoteClock, kept between reads)."""
    fs = RemoteFiles(run, settings.command_timeout_seconds, clock)
    return tail(settings.tsm.actlog_file, position, start_at_end=True, fs=fs)


def remote_splat_report(run: Callable, settings) -> tuple:
    """(text, modification time) of the newest splat report in splat.report_dir on the LPAR,
    by splat_window's rules: regular files named by report_glob, not hidden, at most
    MAX_REPORT_BYTES, and none older than splat.max_age_seconds (by the LPAR's clock)."""
    import fnmatch
    import os

    from .splat_window import MAX_REPORT_BYTES, check_age, check_size
    sp = settings.splat
    if not sp.report_dir:
        raise SourceError("splat over ssh: splat.report_dir is not configured (the trace window runs on the LPAR "
                          "as root: there, write reports with splat -o into a directory and name it here)")
    fs = RemoteFiles(run, settings.command_timeout_seconds)
    found = []
    for name in fs.listdir(sp.report_dir):
        if fnmatch.fnmatchcase(name, sp.report_glob) and not name.startswith("."):
            try:
                found.append(fs.open(os.path.join(sp.report_dir, name)))
            except SourceError:
                continue   # (a directory or a FIFO of that name is no report)
    if not found:
        raise SourceError(f"no splat report named {sp.report_glob} in {sp.report_dir}")
    fh, st = max(found, key=lambda f: f[1].st_mtime)
    check_size(fh.path, st.st_size)
    check_age(settings, st.st_mtime, fs.now())
    data = fs.read(fh, 0, MAX_REPORT_BYTES + 1)
    check_size(fh.path, st.st_size, len(data))
    return data.decode("utf-8", errors="replace"), st.st_mtime
