"""``ContextInjector``: pick seed entities for a task, walk the graph, render the context."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from citeloop.errors import ConfigurationError
from citeloop.knowledge.model import (
    ContextEntity,
    ContextExpansion,
    Entity,
    EntityKind,
    Fact,
    InjectedContext,
    RelationKind,
    Tier,
)
from citeloop.knowledge.names import is_noise, iter_mentions
from citeloop.knowledge.render import render_context
from citeloop.knowledge.store import BatchedGraphStore, GraphStore, batched

TEST_TASK_TYPES = frozenset({"test", "tests", "testing"})
"""Task types that follow ``tested_by`` relations as if ``include_tested_by`` were set."""

MAX_QUALIFIED_PARTS = 8
"""Trailing parts of a dotted mention matched against qualified ids (``a.b.C.m``);
bounds the work per mention, so a pathological ``a.a.a...`` stays linear."""

MAX_PER_NAME = 3
"""Seeds one ambiguous name may contribute."""

# Kinds that may enter a context, ranked for choosing among same-named entities:
# classes, then functions, methods, requirements, decisions, and tests last. Modules and
# generic facts have no line shape in the text format, so they never enter a context.
_SEED_RANK = {
    EntityKind.CLASS: 0,
    EntityKind.FUNCTION: 1,
    EntityKind.METHOD: 2,
    EntityKind.REQUIREMENT: 3,
    EntityKind.DECISION: 4,
    EntityKind.TEST: 5,
}
_RELATION_ORDER = {
    relation: rank
    for rank, relation in enumerate(
        (
            RelationKind.DEFINES,
            RelationKind.INHERITS,
            RelationKind.CALLS,
            RelationKind.TESTED_BY,
            RelationKind.TRACES,
            RelationKind.DECIDED,
        )
    )
}
_SPLIT = re.compile(r"[.\-]")
_MIN_READ = 64
"""Fewest candidate entities read at once while a walk admits them (the rest of a
batch may be refused: unresolved names, modules, tests)."""


def payload_text(payload: str | Mapping[str, Any] | Sequence[Any]) -> str:
    """The text of a payload: a string, or the string values of a mapping or sequence.

    Raises:
        TypeError: If ``payload`` is none of these.
    """
    if isinstance(payload, str):
        return payload
    if isinstance(payload, Mapping):
        values: Collection[Any] = list(payload.values())
    elif isinstance(payload, Sequence) and not isinstance(payload, bytes | bytearray):
        values = payload
    else:
        raise TypeError(
            f"payload must be a str, or a mapping or sequence of str; got "
            f"{type(payload).__name__}. Pass the task text (and payload text) as strings."
        )
    return "\n".join(value for value in values if isinstance(value, str))


def _seed_key(entity: Entity) -> tuple[bool, int]:
    """Public before private, then by kind rank (tests last)."""
    return (entity.name.startswith("_"), _SEED_RANK[entity.kind])


class ContextInjector:
    """Builds the graph context injected into a prompt.

    Seeds are the entities named in the task and payload text: each token of the text
    (words, dotted ``Class.method`` paths, hyphenated ids like ``REQ-008-013``) is looked
    up by name, however long the text (the store's name set filters tokens without a
    query per word). Unqualified names that are too common (under 3
    characters, dunders, builtins, keywords, words like ``run``/``get``/``main``) are
    ignored; qualified ones (``Runner.run``) count. When a name is ambiguous, the
    candidate defined in or beside an unambiguous mention wins (``add_edge`` next to
    ``StateGraph``), then public non-test definitions (classes, then functions, then
    methods), at most :data:`MAX_PER_NAME` per name.

    From the seeds the walk goes breadth-first over ``defines``, ``inherits``, ``calls``,
    ``traces`` and ``decided`` in both directions, ``hops + expansion.extra_hops`` hops,
    up to ``max_entities * expansion.limit_multiplier`` entities. ``tested_by`` (and any
    test entity) is followed only with ``expansion.include_tested_by`` or a task type in
    :data:`TEST_TASK_TYPES`. Requirement closure then adds every entity that traces to a
    requirement in the context. The class of each method in the context joins it too,
    since the text names it in ``Class.method()``. Unresolved call targets, modules and
    generic facts never enter a context.

    Tiers: the seeds are **core** (must be cited), everything else **supporting**.
    Seeds are capped at ``max_entities`` whatever the expansion, so widening never
    changes the core set.

    Args:
        store: The graph to read.
        hops: Hops walked by default, >= 0.
        max_entities: Entity limit of the default walk (and the seed cap), >= 1.

    Raises:
        ConfigurationError: If ``hops`` or ``max_entities`` is out of range.

    Example:
        >>> injector = ContextInjector(store)  # doctest: +SKIP
        >>> context = injector.inject("Why does Child override Base.load?")  # doctest: +SKIP
        >>> [e.name for e in context.core]  # doctest: +SKIP
        ['Child', 'Base', 'load']
    """

    def __init__(self, store: GraphStore, *, hops: int = 1, max_entities: int = 40) -> None:
        if hops < 0:
            raise ConfigurationError(f"hops must be >= 0, got {hops}; use 0 for seeds only")
        if max_entities < 1:
            raise ConfigurationError(f"max_entities must be >= 1, got {max_entities}")
        self.store = store
        self.hops = hops
        self.max_entities = max_entities
        self._reads = batched(store)

    def inject(
        self,
        payload: str | Mapping[str, Any] | Sequence[Any],
        task_type: str | None = None,
        expansion: ContextExpansion | None = None,
    ) -> InjectedContext:
        """Build the context for a task.

        Args:
            payload: The task text, or a mapping/sequence whose string values are the
                task and payload texts.
            task_type: Optional task type; ``"test"`` (see :data:`TEST_TASK_TYPES`)
                includes tests via ``tested_by``. Other values change nothing.
            expansion: How much to widen the default walk; ``None`` for the default.

        Returns:
            The rendered text, the entities with tiers in render order, the facts
            between them, and the graph snapshot id.

        Raises:
            TypeError: If ``payload`` is not a str, mapping or sequence.
        """
        widening = expansion or ContextExpansion()
        walk = _Walk(
            self._reads,
            limit=self.max_entities * widening.limit_multiplier,
            follow_tests=widening.include_tested_by or task_type in TEST_TASK_TYPES,
        )
        task_text = payload_text(payload)
        with self._reads.reading():
            seeds = self.seeds(task_text)
            walk.add_all(seeds)
            walk.breadth_first(seeds, self.hops + widening.extra_hops)
            if widening.include_requirement_closure:
                walk.close_requirements()
            owners = walk.add_owners()
            facts = walk.facts_between()
            snapshot = self._reads.snapshot()
        text, order = render_context(list(walk.context.values()), facts, owners)
        core = {seed.id for seed in seeds}
        return InjectedContext(
            text=text,
            entities=tuple(
                ContextEntity(
                    entity.name,
                    entity.kind,
                    Tier.CORE if entity.id in core else Tier.SUPPORTING,
                    entity.id,
                )
                for entity in order
            ),
            facts=tuple(facts),
            snapshot=snapshot,
            expansion=expansion,
        )

    def seeds(self, text: str) -> list[Entity]:
        """The seed entities named in ``text``, in order of first mention.

        Args:
            text: Task and payload text.

        Returns:
            At most ``max_entities`` entities.
        """
        chosen: dict[str, Entity] = {}
        mentions = dict.fromkeys(iter_mentions(text))
        known = self._reads.names()
        wanted = {name for token in mentions for name in _lookup_names(token) if name in known}
        named = {
            name: [entity for entity in found if entity.resolved and entity.kind in _SEED_RANK]
            for name, found in self._reads.entities_named_many(wanted).items()
        }

        def lookup(name: str) -> list[Entity]:
            return named.get(name, [])

        groups = [group for token in mentions for group in self._mentioned(token, lookup)]
        # A name with one candidate anchors the others: an ambiguous name ("add_edge")
        # prefers the candidate defined in, or next to, an anchor ("StateGraph").
        anchors = {group[0].id for group in groups if len(group) == 1}
        anchors |= {_owner(anchor) for anchor in anchors}
        for group in groups:
            for entity in _preferred(group, anchors):
                chosen.setdefault(entity.id, entity)
            if len(chosen) >= self.max_entities:
                break
        return list(chosen.values())[: self.max_entities]

    @staticmethod
    def _mentioned(token: str, lookup: Callable[[str], list[Entity]]) -> list[list[Entity]]:
        """Candidate groups one token names, one group per name: by exact name (ids like
        ``REQ-1`` included), else by the longest dotted suffix of their id
        (``Owner.member``) plus the owner parts, else by each ``.``/``-`` separated part
        that is not noise."""
        if "-" in token or not is_noise(token):
            exact = lookup(token)
            if exact:
                return [exact]
        parts = [part for part in _SPLIT.split(token) if part]
        if len(parts) < 2:
            return []
        found: list[list[Entity]] = []
        unqualified = parts
        if "." in token:
            dotted = [part for part in token.split(".") if part]
            for size in range(min(len(dotted), MAX_QUALIFIED_PARTS), 1, -1):
                suffix = ".".join(dotted[-size:])
                matches = [
                    entity
                    for entity in lookup(dotted[-1])
                    if entity.id == suffix or entity.id.endswith("." + suffix)
                ]
                if matches:
                    found.append(matches)
                    unqualified = dotted[:-1]
                    break
        found.extend(lookup(part) for part in unqualified if not is_noise(part))
        return [group for group in found if group]


def _lookup_names(token: str) -> set[str]:
    """Every name :meth:`ContextInjector._mentioned` may look up for ``token``."""
    names = {part for part in _SPLIT.split(token) if part and not is_noise(part)}
    if "-" in token or not is_noise(token):
        names.add(token)
    dotted = [part for part in token.split(".") if part]
    if len(dotted) > 1:
        names.add(dotted[-1])
        names.update(part for part in dotted[:-1] if not is_noise(part))
    return names


def _owner(entity_id: str) -> str:
    """The id of what defines ``entity_id``: its class or module (``a.B.m`` -> ``a.B``)."""
    return entity_id.rpartition(".")[0]


def _preferred(entities: list[Entity], anchors: Collection[str] = ()) -> list[Entity]:
    """The best-ranked of same-named entities, at most :data:`MAX_PER_NAME`, by id.

    Rank: defined in or beside an anchor first, then :func:`_seed_key`.
    """
    if not entities:
        return []

    def key(entity: Entity) -> tuple[bool, bool, int]:
        return (_owner(entity.id) not in anchors, *_seed_key(entity))

    best = min(key(entity) for entity in entities)
    ranked = sorted((entity for entity in entities if key(entity) == best), key=lambda e: e.id)
    return ranked[:MAX_PER_NAME]


class _Walk:
    """The entities of one context being built, with a per-walk fact cache.

    Reads the store a breadth-first level at a time (one ``facts_of_many`` and a few
    ``get_entities`` per level), never once per entity.
    """

    def __init__(self, store: BatchedGraphStore, *, limit: int, follow_tests: bool) -> None:
        self.store = store
        self.limit = limit
        self.follow_tests = follow_tests
        self.context: dict[str, Entity] = {}
        self._facts: dict[str, list[Fact]] = {}

    def facts(self, entity_id: str) -> list[Fact]:
        """The facts of a context entity, in walk order (after :meth:`fetch_facts`)."""
        if entity_id not in self._facts:
            self.fetch_facts([entity_id])
        return self._facts[entity_id]

    def fetch_facts(self, entity_ids: Iterable[str]) -> None:
        """Read the facts of the ids not read yet, in one store call."""
        missing = [entity_id for entity_id in entity_ids if entity_id not in self._facts]
        if not missing:
            return
        for entity_id, facts in self.store.facts_of_many(missing).items():
            self._facts[entity_id] = sorted(
                facts, key=lambda fact: (_RELATION_ORDER[fact.relation], fact.subject, fact.object)
            )

    def add_all(self, entities: list[Entity]) -> None:
        for entity in entities:
            self.context.setdefault(entity.id, entity)

    def admit_all(self, candidates: Iterable[str]) -> list[Entity]:
        """Add the candidates, in order, that may enter a context, until the limit;
        return those newly added. Reads the entities in batches of about the room left,
        so a hub's thousand neighbours are not all read for a few places."""
        pending = [i for i in dict.fromkeys(candidates) if i not in self.context]
        added: list[Entity] = []
        while pending and len(self.context) < self.limit:
            size = max(self.limit - len(self.context), _MIN_READ)
            batch, pending = pending[:size], pending[size:]
            found = self.store.get_entities(batch)
            for entity_id in batch:
                if len(self.context) >= self.limit:
                    break
                entity = found.get(entity_id)
                if entity is not None and self._admissible(entity):
                    self.context[entity_id] = entity
                    added.append(entity)
        return added

    def _admissible(self, entity: Entity) -> bool:
        if not entity.resolved or entity.kind not in _SEED_RANK:
            return False
        return entity.kind is not EntityKind.TEST or self.follow_tests

    def breadth_first(self, start: list[Entity], hops: int) -> None:
        frontier = start
        for _ in range(hops):
            if not frontier or len(self.context) >= self.limit:
                return
            self.fetch_facts(entity.id for entity in frontier)
            frontier = self.admit_all(
                fact.object if fact.subject == entity.id else fact.subject
                for entity in frontier
                for fact in self.facts(entity.id)
                if fact.relation is not RelationKind.TESTED_BY or self.follow_tests
            )

    def close_requirements(self) -> None:
        requirements = [e.id for e in self.context.values() if e.kind is EntityKind.REQUIREMENT]
        self.fetch_facts(requirements)
        self.admit_all(
            fact.subject
            for requirement in requirements
            for fact in self.facts(requirement)
            if fact.relation is RelationKind.TRACES and fact.object == requirement
        )

    def facts_between(self) -> list[Fact]:
        """Every fact between two context entities, in context order."""
        self.fetch_facts(self.context)
        position = {entity_id: index for index, entity_id in enumerate(self.context)}
        found = {
            fact.fact_id: fact
            for entity_id in self.context
            for fact in self.facts(entity_id)
            if fact.subject in position and fact.object in position
        }
        return sorted(
            found.values(),
            key=lambda f: (_RELATION_ORDER[f.relation], position[f.subject], position[f.object]),
        )

    def add_owners(self) -> dict[str, str]:
        """Add the class of each method and test method in the context; return the
        owning class id by member id.

        The text renders a member as ``Owner.member()``, which names the owner, so the
        owner must be an entity of the context too (beyond the limit: at most one per
        member).
        """
        members = [
            entity_id
            for entity_id, entity in self.context.items()
            if entity.kind in (EntityKind.METHOD, EntityKind.TEST)
        ]
        self.fetch_facts(members)
        definers = {
            member: [
                fact.subject
                for fact in self.facts(member)
                if fact.relation is RelationKind.DEFINES and fact.object == member
            ]
            for member in members
        }
        outside = self.store.get_entities(
            {owner for found in definers.values() for owner in found} - self.context.keys()
        )
        owners: dict[str, str] = {}
        for member, found in definers.items():
            for owner_id in found:
                owner = self.context.get(owner_id) or outside.get(owner_id)
                if owner is not None and owner.kind is EntityKind.CLASS:
                    owners[member] = owner.id
                    self.context.setdefault(owner.id, owner)
        return owners
