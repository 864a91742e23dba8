"""The package root's public API and the one-way dependency rule of DESIGN.md."""

from __future__ import annotations

import ast
import importlib
import pkgutil
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


LAZY_PACKAGES = (
    "citeloop",
    "citeloop.knowledge",
    "citeloop.knowledge.indexing",
    "citeloop.checks",
    "citeloop.grounding",
)


def test_the_compatibility_package_gives_the_same_objects():
    """``citeloop.validation`` re-exports every name of ``checks`` and ``grounding``."""
    validation = importlib.import_module("citeloop.validation")
    for package in ("citeloop.checks", "citeloop.grounding"):
        module = importlib.import_module(package)
        for name in module.__all__:
            assert getattr(validation, name) is getattr(module, name)
    assert set(validation.__all__) <= set(dir(validation))


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_lazy_names_match_all_and_type_checking_imports(package):
    """The three lists of a lazy package agree: ``__all__``, the name -> module table
    (what ``dir()`` lists) and the ``TYPE_CHECKING`` imports type checkers read."""
    module = importlib.import_module(package)
    path = Path(module.__file__)
    checked: dict[str, str] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom)
                checked.update(dict.fromkeys((a.name for a in statement.names), statement.module))
    assert sorted(module.__all__) == sorted(checked)
    assert set(module.__all__) <= set(dir(module))
    for name, defining in checked.items():
        assert getattr(module, name) is getattr(importlib.import_module(defining), name)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="'citeloop' has no attribute 'no_such_name'"):
        _ = citeloop.no_such_name
    assert not hasattr(citeloop.knowledge, "no_such_name")


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


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_no_public_name_is_also_a_submodule(package):
    """Importing a submodule sets the package attribute of its name, which would hide a
    lazy public name of the same name (``checks.compliance_check`` the module, not the
    function)."""
    module = importlib.import_module(package)
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    assert not set(module.__all__) & submodules
