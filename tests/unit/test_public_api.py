"""The package root's public API and the one-way dependency rule of DESIGN.md."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import citeloop

PACKAGE = Path(citeloop.__file__).parent
LIBRARIES = ("knowledge", "grounding", "checks", "validation", "contract")
# The libraries import no LangGraph and nothing above them.
FORBIDDEN = (
    "langgraph",
    "langchain",
    "langchain_core",
    "citeloop.graphs",
    "citeloop.nodes",
    "citeloop.state",
    "citeloop.context",
    "citeloop.models",
    "citeloop.cli",
)


@pytest.mark.parametrize("name", citeloop.__all__)
def test_every_public_name_resolves(name):
    assert getattr(citeloop, name) is not None


def imported_modules(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules.add(node.module)
    return modules


@pytest.mark.parametrize(
    "path",
    [p for lib in LIBRARIES for p in sorted((PACKAGE / lib).glob("*.py"))],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_libraries_import_nothing_above_them(path):
    modules = imported_modules(path)
    bad = {m for m in modules if any(m == f or m.startswith(f + ".") for f in FORBIDDEN)}
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_checks_never_import_grounding():
    """DESIGN.md: grounding may use the output checks, never the reverse."""
    for path in sorted((PACKAGE / "checks").glob("*.py")):
        modules = imported_modules(path)
        assert not {m for m in modules if m.startswith("citeloop.grounding")}, path.name


def test_library_modules_import_no_cycle():
    """No module of the libraries reaches itself through module-level imports."""
    graph: dict[str, set[str]] = {}
    for lib in LIBRARIES:
        for path in sorted((PACKAGE / lib).glob("*.py")):
            name = f"citeloop.{lib}" if path.stem == "__init__" else f"citeloop.{lib}.{path.stem}"
            tree = ast.parse(path.read_text(encoding="utf-8"))
            top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
            graph[name] = {
                n.module
                for n in top
                if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("citeloop.")
            }
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph:
                continue
            assert state.get(nxt) != 1, " -> ".join([*trail, node, nxt])
            if nxt not in state:
                visit(nxt, [*trail, node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state and not node.endswith(tuple(LIBRARIES)):
            visit(node, [])
