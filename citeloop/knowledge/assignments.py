"""Where an instance attribute is set: the lines a widening shows of an attribute that
an answer said the context lacks.

"Where is ``Response._content`` initialised?" is answered by ``self._content = False``
in ``Response.__init__``, not by the attribute's line (a class-level annotation,
``_content: bytes | None``, when the class declares it) nor by the lines an excerpt of
``__init__`` would choose by the task's words: a played widening had shown an
``elapsed`` comment of ``__init__`` and hidden the assignment the answer asked for. The
graph keeps how many statements set an attribute, not where; its class's methods are
read for them, once per widening, each line scanned by a pattern whose every match
attempt reads a bounded span (linear in the line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from citeloop.knowledge.excerpts import excerptable
from citeloop.knowledge.model import Entity, EntityKind
from citeloop.knowledge.neighbourhood import defined_by
from citeloop.knowledge.seeds import owner_id
from citeloop.knowledge.source import LineSource
from citeloop.knowledge.store import BatchedGraphStore

SITES_SHOWN = 3
"""Most statements that set one attribute a widening shows."""

ANNOTATION_CHARS = 200
"""Longest annotation between ``self.name:`` and its ``=`` on one line that is read."""


def _assignment(name: str) -> re.Pattern[str]:
    """``self.name = ...``, ``cls.name += ...``, ``self.name: T = ...`` (not ``==``), and
    a statement that starts ``self.name:`` (an annotation that runs on to later lines
    before its ``=``; not ``if self.name:``, which starts with ``if``)."""
    target = rf"\b(?:self|cls)\.{re.escape(name)}\b"
    operator = r"(?:[-+*/%&|^@]|//|\*\*|<<|>>)?"
    # An annotation before `=` is read to at most ANNOTATION_CHARS: each place a match
    # may start reads a bounded span, so a line is scanned in linear time.
    annotation = rf"(?::[^=\n]{{0,{ANNOTATION_CHARS}}})?"
    return re.compile(rf"^\s*{target}\s*:|{target}\s*{annotation}{operator}=(?!=)")


def assignment_sites(
    reads: BatchedGraphStore,
    attributes: Iterable[Entity],
    source: LineSource,
    most: int = SITES_SHOWN,
) -> list[tuple[str, int, int]]:
    """The statements of their classes' methods (and properties) that set ``attributes``.

    Args:
        reads: The graph's reads (the classes' ``defines`` facts and their methods).
        attributes: Entities; those of kind attribute whose owner is a class count,
            the rest are left out.
        source: The indexed lines (a file edited since indexing gives none).
        most: Statements shown at most per attribute, >= 0.

    Returns:
        ``(method id, line, line)`` of each statement's first line, as
        :attr:`~citeloop.knowledge.model.ContextExpansion.lines` gives lines asked for:
        per attribute, breadth first, the first statement of each method that sets it
        (its class's ``__init__`` first, then the methods in line order), then the
        second of each, and so on, ``most`` at most.
    """
    wanted = [entity for entity in attributes if entity.kind is EntityKind.ATTRIBUTE]
    owners = list(dict.fromkeys(owner_id(entity.id) for entity in wanted))
    if not owners or most <= 0:
        return []
    found = reads.get_entities(owners)
    classes = [i for i in owners if (c := found.get(i)) is not None and c.kind is EntityKind.CLASS]
    members = defined_by(reads, classes)
    found = reads.get_entities([i for ids in members.values() for i in ids])
    methods = {
        class_id: sorted(
            (m for i in ids if (m := found.get(i)) is not None and excerptable(m)),
            key=lambda m: (m.name != "__init__", m.line),
        )
        for class_id, ids in members.items()
    }
    if not any(methods.values()):
        return []  # owners that are modules, or classes without methods
    files = source.lines({m.path for ms in methods.values() for m in ms if m.path})
    sites: list[tuple[str, int, int]] = []
    for attribute in wanted:
        pattern = _assignment(attribute.name)
        found_in = []  # the lines that set it, of each method that does
        for method in methods.get(owner_id(attribute.id), ()):
            lines = files.get(method.path or "")
            if lines is not None:
                end = min(method.end_line or method.line or 0, len(lines))
                numbers = range(method.line or 1, end + 1)
                if setting := [n for n in numbers if pattern.search(lines[n - 1])]:
                    found_in.append((method.id, setting))
        # Breadth first: each method's first statement, then each one's second, ...
        taken = [
            (method_id, setting[turn], setting[turn])
            for turn in range(max((len(setting) for _, setting in found_in), default=0))
            for method_id, setting in found_in
            if turn < len(setting)
        ]
        sites.extend(taken[:most])
    return list(dict.fromkeys(sites))
