#!/bin/sh
# The SRC (or inittab) set-up of aix_exporter on AIX, shared by every way of installing it:
# deploy/aix/install.sh (pip into a virtual environment), the RPM's %post/%preun/%postun and
# `python3 aix_exporter.pyz install`. Written once here; the callers only say where things are.
#
#   src-setup.sh install -x LAUNCHER [-u USER] [-c CONFIG] [-e EXAMPLE] [-l LOG] [-i] [-n]
#   src-setup.sh restart [-n]          restart a defined subsystem (after an upgrade)
#   src-setup.sh remove [-n]           stop, delete the SRC subsystem / inittab entry and the role
#
#   -x LAUNCHER  the aix-exporter command to run (absolute path)
#   -u USER      run as USER (default aixexp; created if missing). 'root' runs as root, which the
#                splat trace window needs (trace, trcrpt, splat and ps eww of other users).
#   -c CONFIG    configuration file (default /etc/aix_exporter.yml)
#   -e EXAMPLE   copy EXAMPLE to CONFIG when CONFIG does not exist yet (never over an edited one)
#   -l LOG       log file (default /var/log/aix_exporter.log)
#   -i           inittab entry instead of SRC (always runs as root)
#   -n           dry run: print the commands instead of running them
#
# install stops a running copy first, so running it again is the upgrade.
set -eu

SUBSYS=aix_exporter
ROLE=aixexporter
USER_NAME=aixexp
CONFIG=/etc/aix_exporter.yml
EXAMPLE=
LOG=/var/log/aix_exporter.log
LAUNCHER=
MODE=src
DRY=0
# Commands whose RBAC access authorisations the role gets (read on the target with lssecattr).
# the command table's rbac executables (commands.rbac_executables(); tests/unit/test_commands.py)
PRIV_CMDS="/usr/bin/iostat /usr/bin/svmon /usr/bin/vmstat /usr/sbin/vmo"

ACTION=${1:-}
case $ACTION in install|restart|remove) shift ;; *) sed -n '2,19p' "$0" >&2; exit 2 ;; esac
while getopts "x:u:c:e:l:in" opt; do
    case $opt in
        x) LAUNCHER=$OPTARG ;;
        u) USER_NAME=$OPTARG ;;
        c) CONFIG=$OPTARG ;;
        e) EXAMPLE=$OPTARG ;;
        l) LOG=$OPTARG ;;
        i) MODE=inittab ;;
        n) DRY=1 ;;
        *) sed -n '2,19p' "$0" >&2; exit 2 ;;
    esac
done

case $USER_NAME in *[!A-Za-z0-9_]*|'') echo "src-setup.sh: bad user name '$USER_NAME'" >&2; exit 2 ;; esac
for p in "$CONFIG" "$LOG"; do
    case $p in /*) ;; *) echo "src-setup.sh: '$p' must be an absolute path" >&2; exit 2 ;; esac
done
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
    echo "removed $SUBSYS ($CONFIG and $LOG are kept)"
}

restart() {
    if lssrc -s "$SUBSYS" 2>/dev/null | grep -q active || [ "$DRY" = 1 ]; then
        run stopsrc -s "$SUBSYS"
        run startsrc -s "$SUBSYS"
    fi
}

install() {
    # stop a running copy first: installing again is the upgrade
    if lssrc -s "$SUBSYS" 2>/dev/null | grep -q active; then run stopsrc -s "$SUBSYS"; fi
    if [ -n "$EXAMPLE" ] && [ ! -f "$CONFIG" ]; then run cp "$EXAMPLE" "$CONFIG"; fi
    run "$LAUNCHER" --config.file="$CONFIG" --check-config
    run touch "$LOG"
    if [ "$MODE" = inittab ]; then
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
    run mkssys -s "$SUBSYS" -p "$LAUNCHER" -a "$(exporter_args)" -u "$uid" \
        -S -n 15 -f 9 -R -Q -i /dev/null -o "$LOG" -e "$LOG" -G monitoring
    run startsrc -s "$SUBSYS"
    echo "aix_exporter runs as SRC subsystem '$SUBSYS' (lssrc -s $SUBSYS); log $LOG"
}

$ACTION
