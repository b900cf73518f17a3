"""See the dashboards: render every compiled dashboard in headless Chromium, as Perses (the
CNCF dashboard project) draws it from the same JSON that Grafana imports, on the demo's
history, and write one screenshot per dashboard to docs/dashboards/.

    python3 dashboards/render.py            # regenerate docs/dashboards/*.png (and its manifest)
    python3 dashboards/render.py --build    # only build Perses (or find it in the cache)

The Grafana JSON stays the source of truth; Perses is only the renderer. The pipeline:

1. **Perses at a pinned version** (PERSES), built once into a cache outside the checkout
   (``$AIX_EXPORTER_CACHE``, default ``~/.cache/aix-exporter``): ``percli`` and the server from
   the module zip the Go module proxy serves (a go.mod requiring it: the proxy does not list
   the version, so ``go install …@version`` is refused); the server's UI from the source in
   that zip (``npm ci``, ``turbo run build``, the embed step, ``go build``: about 5 minutes);
   the seven panel, query and variable plugins from npm (PLUGINS), each completed with its CUE
   schemas from ``dashboards/perses/schemas`` (vendored: the npm tarballs lack them) and the
   core CUE of the Perses zip, whose ``deps:`` the module file then no longer needs.
2. **Migration**: ``percli migrate`` with those plugins turns every panel into a real Perses
   panel; a "not supported" placeholder fails the render. Two input adjustments, both facts of
   the plugin versions and not of our dashboards' meaning: a time-series legend gets
   ``calcs: []`` (timeserieschart 0.10.2 needs the field), and each query's data source
   reference loses the ``${datasource}`` name (the project's default data source answers).
   Collapsed rows are opened so that every panel is drawn. What the migration leaves out is
   carried over (``complete``): each table's organize transformation (its columns by Perses's
   names, headers, order and hidden ones), units, decimals, sort and text mappings, its queries
   joined by LPAR; and each chart made tall enough that Perses draws its whole legend.
3. **Data**: the demo's history at a fixed end (END): tsmsrv01, the case study (4 h of 4 KB
   pages with pin-lock contention, the tuning, 16 MB pages), and tsmsrv02, large pages running
   out (exhaustion, its last 8 h: the pool fills, ANR0358E, the server stops), written
   through the real collectors, backfilled with promtool, our recording rules backfilled over
   them, served by a Prometheus on a free loopback port.
4. **Render**: the Perses server on a free loopback port provisions a project with that
   Prometheus as its default data source and the migrated dashboards; Chromium (Debian's
   ``chromium``) loads each at a fixed size over the history's last 8 h, with TZ=UTC, and
   writes a screenshot and the rendered page's text. Each panel's text must show no error and
   no "No data" (PANELS_WITHOUT_DATA lists the panels whose queries return nothing over the
   window, with the reason).

The screenshots' manifest (docs/dashboards/manifest.json) records the SHA-256 of each
dashboard's JSON and of its migrated Perses form; ``tests/e2e/test_dashboard_render.py``
renders them again and fails when a committed screenshot is older than its dashboard.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "exporter"))
from aix_exporter.tools import tempprom  # noqa: E402

DASHBOARDS = os.path.join(ROOT, "dashboards")
SCHEMAS = os.path.join(DASHBOARDS, "perses", "schemas")
OUT = os.path.join(ROOT, "docs", "dashboards")

PERSES = "v0.52.0"
# (npm package under @perses-dev, version, folder of its schemas in dashboards/perses/schemas)
PLUGINS = (("prometheus-plugin", "0.53.4", "prometheus"),
           ("timeseries-chart-plugin", "0.10.2", "timeserieschart"),
           ("table-plugin", "0.8.1", "table"),
           ("markdown-plugin", "0.9.1", "markdown"),
           ("static-list-variable-plugin", "0.5.2", "staticlistvariable"),
           ("stat-chart-plugin", "0.10.0", "statchart"),
           ("datasource-variable-plugin", "0.4.0", "datasourcevariable"))
PLAYWRIGHT = "1.57.0"   # playwright-core: drives Debian's Chromium (no browser download)
PROJECT = "aix"
END = int(dt.datetime(2026, 11, 2, 18, 0, tzinfo=dt.timezone.utc).timestamp())   # the history's end
WINDOW = 8 * 3600                                                                  # what each screenshot spans
# the demo's two LPARs, both under the shipped selector (job=~"aix.*") so that every dashboard
# shows them: (scenario, simulated seconds of history ending at END, target labels)
LPARS = (("case-study", 8 * 3600, {"job": "aix", "instance": "tsmsrv01:10990", "lpar": "tsmsrv01"}),
         ("exhaustion", 12 * 3600, {"job": "aix", "instance": "tsmsrv02:10990", "lpar": "tsmsrv02"}))
WIDTH = 1600
# Panels whose queries return nothing over the rendered window, and why: the render fails on
# "No data" anywhere else, and on any of these showing data (then this list is wrong).
PANELS_WITHOUT_DATA: dict = {}
# Panels whose figures are measured while the history is written (the exporter's own collector
# durations), not simulated: they differ from run to run, so the screenshot comparison masks them.
MEASURED_PANELS = {("aix-overview.json", "Collector duration"): "collector durations measured while simulating"}
STEP_TIMEOUT = 1800   # seconds: the longest build step (npm ci on a slow registry)


def cache_dir() -> str:
    base = os.environ.get("AIX_EXPORTER_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "aix-exporter")
    return os.path.join(base, f"perses-{PERSES}")


def _env(**extra) -> dict:
    e = dict(os.environ, LC_ALL="C", LANG="C", TZ="UTC")
    e.update(extra)
    return e


def _run(argv: list, cwd=None, timeout=STEP_TIMEOUT, **env):
    r = subprocess.run(argv, cwd=cwd, env=_env(**env), capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])} failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-1500:]}")
    return r.stdout


def _which(name: str, package: str) -> str:
    path = shutil.which(name) or (f"/usr/local/go/bin/{name}" if name == "go" and os.access("/usr/local/go/bin/go", os.X_OK) else None)
    if not path:
        raise RuntimeError(f"the render needs {name} ({package})")
    return path


class Tools:
    def __init__(self, cache: str):
        self.cache = cache
        self.percli = os.path.join(cache, "bin", "percli")
        self.perses = os.path.join(cache, "bin", "perses")
        self.plugins = os.path.join(cache, "plugins")
        self.shooter = os.path.join(cache, "shooter")

    def ready(self) -> bool:
        return all(os.access(p, os.X_OK) for p in (self.percli, self.perses)) and os.path.isfile(
            os.path.join(self.plugins, ".complete")) and os.path.isfile(os.path.join(self.shooter, ".complete"))


def failed_marker(cache: str) -> str:
    """Where a failed build leaves its one-line reason (removed by the next build)."""
    return cache.rstrip("/") + ".failed"


@contextlib.contextmanager
def _locked(cache: str | None):
    """The cache's tools, held under the exclusive lock beside it (one build at a time)."""
    import fcntl
    tools = Tools(cache or cache_dir())
    os.makedirs(os.path.dirname(tools.cache), exist_ok=True)
    with open(tools.cache.rstrip("/") + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield tools


def wait_for_build(cache: str | None = None) -> Tools:
    """The cache as a build running elsewhere (tests/run.sh starts one in the background) leaves
    it: waits for its lock, then the tools, or RuntimeError with the reason the build failed."""
    with _locked(cache) as tools:
        if tools.ready():
            return tools
        try:
            with open(failed_marker(tools.cache), encoding="utf-8") as fh:
                raise RuntimeError(f"the Perses build failed: {fh.read().strip()}")
        except FileNotFoundError:
            raise RuntimeError(f"Perses is not built in {tools.cache} (python3 dashboards/render.py --build)") from None


def build(cache: str | None = None, log=print) -> Tools:
    """Perses, percli and the plugins in ``cache``, built once (what is there is reused). One
    build at a time (an exclusive lock beside the cache: two test runs at once used to corrupt
    it); a failed build leaves its reason in ``failed_marker`` for the render test to say."""
    with _locked(cache) as tools:
        if tools.ready():
            return tools
        try:
            os.unlink(failed_marker(tools.cache))
        except FileNotFoundError:
            pass
        try:
            return _build(tools, log)
        except Exception as e:
            reason = " ".join(str(e).split())[:500] or type(e).__name__
            with open(failed_marker(tools.cache), "w", encoding="utf-8") as fh:
                fh.write(reason + "\n")
            raise


def _build(tools: Tools, log) -> Tools:
    go, npm = _which("go", "Go"), _which("npm", "Node.js and npm")
    gobin = os.path.dirname(go)
    path = os.pathsep.join([gobin, os.path.dirname(npm), os.environ.get("PATH", "")])
    work = os.path.join(tools.cache, "build")
    os.makedirs(os.path.join(tools.cache, "bin"), exist_ok=True)
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "go.mod"), "w", encoding="utf-8") as fh:
        fh.write(f"module local/persesbuild\n\ngo 1.24\n\nrequire github.com/perses/perses {PERSES}\n")
    with open(os.path.join(work, "tools.go"), "w", encoding="utf-8") as fh:
        fh.write('//go:build tools\n\npackage tools\n\nimport _ "github.com/perses/perses/cmd/percli"\n')
    if not os.access(tools.percli, os.X_OK):
        log(f"building percli {PERSES} (Go module proxy) ...")
        _run([go, "mod", "tidy"], cwd=work, PATH=path)
        _run([go, "build", "-o", tools.percli + ".tmp", "github.com/perses/perses/cmd/percli"], cwd=work, PATH=path,
             CGO_ENABLED="0")
        os.replace(tools.percli + ".tmp", tools.percli)      # whole or not at all
    module = json.loads(_run([go, "mod", "download", "-json", f"github.com/perses/perses@{PERSES}"], cwd=work,
                             PATH=path))["Dir"]
    if not os.access(tools.perses, os.X_OK):
        src = os.path.join(work, "perses-src")
        shutil.rmtree(src, ignore_errors=True)
        _copy_writable(module, src)
        ui = os.path.join(src, "ui")
        log("building the Perses UI (npm: about 5 minutes) ...")
        _run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=ui, PATH=path)
        _run([os.path.join(os.path.dirname(npm), "npx"), "turbo", "run", "build", "--filter=./app..."], cwd=ui,
             PATH=path)
        _run(["/bin/bash", os.path.join(src, "scripts", "compress_assets.sh")], cwd=src, PATH=path)
        log(f"building the Perses server {PERSES} ...")
        _run([go, "build", "-ldflags", "-s -w", "-o", tools.perses + ".tmp", "./cmd/perses"], cwd=src, PATH=path,
             CGO_ENABLED="0")
        os.replace(tools.perses + ".tmp", tools.perses)
        shutil.rmtree(src, ignore_errors=True)
    log("fetching the plugins (npm) ...")
    shutil.rmtree(tools.plugins, ignore_errors=True)
    tarballs = os.path.join(work, "npm")
    os.makedirs(tarballs, exist_ok=True)
    for package, version, folder in PLUGINS:
        name = _run([npm, "pack", "--silent", f"@perses-dev/{package}@{version}"], cwd=tarballs, PATH=path).split()[-1]
        dest = os.path.join(tools.plugins, folder)
        os.makedirs(dest)
        with tarfile.open(os.path.join(tarballs, name)) as tar:
            for m in tar.getmembers():
                rel = m.name[len("package/"):]
                if m.isfile() and m.name.startswith("package/") and ".." not in rel.split("/"):
                    m.name = rel
                    tar.extract(m, dest)
        complete_plugin(dest, os.path.join(SCHEMAS, folder), os.path.join(module, "cue"))
    open(os.path.join(tools.plugins, ".complete"), "w").close()
    log("fetching playwright-core (npm) ...")
    shutil.rmtree(tools.shooter, ignore_errors=True)
    os.makedirs(tools.shooter)
    _run([npm, "install", "--no-audit", "--no-fund", "--no-save", f"playwright-core@{PLAYWRIGHT}"], cwd=tools.shooter,
         PATH=path)
    open(os.path.join(tools.shooter, ".complete"), "w").close()
    return tools


def _copy_writable(src: str, dest: str):
    """Copy a tree out of Go's read-only module cache, writable (scripts executable)."""
    shutil.copytree(src, dest)
    for d, _, files in os.walk(dest):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o755 if f.endswith(".sh") else 0o644)


def complete_plugin(dest: str, schemas: str, core_cue: str):
    """Give an npm plugin its CUE: the vendored schemas and module file, with the core CUE of
    the Perses zip where the module's ``deps:`` would have fetched it from."""
    shutil.copytree(os.path.join(schemas, "schemas"), os.path.join(dest, "schemas"))
    shutil.copytree(os.path.join(schemas, "cue.mod"), os.path.join(dest, "cue.mod"))
    pkg = os.path.join(dest, "cue.mod", "pkg", "github.com", "perses", "perses", "cue")
    _copy_writable(core_cue, pkg)
    module = os.path.join(dest, "cue.mod", "module.cue")
    with open(module, encoding="utf-8") as fh:
        text = fh.read()
    with open(module, "w", encoding="utf-8") as fh:
        fh.write(re.sub(r"\ndeps: \{.*?\n\}\n", "\n", text, flags=re.S))


# ---- migration ---------------------------------------------------------------------------

def dashboard_files() -> list:
    return sorted(f for f in os.listdir(DASHBOARDS) if f.endswith(".json"))


def grafana_input(dashboard: dict) -> dict:
    """The Grafana JSON as percli's plugins need it: a time-series legend with ``calcs``."""
    d = json.loads(json.dumps(dashboard))

    def walk(o):
        if isinstance(o, dict):
            if isinstance(o.get("legend"), dict):
                o["legend"].setdefault("calcs", [])
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    walk(d)
    return d


def migrate(tools: Tools, path: str, work: str) -> dict:
    """The Perses form of one compiled dashboard; a panel left as a placeholder is an error."""
    with open(path, encoding="utf-8") as fh:
        source = json.load(fh)
    given = os.path.join(work, "grafana-" + os.path.basename(path))
    with open(given, "w", encoding="utf-8") as fh:
        json.dump(grafana_input(source), fh)
    out = _run([tools.percli, "migrate", "-f", given, "-o", "json", "--plugin.path", tools.plugins,
                "--project", PROJECT], timeout=120)
    d = json.loads(out)
    placeholders = [p["spec"]["display"]["name"] for p in d["spec"]["panels"].values()
                    if "not supported" in json.dumps(p["spec"]["plugin"])
                    or p["spec"]["plugin"]["kind"] == "Markdown" and "Migration" in json.dumps(p)]
    if placeholders:
        raise RuntimeError(f"{os.path.basename(path)}: panels not migrated: {placeholders}")
    complete(source, d)
    for q in _queries(d):
        q["spec"]["plugin"]["spec"].get("datasource", {}).pop("name", None)
    for layout in d["spec"].get("layouts", []):
        collapse = layout.get("spec", {}).get("display", {}).get("collapse")
        if collapse:
            collapse["open"] = True
    return d


# Grafana's units as Perses formats (the units our dashboards use; another one is an error, so
# that a new dashboard never loses its unit in the pictures)
UNITS = {"short": {"unit": "decimal"}, "none": {"unit": "decimal"}, "percentunit": {"unit": "percent-decimal"},
         "percent": {"unit": "percent"}, "bytes": {"unit": "bytes"}, "s": {"unit": "seconds"},
         "binBps": {"unit": "bytes/sec"}}
LEGEND_ROWS = 10   # a chart's height in grid rows from which Perses gives its legend 100 px, not 40
NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def _perses_name(name: str, refids: list) -> str:
    """A Grafana table column's name as Perses names it: Time is timestamp, "Value #B" is
    "value #2" (the query's place), "Value" of a table's one query is "value"; labels keep theirs
    (MergeSeries folds "instance #1", "instance #2" into instance)."""
    if name == "Time":
        return "timestamp"
    m = re.fullmatch(r"Value #([A-Z])", name)
    if m:
        return f"value #{refids.index(m.group(1)) + 1}"
    return "value" if name == "Value" else name


def _format(unit, decimals) -> dict:
    if unit not in UNITS:
        raise RuntimeError(f"no Perses format for Grafana's unit {unit!r}: add it to render.UNITS")
    out = dict(UNITS[unit])
    if decimals is not None:
        out["decimalPlaces"] = decimals
    if out["unit"] == "decimal":
        out["shortValues"] = False   # (a table's 8905 misses/s, not 9K)
    return out


def _cell_settings(mappings: list, column: str) -> list:
    """Grafana value mappings as Perses cell settings. Perses applies them to every cell of the
    table, not to one column: a mapping on a number (0, 1) would rename numbers in other columns
    too, so only text, NaN and beyond-1e300 (+Inf) mappings are carried; a number's name belongs
    in a label (the census state, the verdict)."""
    out: list = []
    for m in mappings:
        if m["type"] == "value":
            for key, result in m["options"].items():
                if NUMBER.fullmatch(key):
                    raise RuntimeError(f"column {column!r}: a value mapping on the number {key}: Perses would apply it "
                                       "to every column; give the name as a label")
                if "text" in result:
                    out.append({"condition": {"kind": "Value", "spec": {"value": key}}, "text": result["text"]})
        elif m["type"] == "special" and m["options"]["match"] == "nan":
            out.append({"condition": {"kind": "Misc", "spec": {"value": "NaN"}}, "text": m["options"]["result"]["text"]})
        elif m["type"] == "range" and m["options"].get("from", 0) >= 1e300 and m["options"].get("to") is None:
            out.append({"condition": {"kind": "Range", "spec": {"min": m["options"]["from"]}},
                        "text": m["options"]["result"]["text"]})
        else:
            raise RuntimeError(f"column {column!r}: a {m['type']} mapping Perses cannot carry")
    return out


def complete_table(grafana: dict, spec: dict) -> None:
    """What percli's migration leaves out of a Grafana table, carried into its Perses form: the
    organize transformation's columns under Perses's names (their order, headers and hidden
    columns, Time included), the overrides' units and decimals, the sortBy order, text mappings,
    and the merge of the queries by LPAR (queries whose labels differ, as a state's name,
    are joined on instance)."""
    refids = [t["refId"] for t in grafana.get("targets", [])]
    steps = {t["id"]: t.get("options", {}) for t in grafana.get("transformations", [])}
    organize = steps.get("organize", {})
    rename, exclude = organize.get("renameByName", {}), organize.get("excludeByName", {})
    order = sorted(organize.get("indexByName", {}), key=organize.get("indexByName", {}).get)
    names = order + [n for n in list(rename) + list(exclude) if n not in order]
    defaults = grafana.get("fieldConfig", {}).get("defaults", {})
    overrides = {o["matcher"]["options"]: {p["id"]: p["value"] for p in o["properties"]}
                 for o in grafana.get("fieldConfig", {}).get("overrides", []) if o["matcher"]["id"] == "byName"}
    sort = {f["field"]: "desc" if f.get("desc") else "asc" for f in steps.get("sortBy", {}).get("sort", [])}
    columns, cells = [], []
    for name in names:
        shown = rename.get(name, name)
        props = overrides.get(shown, {})
        column = {"name": _perses_name(name, refids), "header": shown}
        if exclude.get(name):
            column["hide"] = True
        column["format"] = _format(props.get("unit", defaults.get("unit", "short")),
                                   props.get("decimals", defaults.get("decimals")))
        if shown in sort:
            column["sort"] = sort[shown]
        columns.append(column)
        cells += _cell_settings(props.get("mappings", []), shown)
    if organize and "Time" not in names:
        columns.append({"name": "timestamp", "hide": True})
    if columns:
        spec["columnSettings"] = columns
    if cells:
        spec["cellSettings"] = cells
    if len(refids) > 1 and "merge" in steps:
        # a row is the labels every query has: not a name one query alone gives (label_replace),
        # nor the metric's name (lost by arithmetic)
        exprs = [t["expr"] for t in grafana["targets"]]
        some = {label for e in exprs for label in re.findall(r'label_replace\(.*?, "(\w+)", ', e, re.S)
                if not all(f'"{label}"' in other for other in exprs)}
        keys = [n for n in names if not n.startswith("Value") and n not in ("Time", "__name__") and n not in some]
        spec["transforms"] = [{"kind": "MergeSeries", "spec": {}}, {"kind": "JoinByColumnValue", "spec": {"columns": keys}}]


def _grafana_panels(panels: list):
    for p in panels:
        yield p
        yield from _grafana_panels(p.get("panels", []))


def complete(source: dict, d: dict) -> None:
    """The migrated dashboard ``d`` completed from its Grafana ``source``: every table by
    complete_table, and every chart at least LEGEND_ROWS high (Perses draws a bottom legend 40 px
    high in a smaller panel, which cuts it after its first line); the panels below a grown one
    move down by as much."""
    by_title = {p.get("title"): p for p in _grafana_panels(source.get("panels", []))}
    charts = set()
    for key, p in d["spec"]["panels"].items():
        plugin = p["spec"]["plugin"]
        if plugin["kind"] == "Table":
            complete_table(by_title[p["spec"]["display"]["name"]], plugin["spec"])
        elif plugin["kind"] == "TimeSeriesChart":
            charts.add(f"#/spec/panels/{key}")
    for layout in d["spec"].get("layouts", []):
        items = layout["spec"].get("items", [])
        for y in sorted({i["y"] for i in items}, reverse=True):
            band = [i for i in items if i["y"] == y]
            grow = max([LEGEND_ROWS - i["height"] for i in band if i["content"]["$ref"] in charts] + [0])
            if grow:
                for i in items:
                    if i["y"] > y:
                        i["y"] += grow
                for i in band:
                    i["height"] += grow


def _queries(d: dict):
    for p in d["spec"]["panels"].values():
        yield from p["spec"].get("queries", [])


def layout_height(d: dict) -> int:
    """A window height that holds every grid with room to spare (the screenshot is cropped to
    the content afterwards): a grid unit is drawn 30 px high plus its margin, a row title
    about 50 px, the header and variable bar 200 px."""
    total = 200
    for layout in d["spec"].get("layouts", []):
        items = layout["spec"].get("items", [])
        total += 50 + 40 * max((i["y"] + i["height"] for i in items), default=0)
    return int(total * 1.5)


def crop(png: str):
    """Cut the empty page below the last panel (the window was made taller than the content)."""
    from PIL import Image, ImageChops
    with Image.open(png) as im:
        rgb = im.convert("RGB")
    corner = rgb.getpixel((rgb.width - 1, rgb.height - 1))
    box = ImageChops.difference(rgb, Image.new("RGB", rgb.size, corner)).getbbox()
    if box is None or box[3] >= rgb.height:
        raise RuntimeError(f"{png}: the dashboard is taller than the window")
    rgb.crop((0, 0, rgb.width, box[3] + 16)).save(png, optimize=True)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# ---- data --------------------------------------------------------------------------------

def history(tsdb: str, log=print):
    """The demo's history ending at END, with the recording rules, in the blocks of ``tsdb``."""
    from aix_exporter.tools import simulate
    _which("promtool", "Debian package prometheus")
    simulate.backfilled(tsdb, LPARS, END, [os.path.join(ROOT, "alerts", "aix-rules.yml")], log=log)


# ---- serving and rendering ---------------------------------------------------------------

def _wait(url: str, proc, timeout: float, ok=lambda body: True):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: the server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                body = r.read()
            if ok(body):
                return body
        except (urllib.error.URLError, OSError) as e:
            last = e
        time.sleep(0.2)
    raise RuntimeError(f"{url} not ready after {timeout:.0f} s: {last}")


@contextlib.contextmanager
def perses(tools: Tools, prometheus_url: str, dashboards: dict, work: str):
    """The Perses server on a free loopback port with project PROJECT, the Prometheus as its
    default data source and ``dashboards`` (name -> Perses dashboard) provisioned."""
    prov = os.path.join(work, "provisioning")
    os.makedirs(prov, exist_ok=True)
    resources = [{"kind": "Project", "metadata": {"name": PROJECT}, "spec": {"display": {"name": "AIX"}}},
                 {"kind": "Datasource", "metadata": {"name": "prometheus", "project": PROJECT},
                  "spec": {"default": True, "plugin": {"kind": "PrometheusDatasource", "spec": {
                      "proxy": {"kind": "HTTPProxy", "spec": {"url": prometheus_url}}}}}}]
    for d in dashboards.values():
        resources.append(d)
    with open(os.path.join(prov, "resources.json"), "w", encoding="utf-8") as fh:
        json.dump(resources, fh)
    archives = os.path.join(work, "plugin-archives")
    os.makedirs(archives, exist_ok=True)
    config = os.path.join(work, "perses.yaml")
    with open(config, "w", encoding="utf-8") as fh:
        json.dump({"security": {"readonly": False, "enable_auth": False},
                   "database": {"file": {"folder": os.path.join(work, "db"), "extension": "json"}},
                   "provisioning": {"folders": [prov]},
                   "plugin": {"path": tools.plugins, "archive_path": archives}}, fh)
    port = tempprom.free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(os.path.join(work, "perses.log"), "w")
    proc = subprocess.Popen([tools.perses, f"--config={config}", f"--web.listen-address=127.0.0.1:{port}"],
                            stdout=log, stderr=subprocess.STDOUT, env=_env(), start_new_session=True)
    try:
        want = set(dashboards)
        _wait(f"{url}/api/v1/projects/{PROJECT}/dashboards", proc, 120,
              ok=lambda body: want <= {d["metadata"]["name"] for d in json.loads(body)})
        yield url
    finally:
        tempprom.stop(proc, timeout=20)
        log.close()


def shoot(tools: Tools, url: str, png: str, height: int) -> list:
    """Screenshot one page into ``png`` (dashboards/perses/shoot.mjs: headless Chromium driven
    by playwright-core, waiting until no panel is loading); returns what each panel shows."""
    browser = _which("chromium", "Debian package chromium")
    node = _which("node", "Node.js")
    r = subprocess.run([node, os.path.join(DASHBOARDS, "perses", "shoot.mjs"), url, png, str(WIDTH), str(height)],
                       env=_env(NODE_PATH=os.path.join(tools.shooter, "node_modules"), CHROMIUM=browser),
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0 or not os.path.isfile(png):
        raise RuntimeError(f"{url}: the browser failed ({r.returncode}): {r.stderr.strip()[-1500:]}")
    crop(png)
    return json.loads(r.stdout)["panels"]


def page_url(base: str, name: str, variables: dict) -> str:
    q = [("start", str((END - WINDOW) * 1000)), ("end", str(END * 1000))]
    q += [(f"var-{k}", v) for k, v in variables.items()]
    return f"{base}/projects/{PROJECT}/dashboards/{name}?" + "&".join(f"{k}={urllib.parse.quote(v)}" for k, v in q)


# A request that failed on a loaded machine is not what the dashboard shows: the page is drawn
# again, at most SHOTS times in all. Such a panel shows the error icon without a query's error
# message: "Failed to fetch" (Perses' proxy dropped the request), or its legend alone (the
# answer came too late; seen on a fresh clone beside the demo's soak). A query's own error
# (bad PromQL: "bad_data: ... parse error") is drawn once and reported.
SHOTS = 3


def transient(panel: dict) -> bool:
    """An error the next drawing may not show: no query error message in the panel's text."""
    return bool(panel["error"]) and "error" not in panel["text"].lower()


def render_one(tools: Tools, base: str, name: str, d: dict, png: str) -> list:
    """Screenshot of one dashboard into ``png``; returns what each panel shows."""
    url, height = page_url(base, name, {}), layout_height(d)
    for _ in range(SHOTS):
        panels = shoot(tools, url, png, height)
        if not any(transient(p) for p in panels):
            break
    return panels


def render_all(out: str, cache: str | None = None, log=print, extra: dict | None = None) -> dict:
    """Render every dashboard into ``out`` (``extra``: more Grafana dashboards, by file name,
    rendered beside them); returns {name: {"file", "panels" (what each shows), "perses"}}."""
    tools = build(cache, log)
    work = tempfile.mkdtemp(prefix="aix-render-")
    try:
        sources = {f: os.path.join(DASHBOARDS, f) for f in dashboard_files()}
        for f, board in (extra or {}).items():
            sources[f] = os.path.join(work, f)
            with open(sources[f], "w", encoding="utf-8") as fh:
                json.dump(board, fh)
        migrated = {}
        for f, path in sources.items():
            d = migrate(tools, path, work)
            migrated[d["metadata"]["name"]] = (f, d)
        tsdb = os.path.join(work, "tsdb")
        history(tsdb, log)
        os.makedirs(out, exist_ok=True)
        results = {}
        with tempprom.serve(tsdb) as prom, perses(tools, prom, {n: d for n, (_, d) in migrated.items()}, work) as base:
            for name, (f, d) in migrated.items():
                log(f"rendering {f} ...")
                png = os.path.join(out, f.replace(".json", ".png"))
                results[name] = {"file": f, "panels": render_one(tools, base, name, d, png), "perses": d}
        return results
    finally:
        shutil.rmtree(work, ignore_errors=True)


def problems(results: dict) -> list:
    """What a user would see wrong, one line each: a panel not drawn, a panel showing an error,
    "No data" or a chart with no series (unless PANELS_WITHOUT_DATA says why), a chart panel
    that drew no chart."""
    out = []
    for r in results.values():
        f = r["file"]
        want = {p["spec"]["display"]["name"]: p["spec"]["plugin"]["kind"] for p in r["perses"]["spec"]["panels"].values()}
        shown = {}
        for p in r["panels"]:   # a title as drawn has its variables ($instance) filled in
            title = next((w for w in want if _title_pattern(w).fullmatch(p["title"])), p["title"])
            shown[title] = p
        for title in sorted(set(want) - set(shown)):
            out.append(f"{f}: panel {title!r} is not drawn")
        for title, p in shown.items():
            quiet = (f, title) in PANELS_WITHOUT_DATA
            # a chart with no data draws "No data" on its canvas: it has no legend entry either
            empty = want.get(title) == "TimeSeriesChart" and p.get("series", 0) == 0
            if p["error"]:
                out.append(f"{f}: panel {title!r} shows an error: {p['text'][:200]!r}")
            elif (p["noData"] or empty) and not quiet:
                out.append(f"{f}: panel {title!r} shows no data")
            elif quiet and not (p["noData"] or empty):
                out.append(f"{f}: panel {title!r} shows data: PANELS_WITHOUT_DATA is out of date")
            elif want.get(title) == "TimeSeriesChart" and not p["chart"]:
                out.append(f"{f}: panel {title!r} drew no chart")
    return out


def _title_pattern(title: str):
    return re.compile(re.sub(r"\\\$\w+", ".+", re.escape(title)))


MANIFEST = "manifest.json"


def manifest(results: dict, out: str) -> dict:
    """What the screenshots in ``out`` were rendered from: each dashboard's JSON (SHA-256 of the
    committed file), the Perses version and plugins, the history's end and the window."""
    boards = {}
    for r in sorted(results.values(), key=lambda r: r["file"]):
        with open(os.path.join(DASHBOARDS, r["file"]), encoding="utf-8") as fh:
            boards[r["file"]] = {"sha256": digest(fh.read()), "png": r["file"].replace(".json", ".png"),
                                 "panels": len(r["panels"])}
    return {"renderer": f"Perses {PERSES}", "plugins": {p: v for p, v, _ in PLUGINS}, "end": END, "window": WINDOW,
            "lpars": [t["lpar"] + ": " + s for s, _, t in LPARS], "dashboards": boards}


def stale(out: str = OUT) -> list:
    """Dashboards whose committed screenshot was rendered from another version of their JSON
    (or is missing), by file name."""
    try:
        with open(os.path.join(out, MANIFEST), encoding="utf-8") as fh:
            m = json.load(fh)["dashboards"]
    except FileNotFoundError:
        return dashboard_files()
    old = []
    for f in dashboard_files():
        with open(os.path.join(DASHBOARDS, f), encoding="utf-8") as fh:
            same = m.get(f, {}).get("sha256") == digest(fh.read())
        if not same or not os.path.isfile(os.path.join(out, f.replace(".json", ".png"))):
            old.append(f)
    return old


def measured_boxes(result: dict) -> list:
    """(left, top, right, bottom) of the panels of one rendered dashboard listed in MEASURED_PANELS."""
    return [(int(p["box"]["x"]), int(p["box"]["y"]), int(p["box"]["x"] + p["box"]["width"]) + 1,
             int(p["box"]["y"] + p["box"]["height"]) + 1)
            for p in result["panels"] if (result["file"], p["title"]) in MEASURED_PANELS]


def pixel_difference(a: str, b: str, masks: tuple = ()) -> float:
    """The share of pixels that differ between two screenshots (1.0 when their sizes differ),
    outside the boxes in ``masks``."""
    from PIL import Image, ImageChops, ImageDraw
    with Image.open(a) as x, Image.open(b) as y:
        if x.size != y.size:
            return 1.0
        x, y = x.convert("RGB"), y.convert("RGB")
        for im in (x, y):
            draw = ImageDraw.Draw(im)
            for box in masks:
                draw.rectangle(box, fill=(0, 0, 0))
        diff = ImageChops.difference(x, y).convert("L").point(lambda v: 255 if v else 0)
        return diff.histogram()[255] / (x.width * x.height)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="store_true", help="only build Perses (or find it in the cache)")
    ap.add_argument("--out", default=OUT, help="where the screenshots go (default docs/dashboards)")
    args = ap.parse_args(argv)
    if args.build:
        try:
            t = build()
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
            print(f"render.py --build: {' '.join(str(e).split())[:500]}", file=sys.stderr)
            return 1
        print(f"Perses {PERSES}: {t.cache}")
        return 0
    fresh = tempfile.mkdtemp(prefix="aix-render-out-")
    try:
        results = render_all(fresh)
        wrong = problems(results)
        for line in wrong:
            print(line, file=sys.stderr)
        if wrong:
            print("not written: fix the dashboards first", file=sys.stderr)
            return 1
        os.makedirs(args.out, exist_ok=True)
        for r in results.values():
            png = r["file"].replace(".json", ".png")
            shutil.copy(os.path.join(fresh, png), os.path.join(args.out, png))
            print(f"{os.path.join(args.out, png)}: {len(r['panels'])} panels")
        with open(os.path.join(args.out, MANIFEST), "w", encoding="utf-8") as fh:
            json.dump(manifest(results, args.out), fh, indent=1, sort_keys=True)
            fh.write("\n")
        return 0
    finally:
        shutil.rmtree(fresh, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
