"""What one source file contributes to the graph, before cross-file linking.

A file yields entities and ``defines`` facts directly. Everything that may point into
another file (calls, bases, requirement mentions, names in decision records) is kept as
a :class:`Reference` and turned into facts by :mod:`citeloop.knowledge.linker` once every
file is known, so that changing one file re-links references from unchanged files too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from citeloop.knowledge.model import Entity, Fact, RelationKind


@dataclass(frozen=True, slots=True)
class Reference:
    """A relation whose object is resolved at link time.

    Attributes:
        relation: ``calls``, ``inherits``, ``traces`` or ``decided``.
        subject: Entity id of the subject.
        target: Qualified candidate id of the object (``"pkg.mod.func"``), the
            requirement id for ``traces``, or the mentioned name for ``decided``.
            Empty when no candidate could be formed.
        written: The object as written in the source (``"helper"``, ``"json.dumps"``);
            for ``traces`` the requirement title.
        start_line: First line of the reference, 1-based.
        end_line: Last line, inclusive.
        mode: ``"bases"`` to look ``target``'s member up in the bases of its owner
            class only (``super().m()``), ``"code"`` for a decision-record name written
            as code; empty otherwise.
    """

    relation: RelationKind
    subject: str
    target: str
    written: str
    start_line: int
    end_line: int
    mode: str = ""


@dataclass(slots=True)
class FileIndex:
    """Everything indexed from one file.

    Attributes:
        path: POSIX path relative to the indexed root.
        digest: SHA-256 hex digest of the file's bytes.
        entities: Entities defined in the file.
        facts: Facts complete without linking (``defines``).
        references: References to link.
        aliases: Module-level import bindings, ``"pkg.mod.Name" -> "other.mod.Name"``.
    """

    path: str
    digest: str
    entities: list[Entity] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)
