"""The entities a task names as code: the core of its context.

Each mention (:func:`~citeloop.grounding.mentions.code_mentions`) is looked up by name
(ids like ``REQ-1`` included), a dotted one by the longest dotted suffix of an entity id
(``StateGraph.compile`` names ``...StateGraph.compile``) and its owner (``StateGraph``).
When a name is ambiguous, the candidate defined in (at any depth: the ``fields`` of the
``Meta`` of a form class named), or else beside, an entity that an
unambiguous mention names wins (``add_edge`` next to ``StateGraph``; beside: in its
module, or in its file: the ``inverse_transform`` of a test file's ``Transf`` beside
the ``NoInvTransf`` it defines, not a library class's; or in a class a named class
inherits from, ``bases``: the ``predict_proba`` ``NuSVC`` inherits), then the one whose
class bears, or whose own code calls or names, more of the other code the task writes
(:func:`quoted_code`: the ``get_queryset`` that calls the quoted ``queryset.all()``),
then the one the task's other words point at: its class or module holds what they
find (the ``fit`` of the class whose ``label_distributions_`` and ``predict_proba`` a
question about "label distribution" finds, not a gallery script's); then, unless the
task is about tests, definitions outside test code and example scripts
(:func:`~citeloop.knowledge.model.is_test_path`,
:func:`~citeloop.knowledge.model.is_example_path`: a ``ModelForm`` a test defines for
itself is not the one a task names), then public ones (classes, then
functions, methods, attributes, tests), at most :data:`MAX_PER_NAME` per name; when
more than that rank alike, the subclasses that keep their base's name are left out
(:func:`family_heads`).
"""

from __future__ import annotations

import builtins
import re
import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from citeloop.grounding.mentions import is_code_shaped
from citeloop.knowledge.model import (
    Entity,
    EntityKind,
    RelationKind,
    is_example_path,
    is_test_path,
)

if TYPE_CHECKING:
    from citeloop.knowledge.store import BatchedGraphStore

MAX_QUALIFIED_PARTS = 8
"""Trailing parts of a dotted mention matched against qualified ids (``a.b.C.m``);
bounds the work per mention, so a pathological ``a.a.a...`` stays linear."""

MAX_PER_NAME = 3
"""Entities one ambiguous name may contribute."""

RANK = {
    EntityKind.CLASS: 0,
    EntityKind.FUNCTION: 1,
    EntityKind.METHOD: 2,
    EntityKind.ATTRIBUTE: 3,
    EntityKind.REQUIREMENT: 4,
    EntityKind.DECISION: 5,
    EntityKind.TEST: 6,
}
"""Kinds that may enter a context, ranked for choosing among same-named entities. Modules
and generic facts have no line in the text format, so they never enter a context."""


def lookup_names(mention: str) -> set[str]:
    """Every entity name :func:`named_groups` may look ``mention`` up by."""
    names = {mention}
    dotted = [part for part in mention.split(".") if part]
    if dotted:
        names.update((dotted[0], dotted[-1], dotted[-2 if len(dotted) > 1 else -1]))
    return names


def entities_by_name(reads: BatchedGraphStore, mentions: Iterable[str]) -> dict[str, list[Entity]]:
    """The entities a context may hold (resolved, of a :data:`RANK` kind) of every name
    :func:`lookup_names` gives for ``mentions``, by name, in the store's order: the
    ``named`` of :func:`named_groups` (a name the graph lacks is left out)."""
    known = reads.names()
    wanted = {name for mention in mentions for name in lookup_names(mention) if name in known}
    if not wanted:
        return {}
    return {
        name: [entity for entity in found if entity.resolved and entity.kind in RANK]
        for name, found in reads.entities_named_many(wanted).items()
    }


def named_groups(
    mention: str,
    named: Mapping[str, list[Entity]],
    bare: Callable[[list[Entity]], list[Entity]] | None = None,
) -> list[list[Entity]]:
    """Candidate groups one mention names, one group per name (see the module docstring).

    A dotted mention whose tail matches an entity also names that entity's owner, unless
    it starts with a module of Python's standard library that the entity is not
    defined in (``pathlib.Path.resolve`` names no project's ``Path.resolve``). One
    that matches none names the entities of its last part defined under its leading
    parts, in order (a package's re-export: ``click.echo`` names
    ``click.utils.echo``), its first part and, when there are none of those and its
    last part is written as code itself (``add_node``, ``StateGraph``), its last part:
    ``os.path`` does not make an entity named ``path`` core. Its first part, written
    bare, names what ``bare`` keeps of the entities so named (a task's: those defined
    at module level, a name code can write bare: ``pytester.getitem()`` names the
    fixture ``pytester``, but
    ``estimators.classes_[1]`` no class's ``estimators`` attribute). A bare dunder
    (``__init__``) names nothing: every class has one.

    Args:
        mention: A name written as code (``"StateGraph.compile"``, ``"REQ-1"``).
        named: Entities by name, for the names :func:`lookup_names` gives.
        bare: A filter of the entities an unmatched dotted mention's first part names
            (``None``: all of them).
    """
    if "." not in mention and mention.startswith("__") and mention.endswith("__"):
        return []  # a bare dunder (``__init__``) names a protocol every class has
    exact = named.get(mention, [])
    if exact or "." not in mention:
        return [exact] if exact else []
    dotted = [part for part in mention.split(".") if part]
    if not dotted:  # only dots: no name
        return []
    outside = dotted[0] in sys.stdlib_module_names
    for size in range(min(len(dotted), MAX_QUALIFIED_PARTS), 1, -1):
        suffix = ".".join(dotted[-size:])
        leading = dotted[:-size] if outside and size < len(dotted) else None
        matches = [
            entity
            for entity in named.get(dotted[-1], [])
            if (entity.id == suffix or entity.id.endswith("." + suffix))
            and (leading is None or _within(leading, entity.id))
        ]
        if matches:
            owners = {owner_id(entity.id) for entity in matches}
            found = [e for e in named.get(dotted[-2], []) if e.id in owners]
            return [matches, found] if found else [matches]
    qualifier = dotted[:-1]
    exported = [e for e in named.get(dotted[-1], []) if _within(qualifier, e.id)]
    first = named.get(dotted[0], [])
    groups = [exported, bare(first) if bare is not None and first else first]
    if is_code_shaped(dotted[-1]) and not exported:
        groups.append(named.get(dotted[-1], []))
    return [group for group in groups if group]


def _within(qualifier: Sequence[str], entity_id: str) -> bool:
    """Whether ``qualifier`` (the leading parts of a dotted mention) are, in order,
    parts of the packages, modules and classes ``entity_id`` is defined in: a name
    written by the package that re-exports it (``click.echo`` for
    ``click.utils.echo``), not by a library outside (``pathlib.Path.resolve`` is no
    project's ``Path.resolve``). It stops at the first part not found: at most as many
    steps as ``entity_id`` has parts."""
    parts = iter(entity_id.split(".")[:-1])
    return all(any(part == wanted for part in parts) for wanted in qualifier)


_WORD = re.compile(r"\w+")
"""A word of a signature (its bases name classes by word)."""


def family_heads(reads: BatchedGraphStore, group: list[Entity]) -> list[Entity]:
    """Of same-named entities that rank alike (:func:`choose`), those that inherit from
    none of the others: a subclass that keeps its base's name (``class
    Migration(migrations.Migration)`` in each of 200 migration files) is one of its
    base's family, and the name means the base. Only the facts of a class whose
    signature (its bases) holds its own name are read, not a base's (a hub's
    thousands). The group as given when that leaves none."""
    members = {entity.id for entity in group if entity.kind is EntityKind.CLASS}
    maybe = [
        entity.id
        for entity in group
        if entity.kind is EntityKind.CLASS and entity.name in _WORD.findall(entity.signature)
    ]
    if not maybe:
        return group
    derived = {
        fact.subject
        for facts in reads.facts_of_many(maybe).values()
        for fact in facts
        if fact.relation is RelationKind.INHERITS
        and fact.subject in members
        and fact.object in members
        and fact.subject != fact.object
    }
    return [entity for entity in group if entity.id not in derived] or group


def owner_id(entity_id: str) -> str:
    """The id of what defines ``entity_id``: its class or module (``a.B.m`` -> ``a.B``)."""
    return entity_id.rpartition(".")[0]


def near_context(context: Collection[Entity]) -> Callable[[list[Entity]], list[Entity]]:
    """A filter of the entities one name an answer used names (``add_edge`` of two
    classes): those the context the answer saw holds, or defines in a file it showed, or
    as a member of a class it holds (or shows a member of). Linear in the context, once;
    then in each group.

    Args:
        context: The entities of the context the answer saw.
    """
    ids = {entity.id for entity in context}
    ids |= {owner_id(entity_id) for entity_id in ids} - {""}
    paths = {entity.path for entity in context if entity.path}

    def near(group: list[Entity]) -> list[Entity]:
        return [
            e for e in group if e.id in ids or owner_id(e.id) in ids or (e.path and e.path in paths)
        ]

    return near


def nearest_package(
    context: Collection[Entity], linked: Callable[[], Collection[str]] | None = None
) -> Callable[[list[Entity]], list[Entity]]:
    """A filter of the entities one name an answer used names when none of them is near
    the context (:func:`near_context`): of several, those a fact ties to the context's
    entities (``linked``: the ids, read when first needed; the ``UnitsError`` that
    ``Quantity.__float__`` catches, not the coordinates package's namesake, which a
    played widening had brought too); else those defined deepest in the packages the
    context's entities are, by the most leading parts of the id they share with one of
    them (``astropy.cosmology._src.io.builtin.table.from_table`` beside a context in
    ``astropy.cosmology``, not ``astropy.io.votable.tree.TableElement.from_table``);
    all of them when none shares more than the top package. Linear in the context's
    ids' parts, once; then in each group's."""
    prefixes = set()
    for entity in context:
        parts = entity.id.split(".")
        prefixes.update(tuple(parts[:end]) for end in range(1, len(parts)))

    def shared(entity: Entity) -> int:
        parts = entity.id.split(".")
        return next(
            (end for end in range(len(parts) - 1, 0, -1) if tuple(parts[:end]) in prefixes), 0
        )

    def nearest(group: list[Entity]) -> list[Entity]:
        if linked is not None and len(group) > 1:
            ids = linked()
            if tied := [entity for entity in group if entity.id in ids]:
                return tied
        depth = {entity.id: shared(entity) for entity in group}
        deepest = max(depth.values(), default=0)
        return group if deepest < 2 else [e for e in group if depth[e.id] == deepest]

    return nearest


def linked_ids(reads: BatchedGraphStore, entities: Collection[Entity]) -> frozenset[str]:
    """The ids of the entities a fact ties to ``entities`` (either end), theirs too."""
    facts = reads.facts_of_many([entity.id for entity in entities])
    return frozenset(
        end for found in facts.values() for f in found for end in (f.subject, f.object)
    )


def is_plain_word(name: str) -> bool:
    """Whether a name is one lower-case word (``branch``, ``end``, ``self``) or a bare
    dunder (``__init__``): in an answer, most often a parameter or variable of the code
    it shows, or the method of a class it shows, not an entity elsewhere that happens to
    share the name."""
    if len(name) > 4 and name.startswith("__") and name.endswith("__"):
        name = name[2:-2].replace("_", "")  # a dunder's words
    return name.isalnum() and name.islower()


def hit_weights(hits: Iterable[tuple[Entity, float]]) -> dict[str, float]:
    """The scores of lexical ``hits`` (entity, score), each summed into its entity's id
    and its owner's (class or module): what :func:`namesake_hints` reads."""
    held: dict[str, float] = {}
    for entity, score in hits:
        for entity_id in (entity.id, owner_id(entity.id)):
            held[entity_id] = held.get(entity_id, 0.0) + score
    return held


def namesake_hints(group: Sequence[Entity], held: Mapping[str, float]) -> dict[str, float]:
    """How much a task's other words point at each of the same-named entities of
    ``group``, by id (0 to 1, relative to the best; absent: not at all): the scores of
    what those words find in its class or module, or of itself (``held``:
    :func:`hit_weights`), summed. The ``fit`` of the class whose ``predict_proba`` and
    ``label_distributions_`` a question about "label distribution changes" finds, not
    a gallery script's ``fit``."""
    holds = {e.id: held.get(e.id, 0.0) + held.get(owner_id(e.id), 0.0) for e in group}
    best = max(holds.values(), default=0.0)
    return {entity_id: value / best for entity_id, value in holds.items() if value}


MAX_CALLERS_READ = 256
"""Same-named entities of one mention whose calls :func:`quoted_code` reads, at most (a
name defined more often, such as ``__init__``, is told apart without them)."""

QUOTED_RELATIONS = frozenset({RelationKind.CALLS, RelationKind.REFERENCES})
"""The facts of an entity :func:`quoted_code` reads: what its code calls or names."""

_BUILTINS = frozenset(dir(builtins))


def quoted_code(
    reads: BatchedGraphStore, groups: Sequence[list[Entity]], mentions: Sequence[str]
) -> dict[str, int]:
    """How many of the other names a task writes as code each same-named entity's class
    bears or its own code calls or names, by id (absent: none): "the conditional
    invocation of `queryset.all()` versus `self.model._default_manager.all()` in
    `get_queryset`" means the ``get_queryset`` (of 66) whose body calls
    ``queryset.all`` and ``model._default_manager.all``, not a test manager's whose
    class name holds "ordered"; "`CanvasFrame` objects within `MyApp`'s `OnInit`" the
    ``MyApp.OnInit`` that calls ``CanvasFrame``, of a dozen ``OnInit``.

    A name (``self.`` or ``cls.`` dropped) is matched by a callee's id or unresolved
    call chain that is it or ends with ``.`` and it, each name once; the group's own
    name, and a builtin's name alone (``isinstance``), match nothing. The calls of
    groups of more than :data:`MAX_CALLERS_READ` are not read; one read for all the
    others; then linear in the callees read (times the numbers of parts the names
    have: only endings of those many parts are made, not every ending of a chain of
    thousands of parts).

    Args:
        reads: The graph's reads.
        groups: The groups of same-named candidates (one per ambiguous mention).
        mentions: The names the task writes as code.
    """
    groups = [group for group in groups if len(group) > 1]
    quoted = [name for name in map(_without_receiver, mentions) if name]
    if not groups or not quoted:
        return {}
    read = [entity.id for group in groups if len(group) <= MAX_CALLERS_READ for entity in group]
    facts = reads.facts_of_many(read) if read else {}
    sizes = sorted({name.count(".") + 1 for name in quoted})
    counts: dict[str, int] = {}
    for group in groups:
        own = group[0].name
        others = {
            name
            for name in quoted
            if name.rpartition(".")[2] != own and not ("." not in name and name in _BUILTINS)
        }
        for entity in group:
            # Its class's name, and each dotted ending of what its code calls or names
            # of as many parts as a name has.
            names = {owner_id(entity.id).rpartition(".")[2]}
            for fact in facts.get(entity.id, ()):
                if fact.subject == entity.id and fact.relation in QUOTED_RELATIONS:
                    parts = fact.object.removeprefix("?").split(".")
                    names.update(".".join(parts[-size:]) for size in sizes if size <= len(parts))
            if found := len(others & names):
                counts[entity.id] = found
    return counts


def _without_receiver(name: str) -> str:
    head, dot, rest = name.partition(".")
    return rest if dot and head in ("self", "cls") else name


HINT_SHARE = 0.5
"""Of the namesakes the task's other words point at, those with at least this share of
the best one's :func:`namesake_hints` are chosen (at most :data:`MAX_PER_NAME`)."""


_FILE = "\x00"
"""Marks a file's path among the anchors of :func:`choose` (no id starts with it)."""


def _key(
    entity: Entity,
    anchors: tuple[Collection[str], Collection[str]],
    library: bool,
    hints: Mapping[str, float],
    quoted: Mapping[str, int],
) -> tuple[int, int, bool, bool, bool, int]:
    return (
        _placement(entity, *anchors),
        -quoted.get(entity.id, 0),
        not _hint(entity, hints),
        library and (is_test_path(entity.path) or is_example_path(entity.path)),
        entity.name.startswith("_"),
        RANK[entity.kind],
    )


def _placement(entity: Entity, inside: Collection[str], beside: Collection[str]) -> int:
    """0 for an entity defined inside one of ``inside`` (at any depth: the
    ``Meta.fields`` of the ``Meta`` of a named form class, not another form's), 1 for
    one beside one of ``beside`` (its owner, or its file, ``_FILE`` + path), else 2."""
    owner = at = owner_id(entity.id)
    while at:
        if at in inside:
            return 0
        at = owner_id(at)
    return 1 if owner in beside or _FILE + (entity.path or "") in beside else 2


def _hint(entity: Entity, hints: Mapping[str, float]) -> float:
    return hints.get(entity.id, 0.0)


def choose(
    groups: Sequence[list[Entity]],
    limit: int | None = None,
    library: bool = True,
    heads: Callable[[list[Entity]], list[Entity]] | None = None,
    hints: Mapping[str, float] | None = None,
    bases: Collection[str] = (),
    quoted: Mapping[str, int] | None = None,
) -> list[Entity]:
    """The core entities of candidate groups, in order: a group with one candidate
    anchors the others; of each group, the best ranked (see the module docstring:
    ``hints``: :func:`namesake_hints` by id; ``bases``: classes whose members are
    beside a mention too, those the named classes inherit from; outside test code
    and example scripts first when ``library``), at most :data:`MAX_PER_NAME`; when
    more than that rank alike, ``heads`` (:func:`family_heads`) may leave some out
    first."""
    hints = hints or {}
    quoted = quoted or {}
    named = {group[0].id for group in groups if len(group) == 1}
    anchors = named | {owner_id(anchor) for anchor in named} | set(bases)
    anchors |= {_FILE + path for group in groups if len(group) == 1 if (path := group[0].path)}
    inside = {anchor for anchor in named | set(bases) if anchor}
    chosen: dict[str, Entity] = {}
    for group in groups:
        keys = {
            entity.id: _key(entity, (inside, anchors), library, hints, quoted) for entity in group
        }
        best = min(keys.values())
        ranked = sorted(
            (e for e in group if keys[e.id] == best), key=lambda e: (-_hint(e, hints), e.id)
        )
        if most := _hint(ranked[0], hints):  # those the words point at about as much
            ranked = [entity for entity in ranked if _hint(entity, hints) >= most * HINT_SHARE]
        if heads is not None and len(ranked) > MAX_PER_NAME:
            ranked = heads(ranked)
        for entity in ranked[:MAX_PER_NAME]:
            chosen.setdefault(entity.id, entity)
        if limit is not None and len(chosen) >= limit:
            break
    found = list(chosen.values())
    return found[:limit] if limit is not None else found
