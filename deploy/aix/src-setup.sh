#!/bin/sh
# The SRC (or inittab) set-up of aix_exporter on AIX, shared by every way of installing it:
# deploy/aix/install.sh (pip into a virtual environment), the RPM's %post/%preun/%postun and
# `python3 aix_exporter.pyz install`. Written once here; the callers only say where things are.
#
#   src-setup.sh install -x LAUNCHER [-u USER] [-c CONFIG] [-e EXAMPLE] [-l LOG] [-s STATEDIR]
#                        [-L LISTEN] [-W WEBCONFIG] [-i] [-n]
#   src-setup.sh restart [-n]          restart a defined subsystem (after an upgrade)
#   src-setup.sh remove [-P] [-n]      stop, delete the SRC subsystem / inittab entry and the role;
#                                      -P also the user, STATEDIR, ARGS and the log files
#
#   -x LAUNCHER  the aix-exporter command to run (absolute path)
#   -u USER      run as USER (default aixexp; created if missing). 'root' runs as root, which the
#                splat trace window needs (trace, trcrpt, splat and ps eww of other users).
#   -c CONFIG    configuration file (default /etc/aix_exporter.yml)
#   -e EXAMPLE   copy EXAMPLE to CONFIG when CONFIG does not exist yet (never over an edited one)
#   -l LOG       log file (default /var/log/aix_exporter/aix_exporter.log), rotated by the exporter at
#                10 MiB (--log.file in ARGS: LOG.1 .. LOG.3 kept); its directory, when named for
#                aix_exporter, is made the service user's so that the exporter can rotate in it
#   -s STATEDIR  the service user's own directory, mode 0700 (default /var/lib/aix_exporter):
#                the example configuration keeps tsm.state_file there
#   -L LISTEN    listen address (default :10990), kept in ARGS (CONFIG with .args for .yml)
#   -W WEBCONFIG web configuration file (TLS, basic auth), kept in ARGS too
#   -i           inittab entry instead of SRC (always runs as root)
#   -n           dry run: print the commands instead of running them
#
# The service runs `LAUNCHER @ARGS`: ARGS holds the exporter's flags, one a line. It is written
# at the first install and when -L or -W is given, and kept as it is otherwise, so an upgrade
# keeps the listen address and the web configuration. install stops a running copy first,
# changes a defined subsystem in place (chssys; mkssys only when it is missing) and starts it:
# running it again is the upgrade, with one restart. Paths may not contain blanks.
#
# Every path is checked before anything runs (issue 45): absolute, normalised (no '.', '..' or
# '//' components), no shell metacharacter (they end up in SRC, inittab and shell lines), and
# STATEDIR and the log's directory are never a system directory (/, /etc, /var, /var/lib, /usr,
# /opt, /tmp, /home, ...) and must be named for the exporter (aix_exporter or aixexp in their last
# component). The directories install makes are recorded in CREATED (CONFIG with .created for
# .yml); remove -P deletes only those.
set -eu

SUBSYS=aix_exporter
ROLE=aixexporter
USER_NAME=aixexp
CONFIG=/etc/aix_exporter.yml
EXAMPLE=
LOG=/var/log/aix_exporter/aix_exporter.log
STATEDIR=/var/lib/aix_exporter
LISTEN=
WEBCONFIG=
LAUNCHER=
MODE=src
DRY=0
PURGE=0
# Commands whose RBAC access authorisations the role gets (read on the target with lssecattr).
# the command table's rbac executables (commands.rbac_executables(); tests/unit/test_commands.py)
PRIV_CMDS="/usr/bin/iostat /usr/bin/svmon /usr/bin/vmstat /usr/sbin/asoo /usr/sbin/vmo"

ACTION=${1:-}
case $ACTION in install|restart|remove) shift ;; *) sed -n '2,30p' "$0" >&2; exit 2 ;; esac
while getopts "x:u:c:e:l:s:L:W:inP" opt; do
    case $opt in
        x) LAUNCHER=$OPTARG ;;
        u) USER_NAME=$OPTARG ;;
        c) CONFIG=$OPTARG ;;
        e) EXAMPLE=$OPTARG ;;
        l) LOG=$OPTARG ;;
        s) STATEDIR=$OPTARG ;;
        L) LISTEN=$OPTARG ;;
        W) WEBCONFIG=$OPTARG ;;
        i) MODE=inittab ;;
        n) DRY=1 ;;
        P) PURGE=1 ;;
        *) sed -n '2,30p' "$0" >&2; exit 2 ;;
    esac
done

refuse() { echo "src-setup.sh: $1" >&2; exit 2; }
case $USER_NAME in *[!A-Za-z0-9_]*|'') refuse "bad user name '$USER_NAME'" ;; esac
ARGS=${CONFIG%.yml}.args
CREATED=${CONFIG%.yml}.created
for p in "$CONFIG" "$LOG" "$STATEDIR" ${WEBCONFIG:+"$WEBCONFIG"}; do
    case $p in /*) ;; *) refuse "'$p' must be an absolute path" ;; esac
done
for p in "$CONFIG" "$LOG" "$STATEDIR" "$LAUNCHER" "$LISTEN" "$WEBCONFIG" "$EXAMPLE"; do
    case $p in *[[:space:]]*) refuse "'$p' contains a blank: SRC and inittab would split it" ;; esac
    # shell metacharacters: the values go into SRC, inittab and shell lines
    case $p in *[\;\&\|\<\>\$\`\\\'\"\(\)\{\}\*\?\[\]\!\#\~]*) refuse "'$p' contains a shell metacharacter" ;; esac
    # normalised: no '.', '..' or empty components
    case $p in */../*|*/..|*/./*|*/.|*//*) refuse "'$p' is not a normalised path (no '.', '..' or '//')" ;; esac
done
# a directory of the exporter's own: never a system directory, and named for the exporter
own_dir() {
    d=$1; what=$2
    d=${d%/}
    case $d in
        ''|/|/etc|/var|/var/lib|/var/log|/var/tmp|/var/spool|/var/adm|/usr|/usr/bin|/usr/sbin|/usr/lib|/usr/local|\
        /opt|/opt/freeware|/tmp|/home|/bin|/sbin|/lib|/dev|/proc|/root|/export|/admin|/audit|/mnt|/srv)
            refuse "$what '$1' is a system directory: it would be changed (chown, chmod) or removed; give a directory of its own such as /var/lib/aix_exporter" ;;
    esac
    case ${d##*/} in
        *aix_exporter*|*aixexp*) ;;
        *) refuse "$what '$1' is not named for the exporter (aix_exporter or aixexp in its last component): it is made the service user's and removed with remove -P" ;;
    esac
}
own_dir "$STATEDIR" "-s STATEDIR"
case $(dirname "$LOG") in
    */*aix_exporter*|*/*aixexp*) own_dir "$(dirname "$LOG")" "-l LOG's directory" ;;
    /|/etc|/var|/var/lib|/usr|/opt|/tmp|/home|/bin|/sbin|/dev|/proc) ;;   # (a log file directly in one: never chowned)
esac
if [ "$ACTION" = install ]; then
    case $LAUNCHER in /*) ;; *) echo "src-setup.sh: install needs -x LAUNCHER, an absolute path" >&2; exit 2 ;; esac
fi

run() {
    if [ "$DRY" = 1 ]; then
        printf '+'
        for a in "$@"; do printf ' %s' "'$a'"; done
        printf '\n'
    else
        "$@"
    fi
}

# The exporter's arguments, as SRC passes them (mkssys -a): its flags are in ARGS.
exporter_args() {
    printf '%s' "@$ARGS"
}

# ARGS, the exporter's flags: written at the first install or when -L / -W say so, else kept
write_args() {
    if [ -f "$ARGS" ] && [ -z "$LISTEN$WEBCONFIG" ]; then
        echo "keeping $ARGS"
        if ! grep -q '^--log.file=' "$ARGS"; then   # from a version that did not rotate its log
            if [ "$DRY" = 1 ]; then echo "+ add to $ARGS: --log.file=$LOG"; else echo "--log.file=$LOG" >>"$ARGS"; fi
        fi
        return
    fi
    if [ -f "$ARGS" ]; then   # keep what is not given again
        [ -n "$LISTEN" ] || LISTEN=$(sed -n 's/^--web.listen-address=//p' "$ARGS")
        [ -n "$WEBCONFIG" ] || WEBCONFIG=$(sed -n 's/^--web.config.file=//p' "$ARGS")
    fi
    if [ "$DRY" = 1 ]; then
        echo "+ write $ARGS: --config.file=$CONFIG --web.listen-address=${LISTEN:-:10990}${WEBCONFIG:+ --web.config.file=$WEBCONFIG} --log.file=$LOG"
        return
    fi
    {
        echo "--config.file=$CONFIG"
        echo "--web.listen-address=${LISTEN:-:10990}"
        [ -z "$WEBCONFIG" ] || echo "--web.config.file=$WEBCONFIG"
        echo "--log.file=$LOG"
    } >"$ARGS.new"
    chmod 644 "$ARGS.new"
    mv "$ARGS.new" "$ARGS"
}

remove() {
    if lssrc -s "$SUBSYS" >/dev/null 2>&1 || [ "$DRY" = 1 ]; then
        run stopsrc -s "$SUBSYS" || true
        run rmssys -s "$SUBSYS"
    fi
    if lsitab aixexp >/dev/null 2>&1 || [ "$DRY" = 1 ]; then
        run rmitab aixexp
    fi
    if lsrole "$ROLE" >/dev/null 2>&1 || [ "$DRY" = 1 ]; then
        run rmrole "$ROLE"
        run setkst -t role
    fi
    if [ "$PURGE" = 0 ]; then
        echo "removed $SUBSYS ($CONFIG, $ARGS, $LOG, $STATEDIR and the user $USER_NAME are kept; -P removes all but $CONFIG)"
        return
    fi
    # only the directories install made (recorded in CREATED), and only after the checks above
    if grep -qx "$STATEDIR" "$CREATED" 2>/dev/null; then
        run rm -rf "$STATEDIR"
    else
        echo "keeping $STATEDIR: install did not make it (not in $CREATED)"
    fi
    run rm -f "$ARGS" "$LOG" "$LOG.1" "$LOG.2" "$LOG.3"
    if grep -qx "$(dirname "$LOG")" "$CREATED" 2>/dev/null; then run rmdir "$(dirname "$LOG")" || true; fi
    run rm -f "$CREATED"
    if [ "$USER_NAME" != root ] && { lsuser "$USER_NAME" >/dev/null 2>&1 || [ "$DRY" = 1 ]; }; then
        run rmuser -p "$USER_NAME"
    fi
    echo "removed $SUBSYS, $STATEDIR, $ARGS, $LOG* and the user $USER_NAME ($CONFIG is kept)"
}

restart() {
    if lssrc -s "$SUBSYS" 2>/dev/null | grep -q active || [ "$DRY" = 1 ]; then
        run stopsrc -s "$SUBSYS"
        run startsrc -s "$SUBSYS"
    fi
}

# record DIR in CREATED when it does not exist yet: remove -P deletes only what install made
record() {
    [ -e "$1" ] && return 0
    if [ "$DRY" = 1 ]; then echo "+ record in $CREATED: $1"; return 0; fi
    grep -qx "$1" "$CREATED" 2>/dev/null || echo "$1" >>"$CREATED"
}

install() {
    # stop a running copy first: installing again is the upgrade
    if lssrc -s "$SUBSYS" 2>/dev/null | grep -q active; then run stopsrc -s "$SUBSYS"; fi
    if [ -n "$EXAMPLE" ] && [ ! -f "$CONFIG" ]; then run cp "$EXAMPLE" "$CONFIG"; fi
    write_args
    run "$LAUNCHER" "@$ARGS" --check-config
    LOGDIR=$(dirname "$LOG")
    record "$LOGDIR"
    record "$STATEDIR"
    run mkdir -p "$LOGDIR"
    run touch "$LOG"
    if [ "$MODE" = inittab ]; then   # (runs as root: the state directory is root's)
        run mkdir -p "$STATEDIR"
        run chmod 700 "$STATEDIR"
        lsitab aixexp >/dev/null 2>&1 && run rmitab aixexp
        run mkitab "aixexp:2:respawn:$LAUNCHER $(exporter_args) >>$LOG 2>&1"
        run telinit q
        return
    fi
    if [ "$USER_NAME" = root ]; then
        uid=0
    else
        lsuser "$USER_NAME" >/dev/null 2>&1 || run mkuser login=false rlogin=false pgrp=staff home=/tmp "$USER_NAME"
        # RBAC: a role with the access authorisations that the system itself requires for the
        # commands the exporter runs, so nothing is guessed here.
        auths=$(lssecattr -c -a accessauths $PRIV_CMDS 2>/dev/null | sed -n 's/.*accessauths=//p' | tr '\n' ',' | sed 's/,$//')
        if [ -z "$auths" ] && [ "$DRY" = 1 ]; then
            # off AIX (or without the commands' security attributes) the dry run still shows the
            # RBAC steps, with what lssecattr finds on AIX in place of the authorisations
            echo "# on AIX: the authorisations of: lssecattr -c -a accessauths $PRIV_CMDS"
            auths="<accessauths of $PRIV_CMDS>"
        fi
        if [ -n "$auths" ]; then
            lsrole "$ROLE" >/dev/null 2>&1 || run mkrole authorizations="$auths" dfltmsg="aix_exporter" "$ROLE"
            run chuser roles="$ROLE" default_roles="$ROLE" "$USER_NAME"
            run setkst -t role
        fi
        case $LOGDIR in
            */*aix_exporter*) run chown "$USER_NAME" "$LOGDIR" "$LOG"; run chmod 750 "$LOGDIR" ;;
            *) run chown "$USER_NAME" "$LOG"
               echo "note: $LOGDIR is not the service user's: the exporter cannot rotate $LOG there (use -l /var/log/aix_exporter/aix_exporter.log)" ;;
        esac
        uid=$(id -u "$USER_NAME" 2>/dev/null || echo "$USER_NAME")
    fi
    # the service user's own directory (tsm.state_file): without it the TSM collector fails
    # every cycle as an unprivileged user and ANR0358E is never exported
    run mkdir -p "$STATEDIR"
    run chown "$USER_NAME" "$STATEDIR"
    run chmod 700 "$STATEDIR"
    # SRC: signals for a clean stop (-S -n 15 -f 9), restart on abnormal exit (-R),
    # one instance (-Q), output to the log file. Changed in place when defined (chssys keeps
    # what mkssys set and the admin's other changes), created only when missing.
    if lssrc -s "$SUBSYS" >/dev/null 2>&1; then
        run chssys -s "$SUBSYS" -p "$LAUNCHER" -a "$(exporter_args)" -u "$uid" -o "$LOG" -e "$LOG"
    else
        run mkssys -s "$SUBSYS" -p "$LAUNCHER" -a "$(exporter_args)" -u "$uid" \
            -S -n 15 -f 9 -R -Q -i /dev/null -o "$LOG" -e "$LOG" -G monitoring
    fi
    run startsrc -s "$SUBSYS"
    echo "aix_exporter runs as SRC subsystem '$SUBSYS' (lssrc -s $SUBSYS); log $LOG"
}

$ACTION
