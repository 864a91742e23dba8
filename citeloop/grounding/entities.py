"""Read the entities of a context given in any accepted shape (duck-typed).

The validation library does not import ``citeloop.knowledge``; an ``InjectedContext``
and its ``ContextEntity`` objects are recognised by their attributes instead.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from citeloop.grounding.context_text import ParsedEntity, Place, parse_context_entities
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
abstract class check is most of what reading an item costs)."""


@dataclass(frozen=True, slots=True)
class _Item:
    """The fields of one entity item that validation reads, each ``None`` when the
    item lacks it (a mapping's keys, an object's attributes); ``kind`` as text."""

    id: Any
    kind: str
    name: Any
    tier: Any
    path: Any
    line: Any
    end_line: Any


def _read(item: Any) -> _Item:
    """The :class:`_Item` of an entity object or mapping, each field read once."""
    kind = type(item)
    mapping = _MAPPING_TYPES.get(kind)
    if mapping is None:
        mapping = _MAPPING_TYPES[kind] = isinstance(item, Mapping)
    if mapping:
        get = item.get
        fields = (get("id"), get("kind"), get("name"), get("tier"))
        place = (get("path"), get("line"), get("end_line"))
    else:
        fields = (
            getattr(item, "id", None),
            getattr(item, "kind", None),
            getattr(item, "name", None),
            getattr(item, "tier", None),
        )
        place = (
            getattr(item, "path", None),
            getattr(item, "line", None),
            getattr(item, "end_line", None),
        )
    entity_id, entity_kind, name, tier = fields
    text = "" if entity_kind is None else str(getattr(entity_kind, "value", entity_kind))
    return _Item(entity_id, text, name, tier, *place)


def _owner(item: _Item, classes: Collection[str]) -> str:
    """The short name of the class ``item`` is a member of, as its context line names it
    (``Owner.member``): a method's class, or the class of an attribute or test whose
    class is an entity of the context; ``""`` otherwise (a module-level definition)."""
    if not isinstance(item.id, str):
        return ""
    kind, parent = item.kind, item.id.rpartition(".")[0]
    # A method's id is its class's id and its name (``pkg.mod.Class.method``).
    if (kind == "method" and "." in parent) or (kind in _MEMBERS and parent in classes):
        return parent.rpartition(".")[2]
    return ""


def _place_of(item: _Item, owner: str) -> tuple[Place, ...]:
    path, line, end_line = item.path, item.line, item.end_line
    if not isinstance(path, str) or not path or not isinstance(line, int) or line < 1:
        return ()
    end = end_line if isinstance(end_line, int) and end_line >= line else line
    return (Place(path, line, end, owner),)


def _entity_of(given: Any, item: _Item | None, owner: str) -> ContextName:
    """The :class:`ContextName` of the entity ``given`` (a name, a :class:`ContextName`,
    or an object or mapping read as ``item``, a member of class ``owner``)."""
    if type(given) is ContextName:  # parsed before (see context_names): taken as it is
        return given
    if item is None:
        name, tier, places = given, None, ()
    else:
        name, tier, places = item.name, item.tier, _place_of(item, owner)
    if not isinstance(name, str):
        raise TypeError(
            f"context entity {given!r} has no string name; pass entities as names, "
            "objects with a `.name`, or mappings with a 'name' key"
        )
    name = normalize_text(name).strip()
    if not name:
        raise ValueError(f"context entity {given!r} has an empty name")
    if not has_word_character(name):
        # `(*)`, `->` or `--` are also Markdown and prose punctuation: every bullet or
        # arrow would count as a reference, so such a name can never be checked.
        raise ValueError(
            f"context entity {name!r} has no letter, digit or underscore, so an answer's "
            "use of it cannot be told apart from punctuation; give the entity a name with "
            "a word character (e.g. 'glob (*)') or leave it out of the context"
        )
    return ContextName(name, _tier_of(tier, name), places)


def _parsed(entity: ParsedEntity) -> ContextName:
    """A parsed context line's entity: core, at the places its lines give (as the
    context text it was parsed from reads), its name checked as any name is."""
    name = entity.name
    if not (type(name) is str and name.isascii() and name.isidentifier()):  # most are
        name = _entity_of(name, None, "").name
    return ContextName(name, CORE, entity.places)


def _entities_of(given: Iterable[Any]) -> list[ContextName]:
    given = list(given)
    if all(type(entity) is ParsedEntity for entity in given):
        parsed = [_parsed(entity) for entity in given]
        if len({entity.name for entity in parsed}) == len(parsed):
            return parsed  # what parse_context_entities gives: as the text it parsed reads
    pairs = [
        (entity, None if isinstance(entity, str) or type(entity) is ContextName else _read(entity))
        if type(entity) is not ParsedEntity
        else (_parsed(entity), None)
        for entity in given
    ]
    # The classes of the context: an attribute or test under one is its member.
    classes = {
        item.id
        for _, item in pairs
        if item is not None and item.kind == "class" and isinstance(item.id, str)
    }
    merged: dict[str, ContextName] = {}
    owners: dict[str, dict[str, bool]] = {}  # by name: each owner, and whether core
    named: dict[str, tuple[str, ...]] = {}  # the core owners of a ContextName read before
    for entity, item in pairs:
        owner = "" if item is None else _owner(item, classes)
        read = _entity_of(entity, item, owner)
        of_name = owners.setdefault(read.name, {})
        if read.core_owners:
            named[read.name] = named.get(read.name, ()) + read.core_owners
        else:
            of_name[owner] = of_name.get(owner, False) or read.tier == CORE
        seen = merged.get(read.name)
        if seen is not None:
            # The same name twice: core wins, so duplicates never relax what must be
            # cited; the places of both are kept.
            tier = CORE if CORE in (seen.tier, read.tier) else seen.tier
            read = ContextName(read.name, tier, seen.places + read.places)
        merged[read.name] = read
    return [
        _with_core_owners(read, owners[read.name], named.get(read.name, ()))
        for read in merged.values()
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


def standalone_names(entities: Iterable[Any]) -> frozenset[str]:
    """The names of the classes and module-level functions among a context's
    ``entities`` (objects or mappings with ``id``, ``kind`` and ``name``): a bare name an
    answer writes may mean one of them, though it also writes a member of that name
    (``JavascriptKeyboardEvent``, the class, beside ``EventNamespace.JavascriptKeyboardEvent``,
    an attribute that holds it; :func:`~citeloop.grounding.mentions.qualified`)."""
    items = [_read(entity) for entity in entities if not isinstance(entity, str)]
    classes = {item.id for item in items if item.kind == "class" and isinstance(item.id, str)}
    return frozenset(
        item.name
        for item in items
        if isinstance(item.name, str)
        and item.kind in ("class", "function")
        and not _owner(item, classes)
    )


def namesake_choices(
    core: frozenset[str], members: Mapping[str, str], prompt: str | Sequence[str]
) -> list[frozenset[str]]:
    """The groups of core members (``Owner.name``, of ``members``) that one name the
    task writes bare chose among namesakes, each with that name: ``fit`` in backticks
    made three classes' ``fit`` core, of which the answer means one (a played answer
    had been made to cite a topic model's and a PCA's ``fit`` in a question about label
    propagation), and any of the context's entities of that name is the answer's
    choice as well ("the `deconstruct()` method" made ``RenameField.deconstruct`` core,
    and a played answer about ``Field.deconstruct``, the one meant, had been failed for
    not citing it). Not a group of which the task writes a member by its class
    (``A.fit`` and ``B.fit``: both asked). The task is ``prompt``, or its first text."""
    task = prompt if isinstance(prompt, str) else (prompt[0] if prompt else "")
    written = {mention.name for mention in code_mentions(task)}
    by_name: dict[str, set[str]] = {}
    for requirement in core:
        if (name := members.get(requirement)) is not None:
            by_name.setdefault(name, set()).add(requirement)
    return [
        frozenset({*group, name})
        for name, group in sorted(by_name.items())
        if name in written and not group & written
    ]
