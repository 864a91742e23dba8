"""Batched reads and the read-only store's read cache: the reads a walk makes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import citeloop.knowledge.sqlite_store as sqlite_store
from citeloop.errors import ConfigurationError
from citeloop.knowledge import ContextInjector, MemoryGraphStore, SqliteGraphStore, index_tree

TASK = "How does Circle compute its area with Shape?"


@pytest.fixture
def graph_file(sample_repo: Path, tmp_path: Path) -> Path:
    db = tmp_path / "graph.db"
    with SqliteGraphStore(db) as writer:
        index_tree(sample_repo, writer)
    return db


@pytest.fixture
def reader(graph_file: Path) -> Iterator[SqliteGraphStore]:
    with SqliteGraphStore(graph_file, read_only=True) as store:
        yield store


def statements(store: SqliteGraphStore) -> list[str]:
    """Every SQL statement ``store`` runs from now on (SQLite's trace callback)."""
    seen: list[str] = []
    store._db.set_trace_callback(seen.append)
    return seen


def memory_copy(store: SqliteGraphStore) -> MemoryGraphStore:
    entities = store.all_entities()
    return MemoryGraphStore(entities, [f for e in entities for f in store.facts_of(e.id)])


# --- batched reads answer as the single reads do --------------------------------------------


@pytest.mark.parametrize("batch", [1, 2, 400])
def test_batched_reads_match_single_reads(reader, monkeypatch, batch):
    monkeypatch.setattr(sqlite_store, "_BATCH", batch)  # ids split over many statements
    entities = reader.all_entities()
    ids = [entity.id for entity in entities] + ["no.such.entity"]
    names = [*sorted({entity.name for entity in entities}), "no_such_name"]
    memory = memory_copy(reader)
    for store in (reader, memory):
        facts = store.facts_of_many(ids)
        assert facts == {entity_id: store.facts_of(entity_id) for entity_id in ids}
        found = store.get_entities(ids)
        assert found == {e.id: e for e in entities}
        named = store.entities_named_many(names)
        assert named == {name: store.entities_named(name) for name in names[:-1]}


def test_a_fact_of_two_requested_entities_is_listed_once_for_each(reader, monkeypatch):
    monkeypatch.setattr(sqlite_store, "_BATCH", 1)
    fact = next(f for e in reader.all_entities() for f in reader.facts_of(e.id))
    found = reader.facts_of_many([fact.subject, fact.object])
    assert [f.fact_id for f in found[fact.subject]].count(fact.fact_id) == 1
    assert [f.fact_id for f in found[fact.object]].count(fact.fact_id) == 1


def test_a_walk_reads_a_level_at_a_time(graph_file):
    # Without the cache, a walk costs a few statements per breadth-first level, not a
    # statement per entity (the walk used to cost two per entity it reached).
    with SqliteGraphStore(graph_file, read_only=True, cache_size=0) as store:
        seen = statements(store)
        context = ContextInjector(store, hops=2).inject(TASK)
    assert len(seen) <= 10 < len(context.entities), seen


def test_the_walk_is_the_same_from_every_store(reader, graph_file):
    memory = memory_copy(reader)
    with SqliteGraphStore(graph_file, read_only=True, cache_size=0) as uncached:
        for hops in (0, 1, 2):
            contexts = [ContextInjector(s, hops=hops).inject(TASK) for s in (reader, uncached)]
            contexts.append(ContextInjector(memory, hops=hops).inject(TASK))
            texts = {(c.text, c.entities, c.facts, c.snapshot) for c in contexts}
            assert len(texts) == 1


# --- the read cache --------------------------------------------------------------------------


def test_a_cached_walk_costs_one_statement(reader):
    injector = ContextInjector(reader)
    first = injector.inject(TASK)
    seen = statements(reader)
    again = injector.inject(TASK)
    assert seen == ["PRAGMA data_version"]
    assert again == first


def test_reads_outside_a_session_go_to_the_file(reader):
    ContextInjector(reader).inject(TASK)  # fills the cache
    seen = statements(reader)
    entity = reader.all_entities()[0]
    reader.facts_of_many([entity.id])
    reader.get_entities([entity.id])
    assert len(seen) == 3


def test_a_writable_store_does_not_cache(graph_file):
    with SqliteGraphStore(graph_file) as writer:
        ContextInjector(writer).inject(TASK)
        seen = statements(writer)
        ContextInjector(writer).inject(TASK)
    assert "PRAGMA data_version" not in seen
    assert len(seen) > 1


def test_a_reindex_in_place_is_seen_by_the_next_walk(sample_repo, tmp_path):
    root = tmp_path / "src"
    shutil.copytree(sample_repo, root)
    db = tmp_path / "graph.db"
    with SqliteGraphStore(db) as writer:
        index_tree(root, writer)
        with SqliteGraphStore(db, read_only=True) as reader:
            injector = ContextInjector(reader)
            before = injector.inject("How is Triangle used?")
            assert not before.core
            (root / "shapes" / "triangle.py").write_text(
                "class Triangle:\n    def area(self):\n        return 0\n", encoding="utf-8"
            )
            index_tree(root, writer)
            after = injector.inject("How is Triangle used?")
    assert [entity.name for entity in after.core] == ["Triangle"]
    assert after.snapshot != before.snapshot


def test_a_small_cache_stays_within_its_size_and_answers_the_same(reader, graph_file):
    expected = ContextInjector(reader, hops=2).inject(TASK)
    with SqliteGraphStore(graph_file, read_only=True, cache_size=7) as store:
        injector = ContextInjector(store, hops=2)
        for _ in range(3):
            assert injector.inject(TASK) == expected
            assert store._cache is not None and store._cache.count <= 7


def test_entries_read_under_an_older_version_are_not_kept():
    cache = sqlite_store._ReadCache(100)
    cache.validate(1)
    cache.validate(2)  # another connection committed meanwhile
    cache.put(1, "entities", {"a.A": None})
    cache.keep(1, snapshot="g-old")
    assert cache.tables["entities"] == {}
    assert cache.snapshot == ""
    cache.put(2, "entities", {"a.A": None})
    assert cache.tables["entities"] == {"a.A": None}


def test_a_negative_cache_size_is_refused(graph_file):
    with pytest.raises(ConfigurationError, match="cache_size"):
        SqliteGraphStore(graph_file, read_only=True, cache_size=-1)
