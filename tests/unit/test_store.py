"""The SQLite store: incremental re-indexing, snapshots, the GraphStore protocol."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeloop.errors import ConfigurationError
from citeloop.knowledge import (
    Entity,
    EntityKind,
    Fact,
    GraphStore,
    MemoryGraphStore,
    RelationKind,
    SqliteGraphStore,
    compute_snapshot,
    index_tree,
)


@pytest.fixture
def repo(sample_repo: Path) -> Path:
    return sample_repo


def outgoing(store: SqliteGraphStore, subject: str, relation: RelationKind) -> list[str]:
    return [fact.object for fact in store.facts_of(subject, [relation]) if fact.subject == subject]


def fact_ids(store: SqliteGraphStore) -> set[str]:
    return {fact.fact_id for entity in store.all_entities() for fact in store.facts_of(entity.id)}


def test_stores_satisfy_the_protocol(store: SqliteGraphStore) -> None:
    assert isinstance(store, GraphStore)
    assert isinstance(MemoryGraphStore([], []), GraphStore)


def test_reindexing_an_unchanged_tree_indexes_nothing(repo: Path, store: SqliteGraphStore) -> None:
    first = index_tree(repo, store)
    ids = fact_ids(store)
    second = index_tree(repo, store)
    assert (second.files_indexed, second.files_unchanged) == (0, first.files_seen)
    assert second.snapshot == first.snapshot
    assert fact_ids(store) == ids


def test_same_content_gives_same_snapshot(repo: Path, tmp_path: Path) -> None:
    with (
        SqliteGraphStore(tmp_path / "a.db") as first,
        SqliteGraphStore(tmp_path / "b.db") as second,
    ):
        assert index_tree(repo, first).snapshot == index_tree(repo, second).snapshot
        assert fact_ids(first) == fact_ids(second)


def test_changing_one_file_reindexes_only_it(repo: Path, store: SqliteGraphStore) -> None:
    first = index_tree(repo, store)
    helpers = repo / "shapes" / "helpers.py"
    helpers.write_text(helpers.read_text() + "\n\ndef cube(value):\n    return value ** 3\n")
    report = index_tree(repo, store)
    assert report.files_indexed == 1
    assert report.snapshot != first.snapshot
    assert store.get_entity("shapes.helpers.cube") is not None
    # References from unchanged files are re-linked and still resolve.
    calls = outgoing(store, "shapes.circle.Circle.area", RelationKind.CALLS)
    assert calls == ["shapes.helpers.square"]


def test_provenance_digest_follows_the_file(repo: Path, store: SqliteGraphStore) -> None:
    index_tree(repo, store)
    base = repo / "shapes" / "base.py"
    base.write_text("# moved down\n" + base.read_text())
    index_tree(repo, store)
    (inherits,) = outgoing(store, "shapes.circle.Circle", RelationKind.INHERITS)
    (defines,) = [
        fact
        for fact in store.facts_of("shapes.base.Shape", [RelationKind.DEFINES])
        if fact.object == "shapes.base.Shape"
    ]
    assert defines.provenance.start_line == 5  # moved one line down, same fact id
    assert inherits == "shapes.base.Shape"


def test_deleting_a_file_removes_its_facts(repo: Path, store: SqliteGraphStore) -> None:
    index_tree(repo, store)
    (repo / "shapes" / "helpers.py").unlink()
    report = index_tree(repo, store)
    assert report.files_removed == 1
    assert store.get_entity("shapes.helpers.square") is None
    assert store.facts_of("shapes.helpers") == []
    calls = outgoing(store, "shapes.circle.Circle.area", RelationKind.CALLS)
    assert calls == ["?helpers.square"]  # the caller's reference is now unresolved
    assert store.get_entity("REQ-004-001") is None


def test_a_file_that_breaks_is_dropped_until_fixed(repo: Path, store: SqliteGraphStore) -> None:
    index_tree(repo, store)
    helpers = repo / "shapes" / "helpers.py"
    source = helpers.read_text()
    helpers.write_text("def broken(:\n")
    report = index_tree(repo, store)
    assert [skipped.path for skipped in report.skipped] == ["shapes/helpers.py"]
    assert store.get_entity("shapes.helpers.square") is None
    helpers.write_text(source)
    assert index_tree(repo, store).files_indexed == 1
    assert store.get_entity("shapes.helpers.square") is not None


def test_lookups(repo: Path, store: SqliteGraphStore) -> None:
    index_tree(repo, store)
    assert [e.id for e in store.entities_named("area")] == [
        "shapes.base.Shape.area",
        "shapes.circle.Circle.area",
    ]
    # `Circle(1).area()` calls the method of the instance the constructor made.
    assert "shapes.circle.Circle.area" in outgoing(
        store, "tests.test_shapes.test_circle_area", RelationKind.CALLS
    )
    both_ways = store.facts_of("shapes.circle.Circle")
    assert {f.relation for f in both_ways} >= {
        RelationKind.DEFINES,
        RelationKind.INHERITS,
        RelationKind.TESTED_BY,
        RelationKind.DECIDED,
        RelationKind.CALLS,
    }
    stats = store.stats()
    assert stats["entities.class"] == 4
    assert stats["entities"] == len(store.all_entities())


def test_memory_store_snapshot_and_facts() -> None:
    entities = [
        Entity("m.A", EntityKind.CLASS, "A"),
        Entity("m.B", EntityKind.CLASS, "B"),
    ]
    fact = Fact("m.B", RelationKind.INHERITS, "m.A")
    store = MemoryGraphStore(entities, [fact, fact])
    assert store.facts_of("m.A") == [fact]
    assert store.facts_of("m.A", [RelationKind.CALLS]) == []
    assert store.snapshot() == compute_snapshot(entities[::-1], [fact.fact_id])
    assert store.stats()["facts.inherits"] == 1


def test_a_snapshot_changes_when_code_only_moves() -> None:
    entity = Entity("m.f", EntityKind.FUNCTION, "f", "m.py", 3, end_line=5)
    moved = Entity("m.f", EntityKind.FUNCTION, "f", "m.py", 4, end_line=6)
    assert compute_snapshot([entity], []) != compute_snapshot([moved], [])
    assert compute_snapshot([entity], []) == compute_snapshot([entity, entity], [])
    # A store of one's own that has ids only: the id is the key.
    bare = MemoryGraphStore([Entity("m.f", EntityKind.FUNCTION, "f")], [])
    assert compute_snapshot(["m.f"], []) == bare.snapshot()


def test_a_new_index_format_reindexes_every_file(tmp_path, monkeypatch):
    from citeloop.knowledge.indexing import indexer

    root = tmp_path / "src"
    root.mkdir()
    (root / "mod.py").write_text("def f():\n    return g()\n\n\ndef g():\n    return 1\n")
    with SqliteGraphStore(tmp_path / "graph.db") as store:
        assert index_tree(root, store).files_indexed == 1
        assert index_tree(root, store).files_indexed == 0
        monkeypatch.setattr(indexer, "INDEX_FORMAT", indexer.INDEX_FORMAT + "-next")
        assert index_tree(root, store).files_indexed == 1
        assert index_tree(root, store).files_indexed == 0


def test_a_file_that_is_not_sqlite_is_refused(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n" * 100, encoding="utf-8")
    for read_only in (False, True):
        with pytest.raises(ConfigurationError, match=r"notes\.txt"):
            SqliteGraphStore(notes, read_only=read_only)
    assert notes.read_text(encoding="utf-8") == "my notes\n" * 100


def test_another_applications_database_is_left_alone(tmp_path):
    import sqlite3

    other = tmp_path / "app.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE users (name TEXT)")
    with pytest.raises(ConfigurationError, match="not a citeloop knowledge graph"):
        SqliteGraphStore(other)
    with sqlite3.connect(other) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert tables == {"users"}


def test_read_only_opens_nothing_new(tmp_path):
    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(ConfigurationError, match="not a citeloop knowledge graph"):
        SqliteGraphStore(empty, read_only=True)
    assert empty.stat().st_size == 0


def test_an_application_database_with_a_meta_table_is_left_alone(tmp_path):
    import sqlite3

    other = tmp_path / "app.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute("CREATE TABLE entities (name TEXT)")
    for read_only in (False, True):
        with pytest.raises(ConfigurationError, match="not a citeloop knowledge graph"):
            SqliteGraphStore(other, read_only=read_only)
    with sqlite3.connect(other) as db:
        query = "SELECT name FROM sqlite_master WHERE type = 'table'"
        tables = {row[0] for row in db.execute(query)}
        (journal,) = db.execute("PRAGMA journal_mode").fetchone()
    assert tables == {"meta", "entities"}
    assert journal == "delete"


def test_a_new_graph_is_written_with_a_rollback_journal_then_kept_in_wal_mode(
    sample_repo, tmp_path
):
    # Its first index writes each page once (no log to fold in); from then on, readers go
    # on reading the previous graph while the writer re-indexes.
    db = tmp_path / "graph.db"
    with SqliteGraphStore(db) as writer:
        assert writer._db.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        index_tree(sample_repo, writer)
        assert writer._db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    with SqliteGraphStore(db) as writer:  # an existing graph opens in WAL mode at once
        assert writer._db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_closed_graph_opens_read_only_without_sidecar_files(sample_repo, tmp_path):
    db = tmp_path / "ro" / "graph.db"
    db.parent.mkdir()
    with SqliteGraphStore(db) as writer:
        index_tree(sample_repo, writer)
    assert sorted(p.name for p in db.parent.iterdir()) == ["graph.db"]
    db.parent.chmod(0o555)  # as on read-only media (root ignores it; the check below holds)
    try:
        with SqliteGraphStore(db, read_only=True) as reader:
            assert reader.stats()["entities"] > 0
        assert sorted(p.name for p in db.parent.iterdir()) == ["graph.db"]
    finally:
        db.parent.chmod(0o755)


def test_a_graph_of_an_older_format_is_refused_then_rebuilt(tmp_path: Path, repo: Path) -> None:
    import sqlite3

    db = tmp_path / "old.db"
    with SqliteGraphStore(db) as store:
        index_tree(repo, store)
    with sqlite3.connect(db) as raw:  # as the previous format left it: no user_version
        raw.execute("PRAGMA user_version = 0")
        raw.execute("DROP TABLE types")
    with pytest.raises(ConfigurationError, match=r"older version of citeloop.*citeloop index"):
        SqliteGraphStore(db, read_only=True)
    with SqliteGraphStore(db) as store:
        report = index_tree(repo, store)
        assert report.files_unchanged == 0 and report.files_indexed == report.files_seen
    with SqliteGraphStore(db, read_only=True) as store:
        assert store.get_entity("shapes.base.Shape") is not None
