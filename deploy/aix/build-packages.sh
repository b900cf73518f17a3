#!/usr/bin/env bash
# Build the AIX packages into dist/ (or OUTDIR): a noarch RPM for the AIX Toolbox rpm and a
# single-file .pyz bundle, both carrying the exporter and its pure-Python dependencies
# (deploy/aix/bundle-requirements.txt), with SHA256SUMS and a CycloneDX SBOM.
#
#   bash deploy/aix/build-packages.sh [OUTDIR]
#
# Signing: with AIX_EXPORTER_SIGNING_KEY set to a GnuPG key (id, fingerprint or e-mail) in the
# builder's keyring (GNUPGHOME as usual; the key must sign without a passphrase prompt, e.g.
# through gpg-agent), the RPM is signed (rpmsign), SHA256SUMS gets a detached signature
# SHA256SUMS.asc and the public key is written as RPM-GPG-KEY-aix_exporter. Without it the build
# says "unsigned" and writes neither.
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
cp deploy/aix/src-setup.sh deploy/aix/aix_exporter.yml deploy/ssh/aix-exporter-ssh-wrapper "$STAGE/share/"
rpmbuild -bb --quiet --define "_topdir $STAGE/rpm" --define "stage $STAGE" --define "pkgversion $VERSION" --define "pkgrelease $RELEASE" \
    deploy/aix/aix_exporter.spec >/dev/null
RPM="$OUT/aix_exporter-$VERSION-$RELEASE.noarch.rpm"
cp "$STAGE/rpm/RPMS/noarch/aix_exporter-$VERSION-$RELEASE.noarch.rpm" "$RPM"
KEY=${AIX_EXPORTER_SIGNING_KEY:-}
if [ -n "$KEY" ]; then   # signed before the SBOM and the checksums, which cover the signed file
    GPG_TTY=${GPG_TTY:-none} rpmsign --addsign --define "__gpg $(command -v gpg)" --define "_gpg_name $KEY" "$RPM" >/dev/null
fi

# the SBOM of both, and the checksums of all three
SBOM="$OUT/aix_exporter-$VERSION.cdx.json"
"$PY" deploy/aix/sbom.py --version "$VERSION" --bundled "$STAGE/lib" --pip-report "$STAGE/pip-report.json" \
    --out "$SBOM" "$RPM" "$PYZ"
(cd "$OUT" && sha256sum "$(basename "$RPM")" "$(basename "$PYZ")" "$(basename "$SBOM")" > SHA256SUMS)
FILES=("$(basename "$RPM")" "$(basename "$PYZ")" "$(basename "$SBOM")" SHA256SUMS)
rm -f "$OUT/SHA256SUMS.asc" "$OUT/RPM-GPG-KEY-aix_exporter"
if [ -n "$KEY" ]; then
    gpg --batch --yes --quiet --local-user "$KEY" --armor --detach-sign --output "$OUT/SHA256SUMS.asc" "$OUT/SHA256SUMS"
    gpg --batch --quiet --armor --export "$KEY" > "$OUT/RPM-GPG-KEY-aix_exporter"
    FILES+=(SHA256SUMS.asc RPM-GPG-KEY-aix_exporter)
    SIGNED="signed with $(gpg --batch --with-colons --fingerprint "$KEY" | awk -F: '$1 == "fpr" {print $10; exit}')"
else
    SIGNED="unsigned (set AIX_EXPORTER_SIGNING_KEY to a GnuPG key to sign the RPM and SHA256SUMS)"
fi
echo "built in $OUT, $SIGNED:"
(cd "$OUT" && ls -l "${FILES[@]}" | awk '{print "  " $5 "  " $9}')
