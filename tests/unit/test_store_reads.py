"""Batched reads and the read-only store's read cache: the reads a walk makes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import citeloop.knowledge.sqlite_cache as sqlite_cache
import citeloop.knowledge.sqlite_store as sqlite_store
from citeloop.errors import ConfigurationError
from citeloop.knowledge import (
    BatchedGraphStore,
    ContextInjector,
    Entity,
    EntityKind,
    Fact,
    MemoryGraphStore,
    RelationKind,
    SqliteGraphStore,
    index_tree,
)
from citeloop.knowledge.store import batched
from tests.reindex import indexed_module, re_indexed_on_first_call

TASK = "How does `Circle` compute its area with `Shape`?"


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
    memory = batched(memory_copy(reader))
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
    # statement per entity (the walk used to cost two per entity it reached): a level's
    # facts, its entities, and the import bindings of its unresolved calls; the seed
    # classes' bases (used_implementations) cost one a level up, two here, and the
    # members of the classes the task names (members_matching) three: their facts and
    # entities; the members the chosen classes list (member_lists) two more. The
    # full-text index's own reads ("-- " statements inside the search) are not counted;
    # the read session checks the file's version on entry and exit (two statements).
    with SqliteGraphStore(graph_file, read_only=True, cache_size=0) as store:
        traced = statements(store)
        context = ContextInjector(store, hops=2, excerpt_share=0).inject(TASK)
    seen = [statement for statement in traced if not statement.startswith("-- ")]
    assert seen.count("PRAGMA data_version") == 2
    # 28 statements for a context of 24 entities with lines: two an entity would be 48.
    lines = [e for e in context.entities if e.reason != "member"]
    assert len(seen) <= 28 < 2 * len(lines), seen


def test_the_walk_is_the_same_from_every_store(reader, graph_file):
    # The full-text index and the in-memory one score alike but not to the last digit,
    # so the stores are compared without lexical hits, and the two files with them.
    memory = memory_copy(reader)
    with SqliteGraphStore(graph_file, read_only=True, cache_size=0) as uncached:
        for hops in (0, 1, 2):
            for lexical_hits in (0, 24):
                stores = (reader, uncached) + ((memory,) if not lexical_hits else ())
                contexts = [
                    ContextInjector(
                        s, hops=hops, lexical_hits=lexical_hits, excerpt_share=0
                    ).inject(TASK)
                    for s in stores
                ]
                texts = {(c.text, c.entities, c.facts, c.snapshot) for c in contexts}
                assert len(texts) == 1


def hub(callees: int) -> MemoryGraphStore:
    center = Entity("pkg.Hub", EntityKind.CLASS, "Hub")
    others = [
        Entity(f"pkg.helper_{i:02d}", EntityKind.FUNCTION, f"helper_{i:02d}")
        for i in range(callees)
    ]
    return MemoryGraphStore(
        [center, *others], [Fact(center.id, RelationKind.CALLS, other.id) for other in others]
    )


def test_a_level_read_at_once_still_stops_at_the_entity_limit():
    context = ContextInjector(hub(10), hops=1, max_entities=3).inject("How does Hub work?")
    assert [e.id for e in context.entities] == ["pkg.Hub", "pkg.helper_00", "pkg.helper_01"]


def test_every_part_of_a_qualified_mention_is_looked_up():
    store = MemoryGraphStore(
        [
            Entity("REQ-1", EntityKind.REQUIREMENT, "REQ-1"),
            Entity("pkg.REQ-1.Thing", EntityKind.CLASS, "Thing"),
        ],
        [],
    )
    context = ContextInjector(store, hops=0).inject("see REQ-1.Thing")
    assert [e.id for e in context.core] == ["pkg.REQ-1.Thing"]


class SevenMethodStore:
    """A user's store with only GraphStore's seven methods."""

    def __init__(self, inner: MemoryGraphStore) -> None:
        self.inner = inner
        self.facts_of_calls = 0

    def entities_named(self, name):
        return self.inner.entities_named(name)

    def names(self):
        return self.inner.names()

    def get_entity(self, entity_id):
        return self.inner.get_entity(entity_id)

    def facts_of(self, entity_id, relations=None):
        self.facts_of_calls += 1
        return self.inner.facts_of(entity_id, relations)

    def all_entities(self):
        return self.inner.all_entities()

    def snapshot(self):
        return self.inner.snapshot()

    def stats(self):
        return self.inner.stats()


def test_a_store_with_only_the_single_reads_is_walked_through_them(reader):
    memory = memory_copy(reader)
    own = SevenMethodStore(memory)
    assert not isinstance(own, BatchedGraphStore)
    # A store without `search` has no lexical hits: compared with the same setting.
    expected = ContextInjector(memory, hops=2, lexical_hits=0).inject(TASK)
    assert ContextInjector(own, hops=2).inject(TASK) == expected
    assert own.facts_of_calls > 0


def test_a_memory_store_subclass_overriding_a_read_is_honoured(reader):
    class NoCalls(MemoryGraphStore):
        def facts_of(self, entity_id, relations=None):
            return [
                f
                for f in super().facts_of(entity_id, relations)
                if f.relation is not RelationKind.CALLS
            ]

    entities = reader.all_entities()
    store = NoCalls(entities, [f for e in entities for f in reader.facts_of(e.id)])
    facts = ContextInjector(store, hops=2).inject(TASK).facts
    assert facts and all(fact.relation is not RelationKind.CALLS for fact in facts)


# --- the read cache --------------------------------------------------------------------------


def test_a_cached_walk_reads_only_the_files_version(reader):
    """On the session's entry and exit: whether the cache is current, and whether the
    file changed while it was read."""
    injector = ContextInjector(reader)
    first = injector.inject(TASK)
    seen = statements(reader)
    again = injector.inject(TASK)
    assert seen == ["PRAGMA data_version"] * 2
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
            before = injector.inject("How is `Triangle` used?")
            assert not before.core
            (root / "shapes" / "triangle.py").write_text(
                "class Triangle:\n    def area(self):\n        return 0\n", encoding="utf-8"
            )
            index_tree(root, writer)
            after = injector.inject("How is `Triangle` used?")
    assert [entity.name for entity in after.core] == ["Triangle"]
    assert after.snapshot != before.snapshot


def test_a_small_cache_stays_within_its_size_and_answers_the_same(reader, graph_file):
    expected = ContextInjector(reader, hops=2).inject(TASK)
    with SqliteGraphStore(graph_file, read_only=True, cache_size=7) as store:
        injector = ContextInjector(store, hops=2)
        for _ in range(3):
            assert injector.inject(TASK) == expected
            assert store._cache is not None and store._cache.count <= 7


def test_names_and_snapshot_are_read_together(sample_repo, tmp_path):
    # A re-index committed between reading the snapshot and reading the names must not
    # pair the new names with the old snapshot (the pair is kept until the next change).
    root = tmp_path / "src"
    shutil.copytree(sample_repo, root)
    triangle = root / "shapes" / "triangle.py"
    triangle.write_text("class Triangle:\n    pass\n", encoding="utf-8")
    db = tmp_path / "graph.db"
    with (
        SqliteGraphStore(db) as writer,
        SqliteGraphStore(db, read_only=True, cache_size=0) as reader,
    ):
        index_tree(root, writer)
        real_execute = reader._db.execute

        class CommitAfterTheSnapshot:
            def execute(self, query, *args):
                result = real_execute(query, *args)
                if "key = 'snapshot'" in query and triangle.exists():
                    triangle.unlink()
                    index_tree(root, writer)  # only visible to a new read transaction
                return result

        reader._db = CommitAfterTheSnapshot()
        try:
            assert "Triangle" in reader.names()
        finally:
            reader._db = real_execute.__self__
        triangle.write_text("class Triangle:\n    pass\n", encoding="utf-8")
        index_tree(root, writer)  # back to the first content (and snapshot)
        assert "Triangle" in reader.names()


def test_unknown_keys_count_toward_the_cache_size(reader, graph_file):
    with SqliteGraphStore(graph_file, read_only=True, cache_size=50) as store, store.reading():
        store.facts_of_many([f"no.such.{i}" for i in range(40)])
        store.get_entities([f"no.such.{i}" for i in range(40)])
        assert store._cache is not None and store._cache.count <= 50


def test_entries_read_under_an_older_version_are_not_kept():
    cache = sqlite_cache.ReadCache(100)
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


@pytest.mark.parametrize(
    "token",
    [
        "Circle",
        "Circle.area",
        "shapes.circle.Circle.area",
        "REQ-1",
        "REQ-1.Thing",
        "a-b.c-d.e",
        "run",
        "x.run",
        "_cache_key",
        "Shape.describe.",
        ".area",
        "A.B.C.D.E.F.G.H.I.J",
    ],
)
def test_the_names_read_ahead_cover_every_name_a_mention_looks_up(token):
    from citeloop.knowledge.seeds import lookup_names, named_groups

    dotted = [part for part in token.split(".") if part]
    qualified = Entity(".".join(dotted), EntityKind.METHOD, dotted[-1])

    class Recording(dict):
        def __init__(self, found: list[Entity]) -> None:
            super().__init__()
            self.found, self.asked = found, set()

        def get(self, name, default=None):
            self.asked.add(name)
            return self.found if name == dotted[-1] and name != token else default

    for found in ([], [qualified]):  # nothing found (every fallback), or a qualified match
        named = Recording(found)
        named_groups(token, named)
        assert named.asked <= lookup_names(token)


# --- the first facts of a hub are chosen by SQLite, as the walk would sort them -------------


def _hub_file(path: Path) -> tuple[SqliteGraphStore, MemoryGraphStore]:
    """A hub with more facts of every relation, both ways, than a walk follows (and a
    recursive call), in a graph file and in memory."""
    from citeloop.knowledge.sqlite_schema import entity_row, fact_row

    hub = Entity("pkg.Hub", EntityKind.CLASS, "Hub")
    others = [Entity(f"pkg.n{i:03d}", EntityKind.FUNCTION, f"n{i:03d}") for i in range(90)]
    relations = list(RelationKind)
    facts = [Fact(hub.id, RelationKind.CALLS, hub.id)]
    for i, other in enumerate(others):
        relation = relations[i % len(relations)]
        ends = (hub.id, other.id) if i % 3 else (other.id, hub.id)
        facts.append(Fact(ends[0], relation, ends[1]))
    with SqliteGraphStore(path) as writer, writer.write_transaction() as db:
        db.executemany(
            "INSERT INTO entities VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [entity_row(entity, False) for entity in (hub, *others)],
        )
        db.executemany(
            "INSERT INTO facts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [fact_row(fact, False) for fact in facts],
        )
    return SqliteGraphStore(path, read_only=True), MemoryGraphStore([hub, *others], facts)


@pytest.mark.parametrize("cache_size", [0, 100_000])
def test_the_first_facts_of_a_hub_are_those_the_walk_would_sort_first(tmp_path, cache_size):
    from citeloop.knowledge import neighbourhood

    file_store, memory = _hub_file(tmp_path / "hub.db")
    ids = ["pkg.Hub", "pkg.n001", "no.such.entity"]
    expected = neighbourhood._first_facts(batched(memory), ids)
    assert len(expected["pkg.Hub"]) == neighbourhood.MAX_NEIGHBOURS < 91
    assert expected["no.such.entity"] == []
    with SqliteGraphStore(tmp_path / "hub.db", read_only=True, cache_size=cache_size) as reader:
        for _ in range(2):  # the second from the cache, when there is one
            with reader.reading():
                assert neighbourhood._first_facts(reader, ids) == expected
    file_store.close()


def test_the_walk_around_a_hub_is_the_same_from_the_file_and_from_memory(tmp_path):
    file_store, memory = _hub_file(tmp_path / "hub.db")
    contexts = [
        ContextInjector(store, hops=2, lexical_hits=0).inject("How does `Hub` work?")
        for store in (file_store, memory)
    ]
    assert contexts[0].text == contexts[1].text
    assert contexts[0].entities == contexts[1].entities
    file_store.close()


def test_what_a_popular_function_calls_is_followed_before_its_callers(tmp_path):
    """A function's callees are bounded by its body, its callers are not: called from
    more places than a walk follows, it still leads to what it delegates to."""
    from citeloop.knowledge import neighbourhood
    from citeloop.knowledge.sqlite_schema import entity_row, fact_row

    run = Entity("pkg.run", EntityKind.FUNCTION, "run")
    helper = Entity("pkg.helper", EntityKind.FUNCTION, "helper")
    callers = [
        Entity(f"pkg.c{i:03d}", EntityKind.FUNCTION, f"c{i:03d}")
        for i in range(2 * neighbourhood.MAX_NEIGHBOURS)
    ]
    entities = [run, helper, *callers]
    facts = [Fact(run.id, RelationKind.CALLS, helper.id)]
    facts += [Fact(caller.id, RelationKind.CALLS, run.id) for caller in callers]
    with SqliteGraphStore(tmp_path / "g.db") as writer, writer.write_transaction() as db:
        db.executemany(
            "INSERT INTO entities VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [entity_row(entity, False) for entity in entities],
        )
        db.executemany(
            "INSERT INTO facts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [fact_row(fact, False) for fact in facts],
        )
    with SqliteGraphStore(tmp_path / "g.db", read_only=True) as file_store:
        for store in (file_store, batched(MemoryGraphStore(entities, facts))):
            first = neighbourhood._first_facts(store, [run.id])[run.id]
            assert len(first) == neighbourhood.MAX_NEIGHBOURS
            assert first[0].object == helper.id


def test_a_subclass_filtering_its_facts_is_walked_through_its_filter(tmp_path):
    class NoCalls(SqliteGraphStore):
        def facts_of_many(self, entity_ids):
            return {
                entity_id: [f for f in facts if f.relation is not RelationKind.CALLS]
                for entity_id, facts in super().facts_of_many(entity_ids).items()
            }

    _hub_file(tmp_path / "hub.db")[0].close()
    with NoCalls(tmp_path / "hub.db", read_only=True) as store:
        assert store.first_facts_of_many is None
        context = ContextInjector(store, hops=1, lexical_hits=0).inject("How does `Hub` work?")
    assert not any(fact.relation is RelationKind.CALLS for fact in context.facts)
    assert len(context.entities) > 1  # the other relations are still followed


# --- a re-index in place while a context is read --------------------------------------------

MODULE = (
    "def first():\n    return 1\n\n\ndef target(value):\n    doubled = value * 2\n"
    "    return doubled\n"
)


def test_a_re_index_while_a_context_is_read_shows_one_version(tmp_path, monkeypatch) -> None:
    """Another process re-indexes the file (two lines added above ``target``) after the
    injector read ``target``'s lines and before it read the file digests: the context is
    read again, so every excerpt line's number is that line's number in the file now."""
    tree, db = indexed_module(tmp_path, MODULE)
    with SqliteGraphStore(db, read_only=True) as store:
        edits: list[bool] = []
        moved = "import os\nimport sys\n" + MODULE
        re_index_first = re_indexed_on_first_call(store.file_digests, tree, db, moved, edits)
        monkeypatch.setattr(store, "file_digests", re_index_first)
        context = ContextInjector(store).inject("How does `target` double its value?")
        with SqliteGraphStore(db, read_only=True) as now:
            assert context.snapshot == now.snapshot()
    assert edits, "the re-index ran while the context was read"
    lines = (tree / "mod.py").read_text(encoding="utf-8").splitlines()
    shown = [line.split(" | ", 1) for line in context.text.splitlines() if " | " in line]
    numbered = [(int(number), code) for number, code in shown if number.strip().isdigit()]
    assert numbered and all(lines[number - 1] == code for number, code in numbered), numbered
    assert "target(value)  # L7-9" in context.text
