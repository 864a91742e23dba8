"""Turning references into facts once every file of the tree is known.

Resolution order for a call or base candidate ``pkg.mod.Name.attr``:

1. an indexed entity with that id;
2. through module-level import aliases (re-exports such as ``from .impl import Name`` in
   ``pkg/__init__.py``), at most :data:`MAX_ALIAS_STEPS` steps;
3. for ``Class.attr``, the same member in the class's resolved bases, breadth-first.

What stays unresolved becomes an entity ``"?<name as written>"`` with ``resolved=False``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from citeloop.knowledge.model import Entity, EntityKind, Fact, Provenance, RelationKind
from citeloop.knowledge.names import is_noise
from citeloop.knowledge.records import Reference

MAX_ALIAS_STEPS = 8
MAX_BASE_CLASSES = 64
_DECIDABLE = frozenset({EntityKind.CLASS, EntityKind.FUNCTION})


@dataclass(slots=True)
class Linked:
    """Entities and facts derived by linking (rebuilt on every index run that changes files)."""

    entities: list[Entity] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)


def unresolved_id(written: str) -> str:
    """Id of the unresolved call target written as ``written``."""
    return "?" + written


class _Resolver:
    def __init__(self, entities: Mapping[str, Entity], aliases: Mapping[str, str]) -> None:
        self.entities = entities
        self.aliases = aliases
        self.bases: dict[str, list[str]] = {}

    def resolve(self, target: str, mode: str = "") -> str | None:
        if not target:
            return None
        if mode != "bases" and (found := self.follow_aliases(target)):
            return found
        owner, _, member = target.rpartition(".")
        owner_id = self.follow_aliases(owner) if owner else None
        if owner_id is None or self.entities[owner_id].kind is not EntityKind.CLASS:
            return None
        return self.in_bases(owner_id, member)

    def follow_aliases(self, target: str) -> str | None:
        for _ in range(MAX_ALIAS_STEPS):
            if target in self.entities:
                return target
            parts = target.split(".")
            for cut in range(len(parts), 0, -1):
                head = ".".join(parts[:cut])
                if head in self.aliases and self.aliases[head] != head:
                    target = ".".join([self.aliases[head], *parts[cut:]])
                    break
            else:
                return None
        return None

    def in_bases(self, class_id: str, member: str) -> str | None:
        queue, seen = deque(self.bases.get(class_id, ())), {class_id}
        while queue and len(seen) < MAX_BASE_CLASSES:
            base = queue.popleft()
            if base in seen:
                continue
            seen.add(base)
            if f"{base}.{member}" in self.entities:
                return f"{base}.{member}"
            queue.extend(self.bases.get(base, ()))
        return None


def _decidable_names(entities: Iterable[Entity]) -> dict[str, list[str]]:
    """Names a decision record may mention: classes, functions, and ``Owner.member``."""
    names: dict[str, list[str]] = {}
    for entity in entities:
        if not entity.resolved:
            continue
        if entity.kind in _DECIDABLE:
            names.setdefault(entity.name, []).append(entity.id)
        if entity.kind is EntityKind.METHOD and entity.id.count(".") >= 2:
            dotted = ".".join(entity.id.rsplit(".", 2)[-2:])
            names.setdefault(dotted, []).append(entity.id)
    return names


def _is_prose_word(name: str) -> bool:
    """A plain lowercase word (``parse``) that only counts as a name when written as code."""
    return name.isalpha() and name.islower()


def link(
    entities: Mapping[str, Entity],
    references: Iterable[tuple[Reference, Provenance]],
    aliases: Mapping[str, str],
) -> Linked:
    """Resolve references into ``inherits``, ``calls``, ``tested_by``, ``traces`` and
    ``decided`` facts, plus the requirement and unresolved-call entities they need.

    Args:
        entities: Every entity defined by a file, by id.
        references: Every reference with the provenance of where it was written,
            in a deterministic order (by path, then line).
        aliases: Module-level import bindings of every file.

    Returns:
        The derived entities and facts, in deterministic order.
    """
    resolver = _Resolver(entities, aliases)
    by_relation: dict[RelationKind, list[tuple[Reference, Provenance]]] = {}
    for reference, provenance in references:
        by_relation.setdefault(reference.relation, []).append((reference, provenance))
    linked = Linked()
    derived: dict[str, Entity] = {}

    def target_of(reference: Reference, kind: EntityKind) -> str:
        found = resolver.resolve(reference.target, reference.mode)
        if found is not None:
            return found
        missing = unresolved_id(reference.written)
        if missing not in derived:
            derived[missing] = Entity(missing, kind, reference.written, resolved=False)
        return missing

    for reference, provenance in by_relation.get(RelationKind.INHERITS, ()):
        base = target_of(reference, EntityKind.CLASS)
        resolver.bases.setdefault(reference.subject, []).append(base)
        linked.facts.append(Fact(reference.subject, RelationKind.INHERITS, base, provenance))
    for reference, provenance in by_relation.get(RelationKind.CALLS, ()):
        callee = target_of(reference, EntityKind.FUNCTION)
        linked.facts.append(Fact(reference.subject, RelationKind.CALLS, callee, provenance))
        caller_kind = entities[reference.subject].kind
        callee_entity = entities.get(callee)
        if (
            caller_kind is EntityKind.TEST
            and callee_entity is not None
            and callee_entity.kind is not EntityKind.TEST
        ):
            linked.facts.append(Fact(callee, RelationKind.TESTED_BY, reference.subject, provenance))
    for reference, provenance in by_relation.get(RelationKind.TRACES, ()):
        requirement = reference.target
        known = derived.get(requirement)
        if known is None or (not known.signature and reference.written):
            derived[requirement] = Entity(
                requirement,
                EntityKind.REQUIREMENT,
                requirement,
                known.path if known else provenance.path,
                known.line if known else provenance.start_line,
                reference.written,
            )
        linked.facts.append(Fact(reference.subject, RelationKind.TRACES, requirement, provenance))
    names = _decidable_names(entities.values())
    for reference, provenance in by_relation.get(RelationKind.DECIDED, ()):
        name = reference.target
        dotted = "." in name
        if not dotted and (is_noise(name) or (_is_prose_word(name) and reference.mode != "code")):
            continue
        for entity_id in names.get(name, ()):
            linked.facts.append(
                Fact(reference.subject, RelationKind.DECIDED, entity_id, provenance)
            )
    linked.entities = list(derived.values())
    return linked
