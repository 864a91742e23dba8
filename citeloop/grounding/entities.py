"""Read the entities of a context given in any accepted shape (duck-typed).

The validation library does not import ``citeloop.knowledge``; an ``InjectedContext``
and its ``ContextEntity`` objects are recognised by their attributes instead.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from citeloop.grounding.context_text import Place, parse_context_entities
from citeloop.grounding.matching import has_word_character
from citeloop.grounding.mentions import code_mentions
from citeloop.text import normalize_text

CORE = "core"
SUPPORTING = "supporting"
_TIERS = (CORE, SUPPORTING)
_MEMBERS = frozenset({"attribute", "test"})
"""Kinds of entity that are a class's member when their id's parent is a class's id."""

_CONTEXT_SHAPES = (
    "a context text (str), an object with an `.entities` attribute (e.g. "
    "InjectedContext), a mapping with an 'entities' key, or a sequence of entity "
    "names, entity objects with `.name`, or mappings with a 'name' key"
)


@dataclass(frozen=True, slots=True)
class ContextName:
    """One entity of a context, reduced to what validation needs.

    Attributes:
        name: The name an answer references and cites (NFC-normalized, stripped).
        tier: ``"core"`` (must be cited) or ``"supporting"`` (may be cited).
        places: Where entities of this name are defined (path and line span), as far as
            the context says; used to check the locations citations give.
        core_owners: When entities of several classes (or a class and a module) share
            the name, the short names of the classes whose member of that name is core
            (``""`` for a core module-level one), each a requirement of its own
            (``Group.invoke`` and ``Context.invoke``, not ``invoke`` once); else ``()``.
    """

    name: str
    tier: str = CORE
    places: tuple[Place, ...] = ()
    core_owners: tuple[str, ...] = ()

    @property
    def private(self) -> bool:
        """``True`` when the last dotted part starts with ``_`` (Python convention)."""
        return self.name.rsplit(".", 1)[-1].startswith("_")


def _tier_of(value: Any, name: str) -> str:
    if value is None:
        return CORE
    # Tier enums (citeloop.knowledge.Tier or a user's own) compare by their value.
    tier = str(getattr(value, "value", value)).strip().lower()
    if tier not in _TIERS:
        raise ValueError(f"entity {name!r} has tier {value!r}; expected one of {_TIERS}")
    return tier


_MAPPING_TYPES: dict[type, bool] = {}
"""Whether each type of entity item seen is a mapping (read once per type: the
abstract class check is most of what reading a field costs)."""


def _field(item: Any, key: str) -> Any:
    """``item[key]`` of a mapping, ``item.key`` of an object (``None`` when missing)."""
    kind = type(item)
    mapping = _MAPPING_TYPES.get(kind)
    if mapping is None:
        mapping = _MAPPING_TYPES[kind] = isinstance(item, Mapping)
    if mapping:
        return item.get(key)
    return None if isinstance(item, str) else getattr(item, key, None)


def _kind(item: Any) -> str:
    kind = _field(item, "kind")
    return "" if kind is None else str(getattr(kind, "value", kind))


def _owner(item: Any, classes: Collection[str]) -> str:
    """The short name of the class ``item`` is a member of, as its context line names it
    (``Owner.member``): a method's class, or the class of an attribute or test whose
    class is an entity of the context; ``""`` otherwise (a module-level definition)."""
    entity_id = _field(item, "id")
    if not isinstance(entity_id, str):
        return ""
    kind, parent = _kind(item), entity_id.rpartition(".")[0]
    # A method's id is its class's id and its name (``pkg.mod.Class.method``).
    if (kind == "method" and "." in parent) or (kind in _MEMBERS and parent in classes):
        return parent.rpartition(".")[2]
    return ""


def _place_of(item: Any, owner: str) -> tuple[Place, ...]:
    path, line, end_line = _field(item, "path"), _field(item, "line"), _field(item, "end_line")
    if not isinstance(path, str) or not path or not isinstance(line, int) or line < 1:
        return ()
    end = end_line if isinstance(end_line, int) and end_line >= line else line
    return (Place(path, line, end, owner),)


def _entity_of(item: Any, classes: Collection[str] = (), owner: str | None = None) -> ContextName:
    """The :class:`ContextName` of ``item``; ``owner``: its :func:`_owner`, when read."""
    if type(item) is ContextName:  # parsed before (see context_names): taken as it is
        return item
    if isinstance(item, str):
        name, tier, places = item, None, ()
    else:
        owner = _owner(item, classes) if owner is None else owner
        name, tier, places = _field(item, "name"), _field(item, "tier"), _place_of(item, owner)
    if not isinstance(name, str):
        raise TypeError(
            f"context entity {item!r} has no string name; pass entities as names, "
            "objects with a `.name`, or mappings with a 'name' key"
        )
    name = normalize_text(name).strip()
    if not name:
        raise ValueError(f"context entity {item!r} has an empty name")
    if not has_word_character(name):
        # `(*)`, `->` or `--` are also Markdown and prose punctuation: every bullet or
        # arrow would count as a reference, so such a name can never be checked.
        raise ValueError(
            f"context entity {name!r} has no letter, digit or underscore, so an answer's "
            "use of it cannot be told apart from punctuation; give the entity a name with "
            "a word character (e.g. 'glob (*)') or leave it out of the context"
        )
    return ContextName(name, _tier_of(tier, name), places)


def _entities_of(items: Iterable[Any]) -> list[ContextName]:
    items = list(items)
    # The classes of the context: an attribute or test under one is its member.
    ids = (_field(item, "id") for item in items if _kind(item) == "class")
    classes = {entity_id for entity_id in ids if isinstance(entity_id, str)}
    merged: dict[str, ContextName] = {}
    owners: dict[str, dict[str, bool]] = {}  # by name: each owner, and whether core
    given: dict[str, tuple[str, ...]] = {}  # the core owners of a ContextName read before
    for item in items:
        owner = "" if isinstance(item, str | ContextName) else _owner(item, classes)
        entity = _entity_of(item, classes, owner)
        of_name = owners.setdefault(entity.name, {})
        if entity.core_owners:
            given[entity.name] = given.get(entity.name, ()) + entity.core_owners
        else:
            of_name[owner] = of_name.get(owner, False) or entity.tier == CORE
        seen = merged.get(entity.name)
        if seen is not None:
            # The same name twice: core wins, so duplicates never relax what must be
            # cited; the places of both are kept.
            tier = CORE if CORE in (seen.tier, entity.tier) else seen.tier
            entity = ContextName(entity.name, tier, seen.places + entity.places)
        merged[entity.name] = entity
    return [
        _with_core_owners(entity, owners[entity.name], given.get(entity.name, ()))
        for entity in merged.values()
    ]


def _with_core_owners(
    entity: ContextName, owners: Mapping[str, bool], given: tuple[str, ...]
) -> ContextName:
    """``entity`` with its :attr:`~ContextName.core_owners`: ``given`` (read before),
    and, when entities of more than one owner share its name and one that is a class's
    member is core, the owners of the core ones."""
    core = tuple(owner for owner, is_core in owners.items() if is_core)
    if len(owners) < 2 or not any(core):
        core = ()
    core = tuple(dict.fromkeys([*given, *core]))
    return ContextName(entity.name, entity.tier, entity.places, core) if core else entity


def context_names(context: Any) -> list[ContextName]:
    """The entities of ``context``, without duplicates, in order of first appearance.

    Args:
        context: Context text in the documented format (every parsed entity is core);
            an object with an ``.entities`` attribute (``InjectedContext``); a mapping
            with an ``"entities"`` key; or an iterable of names (core), objects with
            ``.name`` and optional ``.tier``, or mappings with ``"name"`` and optional
            ``"tier"``. Tiers compare as strings: ``"core"`` or ``"supporting"``. An
            object or mapping may give ``path``, ``line`` and ``end_line`` (its place).
            :class:`ContextName` items (what this function returns, kept to validate
            several answers against one context) are taken as they are.

    Returns:
        One :class:`ContextName` per distinct name.

    Raises:
        TypeError: ``context`` has none of the accepted shapes, or an entity has no
            string name.
        ValueError: An entity has an empty name, a name without any word character
            (letter, digit or ``_``; names such as ``C++`` or ``.env`` are fine), or an
            unknown tier.
    """
    if isinstance(context, str):
        parsed = parse_context_entities(normalize_text(context))
        return [ContextName(e.name, CORE, e.places) for e in parsed]
    if isinstance(context, Mapping):
        if "entities" not in context:
            raise TypeError(f"context mapping has no 'entities' key; expected {_CONTEXT_SHAPES}")
        items = context["entities"]
    else:
        items = getattr(context, "entities", context)
    if isinstance(items, str | bytes | bytearray) or not isinstance(items, Iterable):
        raise TypeError(f"context of type {type(items).__name__}; expected {_CONTEXT_SHAPES}")
    return _entities_of(items)


def namesake_choices(
    core: frozenset[str], members: Mapping[str, str], prompt: str | Sequence[str]
) -> list[frozenset[str]]:
    """The groups of core members (``Owner.name``, of ``members``) that one name the
    task writes bare chose among namesakes: ``fit`` in backticks made three classes'
    ``fit`` core, of which the answer means one (a played answer had been made to cite
    a topic model's and a PCA's ``fit`` in a question about label propagation). Not a
    group of which the task writes a member by its class (``A.fit`` and ``B.fit``: both
    asked). The task is ``prompt``, or its first text."""
    task = prompt if isinstance(prompt, str) else (prompt[0] if prompt else "")
    written = {mention.name for mention in code_mentions(task)}
    by_name: dict[str, set[str]] = {}
    for requirement in core:
        if (name := members.get(requirement)) is not None:
            by_name.setdefault(name, set()).add(requirement)
    return [
        frozenset(group)
        for name, group in sorted(by_name.items())
        if len(group) > 1 and name in written and not group & written
    ]
