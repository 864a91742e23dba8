"""A class named in a string (``Ref("Select")``, ``ForeignKey("Author")``) becomes a
``references`` fact to that class, chosen among same-named classes by what the file can
see, and re-linked when a class of that name appears or goes away; a class named in an
annotation, a ``uses_type`` fact."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from citeloop.knowledge import RelationKind, SqliteGraphStore, index_tree
from citeloop.knowledge.indexing.references import MAX_STRING_NAME, names_class
from citeloop.knowledge.indexing.string_names import MAX_NAMED_CLASSES


def _write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def _index(root: Path, db: Path, relation: str = "references") -> set[tuple[str, str]]:
    """Index ``root`` into ``db``; the (subject, object) of its ``relation`` facts."""
    with SqliteGraphStore(db) as store:
        index_tree(root, store)
        rows = store._db.execute(
            "SELECT subject, object FROM facts WHERE relation = ?", (relation,)
        ).fetchall()
    return {tuple(row) for row in rows}


GRAMMAR = {
    "sql/__init__.py": "",
    "sql/base.py": """
        def Ref(name):
            return name


        class SelectClause:
            pass


        class Statement:
            grammar = Ref("SelectClause")

            def parse(self):
                return lookup("Statement"), "select", "Missing", "SelectClause"
        """,
    "sql/text.py": """
        def described(code):
            '''SelectClause'''
            "Where"
            return f"SelectClause{code}Where"
        """,
    "sql/other.py": """
        class Where:
            '''A WHERE clause.'''

            grammar = ["SelectClause", "Ref"]
        """,
}


def test_a_string_naming_a_class_references_it(tmp_path: Path) -> None:
    _write(tmp_path / "tree", GRAMMAR)
    found = _index(tmp_path / "tree", tmp_path / "g.db")
    assert found == {
        # A class attribute's value: the attribute refers to the class.
        ("sql.base.Statement.grammar", "sql.base.SelectClause"),
        ("sql.other.Where.grammar", "sql.base.SelectClause"),
        # In a method, once per name, its own class too.
        ("sql.base.Statement.parse", "sql.base.SelectClause"),
        ("sql.base.Statement.parse", "sql.base.Statement"),
    }
    # "select" is prose, "Missing" names no class and "Ref" a function: no fact; nor
    # a docstring, a string statement or an f-string's text (sql.text.described).


def test_the_relation_is_followed_when_ranking(tmp_path: Path) -> None:
    from citeloop.knowledge.ranking import WEIGHTS

    assert RelationKind.REFERENCES in WEIGHTS
    _write(tmp_path / "tree", GRAMMAR)
    _index(tmp_path / "tree", tmp_path / "g.db")
    with SqliteGraphStore(tmp_path / "g.db", read_only=True) as store:
        from citeloop.knowledge import ContextInjector

        context = ContextInjector(store).inject("What does `Where.grammar` match?")
    assert "sql.base.SelectClause" in {entity.id for entity in context.entities}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SelectClauseSegment", True),
        ("Model", True),
        ("HTTPServer", True),
        ("model", False),  # not CapWords
        ("GET", False),
        ("MAX_SIZE", False),
        ("T", False),
        ("Select Clause", False),  # not one identifier
        ("pkg.Model", False),
        ("", False),
        ("Ä" + "x" * 10, True),
        ("X" * (MAX_STRING_NAME + 1), False),
    ],
)
def test_which_strings_may_name_a_class(text: str, expected: bool) -> None:
    assert names_class(text) is expected


def _select_twins(count: int) -> dict[str, str]:
    return {f"d/m{number}.py": "class Select:\n    pass\n" for number in range(count)}


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # The file's own module first, even when it imports another that has one.
        (
            {
                **_select_twins(2),
                "d/m1.py": "from d import m0\n\nclass Select:\n    pass\n\n"
                "def f():\n    return 'Select'\n",
            },
            {("d.m1.f", "d.m1.Select")},
        ),
        # Then a module it imports...
        (
            {**_select_twins(3), "d/q.py": "from d import m2\n\ndef f():\n    return 'Select'\n"},
            {("d.q.f", "d.m2.Select")},
        ),
        # ... or the class imported by name, through a package's re-export.
        (
            {
                "other/q.py": "class Select:\n    pass\n",
                "pkg/__init__.py": "from pkg.impl import Select\n",
                "pkg/impl.py": "class Select:\n    pass\n",
                "app/use.py": "from pkg import Select\n\ndef f():\n    return 'Select'\n",
            },
            {("app.use.f", "pkg.impl.Select")},
        ),
        # A package's __init__ is its own module, not its subpackages'.
        (
            {
                **_select_twins(2),
                "d/__init__.py": "from d.m1 import Select\n\ndef f():\n    return 'Select'\n",
            },
            {("d.f", "d.m1.Select")},
        ),
        # Otherwise the classes of the deepest package shared with the file.
        (
            {
                "x/b.py": "class Select:\n    pass\n",
                "y.py": "class Select:\n    pass\n",
                "x/a/f.py": "def f():\n    return 'Select'\n",
            },
            {("x.a.f.f", "x.b.Select")},
        ),
        (
            {**_select_twins(3), "e.py": "def f():\n    return 'Select'\n"},
            {("e.f", f"d.m{number}.Select") for number in range(3)},
        ),
        # Too many alike: the string does not say which.
        (
            {**_select_twins(MAX_NAMED_CLASSES + 1), "e.py": "def f():\n    return 'Select'\n"},
            set(),
        ),
    ],
)
def test_same_named_classes_are_chosen_as_python_finds_names(
    tmp_path: Path, files: dict[str, str], expected: set[tuple[str, str]]
) -> None:
    _write(tmp_path / "tree", files)
    assert _index(tmp_path / "tree", tmp_path / "g.db") == expected


@pytest.mark.parametrize(
    "change",
    [
        # A class of the name appears in another file: the unchanged file links to it.
        lambda root: _write(root, {"late.py": "class Late:\n    pass\n"}),
        # It goes away again, and a twin decides anew.
        lambda root: (root / "sql" / "base.py").unlink(),
        lambda root: _write(root, {"sql/other.py": "class SelectClause:\n    pass\n"}),
    ],
)
def test_reindexing_relinks_the_strings_of_unchanged_files(tmp_path: Path, change) -> None:
    files = {**GRAMMAR, "use.py": "def use():\n    return 'Late', 'SelectClause'\n"}
    root = tmp_path / "tree"
    _write(root, files)
    incremental = tmp_path / "incremental.db"
    _index(root, incremental)
    change(root)
    assert _index(root, incremental) == _index(root, tmp_path / "full.db")


def test_only_a_change_of_a_names_classes_relinks_other_files(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    _write(
        root,
        {
            "a.py": "class Meta:\n    pass\n\n\nclass User:\n    pass\n",
            "b.py": "def f():\n    return 'Meta'\n",
        },
    )
    with SqliteGraphStore(tmp_path / "g.db") as store:
        index_tree(root, store)

        def relinked(edit: str) -> str:
            (root / "a.py").write_text((root / "a.py").read_text() + edit)
            statements: list[str] = []
            store._db.set_trace_callback(statements.append)
            index_tree(root, store)
            store._db.set_trace_callback(None)
            return " ".join(s for s in statements if "FROM refs r JOIN files" in s)

        # A new function changes a.py's interface, but no class named "Meta" came or went.
        assert "b.py" not in relinked("\n\ndef helper():\n    pass\n")
        assert "b.py" in relinked("\n\nclass Inner:\n    class Meta:\n        pass\n")


def test_a_class_named_in_an_annotation_is_a_type_used(tmp_path: Path) -> None:
    _write(
        tmp_path / "tree",
        {
            "pkg/__init__.py": "",
            "pkg/models.py": """
                class Model:
                    def copy(self) -> "Model":
                        return self


                class Widget:
                    pass
                """,
            "pkg/use.py": """
                from typing import Optional

                import pkg.models as m
                from pkg.models import Model


                def f(x: Model, *parts: "Widget", **named: Optional[m.Widget]) -> list[int]:
                    return []


                class Holder:
                    pool: "dict[str, Model]"

                    def __init__(self) -> None:
                        self.widget: m.Widget | None = None
                """,
        },
    )
    assert _index(tmp_path / "tree", tmp_path / "g.db", "uses_type") == {
        ("pkg.models.Model.copy", "pkg.models.Model"),
        # Parameters and the result, through an import alias, a string and a subscript;
        # "Widget" is not bound in pkg.use, and int, list, Optional are no class of the tree.
        ("pkg.use.f", "pkg.models.Model"),
        ("pkg.use.f", "pkg.models.Widget"),
        # A class attribute's and an instance attribute's annotation.
        ("pkg.use.Holder.pool", "pkg.models.Model"),
        ("pkg.use.Holder.widget", "pkg.models.Widget"),
    }


def test_what_an_annotation_names_as_a_type(tmp_path: Path) -> None:
    deep = ".".join(["m"] * 20) + ".Model"  # a chain longer than any resolved
    _write(
        tmp_path / "tree",
        {
            "pkg/__init__.py": "",
            "pkg/models.py": "class Model:\n    pass\n\n\nclass Widget:\n    pass\n",
            "pkg/use.py": f"""
                from typing import Annotated, Literal

                import typing as t
                from pkg.models import *


                def values(kind: Literal["Model", "Widget"], other: t.Literal["Model"]) -> None:
                    pass


                def meta(x: Annotated[Widget, "Model", Model]) -> "{deep}":
                    pass
                """,
        },
    )
    assert _index(tmp_path / "tree", tmp_path / "g.db", "uses_type") == {
        # Through the star import; the metadata after the type is no type.
        ("pkg.use.meta", "pkg.models.Widget"),
    }
