"""Source excerpts: the numbered lines of the code a context is most about.

A context's entity lines are a map (names, signatures, summaries, where); a question
about what a function does is answered by its body. So the best-placed functions,
methods and properties show their lines under their entity line, while they fit in a
share (:data:`EXCERPT_SHARE`) of the token budget: first a look at each of the core and
of what a previous answer named (:data:`FIRST_LOOK_LINES`; a glance of
:data:`MIN_EXCERPT_LINES` at each of the core before), so that no long body leaves
another of them without source, then longer bodies for those, then the rest in rank
order (a class shows none: its best members follow it in that order, unless a retry's
answer said the context lacks it, when it shows its ``class`` line and docstring, where
a class says what it is for, and a line for the rest of its body: :func:`shows_docstring`)::

    Selectable.select_info: SelectStatementColumnsAndTables  # L74-144 — Returns …
        74 |     def select_info(self) -> SelectStatementColumnsAndTables:
           | … docstring (L75-76)
        77 |         if self.selectable.is_type("select_statement"):
        78 |             return get_select_statement_info(self.selectable, self.dialect)
           | … 66 more lines (L79-144)

A body that says nothing its entity line does not (a docstring, ``pass``, ``...``, a
``raise NotImplementedError``: :meth:`~citeloop.knowledge.body_lines.BodyLines.says_nothing_more`)
shows none unless the task or an answer named it: its place goes to the next.

Lines a retry's answer asked for are shown too (:func:`with_asked_lines`; a range of a
class's lines goes to the methods that hold them: :func:`of_members`). How the lines of
one body are chosen, and how an excerpt line reads: :mod:`citeloop.knowledge.body_lines`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

from citeloop.knowledge.body_lines import BodyLines, excerpt_line
from citeloop.knowledge.model import Entity, EntityKind
from citeloop.knowledge.neighbourhood import Candidates, all_defined_by
from citeloop.knowledge.seeds import owner_id
from citeloop.knowledge.source import LineSource
from citeloop.knowledge.store import BatchedGraphStore

EXCERPT_SHARE = 0.25
"""Share of the context's token budget that source excerpts may take."""

MAX_EXCERPT_LINES = 40
"""Most lines of one excerpt."""

MIN_EXCERPT_LINES = 4
"""Fewest lines of an excerpt cut short to fit; a shorter one is left out."""

MAX_EXCERPTS = 8
"""Most entities whose source one context shows (times a widening's budget multiplier)."""

MAX_ASKED_LINES = 60
"""Most lines a widening shows of those a previous answer said the context lacks
(:attr:`~citeloop.knowledge.model.ContextExpansion.lines`; :func:`with_asked_lines` also
bounds their tokens): they enter as the lines shown before do, whatever the share.
At 120 (five ranges of 20 to 30 lines asked for had each shown a dozen), they took the
room of the first look at code the answer asked for by name: the demo's
``attach_edge``, asked for twice, never showed its body."""

_Range = tuple[str, tuple[str, ...], Iterator[int]]
"""A range asked for, as :func:`with_asked_lines` fills it: the entity id, its file's
lines, and its line numbers in the order taken."""

FIRST_LOOK_LINES = 8
"""Lines of code each excerpt gets before any grows longer: the source of every entity
a context is most about is shown before one long body takes the share."""

_EXCERPT_KINDS = frozenset(
    {EntityKind.FUNCTION, EntityKind.METHOD, EntityKind.TEST, EntityKind.ATTRIBUTE}
)


ELIDED_VALUE = " = ..."
"""How an attribute's signature ends when the indexer left its value out (longer than
:data:`~citeloop.knowledge.indexing.signatures.MAX_VALUE_CHARS` characters)."""


def excerptable(entity: Entity) -> bool:
    """Whether ``entity`` may show its source: a function, method or test, or a
    property (an attribute of more than one line, or a class's or module's of one
    whose value its line leaves out: ``prop1 = ...`` for ``prop1 = property(lambda
    self: ...)``, asked for three times by a played answer; an instance attribute's line
    is a method's, shown with it), with a path and a line span (from line 1 on, its end not
    before its start: a store of one's own may hold others)."""
    return (
        entity.kind in _EXCERPT_KINDS
        and bool(entity.path)
        and entity.line is not None
        and entity.end_line is not None
        and 1 <= entity.line <= entity.end_line
        and (
            entity.kind is not EntityKind.ATTRIBUTE
            or entity.end_line > entity.line
            or (_value_left_out(entity) and not entity.set_in)
        )
    )


def _value_left_out(entity: Entity) -> bool:
    """Whether an attribute's line writes its value as ``...``: the indexer left it out
    (:data:`ELIDED_VALUE`), or kept none (a name of ``_A, _B = range(2)``)."""
    return not entity.signature or entity.signature.endswith(ELIDED_VALUE)


def shows_docstring(entity: Entity, asked: bool = False) -> bool:
    """Whether ``entity`` is a class whose excerpt may show its ``class`` line and its
    docstring (nothing of its body: its members are entities of their own), when asked
    for: one whose docstring says more than its summary (which its entity line shows),
    or any when its lines are ``asked`` for by number (a brief line shows neither its
    summary nor its decorators: a played answer had asked twice for the lines of a
    ``@dataclasses.dataclass(frozen=True)``), with a path and a line span as
    :func:`excerptable` requires."""
    return (
        entity.kind is EntityKind.CLASS
        and (asked or " ".join(entity.docstring.split()) != entity.summary)
        and bool(entity.path)
        and entity.line is not None
        and entity.end_line is not None
        and 1 <= entity.line <= entity.end_line
    )


def candidates(
    ids: Iterable[str],
    entities: Mapping[str, Entity],
    most: int = MAX_EXCERPTS,
    classes: Collection[str] = (),
    kept: Collection[str] = (),
) -> list[Entity]:
    """The first ``most`` :func:`excerptable` entities of ``ids`` (best first, each
    once), and the classes among them that ``classes`` holds (:func:`shows_docstring`):
    those :func:`choose_excerpts` may show; and those of ``kept`` (what a widened
    context showed before, or an answer asked for by line: a class's whatever its
    docstring) past the first ``most``, in their order."""
    wanted: list[Entity] = []
    taken = 0
    for entity_id in dict.fromkeys(ids):
        if taken >= most and entity_id not in kept:
            continue
        entity = entities[entity_id]
        if excerptable(entity) or (
            entity_id in classes and shows_docstring(entity, entity_id in kept)
        ):
            wanted.append(entity)
            taken += 1
    return wanted


class Excerpts(NamedTuple):
    """The excerpts chosen for one context."""

    blocks: dict[str, list[str]]
    """Each excerpt's lines, by entity id, best first."""
    shown: dict[str, tuple[int, ...]]
    """The line numbers each shows (its markers aside), by entity id."""
    tokens: int
    """The tokens they take, each with its line break."""

    def within(self, ids: Collection[str]) -> Excerpts:
        """The excerpts of ``ids`` only (the entities a context holds); ``tokens``
        stays what the chosen ones took."""
        blocks = {key: block for key, block in self.blocks.items() if key in ids}
        shown = {key: lines for key, lines in self.shown.items() if key in blocks}
        return self._replace(blocks=blocks, shown=shown)

    def nested_merged(
        self,
        entities: Mapping[str, Entity],
        reader: LineSource,
        piece: Callable[[str], float] | None = None,
        room: float = math.inf,
    ) -> Excerpts:
        """With the excerpt of a nested function (or class, or method of a nested class)
        shown in that of the function enclosing it, when both have one: the enclosing
        excerpt shows the lines of both, and the nested one's goes (a played context
        showed the same lines of a decorator's ``wrapper`` twice, under it and under
        the function that defines it, each with gaps the other filled). The innermost
        enclosing function takes it, and an excerpt with nested ones of its own takes
        theirs first. ``tokens`` stays what the chosen ones took.
        A file ``reader`` no longer gives leaves a nested excerpt that shows nothing
        more than its enclosing one out, and the others as they were.

        A merged excerpt can be longer than the two it replaces (a nested excerpt in a
        run the enclosing one leaves out splits that run's marker in two, and its line
        numbers take the enclosing one's width): with ``piece`` (what a line adds to the
        text's tokens, as the budget counts it), a merge is made only while what it
        adds, each line with its break, fits in ``room``; one that shortens the text
        gives its tokens back. The two excerpts of a merge left out stay as they were.
        Excerpts of one span show their lines once (:meth:`_without_twins`)."""
        return self._without_twins(entities)._merged(entities, reader, piece, room)

    def _without_twins(self, entities: Mapping[str, Entity]) -> Excerpts:
        """Of entities of one span (the names of ``_A, _B, _C = range(3)``, each an
        attribute of line 96), the excerpt that shows the most lines (the first by id of
        those) stays and the others go, when they show no line it does not (a played
        widening had shown line 96 three times)."""
        of_span: dict[tuple[str, int, int], list[str]] = {}
        for key in self.shown:
            if key in entities:
                of_span.setdefault(_span(entities[key]), []).append(key)
        twins = set()
        for keys in of_span.values():
            kept = min(keys, key=lambda key: (-len(self.shown[key]), key))
            twins.update(k for k in keys if k != kept and {*self.shown[k]} <= {*self.shown[kept]})
        if not twins:
            return self
        blocks = {key: block for key, block in self.blocks.items() if key not in twins}
        shown = {key: lines for key, lines in self.shown.items() if key not in twins}
        return self._replace(blocks=blocks, shown=shown)

    def _merged(
        self,
        entities: Mapping[str, Entity],
        reader: LineSource,
        piece: Callable[[str], float] | None,
        room: float,
    ) -> Excerpts:
        """:meth:`nested_merged` of excerpts of distinct spans."""
        spans = {key: _span(entities[key]) for key in self.shown if key in entities}
        into: dict[str, str] = {}
        for key, (path, first, last) in spans.items():
            enclosing = [
                other
                for other, (other_path, other_first, other_last) in spans.items()
                if other != key
                and other_path == path
                and other_first <= first <= last <= other_last
                and (other_first, other_last) != (first, last)
                and entities[other].kind in _ENCLOSING_KINDS
            ]
            if enclosing:
                into[key] = min(enclosing, key=lambda other: spans[other][2] - spans[other][1])
        if not into:
            return self
        files = reader.lines({spans[key][0] for key in into.values()})
        shown = dict(self.shown)
        blocks = dict(self.blocks)
        # Innermost first, so that a nested excerpt's own nested lines go up with it.
        for key in sorted(into, key=lambda key: spans[key][2] - spans[key][1]):
            target = into[key]
            lines = files.get(spans[target][0])
            union = sorted({*shown[target], *shown[key]})
            if lines is None:
                if len(union) == len(shown[target]):
                    del blocks[key], shown[key]
                continue
            body = BodyLines(entities[target], lines, {})
            block = body.render(union)
            if piece is not None:
                added = _cost(block, piece) - _cost(blocks[target], piece)
                added -= _cost(blocks[key], piece)
                if added > room:
                    continue  # both stay: the budget has no room for what it adds
                room -= added
            blocks[target] = block
            shown[target] = tuple(union)
            del blocks[key], shown[key]
        return self._replace(blocks=blocks, shown=shown)


def _cost(block: Sequence[str], piece: Callable[[str], float]) -> float:
    """What the lines of ``block`` add to a text, each with its line break."""
    newline = piece("\n")
    return sum(piece(line) + newline for line in block)


_ENCLOSING_KINDS = frozenset({EntityKind.FUNCTION, EntityKind.METHOD, EntityKind.TEST})
"""What a nested excerpt merges into: a class's excerpt shows its head and docstring."""


def _span(entity: Entity) -> tuple[str, int, int]:
    first = entity.line or 0
    return entity.path or "", first, max(entity.end_line or first, first)


def shown_tokens(
    shown: Mapping[str, Sequence[int]],
    entities: Mapping[str, Entity],
    reader: LineSource,
    count: Callable[[str], int],
) -> int:
    """The tokens the code lines of ``shown`` (line numbers by entity id, of
    ``entities``) take as excerpt lines, each with its line break (the markers of the
    lines left out aside: a lower bound of what showing them again costs)."""
    paths = {entities[i].path for i in shown if i in entities and entities[i].path}
    files = reader.lines(paths) if paths else {}
    total = 0
    for entity_id, numbers in shown.items():
        entity = entities.get(entity_id)
        lines = files.get(entity.path or "") if entity is not None else None
        if lines is not None:
            total += sum(
                count(excerpt_line(n, lines[n - 1])) + 1 for n in numbers if 0 < n <= len(lines)
            )
    return total


def with_asked_lines(
    asked: Iterable[tuple[str, int, int]],
    entities: Mapping[str, Entity],
    reader: LineSource,
    shown: Mapping[str, Sequence[int]],
    tokens: float,
    count: Callable[[str], int],
    focus: Mapping[str, int] | None = None,
    groups: Sequence[int] | None = None,
) -> dict[str, tuple[int, ...]]:
    """``shown`` (the lines each entity showed before, by id) with the code lines of
    ``asked`` (``(entity id, first, last)``: lines a previous answer said the context
    lacks) added: of an :func:`excerptable` entity of ``entities`` (or a class that
    :func:`shows_docstring`: its ``class`` line and docstring), its code in the range
    (:meth:`~citeloop.knowledge.body_lines.BodyLines.code_lines`: not its signature or
    docstring, which the entity line gives, unless the range holds nothing else:
    ``… signature and docstring (L203-212)`` asked for whole, as the brief line or the
    summary leaves them out), at most
    :data:`MAX_EXCERPT_LINES` a range, :data:`MAX_ASKED_LINES` in all and, as ``count``
    counts their excerpt lines, ``tokens`` (asked lines enter as lines shown before do,
    whatever the share: this bound keeps a context near its budget). The ranges take a
    line each in turn, in the order asked: when not all fit, a short range is shown
    whole before a long one grows (max-min fair shares), so "L103-104" is not crowded
    out by a function's whole body asked first. A range takes its lines in the order
    an excerpt would (:meth:`~citeloop.knowledge.body_lines.BodyLines.in_taken_order`:
    the lines using the ``focus`` terms first, with the lines that open their blocks;
    then from the top): of "L117-215" cut short, the lines that check the task's
    ``pos_label``, not the first ones. A range that is its entity's whole span (a body
    asked for by its label: :func:`~citeloop.grounding.asked_lines.asked_lines`) takes
    what the ranges asked for by number leave: "L1356-1390" of a long method is the
    answer's own pick. ``groups`` (one key for each of ``asked``; by
    default each its own) makes ranges one turn: the methods that hold a class's range
    (:func:`of_members`) take its turn one after another, in order. An entity whose
    only line added would be its first (of several) adds none."""
    result = {entity_id: tuple(lines) for entity_id, lines in shown.items()}
    asked = list(asked)
    keys = list(groups) if groups is not None else list(range(len(asked)))
    if len(keys) != len(asked):
        raise ValueError(
            f"groups must give one key for each range asked: got {len(keys)} for "
            f"{len(asked)} ranges"
        )
    wanted = [
        (entities[i], a, b, key)
        for (i, a, b), key in zip(asked, keys, strict=True)
        if i in entities and (excerptable(entities[i]) or shows_docstring(entities[i], True))
    ]
    files = reader.lines({entity.path for entity, *_ in wanted if entity.path})
    added: dict[str, set[int]] = {}
    # Lines asked for by number first, then bodies asked for by their labels.
    ranges: tuple[dict[int, list[_Range]], dict[int, list[_Range]]] = ({}, {})
    for entity, first, last, key in wanted:
        lines = files.get(entity.path or "")
        if lines is None:
            continue
        added.setdefault(entity.id, set(result.get(entity.id, ())))
        body = BodyLines(entity, lines, focus or {})
        numbers = body.in_taken_order(body.code_lines(first, last) or body.span_lines(first, last))
        numbers = _without_blank_ends(numbers, lines)
        labelled = (first, last) == (entity.line, entity.end_line)
        ranges[labelled].setdefault(key, []).append(
            (entity.id, lines, iter(numbers[:MAX_EXCERPT_LINES]))
        )
    left, room = MAX_ASKED_LINES, tokens
    for tier in ranges:
        left, room = _in_turns(list(tier.values()), added, left, room, count)
    # Its first line alone adds no more than its entity line says (a played widening had
    # told "lines of is_multi_configuration (L4)" back for its `def` line only), beside
    # the lines it showed before or not.
    result.update(
        (entity_id, tuple(sorted(lines)))
        for entity_id, lines in added.items()
        if lines - set(result.get(entity_id, ())) != {entities[entity_id].line}
        or _one_line(entities[entity_id])
    )
    return result


def _one_line(entity: Entity) -> bool:
    """Whether ``entity``'s first line is all of it (``prop = property(...)``)."""
    return entity.end_line == entity.line


def _without_blank_ends(numbers: list[int], lines: Sequence[str]) -> list[int]:
    """``numbers`` (in their order) without the blank lines before the first line of
    text and after the last, in file order: a blank line on its own shows nothing."""
    text = [n for n in numbers if lines[n - 1].strip()]
    if not text:
        return []
    low, high = min(text), max(text)
    return [n for n in numbers if low <= n <= high]


def _in_turns(
    turns: list[list[_Range]],
    added: dict[str, set[int]],
    left: int,
    room: float,
    count: Callable[[str], int],
) -> tuple[int, float]:
    """Add to ``added`` (lines by entity id) a line of each turn's first range in turn,
    while ``left`` lines and ``room`` tokens last (max-min fair shares); return what is
    left of both."""
    while turns and left > 0:
        going = []
        for turn in turns:
            while turn and left > 0:
                entity_id, lines, numbers = turn[0]
                taken = added[entity_id]
                number = next((n for n in numbers if n not in taken), None)
                cost = 0 if number is None else count(excerpt_line(number, lines[number - 1])) + 1
                if number is None or cost > room:
                    turn.pop(0)  # shown whole, or its next line does not fit: it ends here
                    continue
                taken.add(number)
                left, room = left - 1, room - cost
                going.append(turn)
                break
        turns = going
    return left, room


def choose_excerpts(
    ids: Iterable[str],
    entities: Mapping[str, Entity],
    reader: LineSource,
    budget: float,
    count: Callable[[str], int],
    focus: Callable[[Entity], Mapping[str, int]] | None = None,
    previous: Mapping[str, Sequence[int]] | None = None,
    named: Collection[str] = (),
    most: int = MAX_EXCERPTS,
    more: Collection[str] = (),
    rest_budget: float | None = None,
) -> Excerpts:
    """The excerpts of the first ``most`` excerptable entities of ``ids`` (best first),
    and of those of ``previous`` past them, that fit in ``budget`` tokens.

    The ``named`` ones (and those of ``previous``) come first, breadth before depth:
    each gets a first look of up to :data:`FIRST_LOOK_LINES` lines of code, best first,
    before any grows, so that one long body never leaves another named entity without
    source; the ``more`` ones go first of all (a first look at those not shown before,
    then a look more at those shown before).
    Then each grows to its whole body (at most :data:`MAX_EXCERPT_LINES`), the named
    first, then the others in order, a long one to at most half of ``budget`` while
    another excerpt may follow it; a named one to all the share leaves beside what the
    named after it take whole: what the task names comes before what it does not.

    An excerpt that does not fit whole is cut to the lines that do (at least
    :data:`MIN_EXCERPT_LINES`); one that cannot be cut so is left out and the next one
    tried. An entity of ``previous`` (the excerpts of the context being widened) shows
    every line it showed, and room is kept for those that follow it: a widened context
    only adds lines.

    Args:
        ids: Entity ids, best first (every one a key of ``entities``).
        entities: The entities by id.
        reader: Reads the indexed files.
        budget: Tokens the excerpts may take.
        count: Counts the tokens of a text (as the whole context is counted).
        focus: The terms each entity's long body has its lines chosen by
            (:func:`~citeloop.knowledge.body_lines.focus_terms`).
        previous: The line numbers shown before, by entity id (:attr:`Excerpts.shown`).
        named: The ids the task or a previous answer named (a context's core, and on a
            retry what the last answer named).
        most: Most excerpts (:data:`MAX_EXCERPTS` in a context of the default budget).
        more: Ids of the code a retry's answer said the context lacks: they look first,
            those of ``previous`` with up to :data:`FIRST_LOOK_LINES` lines more than
            they showed.
        rest_budget: Tokens the excerpts of the others (neither ``named`` nor of
            ``previous`` or ``more``) may take of ``budget``, at most; ``None``: all
            of it. A widening gives them the share of a first context: its larger
            share is for what the answer asked for and named.

    Returns:
        The excerpts, best first, and the tokens they take.
    """
    previous = previous or {}
    # What was shown before is shown again, however many lacking names come first (a
    # played third context had dropped four bodies the answer cited for the first
    # `most` ranked ahead of them).
    classes = {*more, *previous}
    pool = candidates(ids, entities, 2 * most, classes, kept=previous)
    if not pool or budget <= 0:
        return Excerpts({}, {}, 0)
    files = reader.lines({entity.path for entity in pool if entity.path})
    # A body that says nothing its entity line does not (a docstring, a stub) gives its
    # place to the next, unless the task or an answer named it.
    asked_for = {*named, *previous, *more}
    wanted = candidates(
        [entity.id for entity in pool if entity.id in asked_for or not _stub(entity, files)],
        entities,
        most,
        classes,
        kept=previous,
    )
    bodies = {}
    for entity in wanted:
        lines = files.get(entity.path or "")
        if lines is not None and (entity.line or 0) <= len(lines):
            terms = focus(entity) if focus else {}
            bodies[entity.id] = BodyLines(entity, lines, terms, previous.get(entity.id, ()))
    floors = {i: len(bodies[i].first) for i in previous if i in bodies and bodies[i].first}
    kept = {i: count("\n".join(bodies[i].excerpt(n))) + 1 for i, n in floors.items()}
    reserve = sum(kept.values())
    chosen: dict[str, tuple[int, int]] = {}  # (lines of code shown, tokens) by id
    used = 0
    named = asked_for
    first = [entity.id for entity in wanted if entity.id in named and entity.id in bodies]

    pending = dict(kept)  # the room reserved for what was shown before, until it shows

    def look(ids: Iterable[str], extra: int, size: int = FIRST_LOOK_LINES) -> None:
        """A look at each of ``ids``, best first: what it showed before (kept whole: its
        room is reserved) and ``extra`` lines more, or at least ``size``."""
        nonlocal used, reserve
        for entity_id in ids:
            body, floor = bodies[entity_id], floors.get(entity_id, 0)
            shown, cost = chosen.get(entity_id, (0, 0))
            reserve -= pending.pop(entity_id, 0)
            lines = min(body.lines_of_code(MAX_EXCERPT_LINES), max(size, floor + extra))
            # what it showed is never cut, nor made to grow to MIN_EXCERPT_LINES to stay
            least = max(floor, shown) if floor else max(MIN_EXCERPT_LINES, shown)
            room = max(budget - used - reserve + cost, kept.get(entity_id, 0))
            fitted = _fit(body, max(lines, floor, shown), least, room, count)
            if fitted is not None and fitted[0] > shown:
                chosen[entity_id] = fitted
                used += fitted[1] - cost

    # What a retry's answer said the context lacks comes first: a first look at what of
    # it was not shown, then a look more where it was (breadth before depth: code asked
    # for by name twice had never come, its room taken by bodies shown before growing);
    # then the other named ones: a glance at each of them first, so that where the share
    # holds no first look of every one, none is left without source (three tests the
    # task named had left the `Variable.concat` they call, named too, without any).
    asked = [i for i in first if i in more]
    look(asked, 0)
    look([i for i in asked if floors.get(i)], FIRST_LOOK_LINES)
    look([i for i in first if i not in more], 0, MIN_EXCERPT_LINES)
    look([i for i in first if i not in more], 0)
    # Then the named ones grow, and the others follow, best first: a long body takes at
    # most half the share while another excerpt may follow it; a named one, all that
    # the named after it leave when they grow whole (a played core's `try`/`except` the
    # question asked about had been cut at half, beside another's whole docstring).
    rest = [entity.id for entity in wanted if entity.id not in named and entity.id in bodies]
    others = set(rest)
    order = [*chosen, *rest]
    # What each named one takes more when whole, and what those after it take so.
    growth = [max(0, _whole_cost(bodies[i], count) - chosen[i][1]) for i in chosen]
    later = [sum(growth[at + 1 :]) for at in range(len(growth))]
    rest_left = budget if rest_budget is None else min(budget, rest_budget)
    for position, entity_id in enumerate(order):
        body = bodies[entity_id]
        shown, cost = chosen.get(entity_id, (0, 0))
        full = body.lines_of_code(MAX_EXCERPT_LINES)
        if full <= shown:
            continue
        room = budget - used + cost
        if position != len(order) - 1:
            half = min(room, max(budget / 2, cost))
            room = max(half, room - later[position]) if position < len(later) else half
        if entity_id in others:
            room = min(room, rest_left)
        fitted = _fit(body, full, max(shown, MIN_EXCERPT_LINES), room, count)
        if fitted is not None and fitted[0] > shown:
            chosen[entity_id] = fitted
            used += fitted[1] - cost
            if entity_id in others:
                rest_left -= fitted[1]
    found = Excerpts({}, {}, used)
    for entity in wanted:  # best first
        if entity.id in chosen:
            shown = chosen[entity.id][0]
            found.blocks[entity.id] = bodies[entity.id].excerpt(shown)
            found.shown[entity.id] = tuple(bodies[entity.id].numbers(shown))
    return found


def _whole_cost(body: BodyLines, count: Callable[[str], int]) -> int:
    """Tokens of ``body``'s excerpt at its most (:data:`MAX_EXCERPT_LINES` lines of
    code), with its line break."""
    return count("\n".join(body.excerpt(body.lines_of_code(MAX_EXCERPT_LINES)))) + 1


def _stub(entity: Entity, files: Mapping[str, tuple[str, ...]]) -> bool:
    """Whether ``entity``'s body says nothing more than its entity line
    (:meth:`~citeloop.knowledge.body_lines.BodyLines.says_nothing_more`; ``files``:
    the lines of the files read)."""
    lines = files.get(entity.path or "")
    if lines is None or (entity.line or 0) > len(lines):
        return False
    return BodyLines(entity, lines, {}).says_nothing_more()


def _fit(
    body: BodyLines, most: int, least: int, room: float, count: Callable[[str], int]
) -> tuple[int, int] | None:
    """(lines of code, tokens with the line break) of the longest excerpt of ``body``
    of at most ``most`` lines of code that fits in ``room`` tokens, cut to no fewer than
    ``least`` (or ``most``, when fewer), or ``None`` when none fits."""
    shown = most
    cost = count("\n".join(body.excerpt(shown))) + 1
    while cost > room and shown > least:
        shown = max(least, int(shown * room / cost) - 1)
        cost = count("\n".join(body.excerpt(shown))) + 1
    return (shown, cost) if cost <= room else None


def of_members(
    reads: BatchedGraphStore, asked: Sequence[tuple[str, int, int]], found: Candidates
) -> tuple[list[tuple[str, int, int]], list[int]]:
    """``asked`` (lines an answer said the context lacks, by the entity of the
    context that holds them) with a range of a class's lines given to the methods
    of the class that hold its lines (``L748-761`` of ``TestThroughBinary`` are its
    ``setup_class``'s), and to the attributes defined on them, whose own line shows
    their code (``L112-114`` of ``NDIOMixin`` are ``read = ...`` and ``write = ...``:
    a played answer asked for them twice and saw the class's docstring again): a
    class's excerpt is its ``class`` line and docstring, so the code asked for is a
    member's. The members join ``found`` (and so the
    context, with those lines), and so does an entity asked of that ``found`` does not
    hold (a class the context named only as its member's owner); a range of an id the
    graph no longer has is left out. Also returns the index in ``asked`` of the range
    each range came from: the methods of one class's range share its turn in
    :func:`with_asked_lines` (a played answer that asked for "`Flask`, L157-1536"
    beside two ranges of ``RequestContext.push`` had sixty methods take a turn each,
    ``push`` one line a range)."""
    missing = [i for i, _, _ in asked if i not in found.entities]
    for entity_id, entity in reads.get_entities(missing).items() if missing else ():
        found.entities.setdefault(entity_id, entity)
    asked = [item for item in asked if item[0] in found.entities]
    classes = [i for i, _, _ in asked if found.entities[i].kind is EntityKind.CLASS]
    if not classes:
        return list(asked), list(range(len(asked)))
    defined = all_defined_by(reads, classes)
    members: dict[str, list[Entity]] = {}
    for entity in reads.get_entities(defined).values():
        # a class attribute's code is its own line (`read = UnifiedReadWriteMethod(...)`)
        readable = excerptable(entity) or entity.kind is EntityKind.ATTRIBUTE
        if readable and entity.line and entity.end_line:
            members.setdefault(owner_id(entity.id), []).append(entity)
    result: list[tuple[str, int, int]] = []
    groups: list[int] = []
    for group, (entity_id, first, last) in enumerate(asked):
        holders = sorted(
            (m for m in members.get(entity_id, ()) if m.line <= last and first <= m.end_line),
            key=lambda m: (m.line, m.id),
        )
        for member in holders:
            found.entities.setdefault(member.id, member)
            result.append((member.id, max(first, member.line), min(last, member.end_line)))
            groups.append(group)
        if not holders:
            result.append((entity_id, first, last))
            groups.append(group)
    return result, groups
