"""Path search over a knowledge graph: hop distances, shortest paths, strongest paths.

The searches behind :func:`citeloop.knowledge.paths.recall_paths`. They walk the graph
undirected (a fact joins its two ends whichever way it reads), never through a self-loop,
an unresolved or unknown entity, or a ``uses_type`` or ``references`` fact
(:data:`~citeloop.knowledge.model.UNWALKED_RELATIONS`), and return :class:`Walk`
records of entity ids and facts; ``paths.py`` turns them into
:class:`~citeloop.knowledge.paths.RetrievalPath`.

Shortest paths (:func:`shortest_walks`) take two steps, each bounded by the part of the
graph within the length of the paths returned:

1. A bidirectional breadth-first search (Pohl, 1971, "Bi-directional search", Machine
   Intelligence 6) grows a ball around the sources and one around the targets, always
   the side with the smaller frontier, until they meet (the hop distance ``d``), a side
   runs out (not connected at all), or the radii add up to ``max_hops`` (not connected
   within it).
2. For a length bound ``L`` from ``d`` up to ``max_hops``, until ``limit`` paths are
   found: the balls grow to radii ``a + b >= L - 1``, so every entity on a path of at
   most ``L`` facts lies in one of them; the exact distance to the targets of every
   such entity follows from the two balls (:func:`_distances_to_targets`), and an A*
   search whose heuristic is that distance enumerates the paths of at most ``L`` facts.
   The heuristic is exact (and consistent), so every partial path queued can still
   reach a target in time, complete paths come out shortest first, then strongest
   first, and the search for ``L`` takes out the same partial paths, in the same order,
   as a search for ``max_hops`` would before its first longer path. An entity's facts
   are read only when a partial path ending there is taken out, and not even then when
   the facts read around the targets prove that it cannot go on, or (on a store that
   orders its facts' handles) list every hop it can still take: then only its count
   of facts is read (:class:`_Near`). A hub next to the targets costs a count.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from citeloop.knowledge.adjacency import Adjacency, Step

if TYPE_CHECKING:
    from citeloop.knowledge.store import GraphStore

FLOW_DECAY = 0.8
"""PathRAG's decay rate: the share of an entity's resource passed on per hop."""

MAX_SEARCH_STEPS = 100_000
"""Partial paths one search may extend (with a target) or queue (without one). With a
target every partial path extended can still reach it in time, so the budget bounds
time and memory on pathological graphs only; the search then returns the paths found so
far (the best ones, in order), and a shortest path if it found none. Without a target
(:func:`strongest_walks`), simple paths grow as ``degree ** hops``; at the budget the
longest queued paths stand in for full-length ones."""


@dataclass(frozen=True, slots=True)
class Walk:
    """A path as ids: where it starts, its hops, and its PathRAG strength in (0, 1].

    Also a partial path of a search (hops as a tuple: paths are at most ten long)."""

    source: str
    steps: tuple[Step, ...]
    strength: float

    @property
    def end(self) -> str:
        return self.steps[-1][1] if self.steps else self.source

    def visits(self, entity_id: str) -> bool:
        return entity_id == self.source or any(other == entity_id for _, other in self.steps)


class _Ball:
    """Breadth-first hop distances from some start entities, one level at a time, not
    through ``stops`` (reached, never left: no path passes through a target, nor back
    through a source, so a distance through one bounds no path's)."""

    def __init__(
        self, adjacency: Adjacency, starts: Iterable[str], stops: Collection[str] = ()
    ) -> None:
        self.adjacency = adjacency
        self.distance = dict.fromkeys(starts, 0)
        self.levels = [list(self.distance)]
        self.stops = frozenset(stops) - set(self.distance)

    @property
    def radius(self) -> int:
        return len(self.levels) - 1

    @property
    def frontier(self) -> list[str]:
        return self.levels[-1]

    def grow(self) -> list[str]:
        """Add the next level (one batched read of the frontier's edges, but the
        stops') and return it."""
        leaving = [entity_id for entity_id in self.frontier if entity_id not in self.stops]
        self.adjacency.load(leaving)
        level = self.radius + 1
        added = []
        for entity_id in leaving:
            for _, other in self.adjacency.edges(entity_id):
                if other not in self.distance:
                    self.distance[other] = level
                    added.append(other)
        self.levels.append(added)
        return added


@dataclass(frozen=True, slots=True)
class Reach:
    """What the bidirectional search proved about two sets of entities.

    Attributes:
        distance: The fewest facts between them, or ``None`` when more than the bound.
        exhausted: ``True`` when one side's whole connected part of the graph was
            searched: with ``distance`` ``None``, they are not connected at all.
    """

    distance: int | None
    exhausted: bool = False


def _meet(
    sources: Collection[str], targets: Collection[str], adjacency: Adjacency, max_hops: int
) -> tuple[_Ball, _Ball, Reach]:
    forward = _Ball(adjacency, sources, stops=targets)
    backward = _Ball(adjacency, targets, stops=sources)
    met = [forward.distance[e] for e in targets if e in forward.distance]
    distance = min(met) if met else None
    while distance is None and forward.radius + backward.radius < max_hops:
        near, far = (
            (forward, backward)
            if len(forward.frontier) <= len(backward.frontier)
            else (backward, forward)
        )
        added = near.grow()
        if not added:
            return forward, backward, Reach(None, exhausted=True)
        met = [near.distance[e] + far.distance[e] for e in added if e in far.distance]
        distance = min(met) if met else None
    return forward, backward, Reach(distance)


def hop_distance(
    store: GraphStore, sources: Collection[str], targets: Collection[str], max_hops: int
) -> Reach:
    """The fewest facts between any of ``sources`` and any of ``targets`` (entity ids),
    if at most ``max_hops``: a bidirectional breadth-first search, whose work is the two
    balls it grows (each side grows only while its frontier is the smaller)."""
    return _meet(sources, targets, Adjacency(store), max_hops)[2]


def _distances_to_targets(forward: _Ball, backward: _Ball, max_hops: int) -> dict[str, int]:
    """Exact hop distances to the targets of every entity that can lie on a path of at
    most ``max_hops`` facts from a source, given a forward ball of radius ``a`` and a
    backward ball of radius ``b`` with ``a + b >= max_hops - 1`` (other entities may be
    missing, or have their exact distance too).

    Such an entity ``u`` has ``dist_s(u) + dist_t(u) <= max_hops``, so ``dist_s(u) <= a``
    or ``dist_t(u) <= b``: it is in a ball. In the backward ball its distance is read off.
    Outside, it is found by a breadth-first search outward from the backward ball's last
    level through entities that satisfy the same bound: every entity on a shortest way
    from ``u`` to a target does, so the search reaches ``u`` at its exact distance, and
    all of them except the first hop's lie within the forward ball's read levels.
    """
    to_target = dict(backward.distance)
    adjacency, a, b = forward.adjacency, forward.radius, backward.radius
    from_source = forward.distance
    # With a + b = max_hops - 1, the first hop out of the backward ball may join two
    # entities whose edges were not read (both balls' last levels): read the smaller
    # of the two levels. With a + b >= max_hops, such an entity is within a - 1 hops of
    # a source, so its edges were read.
    if a + b < max_hops:
        outer = [e for e in forward.levels[a] if e not in to_target]
        adjacency.load(outer if len(outer) <= len(backward.levels[b]) else backward.levels[b])
    # Edges are symmetric: an entity's neighbours in the forward ball are the read
    # entities that list it, and its own edges when they were read.
    listed_by: dict[str, list[str]] = {}
    for entity_id, hops in from_source.items():
        if hops + b < max_hops and entity_id not in to_target and adjacency.loaded(entity_id):
            for _, other in adjacency.edges(entity_id):
                listed_by.setdefault(other, []).append(entity_id)
    level, distance = backward.levels[b], b
    while level and distance < max_hops:
        distance += 1
        following = []
        for entity_id in level:
            around = listed_by.get(entity_id, [])
            if adjacency.loaded(entity_id):
                around = around + [other for _, other in adjacency.edges(entity_id)]
            for other in around:
                if other not in to_target and from_source.get(other, a + 1) + distance <= max_hops:
                    to_target[other] = distance
                    following.append(other)
        level = following
    return to_target


def shortest_walks(
    adjacency: Adjacency, sources: list[str], targets: set[str], max_hops: int, limit: int
) -> tuple[list[Walk], Reach]:
    """Up to ``limit`` simple paths of at most ``max_hops`` facts from ``sources`` to
    ``targets`` (entity ids, disjoint), shortest first, then strongest, then by the
    search order (sources in order, each entity's facts in the store's order); paths
    pass through no other source and no target. Also what the search proved about the
    distance (see :class:`Reach`).

    The paths are enumerated for a growing length bound, from the distance up to
    ``max_hops``, until ``limit`` are found: the balls (and the entities read) grow only
    as far as the longest path returned needs, not always to ``max_hops``."""
    forward, backward, reach = _meet(sources, targets, adjacency, max_hops)
    if reach.distance is None:
        return [], reach
    found: list[Walk] = []
    for bound in range(reach.distance, max_hops + 1):
        while forward.radius + backward.radius < bound - 1:
            near = forward if len(forward.frontier) <= len(backward.frontier) else backward
            near.grow()
        to_target = _distances_to_targets(forward, backward, bound)
        found, complete = _enumerate(
            adjacency, sources, targets, to_target, bound, limit, _Near(backward)
        )
        if len(found) >= limit or not complete:
            break
    return found, reach


class _Near:
    """The entities within ``radius`` hops of the targets whose facts were read, and who
    lists each entity among its neighbours: the hops out of an entity that stay within
    ``radius`` of the targets, found without reading that entity's facts."""

    def __init__(self, backward: _Ball) -> None:
        adjacency = backward.adjacency
        last = backward.radius
        stops = backward.stops  # sources: no path steps into one
        if not all(adjacency.loaded(e) or e in stops for e in backward.levels[last]):
            last -= 1
        self.radius = last
        self.listed_by: dict[str, list[tuple[int, Step]]] = {}
        for hops, level in enumerate(backward.levels[: last + 1]):
            for entity_id in level:
                if entity_id in stops:
                    continue
                for fact, other in adjacency.edges(entity_id):
                    self.listed_by.setdefault(other, []).append((hops, (fact, entity_id)))

    def hops_out(self, entity_id: str, spare: int) -> list[tuple[int, Step]] | None:
        """(hops to the targets, step) for every fact of ``entity_id`` to an entity at
        most ``spare`` hops from the targets, in no set order; ``None`` when ``spare``
        is beyond what was read. (Every such entity lies within ``radius`` of the
        targets, so its facts, which list ``entity_id``, were read.)"""
        if spare > self.radius:
            return None
        return [item for item in self.listed_by.get(entity_id, ()) if item[0] <= spare]

    def dead_end(self, partial: Walk, spare: int, sources: set[str]) -> bool:
        """Whether ``partial`` has no next hop to an entity at most ``spare`` hops from
        the targets (``True`` only when that is proved by the facts read)."""
        close = self.hops_out(partial.end, spare)
        return close is not None and not any(
            other not in sources and not partial.visits(other) for _, (_, other) in close
        )


def _hops_onward(
    adjacency: Adjacency,
    near: _Near,
    end: str,
    length: int,
    max_hops: int,
    to_target: dict[str, int],
    sources: set[str],
) -> tuple[list[tuple[int, Step]], int]:
    """The hops out of ``end`` a path of ``length`` facts through it may take within
    ``max_hops`` (each with the length bound it leaves: ``length`` plus the hops left),
    in fact order, none into a source; and ``end``'s number of facts (which shares out
    its flow). An unread entity's hops come from the facts ``near`` read when the store
    can order them, and its count of facts alone is read."""
    if not adjacency.loaded(end) and adjacency.ordered:
        close = near.hops_out(end, max_hops - length)
        if close is not None:
            steps = sorted(
                ((length + hops, step) for hops, step in close if step[1] not in sources),
                key=lambda item: adjacency.order(item[1][0]),
            )
            return steps, adjacency.degree(end)
    edges = adjacency.edges(end)
    steps = [
        (length + to_target[other], step)
        for step in edges
        if (other := step[1]) in to_target
        and length + to_target[other] <= max_hops
        and other not in sources
    ]
    return steps, len(edges)


def _enumerate(
    adjacency: Adjacency,
    sources: list[str],
    targets: set[str],
    to_target: dict[str, int],
    max_hops: int,
    limit: int,
    near: _Near,
) -> tuple[list[Walk], bool]:
    """A* from the sources, its heuristic the exact distance to the targets: a partial
    path is queued only if it can reach one within ``max_hops``, and the queue orders
    partial paths by (length + distance left, -strength, the order they were reached).
    Returns the paths found and whether the search ran to its end (``False`` when it
    hit :data:`MAX_SEARCH_STEPS`).

    The children of a partial path share its outgoing flow and get consecutive places
    in that order, so they are queued lazily: one queue entry per child length bound
    (the distance left changes by at most one per hop, so there are at most three),
    which yields its children one at a time in fact order. The queue then holds entries
    for the partial paths taken out, not for every neighbour of a hub, and the paths
    come out in the same order as if every child had been queued. The hops out of an
    entity are worked out once per length (:func:`_hops_onward`): a hub's facts are
    scanned once, and not read at all when ``near`` holds every hop it could take."""
    order = itertools.count()
    queue: list[tuple[int, float, int, int, list[tuple[int, Step]], Walk]] = []
    for source in sources:
        distance = to_target.get(source, max_hops + 1)
        if distance <= max_hops:
            queue.append((distance, -1.0, next(order), 0, [], Walk(source, (), 1.0)))
    heapq.heapify(queue)
    source_set = set(sources)
    found: list[Walk] = []
    onward: dict[tuple[str, int], tuple[list[tuple[int, Step]], int]] = {}
    expanded = 0
    while queue and len(found) < limit:
        bound, negative_flow, _, index, children, parent = heapq.heappop(queue)
        if not children:  # a source
            partial = parent
        else:
            partial = Walk(parent.source, (*parent.steps, children[index][1]), -negative_flow)
            if index + 1 < len(children):
                following = (bound, negative_flow, children[index + 1][0], index + 1)
                heapq.heappush(queue, (*following, children, parent))
        if partial.end in targets:
            found.append(partial)
            continue
        expanded += 1
        if expanded > MAX_SEARCH_STEPS:
            return found or [_descend(adjacency, sources, to_target)], False
        length = len(partial.steps) + 1
        if not adjacency.loaded(partial.end) and near.dead_end(
            partial, max_hops - length, source_set
        ):
            continue
        key = (partial.end, length)
        if key not in onward:
            onward[key] = _hops_onward(
                adjacency, near, partial.end, length, max_hops, to_target, source_set
            )
        steps, degree = onward[key]
        by_bound: dict[int, list[tuple[int, Step]]] = {}
        for child_bound, step in steps:
            if not partial.visits(step[1]):
                by_bound.setdefault(child_bound, []).append((next(order), step))
        flow = partial.strength * FLOW_DECAY / degree
        for child_bound, group in by_bound.items():
            heapq.heappush(queue, (child_bound, -flow, group[0][0], 0, group, partial))
    return found, True


def _descend(adjacency: Adjacency, sources: list[str], to_target: dict[str, int]) -> Walk:
    """A shortest path: from the nearest source, each hop by the first fact that gets
    one hop nearer the targets (the distances fall, so the path is simple and meets no
    other source)."""
    source = min(sources, key=lambda entity_id: to_target.get(entity_id, len(to_target) + 1))
    walk = Walk(source, (), 1.0)
    while to_target[walk.end]:
        edges = adjacency.edges(walk.end)
        step = next(edge for edge in edges if to_target.get(edge[1]) == to_target[walk.end] - 1)
        walk = Walk(source, (*walk.steps, step), walk.strength * FLOW_DECAY / len(edges))
    return walk


def strongest_walks(
    adjacency: Adjacency, sources: list[str], max_hops: int, limit: int
) -> list[Walk]:
    """Up to ``limit`` paths out of ``sources``, each as long as the graph allows within
    ``max_hops``: full-length paths by strength, then paths that reach a dead end
    earlier, by strength.

    Best-first by an upper bound of the strength a partial path can still reach at
    full length: every hop after an entity that has a way in and a way out passes on at
    most ``FLOW_DECAY / 2``. The bound is admissible, so full-length paths come out
    strongest first, and partial paths that cannot beat them wait."""

    def bound(partial: Walk) -> float:
        return partial.strength * (FLOW_DECAY / 2) ** (max_hops - len(partial.steps))

    order = itertools.count()
    queue = [(-2.0, next(order), Walk(source, (), 1.0)) for source in sources]
    source_set = set(sources)
    full: list[Walk] = []
    dead_ends: list[Walk] = []
    queued = len(queue)
    while queue and len(full) < limit:
        _, _, partial = heapq.heappop(queue)
        if len(partial.steps) == max_hops:
            full.append(partial)
            continue
        edges = adjacency.edges(partial.end)
        open_edges = [
            (fact, other)
            for fact, other in edges
            if other not in source_set and not partial.visits(other)
        ]
        if not open_edges:
            if partial.steps:
                dead_ends.append(partial)
            continue
        queued += len(open_edges)
        if queued > MAX_SEARCH_STEPS:
            # Out of budget: the longest queued paths stand in for full-length ones.
            longest = max(len(item[2].steps) for item in queue)
            dead_ends += [item[2] for item in queue if len(item[2].steps) == longest]
            break
        flow = partial.strength * FLOW_DECAY / len(edges)
        for step in open_edges:
            extended = Walk(partial.source, (*partial.steps, step), flow)
            heapq.heappush(queue, (-bound(extended), next(order), extended))
    rest = sorted(dead_ends, key=lambda partial: -partial.strength)  # stable: pop order
    return full + rest[: limit - len(full)]
