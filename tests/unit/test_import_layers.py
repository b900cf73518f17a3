"""The package's import graph, lazy imports (inside functions) counted: no circle among its
top-level modules and packages, and config (read by every layer) imports none of the layers
that read it: collectors, sources, cli (issue 57, item 7: config -> collectors -> sources ->
commands -> config was a circle through two lazy imports)."""
import ast

from tests.lib import ROOT

PACKAGE = ROOT / "exporter" / "aix_exporter"


def modules() -> dict:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def graph() -> dict:
    """{module: {modules it imports, anywhere in it}}."""
    mods = modules()
    g = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:
                    edges.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in mods else target)
            elif isinstance(node, ast.Import):
                edges.update(a.name for a in node.names)
        g[name] = {e for e in edges if e in mods and e != name}
    return g


def top(name: str) -> str:
    return ".".join(name.split(".")[:2])


def test_no_circle_among_the_top_level_modules_and_packages():
    layers: dict = {}
    for name, edges in graph().items():
        for e in edges:
            if top(name) != top(e):
                layers.setdefault(top(name), set()).add(top(e))
    circles = []

    def walk(start, node, path):
        for nxt in sorted(layers.get(node, ())):
            if nxt == start:
                circles.append(" -> ".join(path + [nxt]))
            elif nxt not in path and nxt > start:
                walk(start, nxt, path + [nxt])
    for start in sorted(layers):
        walk(start, start, [start])
    assert circles == []


def test_config_imports_none_of_the_layers_that_read_it():
    reached = {top(e) for e in graph()["aix_exporter.config"]}
    assert not reached & {"aix_exporter.collectors", "aix_exporter.sources", "aix_exporter.cli",
                          "aix_exporter.exporter", "aix_exporter.targets"}, reached


def test_the_check_sees_a_lazy_import():
    """(the check itself: a function-level import is an edge, as the circle above had two)"""
    assert "aix_exporter.sources.remotelog" in graph()["aix_exporter.sources.ssh"]
