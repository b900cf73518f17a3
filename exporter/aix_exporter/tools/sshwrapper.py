"""The forced-command wrapper for an LPAR collected over SSH: runs the command table and nothing else.

    python3 -m aix_exporter.tools.sshwrapper > aix-exporter-ssh-wrapper

writes the Perl script shipped as ``deploy/ssh/aix-exporter-ssh-wrapper`` (Perl is in AIX's
base, ``perl.rte``: one file to copy, nothing to install). In the monitoring user's
``authorized_keys`` it is the key's only command (one line, broken here)::

    command="/usr/local/bin/aix-exporter-ssh-wrapper --files /home/tsm/log --files /var/splat",
    no-pty,no-port-forwarding,no-agent-forwarding,no-X11-forwarding ssh-ed25519 AAAA... aix_exporter

It reads ``SSH_ORIGINAL_COMMAND`` as the ssh source sends it (the argv quoted for a POSIX shell
by ``shlex.join``, behind ``/usr/bin/env LC_ALL=C LANG=C PATH=...``), after a length cap, parses
it into the same argv in one pass without a shell, and runs it only when it is exactly one of the
command table's, as the table builds it from any valid configuration (intervals, PIDs, vmo
tunables, the TSM administrator and hours), or the log and splat helper
(``sources/remotelog.py``) in its one fixed form: ``/usr/bin/perl -e HELPER VERB ARGS`` with
exactly the words the verb takes (nothing before the verb, nothing after its words), each path
resolved to its real place (symlinks followed) and refused unless that lies under a ``--files``
directory, each number and hex string checked. Everything else is refused with one line on
standard error and exit status 126. The command runs with ``LC_ALL=C``, the table's PATH,
standard input passed on (dsmadmc's password), in a process group of its own that is killed
when the session ends (sshd closes the session's output when the exporter closes the channel
or the connection drops; sshd's signals), and at the command's time limit: ``--timeout``
seconds beyond what the command takes by design (vmstat's and iostat's intervals). One dsmadmc
runs at a time on the LPAR: its wrapper holds a lock file until the command's group is gone,
and a second waits for it within its own limit, then is refused. Its CPU
time is reported on standard error as ``aix-exporter-cpu: USER SYS`` for the exporter's cost
metrics.

The patterns are made here from the command table (``commands.TABLE``) with sentinel settings
whose places become the patterns the configuration's own validation allows, so a command added
to the table is allowed by a regenerated wrapper, and ``tests/unit/test_sshwrapper.py`` checks
that the shipped file is this module's output.

Options (in ``authorized_keys``): ``--files DIR`` (repeatable: the activity log's and the splat
reports' directories), ``--dsmadmc PATH`` (tsm.dsmadmc_binary, default /usr/bin/dsmadmc),
``--timeout SECONDS`` (default 60, beyond the command's intervals: at least the exporter's
command_timeout_seconds), ``--lock DIR`` (default the user's HOME: where the lock file that lets
one dsmadmc run at a time is kept), ``--root DIR`` (the commands under DIR: stand-ins, tests). ``--decide`` (tests
and benches only) reads command lines from standard input, each ended by NUL, and answers each with
``allow|refuse CPU-SECONDS REASON``, running nothing.
"""
from __future__ import annotations

import copy
import re
import sys

from ..commands import TABLE
from ..config import Settings
from ..sources.remotelog import HELPER, PERL
from ..sources.ssh import ENV_PREFIX

SEP = r"\x00"
# sentinel value -> the pattern of what a valid configuration may put in its place (config.py)
NUMBER, ADMIN, PID, TUNABLE, DSMADMC = "7777", "ADMINSENTINEL", "PIDSENTINEL", "tunablesentinel", "/DSMADMCSENTINEL"
PATTERNS = {NUMBER: "[0-9]{1,4}", ADMIN: "[A-Za-z0-9_.+-]{1,64}"}


def _sentinel_settings() -> Settings:
    s = copy.deepcopy(Settings())
    s.vmstat.interval_seconds = int(NUMBER)
    s.tape.interval_seconds = int(NUMBER)
    s.tsm.summary_hours = int(NUMBER)
    s.tsm.admin_id = ADMIN
    s.tsm.dsmadmc_binary = DSMADMC
    s.vmo.tunables = [TUNABLE]
    return s


def patterns() -> list:
    """(pattern, factor, alone) per command of the table: a regular expression over its argv
    joined by NUL, with @ROOT@ before the executable and @DSMADMC@ for dsmadmc (filled in by the
    wrapper at run time); for a command that takes an interval the seconds it runs by design per
    second of the interval, which the pattern captures as its first group (0 for the others);
    and 1 for a command of which one runs at a time on the LPAR (dsmadmc: a hung TSM server must
    cost one session, never a pile of them), 0 for the others."""
    s = _sentinel_settings()
    rows: list = [(["/usr/bin/ps", "-e", "-o", "pid=", "-o", "comm="], None)]   # process discovery (sources/processes.py)
    for c in TABLE:
        if c.argv is None:
            continue
        rows.append((c.argv(s, [PID]) if c.fetch in ("processes", "per_process") else c.argv(s), c.runs_for))
    out = set()
    for argv, runs_for in rows:
        if argv[0] == DSMADMC:
            head = "@DSMADMC@"
        else:
            head = "@ROOT@" + re.escape(argv[0])
        pattern = head + "".join(SEP + re.escape(a) for a in argv[1:])
        # repeated groups: vmo's "-L TUNABLE" pairs and the PIDs, one or more of each
        pattern = pattern.replace(SEP + re.escape("-L") + SEP + TUNABLE, f"(?:{SEP}{re.escape('-L')}{SEP}[a-z0-9_%]{{1,64}})+")
        pattern = pattern.replace(SEP + PID, f"(?:{SEP}[0-9]{{1,10}})+")
        factor = 0
        if runs_for is not None:   # the interval, captured: the wrapper's limit grows with it
            assert pattern.count(NUMBER) == 1, argv
            factor = runs_for(s) // int(NUMBER)
            pattern = pattern.replace(NUMBER, f"({PATTERNS[NUMBER]})")
        for sentinel, allowed in PATTERNS.items():
            pattern = pattern.replace(sentinel, allowed)
        out.add((pattern, factor, int(argv[0] == DSMADMC)))
    return sorted(out)


def _perl_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


TEMPLATE = r"""#!/usr/bin/perl
# aix-exporter-ssh-wrapper: the forced command of aix_exporter's SSH key on an AIX LPAR.
# Runs the command table of aix_exporter and nothing else; no shell, LC_ALL=C.
# Generated by: python3 -m aix_exporter.tools.sshwrapper (do not edit; docs/ssh.md)
use strict;
use warnings;
use Cwd ();
use IO::Poll qw(POLLOUT POLLERR POLLHUP POLLNVAL);
use Fcntl qw(O_RDWR O_CREAT O_NOFOLLOW LOCK_EX LOCK_NB);
use POSIX ();

# [pattern over the argv joined by NUL, seconds the command takes by design per captured interval,
#  1 when one at a time runs on this LPAR (under the lock file in --lock)]
my @PATTERNS = (
@PATTERNS@
);
my $HELPER = @HELPER@;
my $PERL = @PERL@;
my @PREFIX = (@PREFIX@);
my %ENVIRONMENT = (@ENVIRONMENT@);
# the helper's verbs: the words each takes after it (p: a path under --files, n: a number, x: hex)
my %VERBS = (time => '', stat => 'p', list => 'p', read => 'pnn', rfind => 'pxn');
# bounds checked before the parse, each in one pass (tr): the parse's cost is linear and small.
# The table's longest line: ps eww with process.max_processes (1,000) PIDs; the helper's quotes: 50.
my ($MAX_LINE, $MAX_WORDS, $MAX_QUOTES) = (65536, 2048, 512);

sub printable { (my $t = $_[0]) =~ s/([^\x20-\x7e])/sprintf('\\x%02x', ord $1)/ge; return substr($t, 0, 300); }
sub refuse { print STDERR "aix-exporter-ssh-wrapper: refused: ", printable($_[0]), "\n"; exit 126; }

my ($root, $dsmadmc, $timeout, $lock, $decide, @files) = ('', '/usr/bin/dsmadmc', 60, $ENV{HOME}, 0);
while (@ARGV) {
    my $opt = shift @ARGV;
    if ($opt eq '--decide') { $decide = 1; next; }
    my $value = shift @ARGV;
    defined $value or refuse("option $opt needs a value (in authorized_keys)");
    if ($opt eq '--root') { $root = $value; }
    elsif ($opt eq '--dsmadmc') { $dsmadmc = $value; }
    elsif ($opt eq '--lock') { $value =~ m{\A/} or refuse("--lock $value is not an absolute path"); $lock = $value; }
    elsif ($opt eq '--timeout') { $value =~ /\A[0-9]{1,5}\z/ or refuse("--timeout $value"); $timeout = $value; }
    elsif ($opt eq '--files') {
        $value =~ m{\A/} or refuse("--files $value is not an absolute path");
        my $real = Cwd::realpath($value);   # (a directory not there yet allows nothing)
        push @files, $real if defined $real && -d $real;
    }
    else { refuse("unknown option $opt (in authorized_keys)"); }
}

# The shell words of shlex.join, in one pass: bare safe characters, '...' and "'"; one space apart.
sub words {
    my ($line) = @_;
    ($line =~ tr/ //) < $MAX_WORDS or return (undef, "more than $MAX_WORDS words");
    ($line =~ tr/'"//) <= $MAX_QUOTES or return (undef, "more than $MAX_QUOTES quotes");
    my @argv;
    pos($line) = 0;
    while (1) {
        my ($word, $any) = ('', 0);
        while (1) {
            if ($line =~ /\G([A-Za-z0-9_\@%+=:,.\/-]+)/gc) { $word .= $1; }
            elsif ($line =~ /\G'([^']*)'/gc) { $word .= $1; }
            elsif ($line =~ /\G"'"/gc) { $word .= "'"; }
            else { last; }
            $any = 1;
        }
        $any or return (undef, "not an argv quoted for a POSIX shell");
        push @argv, $word;
        return (\@argv) if pos($line) == length $line;
        ($line =~ /\G /gc && pos($line) < length $line) or return (undef, "not an argv quoted for a POSIX shell");
    }
}

# A path's real place (symlinks followed; a missing last name is taken as it is written, never . or ..)
# when it lies under a --files directory, or undef.
sub under_files {
    my ($path) = @_;
    return undef if $path !~ m{\A/} || length($path) > 4096;
    my $real = Cwd::realpath($path);
    if (!defined $real || !-e $real) {
        my ($dir, $name) = $path =~ m{\A(.*)/([^/]+)\z} or return undef;
        return undef if $name eq '.' || $name eq '..';
        my $parent = Cwd::realpath($dir eq '' ? '/' : $dir);
        return undef unless defined $parent && -d $parent;
        $real = ($parent eq '/' ? '' : $parent) . "/$name";
    }
    for my $d (@files) {
        return $real if $real eq $d || index($real, $d eq '/' ? '/' : "$d/") == 0;
    }
    return undef;
}

# (argv to run, seconds it may take, 1 if one at a time) or (undef, why)
sub decide {
    my ($line) = @_;
    defined $line or return (undef, "no command (an interactive login or a subsystem)");
    length($line) <= $MAX_LINE or return (undef, "a command line of more than $MAX_LINE bytes");
    my ($argv, $why) = words($line);
    $argv or return (undef, $why);
    for my $i (0 .. $#PREFIX) {
        (defined $argv->[$i] && $argv->[$i] eq $PREFIX[$i]) or return (undef, "not sent by aix_exporter (no LC_ALL=C prefix)");
    }
    my @argv = @$argv[scalar @PREFIX .. $#$argv];
    @argv or return (undef, "an empty command");
    if ($argv[0] eq $PERL) {
        (@argv >= 4 && $argv[1] eq '-e' && $argv[2] eq $HELPER)
            or return (undef, "$PERL with a program that is not aix_exporter's helper");
        my $kinds = $VERBS{$argv[3]};
        defined $kinds or return (undef, "the helper with an unknown operation");
        @argv == 4 + length $kinds or return (undef, "the helper's $argv[3] with other arguments");
        for my $i (0 .. length($kinds) - 1) {
            my ($k, $a) = (substr($kinds, $i, 1), $argv[4 + $i]);
            if ($k eq 'p') {
                my $real = under_files($a);
                defined $real or return (undef, "the helper on a path outside --files: $a");
                $argv[4 + $i] = $real;
            } elsif ($k eq 'n') {
                $a =~ /\A[0-9]{1,18}\z/ or return (undef, "the helper's $argv[3] with a number that is not one");
            } elsif ($a !~ /\A(?:[0-9a-f]{2}){0,4096}\z/) {
                return (undef, "the helper's $argv[3] with text that is not hex");
            }
        }
        return (\@argv, $timeout);
    }
    my $joined = join("\0", @argv);
    my ($r, $d) = (quotemeta($root), quotemeta($root . $dsmadmc));
    for my $p (@PATTERNS) {
        (my $q = $p->[0]) =~ s/\@ROOT\@/$r/g;
        $q =~ s/\@DSMADMC\@/$d/g;
        if ($joined =~ /\A(?:$q)\z/s) {
            return (\@argv, $timeout + ($p->[1] && defined $1 ? $p->[1] * $1 : 0), $p->[2]);
        }
    }
    return (undef, "$argv[0] with these arguments is not in aix_exporter's command table");
}

if ($decide) {   # (tests: command lines on standard input, NUL after each; an answer a line, its CPU seconds)
    require Time::HiRes;
    local $/ = "\0";
    $| = 1;
    while (my $line = <STDIN>) {
        chomp $line;
        my $t0 = Time::HiRes::clock();
        my ($argv, $why) = decide($line);
        printf "%s %.6f %s\n", $argv ? 'allow' : 'refuse', Time::HiRes::clock() - $t0, printable($why);
    }
    exit 0;
}

my ($argv, $limit, $alone) = decide($ENV{SSH_ORIGINAL_COMMAND});
$argv or refuse($limit);
my @argv = @$argv;
my $poll = IO::Poll->new;
$poll->mask(\*STDOUT => POLLOUT);
sub session_closed { $poll->poll(0); return $poll->events(\*STDOUT) & (POLLERR | POLLHUP | POLLNVAL); }

# One dsmadmc at a time on this LPAR, whichever session and exporter sends it: the lock is held
# until this wrapper ends, after its command's process group is gone. A second one waits for it
# within its own time limit (the first is being ended) and is refused after that.
if ($alone) {
    defined $lock && $lock =~ m{\A/} or refuse("no --lock directory and no HOME for the lock of $argv[0]");
    my $file = "$lock/.aix-exporter-ssh-wrapper.lock";
    sysopen(my $fh, $file, O_RDWR | O_CREAT | O_NOFOLLOW, 0600) or refuse("cannot open the lock $file: $!");
    my $until = time + $limit;
    until (flock($fh, LOCK_EX | LOCK_NB)) {
        refuse("$argv[0]: another one of this user still runs on this LPAR (lock $file)") if time >= $until;
        exit 126 if session_closed();
        select(undef, undef, undef, 0.1);
    }
    our $LOCK = $fh;   # (held until exit; not inherited by the command: close-on-exec)
}

# The command runs in a process group of its own, and the group ends with the session: at the
# time limit, when sshd signals the wrapper, and when the session's channel is gone (its
# standard output closed), whichever comes first. Nothing of ours outlives the session.
my $pid = fork();
defined $pid or refuse("cannot fork: $!");
if ($pid == 0) {
    POSIX::setpgid(0, 0);
    %ENV = %ENVIRONMENT;
    exec { $argv[0] } @argv or do { print STDERR "$argv[0]: $!\n"; POSIX::_exit(127); };
}
POSIX::setpgid($pid, $pid);   # (both sides: the group exists before either goes on)
my $ended = '';
sub end_group { kill 'KILL', -$pid; kill 'KILL', $pid; }
$SIG{$_} = sub { $ended = $_[0]; end_group(); } for qw(HUP TERM INT PIPE);
$SIG{CHLD} = sub { };   # (a child's end cuts the wait below short)
my $deadline = time + $limit;
my $status;
while (1) {
    my $got = waitpid($pid, POSIX::WNOHANG());
    if ($got == $pid || $got < 0) { $status = $?; last; }
    if (time >= $deadline) { $ended ||= 'time limit'; end_group(); }
    if (!$ended && session_closed()) { $ended = 'session closed'; end_group(); }
    select(undef, undef, undef, 0.2);
}
kill 'KILL', -$pid;   # what the command left behind in its group
my (undef, undef, $cuser, $csys) = times;
local $SIG{PIPE} = 'IGNORE';
print STDERR "aix-exporter-ssh-wrapper: ended at the $ended: process group killed\n"
    if $ended eq 'time limit';
printf STDERR "aix-exporter-cpu: %.3f %.3f\n", $cuser, $csys;
exit($status & 127 ? 128 + ($status & 127) : $status >> 8);
"""


def render() -> str:
    env = dict(a.split("=", 1) for a in ENV_PREFIX[1:])
    return (TEMPLATE.replace("@PATTERNS@", ",\n".join(f"    [{_perl_string(p)}, {f}, {alone}]" for p, f, alone in patterns()))
            .replace("@HELPER@", _perl_string(HELPER)).replace("@PERL@", _perl_string(PERL))
            .replace("@PREFIX@", ", ".join(_perl_string(a) for a in ENV_PREFIX))
            .replace("@ENVIRONMENT@", ", ".join(f"{k} => {_perl_string(v)}" for k, v in env.items())))


def main(argv=None) -> int:
    if argv if argv is not None else sys.argv[1:]:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: python3 -m aix_exporter.tools.sshwrapper > aix-exporter-ssh-wrapper", file=sys.stderr)
        return 2
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
