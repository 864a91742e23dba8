"""What the source lines a context shows refer to: the code they call, and the
attributes a method's lines read on ``self``.

A context that shows ``OriginTrialToken.from_json(json["parsedToken"])`` called, or
``for attr in self.__attrs__``, should hold the line of what the call or the read
names: a played context had shown the call with only "not shown: 1 more" for its
callee (one of 373 ``from_json`` methods, counted out among its namesakes), and the
loop with no line for ``Response.__attrs__``. The injector offers these entities right
after the ones whose source it shows.
"""

from __future__ import annotations

import re

from citeloop.knowledge.excerpts import Excerpts
from citeloop.knowledge.model import EntityKind, RelationKind
from citeloop.knowledge.neighbourhood import Candidates
from citeloop.knowledge.store import BatchedGraphStore

_SELF_MEMBER = re.compile(r"(?<![\w.])self\.([^\W\d]\w*)")
"""A member read or written on ``self`` in a line of source (linear: no nesting)."""


def shown_callees(found: Candidates, excerpts: Excerpts) -> list[str]:
    """The candidates that the source lines ``excerpts`` show call (a ``calls`` fact of
    the excerpt's entity whose first line is shown), in the excerpts' order, then by
    line."""
    shown = {entity_id: set(lines) for entity_id, lines in excerpts.shown.items()}
    calls: dict[str, list[tuple[int, str]]] = {}
    for fact in found.facts.values():
        lines = shown.get(fact.subject)
        where = fact.provenance
        if (
            lines
            and fact.relation is RelationKind.CALLS
            and where is not None
            and where.start_line in lines
            and fact.object in found.entities
        ):
            calls.setdefault(fact.subject, []).append((where.start_line, fact.object))
    return list(
        dict.fromkeys(
            callee
            for entity_id in excerpts.blocks
            for _, callee in sorted(calls.get(entity_id, ()))
        )
    )


def shown_members(reads: BatchedGraphStore, found: Candidates, excerpts: Excerpts) -> list[str]:
    """The attributes of its own class that a method's shown lines read or set on
    ``self``, in the excerpts' order, then as written; one no walk reached is read from
    the graph and joins ``found.entities``."""
    wanted: dict[str, None] = {}
    for entity_id, block in excerpts.blocks.items():
        entity = found.entities.get(entity_id)
        if entity is None or entity.kind is not EntityKind.METHOD:
            continue
        owner = entity_id.rpartition(".")[0]
        for name in _SELF_MEMBER.findall("\n".join(block)):
            if (member := f"{owner}.{name}") != entity_id:
                wanted.setdefault(member)
    missing = [member for member in wanted if member not in found.entities]
    for member, entity in reads.get_entities(missing).items():
        if entity.kind is EntityKind.ATTRIBUTE:
            found.entities[member] = entity
    return [
        member
        for member in wanted
        if member in found.entities and found.entities[member].kind is EntityKind.ATTRIBUTE
    ]
