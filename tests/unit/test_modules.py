"""Module names as Python imports them: namespace packages, src layouts, checkouts."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeloop.errors import SourceTreeError
from citeloop.knowledge import EntityKind, RelationKind, SqliteGraphStore, index_tree
from citeloop.knowledge.indexing.modules import PackageRoot, module_layout


def write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


def modules_of(root: Path, packages: tuple[str, ...] = ()) -> dict[str, str]:
    paths = [p.relative_to(root).as_posix() for p in root.rglob("*.py")]
    distributions = {
        str(p.parent.relative_to(root).as_posix())
        for marker in ("pyproject.toml", "setup.cfg")
        for p in root.rglob(marker)
    }
    return module_layout(root, paths, distributions, packages).modules


def test_namespace_package_under_site_packages(tmp_path: Path) -> None:
    site = tmp_path / "lib" / "python3.11" / "site-packages"
    root = write(
        site / "langgraph",
        {
            "graph/__init__.py": "from langgraph.graph.state import StateGraph\n",
            "graph/state.py": (
                "from langgraph.pregel import Pregel\nclass StateGraph(Pregel): ...\n"
            ),
            "pregel/__init__.py": "class Pregel: ...\n",
            "types.py": "X = 1\n",
        },
    )
    assert modules_of(root) == {
        "graph/__init__.py": "langgraph.graph",
        "graph/state.py": "langgraph.graph.state",
        "pregel/__init__.py": "langgraph.pregel",
        "types.py": "langgraph.types",
    }
    with SqliteGraphStore(tmp_path / "g.db") as store:
        report = index_tree(root, store)
        assert report.packages == (PackageRoot("langgraph", ".", True),)
        (fact,) = store.facts_of("langgraph.graph.state.StateGraph", [RelationKind.INHERITS])
        assert fact.object == "langgraph.pregel.Pregel"
        assert report.warnings == ()


def test_a_package_inside_a_namespace_package_gets_the_whole_name(tmp_path: Path) -> None:
    root = write(
        tmp_path / "site-packages" / "google" / "cloud" / "storage",
        {"__init__.py": "", "blob.py": "class Blob: ...\n"},
    )
    assert modules_of(root) == {
        "__init__.py": "google.cloud.storage",
        "blob.py": "google.cloud.storage.blob",
    }


def test_site_packages_itself(tmp_path: Path) -> None:
    root = write(
        tmp_path / "site-packages",
        {
            "six.py": "",
            "requests/__init__.py": "",
            "requests/api.py": "",
            "ns/plugin/core.py": "",
            "foo-1.0.dist-info/entry.py": "",
        },
    )
    assert modules_of(root) == {
        "six.py": "six",
        "requests/__init__.py": "requests",
        "requests/api.py": "requests.api",
        "ns/plugin/core.py": "ns.plugin.core",
        "foo-1.0.dist-info/entry.py": "entry",
    }


def test_src_layout_with_tests_beside_the_package(tmp_path: Path) -> None:
    root = write(
        tmp_path / "checkout",
        {
            "pyproject.toml": "[project]\nname = 'app'\n",
            "src/app/__init__.py": "from app.core import run\n",
            "src/app/core.py": "def run():\n    return 1\n",
            "tests/test_core.py": "from app.core import run\n\ndef test_run():\n    run()\n",
            "tests/conftest.py": "",
            "docs/conf.py": "",
        },
    )
    assert modules_of(root) == {
        "src/app/__init__.py": "app",
        "src/app/core.py": "app.core",
        "tests/test_core.py": "tests.test_core",
        "tests/conftest.py": "tests.conftest",
        "docs/conf.py": "docs.conf",
    }
    with SqliteGraphStore(tmp_path / "g.db") as store:
        report = index_tree(root, store)
        assert [(p.name, p.path) for p in report.packages] == [
            ("app", "src/app"),
            ("docs", "docs"),
            ("tests", "tests"),
        ]
        tested = store.facts_of("app.core.run", [RelationKind.TESTED_BY])
        assert [fact.object for fact in tested] == ["tests.test_core.test_run"]


def test_a_lib_layout_names_its_packages_as_they_are_imported(tmp_path: Path) -> None:
    """matplotlib's sources are `lib/matplotlib/...`: its files had been named
    `lib.matplotlib...`, so a test's `import matplotlib.tri as mtri` read as a library
    outside the graph. A `lib` folder that is a package stays one."""
    root = write(
        tmp_path / "checkout",
        {
            "pyproject.toml": "[project]\nname = 'plot'\n",
            "lib/plot/__init__.py": "",
            "lib/plot/tri.py": "class Triangulation: ...\n",
            "lib/plot/tests/test_tri.py": (
                "import plot.tri as mtri\n\ndef test_tri():\n    mtri.Triangulation()\n"
            ),
            "app/__init__.py": "",
            "app/lib/__init__.py": "",
            "app/lib/io.py": "",
        },
    )
    assert modules_of(root) == {
        "lib/plot/__init__.py": "plot",
        "lib/plot/tri.py": "plot.tri",
        "lib/plot/tests/test_tri.py": "plot.tests.test_tri",
        "app/__init__.py": "app",
        "app/lib/__init__.py": "app.lib",
        "app/lib/io.py": "app.lib.io",
    }
    with SqliteGraphStore(tmp_path / "g.db") as store:
        index_tree(root, store)
        calls = store.facts_of("plot.tests.test_tri.test_tri", [RelationKind.CALLS])
        assert [fact.object for fact in calls] == ["plot.tri.Triangulation"]


def test_indexing_the_package_folder_of_a_src_layout(tmp_path: Path) -> None:
    root = write(tmp_path / "repo" / "src" / "app", {"__init__.py": "", "core.py": ""})
    assert modules_of(root) == {"__init__.py": "app", "core.py": "app.core"}


def test_a_monorepo_names_each_distribution_from_its_folder(tmp_path: Path) -> None:
    root = write(
        tmp_path / "mono",
        {
            "libs/core/pyproject.toml": "",
            "libs/core/core_pkg/__init__.py": "",
            "libs/graph/setup.py": "",
            "libs/graph/graph_pkg/__init__.py": "",
            "libs/graph/graph_pkg/nodes.py": "",
        },
    )
    modules = modules_of(root)
    assert modules["libs/core/core_pkg/__init__.py"] == "core_pkg"
    assert modules["libs/graph/graph_pkg/nodes.py"] == "graph_pkg.nodes"
    assert modules["libs/graph/setup.py"] == "setup"


def test_a_namespace_folder_of_a_distribution_indexed_by_itself(tmp_path: Path) -> None:
    write(tmp_path / "repo" / "libs" / "lg", {"pyproject.toml": ""})
    root = write(tmp_path / "repo" / "libs" / "lg" / "langgraph", {"graph/__init__.py": ""})
    assert modules_of(root) == {"graph/__init__.py": "langgraph.graph"}


def test_a_plain_folder_deep_in_a_checkout_is_a_base(tmp_path: Path) -> None:
    write(tmp_path / "repo", {"pyproject.toml": ""})
    root = write(tmp_path / "repo" / "tests" / "fixtures" / "sample", {"shapes/__init__.py": ""})
    assert modules_of(root) == {"shapes/__init__.py": "shapes"}


def test_package_declared_for_what_no_rule_decides(tmp_path: Path) -> None:
    root = write(
        tmp_path / "code",
        {
            "vendor/langgraph/graph/__init__.py": "from langgraph.pregel import Pregel\n",
            "vendor/langgraph/pregel/__init__.py": "class Pregel: ...\n",
        },
    )
    assert modules_of(root)["vendor/langgraph/graph/__init__.py"] == "vendor.langgraph.graph"
    declared = modules_of(root, ("langgraph",))
    assert declared["vendor/langgraph/graph/__init__.py"] == "langgraph.graph"
    assert declared["vendor/langgraph/pregel/__init__.py"] == "langgraph.pregel"


def test_declared_name_of_the_root_itself(tmp_path: Path) -> None:
    root = write(tmp_path / "lg", {"graph/__init__.py": ""})
    assert modules_of(root, ("lg",)) == {"graph/__init__.py": "lg.graph"}


@pytest.mark.parametrize(
    ("name", "message"),
    [("not-a-name", "not a dotted import name"), ("missing", "no folder 'missing'")],
)
def test_bad_declared_package(tmp_path: Path, name: str, message: str) -> None:
    root = write(tmp_path / "code", {"pkg/mod.py": ""})
    with pytest.raises(SourceTreeError, match=message):
        modules_of(root, (name,))


def test_two_files_with_one_name(tmp_path: Path) -> None:
    root = write(
        tmp_path / "repo",
        {"pkg.py": "", "pkg/__init__.py": "", "a/setup.py": "", "a/util.py": "", "util.py": ""},
    )
    modules = modules_of(root)
    assert modules["pkg/__init__.py"] == "pkg"  # a package folder wins over a module file
    assert modules["pkg.py"] == "pkg_"  # the loser keeps its path's name, made unique
    assert modules["util.py"] == "util"  # the shallower base wins
    assert modules["a/util.py"] == "a.util"
    assert len(set(modules.values())) == len(modules)


def test_warning_when_the_trees_imports_name_another_package(tmp_path: Path) -> None:
    files = {f"graph/m{i}.py": f"from langgraph.pregel import P{i}\n" for i in range(6)}
    files["graph/__init__.py"] = ""
    files["pregel/__init__.py"] = "".join(f"class P{i}: ...\n" for i in range(6))
    root = write(tmp_path / "code" / "langgraph", files)
    with SqliteGraphStore(tmp_path / "g.db") as store:
        (warning,) = index_tree(root, store).warnings
    assert "6 of 6 imports" in warning and "--package langgraph" in warning
    with SqliteGraphStore(tmp_path / "g2.db") as store:
        report = index_tree(root, store, packages=["langgraph"])
        assert report.warnings == ()
        assert store.get_entity("langgraph.pregel.P0").kind is EntityKind.CLASS


def test_no_warning_for_names_the_trees_modules_import_from_outside(tmp_path: Path) -> None:
    # requests' shape: `compat` re-exports the standard library, `__version__` holds
    # dunder variables; the package name is right, so --package would change nothing.
    files = {f"requests/m{i}.py": f"from requests.compat import urlparse{i}\n" for i in range(6)}
    files["requests/compat.py"] = "".join(
        f"from urllib.parse import urlparse as urlparse{i}\n" for i in range(6)
    )
    files["requests/__init__.py"] = "from requests.__version__ import __author__, __title__\n"
    files["requests/__version__.py"] = "__author__ = 'me'\n__title__ = 'requests'\n"
    with SqliteGraphStore(tmp_path / "g.db") as store:
        assert index_tree(write(tmp_path / "code", files), store).warnings == ()


def test_adding_an_init_file_renames_and_reindexes(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"tools/mod.py": "def f():\n    pass\n"})
    with SqliteGraphStore(tmp_path / "g.db") as store:
        index_tree(root, store)
        assert store.get_entity("tools.mod.f") is not None
        write(root, {"pyproject.toml": "", "tools/inner/__init__.py": ""})
        report = index_tree(root, store)
        assert report.files_indexed == 1  # only the new file: tools.mod keeps its name
        (root / "tools" / "mod.py").rename(root / "tools" / "inner" / "mod.py")
        index_tree(root, store)
        assert store.get_entity("tools.inner.mod.f") is not None
        assert store.get_entity("tools.mod.f") is None


def test_a_module_file_hides_a_namespace_folder_of_its_name(tmp_path: Path) -> None:
    root = write(
        tmp_path / "repo",
        {"pkg/__init__.py": "", "pkg/mod.py": "class A: ...\n", "pkg/mod/A.py": "def f(): ...\n"},
    )
    modules = modules_of(root)
    assert modules["pkg/mod.py"] == "pkg.mod"
    assert modules["pkg/mod/A.py"] == "pkg.mod_.A"  # not importable as pkg.mod.A


def test_file_names_that_are_no_identifiers_never_take_an_importable_name(
    tmp_path: Path,
) -> None:
    root = write(
        tmp_path / "repo",
        {
            "pkg/__init__.py": "",
            "pkg/a/__init__.py": "",
            "pkg/a/b.py": "",
            "pkg/a.b.py": "",
            "pkg/a_b.py": "",
            "pkg/my-tool.py": "",
        },
    )
    modules = modules_of(root)
    assert modules["pkg/a/b.py"] == "pkg.a.b"
    assert modules["pkg/a_b.py"] == "pkg.a_b"
    assert modules["pkg/a.b.py"] not in {"pkg.a.b", "pkg.a_b"}
    assert modules["pkg/my-tool.py"] == "pkg.my-tool"
    assert len(set(modules.values())) == len(modules)


def test_an_empty_declared_name_is_refused(tmp_path: Path) -> None:
    root = write(tmp_path / "code", {"pkg/mod.py": ""})
    with pytest.raises(SourceTreeError, match="not a dotted import name"):
        modules_of(root, ("",))


def test_packages_and_files_renamed_in_a_monorepo(tmp_path: Path) -> None:
    root = write(
        tmp_path / "mono",
        {
            "libs/foo/pyproject.toml": "",
            "libs/foo/foo/__init__.py": "",
            "libs/foo/tests/test_x.py": "",
            "libs/bar/pyproject.toml": "",
            "libs/bar/bar/__init__.py": "",
            "libs/bar/tests/test_x.py": "",
        },
    )
    with SqliteGraphStore(tmp_path / "g.db") as store:
        report = index_tree(root, store)
    assert [(p.name, p.path, p.namespace) for p in report.packages] == [
        ("bar", "libs/bar/bar", False),
        ("foo", "libs/foo/foo", False),
        ("tests", "libs/bar/tests", True),
    ]
    (warning,) = report.warnings
    assert "libs/foo/tests/test_x.py as libs.foo.tests.test_x (tests.test_x is another file)" in (
        warning
    )
