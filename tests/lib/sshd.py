"""A real OpenSSH server (Debian's openssh-server) on a free loopback port, for the ssh source's
tests: host key, client key, known_hosts and authorized_keys made per run; started without
systemd, waited for by polling its port, stopped by its own PID.

The "LPAR" is a world-readable directory (``Sshd.dir``) and, when the tests run as root, a test
user of its own (``aixexp-test``, shell /bin/sh, made once with useradd): the remote commands
then never run root's login files (a ~/.bashrc that runs tools of this machine), and the remote
user reads only what the LPAR directory holds, as a monitoring user would. Not root: the tests'
own user, the only one an unprivileged sshd can log in."""
from __future__ import annotations

import getpass
import os
import pwd
import shutil
import tempfile
import pathlib
import signal
import socket
import subprocess
import time

from tests.lib import free_port, need

SSHD = "/usr/sbin/sshd"
TEST_USER = "aixexp-test"


def remote_user() -> str:
    if os.geteuid() != 0:
        return getpass.getuser()
    try:
        pwd.getpwnam(TEST_USER)
    except KeyError:
        # (password "*": no password, and not a locked account, which sshd refuses even for a key)
        subprocess.run(["/usr/sbin/useradd", "--system", "--no-create-home", "--home-dir", "/", "--shell", "/bin/sh",
                        "--password", "*", TEST_USER], check=True, timeout=30)
    return TEST_USER


def keygen(path: pathlib.Path, comment: str = "aix-exporter-test") -> pathlib.Path:
    subprocess.run([need("ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
                   check=True, timeout=30)
    path.chmod(0o600)
    return path


class Sshd:
    """sshd on 127.0.0.1:port, accepting ``client_key`` for this user (its authorized_keys line
    optionally carrying a forced command)."""

    def __init__(self, forced_command: str = ""):
        if not os.path.exists(SSHD):
            need("sshd-not-installed")   # (skips, or fails when tools are required)
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="aix-exporter-lpar-"))
        self.dir.chmod(0o755)             # (the remote user reads the LPAR's files; keys stay 600)
        self.port = free_port()
        self.user = remote_user()
        self.home = self.dir / "home"     # the monitoring user's own directory (the wrapper's --lock)
        self.home.mkdir(mode=0o700)
        if os.geteuid() == 0:
            os.chown(self.home, pwd.getpwnam(self.user).pw_uid, -1)
        self.host_key = keygen(self.dir / "host_ed25519")
        self.client_key = keygen(self.dir / "client_ed25519")
        self.known_hosts = self.dir / "known_hosts"
        host_pub = (self.dir / "host_ed25519.pub").read_text().split()
        self.known_hosts.write_text(f"[127.0.0.1]:{self.port} {host_pub[0]} {host_pub[1]}\n")
        self.set_forced_command(forced_command)
        self.config = self.dir / "sshd_config"
        self.config.write_text("\n".join([
            f"Port {self.port}", "ListenAddress 127.0.0.1", f"HostKey {self.host_key}",
            f"PidFile {self.dir / 'sshd.pid'}", f"AuthorizedKeysFile {self.dir / 'authorized_keys'}",
            "StrictModes no", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
            "PubkeyAuthentication yes", "UsePAM no", "PermitRootLogin prohibit-password", f"AllowUsers {self.user}",
            "MaxSessions 10", "LogLevel VERBOSE", "PrintMotd no", "PermitUserEnvironment no", ""]))
        self.proc = None

    def set_forced_command(self, command: str) -> None:
        pub = (self.dir / "client_ed25519.pub").read_text().strip()
        options = f'command="{command}",no-pty,no-port-forwarding,no-agent-forwarding,no-X11-forwarding ' if command else ""
        (self.dir / "authorized_keys").write_text(options + pub + "\n")
        (self.dir / "authorized_keys").chmod(0o644)   # (sshd reads it as the remote user)

    def start(self) -> "Sshd":
        if os.geteuid() == 0:   # root's sshd needs its privilege separation directory (made by systemd normally)
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        self.log = open(self.dir / "sshd.log", "w")
        self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(self.config)], stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 20
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"sshd exited {self.proc.returncode}: {(self.dir / 'sshd.log').read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    if s.recv(64).startswith(b"SSH-2.0-"):
                        return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("sshd not answering after 20 s")
            time.sleep(0.05)

    def descendants(self) -> list:
        """PIDs of the processes our sshd started (its sessions call setsid: not in its group)."""
        parents = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
        found, todo = [], [self.proc.pid] if self.proc else []
        while todo:
            pid = todo.pop()
            kids = [p for p, pp in parents.items() if pp == pid]
            found += kids
            todo += kids
        return found

    def crash(self) -> None:
        """The LPAR's sshd and every session it serves end at once (a reboot, a network cut)."""
        for pid in self.descendants():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.stop()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)   # (its own process group: the listener and its sessions)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.proc is not None:
            self.log.close()

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def spec(self) -> str:
        return f"ssh://{self.user}@127.0.0.1:{self.port}"
