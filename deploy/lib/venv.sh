# Sourced by the README's two commands (deploy/demo/run.sh, tests/run.sh): a virtual
# environment inside the checkout, so both work with Debian's own externally managed
# python3 (PEP 668) and with any other python3 first on PATH. pip never runs outside it.
#
#   ensure_venv EXTRAS      # e.g. ensure_venv '[test]'; sets VENV and puts $VENV/bin first on PATH
#
# AIX_EXPORTER_VENV overrides the place (default: .venv in the checkout).
ensure_venv() {
    local extras="${1:-}" root
    root=$(pwd)
    VENV=${AIX_EXPORTER_VENV:-$root/.venv}
    if [ ! -x "$VENV/bin/python" ]; then
        if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
            if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
                echo "installing python3-venv (Debian) ..."
                apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
            else
                echo "python3 has no venv module: install it (Debian: apt-get install python3-venv) and retry" >&2
                return 1
            fi
        fi
        echo "creating the virtual environment $VENV ..."
        python3 -m venv "$VENV"
    fi
    # the checkout being run is installed editable, so the environment never runs stale code; pip
    # runs again whenever the checkout, the extras or pyproject.toml (dependencies, entry points)
    # differ from the last install's, which the stamp records (a pip run costs 4 s a start)
    local stamp="$VENV/.aix-exporter-installed" want
    want="$root$extras $(sha256sum "$root/pyproject.toml" | cut -d' ' -f1)"
    if ! grep -qxF "$want" "$stamp" 2>/dev/null; then
        "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e "$root$extras" || return 1
        # (the other extras' lines stay: pip adds packages, it does not take the earlier extras' away)
        { awk -v me="$root$extras" '$1 != me' "$stamp" 2>/dev/null || true; echo "$want"; } >"$stamp.new"
        mv "$stamp.new" "$stamp"
    fi
    export PATH="$VENV/bin:$PATH"
    export VIRTUAL_ENV="$VENV"
    echo "virtual environment: $VENV ($("$VENV/bin/python" --version))"
}
