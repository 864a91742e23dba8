"""The embedded default store: one SQLite file, rebuilt incrementally by file digest."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Collection, Sequence
from pathlib import Path
from types import TracebackType

from citeloop.errors import ConfigurationError
from citeloop.knowledge.linker import link
from citeloop.knowledge.model import Entity, EntityKind, Fact, Provenance, RelationKind
from citeloop.knowledge.paths import PathRecall
from citeloop.knowledge.records import FileIndex, Reference
from citeloop.knowledge.store import compute_snapshot

APPLICATION_ID = 0x43544C50  # "CTLP"
"""The SQLite header's application id of a citeloop graph file
(https://sqlite.org/pragma.html#pragma_application_id): tells our files from others'."""

_BUSY_SECONDS = 60.0
"""How long a writer waits for another process's index run to finish."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, digest TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entities (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, path TEXT, line INTEGER,
    signature TEXT NOT NULL, resolved INTEGER NOT NULL, derived INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS entities_by_name ON entities (name);
CREATE INDEX IF NOT EXISTS entities_by_path ON entities (path);
CREATE TABLE IF NOT EXISTS facts (
    fact_id TEXT PRIMARY KEY, subject TEXT NOT NULL, relation TEXT NOT NULL,
    object TEXT NOT NULL, path TEXT, start_line INTEGER, end_line INTEGER, digest TEXT,
    derived INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS facts_by_subject ON facts (subject, relation);
CREATE INDEX IF NOT EXISTS facts_by_object ON facts (object, relation);
CREATE INDEX IF NOT EXISTS facts_by_path ON facts (path);
CREATE TABLE IF NOT EXISTS refs (
    path TEXT NOT NULL, relation TEXT NOT NULL, subject TEXT NOT NULL, target TEXT NOT NULL,
    written TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
    mode TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS refs_by_path ON refs (path);
CREATE TABLE IF NOT EXISTS aliases (path TEXT NOT NULL, name TEXT NOT NULL, target TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS aliases_by_path ON aliases (path);
"""

_ENTITY_COLUMNS = "id, kind, name, path, line, signature, resolved"
_FACT_COLUMNS = "fact_id, subject, relation, object, path, start_line, end_line, digest"
_PER_FILE_TABLES = ("files", "refs", "aliases")


def _entity(row: tuple) -> Entity:
    entity_id, kind, name, path, line, signature, resolved = row
    return Entity(entity_id, EntityKind(kind), name, path, line, signature, bool(resolved))


def _fact(row: tuple) -> Fact:
    fact_id, subject, relation, object_, path, start, end, digest = row
    provenance = Provenance(path, start, end, digest) if path is not None else None
    return Fact(subject, RelationKind(relation), object_, provenance, fact_id)


def _entity_row(entity: Entity, derived: bool) -> tuple:
    return (
        entity.id,
        entity.kind.value,
        entity.name,
        entity.path,
        entity.line,
        entity.signature,
        int(entity.resolved),
        int(derived),
    )


def _fact_row(fact: Fact, derived: bool) -> tuple:
    where = fact.provenance
    return (
        fact.fact_id,
        fact.subject,
        fact.relation.value,
        fact.object,
        where.path if where else None,
        where.start_line if where else None,
        where.end_line if where else None,
        where.digest if where else None,
        int(derived),
    )


class SqliteGraphStore(PathRecall):
    """A :class:`~citeloop.knowledge.store.GraphStore` in one SQLite file (WAL mode).

    Safe to share between threads (calls are serialised). Use as a context manager or
    call :meth:`close`.

    Args:
        path: The database file (created if missing, unless ``read_only``), or
            ``":memory:"``.
        read_only: Open an existing graph for reading only; the graph is not changed
            (SQLite may still keep its ``-wal``/``-shm`` files beside it).

    Raises:
        ConfigurationError: The file cannot be opened, is not an SQLite database, holds
            another application's tables, or (``read_only``) is not a citeloop graph.

    Example:
        >>> with SqliteGraphStore(":memory:") as store:
        ...     store.stats()["entities"]
        0
    """

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        self.path = os.fspath(path)
        self.read_only = read_only
        self._lock = threading.Lock()
        self._names: tuple[str, frozenset[str]] | None = None
        try:
            self._db = self._open(read_only)
        except sqlite3.Error as error:
            raise ConfigurationError(
                f"cannot open knowledge graph {self.path!r}: {error}; pass the SQLite file "
                "written by `citeloop index` (or a new path for `citeloop index`)"
            ) from None

    def _open(self, read_only: bool) -> sqlite3.Connection:
        if read_only:
            uri = f"{Path(self.path).absolute().as_uri()}?mode=ro"
            db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
        else:
            db = sqlite3.connect(
                self.path, timeout=_BUSY_SECONDS, check_same_thread=False, isolation_level=None
            )
        (application_id,) = db.execute("PRAGMA application_id").fetchone()
        has_tables = db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is not None
        fresh = not has_tables and not read_only
        if application_id != APPLICATION_ID and not fresh:
            db.close()
            raise ConfigurationError(
                f"{self.path!r} is not a citeloop knowledge graph; build one with "
                f"`citeloop index PATH --db FILE` (into a new file)"
            )
        if not read_only:
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)
        return db

    def __enter__(self) -> SqliteGraphStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the database connection.

        A writer leaves the file in rollback-journal mode (WAL folded in), so that
        readers can open it from read-only media without ``-wal``/``-shm`` files.
        """
        with self._lock:
            if not self.read_only:
                with contextlib.suppress(sqlite3.Error):  # e.g. a reader still has it open
                    self._db.execute("PRAGMA journal_mode=DELETE")
            self._db.close()

    # -- writing (used by index_tree) ------------------------------------------------

    def file_digests(self, index_format: str) -> dict[str, str]:
        """Digest of every indexed file, by relative path.

        Args:
            index_format: The indexer's format version. When the store was written by
                another format, every digest is ``""`` so that every file is re-indexed.
        """
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'index_format'").fetchone()
            digests = dict(self._db.execute("SELECT path, digest FROM files"))
        if row is None or row[0] != index_format:
            return dict.fromkeys(digests, "")
        return digests

    def apply(self, updated: Sequence[FileIndex], removed: Sequence[str], index_format: str) -> str:
        """Replace the content of changed files, drop removed files, and re-link.

        Runs as one transaction: a failure leaves the previous graph intact.

        Args:
            updated: The new index of every changed or new file.
            removed: Relative paths whose content must be dropped.
            index_format: The indexer's format version, recorded with the change.

        Returns:
            The snapshot id after the change.
        """
        stale = [(index.path,) for index in updated] + [(path,) for path in removed]
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                for table in _PER_FILE_TABLES:
                    db.executemany(f"DELETE FROM {table} WHERE path = ?", stale)
                db.executemany("DELETE FROM entities WHERE path = ? AND derived = 0", stale)
                db.executemany("DELETE FROM facts WHERE path = ? AND derived = 0", stale)
                self._insert(updated)
                if stale:
                    self._relink()
                db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('index_format', ?)", (index_format,)
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return self.snapshot()

    def _insert(self, updated: Sequence[FileIndex]) -> None:
        db = self._db
        db.executemany(
            "INSERT INTO files VALUES (?, ?)", [(index.path, index.digest) for index in updated]
        )
        db.executemany(
            "INSERT OR IGNORE INTO entities VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [_entity_row(entity, False) for index in updated for entity in index.entities],
        )
        db.executemany(
            "INSERT OR IGNORE INTO facts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [_fact_row(fact, False) for index in updated for fact in index.facts],
        )
        db.executemany(
            "INSERT INTO refs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    index.path,
                    ref.relation.value,
                    ref.subject,
                    ref.target,
                    ref.written,
                    ref.start_line,
                    ref.end_line,
                    ref.mode,
                )
                for index in updated
                for ref in index.references
            ],
        )
        db.executemany(
            "INSERT INTO aliases VALUES (?, ?, ?)",
            [
                (index.path, name, target)
                for index in updated
                for name, target in index.aliases.items()
            ],
        )

    def _relink(self) -> None:
        db = self._db
        db.execute("DELETE FROM entities WHERE derived = 1")
        db.execute("DELETE FROM facts WHERE derived = 1")
        entities = {
            row[0]: _entity(row) for row in db.execute(f"SELECT {_ENTITY_COLUMNS} FROM entities")
        }
        rows = db.execute(
            "SELECT r.relation, r.subject, r.target, r.written, r.start_line, r.end_line,"
            " r.mode, r.path, f.digest FROM refs r JOIN files f ON f.path = r.path"
            " ORDER BY r.path, r.start_line, r.rowid"
        )
        references = [
            (
                Reference(RelationKind(relation), subject, target, written, start, end, mode),
                Provenance(path, start, end, digest),
            )
            for relation, subject, target, written, start, end, mode, path, digest in rows
        ]
        aliases = dict(db.execute("SELECT name, target FROM aliases ORDER BY path, rowid"))
        linked = link(entities, references, aliases)
        db.executemany(
            "INSERT OR IGNORE INTO entities VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [_entity_row(entity, True) for entity in linked.entities],
        )
        db.executemany(
            "INSERT OR IGNORE INTO facts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [_fact_row(fact, True) for fact in linked.facts],
        )
        snapshot = compute_snapshot(
            (row[0] for row in db.execute("SELECT id FROM entities")),
            (row[0] for row in db.execute("SELECT fact_id FROM facts")),
        )
        db.execute("INSERT OR REPLACE INTO meta VALUES ('snapshot', ?)", (snapshot,))

    # -- GraphStore ------------------------------------------------------------------

    def entities_named(self, name: str) -> list[Entity]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_ENTITY_COLUMNS} FROM entities WHERE name = ? ORDER BY id", (name,)
            ).fetchall()
        return [_entity(row) for row in rows]

    def names(self) -> frozenset[str]:
        snapshot = self.snapshot()
        if self._names is None or self._names[0] != snapshot:
            with self._lock:
                rows = self._db.execute("SELECT DISTINCT name FROM entities").fetchall()
            self._names = (snapshot, frozenset(row[0] for row in rows))
        return self._names[1]

    def get_entity(self, entity_id: str) -> Entity | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_ENTITY_COLUMNS} FROM entities WHERE id = ?", (entity_id,)
            ).fetchone()
        return _entity(row) if row else None

    def facts_of(
        self, entity_id: str, relations: Collection[RelationKind] | None = None
    ) -> list[Fact]:
        where, params = "", [entity_id]
        if relations is not None:
            kinds = [RelationKind(relation).value for relation in relations]
            where = f" AND relation IN ({', '.join('?' * len(kinds))})"
            params += kinds
        query = (
            f"SELECT {_FACT_COLUMNS} FROM facts WHERE subject = ?{where} UNION "
            f"SELECT {_FACT_COLUMNS} FROM facts WHERE object = ?{where} "
            "ORDER BY relation, subject, object"
        )
        with self._lock:
            rows = self._db.execute(query, params + params).fetchall()
        return [_fact(row) for row in rows]

    def all_entities(self) -> list[Entity]:
        with self._lock:
            rows = self._db.execute(f"SELECT {_ENTITY_COLUMNS} FROM entities ORDER BY id")
            return [_entity(row) for row in rows]

    def snapshot(self) -> str:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'snapshot'").fetchone()
        return row[0] if row else compute_snapshot((), ())

    def stats(self) -> dict[str, int]:
        with self._lock:
            kinds = self._db.execute(
                "SELECT kind, COUNT(*) FROM entities GROUP BY kind ORDER BY kind"
            ).fetchall()
            relations = self._db.execute(
                "SELECT relation, COUNT(*) FROM facts GROUP BY relation ORDER BY relation"
            ).fetchall()
            files = self._db.execute("SELECT COUNT(*) FROM files").fetchone()[0]
        return {
            "files": files,
            "entities": sum(count for _, count in kinds),
            "facts": sum(count for _, count in relations),
            **{f"entities.{kind}": count for kind, count in kinds},
            **{f"facts.{relation}": count for relation, count in relations},
        }
