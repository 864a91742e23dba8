"""What one source file contributes to the graph, before cross-file linking.

A file yields entities and ``defines`` facts directly. Everything that may point into
another file (calls, bases, requirement mentions, names in decision records) is kept as
a :class:`Reference` and turned into facts by :mod:`citeloop.knowledge.indexing.linker` once every
file is known, so that changing one file re-links references from unchanged files too.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from citeloop.knowledge.model import Entity, Fact, RelationKind


@dataclass(frozen=True, slots=True)
class Reference:
    """A relation whose object is resolved at link time.

    Attributes:
        relation: ``calls``, ``inherits``, ``overrides``, ``traces``, ``decided``,
            ``uses_type`` or ``references``.
        subject: Entity id of the subject.
        target: Chain of the object (``"pkg.mod.func"``, ``"pkg.mod.Client().get"``;
            see :mod:`citeloop.knowledge.indexing.chains`), the requirement id for ``traces``, or
            the mentioned name for ``decided`` and ``references``. Empty when no candidate
            could be formed.
        written: The object as written in the source (``"helper"``, ``"json.dumps"``);
            for ``traces`` the requirement title.
        start_line: First line of the reference, 1-based.
        end_line: Last line, inclusive.
        mode: ``"bases"`` to look ``target``'s member up in the bases of its owner
            class only (``super().m()``, and what a method overrides), ``"code"`` for a
            decision-record name written as code, ``"value"`` for a ``references``
            chain of a name used as a value (linked as an annotation's name is, to a
            class only); empty otherwise.
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
        module: The file's module name (``""`` for a decision record).
        context: What else the index depends on (see
            :meth:`~citeloop.knowledge.indexing.modules.ModuleLayout.context_key`).
        entities: Entities defined in the file.
        facts: Facts complete without linking (``defines``).
        references: References to link.
        aliases: Module-level import bindings, ``"pkg.mod.Name" -> "other.mod.Name"``.
        stars: Modules whose names a module-level ``from m import *`` binds.
        types: Chain of each attribute's value and of each function's result, by
            entity id (see :mod:`citeloop.knowledge.indexing.chains`).
        lowered: Whether the source used syntax newer than the running Python.
        top_names: Names a package's ``__init__.py`` defines at module level (empty for
            other files): the ones that are also submodules are not recorded.
    """

    path: str
    digest: str
    module: str = ""
    context: str = ""
    entities: list[Entity] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)
    stars: list[str] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)
    lowered: bool = False
    top_names: frozenset[str] = frozenset()

    def interface(self) -> str:
        """Digest of what linking other files may read of this one: its entity ids and
        kinds, aliases, star imports, types and written bases. When it is unchanged, an
        edit re-links this file's references only."""
        digest = hashlib.sha256()
        for entity in sorted(self.entities, key=lambda e: e.id):
            digest.update(f"e{entity.id}\x1f{entity.kind.value}\x1e".encode())
        for name, target in sorted(self.aliases.items()):
            digest.update(f"a{name}\x1f{target}\x1e".encode())
        for star in self.stars:
            digest.update(f"s{star}\x1e".encode())
        for name, chain in sorted(self.types.items()):
            digest.update(f"t{name}\x1f{chain}\x1e".encode())
        for ref in self.references:
            if ref.relation is RelationKind.INHERITS:
                digest.update(f"b{ref.subject}\x1f{ref.target}\x1f{ref.mode}\x1e".encode())
        return digest.hexdigest()[:32]
