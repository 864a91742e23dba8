"""Which class a string names: the ``references`` links of one index run.

A string literal that is a class name (``Ref("SelectClauseSegment")``,
``ForeignKey("Author")``; see :func:`~citeloop.knowledge.indexing.references.names_class`)
is looked up by name among the classes of the whole tree. When several classes have the
name, the one the writing file can see is meant, as Python would find a name: the
classes of the file's own module; else those of a module it imports, or that it imports
by name (through re-exports); else those of the deepest package the file shares with
them. More than :data:`MAX_NAMED_CLASSES` left alike give no link: the string does not
say which.

Each lookup records the :func:`name_key` of the name in the file's dependencies, so that
a file that gains or loses a class of that name re-links the files whose strings name
it; following an import records the module names it read, as any link does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citeloop.knowledge.indexing.linker import Resolver

MAX_NAMED_CLASSES = 4
"""Classes a string may refer to at most; a name shared by more is left unlinked."""


def name_key(name: str) -> str:
    """The ``deps`` key of a class name read by a ``references`` link: never a module
    name (it starts with ``#``)."""
    return "#" + name


def _packages(module: str) -> list[str]:
    """``module`` and the packages above it, deepest first, then ``""`` (the root)."""
    parts = module.split(".") if module else []
    return [".".join(parts[:cut]) for cut in range(len(parts), -1, -1)]


@dataclass(slots=True)
class _Named:
    """The classes of one name, by module and by every package above their module."""

    ids: list[str]
    known: frozenset[str]
    by_module: dict[str, list[str]] = field(default_factory=dict)
    by_package: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, classes: Sequence[tuple[str, str]]) -> _Named:
        ids = [class_id for class_id, _ in classes]
        named = cls(ids, frozenset(ids))
        for class_id, module in classes:
            named.by_module.setdefault(module, []).append(class_id)
            for package in _packages(module):
                named.by_package.setdefault(package, []).append(class_id)
        return named


class StringNames:
    """The classes strings name, for one link run over :class:`Resolver`'s symbols:
    each name's classes are read and tabled once (linear in their number), each file's
    imports followed once."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self._named: dict[str, _Named] = {}
        self._imports: dict[str, tuple[str, frozenset[str], frozenset[str]]] = {}

    def refers_to(self, name: str, path: str) -> list[str]:
        """Ids of the classes a string ``name`` written in the file ``path`` names (see
        the module docstring), sorted; empty when none or too many."""
        resolver = self.resolver
        resolver.deps.add(name_key(name))
        named = self._named.get(name)
        if named is None:
            named = self._named[name] = _Named.of(resolver.symbols.classes(name))
        if len(named.ids) <= 1:
            return list(named.ids)
        module, imported = self._imported(path)
        near = named.by_module.get(module)
        if not near:
            found: set[str] = set()
            for target in imported:  # a module's classes, or a class imported by name
                found.update(named.by_module.get(target, ()))
                if target in named.known:
                    found.add(target)
            near = sorted(found)
        if not near:
            near = next(
                (named.by_package[p] for p in _packages(module) if p in named.by_package), []
            )
        return list(near) if len(near) <= MAX_NAMED_CLASSES else []

    def _imported(self, path: str) -> tuple[str, frozenset[str]]:
        """The file's module, and what its import bindings name once followed through
        re-exports (modules and entity ids); replays the module names read on each use."""
        if path not in self._imports:
            resolver = self.resolver
            module, targets = resolver.symbols.imports(path)
            outer, resolver.deps = resolver.deps, set()
            try:
                imported = frozenset(resolver.follow(target) or target for target in targets)
            finally:
                read, resolver.deps = resolver.deps, outer
            self._imports[path] = (module, imported, frozenset(read))
        module, imported, read = self._imports[path]
        self.resolver.deps |= read
        return module, imported
