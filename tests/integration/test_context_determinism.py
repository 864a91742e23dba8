"""A context depends on its task and the graph only: not on what earlier tasks left in
the graph file's read cache (one store serves every run of a process)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from citeloop.knowledge import ContextExpansion, ContextInjector, SqliteGraphStore

TASK = "How does StateGraph.compile produce a CompiledStateGraph, and where do add_node fit in?"
OTHER_TASKS = (
    "How does Pregel stream the values of a run?",
    "Where are channels written after a node runs, and what does BinaryOperatorAggregate do?",
    "How does the checkpointer save a thread's state?",
)


def contexts(store: SqliteGraphStore) -> list[str]:
    injector = ContextInjector(store)
    default = injector.inject(TASK)
    widened = [
        injector.inject(TASK, expansion=ContextExpansion.for_attempt(attempt)) for attempt in (1, 2)
    ]
    return [default.text, *(context.text for context in widened)]


def test_a_warm_read_cache_builds_the_same_context_as_a_cold_one(langgraph_db: Path) -> None:
    with SqliteGraphStore(langgraph_db, read_only=True) as cold:
        expected = contexts(cold)
    with SqliteGraphStore(langgraph_db, read_only=True) as warm:
        injector = ContextInjector(warm)
        for task in OTHER_TASKS:
            injector.inject(task)
            injector.inject(task, expansion=ContextExpansion.for_attempt(2))
        assert contexts(warm) == expected
        assert contexts(warm) == expected  # and again, with this task's reads cached too


_ENTITIES_OF_A_RUN = """
import json, sys
from citeloop.knowledge import ContextExpansion, ContextInjector, SqliteGraphStore
with SqliteGraphStore(sys.argv[1], read_only=True) as store:
    injector = ContextInjector(store, hops=0)  # members whose classes are not walked to
    contexts = [injector.inject(sys.argv[2])]
    for attempt in (0, 1):
        expansion = ContextExpansion.for_attempt(attempt, ("Pregel.invoke", "BaseChannel"))
        contexts.append(injector.inject(sys.argv[2], expansion=expansion))
print(json.dumps([[(e.id, e.reason, e.score) for e in c.entities] for c in contexts]))
"""


def test_a_context_s_entities_do_not_depend_on_the_string_hash_seed(langgraph_db: Path) -> None:
    """Every entity in the same place, with the same reason and score, in every process
    (the owners appended last included): state and checkpoints are reproducible."""
    runs = [
        subprocess.run(
            [sys.executable, "-c", _ENTITIES_OF_A_RUN, str(langgraph_db), TASK],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    ]
    assert runs[0] and runs[0] == runs[1] == runs[2]
