"""The embedded default store: one SQLite file, written by the indexer
(:mod:`citeloop.knowledge.indexing`) and read through the ``GraphStore`` protocol."""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from citeloop.errors import ConfigurationError
from citeloop.knowledge.model import UNWALKED_RELATIONS, Entity, Fact, RelationKind
from citeloop.knowledge.search import WORDS_WEIGHT, fts_query
from citeloop.knowledge.sqlite_cache import ReadCache
from citeloop.knowledge.sqlite_schema import (
    APPLICATION_ID,
    ENTITY_COLUMNS,
    FACT_COLUMNS,
    SCHEMA,
    SCHEMA_VERSION,
    TABLES,
    entity_from_row,
    fact_from_row,
)
from citeloop.knowledge.store import PathRecall, ReadSession, compute_snapshot

_BUSY_SECONDS = 60.0
"""How long a writer waits for another process's index run to finish."""

_BATCH = 400
"""Ids or names bound per statement by the ``*_many`` reads (twice in the facts query):
within SQLite's smallest default limit of 999 host parameters."""


DEFAULT_CACHE_SIZE = 100_000
"""Entities and facts a read-only store keeps in memory (a few tens of MB at most)."""

MAX_SEARCH_HITS = 100_000
"""Most hits one :meth:`SqliteGraphStore.search` returns, whatever its ``limit``."""

_WALKED = "f.relation NOT IN ({})".format(
    ", ".join(f"'{relation.value}'" for relation in sorted(UNWALKED_RELATIONS))
)
"""The SQL condition of a fact a path search walks (:meth:`SqliteGraphStore.edges_of_many`)."""


def _walked_facts(columns: str, end: str, other: str) -> str:
    """``SELECT columns`` of the walked facts ``f`` whose ``end`` column is one of the
    ids bound at ``{marks}`` and whose ``other`` end is another, resolved entity, read
    from the indexes alone (``entities_resolved`` covers the join)."""
    return (
        f"SELECT {columns} FROM facts f JOIN entities e INDEXED BY entities_resolved"
        f" ON e.id = f.{other} WHERE f.{end} IN ({{marks}}) AND f.object != f.subject"
        f" AND e.resolved AND {_WALKED}"
    )


_HANDLE = "f.rowid, f.subject, f.relation, f.object"
_EDGES = (
    f"{_walked_facts(f'{_HANDLE}, f.object', 'subject', 'object')} UNION ALL "
    f"{_walked_facts(f'{_HANDLE}, f.subject', 'object', 'subject')} ORDER BY 3, 2, 4, 1"
)
"""The edges of the ids at ``{marks}`` (bound twice), in ``facts_of`` order, as
(handle..., other end): :meth:`SqliteGraphStore.edges_of_many`."""
_EDGE_COUNT = (
    f"SELECT ({_walked_facts('count(*)', 'subject', 'object')}) "
    f"+ ({_walked_facts('count(*)', 'object', 'subject')})"
).format(marks="?")
"""How many edges one id (bound twice) has: :meth:`SqliteGraphStore.edge_count`."""

_MISSING = object()


_NAMES = "SELECT DISTINCT name FROM entities"
"""Every entity name."""
_CALLED = "SELECT DISTINCT object FROM facts WHERE relation = 'calls' AND object LIKE '?%'"
"""The targets of calls the indexer could not resolve to a definition of the graph
(``?parser.add_argument``: an API of another library the code calls)."""
_IMPORTED = "SELECT DISTINCT substr(target, 1, instr(target || '.', '.') - 1) FROM aliases"
"""The top-level name of what every import binding names (``numpy`` of
``import numpy as np`` and of ``from numpy.linalg import norm``)."""


@functools.lru_cache(maxsize=4)
def _last_parts(targets: frozenset[str]) -> frozenset[str]:
    """The last part of each unresolved call target (``add_argument`` of
    ``?parser.add_argument``), once per set of targets read."""
    return frozenset(target.rpartition(".")[2].lstrip("?") for target in targets) - {""}


class SqliteGraphStore(PathRecall):
    """A :class:`~citeloop.knowledge.store.GraphStore` in one SQLite file.

    A writer keeps a graph in WAL mode while it is open, so that readers go on reading
    the previous graph during a re-index. A new file, which has no graph to serve yet,
    gets its first write transaction with a rollback journal: a page it adds has no old
    content to journal, so each page is written once, where WAL writes it to the log and
    again when the log is folded in.

    Safe to share between threads (calls are serialised). Use as a context manager or
    call :meth:`close`.

    A read-only store keeps what it reads inside :meth:`reading` (names, entities,
    facts, search hits, the snapshot id) in a bounded in-memory cache, checked against the file's
    version once per :meth:`reading`: a walk of a cached neighbourhood costs one
    statement, and a re-index in place is seen by the next walk.

    Args:
        path: The database file (created if missing, unless ``read_only``), or
            ``":memory:"``.
        read_only: Open an existing graph for reading only; the graph is not changed
            (SQLite may still keep its ``-wal``/``-shm`` files beside it).
        cache_size: Entities and facts a read-only store may cache (0: no cache).

    Raises:
        ConfigurationError: The file cannot be opened, is not an SQLite database, holds
            another application's tables, or (``read_only``) is not a citeloop graph;
            ``cache_size`` is negative.

    Example:
        >>> with SqliteGraphStore(":memory:") as store:
        ...     store.stats()["entities"]
        0
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # A subclass that changes which facts an entity has (a filter over
        # facts_of_many) would be bypassed by first_facts_of_many, which reads the file
        # itself: unless it overrides that too, the walk sorts its facts_of_many.
        super().__init_subclass__(**kwargs)
        overrides = "facts_of_many" in cls.__dict__ and "first_facts_of_many" not in cls.__dict__
        if overrides:
            cls.first_facts_of_many = None  # type: ignore[assignment]

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        read_only: bool = False,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        if cache_size < 0:
            raise ConfigurationError(f"cache_size must be >= 0, got {cache_size}; 0 turns it off")
        self.path = os.fspath(path)
        self.read_only = read_only
        self._lock = threading.RLock()
        self._sets: dict[str, tuple[str, frozenset[str]]] = {}
        """Name sets read outside a session, by query, with the snapshot they were read at."""
        self._cache = ReadCache(cache_size) if read_only and cache_size else None
        self._session = threading.local()
        self._wal_pending = False
        """A new file: WAL mode starts after its first write transaction."""
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
        (version,) = db.execute("PRAGMA user_version").fetchone()
        if read_only and version != SCHEMA_VERSION:
            db.close()
            which = "an older" if version < SCHEMA_VERSION else "a newer"
            raise ConfigurationError(
                f"{self.path!r} was written by {which} version of citeloop, whose graph "
                f"format this one does not read; re-index it with "
                f"`citeloop index PATH --db {self.path}`"
            )
        if not read_only:
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            self._wal_pending = fresh
            if not fresh:
                db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            if version != SCHEMA_VERSION:  # derived data: the next index run rebuilds it
                for table in TABLES:
                    db.execute(f"DROP TABLE IF EXISTS {table}")
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            db.executescript(SCHEMA)
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

    # -- for the indexer ------------------------------------------------

    def file_states(self, index_format: str) -> dict[str, tuple[str, str, frozenset[str]]]:
        """``(digest, context, top_names)`` of every indexed file, by relative path (see
        :class:`~citeloop.knowledge.indexing.records.FileIndex`).

        Args:
            index_format: The indexer's format version. When the store was written by
                another format, every digest is ``""`` so that every file is re-indexed.
        """
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'index_format'").fetchone()
            rows = self._db.execute("SELECT path, digest, context, names FROM files").fetchall()
        current = row is not None and row[0] == index_format
        return {
            path: (digest if current else "", context, frozenset(names.split("\n")) - {""})
            for path, digest, context, names in rows
        }

    @contextlib.contextmanager
    def write_transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``) on the graph file, for the indexer
        (:mod:`citeloop.knowledge.indexing`): yields the connection, commits when the
        block ends, and rolls back, leaving the previous graph intact, when it raises."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # SQLite already rolled back e.g. on a full disk
                    self._db.execute("ROLLBACK")
                raise
            if self._wal_pending:
                # A reader that opened the new file may hold it for longer than the busy
                # timeout: the next transaction tries again.
                with contextlib.suppress(sqlite3.OperationalError):
                    (mode,) = self._db.execute("PRAGMA journal_mode=WAL").fetchone()
                    self._wal_pending = mode != "wal"

    @contextlib.contextmanager
    def read_connection(self) -> Iterator[sqlite3.Connection]:
        """The connection, for the indexer's own reads (serialised with every other call)."""
        with self._lock:
            yield self._db

    # -- GraphStore ------------------------------------------------------------------

    def entities_named(self, name: str) -> list[Entity]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {ENTITY_COLUMNS} FROM entities WHERE name = ? ORDER BY id", (name,)
            ).fetchall()
        return [entity_from_row(row) for row in rows]

    @contextlib.contextmanager
    def reading(self) -> Iterator[ReadSession | None]:
        """A session of reads by this thread that may be served from the read cache.

        On entry (not nested) the cache is checked against the file's version with one
        statement; inside, :meth:`names`, :meth:`snapshot`, :meth:`entities_named_many`,
        :meth:`get_entities`, :meth:`facts_of_many`, :meth:`search`,
        :meth:`source_root` and :meth:`file_digests` read the file only for what is not
        cached yet. Other reads, and every read of a writable store, go to the file.

        A read-only store yields a :class:`~citeloop.knowledge.store.ReadSession` (a
        nested session, or a writable store, ``None``): when the session ends, its
        ``changed`` says whether another connection committed meanwhile (SQLite's
        ``PRAGMA data_version``, https://sqlite.org/pragma.html#pragma_data_version),
        as a re-index in place does; the reads may then mix the two versions.
        """
        if not self.read_only or self._version() is not None:
            yield None
            return
        with self._lock:
            (version,) = self._db.execute("PRAGMA data_version").fetchone()
        if self._cache is not None:
            self._cache.validate(version)
        self._session.version = version
        session = ReadSession(version=version)
        try:
            yield session
        finally:
            self._session.version = None
            with self._lock:
                (now,) = self._db.execute("PRAGMA data_version").fetchone()
            session.changed = now != version

    def _version(self) -> int | None:
        """The cache version this thread's :meth:`reading` session checked, or ``None``."""
        return getattr(self._session, "version", None)

    def _session_cache(self) -> tuple[ReadCache, int] | None:
        """The read cache and the version checked, inside this thread's session."""
        version = self._version()
        if version is None or self._cache is None:
            return None
        return self._cache, version

    def _through_cache(
        self, table: str, keys: Collection[str], read: Callable[[list[str]], dict[str, Any]]
    ) -> dict[str, Any]:
        """``read(keys)``, served from ``table`` of the read cache inside a session, in
        the order of ``keys`` whatever the cache holds: what a caller builds from the
        order (a context cut at its candidate limit) must not depend on earlier reads."""
        keys = list(keys)
        session = self._session_cache()
        if session is None:
            found = read(keys)
        else:
            cache, version = session
            cached = cache.tables[table]
            found = {}
            missing: list[str] = []
            for key in keys:
                value = cached.get(key, _MISSING)
                if value is _MISSING:
                    missing.append(key)
                else:
                    found[key] = value
            if missing:
                fresh = read(missing)
                cache.put(version, table, fresh)
                found.update(fresh)
        return {key: found[key] for key in keys if key in found}

    def entities_named_many(self, names: Collection[str]) -> dict[str, list[Entity]]:
        found = self._through_cache("named", sorted(set(names)), self._read_named)
        return {name: list(entities) for name, entities in found.items() if entities}

    def _read_named(self, names: list[str]) -> dict[str, list[Entity]]:
        found: dict[str, list[Entity]] = {name: [] for name in names}
        query = f"SELECT {ENTITY_COLUMNS} FROM entities WHERE name IN ({{marks}}) ORDER BY id"
        for _, rows in self._select_in(query, sorted(found)):
            for row in rows:
                found[row[2]].append(entity_from_row(row))
        return found

    def import_targets(self, bindings: Collection[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """What each import binding ``(path, name)`` names in the file at ``path``
        (``numpy`` for ``("pkg/a.py", "np")`` after ``import numpy as np``, in any scope
        of the file); a name the file does not bind by an import is left out (the first
        binding when several)."""
        wanted = set(bindings)
        found: dict[tuple[str, str], str] = {}
        query = "SELECT path, name, target FROM aliases WHERE path IN ({marks}) ORDER BY rowid"
        for _, rows in self._select_in(query, sorted({path for path, _ in wanted})):
            for path, name, target in rows:  # names are qualified: ``pkg.a.np``
                key = (path, name.rpartition(".")[2])
                if key in wanted:
                    found.setdefault(key, target)
        return found

    def names(self) -> frozenset[str]:
        session = self._session_cache()
        if session is None:
            return self._set_by_snapshot(_NAMES)
        cache, version = session
        if cache.names is None:
            names = self._read_set(_NAMES)
            cache.keep(version, names=names)
            return names
        return cache.names

    def imported_modules(self) -> frozenset[str]:
        """The top-level names of the modules the indexed code imports, its own and
        others' (``numpy`` for ``import numpy as np``): the targets of its import
        bindings (the ``aliases`` table). Cached as :meth:`names` is."""
        if self._session_cache() is None:
            return self._set_by_snapshot(_IMPORTED)
        key = "#imported_modules"
        return self._through_cache("meta", [key], lambda keys: {key: self._read_set(_IMPORTED)})[
            key
        ]

    def called_names(self) -> frozenset[str]:
        """The names the indexed code calls that no definition of the graph has: the
        last part of each call target it could not resolve (``add_argument`` of
        ``parser.add_argument(...)``, argparse's). Cached as :meth:`names` is."""
        key = "#called_names"
        if self._session_cache() is None:
            return _last_parts(self._set_by_snapshot(_CALLED))
        return self._through_cache(
            "meta", [key], lambda keys: {key: _last_parts(self._read_set(_CALLED))}
        )[key]

    def _read_set(self, query: str) -> frozenset[str]:
        """The first column of ``query``'s rows."""
        with self._lock:
            rows = self._db.execute(query).fetchall()
        return frozenset(row[0] for row in rows)

    def _set_by_snapshot(self, query: str) -> frozenset[str]:
        """:meth:`_read_set`, re-read only when the snapshot changed; the snapshot and
        the rows are read in one transaction, so a commit between them cannot pair them
        wrongly."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                row = self._db.execute("SELECT value FROM meta WHERE key = 'snapshot'").fetchone()
                snapshot = row[0] if row else compute_snapshot((), ())
                kept = self._sets.get(query)
                if kept is None or kept[0] != snapshot:
                    kept = self._sets[query] = (snapshot, self._read_set(query))
                return kept[1]
            finally:
                self._db.execute("COMMIT")

    def search(self, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
        """The ``limit`` entities that best match any of ``words``, best first, as
        ``(entity id, score)``: BM25 over the full-text index of the graph file (see
        :mod:`citeloop.knowledge.search`); the score is higher for a better match."""
        query = fts_query(words)
        if not query or limit < 1:
            return []
        key = f"{min(limit, MAX_SEARCH_HITS)}:{query}"
        return list(self._through_cache("search", [key], self._read_search)[key])

    def _read_search(self, keys: list[str]) -> dict[str, list[tuple[str, float]]]:
        found = {}
        for key in keys:
            limit, _, query = key.partition(":")
            with self._lock:
                rows = self._db.execute(
                    "SELECT e.id, -bm25(search, ?, 1.0) AS score FROM search"
                    " JOIN entities e ON e.rowid = search.rowid WHERE search MATCH ?"
                    " ORDER BY score DESC, e.id LIMIT ?",
                    (WORDS_WEIGHT, query, int(limit)),
                ).fetchall()
            found[key] = [(entity_id, score) for entity_id, score in rows]
        return found

    def get_entity(self, entity_id: str) -> Entity | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {ENTITY_COLUMNS} FROM entities WHERE id = ?", (entity_id,)
            ).fetchone()
        return entity_from_row(row) if row else None

    def get_entities(self, entity_ids: Collection[str]) -> dict[str, Entity]:
        found = self._through_cache("entities", dict.fromkeys(entity_ids), self._read_entities)
        return {entity_id: entity for entity_id, entity in found.items() if entity is not None}

    def _read_entities(self, entity_ids: list[str]) -> dict[str, Entity | None]:
        found: dict[str, Entity | None] = dict.fromkeys(entity_ids)
        query = f"SELECT {ENTITY_COLUMNS} FROM entities WHERE id IN ({{marks}})"
        for _, rows in self._select_in(query, entity_ids):
            for row in rows:
                found[row[0]] = entity_from_row(row)
        return found

    def facts_of_many(self, entity_ids: Collection[str]) -> dict[str, list[Fact]]:
        found = self._through_cache("facts", dict.fromkeys(entity_ids), self._read_facts)
        return {entity_id: list(facts) for entity_id, facts in found.items()}

    def _read_facts(self, entity_ids: list[str]) -> dict[str, list[Fact]]:
        found: dict[str, list[Fact]] = {entity_id: [] for entity_id in entity_ids}
        query = (
            f"SELECT {FACT_COLUMNS} FROM facts WHERE subject IN ({{marks}}) "
            "OR object IN ({marks}) ORDER BY relation, subject, object"
        )
        for batch, rows in self._select_in(query, list(found), times=2):
            for fact in map(fact_from_row, rows):
                if fact.subject in batch:
                    found[fact.subject].append(fact)
                if fact.object in batch and fact.object != fact.subject:
                    found[fact.object].append(fact)
        return found

    def first_facts_of_many(
        self, entity_ids: Collection[str], ranks: Mapping[RelationKind, int], limit: int
    ) -> dict[str, list[Fact]]:
        """The first ``limit`` of :meth:`facts_of_many` of each id, in the order of
        ``(ranks[relation], the id not the subject, fact_id)`` (a relation ``ranks``
        leaves out after every other). The rows are ranked as they are read and only
        those kept become facts, so a hub of thousands of facts costs no object per fact
        left out. Cached like :meth:`facts_of_many`. A subclass that overrides
        :meth:`facts_of_many` has this set to ``None`` unless it overrides it too, so a
        walk sorts the facts its :meth:`facts_of_many` gives.

        Returns:
            By id, every id a key (``[]`` when it has no fact).
        """
        order = ",".join(sorted(f"{relation.value}={rank}" for relation, rank in ranks.items()))
        prefix = f"{limit};{order};"
        found = self._through_cache(
            "first_facts",
            [prefix + entity_id for entity_id in dict.fromkeys(entity_ids)],
            lambda keys: self._read_first_facts(keys, len(prefix), ranks, limit),
        )
        return {key[len(prefix) :]: list(facts) for key, facts in found.items()}

    def _read_first_facts(
        self, keys: list[str], cut: int, ranks: Mapping[RelationKind, int], limit: int
    ) -> dict[str, list[Fact]]:
        ids = {key[cut:]: key for key in keys}
        rows_of: dict[str, list[tuple]] = {entity_id: [] for entity_id in ids}
        # One scan of both indexes (SQLite's OR optimization): no temporary table to
        # drop the rows a UNION would read twice.
        query = (
            f"SELECT {FACT_COLUMNS} FROM facts WHERE subject IN ({{marks}}) "
            "OR object IN ({marks})"
        )
        for batch, rows in self._select_in(query, list(ids), times=2):
            for row in rows:  # (fact_id, subject, relation, object, ...)
                if row[1] in batch:
                    rows_of[row[1]].append(row)
                if row[3] in batch and row[3] != row[1]:
                    rows_of[row[3]].append(row)
        last = max(ranks.values(), default=0) + 1
        by_value = {relation.value: rank for relation, rank in ranks.items()}

        def kept(entity_id: str, rows: list[tuple]) -> list[Fact]:
            def order(row: tuple) -> tuple[int, bool, str]:
                return by_value.get(row[2], last), row[1] != entity_id, row[0]

            return list(map(fact_from_row, sorted(rows, key=order)[:limit]))

        # A Fact only for the rows kept: a hub's thousands of others stay tuples.
        return {ids[entity_id]: kept(entity_id, rows) for entity_id, rows in rows_of.items()}

    def edges_of_many(self, entity_ids: Collection[str]) -> dict[str, list[tuple[tuple, str]]]:
        """What a path search walks from each of ``entity_ids``: (fact handle, other end)
        for every fact whose other end is a resolved entity, no self-loops and none of
        :data:`~citeloop.knowledge.model.UNWALKED_RELATIONS`, in :meth:`facts_of` order.
        A handle is ``(rowid, subject, relation, object, other end)``, read from indexes
        alone (:meth:`facts_at` reads its whole fact): the filter runs in SQLite, and
        neither a table row nor an object is read for a fact a search does not follow,
        so reading a hub of thousands of facts stays cheap. Not cached.

        Returns:
            By id, every id a key (``[]`` when it has no such fact).
        """
        found: dict[str, list[tuple[tuple, str]]] = {entity_id: [] for entity_id in entity_ids}
        for _, rows in self._select_in(_EDGES, list(found), times=2):
            for row in rows:
                # The entity read is the end that is not ``other``; the row is the handle.
                other = row[4]
                found[row[1] if other == row[3] else row[3]].append((row, other))
        return found

    def edge_count(self, entity_id: str) -> int:
        """How many (fact, other end) pairs :meth:`edges_of_many` gives ``entity_id``,
        counted in SQLite (a hub's facts are not read)."""
        with self._lock:
            (count,) = self._db.execute(_EDGE_COUNT, [entity_id] * 2).fetchone()
        return count

    def facts_at(self, handles: Collection[tuple]) -> dict[tuple, Fact]:
        """The facts of handles from :meth:`edges_of_many`, by handle. A handle whose
        row was re-indexed since (another rowid now) gives the first fact, by id, of its
        subject, relation and object; one whose fact is gone is left out."""
        wanted = list(dict.fromkeys(handles))
        by_rowid = {handle[0]: handle for handle in wanted}
        found: dict[tuple, Fact] = {}
        query = f"SELECT rowid, {FACT_COLUMNS} FROM facts WHERE rowid IN ({{marks}})"
        for _, rows in self._select_in(query, list(by_rowid)):
            for row in rows:
                handle = by_rowid[row[0]]
                if handle[1:4] == row[2:5]:
                    found[handle] = fact_from_row(row[1:])
        for handle in wanted:
            if handle not in found:
                with self._lock:
                    row = self._db.execute(
                        f"SELECT {FACT_COLUMNS} FROM facts WHERE subject = ? AND relation = ?"
                        " AND object = ? ORDER BY fact_id LIMIT 1",
                        handle[1:4],
                    ).fetchone()
                if row is not None:
                    found[handle] = fact_from_row(row)
        return found

    def _select_in(
        self, query: str, values: Sequence[str], times: int = 1
    ) -> list[tuple[frozenset[str], list[tuple]]]:
        """``query`` run on ``values`` in batches of at most :data:`_BATCH`, each bound
        at the query's ``{marks}`` (which appear ``times`` times): (batch, rows) pairs."""
        results = []
        with self._lock:
            for start in range(0, len(values), _BATCH):
                batch = values[start : start + _BATCH]
                marks = ", ".join("?" * len(batch))
                rows = self._db.execute(query.format(marks=marks), [*batch] * times).fetchall()
                results.append((frozenset(batch), rows))
        return results

    def facts_of(
        self, entity_id: str, relations: Collection[RelationKind] | None = None
    ) -> list[Fact]:
        where, params = "", [entity_id]
        if relations is not None:
            kinds = [RelationKind(relation).value for relation in relations]
            where = f" AND relation IN ({', '.join('?' * len(kinds))})"
            params += kinds
        query = (
            f"SELECT {FACT_COLUMNS} FROM facts WHERE subject = ?{where} UNION "
            f"SELECT {FACT_COLUMNS} FROM facts WHERE object = ?{where} "
            "ORDER BY relation, subject, object"
        )
        with self._lock:
            rows = self._db.execute(query, params + params).fetchall()
        return [fact_from_row(row) for row in rows]

    def all_entities(self) -> list[Entity]:
        with self._lock:
            rows = self._db.execute(f"SELECT {ENTITY_COLUMNS} FROM entities ORDER BY id")
            return [entity_from_row(row) for row in rows]

    def source_root(self) -> Path | None:
        """The folder the graph was last indexed from (absolute), or ``None`` when the
        file does not say (written by an older version, or never indexed). Inside a
        :meth:`reading` session it may come from the read cache."""
        found = self._through_cache("meta", ["source_root"], self._read_meta)
        return Path(found["source_root"]) if found.get("source_root") else None

    def _read_meta(self, keys: list[str]) -> dict[str, str]:
        found = dict.fromkeys(keys, "")
        for _, rows in self._select_in("SELECT key, value FROM meta WHERE key IN ({marks})", keys):
            for key, value in rows:
                found[key] = value or ""
        return found

    def file_digests(self, paths: Collection[str]) -> dict[str, str]:
        """The SHA-256 hex digest of each of ``paths`` as it was indexed (paths the
        graph does not hold are left out). Inside a :meth:`reading` session they may come
        from the read cache, which a re-index drops."""
        found = self._through_cache("digests", sorted(set(paths)), self._read_digests)
        return {path: digest for path, digest in found.items() if digest}

    def _read_digests(self, paths: list[str]) -> dict[str, str]:
        found = dict.fromkeys(paths, "")
        query = "SELECT path, digest FROM files WHERE path IN ({marks})"
        for _, rows in self._select_in(query, paths):
            for path, digest in rows:
                found[path] = digest or ""
        return found

    def snapshot(self) -> str:
        session = self._session_cache()
        if session is not None and session[0].snapshot:
            return session[0].snapshot
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'snapshot'").fetchone()
        snapshot = row[0] if row else compute_snapshot((), ())
        if session is not None:
            session[0].keep(session[1], snapshot=snapshot)
        return snapshot

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
