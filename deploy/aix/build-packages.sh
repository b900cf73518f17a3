#!/usr/bin/env bash
# Build the AIX packages into dist/ (or OUTDIR): a noarch RPM for the AIX Toolbox rpm and a
# single-file .pyz bundle, both carrying the exporter and its pure-Python dependencies
# (deploy/aix/bundle-requirements.txt), with SHA256SUMS and a CycloneDX SBOM.
#
#   bash deploy/aix/build-packages.sh [OUTDIR]
#
# Runs on Linux: needs python3 (a virtual environment is made as for the tests), rpmbuild
# (Debian package rpm, installed here when run as root) and the Python package registry for
# the pinned dependencies.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=$(mkdir -p "${1:-dist}" && cd "${1:-dist}" && pwd)
if ! command -v rpmbuild >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rpm >/dev/null
    else
        echo "build-packages.sh: rpmbuild not found (Debian: apt-get install rpm)" >&2; exit 1
    fi
fi
. deploy/lib/venv.sh
ensure_venv '[package]' >/dev/null
PY="$VENV/bin/python"
VERSION=$("$PY" -c 'import importlib.metadata as m; print(m.version("aix-exporter"))')
RELEASE=${AIX_EXPORTER_RPM_RELEASE:-1}   # the RPM's release: a rebuild of one version
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

# lib/: the dependencies (pure Python only: compiled parts are dropped, PyYAML runs without its
# extension), the exporter, the set-up files and the entry point shared by the .pyz and the RPM
"$PY" -m pip install -q --disable-pip-version-check --no-deps --no-compile --only-binary=:all: \
    --target "$STAGE/lib" --report "$STAGE/pip-report.json" -r deploy/aix/bundle-requirements.txt
find "$STAGE/lib" \( -name '*.so' -o -name '*.pyd' \) -delete
rm -rf "$STAGE/lib/_yaml" "$STAGE/lib/bin"
cp -R exporter/aix_exporter "$STAGE/lib/aix_exporter"
# what --version says of a built package: the source revision and the build time (UTC)
REVISION=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || REVISION="$REVISION+changes"
printf '{"revision": "%s", "built": "%s"}\n' "$REVISION" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$STAGE/lib/aix_exporter/build.json"
mkdir "$STAGE/lib/aix_exporter_deploy"
cp deploy/aix/src-setup.sh deploy/aix/aix_exporter.yml "$STAGE/lib/aix_exporter_deploy/"
echo '"""The AIX set-up files carried in the bundle: src-setup.sh and the example configuration."""' \
    > "$STAGE/lib/aix_exporter_deploy/__init__.py"
cp deploy/aix/bundle/__main__.py "$STAGE/lib/__main__.py"
find "$STAGE/lib" -name __pycache__ -prune -exec rm -rf {} +
if find "$STAGE/lib" -type f \( -name '*.so' -o -name '*.a' -o -name '*.o' \) | grep -q .; then
    echo "build-packages.sh: compiled files left in the bundle" >&2; exit 1
fi

# the single-file bundle
PYZ="$OUT/aix_exporter-$VERSION.pyz"
"$PY" -m zipapp "$STAGE/lib" -o "$PYZ" -p "/usr/bin/env python3" -c

# the RPM: the same lib/, a launcher for the Toolbox python3, the shared SRC set-up script
mkdir -p "$STAGE/bin" "$STAGE/share"
printf '%s\n' '#!/bin/sh' '# aix_exporter launcher (RPM): the AIX Toolbox python3 with the bundled packages' \
    'exec /opt/freeware/bin/python3 -s /opt/aix_exporter/lib "$@"' > "$STAGE/bin/aix-exporter"
cp deploy/aix/src-setup.sh deploy/aix/aix_exporter.yml "$STAGE/share/"
rpmbuild -bb --quiet --define "_topdir $STAGE/rpm" --define "stage $STAGE" --define "pkgversion $VERSION" --define "pkgrelease $RELEASE" \
    deploy/aix/aix_exporter.spec >/dev/null
RPM="$OUT/aix_exporter-$VERSION-$RELEASE.noarch.rpm"
cp "$STAGE/rpm/RPMS/noarch/aix_exporter-$VERSION-$RELEASE.noarch.rpm" "$RPM"

# the SBOM of both, and the checksums of all three
SBOM="$OUT/aix_exporter-$VERSION.cdx.json"
"$PY" deploy/aix/sbom.py --version "$VERSION" --bundled "$STAGE/lib" --pip-report "$STAGE/pip-report.json" \
    --out "$SBOM" "$RPM" "$PYZ"
(cd "$OUT" && sha256sum "$(basename "$RPM")" "$(basename "$PYZ")" "$(basename "$SBOM")" > SHA256SUMS)
echo "built in $OUT:"
(cd "$OUT" && ls -l "$(basename "$RPM")" "$(basename "$PYZ")" "$(basename "$SBOM")" SHA256SUMS | awk '{print "  " $5 "  " $9}')
