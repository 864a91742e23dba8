"""Filling a context's token budget: which ranked entities fit, with the lines they add.

An entity costs its own line (:func:`~citeloop.knowledge.render.entity_line`), its
file's heading when it is the first of its file (the decisions' heading for the first
decision), and the relation lines it adds with itself (a recursive call) and the
entities already chosen (an ``inherits`` line, a caller's ``calls`` line or one more
callee on it), a name on them ``Owner.name`` when another chosen entity has it (``name
(path:line)`` when it has no class; the first entity so named then pays for that on the
lines it is already on; a member list that names another of it pays likewise,
:attr:`Filled.qualifiers`), and the source excerpt that follows its line, if it has one.
Entities are taken in rank order while they fit; a core entity always enters, without
its excerpt when that would not fit.

Once the lines chosen take :data:`FULL_LINES_SHARE` of the budget, the entities that
follow get their brief line (:mod:`~citeloop.knowledge.render`: a function's parameters
``(...)``, no summary), unless they are core, named by a retry's answer or shown with an
excerpt: the budget's tail names more of the ranked entities, each with its place,
instead of a few more with their docstrings. The model can name one it needs, and the
retry's widening brings it in whole. An entity that enters anyway (a widening keeps what
the context it widens had) keeps its whole line unless that, its relation lines and the
brief lines and headings of those that enter anyway after it would overflow the budget;
when every entity offered fits with whole lines, no line is brief.

Relation lines stop at :data:`RELATION_SHARE` of the budget: once those written take
it (the entity whose lines cross it keeps them), an entity that enters adds no
``inherits`` or ``overrides`` line and no new ``calls`` line (a callee still joins a
``calls`` line already written, so that the line names every callee the context
holds). :attr:`Filled.relations` says which facts have their line; the text writes
those only. A fact the context being widened wrote a line for (``rewritten``) is written
again whatever the share: a context only grows from one retry to the next.

Every line is costed as the text will write it (through
:func:`~citeloop.text.data_line`, a member by its class only when ``owners`` has it).
With the default estimator (:func:`citeloop.text.estimated_tokens`, characters / 4
rounded up once for the whole text) a line costs its characters and its line break / 4,
so the budget is filled to the token; a user's tokenizer counts each line and its break
apart, which bounds the joined text's count when joining never adds tokens (true of word
counts and of BPE tokenizers in practice, not of a count that rounds down).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import partial
from types import MappingProxyType
from typing import NamedTuple

from citeloop.knowledge.model import Entity, EntityKind, Fact, RelationKind
from citeloop.knowledge.render import (
    DECISIONS_HEADING,
    RENDERED_RELATIONS,
    REQUIREMENTS_HEADING,
    entity_line,
    file_heading,
    member_owner,
    name_claims,
    place,
    relation_line,
    relation_name,
)
from citeloop.text import CHARS_PER_TOKEN, data_line, estimated_tokens, is_data_line

FULL_LINES_SHARE = 0.4
"""Share of the budget that entity lines fill in full; past it, lines are brief. On the
SWE-QA context benchmark (``benchmarks/bench_context.py``, 4 repositories), brief lines
past half the budget held 3 to 5 points more of the reference entities than whole lines
throughout; past a third or two thirds, about a point more or less. With relation lines
bounded (:data:`RELATION_SHARE`) the lines chosen reach the share later in rank order:
then 0.4 holds 3.5 points more (summed over the four) than 0.5, 0.3 and 0.35 as much as
0.4, 0.45 1.1 less and 0.6 6.3 less; and 2.2 more than 0.5 over nine repositories the
benchmark does not use."""

RELATION_SHARE = 0.05
"""Share of the budget that relation lines may take (see the module docstring): about a
hundred tokens of a default context, eight to ten lines, those between the entities that
enter first (the core, then what shows source). Unbounded, they took about 13% of the
SWE-QA contexts (``calls`` lines most of it), and each token of them held fewer of the
reference entities than the entity lines and member lists they left out. With
:data:`FULL_LINES_SHARE` at 0.4, 5% holds 9.2 points more (summed over the four
repositories) than no bound (3% 8.5, 7% 7.0; no relation lines at all 12.9), and 19.9
more over nine held out, each of them more (1.7 on django, 4.7 on sympy). A relation
line is substance for the answering model, which a recall count does not weigh: the
share keeps the relations among what the context is most about."""


class Filled(NamedTuple):
    """What :func:`fill_budget` chose."""

    selected: list[str]
    """The ids of the entities that fit, in the order offered."""
    without_excerpt: frozenset[str]
    """The core entities that entered without their excerpt (it did not fit)."""
    brief: frozenset[str]
    """The entities whose line is brief (see the module docstring)."""
    used: float
    """The tokens their lines take, as :func:`line_cost` counts them (a break after
    each line)."""
    relations: frozenset[str]
    """The ids of the facts whose relation lines were costed (see
    :data:`RELATION_SHARE`): the text writes those, and no other."""
    qualifiers: Mapping[str, tuple[str, float]] = MappingProxyType({})
    """By name that the lines write for one id alone: that id, and the tokens the
    relation lines add once a member list names a member of that name with another id
    (:func:`qualifier_costs`)."""


def fill_budget(
    order: Iterable[str],
    entities: Mapping[str, Entity],
    facts: Iterable[Fact],
    budget: int,
    limit: int | None,
    core: Collection[str],
    count: Callable[[str], int],
    owners: Mapping[str, str],
    excerpts: Mapping[str, Sequence[str]] | None = None,
    shown_before: Collection[str] = (),
    full: Collection[str] | None = None,
    callees: Mapping[str, Sequence[Entity]] | None = None,
    rewritten: Collection[str] = (),
    whole: Collection[str] = (),
    whole_room: float = 0.0,
) -> Filled:
    """The entities that fit, in ``order`` (see the module docstring).

    Args:
        order: Entity ids, best first.
        entities: The entities by id (every id of ``order``).
        facts: The facts among the candidates; those rendered as lines are costed.
        budget: Tokens the lines may take, >= 1.
        limit: At most this many entities (core entities aside), or ``None``.
        core: Ids that enter whatever their lines cost (their excerpts only if they fit).
        count: Counts the tokens of a text (the one that counts the whole context).
        owners: The class id of each member among the candidates that is a class's,
            by member id (its lines name it ``Owner.member``, as the text will).
        excerpts: The excerpt lines that follow an entity's line, by id
            (:mod:`~citeloop.knowledge.excerpts`): they enter with it or not at all.
        shown_before: Ids of ``core`` whose source the context being widened showed:
            their excerpt enters with them, as their line does (a context only grows).
        full: Ids whose line is never brief (``None``: those of ``core``); an entity
            with an excerpt in ``excerpts`` is never brief either.
        callees: What each caller is known to call, by caller id: a ``calls`` line
            costs what it says of those the context does not hold
            (:func:`~citeloop.knowledge.render.omitted_callees`; those chosen later
            only shorten it).
        rewritten: Ids of the facts whose relation lines the context being widened
            wrote: costed whatever :data:`RELATION_SHARE` leaves, when both ends enter.
        whole: Ids of ``core`` whose whole line the context being widened wrote: brief
            only when their whole line would overflow ``budget + whole_room`` (the room
            the caller keeps past ``budget``, for the member lists: they give way).
        whole_room: Tokens past ``budget`` the lines of ``whole`` may take.
    """
    piece = line_cost(count)
    newline = piece("\n")
    links: dict[str, list[Fact]] = {}
    for fact in facts:
        if fact.relation in RENDERED_RELATIONS:
            links.setdefault(fact.subject, []).append(fact)
            if fact.object != fact.subject:  # a recursive call is one line, not two
                links.setdefault(fact.object, []).append(fact)
    order = list(order)
    full = core if full is None else full
    excerpts = excerpts or {}
    relation_room = budget * RELATION_SHARE  # also when the core's least is costed

    fill = partial(
        _fill,
        entities=entities,
        links=links,
        budget=budget,
        limit=limit,
        core=core,
        piece=piece,
        owners=owners,
        full=full,
        callees=callees or {},
        relation_room=relation_room,
        rewritten=rewritten,
        whole=whole,
        whole_room=whole_room,
    )

    def filled(brief_lines: bool) -> tuple[Filled, float]:
        # What the core's lines take in the end (they come first and all enter): a core
        # entity's excerpt enters only if it fits beside all of them.
        reserve = least = 0.0
        must = [entity_id for entity_id in order if entity_id in core]
        if excerpts and core:
            reserve = fill(must, excerpts={}, reserve=0.0, brief_lines=brief_lines)[3]
        if must and order[: len(must)] != must:  # another comes before some of the core
            # the core at its least: brief lines, with the relation lines among them
            least = fill(must, excerpts={}, reserve=0.0, brief_lines=True, budget=0)[3]
        selected, bare, brief, used, written, qualifiers = fill(
            order,
            excerpts=excerpts,
            reserve=reserve,
            shown_before=shown_before,
            brief_lines=brief_lines,
            core_least=least,
            qualify=True,
        )
        filled = Filled(selected, frozenset(bare), frozenset(brief), used, written, qualifiers)
        return filled, used

    # No line is brief when every entity fits whole; the sum of their own lines and
    # excerpts, a lower bound of that, skips the trial on a graph larger than the budget
    # (summed only until it passes the budget).
    least = 0.0
    for entity_id in order:
        entity = entities[entity_id]
        least += piece(entity_line(entity, member_owner(entity, owners))) + newline
        least += sum(piece(line) + newline for line in excerpts.get(entity_id, ()))
        if least > budget:
            break
    if least <= budget:
        whole, used = filled(brief_lines=False)
        if len(whole.selected) == len(order) and used <= budget:
            return whole
    return filled(brief_lines=True)[0]


def _fill(
    order: Iterable[str],
    entities: Mapping[str, Entity],
    links: Mapping[str, list[Fact]],
    budget: int,
    limit: int | None,
    core: Collection[str],
    piece: Callable[[str], float],
    owners: Mapping[str, str],
    excerpts: Mapping[str, Sequence[str]],
    reserve: float,
    shown_before: Collection[str] = (),
    full: Collection[str] = (),
    brief_lines: bool = True,
    core_least: float = 0.0,
    callees: Mapping[str, Sequence[Entity]] = MappingProxyType({}),
    relation_room: float = math.inf,
    rewritten: Collection[str] = (),
    whole: Collection[str] = (),
    whole_room: float = 0.0,
    qualify: bool = False,
) -> tuple[list[str], set[str], set[str], float, frozenset[str], dict[str, tuple[str, float]]]:
    """(selected, core ids without their excerpt, brief ids, tokens used, ids of the
    facts whose lines were costed, :attr:`Filled.qualifiers` when ``qualify``, else
    none) of :func:`fill_budget`; ``reserve`` is what the core's lines alone take;
    without ``brief_lines`` every line is whole; ``relation_room``: what relation lines
    may take (:data:`RELATION_SHARE`), but for the facts of ``rewritten``."""
    newline = piece("\n")
    rewritten = frozenset(rewritten)
    selected: list[str] = []
    bare: set[str] = set()
    brief: set[str] = set()
    full_lines = budget * FULL_LINES_SHARE
    chosen: set[str] = set()
    headings: set[str] = set()  # the keys (_heading_key) of the headings written
    callers: set[str] = set()
    first_named: dict[str, str] = {}  # a name's first chosen entity
    claims: dict[str, set[str]] = {}  # the ids the chosen entities' lines write by name
    shown: Counter[str] = Counter()  # times a chosen entity's name is on a relation line
    used = excerpts_used = relations_used = 0.0
    written: set[str] = set()  # the facts whose lines are costed
    name_bound = _least_line if piece is _characters else None
    # What the core entities not yet placed take at least (their brief lines and file
    # headings; they come first): one that enters anyway gets its whole line only while
    # the rest of the core still fits.
    order = list(order)
    least_core = _least_core(
        [entity_id for entity_id in order if entity_id in core], entities, piece, owners
    )
    # What the core's relation lines take beyond its brief lines (``core_least``: what
    # its brief lines take with the relation lines among them), until the last of it is
    # placed.
    pad = max(0.0, core_least - sum(least_core.values()))
    for entity_id in shown_before:  # its excerpt enters with it
        if entity_id in least_core:
            least_core[entity_id] += sum(piece(t) + newline for t in excerpts.get(entity_id, ()))
    core_left = sum(least_core.values())
    core_to_place = len(least_core)  # counted, not read off a float sum
    for entity_id in order:
        if limit is not None and len(selected) >= limit and entity_id not in core:
            continue
        entity = entities[entity_id]
        if name_bound is not None and used + name_bound(entity) > budget and entity_id not in core:
            continue  # not even its name fits: its line is not written to find that out
        owner = member_owner(entity, owners)
        own = piece(entity_line(entity, owner)) + newline  # its line
        # Brief: past the share of whole lines (not what the task or answer named), or,
        # for one that enters anyway, when its whole line would overflow (below).
        may_shorten = brief_lines and entity_id not in excerpts
        short = may_shorten and entity_id not in core and entity_id not in full
        if short:
            short = used >= full_lines
            if short:
                own = piece(entity_line(entity, owner, True)) + newline
        excerpt = sum(piece(text) + newline for text in excerpts.get(entity_id, ()))
        cost = 0.0  # what it adds beside its line
        heading = _heading_key(entity)
        if heading is not None and heading not in headings:
            cost += piece(_heading(heading)) + newline
        rest = core_left + pad if core_to_place else 0.0  # what the core not placed takes
        if used + own + cost + excerpt + rest > budget and entity_id not in core:
            continue  # its relation lines only add to that; the core not placed yet enters
        # A relation line names an entity ``Owner.name`` (or ``name (path:line)``) once
        # another has its name: the first so named pays for that on the lines it is on.
        joining = name_claims(entity, owners)
        for claimed_name, claimed in joining:
            held = claims.get(claimed_name, ())
            twin = first_named.get(claimed_name) if len(held) == 1 else None
            if twin is not None and claimed not in held:
                told_apart = _held_twice(member_owner(entities[twin], owners), joining, claims)
                name, after = relation_name(entities[twin], owners, True, told_apart)
                told = name.removesuffix(claimed_name) + data_line(after)  # "Owner." or a place
                if told:
                    cost += shown[twin] * piece(told)
            if len(held) == 1 and claimed not in held:  # a class's name another's now
                (before,) = held
                cost += sum(
                    count * piece(data_line(place(entities[member])))
                    for member, count in shown.items()
                    if owners.get(member) == before
                )
        new_callers: set[str] = set()
        new_shown: list[str] = []  # the chosen entities this one's lines name
        new_written: list[str] = []
        relations = 0.0  # what its relation lines add
        # The lines the context being widened wrote first: a callee then joins its
        # calls line (`set() calls _load()` had left out `_prune()` and
        # `_schedule_save()`, both in the context, when their facts came first).
        facts = links.get(entity_id, ())
        if rewritten:
            facts = sorted(facts, key=lambda f: f.fact_id not in rewritten)
        for fact in facts:
            other = fact.object if fact.subject == entity_id else fact.subject
            if other not in chosen and other != entity_id:
                continue
            adds_callee = fact.relation is RelationKind.CALLS and (
                fact.subject in callers or fact.subject in new_callers
            )
            full_room = relations_used + relations >= relation_room
            if not adds_callee and full_room and fact.fact_id not in rewritten:
                continue  # the relation lines took their share: no new line
            before = cost
            (subject, subject_place), (object_, object_place) = (
                _written(entities[end], joining, claims, owners)
                for end in (fact.subject, fact.object)
            )
            if fact.relation is RelationKind.CALLS and (
                fact.subject in callers or fact.subject in new_callers
            ):  # one more callee on its line
                cost += piece(data_line(f", {object_}(){object_place}"))
                new_shown.append(fact.object)
            else:
                kind = entities[fact.subject].kind
                # Costed with the longest name it may write: one chosen later may leave
                # a longer name to the line, never a longer line.
                omitted = [
                    callee.name
                    for callee in callees.get(fact.subject, ())
                    if callee.id not in chosen and callee.id != fact.object
                ]
                longest = max(omitted, key=lambda name: len(data_line(name)), default=None)
                places = (subject_place, object_place)
                # Or with the count alone, when no name may be written ("; not shown: 1
                # more" is longer than "; not shown: x()").
                names = [longest, None] if omitted else [None]
                cost += newline + max(
                    piece(relation_line(fact, subject, [object_], kind, places, len(omitted), n))
                    for n in names
                )
                new_shown += (fact.subject, fact.object)
                if fact.relation is RelationKind.CALLS:
                    new_callers.add(fact.subject)
            relations += cost - before
            new_written.append(fact.fact_id)
        if entity_id in least_core:
            core_left -= least_core[entity_id]
            core_to_place -= 1
        if may_shorten and entity_id in core:  # it enters anyway: brief when whole overflows
            room = budget + (whole_room if entity_id in whole else 0.0)
            short = used + own + cost + core_left + (pad if core_to_place else 0.0) > room
            if short:
                own = piece(entity_line(entity, owner, True)) + newline
        cost += own
        if entity_id not in core:
            cost += excerpt
        elif excerpt:  # it enters; its excerpt only if it fits beside every core line
            if entity_id not in shown_before and reserve + excerpts_used + excerpt > budget:
                bare.add(entity_id)
            else:
                cost += excerpt
                excerpts_used += excerpt
        if entity_id in core or used + cost <= budget:
            selected.append(entity_id)
            if short:
                brief.add(entity_id)
            chosen.add(entity_id)
            used += cost
            callers |= new_callers
            relations_used += relations
            written.update(new_written)
            for named in new_shown:
                shown[named] += 1
            for claimed_name, claimed in joining:
                claims.setdefault(claimed_name, set()).add(claimed)
            first_named.setdefault(entity.name, entity_id)
            if heading is not None:
                headings.add(heading)
    qualifiers = qualifier_costs(shown, claims, entities, owners, piece) if qualify else {}
    return selected, bare, brief, used, frozenset(written), qualifiers


def qualifier_costs(
    shown: Mapping[str, int],
    claims: Mapping[str, Collection[str]],
    entities: Mapping[str, Entity],
    owners: Mapping[str, str],
    piece: Callable[[str], float],
) -> dict[str, tuple[str, float]]:
    """What the relation lines add once another id claims a name only one id's lines
    claim now, by name: that id and the tokens.

    ``shown``: times each entity is written on a relation line, by id; ``claims``: the
    ids the lines write by name (:func:`~citeloop.knowledge.render.name_claims`). A
    relation line writes a name alone while nothing else in the context has it; a
    member list naming another of that name (``_is_section_break()`` of one docstring
    class listed beside the other's line) makes the lines write it ``Owner.name`` or
    with its place, and the members of a class whose name a listed class has (two
    ``Symbol`` classes) their place: the lists pay for that
    (:func:`~citeloop.knowledge.member_lists.fit_member_lists`)."""
    twice = {name for name, ids in claims.items() if len(ids) > 1}
    on_lines = {entity_id: count for entity_id, count in shown.items() if count}
    of_class: dict[str | None, list[str]] = {}  # the members on the lines, by class id
    for entity_id in on_lines:
        of_class.setdefault(owners.get(entity_id), []).append(entity_id)

    def added(entity_id: str, name_twice: bool, owner_twice: bool) -> float:
        entity = entities[entity_id]
        owner = member_owner(entity, owners)
        name, after = relation_name(entity, owners, entity.name in twice, owner in twice)
        then, then_after = relation_name(entity, owners, name_twice, owner_twice)
        if (then, then_after) == (name, after):
            return 0.0
        return on_lines[entity_id] * piece(then.removesuffix(name) + data_line(then_after))

    costs: dict[str, tuple[str, float]] = {}
    for name, ids in claims.items():
        if len(ids) != 1:
            continue
        (holder,) = ids
        cost = 0.0
        if holder in on_lines and entities[holder].name == name:
            owner = member_owner(entities[holder], owners)
            cost += added(holder, True, owner in twice)
        for member in of_class.get(holder, ()):
            cost += added(member, entities[member].name in twice, True)
        if cost:
            costs[name] = (holder, cost)
    return costs


def _least_core(
    core: Sequence[str],
    entities: Mapping[str, Entity],
    piece: Callable[[str], float],
    owners: Mapping[str, str],
) -> dict[str, float]:
    """What each of the ``core`` entities, placed in that order before any other, adds
    at least: its brief line and, for the first of its file, the file's heading (the
    decisions' heading for the first decision)."""
    newline = piece("\n")
    least: dict[str, float] = {}
    headings: set[str] = set()
    for entity_id in core:
        entity = entities[entity_id]
        cost = piece(entity_line(entity, member_owner(entity, owners), True)) + newline
        heading = _heading_key(entity)
        if heading is not None and heading not in headings:
            headings.add(heading)
            cost += piece(_heading(heading)) + newline
        least[entity_id] = cost
    return least


_REQUIREMENTS_KEY = "\0requirements"
"""The :func:`_heading_key` of a requirement (no path holds a NUL)."""


def _heading_key(entity: Entity) -> str | None:
    """Which heading an entity's line comes under: its file's path, ``""`` for a
    decision (the decisions' heading), :data:`_REQUIREMENTS_KEY` for a requirement,
    ``None`` for none (an entity without a path)."""
    if entity.kind is EntityKind.DECISION:
        return ""
    if entity.kind is EntityKind.REQUIREMENT:
        return _REQUIREMENTS_KEY
    if not entity.path:
        return None
    return entity.path


def _heading(key: str) -> str:
    """The heading line of a :func:`_heading_key`."""
    if key == _REQUIREMENTS_KEY:
        return REQUIREMENTS_HEADING
    return file_heading(key) if key else DECISIONS_HEADING


def _least_line(entity: Entity) -> float:
    """A lower bound of what an entity's line and its line break add with the default
    estimator: the line holds the name (a requirement's without trailing spaces, when
    it has no title), unless :func:`~citeloop.text.data_line` rewrites the name (0)."""
    name = entity.name
    if not is_data_line(name):
        return 0.0
    return (len(name.rstrip()) + 1) / CHARS_PER_TOKEN


def line_cost(count: Callable[[str], int]) -> Callable[[str], float]:
    """What a line adds to a text's count: its characters / 4 with the default estimator
    (which rounds up once for the whole text), else ``count`` of the line alone (see the
    module docstring)."""
    return _characters if count is estimated_tokens else count


def _characters(text: str) -> float:
    """The exact share of the default estimator's count that ``text`` adds to a text."""
    return len(text) / CHARS_PER_TOKEN


def _written(
    entity: Entity,
    joining: Sequence[tuple[str, str]],
    claims: Mapping[str, Collection[str]],
    owners: Mapping[str, str],
) -> tuple[str, str]:
    """:func:`~citeloop.knowledge.render.relation_name` of ``entity`` once an entity
    whose lines write ``joining`` (:func:`~citeloop.knowledge.render.name_claims`) joins
    those chosen (``claims``: the ids their lines write, by name)."""
    return relation_name(
        entity,
        owners,
        _held_twice(entity.name, joining, claims),
        _held_twice(member_owner(entity, owners), joining, claims),
    )


def _held_twice(
    name: str | None, joining: Sequence[tuple[str, str]], claims: Mapping[str, Collection[str]]
) -> bool:
    """Whether lines write ``name`` for two ids once an entity whose lines write
    ``joining`` joins those chosen (``claims``: the ids their lines write, by name)."""
    if name is None:
        return False
    return len({*claims.get(name, ()), *(i for claimed, i in joining if claimed == name)}) > 1
