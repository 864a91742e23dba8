"""Members listed under their class's line, or their file's heading: names and places.

A context's budget holds some 40 entity lines; a class it holds defines many more
members than that, and a file more functions and classes. After the ranked entities fill
their share of the budget, each class of the context, in rank order, lists the members
that have no line of their own, those the ranking reached first (best first), then up to
:data:`MAX_UNRANKED` others in source order, at most :data:`MAX_LISTED`, on one line
under the class's line (written in the order of their lines,
:func:`~citeloop.knowledge.render.member_list_line`); then each file of the context
lists its other classes and functions likewise, under its heading::

    # sphinx/ext/autodoc/_sentinels.py
    module members: _AllTC L63, _EmptyTC L71
    class _Sentinel  # L8-39
    _Sentinel members: __new__() L13, __setattr__() L24, __or__() L31; not shown: 2 more

while the budget's last :data:`MEMBER_LIST_SHARE` lasts (with what the lines left). A
widened context lists again first what the context it widens listed: those lists come
first, those members lead them, and neither the bound on a name's count
(:func:`fit_member_lists`) nor the room leaves them out (:attr:`MemberListSettings.before`):
they enter anyway, as the lines a widening keeps do.
Each listed member is an entity of the context (reason ``member``): an answer may name
and cite it, and a widening brings its whole line when the answer names it. The lists
are the skeleton of a file that a repository map shows (aider's repo map lists a file's
definitions, and a class's under it); a line of its own per member would cost about
five times as much. On the SWE-QA context benchmark (``benchmarks/bench_context.py``)
the class lists hold 4 to 8 points more of the reference entities than the same budget
spent on lines alone, and the file lists after them 0 to 1.3 points more again (to 2.9
on repositories the benchmark does not use).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from citeloop.knowledge.model import Entity, EntityKind
from citeloop.knowledge.neighbourhood import admissible, defined_by
from citeloop.knowledge.render import MEMBER_KINDS, MODULE_LABEL, listed_member, member_list_line
from citeloop.knowledge.seeds import MAX_PER_NAME
from citeloop.knowledge.store import BatchedGraphStore

MEMBER_LIST_SHARE = 0.25
"""Share of a context's budget kept for the member lists (what the entity lines leave of
the budget is theirs too)."""

MAX_UNRANKED = 12
"""Most members one list shows that the ranking did not reach (no score: the walk found
them from no seed), after those it did: a hub's seventy members had filled its list
(``Pregel``'s, on the demo), though at most twelve cost no recall on the SWE-QA
questions (a point less at four)."""

MAX_LISTED = 48
"""Most members one list shows: a hub the walk reaches ranks most of its members
(``Pregel``'s seventy, on the demo, most of them nothing the task is about); the room
goes to the other lists and to the lines. On the SWE-QA questions, 48 hold 0.65 points
more of the reference entities than 32 on average over the four repositories (pytest
2.2), and 0 to 1.9 more on four held out; 20 held half a point less than 32."""

REFILL_SHARE = 0.05
"""Share of the budget that the member lists may leave of their room before the lines are
filled again with it (once: a small graph's classes list a few members)."""


class MemberListSettings(NamedTuple):
    """How :func:`choose_member_lists` ranks and reads the members it may list."""

    scores: Mapping[str, float]
    """The candidates' rank scores, by id."""
    follow_tests: bool
    """Whether tests may be listed."""
    known: dict[str, list[Entity]]
    """The members read before, by owner id (:func:`owned_members`)."""
    before: Mapping[str, int] = MappingProxyType({})
    """The members the context being widened listed, by id, with their place in it:
    listed first again, in that order."""


class MemberList(NamedTuple):
    """The members one list shows (or may show), and how many it leaves out."""

    members: list[Entity]
    omitted: int


_LISTED_KINDS = {
    EntityKind.CLASS: MEMBER_KINDS,
    EntityKind.MODULE: frozenset({EntityKind.FUNCTION, EntityKind.CLASS}),
}
"""What a list shows of its owner: a class's members, a module's classes and functions."""

_COUNTED_KINDS = frozenset({EntityKind.TEST})
"""What a list counts as not shown though it never shows it: a module's test functions
(a test module's list had read as the whole file without its 13 tests)."""


def modules_of(reads: BatchedGraphStore, entities: Sequence[Entity]) -> list[Entity]:
    """The modules that define ``entities`` (a function, class or module attribute, or
    the class of a method), in the order of their first entity; one batched read of the
    ids' prefixes."""
    prefixes: list[list[str]] = []
    for entity in entities:
        if entity.kind in (EntityKind.FUNCTION, EntityKind.CLASS, EntityKind.ATTRIBUTE):
            owner = entity.id.rpartition(".")[0]
            prefixes.append([owner, owner.rpartition(".")[0]])
    wanted = list(dict.fromkeys(prefix for pair in prefixes for prefix in pair if prefix))
    read = reads.get_entities(wanted) if wanted else {}
    modules: dict[str, Entity] = {}
    for pair in prefixes:
        for prefix in pair:
            if (module := read.get(prefix)) is not None and module.kind is EntityKind.MODULE:
                modules.setdefault(prefix, module)
                break
    return list(modules.values())


def owned_members(
    reads: BatchedGraphStore,
    owners: Sequence[Entity],
    chosen: Collection[str],
    scores: Mapping[str, float],
    follow_tests: bool,
    known: dict[str, list[Entity]],
    before: Mapping[str, int] = MappingProxyType({}),
) -> dict[str, MemberList]:
    """The members of each class of ``owners`` (its methods and attributes), or module
    (its functions and classes), that a list may show, best first, by owner id: those
    without a line in the context (ids not in ``chosen``), ranked by ``scores`` (a
    candidate's rank score), then in source order, at most :data:`MAX_UNRANKED` of those
    without a score and :data:`MAX_LISTED` in all (the rest counted in ``omitted``, and
    so are those it may not show: a test function, or a test method when tests are not
    followed).
    ``known`` holds the members read before, by owner id: those of the owners it lacks
    are read (one batched read) and added to it. The members of ``before`` (listed by
    the context being widened, by their place in it) come first, in that order,
    whatever the bounds."""
    missing = [entity.id for entity in owners if entity.id not in known]
    kinds_of = {entity.id: _LISTED_KINDS[entity.kind] for entity in owners}
    if missing:
        defined = defined_by(reads, missing)
        wanted = [i for ids in defined.values() for i in ids]
        read = reads.get_entities(wanted) if wanted else {}
        for owner_id, ids in defined.items():
            kept = kinds_of[owner_id] | _COUNTED_KINDS
            known[owner_id] = [
                entity for i in ids if (entity := read.get(i)) is not None and entity.kind in kept
            ]
    lists: dict[str, MemberList] = {}
    for owner in owners:
        # a member no list here shows (a test function beside a helper class) is
        # counted, not listed: a list that leaves it out without a word reads as whole
        held = [entity for entity in known[owner.id] if entity.id not in chosen]
        members = [
            entity
            for entity in held
            if entity.kind in kinds_of[owner.id] and admissible(entity, follow_tests)
        ]
        if members:
            again = sorted((e for e in members if e.id in before), key=lambda e: before[e.id])
            ranked = sorted(
                (e for e in members if scores.get(e.id, 0.0) > 0.0 and e.id not in before),
                key=lambda e: (-scores[e.id], e.line or 0, e.name),
            )
            unranked = sorted(
                (e for e in members if scores.get(e.id, 0.0) <= 0.0 and e.id not in before),
                key=lambda e: (e.line or 0, e.name),
            )
            shown = (again + ranked + unranked[:MAX_UNRANKED])[: max(MAX_LISTED, len(again))]
            lists[owner.id] = MemberList(shown, len(held) - len(shown))
    return lists


def fit_member_lists(
    owners: Sequence[Entity],
    members: Mapping[str, MemberList],
    room: float,
    piece: Callable[[str], float],
    held: Iterable[str] = (),
    most: int | None = None,
    again: Collection[str] = (),
    qualifiers: Mapping[str, tuple[str, float]] = MappingProxyType({}),
) -> dict[str, MemberList]:
    """The member lists that fit in ``room`` tokens, owners in the order given, each list
    as long as the room left allows (see the module docstring), by owner id; ``members``
    are those :func:`owned_members` offers.

    ``piece`` costs a line and its break apart
    (:func:`~citeloop.knowledge.budget.line_cost`); an owner whose first member does not
    fit gets no list, and the next may still. ``held`` are the names of the context's
    other entities: no list shows a name the context already holds
    :data:`~citeloop.knowledge.seeds.MAX_PER_NAME` times (eight plugins' lists would
    each show ``_get_streams``; :func:`~citeloop.knowledge.candidate_order.few_of_a_name`
    keeps the lines to three of a name likewise); its list counts it as not shown,
    unless it is the one member a list it has leaves out and the whole list fits
    (``; not shown: 1 more`` takes about the room of its name), or one of ``again``
    (ids the context being widened listed: the lists it showed are shown again with
    those members, past ``room`` when they must, and the room they take with them is
    kept for each, the first ones first, while the lists before it are fitted).
    ``most`` bounds the other members listed in all (``None``: no bound).
    ``qualifiers`` (:attr:`~citeloop.knowledge.budget.Filled.qualifiers`): what the
    relation lines add once a list names a member whose name they write for another
    id alone; the first list to name it pays that (:func:`qualifying`).
    """
    newline = piece("\n")
    names = Counter(held)
    paid: set[str] = set()  # the names whose relation lines a list fitted paid for
    fitted: dict[str, MemberList] = {}
    # What each list takes with only the members of `again`, kept for it while the
    # lists before it are fitted: their new members do not take its room. When the
    # room does not hold them all, it is kept for the first ones, in order (a list
    # earlier in the order is never left out for a later one).
    kept = {}
    reserved = 0.0
    for owner in owners:
        if again and owner.id in members:
            offered, cut = members[owner.id]
            listed = [member for member in offered if member.id in again]
            if listed:  # costed as below, item by item
                shown = [listed_member(member) for member in listed]
                cost = list_cost(list_label(owner), shown, len(offered) + cut, piece)
                cost += qualifying(listed, qualifiers, paid)[0]
                if reserved + cost <= room:
                    kept[owner.id] = cost
                    reserved += cost
    later = sum(kept.values())
    for owner in owners:
        later -= kept.get(owner.id, 0.0)
        if owner.id not in members:
            continue
        offered, cut = members[owner.id]
        total = len(offered) + cut
        # Costed item by item, the "not shown" part at its longest, then checked whole.
        room_here = room - later
        # The members listed before enter anyway, as the lines kept do: an answer may
        # have cited one from its list (a played retry had been told it was no entity).
        taken = [member for member in offered if member.id in again]
        floor = len(taken)
        label = list_label(owner)
        left = room_here - list_cost(label, [listed_member(m) for m in taken], total, piece)
        extra, pending = qualifying(taken, qualifiers, paid)
        left -= extra
        for member in (m for m in offered if m.id not in again):
            if most is not None and len(taken) >= most:
                break
            if names[member.name] >= MAX_PER_NAME:
                continue
            cost = piece(listed_member(member)) + piece(", ")
            extra, names_paid = qualifying([member], qualifiers, paid | pending)
            if cost + extra > left:
                break
            left -= cost + extra
            pending |= names_paid
            taken.append(member)
        # One member left out says no more than its name at about the same room
        # ("; not shown: 1 more"; a played list had hidden `BinGrouper.factorize` so,
        # its name held three times): named when the whole line fits.
        shown = {member.id for member in taken}
        rest = [member for member in offered if member.id not in shown]
        if taken and len(rest) == 1 == total - len(taken) and (most is None or len(taken) < most):
            whole = member_list_line(label, [*taken, *rest], 0)
            extra = qualifying([*taken, *rest], qualifiers, paid)[0]
            if piece(whole) + newline + extra <= room_here:
                taken.append(rest[0])
        while taken:
            line = member_list_line(list_label(owner), taken, total - len(taken))
            extra, names_paid = qualifying(taken, qualifiers, paid)
            cost = piece(line) + newline + extra
            if cost <= room_here or len(taken) == floor:
                room -= cost
                fitted[owner.id] = MemberList(taken, total - len(taken))
                names.update(member.name for member in taken)
                paid |= names_paid
                most = None if most is None else most - len(taken)
                break
            taken.pop()
    return fitted


def choose_member_lists(
    reads: BatchedGraphStore,
    entities: dict[str, Entity],
    selected: Sequence[str],
    owners: Mapping[str, str],
    settings: MemberListSettings,
    room: float,
    piece: Callable[[str], float],
    most: int | None,
    qualifiers: Mapping[str, tuple[str, float]] = MappingProxyType({}),
) -> dict[str, MemberList]:
    """The member lists of a context whose lines hold ``selected`` (ids of ``entities``,
    in rank order): its classes' first, then its files' (:func:`fit_member_lists`), in
    ``room`` tokens with what they add to the relation lines (``qualifiers``), at most
    ``most`` members in all. A class the lines name by a member
    of it (``owners``: the class of each member, by id) is an entity of the context
    already: its file's list does not name it again, unless the context being widened
    listed it (a played answer had cited its place there). A module's list goes under its
    file's heading: none for a module whose path is no file of the lines' (nor for one
    without a path). A module read joins ``entities``."""
    scores, follow_tests, known, before = settings
    chosen = set(selected)
    # a class listed before stays listed: its place (`ManyToOneRel L261`) had been cited
    on_lines = chosen | {owners[i] for i in chosen if i in owners and owners[i] not in before}
    classes = [e for i in selected if (e := entities[i]).kind is EntityKind.CLASS]
    paths = {entities[i].path for i in selected} - {None, ""}
    modules = [
        module
        for module in modules_of(reads, [entities[i] for i in selected])
        if module.path in paths
    ]
    for module in modules:
        entities.setdefault(module.id, module)
    holders = [*classes, *modules]
    offered = owned_members(reads, holders, on_lines, scores, follow_tests, known, before)
    if before:  # the lists the context being widened showed come first again
        listed_before = {owner_id for owner_id, of in offered.items() if of.members[0].id in before}
        holders.sort(key=lambda owner: owner.id not in listed_before)
    return fit_member_lists(
        holders,
        offered,
        room,
        piece,
        [entities[i].name for i in selected],
        most,
        before,
        qualifiers,
    )


def qualifying(
    members: Iterable[Entity],
    qualifiers: Mapping[str, tuple[str, float]],
    paid: Collection[str] = frozenset(),
) -> tuple[float, set[str]]:
    """What listing ``members`` adds to the relation lines
    (:attr:`~citeloop.knowledge.budget.Filled.qualifiers`; once a name, none for the
    names of ``paid``), and the names that pays for."""
    names = {
        member.name
        for member in members
        if member.name in qualifiers
        and member.name not in paid
        and qualifiers[member.name][0] != member.id
    }
    return sum(qualifiers[name][1] for name in names), names


def list_cost(label: str, items: Sequence[str], total: int, piece: Callable[[str], float]) -> float:
    """What a list's line takes at least with ``items`` (members as
    :func:`~citeloop.knowledge.render.listed_member` writes them), of ``total`` members,
    and its break: costed item by item, the "not shown" part at its longest (a bound
    the whole line, checked once written, stays within)."""
    head = piece("\n") + piece(member_list_line(label, [], total))
    return head + sum(piece(item) + piece(", ") for item in items)


def list_label(owner: Entity) -> str:
    """What a list's line starts with: its class's name, or ``module``."""
    return MODULE_LABEL if owner.kind is EntityKind.MODULE else owner.name
