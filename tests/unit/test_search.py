"""Lexical retrieval: the documents entities are found by, and BM25 in the graph file and
in memory."""

from __future__ import annotations

import contextlib

import pytest

from citeloop.grounding.mentions import query_words
from citeloop.knowledge import (
    Entity,
    EntityKind,
    MemoryGraphStore,
    SqliteGraphStore,
    index_tree,
)
from citeloop.knowledge.abbreviations import expansions
from citeloop.knowledge.search import MemoryIndex, entity_document, fts_query
from citeloop.knowledge.special_methods import SPECIAL_METHOD_WORDS

ENTITIES = [
    Entity(
        "flask.json.provider.DefaultJSONProvider",
        EntityKind.CLASS,
        "DefaultJSONProvider",
        docstring="Provide JSON operations using the built-in json library.",
    ),
    Entity(
        "flask.json.provider.DefaultJSONProvider.dumps",
        EntityKind.METHOD,
        "dumps",
        signature="(self, obj: Any, **kwargs: Any) -> str",
        docstring="Serialize data as JSON.",
    ),
    Entity("flask.app.Flask", EntityKind.CLASS, "Flask", docstring="The flask object."),
    Entity("flask.cli.run_command", EntityKind.FUNCTION, "run_command"),
    Entity("flask.cli", EntityKind.MODULE, "cli"),
    Entity("?json.dumps", EntityKind.FUNCTION, "dumps", resolved=False),
    Entity("REQ-7", EntityKind.REQUIREMENT, "REQ-7", signature="responses are serialized"),
]


SOURCES = {
    "flask/__init__.py": "",
    "flask/json/__init__.py": "",
    "flask/json/provider.py": (
        "# REQ-7: responses are serialized\n"
        "class DefaultJSONProvider:\n"
        '    """Provide JSON operations using the built-in json library."""\n\n'
        "    def dumps(self, obj: Any, **kwargs: Any) -> str:\n"
        '        """Serialize data as JSON."""\n'
    ),
    "flask/app.py": 'class Flask:\n    """The flask object."""\n',
    "flask/cli.py": "def run_command():\n    pass\n",
}


@pytest.fixture
def stack():
    with contextlib.ExitStack() as opened:
        yield opened


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    if request.param == "memory":
        yield MemoryGraphStore(ENTITIES, [])
        return
    for path, text in SOURCES.items():
        (tmp_path / "src" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / path).write_text(text, encoding="utf-8")
    with SqliteGraphStore(tmp_path / "graph.db") as graph:
        index_tree(tmp_path / "src", graph)
        yield graph


def test_documents_hold_split_names_owners_signatures_and_docstrings() -> None:
    words, doc = entity_document(ENTITIES[1])
    assert {"dumps", "default", "json", "provider", "obj", "kwargs", "any"} <= set(words.split())
    assert doc == "Serialize data as JSON."
    assert entity_document(ENTITIES[4]) is None  # a module has no line in a context
    assert entity_document(ENTITIES[5]) is None  # nor has an unresolved target


def test_a_paraphrase_finds_the_entity(store) -> None:
    hits = store.search(["json", "provider", "framework"], 5)
    assert hits[0][0] == "flask.json.provider.DefaultJSONProvider"
    assert [score for _, score in hits] == sorted((score for _, score in hits), reverse=True)
    assert all(score > 0 for _, score in hits)


def test_a_requirement_is_found_by_its_title(store) -> None:
    assert [entity_id for entity_id, _ in store.search(["responses"], 3)] == ["REQ-7"]


def test_no_words_or_no_room_finds_nothing(store) -> None:
    assert store.search([], 5) == []
    assert store.search(["json"], 0) == []
    assert store.search(["nothingmatches"], 5) == []


def test_query_syntax_in_the_words_is_not_interpreted(store) -> None:
    # FTS5 operators and quotes in a task's words are never a query syntax error.
    assert store.search(['"', "NOT", "AND", "json*", "NEAR(", "flask"], 5)


def test_repeated_words_and_huge_limits(store) -> None:
    hits = store.search(["json"] * 5_000, 2**63)
    assert hits[0][0] == "flask.json.provider.DefaultJSONProvider"


def test_fts_query_quotes_words_and_drops_the_rest() -> None:
    assert fts_query(["json", "a-b", 'x"y', "größe", "json"]) == '"json" OR "größe"'


def test_memory_index_limits_and_orders_ties_by_id() -> None:
    index = MemoryIndex([Entity(f"m.f{i}", EntityKind.FUNCTION, "same_name") for i in range(5)])
    assert [entity_id for entity_id, _ in index.search(["same"], 3)] == ["m.f0", "m.f1", "m.f2"]


SPECIAL = [
    Entity("shapes.Point", EntityKind.CLASS, "Point", docstring="A point in the plane."),
    Entity("shapes.Point.__eq__", EntityKind.METHOD, "__eq__", signature="(self, other)"),
    Entity("shapes.Point.__hash__", EntityKind.METHOD, "__hash__", signature="(self)"),
    Entity(
        "shapes.Point.near",
        EntityKind.METHOD,
        "near",
        signature="(self, other)",
        docstring="Whether the other point is within a unit.",
    ),
    Entity("shapes.__getattr__", EntityKind.FUNCTION, "__getattr__", signature="(name)"),
]
SPECIAL_SOURCE = (
    "class Point:\n"
    '    """A point in the plane."""\n\n'
    "    def __eq__(self, other):\n        return True\n\n"
    "    def __hash__(self):\n        return 0\n\n"
    "    def near(self, other):\n"
    '        """Whether the other point is within a unit."""\n        return True\n\n\n'
    "def __getattr__(name):\n    raise AttributeError(name)\n"
)


def _store(kind, entities, path, source, tmp_path, stack):
    """The entities in memory, or ``source`` (their file at ``path``) indexed into a
    graph file."""
    if kind == "memory":
        return MemoryGraphStore(entities, [])
    (tmp_path / "src" / path).parent.mkdir(parents=True)
    (tmp_path / "src" / path).write_text(source, encoding="utf-8")
    store = stack.enter_context(SqliteGraphStore(tmp_path / "graph.db"))
    index_tree(tmp_path / "src", store)
    return store


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_special_method_is_found_by_what_python_says_it_does(kind, tmp_path, stack) -> None:
    # A question says "equality", not __eq__: the Language Reference's words for each
    # special method are in its document, stemmed in the graph file ("equal").
    store = _store(kind, SPECIAL, "shapes.py", SPECIAL_SOURCE, tmp_path, stack)
    assert store.search(["equality", "point"], 1)[0][0] == "shapes.Point.__eq__"
    assert store.search(["hashing", "point"], 1)[0][0] == "shapes.Point.__hash__"
    # A module's __getattr__ (PEP 562) is a function with the same meaning.
    assert store.search(["attribute", "lookup"], 1)[0][0] == "shapes.__getattr__"
    # The words are its meaning, not its name: "near" still finds near.
    assert store.search(["near", "point"], 1)[0][0] == "shapes.Point.near"


def test_special_method_words_go_to_the_doc_field_of_functions_only() -> None:
    words, doc = entity_document(SPECIAL[1])
    assert "equality" in doc.split() and "equality" not in words.split()
    assert entity_document(SPECIAL[3])[1] == "Whether the other point is within a unit."
    attribute = Entity("shapes.Point.__eq__", EntityKind.ATTRIBUTE, "__eq__")
    assert "equality" not in entity_document(attribute)[1]


def test_every_special_method_word_can_match_a_query() -> None:
    # A word a task's query drops (a stop word) would only lengthen the document.
    words = {word for meaning in SPECIAL_METHOD_WORDS.values() for word in meaning.split()}
    assert [word for word in sorted(words) if not query_words(word)] == []


ABBREVIATED = [
    Entity("cpp.ast.ASTParenExpr", EntityKind.CLASS, "ASTParenExpr"),
    Entity("cpp.ast.ASTExpression", EntityKind.CLASS, "ASTExpression"),
    Entity("cpp.ast.ASTPointer", EntityKind.CLASS, "ASTPointer"),
    Entity(
        "cpp.ast.ASTPointer.get_id",
        EntityKind.METHOD,
        "get_id",
        signature="(self, version: int, obj: str) -> str",
    ),
]
ABBREVIATED_SOURCE = (
    "class ASTParenExpr:\n    pass\n\n\nclass ASTExpression:\n    pass\n\n\n"
    "class ASTPointer:\n    def get_id(self, version: int, obj: str) -> str:\n"
    "        return obj\n"
)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_an_abbreviated_name_is_found_by_its_full_words(kind, tmp_path, stack) -> None:
    # "the parenthesized expression node" is ASTParenExpr: paren and expr are found by
    # their full words, ahead of a class that has only one of them.
    store = _store(kind, ABBREVIATED, "cpp/ast.py", ABBREVIATED_SOURCE, tmp_path, stack)
    hits = [entity_id for entity_id, _ in store.search(["parenthesized", "expression"], 5)]
    assert hits[:2] == ["cpp.ast.ASTParenExpr", "cpp.ast.ASTExpression"]
    # The abbreviation itself still finds it.
    assert store.search(["paren"], 1)[0][0] == "cpp.ast.ASTParenExpr"


def test_only_name_and_owner_words_are_expanded() -> None:
    words = entity_document(ABBREVIATED[0])[0].split()
    assert {"paren", "expr", "parenthesis", "parenthesized", "expression"} <= set(words)
    # A signature's parameter (obj) is not the entity's name: "object" would find every
    # function taking an obj; a builtin (str, int) is never read as an abbreviation.
    method = set(entity_document(ABBREVIATED[3])[0].split())
    assert {"obj", "str", "int"} <= method
    assert not {"object", "string", "integer"} & method
    assert expansions(["paren", "expr", "paren", "str", "fn"]) == [
        "parenthesis",
        "parentheses",
        "parenthesized",
        "expression",
    ]
