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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citeloop.errors import CiteloopError, ConfigurationError
from citeloop.knowledge.adjacency import Adjacency
from citeloop.knowledge.model import Entity, Provenance
from citeloop.knowledge.path_search import (
    FLOW_DECAY,
    MAX_SEARCH_STEPS,
    Reach,
    Walk,
    hop_distance,
    shortest_walks,
    strongest_walks,
)

if TYPE_CHECKING:  # store.py imports this module for the PathRecall mixin
    from citeloop.knowledge.store import GraphStore

MAX_HOPS = 10
"""Upper bound of ``max_hops``: the number of simple paths grows with degree ** hops."""

MAX_LIMIT = 100
"""Upper bound of ``limit``."""

MAX_FACT_ID_CHARS = 256
"""Longest fact id a path may carry (the graph's own are 18 characters): bounds the
prompt and the fact-id scan of a narrative."""

MAX_NAME_CHARS = 512
"""Longest entity name, kind, id or relation a path read by ``from_dict`` may carry
(paths found in the graph carry the graph's names as they are)."""

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


@dataclass(frozen=True, slots=True)
class EntityRef:
    """A typed reference to an entity: what a path shows of it.

    Attributes:
        kind: The entity kind (``EntityKind`` value, or any string for user paths).
        name: The short name a narrative uses.
        id: The entity id in the graph, when known.
    """

    kind: str
    name: str
    id: str = ""

    @classmethod
    def of(cls, entity: Entity) -> EntityRef:
        return cls(str(entity.kind), entity.name, entity.id)

    def label(self) -> str:
        """``"class StateGraph"``, ``"method StateGraph.compile"`` (a method with its
        class, from the id, since many classes share method names); just the name when
        the kind is empty."""
        name = self.name
        if self.kind == "method" and self.id.endswith("." + name):
            owner = self.id[: -len(name) - 1].rpartition(".")[2]
            name = f"{owner}.{name}" if owner else name
        return f"{self.kind} {name}" if self.kind else name


@dataclass(frozen=True, slots=True)
class PathHop:
    """One step of a path: the fact followed and the entity reached.

    Attributes:
        entity: The entity this hop reaches.
        fact_id: The id of the fact followed; a narrative must mention it.
        provenance: Where the fact was read from, or ``None``.
        relation: The fact's relation (``"calls"``), or ``""`` when unknown.
        forward: ``True`` when the fact reads previous-entity ``relation`` ``entity``;
            ``False`` when it reads ``entity`` ``relation`` previous-entity.
    """

    entity: EntityRef
    fact_id: str
    provenance: Provenance | None = None
    relation: str = ""
    forward: bool = True

    def __post_init__(self) -> None:
        _bounded(self.fact_id, "fact_id", MAX_FACT_ID_CHARS)
        if any(char in self.fact_id for char in "\r\n\x00"):
            raise ConfigurationError(f"fact_id {self.fact_id!r} contains a line break or NUL")


def _bounded(value: str, where: str, limit: int) -> None:
    if len(value) > limit:
        raise ConfigurationError(
            f"{where} is {len(value)} characters long; at most {limit} are accepted "
            f"(starts {value[:40]!r})"
        )


@dataclass(frozen=True, slots=True)
class RetrievalPath:
    """A chain of facts from ``source``.

    Attributes:
        source: The entity the path starts from.
        hops: The hops, in order; empty for a path that goes nowhere.
        strength: The PathRAG flow that reaches the end, in (0, 1]; 1 for no hops.
    """

    source: EntityRef
    hops: tuple[PathHop, ...] = ()
    strength: float = 1.0

    def __len__(self) -> int:
        return len(self.hops)

    @property
    def target(self) -> EntityRef:
        """The entity the path ends at (the source for an empty path)."""
        return self.hops[-1].entity if self.hops else self.source

    @property
    def fact_ids(self) -> tuple[str, ...]:
        """The fact id of every hop, in order."""
        return tuple(hop.fact_id for hop in self.hops)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; :meth:`from_dict` reads it back."""
        return {
            "source": _ref_dict(self.source),
            "hops": [
                {
                    "entity": _ref_dict(hop.entity),
                    "fact_id": hop.fact_id,
                    "relation": hop.relation,
                    "forward": hop.forward,
                    "provenance": None
                    if hop.provenance is None
                    else {
                        "path": hop.provenance.path,
                        "start_line": hop.provenance.start_line,
                        "end_line": hop.provenance.end_line,
                        "digest": hop.provenance.digest,
                    },
                }
                for hop in self.hops
            ],
            "strength": self.strength,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RetrievalPath:
        """Read a path from :meth:`to_dict`'s shape (as sent by Studio or a JSON file).

        Only ``source.name``, and each hop's ``entity.name`` and ``fact_id``, are
        required; everything else has a default.

        Raises:
            ConfigurationError: Names the first missing or mistyped field.
        """
        if not isinstance(data, Mapping):
            raise ConfigurationError(
                f"a retrieval path must be an object with 'source' and 'hops', "
                f"got {type(data).__name__}"
            )
        hops_data = data.get("hops", [])
        if not isinstance(hops_data, list):
            raise ConfigurationError(
                f"path.hops must be a list of hops, got {type(hops_data).__name__}"
            )
        hops = []
        for index, hop in enumerate(hops_data):
            where = f"path.hops[{index}]"
            if not isinstance(hop, Mapping):
                raise ConfigurationError(f"{where} must be an object, got {type(hop).__name__}")
            provenance = hop.get("provenance")
            hops.append(
                PathHop(
                    entity=_ref_from(hop.get("entity"), f"{where}.entity"),
                    fact_id=_string(
                        hop.get("fact_id"),
                        f"{where}.fact_id",
                        required=True,
                        limit=MAX_FACT_ID_CHARS,
                    ),
                    provenance=None
                    if provenance is None
                    else _provenance_from(provenance, f"{where}.provenance"),
                    relation=_string(hop.get("relation", ""), f"{where}.relation"),
                    forward=_flag(hop.get("forward", True), f"{where}.forward"),
                )
            )
        strength = data.get("strength", 1.0)
        if (
            isinstance(strength, bool)
            or not isinstance(strength, int | float)
            or not 0.0 < strength <= 1.0
        ):
            raise ConfigurationError(f"path.strength must be a number in (0, 1], got {strength!r}")
        return cls(_ref_from(data.get("source"), "path.source"), tuple(hops), float(strength))


def _ref_dict(ref: EntityRef) -> dict[str, str]:
    return {"kind": ref.kind, "name": ref.name, "id": ref.id}


def _string(value: Any, where: str, *, required: bool = False, limit: int = MAX_NAME_CHARS) -> str:
    if required and (not isinstance(value, str) or not value.strip()):
        raise ConfigurationError(f"{where} must be a non-empty string, got {_short(value)}")
    if not isinstance(value, str):
        raise ConfigurationError(f"{where} must be a string, got {_short(value)}")
    _bounded(value, where, limit)
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigurationError(f"{where} must be true or false, got {value!r}")
    return value


def _ref_from(value: Any, where: str) -> EntityRef:
    if isinstance(value, str):
        return EntityRef("", _string(value, where, required=True))
    if not isinstance(value, Mapping):
        raise ConfigurationError(
            f"{where} must be an object with 'name' (and 'kind', 'id'), got {value!r}"
        )
    return EntityRef(
        _string(value.get("kind", ""), f"{where}.kind"),
        _string(value.get("name"), f"{where}.name", required=True),
        _string(value.get("id", ""), f"{where}.id"),
    )


def _line(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{where} must be a line number >= 1, got {value!r}")
    return value


def _provenance_from(value: Any, where: str) -> Provenance:
    if not isinstance(value, Mapping):
        raise ConfigurationError(
            f"{where} must be an object with 'path' and 'start_line' (and 'end_line', "
            f"'digest'), or null; got {value!r}"
        )
    start = _line(value.get("start_line"), f"{where}.start_line")
    end = _line(value.get("end_line", start), f"{where}.end_line")
    if end < start:
        raise ConfigurationError(f"{where}.end_line {end} is before start_line {start}")
    return Provenance(
        _string(value.get("path"), f"{where}.path", required=True),
        start,
        end,
        _string(value.get("digest", ""), f"{where}.digest"),
    )


def coerce_path(value: RetrievalPath | Mapping[str, Any]) -> RetrievalPath:
    """A :class:`RetrievalPath` from itself or from its JSON dict.

    Raises:
        ConfigurationError: ``value`` is neither.
    """
    return value if isinstance(value, RetrievalPath) else RetrievalPath.from_dict(value)


def describe_hop(previous: EntityRef, hop: PathHop) -> str:
    """The hop's fact as a sentence fragment: ``"class A inherits class B"``.

    Without a relation, just the entity reached.
    """
    if not hop.relation:
        return hop.entity.label()
    subject, object_ = (previous, hop.entity) if hop.forward else (hop.entity, previous)
    return f"{subject.label()} {hop.relation} {object_.label()}"


def render_hops(path: RetrievalPath, limit: int | None = None) -> str:
    """The path as numbered lines, one per hop: fact id, the fact, and the provenance
    marker only when the hop has one::

        1. [f-0123456789abcdef] class StateGraph defines method compile (graph/state.py:8)

    Args:
        path: The path.
        limit: Render only the first ``limit`` hops (``None``: all).
    """
    lines = []
    previous = path.source
    for number, hop in enumerate(path.hops[:limit], start=1):
        marker = f" ({hop.provenance.marker()})" if hop.provenance is not None else ""
        lines.append(f"{number}. [{hop.fact_id}] {describe_hop(previous, hop)}{marker}")
        previous = hop.entity
    return "\n".join(lines)


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
        f"no entity named {_short(name)} in the knowledge graph{hint} Give a short name "
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
    adjacency = Adjacency(store)
    if target is None:
        sources = [entity.id for entity in resolve_entities(store, source)]
        walks = strongest_walks(adjacency, sources, max_hops, limit)
    else:
        sources, targets = _endpoints(store, source, target)
        walks, _ = shortest_walks(adjacency, sources, targets, max_hops, limit)
    return [_build(adjacency, walk) for walk in walks]


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


class PathRecall:
    """Mixin that gives a :class:`GraphStore` a :meth:`recall_paths` method."""

    def recall_paths(
        self: GraphStore,
        source: str,
        target: str | None = None,
        *,
        max_hops: int = 3,
        limit: int = 5,
    ) -> list[RetrievalPath]:
        """See :func:`citeloop.knowledge.paths.recall_paths`."""
        return recall_paths(self, source, target, max_hops=max_hops, limit=limit)


__all__ = [
    "FLOW_DECAY",
    "MAX_HOPS",
    "MAX_LIMIT",
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
