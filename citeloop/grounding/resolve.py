"""Resolve what an answer cites to the entities of its context: a cited item (``Name``,
``pkg.Name``, ``Name()``, an emphasized name) to the names it means, and the rank of a
candidate citation section (one citing an entity by name wins).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from citeloop.grounding.citation_section import (
    CitationSection,
)
from citeloop.grounding.context_text import Place
from citeloop.grounding.entities import ContextName
from citeloop.grounding.matching import NameScanner, without_underscore_emphasis
from citeloop.grounding.substance import location_valid

_RECEIVERS = frozenset({"self", "cls"})


def resolve_name(
    item: str, names: Collection[str], scanner: NameScanner
) -> tuple[set[str], str | None]:
    if item in names:
        return {item}, None
    if not any(char.isspace() for char in item):
        # `pkg.mod.Name` and `Class.method` cite the entity named by their last part.
        last = item.rsplit(".", 1)[-1] or item
        return ({last}, None) if last in names else (set(), last)
    # A phrase ("the GraphStore protocol") cites the entities it mentions.
    mentioned = scanner.scan(item)
    return (set(mentioned), None) if mentioned else (set(), item)


def resolve_citation(
    item: str, names: Collection[str], scanner: NameScanner
) -> tuple[set[str], str | None]:
    """Entities cited by one citation item, or the invalid name it cites (as written)."""
    cited, wrong = resolve_name(item, names, scanner)
    plain = without_underscore_emphasis(item) if wrong is not None else None
    if plain is not None:
        # `__GraphStore__` is bold GraphStore unless the context names `__GraphStore__`.
        emphasized, _ = resolve_name(plain, names, scanner)
        if emphasized:
            return emphasized, None
    return cited, wrong


def section_rank(section: CitationSection, names: Collection[str], scanner: NameScanner) -> int:
    """2: cites a context entity by name; 1: only mentions one in prose; 0: neither."""
    rank = 0
    for item in section.items + section.group_labels:
        if resolve_citation(item, names, scanner)[0]:
            if not any(char.isspace() for char in item):
                return 2
            rank = 1
    return rank


def check_locations(
    section: CitationSection | None,
    entities: Sequence[ContextName],
    names: Collection[str],
    scanner: NameScanner,
    cited: Collection[str],
    *,
    require: bool,
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(valid locations, invalid locations, cited names without one when ``require``,
    ``(name, location)`` of cited members the context does not show): each
    ``path:line`` of the citation section checked against the cited entity's places
    (:func:`citeloop.grounding.substance.location_valid`).

    A location cited as ``Owner.member`` where the context shows ``member`` only under
    other classes (``Pregel.validate`` for ``StateGraph.validate``) cites an entity the
    context does not have, wherever its lines are: it is returned last, not as an
    invalid location. When the context has ``Owner.member``, the location is checked
    against it alone."""
    if section is None or not (section.locations or require):
        return (), (), tuple(sorted(cited)) if section and require else (), ()
    places = {entity.name: entity.places for entity in entities}
    every_place = [place for found in places.values() for place in found]
    valid: list[str] = []
    wrong: list[str] = []
    absent: list[tuple[str, str]] = []
    located: set[str] = set()
    for location in section.locations:
        if location.name is None:
            candidates = every_place
        else:
            targets, _ = resolve_citation(location.name, names, scanner)
            if not targets:
                continue  # an invalid citation already; its place cannot be judged
            if not any(places[target] for target in targets):
                continue  # the context gives no place to check it against
            candidates = [place for target in targets for place in places[target]]
            # `Owner.member` is checked against that class's member when the context
            # has it, not against another class's member of the same name; when the
            # context shows the name only under other classes, it cites no entity of it.
            owner = _owner_written(location.name)
            if own := [place for place in candidates if place.owner == owner]:
                candidates = own
            elif _other_owners(location.name, candidates):
                absent.append((location.name, location.text))
                continue
            located |= targets
        ok = location_valid(location.path, location.start, location.end, candidates)
        (valid if ok else wrong).append(location.text)
    unlocated = sorted(set(cited) - located) if require else []
    return tuple(valid), tuple(wrong), tuple(unlocated), tuple(absent)


def _owner_written(name: str) -> str:
    """The class ``name`` writes a member of: ``Group`` for ``Group.invoke`` and
    ``click.core.Group.invoke``; ``""`` for a bare name, ``self.x`` or ``cls.x``."""
    owner = name.removesuffix("()").rpartition(".")[0].rpartition(".")[2]
    return "" if owner in _RECEIVERS else owner


def _other_owners(name: str, places: Sequence[Place]) -> bool:
    """Whether ``name`` is ``Owner.member`` and every place of it is a member line of
    another class (``self.member`` and ``cls.member`` name no class)."""
    owner = _owner_written(name)
    return bool(owner) and all(place.owner and place.owner != owner for place in places)


def cited_owners(
    section: CitationSection | None,
    entities: Sequence[ContextName],
    names: Collection[str],
    scanner: NameScanner,
) -> set[str]:
    """The classes of the context the citation section cites through a member it writes
    under them: ``StateGraph.compile (state.py:1177)`` names ``StateGraph``, and its
    location lies inside that class, so it cites the class as well as the method (a
    played answer about ``StateGraph.compile`` that cited ``StateGraph.compile``,
    ``StateGraph.add_node`` and ``StateGraph.nodes`` had been rejected for not citing
    ``StateGraph``). The member must be one the context shows under that class; the
    item's location is not checked here (a location outside the member fails the
    ``locations`` rule)."""
    if section is None:
        return set()
    members_of = {
        (place.owner, entity.name) for entity in entities for place in entity.places if place.owner
    }
    found = set()
    # A group label (an item with sub-items) cites as an item does.
    for item in section.items + section.group_labels:
        owner = _owner_written(item)
        if owner and owner in names and owner not in found:
            targets, _ = resolve_citation(item, names, scanner)
            if any((owner, target) in members_of for target in targets):
                found.add(owner)
    return found


def cited_members(
    section: CitationSection | None,
    members: Mapping[str, str],
    entities: Sequence[ContextName],
    names: Collection[str],
    scanner: NameScanner,
) -> set[str]:
    """Which of ``members`` (``Owner.name`` requirements, by their name: see
    :attr:`~citeloop.grounding.entities.ContextName.core_owners`) the citation section
    cites: an item that writes the owner (``Group.invoke``), or one whose location lies
    inside that class's member (``invoke (core.py:2020)``)."""
    if section is None or not members:
        return set()
    found = set()
    for item in section.items + section.group_labels:  # a group label cites as an item
        targets, _ = resolve_citation(item, names, scanner)
        owner = _owner_written(item)
        found.update(key for target in targets if (key := f"{owner}.{target}") in members)
    shared = set(members.values())
    places = {entity.name: entity.places for entity in entities if entity.name in shared}
    for location in section.locations:
        if location.name is None:
            continue
        written = _owner_written(location.name)
        for target in resolve_citation(location.name, names, scanner)[0] & places.keys():
            for place in places[target]:
                key = f"{place.owner}.{target}"
                if written not in ("", place.owner):
                    continue  # `Command.invoke (core.py:50)` cites no `Group.invoke`
                if key in members and location_valid(
                    location.path, location.start, location.end, [place]
                ):
                    found.add(key)
    return found
