"""Writing a graph file: one transaction per index run that re-links only what can change.

Every derived fact (``inherits``, ``calls``, ``tested_by``, ``traces``, ``decided``,
``uses_type``, ``references``) is owned by the file its reference is written in, and
every file records the module names its links read, and the class names its strings
were looked up by (the ``deps`` table, see :mod:`citeloop.knowledge.indexing.linker`).
When files change, their rows are replaced; a file whose *interface* changed (what
others may read of it: entity ids and kinds, aliases, types, bases; see
:meth:`~citeloop.knowledge.indexing.records.FileIndex.interface`), appeared or went away
marks its module name (and, when it appeared or went away, its packages') as changed,
and the names of the classes it gained or lost; the files that read a changed name, and
the changed files, are re-linked. Derived entities (``?name`` targets, requirements)
are recomputed for the ids those facts touch, and the snapshot is a multiset hash kept
up to date. The result equals a full re-index.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence

from citeloop.knowledge.indexing.linker import (
    Resolver,
    link_code,
    link_decisions,
    requirement_entity,
    unresolved_entities,
)
from citeloop.knowledge.indexing.records import FileIndex, Reference
from citeloop.knowledge.indexing.string_names import name_key
from citeloop.knowledge.indexing.symbols import MemorySymbols, SqlSymbols
from citeloop.knowledge.model import Entity, EntityKind, Fact, Provenance, RelationKind
from citeloop.knowledge.search import entity_document
from citeloop.knowledge.sqlite_schema import INDEXES, STAR, entity_row, fact_row, index_name
from citeloop.knowledge.store import entity_key, item_digest, located_key, snapshot_of_sum

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


class _Writer:
    """One index run's changes to a graph file (inside the caller's transaction)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        row = db.execute("SELECT value FROM meta WHERE key = 'snapshot_sum'").fetchone()
        self.total = int(row[0], 16) if row else 0

    # -- rows, keeping the snapshot sum ---------------------------------------------

    def drop_entities(self, where: str, params: Sequence[object]) -> list[str]:
        rows = self.db.execute(
            f"SELECT id, path, line, end_line FROM entities WHERE {where}", params
        ).fetchall()
        self.db.execute(
            f"DELETE FROM search WHERE rowid IN (SELECT rowid FROM entities WHERE {where})", params
        )
        self.total -= sum(item_digest("e", located_key(*row)) for row in rows)
        ids = [row[0] for row in rows]
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
        """Insert entities (the first of each id) and their documents in the full-text
        index (``search``)."""
        chosen: dict[str, Entity] = {}
        for entity in entities:
            chosen.setdefault(entity.id, entity)
        rows = {entity_id: entity_row(entity, derived) for entity_id, entity in chosen.items()}
        inserted = self._add("entities", "id", rows, check)
        self.total += sum(item_digest("e", entity_key(chosen[i])) for i in inserted)
        documents = {
            entity_id: document
            for entity_id in inserted
            if (document := entity_document(chosen[entity_id])) is not None
        }
        rowids = _select_in(
            self.db, "SELECT rowid, id FROM entities WHERE id IN ({marks})", documents
        )
        self.db.executemany(
            "INSERT INTO search (rowid, words, doc) VALUES (?, ?, ?)",
            [(rowid, *documents[entity_id]) for rowid, entity_id in rowids],
        )

    def add_facts(self, facts: Iterable[Fact], derived: bool, check: bool) -> None:
        """Insert facts (the first of each id)."""
        chosen: dict[str, Fact] = {}
        for fact in facts:
            chosen.setdefault(fact.fact_id, fact)
        rows = {fact_id: fact_row(fact, derived) for fact_id, fact in chosen.items()}
        inserted = self._add("facts", "fact_id", rows, check)
        self.total += sum(item_digest("f", fact_id) for fact_id in inserted)

    def _add(self, table: str, key: str, rows: dict[str, tuple], check: bool) -> Iterable[str]:
        """Insert ``rows`` by id, with ``check`` only those whose id is not stored yet;
        return the ids inserted (the caller adds them to the snapshot sum)."""
        if check:
            taken = _select_in(
                self.db, f"SELECT {key} FROM {table} WHERE {key} IN ({{marks}})", rows
            )
            for (item_id,) in taken:
                del rows[item_id]
        if not rows:
            return ()
        marks = ", ".join("?" * len(next(iter(rows.values()))))
        self.db.executemany(f"INSERT INTO {table} VALUES ({marks})", list(rows.values()))
        return rows.keys()

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
        old_classes: dict[str, set[tuple[str, str]]] = {}
        if not full:
            for path, class_id, name in _select_in(
                db,
                "SELECT path, id, name FROM entities WHERE kind = 'class' AND derived = 0"
                " AND path IN ({marks})",
                stale,
            ):
                old_classes.setdefault(path, set()).add((class_id, name))
        if full:  # nothing is kept: start afresh (derived rows too), indexes built last
            for table in ("files", "entities", "facts", "refs", "aliases", "types", "deps"):
                db.execute(f"DELETE FROM {table}")
            db.execute("DELETE FROM search")
            for statement in INDEXES:
                db.execute(f"DROP INDEX IF EXISTS {index_name(statement)}")
            self.total = 0
            gone: list[tuple[str, str]] = []
        else:
            gone = self.drop_files(stale)
        self.add_files(updated, check=not full)
        if full:
            indexes = sorted(updated, key=lambda i: i.path)
            symbols: MemorySymbols | SqlSymbols = MemorySymbols(indexes)
            references: Iterable[tuple[Reference, Provenance]] = (
                (
                    reference,
                    Provenance(index.path, reference.start_line, reference.end_line, index.digest),
                )
                for index in indexes
                for reference in sorted(index.references, key=lambda r: r.start_line)
            )
        else:
            symbols = SqlSymbols(db)
            relink = self._relink_set(by_path, old, old_classes, removed)
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
        self,
        by_path: dict[str, FileIndex],
        old: dict[str, tuple[str, str]],
        old_classes: dict[str, set[tuple[str, str]]],
        removed: Sequence[str],
    ) -> list[str]:
        """The changed files, and the files whose links read a changed module name: the
        module of a file whose interface changed; and for a file that appeared, went
        away or changed its name, its module's packages too (they gain or lose it).
        The names of the classes such a file gained or lost are changed too (the
        :func:`~citeloop.knowledge.indexing.string_names.name_key` a string's lookup
        read)."""
        changed: set[str] = set()
        for path in set(by_path) | set(removed):
            new = by_path.get(path)
            before = old.get(path)
            modules = {module for module in (before and before[0], new and new.module) if module}
            if new is None or before is None or before[0] != new.module:
                changed |= {name for module in modules for name in (module, *_parents(module))}
            elif before[1] != new.interface():
                changed |= modules
            else:
                continue
            now = (
                {(e.id, e.name) for e in new.entities if e.kind is EntityKind.CLASS}
                if new
                else set()
            )
            changed.update(name_key(name) for _, name in now ^ old_classes.get(path, set()))
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
        symbols: MemorySymbols | SqlSymbols,
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
        self.add_facts(facts, True, check=isinstance(symbols, SqlSymbols))
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
