"""Rendering an injected context in the documented text format.

One line shape per kind of content, in this order (each group in context order)::

    class Name(Base, ...): method_a, method_b   one per class; "(...)" only with bases,
                                                ": ..." only with methods in the context
    def function_name(arg, ...)                 one per function and per test function
    Child inherits from Base                    one per inherits fact
    caller() calls callee()                     one per calls fact
    ClassName.method()                          one per method and per test method
    REQ-008-013 title text                      one per requirement
    ## Prior decisions                          then one "  ID: title" line per decision

Facts are rendered only between entities of the context, so every name the text
introduces is an entity of the context (unresolved call targets never appear).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from citeloop.knowledge.model import Entity, EntityKind, Fact, RelationKind

DECISIONS_HEADING = "## Prior decisions"


def owner_name(entity: Entity, owners: Mapping[str, str]) -> str:
    """Short name of the class that defines ``entity`` (from ``owners`` or its id)."""
    owner_id = owners.get(entity.id) or entity.id.rpartition(".")[0]
    return owner_id.rpartition(".")[2] or entity.name


def _parenthesized(signature: str) -> str:
    """A signature as it follows a name: the indexer's already starts with ``(`` or
    ``[``; a user store's bare ``"a, b"`` is put in parentheses."""
    return signature if signature[:1] in ("(", "[") else f"({signature})"


def render_context(
    entities: Sequence[Entity], facts: Sequence[Fact], owners: Mapping[str, str]
) -> tuple[str, list[Entity]]:
    """Render ``entities`` and the ``facts`` between them.

    Args:
        entities: The context's entities, in context order (seeds first).
        facts: Facts whose subject and object are both in ``entities``.
        owners: Owning class id of each method (and test method) in ``entities``.

    Returns:
        ``(text, entities in render order)``.
    """
    ids = {entity.id for entity in entities}
    classes = [e for e in entities if e.kind is EntityKind.CLASS]
    members = [
        e
        for e in entities
        if e.kind is EntityKind.METHOD or (e.kind is EntityKind.TEST and e.id in owners)
    ]
    functions = [
        e
        for e in entities
        if e.kind is EntityKind.FUNCTION or (e.kind is EntityKind.TEST and e.id not in owners)
    ]
    requirements = [e for e in entities if e.kind is EntityKind.REQUIREMENT]
    decisions = [e for e in entities if e.kind is EntityKind.DECISION]
    names = {entity.id: entity.name for entity in entities}

    lines: list[str] = []
    for entity in classes:
        line = f"class {entity.name}{_parenthesized(entity.signature) if entity.signature else ''}"
        methods = [m.name for m in members if owners.get(m.id) == entity.id]
        lines.append(f"{line}: {', '.join(methods)}" if methods else line)
    lines.extend(f"def {entity.name}{_parenthesized(entity.signature)}" for entity in functions)
    for fact in facts:
        if fact.subject not in ids or fact.object not in ids:
            continue
        if fact.relation is RelationKind.INHERITS:
            lines.append(f"{names[fact.subject]} inherits from {names[fact.object]}")
    for fact in facts:
        if fact.relation is RelationKind.CALLS and fact.subject in ids and fact.object in ids:
            lines.append(f"{names[fact.subject]}() calls {names[fact.object]}()")
    lines.extend(f"{owner_name(entity, owners)}.{entity.name}()" for entity in members)
    lines.extend(f"{entity.name} {entity.signature}".rstrip() for entity in requirements)
    if decisions:
        lines.append(DECISIONS_HEADING)
        lines.extend(f"  {entity.name}: {entity.signature or entity.name}" for entity in decisions)
    order = [*classes, *functions, *members, *requirements, *decisions]
    return "\n".join(lines), order
