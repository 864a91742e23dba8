"""A class named in a string (``Ref("Select")``, a quoted forward reference) becomes a
``references`` fact to that class, chosen among same-named classes by what the file can
see, and re-linked when a class of that name appears or goes away."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from citeloop.knowledge import RelationKind, SqliteGraphStore, index_tree
from citeloop.knowledge.indexing.linker import MAX_NAMED_CLASSES, named_classes
from citeloop.knowledge.indexing.references import MAX_STRING_NAME, names_class


def _write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def _references(db: Path) -> set[tuple[str, str]]:
    with SqliteGraphStore(db, read_only=True) as store:
        rows = store._db.execute(
            "SELECT subject, object FROM facts WHERE relation = 'references'"
        ).fetchall()
    return {tuple(row) for row in rows}


def _index(root: Path, db: Path) -> set[tuple[str, str]]:
    with SqliteGraphStore(db) as store:
        index_tree(root, store)
    return _references(db)


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
        # In a method, once per name; its own class too (not the method itself).
        ("sql.base.Statement.parse", "sql.base.SelectClause"),
        ("sql.base.Statement.parse", "sql.base.Statement"),
    }
    # "select" is prose, "Missing" names no class and "Ref" a function: no fact.


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
        ("model", False),  # not CapWords
        ("Select Clause", False),  # not one identifier
        ("pkg.Model", False),
        ("", False),
        ("Ä" + "x" * 10, True),
        ("X" * (MAX_STRING_NAME + 1), False),
    ],
)
def test_which_strings_may_name_a_class(text: str, expected: bool) -> None:
    assert names_class(text) is expected


def test_same_named_classes_are_chosen_as_python_finds_names() -> None:
    twins = ["d.ansi.Select", "d.mysql.Select", "d.tsql.Select"]
    # The file's own module first, even when it imports another that has one.
    assert named_classes("d.mysql.Query.grammar", twins, "d.mysql", {"d.ansi"}) == [
        "d.mysql.Select"
    ]
    # Then a module it imports, or the class imported by name.
    assert named_classes("d.bq.Query.grammar", twins, "d.bq", {"d.ansi"}) == ["d.ansi.Select"]
    assert named_classes("d.bq.f", twins, "d.bq", {"d.tsql.Select"}) == ["d.tsql.Select"]
    # Otherwise the nearest by id: the most leading parts shared.
    assert named_classes("x.a.f", ["x.b.Select", "y.Select"], "x.a", ()) == ["x.b.Select"]
    assert named_classes("d.bq.f", twins, "d.bq", ()) == twins  # all equally near
    many = [f"d.m{number}.Select" for number in range(MAX_NAMED_CLASSES + 1)]
    assert named_classes("d.bq.f", many, "d.bq", ()) == []  # too ambiguous to say
    assert named_classes("d.bq.f", ["e.Select"], "d.bq", ()) == ["e.Select"]  # the only one


def test_twins_across_files_resolve_by_import(tmp_path: Path) -> None:
    _write(
        tmp_path / "tree",
        {
            "d/__init__.py": "",
            "d/ansi.py": "class Select:\n    pass\n",
            "d/mysql.py": """
                from d import ansi


                class Select:
                    pass


                class Query:
                    grammar = ("Select",)
                """,
            "d/bq.py": """
                from d import ansi


                class Query:
                    grammar = ("Select",)
                """,
        },
    )
    assert _index(tmp_path / "tree", tmp_path / "g.db") == {
        ("d.mysql.Query.grammar", "d.mysql.Select"),
        ("d.bq.Query.grammar", "d.ansi.Select"),
    }


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
