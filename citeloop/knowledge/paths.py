"""Retrieval paths: how two entities of the knowledge graph are connected.

A :class:`RetrievalPath` is a chain of facts from a source entity, each
:class:`PathHop` naming the fact it follows and the entity it reaches. Paths are simple
(no entity twice) and follow facts in either direction, because "how is A connected to
B?" does not care who calls whom; each hop records the direction so that a narrative
states the fact the right way round. Unresolved call targets (``?name``) are never
passed through: two functions that both call ``len`` are not connected by it.

Ranking uses the flow-based pruning of PathRAG (Chen et al., 2025, "PathRAG: Pruning
Graph-based Retrieval Augmented Generation with Relational Paths", arXiv:2502.14902):
the source holds a resource of 1; each hop passes ``FLOW_DECAY / degree`` of it on, where
``degree`` is the number of traversable facts of the entity it leaves. A path's
``strength`` is the resource that reaches its end, so paths through hubs (a module that
defines 500 names) rank below paths through specific entities.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from citeloop.errors import CiteloopError, ConfigurationError
from citeloop.knowledge.adjacency import Adjacency
from citeloop.knowledge.model import MAX_HOPS, Entity
from citeloop.knowledge.path_search import (
    FLOW_DECAY,
    MAX_SEARCH_STEPS,
    Reach,
    Walk,
    hop_distance,
    shortest_walks,
    strongest_walks,
)
from citeloop.knowledge.path_types import (
    MAX_FACT_ID_CHARS,
    MAX_NAME_CHARS,
    EntityRef,
    PathHop,
    RetrievalPath,
    coerce_path,
    describe_hop,
    render_hops,
    short_repr,
)
from citeloop.knowledge.store import READ_ATTEMPTS, PathRecall

if TYPE_CHECKING:
    from citeloop.knowledge.store import GraphStore

MAX_LIMIT = 100
"""Upper bound of ``limit``."""

_SUGGESTIONS = 5
_MAX_SUGGEST_LENGTH = 100  # difflib is quadratic in the name's length


class UnknownEntityError(CiteloopError, LookupError):
    """A name given to :func:`recall_paths` matches no entity of the graph.

    Attributes:
        name: The name as given.
        suggestions: Close matches among the graph's entity names, best first.
    """

    def __init__(self, message: str, *, name: str, suggestions: Sequence[str]) -> None:
        super().__init__(message)
        self.name = name
        self.suggestions = tuple(suggestions)


def resolve_entities(store: GraphStore, name: str) -> list[Entity]:
    """The resolved entities ``name`` denotes: an entity id, a short name (every entity
    of that name), or a dotted ``Class.method`` suffix of qualified ids.

    Raises:
        UnknownEntityError: Nothing matches; the message suggests close names.
    """
    if not isinstance(name, str) or not name.strip():
        raise ConfigurationError(f"an entity name must be a non-empty string, got {name!r}")
    name = name.strip()
    exact = store.get_entity(name)
    found = [entity for entity in store.entities_named(name) if entity.resolved]
    if exact is not None and exact.resolved and exact not in found:
        found.insert(0, exact)
    if not found and "." in name:
        last = name.rpartition(".")[2]
        found = [
            entity
            for entity in store.entities_named(last)
            if entity.resolved and entity.id.endswith("." + name)
        ]
    if found:
        return found
    suggestions = _close_names(store, name)
    hint = f"; did you mean {', '.join(map(repr, suggestions))}?" if suggestions else "."
    raise UnknownEntityError(
        f"no entity named {short_repr(name)} in the knowledge graph{hint} Give a short name "
        "('compile'), a dotted 'Class.method', or a qualified id ('pkg.mod.Class.method').",
        name=name,
        suggestions=suggestions,
    )


def _close_names(store: GraphStore, name: str) -> list[str]:
    """Up to five names close to ``name`` that resolve (unresolved call targets share
    the name set, so candidates are checked one by one)."""
    if len(name) > _MAX_SUGGEST_LENGTH:
        return []
    # difflib's ratio is quadratic in length: compare with names of similar length only.
    window = max(3, len(name) // 2)
    names = [known for known in store.names() if abs(len(known) - len(name)) <= window]
    candidates = difflib.get_close_matches(name, names, n=3 * _SUGGESTIONS)
    last = name.rpartition(".")[2]
    if last != name:
        candidates += difflib.get_close_matches(last, names, n=3 * _SUGGESTIONS)
    suggestions = [
        candidate
        for candidate in dict.fromkeys(candidates)
        if candidate != name and any(entity.resolved for entity in store.entities_named(candidate))
    ]
    return suggestions[:_SUGGESTIONS]


def _check_bounds(max_hops: int, limit: int) -> None:
    for label, value, top in (("max_hops", max_hops, MAX_HOPS), ("limit", limit, MAX_LIMIT)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
            raise ConfigurationError(f"{label} must be an integer within 1..{top}, got {value!r}")


def recall_paths(
    store: GraphStore,
    source: str,
    target: str | None = None,
    *,
    max_hops: int = 3,
    limit: int = 5,
) -> list[RetrievalPath]:
    """Paths of at most ``max_hops`` facts from ``source`` (to ``target``, if given).

    With a target: the shortest paths first; paths of equal length by strength, then in
    the search order (sources in order, each entity's facts in the store's stable
    order). A bidirectional breadth-first search first finds the hop distance (or
    proves there is none within ``max_hops``), reading only the balls around the two
    endpoints; the exact distance to the target of every entity that can lie on a path
    follows from them, and an A* search whose heuristic is that distance enumerates the
    paths, queueing only partial paths that can still reach the target in time. So a
    path is found whenever one exists within ``max_hops``, and the work grows with the
    neighbourhoods of the endpoints and the paths returned, not with the graph.

    Without a target: the strongest paths out of the source, each as long as the graph
    allows within ``max_hops``: full-length paths by strength, then paths that reach a
    dead end earlier, by strength. Work is bounded: the search queues at most
    :data:`MAX_SEARCH_STEPS` partial paths, then the longest paths it had queued join
    the dead ends.

    Names resolve as in :func:`resolve_entities`; an ambiguous name searches from (or
    to) every entity of that name. The search reads the store through
    :class:`~citeloop.knowledge.store.GraphStore` (and a
    :class:`~citeloop.knowledge.store.BatchedGraphStore`'s batched reads when it has
    them), so it works on any store.

    Args:
        store: The graph.
        source: Where paths start: a short name, ``Class.method``, or an entity id.
        target: Where paths end, or ``None``.
        max_hops: Longest path, in facts, 1..:data:`MAX_HOPS`.
        limit: Most paths returned, 1..:data:`MAX_LIMIT`.

    Returns:
        Up to ``limit`` paths, best first; ``[]`` only when the entities are not
        connected within ``max_hops`` (:func:`path_distance` tells whether they are at
        a larger one).

    Raises:
        UnknownEntityError: ``source`` or ``target`` names no entity (with suggestions).
        ConfigurationError: ``max_hops`` or ``limit`` out of range, or ``source`` and
            ``target`` name the same entity.
        CiteloopError: The graph file was re-indexed in place, removing facts a path
            found follows, in each of :data:`~citeloop.knowledge.store.READ_ATTEMPTS`
            searches.

    Example:
        >>> from citeloop.knowledge import Entity, EntityKind, Fact, MemoryGraphStore, RelationKind
        >>> store = MemoryGraphStore(
        ...     [Entity("m.a", EntityKind.FUNCTION, "a"), Entity("m.b", EntityKind.FUNCTION, "b")],
        ...     [Fact("m.a", RelationKind.CALLS, "m.b")],
        ... )
        >>> [render_hops(path) for path in recall_paths(store, "a", "b")]
        ['1. [f-ddbca7a3408e90b1] function a calls function b']
    """
    _check_bounds(max_hops, limit)
    # A fact a path follows is read whole once the paths are found: a re-index in place
    # that removed one meanwhile makes the search run again on the graph as it is now.
    for _ in range(READ_ATTEMPTS):
        adjacency = Adjacency(store)
        if target is None:
            sources = [entity.id for entity in resolve_entities(store, source)]
            walks = strongest_walks(adjacency, sources, max_hops, limit)
        else:
            sources, targets = _endpoints(store, source, target)
            walks, _ = shortest_walks(adjacency, sources, targets, max_hops, limit)
        if adjacency.read_facts(handle for walk in walks for handle, _ in walk.steps):
            return [_build(adjacency, walk) for walk in walks]
    raise CiteloopError(
        f"the graph changed {READ_ATTEMPTS} times during the path search (re-indexed in "
        "place); search again when the index run has finished"
    )


def path_distance(
    store: GraphStore, source: str, target: str, *, max_hops: int = MAX_HOPS
) -> Reach:
    """The fewest facts on a path from ``source`` to ``target``, if at most ``max_hops``
    (names resolve as in :func:`recall_paths`).

    A bidirectional breadth-first search: its work is the two balls it grows around the
    endpoints, the side with the smaller frontier first, and it reads a whole level in
    one batch on a store that can.

    Returns:
        A :class:`~citeloop.knowledge.path_search.Reach`: ``distance`` (``None`` when
        beyond ``max_hops``) and ``exhausted``, ``True`` when one endpoint's whole
        connected part of the graph was searched (with no distance: not connected at
        any length).

    Raises:
        UnknownEntityError: ``source`` or ``target`` names no entity (with suggestions).
        ConfigurationError: ``max_hops`` out of range, or ``source`` and ``target``
            name the same entity.
    """
    _check_bounds(max_hops, 1)
    sources, targets = _endpoints(store, source, target)
    return hop_distance(store, sources, targets, max_hops)


def _endpoints(store: GraphStore, source: str, target: str) -> tuple[list[str], set[str]]:
    """The entity ids ``source`` and ``target`` name, disjoint."""
    sources = [entity.id for entity in resolve_entities(store, source)]
    targets = {entity.id for entity in resolve_entities(store, target)}
    # An ambiguous name may share entities with the other one: drop the shared ones
    # from the side that keeps some ("area" -> "Circle.area" searches from Shape.area).
    if targets - set(sources):
        targets -= set(sources)
    else:
        sources = [entity_id for entity_id in sources if entity_id not in targets]
    if not sources:
        raise ConfigurationError(
            f"source {source!r} and target {target!r} name the same entity; "
            "name two different entities"
        )
    return sources, targets


def _build(adjacency: Adjacency, walk: Walk) -> RetrievalPath:
    adjacency.entities([walk.source, *(other for _, other in walk.steps)])
    source = adjacency.entity(walk.source)
    assert source is not None  # resolved before the search
    hops = []
    previous = walk.source
    for handle, other in walk.steps:
        fact = adjacency.fact(handle)
        entity = adjacency.entity(other)
        assert entity is not None  # edges() keeps known entities only
        hops.append(
            PathHop(
                EntityRef.of(entity),
                fact.fact_id,
                fact.provenance,
                str(fact.relation),
                forward=fact.subject == previous,
            )
        )
        previous = other
    return RetrievalPath(EntityRef.of(source), tuple(hops), walk.strength)


__all__ = [
    "FLOW_DECAY",
    "MAX_FACT_ID_CHARS",
    "MAX_HOPS",
    "MAX_LIMIT",
    "MAX_NAME_CHARS",
    "MAX_SEARCH_STEPS",
    "EntityRef",
    "PathHop",
    "PathRecall",
    "Reach",
    "RetrievalPath",
    "UnknownEntityError",
    "coerce_path",
    "describe_hop",
    "path_distance",
    "recall_paths",
    "render_hops",
    "resolve_entities",
]
