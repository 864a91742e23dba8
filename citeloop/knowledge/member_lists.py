"""A class's members listed under its line: their names and places, not their lines.

A context's budget holds some 40 entity lines; a class it holds defines many more
members than that. After the ranked entities fill their share of the budget, each class
of the context, in rank order, lists the members that have no line of their own, those
the ranking reached first (best first), then up to :data:`MAX_UNRANKED` others in source
order, at most :data:`MAX_LISTED`, on one line under the class's line::

    _Sentinel members: __new__() L13, __setattr__() L24, __or__() L31; not shown: 2 more

while the budget's last :data:`MEMBER_LIST_SHARE` lasts (with what the lines left).
Each listed member is an entity of the context (reason ``member``): an answer may name
and cite it, and a widening brings its whole line when the answer names it. The list is
the skeleton of a class that a repository map shows (aider's repo map lists a class's
member definitions under it); a line of its own per member would cost about five times
as much. On the SWE-QA context benchmark (``benchmarks/bench_context.py``) the lists,
ranked by the same scores as the lines, hold 4 to 8 points more of the reference entities
than the same budget spent on lines alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import NamedTuple

from citeloop.knowledge.model import Entity
from citeloop.knowledge.neighbourhood import admissible, defined_by
from citeloop.knowledge.render import MEMBER_KINDS, listed_member, member_list_line
from citeloop.knowledge.seeds import MAX_PER_NAME
from citeloop.knowledge.store import BatchedGraphStore

MEMBER_LIST_SHARE = 0.25
"""Share of a context's budget kept for its classes' member lists (what the entity lines
leave of the budget is theirs too)."""

MAX_UNRANKED = 12
"""Most members a class's list shows that the ranking did not reach (no score: the walk
found them from no seed), after those it did: a hub's seventy members had filled its
list (``Pregel``'s, on the demo), though at most twelve cost no recall on the SWE-QA
questions (a point less at four)."""

MAX_LISTED = 32
"""Most members one class's list shows: a hub the walk reaches ranks most of its members
(``Pregel``'s seventy, on the demo, most of them nothing the task is about); the room
goes to the other classes' lists and to the lines. On the SWE-QA questions, 32 cost a
quarter of a point of recall on average over the four repositories (20: half a point)."""

REFILL_SHARE = 0.05
"""Share of the budget that the member lists may leave of their room before the lines are
filled again with it (once: a small graph's classes list a few members)."""


class MemberList(NamedTuple):
    """The members one class's list shows (or may show), and how many it leaves out."""

    members: list[Entity]
    omitted: int


def class_members(
    reads: BatchedGraphStore,
    classes: Sequence[Entity],
    chosen: Collection[str],
    scores: Mapping[str, float],
    follow_tests: bool,
    known: dict[str, list[Entity]],
) -> dict[str, MemberList]:
    """The members of each class of ``classes`` that a list may show, best first, by class
    id: those without a line in the context (ids not in ``chosen``), ranked by
    ``scores`` (a candidate's rank score), then in source order, at most
    :data:`MAX_UNRANKED` of those without a score and :data:`MAX_LISTED` in all (the
    rest counted in ``omitted``).
    ``known`` holds the members read before, by class id: those of the classes it lacks
    are read (one batched read) and added to it."""
    missing = [entity.id for entity in classes if entity.id not in known]
    if missing:
        defined = defined_by(reads, missing)
        wanted = [i for ids in defined.values() for i in ids]
        read = reads.get_entities(wanted) if wanted else {}
        for class_id, ids in defined.items():
            known[class_id] = [
                entity
                for i in ids
                if (entity := read.get(i)) is not None
                and entity.kind in MEMBER_KINDS
                and admissible(entity, follow_tests)
            ]
    lists: dict[str, MemberList] = {}
    for owner in classes:
        if members := [entity for entity in known[owner.id] if entity.id not in chosen]:
            ranked = sorted(
                (e for e in members if scores.get(e.id, 0.0) > 0.0),
                key=lambda e: (-scores[e.id], e.line or 0, e.name),
            )
            unranked = sorted(
                (e for e in members if scores.get(e.id, 0.0) <= 0.0),
                key=lambda e: (e.line or 0, e.name),
            )
            shown = (ranked + unranked[:MAX_UNRANKED])[:MAX_LISTED]
            lists[owner.id] = MemberList(shown, len(members) - len(shown))
    return lists


def fit_member_lists(
    classes: Sequence[Entity],
    members: Mapping[str, MemberList],
    room: float,
    piece: Callable[[str], float],
    held: Iterable[str] = (),
) -> dict[str, MemberList]:
    """The member lists that fit in ``room`` tokens, classes in the order given, each
    list as long as the room left allows (see the module docstring), by class id;
    ``members`` are those :func:`class_members` offers.

    ``piece`` costs a line and its break apart
    (:func:`~citeloop.knowledge.budget.line_cost`); a class whose first member does not
    fit gets no list, and the next may still. ``held`` are the names of the context's
    other entities: no list shows a name the context already holds
    :data:`~citeloop.knowledge.seeds.MAX_PER_NAME` times (eight plugins' lists would
    each show ``_get_streams``; :func:`~citeloop.knowledge.candidate_order.few_of_a_name`
    keeps the lines to three of a name likewise); its list counts it as not shown.
    """
    newline = piece("\n")
    names = Counter(held)
    fitted: dict[str, MemberList] = {}
    for owner in classes:
        if owner.id not in members:
            continue
        offered, cut = members[owner.id]
        total = len(offered) + cut
        # Costed item by item, the "not shown" part at its longest, then checked whole.
        left = room - newline - piece(member_list_line(owner.name, [], total))
        taken: list[Entity] = []
        for member in offered:
            if names[member.name] >= MAX_PER_NAME:
                continue
            cost = piece(listed_member(member)) + piece(", ")
            if cost > left:
                break
            left -= cost
            taken.append(member)
        while taken:
            line = member_list_line(owner.name, taken, total - len(taken))
            cost = piece(line) + newline
            if cost <= room:
                room -= cost
                fitted[owner.id] = MemberList(taken, total - len(taken))
                names.update(member.name for member in taken)
                break
            taken.pop()
    return fitted
