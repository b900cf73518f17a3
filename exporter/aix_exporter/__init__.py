"""aix_exporter: Prometheus exporter for IBM AIX performance (large pages, lock contention, tape, TSM)."""

__version__ = "0.1.0"


def build_info() -> dict:
    """{"revision": ..., "built": ...} of a package built by deploy/aix/build-packages.sh (it
    writes build.json beside this file), or {} in a source checkout or a wheel."""
    import json
    import pkgutil
    try:   # (pkgutil reads it from a directory and from inside the .pyz alike)
        raw = pkgutil.get_data(__name__, "build.json")
        data = json.loads(raw) if raw else {}
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def version_line() -> str:
    """What --version prints: the version, and the revision and build time of a built package."""
    b = build_info()
    if b.get("revision") and b.get("built"):
        return f"aix_exporter {__version__} (revision {b['revision']}, built {b['built']})"
    return f"aix_exporter {__version__} (not a built package: no revision recorded)"
