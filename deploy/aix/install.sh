#!/bin/sh
# Install, upgrade or remove aix_exporter on AIX as an SRC subsystem (or an inittab entry).
#
#   install.sh [-u USER] [-p PREFIX] [-c CONFIG] [-l LOG] [-s STATEDIR] [-L LISTEN] [-W WEBCONFIG]
#              [-w WHEEL] [-i] [-n]                                                     install or upgrade
#   install.sh -r [-P] [-n]                                                           remove
#
#   -u USER    run as USER (default aixexp; created if missing). 'root' runs as root, which the
#              splat trace window needs (trace, trcrpt, splat and ps eww of other users).
#   -p PREFIX  Python virtual environment (default /opt/aix_exporter)
#   -c CONFIG  configuration file (default /etc/aix_exporter.yml, created from the example)
#   -l LOG     log file (default /var/log/aix_exporter/aix_exporter.log)
#   -s STATEDIR, -L LISTEN, -W WEBCONFIG: as src-setup.sh (state directory, listen address, web
#              configuration file; the last two kept across upgrades in /etc/aix_exporter.args)
#   -w WHEEL   the aix_exporter wheel or source directory to install (default: this checkout)
#   -i         inittab entry instead of SRC (always runs as root)
#   -r         remove: stop, delete the SRC subsystem / inittab entry and the role
#   -P         with -r: also the user, the state directory, the flags file and the logs
#   -n         dry run: print the commands instead of running them
#
# Needs python3 and pip from the AIX Toolbox (dnf install python3 python3-pip) and a network
# or a wheel directory; without them install the RPM or the .pyz bundle instead (docs/aix.md,
# deploy/aix/build-packages.sh). Re-running it upgrades in place (stop, pip install, start).
# The SRC set-up itself is deploy/aix/src-setup.sh, shared with those packages.
set -eu

USER_NAME=aixexp
PREFIX=/opt/aix_exporter
CONFIG=/etc/aix_exporter.yml
LOG=/var/log/aix_exporter/aix_exporter.log
HERE=$(cd "$(dirname "$0")" && pwd)
WHEEL=$(cd "$HERE/../.." && pwd)
MODE=src
ACTION=install
DRY=0
PYTHON=/opt/freeware/bin/python3
PASS=""
PURGE=""

while getopts "u:p:c:l:s:L:W:w:irPn" opt; do
    case $opt in
        u) USER_NAME=$OPTARG ;;
        p) PREFIX=$OPTARG ;;
        c) CONFIG=$OPTARG ;;
        l) LOG=$OPTARG ;;
        s|L|W) case $OPTARG in *[[:space:]]*) echo "install.sh: '$OPTARG' contains a blank" >&2; exit 2 ;; esac
               PASS="$PASS -$opt $OPTARG" ;;
        w) WHEEL=$OPTARG ;;
        i) MODE=inittab ;;
        r) ACTION=remove ;;
        P) PURGE=-P ;;
        n) DRY=1 ;;
        *) sed -n '2,26p' "$0"; exit 2 ;;
    esac
done

case $USER_NAME in *[!A-Za-z0-9_]*|'') echo "install.sh: bad user name '$USER_NAME'" >&2; exit 2 ;; esac
for p in "$PREFIX" "$CONFIG" "$LOG" "$WHEEL"; do
    case $p in /*) ;; *) echo "install.sh: '$p' must be an absolute path" >&2; exit 2 ;; esac
    case $p in *[[:space:]]*) echo "install.sh: '$p' contains a blank: SRC and inittab would split it" >&2; exit 2 ;; esac
    case $p in *[\;\&\|\<\>\$\`\\\'\"\(\)\{\}\*\?\[\]\!\#\~]*)
        echo "install.sh: '$p' contains a shell metacharacter" >&2; exit 2 ;; esac
    case $p in */../*|*/..|*/./*|*/.|*//*) echo "install.sh: '$p' is not a normalised path (no '.', '..' or '//')" >&2; exit 2 ;; esac
done
case ${PREFIX%/} in
    /|/opt|/usr|/usr/local|/var|/etc|/tmp|/home|/opt/freeware)
        echo "install.sh: -p PREFIX '$PREFIX' is a system directory; give one of its own such as /opt/aix_exporter" >&2; exit 2 ;;
esac

run() {
    if [ "$DRY" = 1 ]; then
        printf '+'
        for a in "$@"; do printf ' %s' "'$a'"; done
        printf '\n'
    else
        "$@"
    fi
}

dry=""
[ "$DRY" = 1 ] && dry=-n
if [ "$ACTION" = remove ]; then
    exec sh "$HERE/src-setup.sh" remove -u "$USER_NAME" -c "$CONFIG" -l "$LOG" $PASS $PURGE $dry
fi

# stop a running copy first: re-running install.sh is the upgrade (src-setup.sh starts it again)
if lssrc -s aix_exporter 2>/dev/null | grep -q active; then run stopsrc -s aix_exporter; fi
[ -x "$PREFIX/bin/python3" ] || run "$PYTHON" -m venv "$PREFIX"
run "$PREFIX/bin/python3" -m pip install --upgrade "$WHEEL"
# the SRC (or inittab) set-up: one script, shared with the RPM and the .pyz bundle
inittab=""
[ "$MODE" = inittab ] && inittab=-i
exec sh "$HERE/src-setup.sh" install -x "$PREFIX/bin/aix-exporter" -u "$USER_NAME" -c "$CONFIG" \
    -e "$HERE/aix_exporter.yml" -l "$LOG" $PASS $inittab $dry
