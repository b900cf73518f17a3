#!/bin/sh
# Install, upgrade or remove aix_exporter on AIX as an SRC subsystem (or an inittab entry).
#
#   install.sh [-u USER] [-p PREFIX] [-c CONFIG] [-l LOG] [-w WHEEL] [-i] [-n]      install or upgrade
#   install.sh -r [-n]                                                                remove
#
#   -u USER    run as USER (default aixexp; created if missing). 'root' runs as root, which the
#              splat trace window needs (trace, trcrpt, splat and ps eww of other users).
#   -p PREFIX  Python virtual environment (default /opt/aix_exporter)
#   -c CONFIG  configuration file (default /etc/aix_exporter.yml, created from the example)
#   -l LOG     log file (default /var/log/aix_exporter.log)
#   -w WHEEL   the aix_exporter wheel or source directory to install (default: this checkout)
#   -i         inittab entry instead of SRC (always runs as root)
#   -r         remove: stop, delete the SRC subsystem / inittab entry and the role
#   -n         dry run: print the commands instead of running them
#
# Needs python3 and pip from the AIX Toolbox (dnf install python3 python3-pip); psutil builds
# there with the Toolbox gcc. Re-running it upgrades in place (stop, pip install, start).
set -eu

SUBSYS=aix_exporter
ROLE=aixexporter
USER_NAME=aixexp
PREFIX=/opt/aix_exporter
CONFIG=/etc/aix_exporter.yml
LOG=/var/log/aix_exporter.log
HERE=$(cd "$(dirname "$0")" && pwd)
WHEEL=$(cd "$HERE/../.." && pwd)
MODE=src
ACTION=install
DRY=0
PYTHON=/opt/freeware/bin/python3
# Commands whose RBAC access authorisations the role gets (read on the target with lssecattr).
PRIV_CMDS="/usr/bin/svmon /usr/sbin/vmo /usr/bin/vmstat /usr/bin/iostat"

while getopts "u:p:c:l:w:irn" opt; do
    case $opt in
        u) USER_NAME=$OPTARG ;;
        p) PREFIX=$OPTARG ;;
        c) CONFIG=$OPTARG ;;
        l) LOG=$OPTARG ;;
        w) WHEEL=$OPTARG ;;
        i) MODE=inittab ;;
        r) ACTION=remove ;;
        n) DRY=1 ;;
        *) sed -n '2,22p' "$0"; exit 2 ;;
    esac
done

case $USER_NAME in *[!A-Za-z0-9_]*|'') echo "install.sh: bad user name '$USER_NAME'" >&2; exit 2 ;; esac
for p in "$PREFIX" "$CONFIG" "$LOG"; do
    case $p in /*) ;; *) echo "install.sh: '$p' must be an absolute path" >&2; exit 2 ;; esac
done

run() {
    if [ "$DRY" = 1 ]; then
        printf '+'
        for a in "$@"; do printf ' %s' "'$a'"; done
        printf '\n'
    else
        "$@"
    fi
}

# The exporter's arguments, as SRC passes them (mkssys -a).
exporter_args() {
    printf '%s' "--config.file=$CONFIG --web.listen-address=:10990"
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
    echo "removed $SUBSYS (the virtual environment $PREFIX, $CONFIG and $LOG are kept)"
}

install() {
    # stop a running copy first: re-running install.sh is the upgrade
    if lssrc -s "$SUBSYS" 2>/dev/null | grep -q active; then run stopsrc -s "$SUBSYS"; fi
    [ -x "$PREFIX/bin/python3" ] || run "$PYTHON" -m venv "$PREFIX"
    run "$PREFIX/bin/python3" -m pip install --upgrade "$WHEEL"
    if [ ! -f "$CONFIG" ]; then run cp "$HERE/aix_exporter.yml" "$CONFIG"; fi
    run "$PREFIX/bin/aix-exporter" --config.file="$CONFIG" --check-config
    run touch "$LOG"
    if [ "$MODE" = inittab ]; then
        lsitab aixexp >/dev/null 2>&1 && run rmitab aixexp
        run mkitab "aixexp:2:respawn:$PREFIX/bin/aix-exporter $(exporter_args) >>$LOG 2>&1"
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
        if [ -n "$auths" ]; then
            lsrole "$ROLE" >/dev/null 2>&1 || run mkrole authorizations="$auths" dfltmsg="aix_exporter" "$ROLE"
            run chuser roles="$ROLE" default_roles="$ROLE" "$USER_NAME"
            run setkst -t role
        fi
        run chown "$USER_NAME" "$LOG"
        uid=$(id -u "$USER_NAME" 2>/dev/null || echo "$USER_NAME")
    fi
    lssrc -s "$SUBSYS" >/dev/null 2>&1 && run rmssys -s "$SUBSYS"
    # SRC: signals for a clean stop (-S -n 15 -f 9), restart on abnormal exit (-R),
    # one instance (-Q), output to the log file.
    run mkssys -s "$SUBSYS" -p "$PREFIX/bin/aix-exporter" -a "$(exporter_args)" -u "$uid" \
        -S -n 15 -f 9 -R -Q -i /dev/null -o "$LOG" -e "$LOG" -G monitoring
    run startsrc -s "$SUBSYS"
    echo "aix_exporter runs as SRC subsystem '$SUBSYS' (lssrc -s $SUBSYS); log $LOG"
}

if [ "$ACTION" = remove ]; then remove; else install; fi
