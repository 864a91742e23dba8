"""A context depends on its task and the graph only: not on what earlier tasks left in
the graph file's read cache (one store serves every run of a process)."""

from __future__ import annotations

from pathlib import Path

import langgraph.graph
import pytest

from citeloop.knowledge import ContextExpansion, ContextInjector, SqliteGraphStore, index_tree

TASK = "How does StateGraph.compile produce a CompiledStateGraph, and where do add_node fit in?"
OTHER_TASKS = (
    "How does Pregel stream the values of a run?",
    "Where are channels written after a node runs, and what does BinaryOperatorAggregate do?",
    "How does the checkpointer save a thread's state?",
)


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("langgraph") / "graph.db"
    with SqliteGraphStore(db) as store:
        index_tree(Path(langgraph.graph.__file__).parents[1], store)
    return db


def contexts(store: SqliteGraphStore) -> list[str]:
    injector = ContextInjector(store)
    default = injector.inject(TASK)
    widened = [
        injector.inject(TASK, expansion=ContextExpansion.for_attempt(attempt)) for attempt in (1, 2)
    ]
    return [default.text, *(context.text for context in widened)]


def test_a_warm_read_cache_builds_the_same_context_as_a_cold_one(graph_file: Path) -> None:
    with SqliteGraphStore(graph_file, read_only=True) as cold:
        expected = contexts(cold)
    with SqliteGraphStore(graph_file, read_only=True) as warm:
        injector = ContextInjector(warm)
        for task in OTHER_TASKS:
            injector.inject(task)
            injector.inject(task, expansion=ContextExpansion.for_attempt(2))
        assert contexts(warm) == expected
        assert contexts(warm) == expected  # and again, with this task's reads cached too
