"""The package root's public API and the one-way dependency rule of DESIGN.md."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import citeloop

PACKAGE = Path(citeloop.__file__).parent
LIBRARIES = ("knowledge", "validation", "contract")
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
