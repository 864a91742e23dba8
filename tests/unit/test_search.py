"""Lexical retrieval: the documents entities are found by, and BM25 in the graph file and
in memory."""

from __future__ import annotations

import pytest

from citeloop.knowledge import (
    Entity,
    EntityKind,
    MemoryGraphStore,
    SqliteGraphStore,
    index_tree,
)
from citeloop.knowledge.search import MemoryIndex, entity_document, fts_query

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
