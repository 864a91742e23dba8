"""Which code of a context an answer asks for by line: ``L249-265`` of what entity.

An answer that says its context lacks lines (``app.py L249-265``, or ``L249-265`` alone;
read by :func:`~citeloop.grounding.lacking.lacking_lines`) asks for the lines of an
entity the context holds; a widening then shows them (:attr:`ContextExpansion.lines
<citeloop.knowledge.model.ContextExpansion.lines>`).
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from citeloop.grounding.mentions import same_file
from citeloop.knowledge.excerpts import MAX_ASKED_LINES

_BODIES = frozenset({"function", "method", "test", "attribute"})
"""Kinds of entity whose label an answer writes to ask for its body (context entity
dicts give ``kind`` as text)."""
MAX_ASKED_RANGES = 4 * MAX_ASKED_LINES
"""Ranges of an answer's lacking lines read at most (:func:`asked_lines`): an answer of
thousands of ranges asks for no more lines than a widening shows, at a bounded cost."""


def asked_lines(
    ranges: Sequence[tuple[str | None, int, int]],
    entities: Sequence[dict[str, Any]],
    names: Sequence[str] = (),
    excerpts: Mapping[str, Sequence[int]] | None = None,
    cited: Sequence[tuple[str, int, int]] = (),
) -> tuple[tuple[str, int, int], ...]:
    """``(entity id, first, last)`` for each of ``ranges`` (the lines an answer says its
    context lacks: :func:`~citeloop.grounding.lacking.lacking_lines`) that an entity of
    the context holds: the innermost whose span holds it, in the range's file when it
    names one. A range without a file that entities of several files hold goes to the
    innermost in the file of a place the answer wrote that holds it (``cited``:
    :func:`~citeloop.grounding.lacking.cited_places`; "`JavascriptKeyboardEvent`
    (reflex/event.py:579-590) ... does not show lines L580-585": a played widening had
    shown another file's L580-585), else of the ones whose excerpt (``excerpts``: the
    lines each entity's excerpt showed, by id) left out exactly that range (``… 17 lines
    (L249-265)``, the label the answer copied), else of the ones the answer named among
    ``names`` (:func:`~citeloop.grounding.lacking.lacking_names`; a dotted one by the
    tail of the id: `` `_TableBaseHDU.__init__` L312-336`` is not every ``__init__``'s;
    a name such as ``fit`` is many entities': a played answer that copied three gaps of
    ``transform``'s excerpt and said it lacked ``fit`` had been shown the lines of
    another file's ``fit``), first those of them whose excerpt left out some line of
    it, else of all the holders whose excerpt did; when none of these is of one file,
    it asks for nothing. A range that is an entity's whole span, in any
    file that holds it, is its label (``attach_node`` (L1444-1553)), not lines asked
    for (the demo's widening had shown L1444-1553 of ``Pregel``, another file's class
    of 2,500 lines), unless it is the label of the one function, method, test or
    attribute of that span that the answer said is lacking (among ``names``; with the
    range's file written, by the last part of a name too: "the body of `parse`
    (restructuredtext.py:14-46)" is that file's ``parse``, though the bare name was read
    as the ``RSTParser.parse`` the answer also named): its body, asked for whole ("the
    source of `VSRuntimeBlock.context()` (blocks.py L78-120)": a played widening had
    shown 8 of its 43 lines, a first look at a name said lacking, and the next one the
    rest).
    A range that the excerpts of its holders showed every line of (none left one out)
    is a citation of what the answer read ("confirmed only as the documented contract
    (L1630, L1641)"), not asked for: a played widening had sent those numbers to
    another file's class.
    The first :data:`MAX_ASKED_RANGES` ranges are read: a widening shows at most
    ``MAX_ASKED_LINES`` lines of them."""
    named = set(names)
    tails = {name.rpartition(".")[2] for name in named}
    shown = {entity_id: sorted(set(lines)) for entity_id, lines in (excerpts or {}).items()}
    asked: list[tuple[str, int, int]] = []
    for path, first, last in ranges[:MAX_ASKED_RANGES]:
        holders = [
            e
            for e in entities
            if e.get("id")
            and isinstance(e.get("line"), int)
            and isinstance(e.get("end_line"), int)
            and e["line"] <= first <= last <= e["end_line"]
            and e.get("path")
            and (path is None or same_file(path, e["path"]))
        ]
        counts = [_within(shown[e["id"]], first, last) for e in holders if e["id"] in shown]
        if counts and min(counts) == last - first + 1:
            continue  # lines the context showed, and no excerpt left out: cited as read
        labelled = [e for e in holders if (e["line"], e["end_line"]) == (first, last)]
        if labelled:  # a label, in whichever file holds it: not lines of another file's
            # (in the file it names, of an entity of a name said lacking in any form:
            # "the body of `parse` (restructuredtext.py:14-46)" beside `RSTParser.parse`)
            bodies = [
                e
                for e in labelled
                if e.get("kind") in _BODIES
                and (_named(e, named) or (path is not None and e.get("name") in tails))
            ]
            if len({e["id"] for e in bodies}) == 1:  # but a body said lacking: asked whole
                asked.append((bodies[0]["id"], first, last))
            continue
        if path is None and len({e["path"] for e in holders}) > 1:
            files = {
                e["path"]
                for e in holders
                for cited_path, start, end in cited
                if start <= first <= last <= end and same_file(cited_path, e["path"])
            }
            meant = files.pop() if len(files) == 1 else None
            meant = meant or _meant_file(holders, named, shown, first, last)
            holders = [e for e in holders if e["path"] == meant]
        if holders:
            inner = min(holders, key=lambda e: (e["end_line"] - e["line"], e["id"]))
            asked.append((inner["id"], first, last))
    return tuple(dict.fromkeys(asked))


def _within(lines: Sequence[int], first: int, last: int) -> int:
    """How many of the sorted line numbers ``lines`` lie in ``first``-``last`` (a binary
    search)."""
    return bisect.bisect_right(lines, last) - bisect.bisect_left(lines, first)


def _named(entity: dict[str, Any], names: Collection[str]) -> bool:
    """Whether one of ``names`` names ``entity``: a bare name its name, a dotted one the
    tail of its id (`` `_TableBaseHDU.__init__` L312-336`` is not every ``__init__``'s)."""
    entity_id = entity["id"]
    return entity.get("name") in names or any(
        "." in name and (entity_id == name or entity_id.endswith("." + name)) for name in names
    )


def _meant_file(
    holders: list[dict[str, Any]],
    named: Collection[str],
    shown: Mapping[str, Sequence[int]],
    first: int,
    last: int,
) -> str | None:
    """The file of the holders of lines ``first``-``last`` (of several files) that the
    answer meant (see :func:`asked_lines`; ``shown``: each excerpt's lines, sorted),
    ``None`` when that is not known. Each look is a binary search: many ranges asked of
    long excerpts stay cheap."""

    def left_out(entity: dict[str, Any]) -> bool:  # some line of the range
        lines = shown.get(entity["id"])
        return lines is not None and _within(lines, first, last) < last - first + 1

    def gap(entity: dict[str, Any]) -> bool:  # the range is a run the excerpt left out
        lines = shown[entity["id"]]
        return (
            not _within(lines, first, last)
            and (first == entity["line"] or _within(lines, first - 1, first - 1) == 1)
            and (last == entity["end_line"] or _within(lines, last + 1, last + 1) == 1)
        )

    excerpted = [e for e in holders if left_out(e)]
    for chosen in (
        [e for e in excerpted if gap(e)],
        [e for e in excerpted if _named(e, named)],
        [e for e in holders if _named(e, named)],
        excerpted,
    ):
        if len(files := {e["path"] for e in chosen}) == 1:
            return files.pop()
    return None
