"""The symbols linking reads (:class:`~citeloop.knowledge.indexing.linker.Symbols`): from
the files of a full index run, in memory, or from a graph file, each key read once per
run by an indexed lookup."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence

from citeloop.knowledge.indexing.linker import decidable_names
from citeloop.knowledge.indexing.records import FileIndex, Reference
from citeloop.knowledge.model import Entity, EntityKind, RelationKind
from citeloop.knowledge.sqlite_schema import STAR


class MemorySymbols:
    """:class:`~citeloop.knowledge.indexing.linker.Symbols` over every file of a full index run."""

    def __init__(self, indexes: Sequence[FileIndex]) -> None:
        self.kinds: dict[str, EntityKind] = {}
        self.aliases: dict[str, str] = {}
        self.star_map: dict[str, list[str]] = {}
        self.chains: dict[str, str] = {}
        self.base_map: dict[str, list[Reference]] = {}
        self.modules: set[str] = set()
        self.entities: list[Entity] = []
        for index in indexes:
            if index.module:
                self.modules.add(index.module)
            for entity in index.entities:
                if entity.id not in self.kinds:
                    self.kinds[entity.id] = entity.kind
                    self.entities.append(entity)
            for name, target in index.aliases.items():
                self.aliases.setdefault(name, target)
            if index.stars:
                self.star_map.setdefault(index.module, []).extend(index.stars)
            for name, chain in index.types.items():
                self.chains.setdefault(name, chain)
            for reference in index.references:
                if reference.relation is RelationKind.INHERITS:
                    self.base_map.setdefault(reference.subject, []).append(reference)
        self._names: dict[str, list[str]] | None = None
        self._classes: dict[str, list[tuple[str, str]]] | None = None
        self._files = {index.path: index for index in indexes}
        self._imports: dict[str, tuple[str, frozenset[str]]] = {}

    def kind(self, entity_id: str) -> EntityKind | None:
        return self.kinds.get(entity_id)

    def alias(self, name: str) -> str | None:
        return self.aliases.get(name)

    def stars(self, module: str) -> Sequence[str]:
        return self.star_map.get(module, ())

    def chain(self, entity_id: str) -> str | None:
        return self.chains.get(entity_id)

    def base_refs(self, class_id: str) -> Sequence[Reference]:
        return self.base_map.get(class_id, ())

    def is_module(self, name: str) -> bool:
        return name in self.modules

    def decided(self, name: str) -> Sequence[str]:
        if self._names is None:
            self._names = decidable_names(self.entities)
        return self._names.get(name, ())

    def classes(self, name: str) -> Sequence[tuple[str, str]]:
        if self._classes is None:
            self._classes = {}
            for entity in sorted(self.entities, key=lambda e: e.id):
                if entity.kind is EntityKind.CLASS:
                    module = self._files[entity.path].module
                    self._classes.setdefault(entity.name, []).append((entity.id, module))
        return self._classes.get(name, ())

    def imports(self, path: str) -> tuple[str, Collection[str]]:
        if path not in self._imports:
            index = self._files.get(path)
            self._imports[path] = (
                (index.module, frozenset((*index.aliases.values(), *index.stars)))
                if index is not None
                else ("", frozenset())
            )
        return self._imports[path]


class SqlSymbols:
    """:class:`~citeloop.knowledge.indexing.linker.Symbols` read from the store, each key once."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.modules = {row[0] for row in db.execute("SELECT module FROM files WHERE module != ''")}
        self._kinds: dict[str, EntityKind | None] = {}
        self._aliases: dict[str, str | None] = {}
        self._stars: dict[str, list[str]] = {}
        self._chains: dict[str, str | None] = {}
        self._bases: dict[str, list[Reference]] = {}
        self._classes: dict[str, list[tuple[str, str]]] = {}
        self._imports: dict[str, tuple[str, frozenset[str]]] = {}

    def _one(self, query: str, key: str) -> str | None:
        row = self.db.execute(query, (key,)).fetchone()
        return row[0] if row else None

    def kind(self, entity_id: str) -> EntityKind | None:
        if entity_id not in self._kinds:
            found = self._one("SELECT kind FROM entities WHERE id = ? AND derived = 0", entity_id)
            self._kinds[entity_id] = EntityKind(found) if found else None
        return self._kinds[entity_id]

    def alias(self, name: str) -> str | None:
        if name not in self._aliases:
            self._aliases[name] = self._one(
                "SELECT target FROM aliases WHERE name = ? ORDER BY path, rowid LIMIT 1", name
            )
        return self._aliases[name]

    def stars(self, module: str) -> Sequence[str]:
        if module not in self._stars:
            rows = self.db.execute(
                "SELECT target FROM aliases WHERE name = ? ORDER BY path, rowid", (module + STAR,)
            )
            self._stars[module] = [row[0] for row in rows]
        return self._stars[module]

    def chain(self, entity_id: str) -> str | None:
        if entity_id not in self._chains:
            self._chains[entity_id] = self._one(
                "SELECT chain FROM types WHERE name = ? ORDER BY path, rowid LIMIT 1", entity_id
            )
        return self._chains[entity_id]

    def base_refs(self, class_id: str) -> Sequence[Reference]:
        if class_id not in self._bases:
            rows = self.db.execute(
                "SELECT target, written, start_line, end_line, mode FROM refs"
                " WHERE subject = ? AND relation = 'inherits' ORDER BY path, rowid",
                (class_id,),
            )
            self._bases[class_id] = [
                Reference(RelationKind.INHERITS, class_id, target, written, start, end, mode)
                for target, written, start, end, mode in rows
            ]
        return self._bases[class_id]

    def is_module(self, name: str) -> bool:
        return name in self.modules

    def decided(self, name: str) -> Sequence[str]:
        if "." in name:
            member = name.rpartition(".")[2]
            rows = self.db.execute(
                "SELECT id FROM entities WHERE name = ? AND kind = 'method' AND derived = 0"
                " ORDER BY path, rowid",
                (member,),
            )
            return [row[0] for row in rows if ".".join(row[0].rsplit(".", 2)[-2:]) == name]
        rows = self.db.execute(
            "SELECT id FROM entities WHERE name = ? AND kind IN ('class', 'function')"
            " AND derived = 0 ORDER BY path, rowid",
            (name,),
        )
        return [row[0] for row in rows]

    def classes(self, name: str) -> Sequence[tuple[str, str]]:
        if name not in self._classes:
            rows = self.db.execute(
                "SELECT e.id, f.module FROM entities e JOIN files f ON f.path = e.path"
                " WHERE e.name = ? AND e.kind = 'class' AND e.derived = 0 ORDER BY e.id",
                (name,),
            )
            self._classes[name] = [(class_id, module) for class_id, module in rows]
        return self._classes[name]

    def imports(self, path: str) -> tuple[str, Collection[str]]:
        if path not in self._imports:
            module = self._one("SELECT module FROM files WHERE path = ?", path) or ""
            rows = self.db.execute("SELECT target FROM aliases WHERE path = ?", (path,))
            self._imports[path] = (module, frozenset(row[0] for row in rows))
        return self._imports[path]
