"""Writing a graph file: one transaction per index run that re-links only what can change.

Every derived fact (``inherits``, ``calls``, ``tested_by``, ``traces``, ``decided``) is
owned by the file its reference is written in, and every file records the module names
its links read (the ``deps`` table, see :mod:`citeloop.knowledge.linker`). When files
change, their rows are replaced; a file whose *interface* changed (what others may read
of it: entity ids and kinds, aliases, types, bases; see
:meth:`~citeloop.knowledge.records.FileIndex.interface`), appeared or went away marks its
module name (and, when it appeared or went away, its packages') as changed; the files
that read a changed name, and the changed files, are re-linked. Derived entities
(``?name`` targets, requirements) are recomputed for the ids those facts touch, and the
snapshot is a multiset hash kept up to date. The result equals a full re-index.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence

from citeloop.knowledge.linker import (
    Resolver,
    decidable_names,
    link_code,
    link_decisions,
    requirement_entity,
    unresolved_entities,
)
from citeloop.knowledge.model import Entity, EntityKind, Fact, Provenance, RelationKind
from citeloop.knowledge.records import FileIndex, Reference
from citeloop.knowledge.sqlite_schema import INDEXES, STAR, entity_row, fact_row, index_name
from citeloop.knowledge.store import item_digest, snapshot_of_sum

_BATCH = 400
"""Values bound per ``IN (...)`` statement: within SQLite's default limit of 999."""


def _batches(values: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(values), _BATCH):
        yield values[start : start + _BATCH]


def _select_in(db: sqlite3.Connection, query: str, values: Iterable[str]) -> list[tuple]:
    """Rows of ``query`` (with one ``{marks}``) for every batch of ``values``."""
    rows: list[tuple] = []
    for batch in _batches(sorted(set(values))):
        marks = ", ".join("?" * len(batch))
        rows.extend(db.execute(query.format(marks=marks), list(batch)).fetchall())
    return rows


def _parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:cut]) for cut in range(1, len(parts))]


class _MemorySymbols:
    """:class:`~citeloop.knowledge.linker.Symbols` over every file of a full index run."""

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


class _SqlSymbols:
    """:class:`~citeloop.knowledge.linker.Symbols` read from the store, each key once."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.modules = {row[0] for row in db.execute("SELECT module FROM files WHERE module != ''")}
        self._kinds: dict[str, EntityKind | None] = {}
        self._aliases: dict[str, str | None] = {}
        self._stars: dict[str, list[str]] = {}
        self._chains: dict[str, str | None] = {}
        self._bases: dict[str, list[Reference]] = {}

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


class _Writer:
    """One index run's changes to a graph file (inside the caller's transaction)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        row = db.execute("SELECT value FROM meta WHERE key = 'snapshot_sum'").fetchone()
        self.total = int(row[0], 16) if row else 0

    # -- rows, keeping the snapshot sum ---------------------------------------------

    def drop_entities(self, where: str, params: Sequence[object]) -> list[str]:
        ids = [row[0] for row in self.db.execute(f"SELECT id FROM entities WHERE {where}", params)]
        self.total -= sum(item_digest("e", entity_id) for entity_id in ids)
        self.db.execute(f"DELETE FROM entities WHERE {where}", params)
        return ids

    def drop_facts_of(self, paths: Sequence[str], derived_only: bool) -> list[tuple[str, str]]:
        """Delete the facts owned by ``paths``; return their (relation, object) pairs."""
        extra = " AND derived = 1" if derived_only else ""
        gone: list[tuple[str, str]] = []
        for batch in _batches(sorted(paths)):
            marks = ", ".join("?" * len(batch))
            where = f"path IN ({marks}){extra}"
            rows = self.db.execute(
                f"SELECT fact_id, relation, object FROM facts WHERE {where}", list(batch)
            ).fetchall()
            self.total -= sum(item_digest("f", fact_id) for fact_id, _, _ in rows)
            gone.extend((relation, object_) for _, relation, object_ in rows)
            self.db.execute(f"DELETE FROM facts WHERE {where}", list(batch))
        return gone

    def add_entities(self, entities: Iterable[Entity], derived: bool, check: bool) -> None:
        fresh: dict[str, Entity] = {}
        for entity in entities:
            fresh.setdefault(entity.id, entity)
        if check:
            taken = _select_in(self.db, "SELECT id FROM entities WHERE id IN ({marks})", fresh)
            for (entity_id,) in taken:
                del fresh[entity_id]
        self.db.executemany(
            "INSERT INTO entities VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [entity_row(entity, derived) for entity in fresh.values()],
        )
        self.total += sum(item_digest("e", entity_id) for entity_id in fresh)

    def add_facts(self, facts: Iterable[Fact], derived: bool, check: bool) -> None:
        fresh: dict[str, Fact] = {}
        for fact in facts:
            fresh.setdefault(fact.fact_id, fact)
        if check:
            taken = _select_in(
                self.db, "SELECT fact_id FROM facts WHERE fact_id IN ({marks})", fresh
            )
            for (fact_id,) in taken:
                del fresh[fact_id]
        self.db.executemany(
            "INSERT INTO facts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [fact_row(fact, derived) for fact in fresh.values()],
        )
        self.total += sum(item_digest("f", fact_id) for fact_id in fresh)

    def add_files(self, updated: Sequence[FileIndex], check: bool) -> None:
        db = self.db
        db.executemany(
            "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?)",
            [
                (
                    i.path,
                    i.digest,
                    i.module,
                    i.context,
                    i.interface(),
                    "\n".join(sorted(i.top_names)),
                )
                for i in updated
            ],
        )
        self.add_entities((e for i in updated for e in i.entities), False, check)
        self.add_facts((f for i in updated for f in i.facts), False, check)
        db.executemany(
            "INSERT INTO refs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    i.path,
                    r.relation.value,
                    r.subject,
                    r.target,
                    r.written,
                    r.start_line,
                    r.end_line,
                    r.mode,
                )
                for i in updated
                for r in i.references
            ],
        )
        db.executemany(
            "INSERT INTO aliases VALUES (?, ?, ?)",
            [
                *((i.path, name, target) for i in updated for name, target in i.aliases.items()),
                *((i.path, i.module + STAR, star) for i in updated for star in i.stars),
            ],
        )
        db.executemany(
            "INSERT INTO types VALUES (?, ?, ?)",
            [(i.path, name, chain) for i in updated for name, chain in i.types.items()],
        )

    def drop_files(self, paths: Sequence[str]) -> list[tuple[str, str]]:
        """Delete every row of ``paths``; return the (relation, object) of their facts."""
        for batch in _batches(sorted(paths)):
            marks = ", ".join("?" * len(batch))
            for table in ("files", "refs", "aliases", "types", "deps"):
                self.db.execute(f"DELETE FROM {table} WHERE path IN ({marks})", list(batch))
            self.drop_entities(f"derived = 0 AND path IN ({marks})", list(batch))
        return self.drop_facts_of(paths, derived_only=False)

    # -- the run --------------------------------------------------------------------

    def apply(self, updated: Sequence[FileIndex], removed: Sequence[str]) -> None:
        db = self.db
        by_path = {index.path: index for index in updated}
        stale = sorted(set(by_path) | set(removed))
        old = {
            path: (module, interface)
            for path, module, interface in _select_in(
                db, "SELECT path, module, interface FROM files WHERE path IN ({marks})", stale
            )
        }
        (files,) = db.execute("SELECT COUNT(*) FROM files").fetchone()
        full = files == len(old)
        if full:  # nothing is kept: start afresh (derived rows too), indexes built last
            for table in ("files", "entities", "facts", "refs", "aliases", "types", "deps"):
                db.execute(f"DELETE FROM {table}")
            for statement in INDEXES:
                db.execute(f"DROP INDEX IF EXISTS {index_name(statement)}")
            self.total = 0
            gone: list[tuple[str, str]] = []
        else:
            gone = self.drop_files(stale)
        self.add_files(updated, check=not full)
        if full:
            indexes = sorted(updated, key=lambda i: i.path)
            symbols: _MemorySymbols | _SqlSymbols = _MemorySymbols(indexes)
            references: Iterable[tuple[Reference, Provenance]] = (
                (
                    reference,
                    Provenance(index.path, reference.start_line, reference.end_line, index.digest),
                )
                for index in indexes
                for reference in sorted(index.references, key=lambda r: r.start_line)
            )
        else:
            symbols = _SqlSymbols(db)
            relink = self._relink_set(by_path, old, removed)
            extra = [path for path in relink if path not in by_path]
            gone += self.drop_facts_of(extra, derived_only=True)
            for batch in _batches(extra):
                db.execute(
                    f"DELETE FROM deps WHERE path IN ({', '.join('?' * len(batch))})", list(batch)
                )
            references = self._stored_references(relink)
        facts, traces = self._link(symbols, references)
        self._derived_entities(full, gone, facts, traces)
        if full:
            for statement in INDEXES:
                db.execute(statement)

    def _relink_set(
        self, by_path: dict[str, FileIndex], old: dict[str, tuple[str, str]], removed: Sequence[str]
    ) -> list[str]:
        changed: set[str] = set()
        for path in set(by_path) | set(removed):
            new = by_path.get(path)
            before = old.get(path)
            if new is None or before is None:
                module = new.module if new is not None else before[0]  # type: ignore[index]
                if module:
                    changed |= {module, *_parents(module)}
            elif before != (new.module, new.interface()):
                changed |= {module for module in (before[0], new.module) if module}
        relink = set(by_path)
        if changed:
            relink.update(
                row[0]
                for row in _select_in(
                    self.db, "SELECT DISTINCT path FROM deps WHERE module IN ({marks})", changed
                )
            )
            relink.update(
                row[0] for row in self.db.execute("SELECT path FROM files WHERE module = ''")
            )
        return sorted(relink)

    def _stored_references(self, paths: Sequence[str]) -> Iterator[tuple[Reference, Provenance]]:
        """The references of ``paths`` as stored, by path, then line, then order."""
        for path, relation, subject, target, written, start, end, mode, digest in _select_in(
            self.db,
            "SELECT r.path, r.relation, r.subject, r.target, r.written, r.start_line,"
            " r.end_line, r.mode, f.digest FROM refs r JOIN files f ON f.path = r.path"
            " WHERE r.path IN ({marks}) ORDER BY r.path, r.start_line, r.rowid",
            paths,
        ):
            reference = Reference(
                RelationKind(relation), subject, target, written, start, end, mode
            )
            yield reference, Provenance(path, start, end, digest)

    def _link(
        self,
        symbols: _MemorySymbols | _SqlSymbols,
        references: Iterable[tuple[Reference, Provenance]],
    ) -> tuple[list[Fact], list[tuple[str, int, str, str]]]:
        """Link ``references`` (by path, then line); return the new facts and the traces
        references (path, line, requirement, title) among them."""
        code: list[tuple[Reference, Provenance]] = []
        decided: list[tuple[Reference, Provenance]] = []
        traces: list[tuple[str, int, str, str]] = []
        for reference, provenance in references:
            if reference.relation is RelationKind.DECIDED:
                decided.append((reference, provenance))
            else:
                code.append((reference, provenance))
                if reference.relation is RelationKind.TRACES:
                    traces.append(
                        (provenance.path, reference.start_line, reference.target, reference.written)
                    )
        linked = link_code(Resolver(symbols), code, symbols.kind)
        facts = linked.facts + link_decisions(decided, symbols.decided)
        self.add_facts(facts, True, check=isinstance(symbols, _SqlSymbols))
        self.db.executemany(
            "INSERT INTO deps VALUES (?, ?)",
            [
                (path, module)
                for path, modules in linked.dependencies.items()
                for module in sorted(modules)
            ],
        )
        return facts, traces

    def _derived_entities(
        self,
        full: bool,
        gone: list[tuple[str, str]],
        facts: list[Fact],
        traces: list[tuple[str, int, str, str]],
    ) -> None:
        """Recompute the ``?name`` and requirement entities the changed facts touch."""
        if full:
            requirements: dict[str, list[tuple[str, int, str]]] = {}
            for path, line, requirement, title in sorted(traces, key=lambda t: (t[0], t[1])):
                requirements.setdefault(requirement, []).append((path, line, title))
            entities = unresolved_entities(facts)
            entities.extend(
                entity
                for requirement, mentions in sorted(requirements.items())
                if (entity := requirement_entity(requirement, mentions)) is not None
            )
            self.add_entities(entities, True, check=False)
            return
        touched = {obj for _, obj in gone} | {fact.object for fact in facts}
        unresolved = sorted(obj for obj in touched if obj.startswith("?"))
        requirement_ids = sorted(
            {obj for relation, obj in gone if relation == RelationKind.TRACES.value}
            | {fact.object for fact in facts if fact.relation is RelationKind.TRACES}
        )
        for batch in _batches([*unresolved, *requirement_ids]):
            marks = ", ".join("?" * len(batch))
            self.drop_entities(f"derived = 1 AND id IN ({marks})", list(batch))
        entities: list[Entity] = []
        for entity_id in unresolved:
            relations = {
                row[0]
                for row in self.db.execute(
                    "SELECT relation FROM facts WHERE object = ?", (entity_id,)
                )
            }
            if relations:
                kind = (
                    EntityKind.CLASS
                    if RelationKind.INHERITS.value in relations
                    else EntityKind.FUNCTION
                )
                entities.append(Entity(entity_id, kind, entity_id[1:], resolved=False))
        for requirement in requirement_ids:
            mentions = self.db.execute(
                "SELECT path, start_line, written FROM refs WHERE relation = 'traces'"
                " AND target = ? ORDER BY path, start_line, rowid",
                (requirement,),
            ).fetchall()
            entity = requirement_entity(requirement, mentions)
            if entity is not None:
                entities.append(entity)
        self.add_entities(entities, True, check=True)

    def finish(self, index_format: str) -> str:
        snapshot = snapshot_of_sum(self.total)
        self.db.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)",
            [
                ("index_format", index_format),
                ("snapshot", snapshot),
                ("snapshot_sum", format(self.total % (1 << 256), "x")),
            ],
        )
        return snapshot


def apply_changes(
    db: sqlite3.Connection,
    updated: Sequence[FileIndex],
    removed: Sequence[str],
    index_format: str,
) -> str:
    """Replace the files in ``updated``, drop ``removed``, and re-link what can change.

    Runs inside the caller's transaction.

    Returns:
        The snapshot id after the change.
    """
    writer = _Writer(db)
    writer.apply(updated, removed)
    return writer.finish(index_format)


IMPORT_WARNING_SHARE = 0.1
"""Share of the tree's own imports left unresolved above which indexing warns."""

_MIN_UNRESOLVED = 5


def import_warnings(db: sqlite3.Connection, paths: Sequence[str], tops: set[str]) -> list[str]:
    """A warning when many module-level imports of the tree's own names in ``paths`` do
    not resolve: those whose first name is a top-level module of the tree (``tops``), or
    whose tail names one of its entities (the tree is imported under a package name
    it was not indexed as, e.g. a namespace package outside site-packages).

    Returns:
        ``[]``, or one warning with examples and the fix.
    """
    resolver = Resolver(_SqlSymbols(db))
    own = 0
    missing: list[str] = []
    prefixes: dict[str, int] = {}
    for (target,) in _select_in(
        db,
        f"SELECT target FROM aliases WHERE path IN ({{marks}}) AND name NOT LIKE '%{STAR}'",
        paths,
    ):
        if resolver.follow(target) is not None:
            own += target.split(".", 1)[0] in tops
            continue
        parts = target.split(".")
        if parts[0] in tops:
            own += 1
            missing.append(target)
            continue
        for cut in range(1, len(parts) - 1):
            if resolver.follow(".".join(parts[cut:])) is not None:
                own += 1
                missing.append(target)
                prefix = ".".join(parts[:cut])
                prefixes[prefix] = prefixes.get(prefix, 0) + 1
                break
    if len(missing) < _MIN_UNRESOLVED or len(missing) <= IMPORT_WARNING_SHARE * own:
        return []
    examples = ", ".join(sorted(set(missing))[:3])
    message = (
        f"{len(missing)} of {own} imports of the tree's own modules did not resolve "
        f"(e.g. {examples})"
    )
    if prefixes:
        best = max(sorted(prefixes), key=lambda prefix: prefixes[prefix])
        return [
            f"{message}; they name this tree's code under the package {best!r}: index it "
            f"with --package {best}"
        ]
    return [
        f"{message}; if the tree is a namespace package or is imported under another "
        "name, pass --package NAME"
    ]
