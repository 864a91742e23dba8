"""The ``GraphStore`` protocol the injector reads through, and an in-memory store.

Bring your own store (a graph database, a service) by implementing these seven methods
(and, for fewer reads per walk, :class:`BatchedGraphStore`'s);
:class:`~citeloop.knowledge.sqlite_store.SqliteGraphStore` is the embedded default.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from citeloop.knowledge.model import Entity, Fact, RelationKind
from citeloop.knowledge.search import MemoryIndex

if TYPE_CHECKING:
    from citeloop.knowledge.path_types import RetrievalPath

_SUM_MODULUS = 1 << 256


def item_digest(kind: str, item_id: str) -> int:
    """One entity's (``kind="e"``, ``item_id`` its :func:`entity_key`) or fact's
    (``kind="f"``, its id) share of a snapshot."""
    return int.from_bytes(hashlib.sha256(f"{kind}\x1f{item_id}".encode()).digest(), "big")


def entity_key(entity: Entity | str) -> str:
    """What of an entity its snapshot share digests: its id and where it is (path and
    line span), so that code that only moved (a line added above it) is a new snapshot
    and a ``path:line`` cited from the old one is not taken for the new one's. An id, or
    an entity with neither path nor lines (a store of one's own), is its id."""
    if isinstance(entity, str):
        return entity
    return located_key(entity.id, entity.path, entity.line, entity.end_line)


def located_key(entity_id: str, path: str | None, line: int | None, end: int | None) -> str:
    """:func:`entity_key` of an entity's id, path and line span (a stored row's)."""
    if not path and line is None and end is None:
        return entity_id
    first, last = ("" if number is None else number for number in (line, end))
    return f"{entity_id}\x1f{path or ''}\x1f{first}\x1f{last}"


def snapshot_of_sum(total: int) -> str:
    """The snapshot id of a sum of :func:`item_digest` values."""
    digest = hashlib.sha256((total % _SUM_MODULUS).to_bytes(32, "big")).hexdigest()
    return f"g-{digest[:16]}"


def compute_snapshot(entities: Iterable[Entity | str], fact_ids: Iterable[str]) -> str:
    """The snapshot id of a graph: ``"g-"`` + 16 hex digits of SHA-256 of the sum, modulo
    2**256, of the SHA-256 of every entity's :func:`entity_key` (its id, path and line
    span; or an id alone) and every fact id (a multiset hash, so a store can keep it up
    to date as files change). Same content, same snapshot; code moved, a new one."""
    total = sum(item_digest("e", key) for key in {entity_key(entity) for entity in entities})
    total += sum(item_digest("f", fact_id) for fact_id in set(fact_ids))
    return snapshot_of_sum(total)


@runtime_checkable
class GraphStore(Protocol):
    """Read access to a knowledge graph, as used by ``ContextInjector``."""

    def entities_named(self, name: str) -> list[Entity]:
        """Entities whose short ``name`` equals ``name`` exactly, sorted by id."""
        ...

    def names(self) -> frozenset[str]:
        """Every short entity name (lets the injector scan any text without a query
        per word)."""
        ...

    def get_entity(self, entity_id: str) -> Entity | None:
        """The entity with id ``entity_id``, or ``None``."""
        ...

    def facts_of(
        self, entity_id: str, relations: Collection[RelationKind] | None = None
    ) -> list[Fact]:
        """Facts with ``entity_id`` as subject or object, optionally only of
        ``relations``, sorted by (relation, subject, object)."""
        ...

    def all_entities(self) -> list[Entity]:
        """Every entity, sorted by id."""
        ...

    def snapshot(self) -> str:
        """The snapshot id of the current graph content."""
        ...

    def stats(self) -> dict[str, int]:
        """Counts: ``"entities"``, ``"facts"``, ``"entities.<kind>"``, ``"facts.<relation>"``."""
        ...


@dataclass
class ReadSession:
    """What :meth:`BatchedGraphStore.reading` yields for a store others may write to."""

    changed: bool = False
    """Set when the session ends: whether another connection committed to the graph
    while it was open, so that what it read may belong to two versions of the graph."""
    version: int | None = None
    """The version of the graph file the session reads (SQLite's ``PRAGMA
    data_version`` of the store's connection: another connection's commit changes it),
    ``None`` when not known."""


READ_ATTEMPTS = 3
"""Times a reader reads what must come from one version of the graph (a context's
entities, lines and source) while another process re-indexes the file in place: a read
whose session saw a commit (:func:`changed_during`) is done again; the last is kept."""


def changed_during(session: object) -> bool:
    """Whether a session :meth:`BatchedGraphStore.reading` yielded saw the graph change
    (``False`` for a store that does not say)."""
    return isinstance(session, ReadSession) and session.changed


@runtime_checkable
class BatchedGraphStore(GraphStore, Protocol):
    """A :class:`GraphStore` that also reads many keys at once, and may serve a session
    of reads from a cache. The injector uses these methods when a store has them
    (:class:`~citeloop.knowledge.sqlite_store.SqliteGraphStore` does), so a walk costs a
    few reads, not one per entity; for a store with only :class:`GraphStore`'s methods,
    such as :class:`MemoryGraphStore`, it loops over the single reads (:func:`batched`)."""

    def reading(self) -> AbstractContextManager[object]:
        """A session of reads by the calling thread (the injector opens one per walk):
        a store may serve them from a cache it checks once on entry. Stores without a
        cache return ``contextlib.nullcontext()``. A store that other processes may
        write to while it is read yields a :class:`ReadSession`, whose ``changed`` says,
        once the session has ended, whether the graph changed during it (its reads may
        then mix two versions: read again), and whose ``version``, when set, names the
        version the session reads (the injector reuses a context built at that version,
        :mod:`~citeloop.knowledge.reuse`)."""
        ...

    def entities_named_many(self, names: Collection[str]) -> dict[str, list[Entity]]:
        """:meth:`entities_named` of many names in one read: by name, only the names
        that have entities. The injector reads all the names of a task at once."""
        ...

    def get_entities(self, entity_ids: Collection[str]) -> dict[str, Entity]:
        """The entities of many ids in one read: by id, only the ids that exist, in the
        order of ``entity_ids`` (the injector's walk follows it)."""
        ...

    def facts_of_many(self, entity_ids: Collection[str]) -> dict[str, list[Fact]]:
        """:meth:`facts_of` (every relation) of many ids in one read: by id, every id
        a key (``[]`` when it has no facts), in the order of ``entity_ids``. The injector
        reads a whole breadth-first level at once, so a walk costs a few reads, not one
        per entity."""
        ...


@runtime_checkable
class SearchableGraphStore(GraphStore, Protocol):
    """A :class:`GraphStore` that can also find entities by words (lexical retrieval,
    :mod:`citeloop.knowledge.search`). The injector uses it when a store has it; without
    it a task finds only the code it names."""

    def search(self, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
        """The ``limit`` entities that best match any of ``words``, best first, as
        ``(entity id, score)``, a higher score a better match."""
        ...


class _SingleReads:
    """:class:`BatchedGraphStore`'s reads over a store that has only :class:`GraphStore`'s
    (one single read per key, no cache)."""

    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def reading(self) -> AbstractContextManager[object]:
        return contextlib.nullcontext()

    def entities_named_many(self, names: Collection[str]) -> dict[str, list[Entity]]:
        return {name: found for name in names if (found := self._store.entities_named(name))}

    def get_entities(self, entity_ids: Collection[str]) -> dict[str, Entity]:
        found = {entity_id: self._store.get_entity(entity_id) for entity_id in entity_ids}
        return {entity_id: entity for entity_id, entity in found.items() if entity is not None}

    def facts_of_many(self, entity_ids: Collection[str]) -> dict[str, list[Fact]]:
        return {entity_id: self._store.facts_of(entity_id) for entity_id in entity_ids}


def batched(store: GraphStore) -> BatchedGraphStore:
    """``store`` when it has :class:`BatchedGraphStore`'s reads, else an adapter that
    serves them with its single reads (so any :class:`GraphStore` can be walked)."""
    if isinstance(store, BatchedGraphStore):
        return store
    return cast(BatchedGraphStore, _SingleReads(store))


def _fact_order(fact: Fact) -> tuple[str, str, str]:
    return (fact.relation.value, fact.subject, fact.object)


def count_stats(entities: Iterable[Entity], facts: Iterable[Fact]) -> dict[str, int]:
    """The :meth:`GraphStore.stats` mapping for the given content."""
    kinds = Counter(f"entities.{entity.kind.value}" for entity in entities)
    relations = Counter(f"facts.{fact.relation.value}" for fact in facts)
    return {
        "entities": sum(kinds.values()),
        "facts": sum(relations.values()),
        **dict(sorted(kinds.items())),
        **dict(sorted(relations.items())),
    }


class PathRecall:
    """Mixin that gives a :class:`GraphStore` a :meth:`recall_paths` method (the path
    search is imported when first asked: a context never loads it)."""

    def recall_paths(
        self: GraphStore,
        source: str,
        target: str | None = None,
        *,
        max_hops: int = 3,
        limit: int = 5,
    ) -> list[RetrievalPath]:
        """See :func:`citeloop.knowledge.paths.recall_paths`."""
        from citeloop.knowledge.paths import recall_paths

        return recall_paths(self, source, target, max_hops=max_hops, limit=limit)


class MemoryGraphStore(PathRecall):
    """A :class:`GraphStore` over entities and facts held in memory.

    Useful for user-supplied triples and for tests.

    Args:
        entities: The entities; a later entity with the same id replaces an earlier one.
        facts: Facts between entity ids; duplicates (same ``fact_id``) are dropped.

    Example:
        >>> from citeloop.knowledge.model import EntityKind
        >>> store = MemoryGraphStore([Entity("a.A", EntityKind.CLASS, "A")], [])
        >>> [e.id for e in store.entities_named("A")]
        ['a.A']
    """

    def __init__(self, entities: Iterable[Entity], facts: Iterable[Fact]) -> None:
        self._entities = {entity.id: entity for entity in entities}
        self._index: MemoryIndex | None = None
        self._facts = {fact.fact_id: fact for fact in facts}
        self._by_name: dict[str, list[Entity]] = {}
        for entity in sorted(self._entities.values(), key=lambda e: e.id):
            self._by_name.setdefault(entity.name, []).append(entity)
        self._by_entity: dict[str, list[Fact]] = {}
        for fact in sorted(self._facts.values(), key=_fact_order):
            self._by_entity.setdefault(fact.subject, []).append(fact)
            if fact.object != fact.subject:
                self._by_entity.setdefault(fact.object, []).append(fact)
        self._snapshot = compute_snapshot(self._entities.values(), self._facts)

    def entities_named(self, name: str) -> list[Entity]:
        return list(self._by_name.get(name, ()))

    def search(self, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
        """:meth:`SearchableGraphStore.search` over the entities held (BM25, see
        :class:`~citeloop.knowledge.search.MemoryIndex`; built on first use)."""
        if self._index is None:
            self._index = MemoryIndex(self._entities.values())
        return self._index.search(words, limit)

    def names(self) -> frozenset[str]:
        return frozenset(self._by_name)

    def get_entity(self, entity_id: str) -> Entity | None:
        return self._entities.get(entity_id)

    def facts_of(
        self, entity_id: str, relations: Collection[RelationKind] | None = None
    ) -> list[Fact]:
        facts = self._by_entity.get(entity_id, ())
        return [fact for fact in facts if relations is None or fact.relation in relations]

    def all_entities(self) -> list[Entity]:
        return sorted(self._entities.values(), key=lambda entity: entity.id)

    def snapshot(self) -> str:
        return self._snapshot

    def stats(self) -> dict[str, int]:
        return count_stats(self._entities.values(), self._facts.values())
