"""Cached neighbourhood reads over a store, for one path search.

A search walks the graph undirected (a fact joins its two ends whichever way it reads),
never through a self-loop, an unresolved or unknown entity, or a fact of
:data:`~citeloop.knowledge.model.UNWALKED_RELATIONS`. :class:`Adjacency` reads those
edges and keeps them for the search; see :mod:`citeloop.knowledge.path_search`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from citeloop.knowledge.model import UNWALKED_RELATIONS, Entity, Fact

if TYPE_CHECKING:
    from citeloop.knowledge.store import GraphStore

Step = tuple[Any, str]
"""A hop of a walk: the fact followed (a :class:`~citeloop.knowledge.model.Fact`, or
the store's handle of it; :meth:`Adjacency.fact` gives the ``Fact``) and the entity id
it reaches."""


class Adjacency:
    """Cached neighbourhood reads over a store, for one search.

    Reads in this order of preference: the store's ``edges_of_many`` (only the
    traversable facts, as handles, filtered in the store:
    :meth:`~citeloop.knowledge.sqlite_store.SqliteGraphStore.edges_of_many`, with
    ``facts_at`` for the facts of the paths found); its
    ``facts_of_many`` and ``get_entities``
    (:class:`~citeloop.knowledge.store.BatchedGraphStore`), so a breadth-first level
    costs a few queries, not one per entity; else one read per key.
    """

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._rows = hasattr(store, "edges_of_many")
        self.ordered = self._rows
        """Whether :meth:`order` gives the order of every entity's edges (the store's
        handles say it); then :meth:`degree` need not read an entity's edges."""
        self._batched = hasattr(store, "facts_of_many") and hasattr(store, "get_entities")
        self._entities: dict[str, Entity | None] = {}
        self._edges: dict[str, list[Step]] = {}
        self._facts: dict[Any, Fact] = {}

    def entity(self, entity_id: str) -> Entity | None:
        if entity_id not in self._entities:
            self._read_entities([entity_id])
        return self._entities[entity_id]

    def entities(self, entity_ids: Iterable[str]) -> None:
        """Read the entities of ``entity_ids`` not read yet, in one batch where the store
        can (so that :meth:`entity` needs no read for them)."""
        self._read_entities([e for e in dict.fromkeys(entity_ids) if e not in self._entities])

    def fact(self, handle: Any) -> Fact:
        """The :class:`~citeloop.knowledge.model.Fact` of a step's fact (read from the
        store the first time, unless :meth:`read_facts` read it).

        Raises:
            KeyError: The store no longer has the fact (re-indexed during the search).
        """
        if isinstance(handle, Fact):
            return handle
        if handle not in self._facts:
            self.read_facts([handle])
        return self._facts[handle]

    def read_facts(self, handles: Iterable[Any]) -> bool:
        """Read the facts of the store's handles among ``handles`` not read yet, in one
        batch (``Fact`` handles need no read); ``False`` when the store no longer has
        one of them (re-indexed since the search read its handle)."""
        wanted = [
            handle
            for handle in dict.fromkeys(handles)
            if not isinstance(handle, Fact) and handle not in self._facts
        ]
        if wanted:
            self._facts.update(self.store.facts_at(wanted))  # type: ignore[attr-defined]
        return all(handle in self._facts for handle in wanted)

    @staticmethod
    def order(handle: Any) -> tuple:
        """Where a fact of the store's (a handle of ``edges_of_many``) comes in any
        entity's edges: (relation, subject, object, rowid). Only when :attr:`ordered`."""
        return handle[2], handle[1], handle[3], handle[0]

    def degree(self, entity_id: str) -> int:
        """``len(edges(entity_id))``, counted in the store (not read) when it can."""
        if entity_id in self._edges or not self._rows:
            return len(self.edges(entity_id))
        return self.store.edge_count(entity_id)  # type: ignore[attr-defined]

    def loaded(self, entity_id: str) -> bool:
        """Whether ``entity_id``'s edges have been read."""
        return entity_id in self._edges

    def edges(self, entity_id: str) -> list[Step]:
        """(fact, other end) for every traversable fact of ``entity_id``, in the store's
        stable order: no self-loops, no unresolved or unknown ends, no
        :data:`~citeloop.knowledge.model.UNWALKED_RELATIONS`."""
        if entity_id not in self._edges:
            self.load([entity_id])
        return self._edges[entity_id]

    def load(self, entity_ids: Iterable[str]) -> None:
        """Read the edges of every id not read yet, in one batch where the store can."""
        wanted = [
            entity_id for entity_id in dict.fromkeys(entity_ids) if entity_id not in self._edges
        ]
        if not wanted:
            return
        if self._rows:
            self._edges.update(self.store.edges_of_many(wanted))  # type: ignore[attr-defined]
            return
        if self._batched:
            facts = self.store.facts_of_many(wanted)  # type: ignore[attr-defined]
        else:
            facts = {entity_id: self.store.facts_of(entity_id) for entity_id in wanted}
        ends = {
            fact.object if fact.subject == entity_id else fact.subject
            for entity_id in wanted
            for fact in facts.get(entity_id, ())
            if fact.relation not in UNWALKED_RELATIONS
        }
        self._read_entities([end for end in ends if end not in self._entities])
        for entity_id in wanted:
            edges: list[Step] = []
            for fact in facts.get(entity_id, ()):
                other = fact.object if fact.subject == entity_id else fact.subject
                entity = self._entities.get(other)
                if (
                    other != entity_id
                    and entity is not None
                    and entity.resolved
                    and fact.relation not in UNWALKED_RELATIONS
                ):
                    edges.append((fact, other))
            self._edges[entity_id] = edges

    def _read_entities(self, entity_ids: list[str]) -> None:
        if not entity_ids:
            return
        if self._batched:
            found = self.store.get_entities(entity_ids)  # type: ignore[attr-defined]
        else:
            found = {entity_id: self.store.get_entity(entity_id) for entity_id in entity_ids}
        for entity_id in entity_ids:
            self._entities[entity_id] = found.get(entity_id)
