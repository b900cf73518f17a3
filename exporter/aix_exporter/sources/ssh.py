"""ssh://USER@HOST[:PORT]: the command table run on a remote LPAR over SSH, nothing installed there.

The command source (command.py) with another runner, this module's Connection: the same argv lists from the command table,
absolute paths, ``LC_ALL=C``, per-command deadlines and output caps, the TSM password on
dsmadmc's standard input (never in a remote argv), the same process discovery, per-process
commands and splat windows. Only where the bytes are produced differs.

* One SSH connection per target, kept open; each command is a channel on it (at most
  ``max_sessions`` at once, under OpenSSH's ``MaxSessions`` of 10). A lost connection is
  opened again on the next command, no sooner than a backoff that doubles from 1 s to 60 s
  after each failed attempt, so an unreachable LPAR costs one failed connect a backoff, not
  one a command.
* Key authentication only (no password, no agent, no ``~/.ssh/config``): the key file is
  refused when others can read it, as the TSM password file is. The host key is verified
  against the known_hosts file the configuration names and never accepted on first sight: an
  unknown host and a changed key are both refused, each with one line.
* The remote command line is the argv quoted for a POSIX shell (``shlex.join``), behind
  ``/usr/bin/env LC_ALL=C LANG=C PATH=...``: the remote user's login shell, or the forced-
  command wrapper ``deploy/ssh/aix-exporter-ssh-wrapper`` which runs only the command table,
  parses it into the same argv and runs no shell. The wrapper reports the CPU time of the
  command's process on standard error (``aix-exporter-cpu: USER SYS``), read here as the
  command's cost and taken out of its error text.
* A command past its deadline or output cap has its channel closed (sshd then ends the
  session; the wrapper ends the command's process group with it).
* Memory: what one target's commands hold at once while their output is read is bounded by
  ``ssh.output_budget_bytes`` (32 MiB; a normal LPAR's largest answer, ``ps -e`` or ``svmon -P``
  of many processes, is a few MiB): a command whose output would pass it fails with one line,
  its channel closed and its buffer freed, so a hostile or broken LPAR (endless output, 80 MiB
  of NULs) costs the exporter at most its budget, never the others' memory.

asyncssh (rather than paramiko): one event loop thread serves every target's connection
and channel, where paramiko needs a thread per connection, which matters at 50 targets
per exporter; its known_hosts matching and key loading are OpenSSH's formats; it needs only
``cryptography``, which Debian and pip both provide for the collecting host (the LPAR needs
nothing).
"""
from __future__ import annotations

import asyncio
import logging
import os
import re
import shlex
import stat
import threading
import time
from dataclasses import dataclass
from typing import Optional

from . import SourceError, TimedOut
from .base import MAX_OUTPUT, STDERR_KEPT, CommandFailed, exit_failure
from .command import CommandSource
from .system import ENV, redact

_SPEC = re.compile(r"^ssh://(?P<user>[A-Za-z0-9_][A-Za-z0-9_.-]{0,31})@(?P<host>[A-Za-z0-9_.:-]+?|\[[0-9A-Fa-f:.]+\])"
                   r"(?::(?P<port>\d{1,5}))?$")
ENV_PREFIX = ["/usr/bin/env", *(f"{k}={ENV[k]}" for k in ("LC_ALL", "LANG", "PATH"))]
# the wrapper's last line on stderr, exactly as it prints it; any other line, or one of another
# shape (a forged "aix-exporter-cpu: 1.2.3 0" from the command), is the command's own text
CPU_LINE = re.compile(rb"(?:\A|\n)aix-exporter-cpu: ([0-9]{1,12}(?:\.[0-9]{1,6})?) ([0-9]{1,12}(?:\.[0-9]{1,6})?)\r?\n?\Z")
_CPU_TAIL = 128   # bytes of stderr's end kept apart from its head: the wrapper's line is the last
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 60.0
# The ciphers offered, in order. AES-GCM first: one AEAD call per packet with the CPU's AES
# instructions, where asyncssh's chacha20-poly1305 builds two cipher objects per packet (a third
# of the exporter's CPU per probe in bench/perf/ssh_fleet.py's profile). All are in AIX's OpenSSH
# since 6.x; CBC, 3DES and the like are never offered.
CIPHERS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "chacha20-poly1305@openssh.com",
           "aes128-ctr", "aes256-ctr")

CHANNEL_TRIES = 3   # a refused channel is asked for again twice (0.1 s, 0.2 s later)
log = logging.getLogger("aix_exporter")
logging.getLogger("asyncssh").setLevel(logging.WARNING)   # (a line a channel at info: ours say what matters)


@dataclass
class SshTarget:
    """Where and as whom to connect (config ``ssh:`` or a ``targets:`` entry)."""
    host: str
    user: str
    port: int = 22
    key_file: Optional[str] = None
    known_hosts: Optional[str] = None
    connect_timeout_seconds: float = 10
    max_sessions: int = 8
    output_budget_bytes: int = 32 << 20   # command output held at once, all its commands together

    @property
    def address(self) -> str:
        return f"{self.user}@{self.host}:{self.port}"


def parse_spec(spec: str) -> tuple:
    """(user, host, port) of ``ssh://USER@HOST[:PORT]``; ValueError with the form otherwise."""
    m = _SPEC.match(spec)
    if not m:
        raise ValueError(f"unknown source {spec!r}: the SSH form is ssh://USER@HOST[:PORT]")
    port = int(m.group("port") or 22)
    if not 1 <= port <= 65535:
        raise ValueError(f"{spec}: port {port} is not 1-65535")
    return m.group("user"), m.group("host").strip("[]"), port


def key_problem(path: Optional[str]) -> Optional[str]:
    """Why this private key file must not be used, or None (the password file's rule)."""
    if not path:
        return "no ssh key_file configured (key authentication only)"
    try:
        st = os.stat(path)
    except OSError as e:
        return f"ssh key {path}: {e.strerror}"
    if not stat.S_ISREG(st.st_mode):
        return f"ssh key {path}: not a regular file"
    if st.st_mode & 0o077:
        return f"ssh key {path}: readable by others (mode {st.st_mode & 0o777:o}); chmod 600 it"
    return None


class _Loop:
    """The one event loop thread every SSH connection of the process runs on."""
    _lock = threading.Lock()
    _loop: Optional[asyncio.AbstractEventLoop] = None

    @classmethod
    def get(cls) -> asyncio.AbstractEventLoop:
        with cls._lock:
            if cls._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="ssh", daemon=True).start()
                cls._loop = loop
            return cls._loop


class Connection:
    """One target's SSH connection, opened on first use and again after a loss (with backoff):
    the SSH runner (runner.Runner). Its files are read with the helper the wrapper allows."""
    local = False

    def __init__(self, target: SshTarget):
        from .remotelog import RemoteClock
        self.target = target
        self.where = target.address
        self.remote_clock = RemoteClock()   # the LPAR's clock as the log tail uses it (kept between reads)
        self._conn = None
        self._sessions: Optional[asyncio.Semaphore] = None
        self._connecting: Optional[asyncio.Lock] = None
        self._next_try = 0.0
        self._backoff = BACKOFF_FIRST
        self._last_error = ""
        self.costs: dict = {}            # command name -> [remote CPU seconds or None, wall seconds, runs]
        self.held = 0                    # bytes of output its commands hold while read (the loop's thread only)
        self._costs_lock = threading.Lock()
        self.connects = 0                # successful connections opened (a reconnect counts)

    # -- thread side ----------------------------------------------------------------
    def run(self, argv: list, timeout: float, stdin: Optional[bytes] = None, max_output: int = MAX_OUTPUT) -> str:
        shown = redact([a if len(a) <= 120 and "\n" not in a else f"<{len(a)}-byte script>" for a in argv])
        command = shlex.join([*ENV_PREFIX, *argv])
        fut = asyncio.run_coroutine_threadsafe(self._run(command, shown, timeout, stdin, max_output), _Loop.get())
        try:
            rc, out, err = fut.result(timeout + self.target.connect_timeout_seconds + 5)
        except TimeoutError:   # (the coroutine's own deadline comes first; this is a last guard)
            fut.cancel()
            raise TimedOut(f"{self.target.address}: {shown}: timed out after {timeout:g}s") from None
        if rc != 0:
            raise exit_failure(f"{self.target.address}: {shown}", rc, out, err)
        return out.decode("utf-8", "replace")

    def splat_report(self, run_rooted, settings) -> tuple:
        """The LPAR's report directory, never this host's (its helper is the LPAR's own Perl,
        never under command_root: only the AIX commands have stand-ins)."""
        from .remotelog import remote_splat_report
        return remote_splat_report(self.run, settings)

    def tail_log(self, settings, position) -> tuple:
        from .remotelog import remote_tail
        return remote_tail(self.run, settings, position, self.remote_clock)

    def close(self) -> None:
        if self._conn is not None:
            asyncio.run_coroutine_threadsafe(self._close(), _Loop.get()).result(5)

    def command_costs(self) -> dict:
        with self._costs_lock:
            return {k: tuple(v) for k, v in self.costs.items()}

    # -- loop side --------------------------------------------------------------------
    async def _close(self):
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
            await conn.wait_closed()

    async def _connection(self):
        if self._connecting is None:
            self._connecting = asyncio.Lock()
            self._sessions = asyncio.Semaphore(self.target.max_sessions)
        async with self._connecting:
            if self._conn is not None and not self._conn.is_closed():
                return self._conn
            now = time.monotonic()
            if now < self._next_try:
                raise SourceError(f"{self.target.address}: not connected ({self._last_error}); next attempt in "
                                  f"{self._next_try - now:.0f}s")
            try:
                self._conn = await self._open()
            except SourceError as e:
                self._last_error = str(e)
                self._next_try = time.monotonic() + self._backoff
                self._backoff = min(BACKOFF_MAX, self._backoff * 2)
                raise
            self._backoff = BACKOFF_FIRST
            self.connects += 1
            log.info("msg=ssh connected address=%s connects=%d", self.target.address, self.connects)
            return self._conn

    async def _open(self):
        import asyncssh
        t = self.target
        problem = key_problem(t.key_file)
        if problem or not t.key_file:
            raise SourceError(problem or "no ssh key_file")
        try:
            key = asyncssh.read_private_key(t.key_file)
        except (ValueError, OSError) as e:   # (KeyImportError: not a key, or one with a passphrase)
            raise SourceError(f"ssh key {t.key_file}: not a private key without a passphrase ({_one_line(e)})") from None
        if not t.known_hosts or not os.path.isfile(t.known_hosts):
            raise SourceError(f"{t.address}: known_hosts file {t.known_hosts or '(not configured)'} does not exist: "
                              "host keys are never accepted on first sight")
        try:
            return await asyncio.wait_for(asyncssh.connect(
                t.host, port=t.port, username=t.user, client_keys=[key], known_hosts=t.known_hosts,
                agent_path=None, password=None, kbdint_auth=False, preferred_auth="publickey", config=None,
                x509_trusted_certs=None, gss_host=None, login_timeout=t.connect_timeout_seconds,
                keepalive_interval=30, encryption_algs=CIPHERS, compression_algs=None),
                t.connect_timeout_seconds)
        except asyncssh.HostKeyNotVerifiable as e:
            raise SourceError(f"{t.address}: host key refused: not the key {t.known_hosts} holds for this host "
                              f"({_one_line(e)})") from None
        except asyncssh.PermissionDenied:
            raise SourceError(f"{t.address}: permission denied for key {t.key_file}") from None
        except asyncio.TimeoutError:
            raise SourceError(f"{t.address}: no SSH answer within {t.connect_timeout_seconds:g}s") from None
        except (OSError, asyncssh.Error) as e:
            raise SourceError(f"{t.address}: cannot connect: {_one_line(e)}") from None

    async def _run(self, command: str, shown: str, timeout: float, stdin: Optional[bytes], max_output: int):
        import asyncssh
        started = time.monotonic()
        try:   # connecting counts against the command's deadline; the connection itself goes on for the next
            connecting = asyncio.ensure_future(self._connection())
            connecting.add_done_callback(lambda f: f.cancelled() or f.exception())   # (retrieved: never logged)
            conn = await asyncio.wait_for(asyncio.shield(connecting), timeout)
        except asyncio.TimeoutError:
            self._account(shown.split(" ", 1)[0], None, time.monotonic() - started)
            raise TimedOut(f"{self.target.address}: {shown}: timed out after {timeout:g}s while connecting") from None
        assert self._sessions is not None   # made with the connection lock
        try:
            async with self._sessions:
                for attempt in range(CHANNEL_TRIES):
                    left = timeout - (time.monotonic() - started)
                    try:
                        return await asyncio.wait_for(self._channel(conn, command, shown, stdin, max_output),
                                                      max(0.1, left))
                    except asyncssh.ChannelOpenError:
                        # sshd frees a session a moment after its channel closed: a channel opened in
                        # that moment is refused although ours are under MaxSessions. Again, shortly.
                        if attempt == CHANNEL_TRIES - 1 or left < 1:
                            raise
                        await asyncio.sleep(0.1 * (attempt + 1))
                raise AssertionError("unreachable")   # (the loop returns or raises)
        except asyncio.TimeoutError:
            raise TimedOut(f"{self.target.address}: {shown}: timed out after {timeout:g}s, channel closed") from None
        except asyncssh.ChannelOpenError as e:
            raise SourceError(f"{self.target.address}: {shown}: channel refused: {_one_line(e)}") from None
        except (OSError, asyncssh.Error) as e:
            if conn.is_closed():   # the connection went away under the command: the next one reconnects
                raise SourceError(f"{self.target.address}: {shown}: connection lost: {_one_line(e)}") from None
            # this channel's trouble only: the other commands on the connection go on
            raise SourceError(f"{self.target.address}: {shown}: channel failed: {_one_line(e)}") from None
        finally:
            self._account(shown.split(" ", 1)[0], None, time.monotonic() - started)

    async def _channel(self, conn, command: str, shown: str, stdin: Optional[bytes], max_output: int):
        """One command on its own channel: the session's callbacks keep its output as it arrives
        (no stream readers: a probe opens a dozen channels), within the command's cap and the
        target's budget; past either, the channel is closed at once and the buffer freed."""
        loop = asyncio.get_running_loop()
        got = _Output(self, shown, max_output, loop.create_future())
        chan, _ = await conn.create_session(lambda: got, command, encoding=None)
        try:
            if stdin is not None:   # (a command that ended without reading it: its output still counts)
                chan.write(stdin)
            chan.write_eof()        # (none: standard input at its end at once, as /dev/null)
        except Exception:           # (the channel closed already: what it printed still counts)
            pass
        try:
            problem = await got.done
            if problem is not None:
                raise problem
            rc = chan.get_exit_status()
        except BaseException:
            got.free()
            chan.close()
            raise
        out = got.take()
        chan.close()
        cpu, err = cpu_report(bytes(got.err), bytes(got.tail))
        if cpu is not None:
            self._account(shown.split(" ", 1)[0], cpu, 0.0, run=False)
        if got.signal:   # killed: what it printed is partial, never an answer
            raise CommandFailed(f"{self.target.address}: {shown}: killed by signal {got.signal}",
                                bytes(out).decode("utf-8", "replace"), bytes(err).decode("utf-8", "replace"))
        return (255 if rc is None else rc), out, bytes(err)   # (out: decoded once by run, never copied)

    def _account(self, path: str, cpu: Optional[float], wall: float, run: bool = True) -> None:
        name = os.path.basename(path)
        with self._costs_lock:
            c = self.costs.setdefault(name, [None, 0.0, 0])
            if cpu is not None:
                c[0] = (c[0] or 0.0) + cpu
            c[1] += wall
            c[2] += 1 if run else 0


def cpu_report(err: bytes, tail: bytes) -> tuple:
    """(the remote command's CPU seconds from the wrapper's last line, or None; stderr without
    that line). ``tail``: stderr's last bytes (its head may have been cut at STDERR_KEPT)."""
    m = CPU_LINE.search(tail)
    if not m:
        return None, err
    cpu = float(m.group(1)) + float(m.group(2))
    line = m.group(0).lstrip(b"\n")
    if err.endswith(line):
        err = err[:len(err) - len(line)]
    return cpu, err


class _Output:
    """What one channel's command prints, kept by asyncssh's session callbacks (an
    SSHClientSession in all but the base class, which would import asyncssh here): standard
    output within the command's cap and the target's budget of output held at once (past
    either: the channel's result is that error, and the buffer is freed at once), standard
    error's head for the error line and its tail for the wrapper's CPU line."""

    def __init__(self, owner: "Connection", shown: str, max_output: int, done: asyncio.Future):
        self.owner, self.shown, self.max_output, self.done = owner, shown, max_output, done
        self.out, self.err, self.tail = bytearray(), bytearray(), bytearray()
        self._chan = None
        self.signal = ""   # the signal that ended the remote command (sshd's exit-signal), if one did

    def connection_made(self, chan) -> None:
        self._chan = chan

    def session_started(self) -> None:
        pass

    def data_received(self, data: bytes, datatype) -> None:
        if self.done.done():
            return
        if datatype is not None:   # (extended data: standard error)
            self.tail[:] = (self.tail + data)[-_CPU_TAIL:]
            if len(self.err) < STDERR_KEPT:
                self.err += data[:STDERR_KEPT - len(self.err)]
            return
        where = f"{self.owner.target.address}: {self.shown}"
        if len(self.out) + len(data) > self.max_output:
            self._fail(SourceError(f"{where}: printed more than {self.max_output} bytes, channel closed"))
        elif self.owner.held + len(data) > self.owner.target.output_budget_bytes:
            self._fail(SourceError(f"{where}: output past the target's budget of "
                                   f"{self.owner.target.output_budget_bytes} bytes held at once "
                                   "(ssh.output_budget_bytes), channel closed"))
        else:
            self.out += data
            self.owner.held += len(data)

    def _fail(self, error: Exception) -> None:
        self.free()
        self.done.set_result(error)
        if self._chan is not None:
            self._chan.close()

    def free(self) -> None:
        self.take()

    def take(self) -> bytearray:
        out = self.out
        self.owner.held -= len(out)
        self.out = bytearray()
        return out

    def eof_received(self) -> bool:
        return False   # (the channel closes once the command's exit status has come)

    def pause_writing(self) -> None:
        pass

    def xon_xoff_requested(self, client_can_restart: bool) -> None:
        pass

    def exit_status_received(self, status: int) -> None:
        pass

    def exit_signal_received(self, signal: str, core_dumped: bool, msg: str, lang: str) -> None:
        self.signal = signal

    def resume_writing(self) -> None:
        pass

    def connection_lost(self, exc) -> None:
        if not self.done.done():
            self.done.set_result(exc)   # (None, or what ended the connection: _run names it)


def _one_line(e: BaseException) -> str:
    text = str(getattr(e, "reason", "") or e) or type(e).__name__
    return " ".join(text.split())[:300]


class SshSource(CommandSource):
    """The command table run on a remote LPAR (see the module's text): a command source over
    the target's Connection."""

    def __init__(self, target: SshTarget, settings=None):
        super().__init__(Connection(target), settings)
        self.target = target
        self.connection: Connection = self.runner   # type: ignore[assignment]
