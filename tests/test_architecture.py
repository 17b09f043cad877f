"""Layers point down only (docs/architecture.md): every import of arkg in src/arkg, read with `ast`
(imports inside functions and under TYPE_CHECKING too), goes to the importing module's own package
or to a lower layer, and never between two packages of one layer that are kept apart."""

from __future__ import annotations

import ast
from pathlib import Path

import arkg

SRC = Path(arkg.__file__).parent

# Top first; a package may import its own modules and those of any lower layer. `__init__` is the
# root module (arkg.__version__).
LAYERS = (
    {"cli", "server", "mcp", "__main__"},
    {"session", "eval", "synth", "tune"},
    {"agents", "datasets"},
    {"graph", "llm"},
    {"programs", "tables", "retry", "data", "errors", "text", "paths", "processes", "__init__"},
)
# Packages of one layer that must not import each other: the page and the MCP server are no part of
# the CLI (nor the page of MCP); strategies and data sets know nothing of each other; the graph
# backends and the model backends neither.
APART = {
    ("server", "cli"),
    ("mcp", "cli"),
    ("server", "mcp"),
    ("agents", "datasets"),
    ("datasets", "agents"),
    ("graph", "llm"),
    ("llm", "graph"),
}


def package_of(module: str) -> str:
    """The top-level package or module of arkg that a dotted name lies in: arkg.agents.run -> agents."""
    parts = module.split(".")
    if len(parts) == 1 or not ((SRC / parts[1]).is_dir() or (SRC / f"{parts[1]}.py").is_file()):
        return "__init__"  # arkg itself, or a name defined in arkg/__init__.py
    return parts[1]


def imported(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The dotted names an import statement reads (for `from a import b`, a.b: b may be a module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:  # relative: from the module's package, up level - 1
        parts = module.split(".")[: len(module.split(".")) - node.level + is_package]
        base = ".".join([*parts, base] if base else parts)
    return [f"{base}.{alias.name}" for alias in node.names]


def layer_of(package: str) -> int:
    for depth, layer in enumerate(LAYERS):
        if package in layer:
            return depth
    raise AssertionError(f"arkg.{package} is in no layer: add it to LAYERS here and to docs/architecture.md")


def violations() -> list[str]:
    found: dict[str, None] = {}  # one line per statement and package imported, in file order
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC.parent).with_suffix("")
        is_package = relative.name == "__init__"
        module = ".".join(relative.parts[:-1] if is_package else relative.parts)
        source = package_of(module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for name in imported(module, is_package, node):
                if name != "arkg" and not name.startswith("arkg."):
                    continue
                target = package_of(name)
                where = f"{module}, line {node.lineno}: `{ast.unparse(node)}`"
                if target != source and layer_of(target) < layer_of(source):
                    found.setdefault(f"{where}: {target} is above {source}")
                elif (source, target) in APART:
                    found.setdefault(f"{where}: {source} may not import {target}")
    return list(found)


def test_imports_point_down_the_layers() -> None:
    found = violations()
    assert not found, "imports that run up the layers (docs/architecture.md):\n" + "\n".join(found)


def test_the_check_sees_an_import_up_the_layers_and_between_packages_kept_apart() -> None:
    def check(module: str, code: str) -> list[str]:
        node = ast.parse(code).body[0]
        assert isinstance(node, (ast.Import, ast.ImportFrom))
        targets = [package_of(name) for name in imported(module, False, node)]
        source = package_of(module)
        return [t for t in targets if layer_of(t) < layer_of(source) or (source, t) in APART]

    assert check("arkg.graph.model", "from arkg.agents.run import RunKit") == ["agents"]
    assert check("arkg.datasets.geo.build", "from arkg.agents import kg_agent") == ["agents"]
    assert check("arkg.server.steps", "from arkg import cli") == ["cli"]
    # A strategy's teacher implements arkg.agents.teaching and needs nothing of synthesis.
    assert check("arkg.agents.ark.teacher", "from arkg.synth.capture import capture") == ["synth"]
    assert check("arkg.synth.pipeline", "from arkg.agents.teaching import Lesson") == []
    assert check("arkg.llm.base", "from .. import session") == ["session"]
    assert check("arkg.graph.model", "from arkg import __version__") == []
    assert check("arkg.cli.ask", "import arkg.session, arkg.text") == []


def test_no_module_under_agents_imports_synthesis() -> None:
    # Teachers included: they implement arkg.agents.teaching, and synthesis imports that contract.
    found = [line for line in violations() if line.startswith("arkg.agents") and line.endswith(": synth is above agents")]
    assert not found, "strategies sit below synthesis:\n" + "\n".join(found)
