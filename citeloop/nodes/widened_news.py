"""What a widening brought of the code an answer said its context lacks.

A widened context is larger than the one the answer saw, and says nothing of which of
its lines answer the answer's request: played models searched a 6,000-token context for
the bodies they had asked for, and asked again for some it held. :func:`now_shown` says,
of the names the answer said lacking, which the widened context shows more of than the
one before: source it did not show (whole, or which lines), more lines of source it
showed, or an entity new to it. The retry prompt writes them on one line
(:func:`~citeloop.grounding.retry_prompt.build_retry_prompt`'s ``shown``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from citeloop.knowledge import InjectedContext

SOURCE = "source"
"""A name whose source the widened context shows whole, and the one before did not."""
PART = "part"
"""A name whose source the widened context shows some lines of, and the one before did
not."""
MORE = "more"
"""A name whose source the widened context shows more lines of."""
LINE = "line"
"""A name the widened context holds without its source, and the one before did not."""

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
    without source; a name it shows nothing more of is left out, and so is a plain
    lower-case word (``app``, ``ds``: played answers' local names had been told as
    attributes of unrelated classes). A bare name is any entity of that name;
    ``Owner.member`` a member of a class (or module) of that short name; a longer dotted
    name, of its last owner.

    Args:
        names: The names the answer said the context lacks.
        widened: The widened context.
        before: The entities of the context the answer saw (``{"id": ...}`` mappings, as
            the graph's state keeps them).
        sourced_before: The source line numbers that context showed, by entity id.
    """
    held = {entity.get("id") for entity in before}
    sourced = dict(widened.excerpts)
    spans = {entity.id: (entity.line, entity.end_line) for entity in widened.entities}
    by_name: dict[str, list[str]] = {}
    for entity in widened.entities:
        if entity.id:
            by_name.setdefault(entity.name, []).append(entity.id)
    shown: dict[str, dict[str, str]] = {}
    for name in dict.fromkeys(names):
        if name.isalpha() and name.islower():
            continue  # `app`, `ds`, `join`: a local name as often as an entity's
        owner, _, short = name.rpartition(".")
        owner = owner.rpartition(".")[2]  # `pkg.mod.f`: a member of `mod`
        matches = [
            entity_id
            for entity_id in by_name.get(short, ())
            if not owner or entity_id.rpartition(".")[0].rpartition(".")[2] == owner
        ]
        new_lines = {
            entity_id: sorted(set(sourced[entity_id]) - set(sourced_before.get(entity_id, ())))
            for entity_id in matches
            if entity_id in sourced
        }
        first = [i for i, lines in new_lines.items() if lines and not sourced_before.get(i)]
        if any(_whole(spans[i], sourced[i]) for i in first):
            shown[name] = {"what": SOURCE}
        elif first:
            shown[name] = {"what": PART, "lines": line_ranges(sourced[first[0]])}
        elif more := [n for lines in new_lines.values() for n in lines]:
            shown[name] = {"what": MORE, "lines": line_ranges(more)}
        elif any(i not in held for i in matches):
            shown[name] = {"what": LINE}
    return shown


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
