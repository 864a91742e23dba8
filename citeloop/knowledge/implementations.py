"""The implementation a class uses of a method its bases define.

A question about what a class does ("how does the converter for single-precision
complex values write bytes") finds the class, and the base method whose docstring says
it (``Converter.binoutput``: "Convert the object *value* ... to a string of bytes"); what
the class runs is the override nearest it on the way up its bases
(``FloatingPoint.binoutput``), which seldom has a docstring of its own, so words do not
find it. :func:`used_implementations` finds it through the graph: each seed class's
bases, breadth first (Python's method resolution order for single inheritance; for
multiple inheritance an approximation of C3, van Rossum's "The Python 2.3 Method
Resolution Order"), to the base that defines the method; the first of them that
defines a method of that name is the one the class uses.
"""

from __future__ import annotations

from collections.abc import Mapping

from citeloop.knowledge.model import Entity, EntityKind, RelationKind
from citeloop.knowledge.seeds import owner_id
from citeloop.knowledge.store import BatchedGraphStore

MAX_BASE_LEVELS = 6
"""Levels of bases followed up from a class."""


def used_implementations(
    reads: BatchedGraphStore, seeds: Mapping[str, float], entities: Mapping[str, Entity]
) -> list[tuple[Entity, str]]:
    """``(implementation, base method id)`` for each seed class and each seed method
    defined by one of its bases (at most :data:`MAX_BASE_LEVELS` up) that the class
    overrides, or a base nearer it does: the nearest definition of that name on the way
    up (the class's own first), in the order of the seeds, each implementation once.

    Args:
        reads: The graph's batched reads (``facts_of_many``, ``get_entities``).
        seeds: Seed weights by entity id (their order is the seeds' order).
        entities: The entities of the seeds, by id.
    """
    classes = [i for i in seeds if entities[i].kind is EntityKind.CLASS]
    methods = [i for i in seeds if entities[i].kind is EntityKind.METHOD]
    if not classes or not methods:
        return []
    chains = _ancestry(reads, classes)
    wanted: dict[tuple[str, str], list[str]] = {}
    for class_id, chain in chains.items():
        for method_id in methods:
            owner = owner_id(method_id)
            if owner != class_id and owner in chain:
                name = entities[method_id].name
                below = chain[: chain.index(owner)]  # the class, then its bases below it
                wanted[(class_id, method_id)] = [f"{other}.{name}" for other in below]
    found = reads.get_entities({i for ids in wanted.values() for i in ids})
    result: dict[str, tuple[Entity, str]] = {}
    for (_, method_id), ids in wanted.items():
        implementation = next((found[i] for i in ids if i in found), None)
        if implementation is not None and implementation.id not in seeds:
            result.setdefault(implementation.id, (implementation, method_id))
    return list(result.values())


def _ancestry(reads: BatchedGraphStore, classes: list[str]) -> dict[str, list[str]]:
    """Each class and its bases, breadth first in fact order, one batched read a level."""
    chains = {class_id: [class_id] for class_id in classes}
    frontier = {class_id: [class_id] for class_id in classes}
    for _ in range(MAX_BASE_LEVELS):
        ids = list(dict.fromkeys(i for level in frontier.values() for i in level))
        if not ids:
            break
        bases = {
            entity_id: [
                fact.object
                for fact in facts
                if fact.relation is RelationKind.INHERITS
                and fact.subject == entity_id
                and not fact.object.startswith("?")
            ]
            for entity_id, facts in reads.facts_of_many(ids).items()
        }
        for class_id, chain in chains.items():
            following = [
                base for i in frontier[class_id] for base in bases.get(i, ()) if base not in chain
            ]
            frontier[class_id] = list(dict.fromkeys(following))
            chain.extend(frontier[class_id])
    return chains
