"""The CycloneDX SBOM of the AIX packages: every component bundled in the RPM and the .pyz.

    python3 deploy/aix/sbom.py --version V --bundled LIBDIR [--pip-report FILE] --out FILE ARTIFACT...

Components: aix-exporter itself (the BOM's subject) and each distribution found installed in
LIBDIR (its *.dist-info: name, version, licence), with a package URL and two hashes: the
SHA-256 of the wheel it came from (pip's installation report, --pip-report) and, as the
property ``aix_exporter:bundled-files-sha256``, the SHA-256 of what is bundled of it (the
sorted lines "path sha256" of each of its files present in LIBDIR: compiled parts are
dropped from the bundle, so this is what an admin can recompute from the installed files).
The artifacts (the RPM and the .pyz) are listed with their SHA-256. Written and validated with
cyclonedx-python-lib.
"""
import argparse
import glob
import hashlib
import os
import sys
from email.parser import Parser


def bundled(libdir):
    """(name, version, licence) of every *.dist-info in libdir."""
    out = []
    for meta in sorted(glob.glob(os.path.join(libdir, "*.dist-info", "METADATA"))):
        with open(meta, encoding="utf-8") as fh:
            m = Parser().parse(fh, headersonly=True)
        lic = m.get("License-Expression") or m.get("License") or ""
        if not lic or len(lic) > 80:
            lic = next((c.split("::")[-1].strip() for c in m.get_all("Classifier") or [] if c.startswith("License ::")), "")
        out.append((m["Name"], m["Version"], lic))
    return out


def bundled_files_sha256(libdir, name):
    """SHA-256 over the sorted "path sha256" lines of the distribution's files present in libdir
    (from its RECORD), paths relative to libdir."""
    norm = name.lower().replace("-", "_")
    (record,) = [r for r in glob.glob(os.path.join(libdir, "*.dist-info", "RECORD"))
                 if os.path.basename(os.path.dirname(r)).lower().startswith(norm + "-")]
    lines = []
    with open(record, encoding="utf-8") as fh:
        for row in fh:
            path = row.split(",", 1)[0]
            full = os.path.join(libdir, path)
            if path and os.path.isfile(full) and not path.endswith("RECORD"):
                with open(full, "rb") as f:
                    lines.append(f"{path} {hashlib.sha256(f.read()).hexdigest()}")
    return hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()


def wheel_hashes(report):
    """{distribution name (lower case): sha256 of its wheel} from pip's --report."""
    import json
    with open(report, encoding="utf-8") as fh:
        data = json.load(fh)
    return {i["metadata"]["name"].lower(): i["download_info"].get("archive_info", {}).get("hashes", {}).get("sha256")
            for i in data.get("install", [])}


def main(argv=None):
    from cyclonedx.model import HashAlgorithm, HashType
    from cyclonedx.model import Property
    from cyclonedx.model.bom import Bom
    from cyclonedx.model.component import Component, ComponentType
    from cyclonedx.model.license import DisjunctiveLicense
    from cyclonedx.output.json import JsonV1Dot5
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator
    from packageurl import PackageURL

    p = argparse.ArgumentParser()
    p.add_argument("--version", required=True)
    p.add_argument("--bundled", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--pip-report", help="pip install --report of the bundled libraries: their wheels' SHA-256")
    p.add_argument("artifacts", nargs="*")
    args = p.parse_args(argv)
    bom = Bom()
    root = Component(name="aix-exporter", version=args.version, type=ComponentType.APPLICATION,
                     purl=PackageURL("generic", None, "aix-exporter", args.version),
                     licenses=[DisjunctiveLicense(id="Apache-2.0")], bom_ref="aix-exporter")
    bom.metadata.component = root
    deps = []
    wheels = wheel_hashes(args.pip_report) if args.pip_report else {}
    for name, version, lic in bundled(args.bundled):
        c = Component(name=name, version=version, type=ComponentType.LIBRARY, bom_ref=f"pypi:{name}",
                      purl=PackageURL("pypi", None, name.lower(), version),
                      hashes=[HashType(alg=HashAlgorithm.SHA_256, content=wheels[name.lower()])]
                      if wheels.get(name.lower()) else [],
                      properties=[Property(name="aix_exporter:bundled-files-sha256",
                                           value=bundled_files_sha256(args.bundled, name))])
        if lic:
            c.licenses.add(DisjunctiveLicense(name=lic))
        bom.components.add(c)
        deps.append(c)
    for path in args.artifacts:
        with open(path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        bom.components.add(Component(name=os.path.basename(path), version=args.version, type=ComponentType.FILE,
                                     bom_ref=f"file:{os.path.basename(path)}",
                                     hashes=[HashType(alg=HashAlgorithm.SHA_256, content=digest)]))
    bom.register_dependency(root, deps)
    text = JsonV1Dot5(bom).output_as_string(indent=2)
    error = JsonStrictValidator(SchemaVersion.V1_5).validate_str(text)
    if error:
        sys.exit(f"sbom.py: the SBOM does not validate: {error}")
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    print(f"{args.out}: {len(deps)} bundled components, {len(args.artifacts)} artifacts")


if __name__ == "__main__":
    main()
