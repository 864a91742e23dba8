"""What a widening brought of the code an answer said its context lacks.

A widened context is larger than the one the answer saw, and says nothing of which of
its lines answer the answer's request: played models searched a 6,000-token context for
the bodies they had asked for, and asked again for some it held. :func:`now_shown` says,
of the names the answer said lacking, which the widened context shows more of than the
one before: source it did not show (whole, or which lines), more lines of source it
showed, or an entity new to it. The retry prompt writes them on one line
(:func:`~citeloop.grounding.retry_prompt.build_retry_prompt`'s ``shown``), and on the
next the other code whose source the widened context shows and the one before showed
none of (:func:`also_shown`; ``also``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from citeloop.grounding.retry_prompt import LINE, MORE, PART, SOURCE
from citeloop.knowledge import ContextEntity, EntityKind, InjectedContext
from citeloop.knowledge.finding import MIN_NAME_CHARS
from citeloop.knowledge.model import LISTED_BY_OTHERS

__all__ = [
    "LINE",
    "MAX_NAMESAKES_TOLD",
    "MAX_RANGES",
    "MORE",
    "PART",
    "SOURCE",
    "also_shown",
    "line_ranges",
    "now_shown",
]

MAX_NAMESAKES_TOLD = 3
"""Most entities written alike (``Command.handle`` of several files) told of one name."""

MAX_RANGES = 6
"""Most ranges of new lines written for a name (then how many more): with three, the
demo's "L1348-1357, L1360-1363, L1367-1379 and 1 more" had hidden the lines its answer
had asked for most."""


def now_shown(
    names: Iterable[str],
    widened: InjectedContext,
    before: Iterable[Mapping[str, Any]],
    sourced_before: Mapping[str, Sequence[int]],
) -> dict[str, dict[str, str]]:
    """What ``widened`` shows more of than the context before it, of each of ``names``
    (what an answer said its context lacks: ``Owner.member`` or a bare name, as
    written), in the order of ``names``: ``{name: {"what": SOURCE}}`` for source it
    shows whole now and not before, ``{"what": PART, "lines": "L12-20, L31"}`` for
    some of it, ``{"what": MORE, "lines": "L951-955, L960-980"}`` for lines of source
    it shows now beside those shown before, ``{"what": LINE}`` for an entity new to it
    with a line of its own (not only a name in a member list; one only so named before
    is new as a line) and no source; a name it
    shows nothing more of is left out, and so is a plain lower-case word (``app``,
    ``ds``: played answers' local names had been told as attributes of unrelated
    classes) or a name shorter than :data:`~citeloop.knowledge.finding.MIN_NAME_CHARS`
    (``X``). A bare name is any entity of that name; ``Owner.member`` a member of a
    class (or module) of that short name; a longer dotted name, of its last owner. Of
    several entities so named, what is said is of one: the first, in the context's
    order, of those it shows the most of (source whole, then some, then more lines,
    then a line; of those the context before wrote a line of, else held, when it
    held one: the one the answer saw), with the name as the context writes it when
    the answer wrote it otherwise (``{"what": LINE, "as": "ForeignObjectRel.on_delete"}`` for
    ``on_delete``: a played model was told "the line of on_delete" with several in the
    context; ``"PregelNode"`` for ``_read.PregelNode``); but when the context writes
    several alike (``Command.handle`` of several files), each of those it shows more of
    (up to :data:`MAX_NAMESAKES_TOLD`, the second under the key ``"name (2)"``) with its
    file, as much of its path as tells it apart (``"as": "Command.handle of flush.py"``);
    an entity another name already told of is not told again, the dotted names telling
    first (a bare name then tells of another namesake, whatever the order written).
    Linear in the names and the entities (and a sort of the names).

    Args:
        names: The names the answer said the context lacks.
        widened: The widened context.
        before: The entities of the context the answer saw (``{"id": ...}`` mappings, as
            the graph's state keeps them).
        sourced_before: The source line numbers that context showed, by entity id.
    """
    held = {entity.get("id") for entity in before}
    # with a line of its own (not only listed: `Scaffold members: ..., spec L123`)
    lined = {e.get("id") for e in before if e.get("reason") not in LISTED_BY_OTHERS}
    sourced = dict(widened.excerpts)
    classes = {entity.id for entity in widened.entities if entity.kind is EntityKind.CLASS}
    by_id = {entity.id: entity for entity in widened.entities if entity.id}
    by_name: dict[str, list[ContextEntity]] = {}
    by_owner: dict[tuple[str, str], list[ContextEntity]] = {}
    for entity in widened.entities:
        if entity.id:
            by_name.setdefault(entity.name, []).append(entity)
            owner = entity.id.rpartition(".")[0].rpartition(".")[2]
            by_owner.setdefault((entity.name, owner), []).append(entity)
    alike_paths = _alike_paths(widened.entities, classes)
    shown: dict[str, list[dict[str, str]]] = {}
    told: set[str] = set()
    # a dotted name first: what a bare one tells of is then another of its namesakes
    # (`update_x` beside `Foo.update_x` is `Bar.update_x`), in whatever order written
    ordered = dict.fromkeys(names)
    for name in sorted(ordered, key=lambda name: "." not in name):
        if (name.isalpha() and name.islower()) or len(name) < MIN_NAME_CHARS:
            continue  # `app`, `ds`, `join`, `X`: a local name as often as an entity's
        owner, _, short = name.rpartition(".")
        owner = owner.rpartition(".")[2]  # `pkg.mod.f`: a member of `mod`
        matches = by_owner.get((short, owner), ()) if owner else by_name.get(short, ())
        # a name of the context the answer saw means what it saw, not a new namesake
        # (a played answer asked for more of its `FFFF`; another file's was told), and
        # of those first what it saw a line of (not the other domain's namesake only
        # listed before: a played retry was told "the line of ASTDeclaratorParen.inner",
        # a line it had seen, of which only the listed namesake's was new)
        matches = (
            [entity for entity in matches if entity.id in lined]
            or [entity for entity in matches if entity.id in held]
            or matches
        )
        news = [  # `f` and `mod.f` of one answer: what is told of one entity, once
            (found, entity.id)
            for entity in matches
            if entity.id not in told
            and (found := _news(entity, sourced, sourced_before, lined)) is not None
        ]
        if not news:
            continue
        news.sort(key=lambda pair: _RANK[pair[0]["what"]])  # stable: the context's order
        written = _as_written(by_id[news[0][1]], classes)
        # Namesakes written alike (`Command.handle` of several commands' files) are
        # each told, with their file: a played retry had been told migrate's, not the
        # flush command's it had asked for.
        alike = [pair for pair in news if _as_written(by_id[pair[1]], classes) == written]
        several = len(alike_paths.get(written, ())) > 1
        for found, entity_id in alike[:MAX_NAMESAKES_TOLD] if several else news[:1]:
            told.add(entity_id)
            path = by_id[entity_id].path
            if several and path:
                where = _distinct_tail(path, alike_paths[written])
                found = {**found, "as": f"{written} of {where}"}
            elif written != name:
                found = {**found, "as": written}  # which `on_delete`: the class's
            shown.setdefault(name, []).append(found)
    return {
        name if at == 0 else f"{name} ({at + 1})": found
        for name in ordered
        for at, found in enumerate(shown.get(name, ()))
    }


def also_shown(
    widened: InjectedContext,
    sourced_before: Mapping[str, Sequence[int]],
    told: Mapping[str, Mapping[str, str]],
) -> list[str]:
    """The functions, methods and classes whose source ``widened`` shows lines of and
    the context before showed none of (``sourced_before``: its source line numbers by
    entity id; the demo's model had read "source it did not show before" of a method
    one more line of which was new; a definition's first line alone is no news), but
    those ``told`` of (what :func:`now_shown` gave, by name): their names as
    the context writes them, namesakes written alike each with as much of its path as
    tells it apart, as :func:`now_shown` writes them, in the context's order, each once.
    Played models had compared two prompts to find the callers and bodies a widening
    brought beside what they had asked for, and one was told only of docstring lines
    while the callers that changed its answer went unmentioned. Linear in the
    entities."""
    classes = {entity.id for entity in widened.entities if entity.kind is EntityKind.CLASS}
    sourced = dict(widened.excerpts)
    alike_paths = _alike_paths(widened.entities, classes)
    # as written: a namesake's `"as"`, else the name (`"f (2)"` is the second told of `f`)
    written_told = {news.get("as") or name.partition(" (")[0] for name, news in told.items()}
    names: dict[str, None] = {}
    for entity in widened.entities:
        lines = sourced.get(entity.id, ()) if entity.id else ()
        if not lines or sourced_before.get(entity.id):
            continue  # no source, or more lines of source shown before: no new code
        new = set(lines) - {_first_of_several(entity)}
        written = _as_written(entity, classes)
        paths = alike_paths[written]
        if len(paths) > 1 and entity.path:  # namesakes written alike: with the file
            written = f"{written} of {_distinct_tail(entity.path, paths)}"
        if new and written not in written_told and entity.name not in written_told:
            names.setdefault(written)
    return list(names)


def _alike_paths(
    entities: Iterable[ContextEntity], classes: Collection[str]
) -> dict[str, set[str]]:
    """The paths of the entities the context writes alike (:func:`_as_written`), by
    what it writes."""
    paths: dict[str, set[str]] = {}
    for entity in entities:
        if entity.id:
            paths.setdefault(_as_written(entity, classes), set()).add(entity.path or "")
    return paths


def _first_of_several(entity: ContextEntity) -> int | None:
    """An entity's first line when it spans several (its ``def`` line, which its entity
    line gives), else ``None``."""
    several = entity.end_line and entity.line and entity.end_line > entity.line
    return entity.line if several else None


def _distinct_tail(path: str, paths: Collection[str]) -> str:
    """The shortest end of ``path``, in whole parts, that no other of ``paths`` ends
    with (``flush.py`` beside ``migrate.py``; ``a/util.py`` beside ``b/util.py``)."""
    parts = path.split("/")
    others = [other for other in paths if other != path]
    for count in range(1, len(parts)):
        tail = "/".join(parts[-count:])
        if not any(other == tail or other.endswith("/" + tail) for other in others):
            return tail
    return path


def _as_written(entity: ContextEntity, classes: Collection[str]) -> str:
    """``entity``'s name as the context's lines write it: ``Owner.member`` for a member
    of a class (a method's, or one of ``classes``, the context's: a test method's), the
    bare name for a module's function, test, class or variable (not
    ``_read.PregelNode``, nor ``test_cart.test_checkout``)."""
    parent = entity.id.rpartition(".")[0]
    if parent in classes or entity.kind is EntityKind.METHOD:
        return f"{parent.rpartition('.')[2]}.{entity.name}"
    return entity.name


_RANK = {SOURCE: 0, PART: 1, MORE: 2, LINE: 3}
"""What :func:`now_shown` says first of several entities of a name."""


def _news(
    entity: ContextEntity,
    sourced: Mapping[str, Sequence[int]],
    sourced_before: Mapping[str, Sequence[int]],
    lined: Collection[Any],
) -> dict[str, str] | None:
    """What the widened context shows more of ``entity`` (:func:`now_shown`), or
    ``None``; ``lined``: the ids the context before wrote a line of its own for (not
    only a name in a member list)."""
    lines = sourced.get(entity.id, ())
    earlier = sourced_before.get(entity.id, ())
    # Its first line (of several) alone is no news: its entity line gives the signature
    # (the demo's retry had been told "StateGraph.validate (L1129)", its `def` line).
    first = _first_of_several(entity)
    if lines and not earlier and set(lines) != {first}:
        if _whole((entity.line, entity.end_line), lines):
            return {"what": SOURCE}
        return {"what": PART, "lines": line_ranges(lines)}
    if (new := sorted(set(lines) - set(earlier))) and new != [first]:
        return {"what": MORE, "lines": line_ranges(new)}
    if entity.id not in lined and entity.reason not in LISTED_BY_OTHERS:
        return {"what": LINE}
    return None


def _whole(span: tuple[int | None, int | None], shown: Sequence[int]) -> bool:
    """Whether the line numbers ``shown`` cover an entity's ``(line, end_line)``."""
    first, last = span
    if first is None:
        return False
    return set(range(first, (last or first) + 1)) <= set(shown)


def line_ranges(numbers: Iterable[int], most: int = MAX_RANGES) -> str:
    """``numbers`` as ranges of consecutive lines, ``L3-5, L9``, at most ``most`` of
    them, then how many more."""
    ranges: list[list[int]] = []
    for number in sorted(set(numbers)):
        if ranges and number == ranges[-1][1] + 1:
            ranges[-1][1] = number
        else:
            ranges.append([number, number])
    written = [f"L{a}-{b}" if b > a else f"L{a}" for a, b in ranges[:most]]
    more = len(ranges) - len(written)
    return ", ".join(written) + (f" and {more} more" if more else "")
