"""What a widening brought of the code an answer said its context lacks.

A widened context is larger than the one the answer saw, and says nothing of which of
its lines answer the answer's request: played models searched a 6,000-token context for
the bodies they had asked for, and asked again for some it held. :func:`now_shown` says,
of the names the answer said lacking, which the widened context shows that the one
before did not: an entity new to it, or one whose source it now shows. The retry prompt
writes them on one line (:func:`~citeloop.grounding.retry_prompt.build_retry_prompt`'s
``shown``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from citeloop.knowledge import InjectedContext

SOURCE = "source"
"""What :func:`now_shown` says of a name whose source the widened context shows."""
LINE = "line"
"""What :func:`now_shown` says of a name the widened context holds without its source."""


def now_shown(
    names: Iterable[str],
    widened: InjectedContext,
    before: Iterable[Mapping[str, Any]],
    sourced_before: Collection[str],
) -> dict[str, str]:
    """``{name: SOURCE or LINE}`` for each of ``names`` (what an answer said its context
    lacks: ``Owner.member`` or a bare name, as written) that ``widened`` shows more of
    than the context before it: its source, shown now and not before (:data:`SOURCE`),
    or its line, an entity the context before did not hold (:data:`LINE`); in the order
    of ``names``. A bare name is any entity of that name; ``Owner.member``, a member of
    a class of that short name.

    Args:
        names: The names the answer said the context lacks.
        widened: The widened context.
        before: The entities of the context the answer saw (``{"id": ...}`` mappings, as
            the graph's state keeps them).
        sourced_before: Ids of the entities whose source that context showed.
    """
    held = {entity.get("id") for entity in before}
    sourced = {entity_id for entity_id, _ in widened.excerpts}
    shown: dict[str, str] = {}
    for name in dict.fromkeys(names):
        owner, _, short = name.rpartition(".")
        owner = owner.rpartition(".")[2]  # `pkg.mod.f`: a member of `mod`
        matches = [
            entity.id
            for entity in widened.entities
            if entity.id
            and entity.name == short
            and (not owner or entity.id.rpartition(".")[0].rpartition(".")[2] == owner)
        ]
        if any(i in sourced and i not in sourced_before for i in matches):
            shown[name] = SOURCE
        elif any(i not in held for i in matches):
            shown[name] = LINE
    return shown
