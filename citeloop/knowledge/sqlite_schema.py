"""The tables of a graph file, and entities and facts to and from their rows.

``search`` is the full-text index of the entities (:mod:`citeloop.knowledge.search`): a
row's ``rowid`` is its entity's ``rowid`` in ``entities``."""

from __future__ import annotations

from citeloop.knowledge.model import Entity, EntityKind, Fact, Provenance, RelationKind

APPLICATION_ID = 0x43544C50  # "CTLP"
"""The SQLite header's application id of a citeloop graph file
(https://sqlite.org/pragma.html#pragma_application_id): tells our files from others'."""

SCHEMA_VERSION = 12
"""``PRAGMA user_version`` of the tables below and of the values they hold: a relation
or entity kind a reader may not know (``overrides``, new in 10), or a column (``under``,
new in 11; ``asynchronous``, new in 12), is a new version, so that an older citeloop
refuses the file with the fix instead of failing on the value. A writer drops the tables
of another version (a graph is derived data: the next index run rebuilds it); a reader
refuses them."""

TABLES = ("meta", "files", "entities", "facts", "refs", "aliases", "types", "deps", "search")

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, digest TEXT NOT NULL, module TEXT NOT NULL, context TEXT NOT NULL,
    interface TEXT NOT NULL, names TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entities (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, path TEXT, line INTEGER,
    end_line INTEGER, signature TEXT NOT NULL, docstring TEXT NOT NULL,
    decorators TEXT NOT NULL, resolved INTEGER NOT NULL, derived INTEGER NOT NULL,
    set_in TEXT NOT NULL, assignments INTEGER NOT NULL, under TEXT NOT NULL,
    asynchronous INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS entities_by_name ON entities (name);
CREATE INDEX IF NOT EXISTS entities_by_path ON entities (path);
CREATE INDEX IF NOT EXISTS entities_resolved ON entities (id, resolved);
CREATE TABLE IF NOT EXISTS facts (
    fact_id TEXT PRIMARY KEY, subject TEXT NOT NULL, relation TEXT NOT NULL,
    object TEXT NOT NULL, path TEXT, start_line INTEGER, end_line INTEGER, digest TEXT,
    derived INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS facts_by_subject ON facts (subject, relation, object);
CREATE INDEX IF NOT EXISTS facts_by_object ON facts (object, relation, subject);
CREATE INDEX IF NOT EXISTS facts_by_path ON facts (path);
CREATE TABLE IF NOT EXISTS refs (
    path TEXT NOT NULL, relation TEXT NOT NULL, subject TEXT NOT NULL, target TEXT NOT NULL,
    written TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
    mode TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS refs_by_path ON refs (path);
CREATE INDEX IF NOT EXISTS refs_bases ON refs (subject) WHERE relation = 'inherits';
CREATE INDEX IF NOT EXISTS refs_traces ON refs (target) WHERE relation = 'traces';
CREATE TABLE IF NOT EXISTS aliases (path TEXT NOT NULL, name TEXT NOT NULL, target TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS aliases_by_path ON aliases (path);
CREATE INDEX IF NOT EXISTS aliases_by_name ON aliases (name);
CREATE TABLE IF NOT EXISTS types (path TEXT NOT NULL, name TEXT NOT NULL, chain TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS types_by_path ON types (path);
CREATE INDEX IF NOT EXISTS types_by_name ON types (name);
CREATE VIRTUAL TABLE IF NOT EXISTS search USING fts5(
    words, doc, tokenize = 'porter unicode61'
);
CREATE TABLE IF NOT EXISTS deps (path TEXT NOT NULL, module TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS deps_by_path ON deps (path);
CREATE INDEX IF NOT EXISTS deps_by_module ON deps (module);
"""

INDEXES = tuple(
    statement.strip()
    for statement in SCHEMA.split(";")
    if statement.strip().startswith("CREATE INDEX")
)
"""The secondary indexes: a full index run drops them, writes, and builds them once."""


def index_name(statement: str) -> str:
    """The name of an index from its ``CREATE INDEX IF NOT EXISTS name ON ...``."""
    return statement.split()[5]


ENTITY_COLUMNS = (
    "id, kind, name, path, line, signature, resolved, end_line, docstring, decorators, set_in, "
    "assignments, under, asynchronous"
)
FACT_COLUMNS = "fact_id, subject, relation, object, path, start_line, end_line, digest"
STAR = ".*"
"""Suffix of an alias row recording ``from m import *`` in a module (``"pkg.mod.*"``)."""

_KINDS = {kind.value: kind for kind in EntityKind}
_RELATIONS = {relation.value: relation for relation in RelationKind}
"""The enum members by stored value (a dict lookup; calling the enum is slower, and a
hub's facts are read by the thousand). An unknown value still raises, as the enum does."""


def entity_from_row(row: tuple) -> Entity:
    """An :class:`Entity` from a row of :data:`ENTITY_COLUMNS`."""
    (
        entity_id,
        kind,
        name,
        path,
        line,
        signature,
        resolved,
        end_line,
        docstring,
        decorators,
        set_in,
        assignments,
        under,
        asynchronous,
    ) = row
    return Entity(
        entity_id,
        _KINDS.get(kind) or EntityKind(kind),
        name,
        path,
        line,
        signature,
        bool(resolved),
        end_line,
        docstring,
        tuple(decorators.split("\n")) if decorators else (),
        set_in,
        assignments,
        under,
        bool(asynchronous),
    )


def fact_from_row(row: tuple) -> Fact:
    """A :class:`Fact` from a row of :data:`FACT_COLUMNS`."""
    fact_id, subject, relation, object_, path, start, end, digest = row
    provenance = Provenance(path, start, end, digest) if path is not None else None
    return Fact(
        subject, _RELATIONS.get(relation) or RelationKind(relation), object_, provenance, fact_id
    )


def entity_row(entity: Entity, derived: bool) -> tuple:
    """The ``entities`` row of an entity (columns in table order)."""
    return (
        entity.id,
        entity.kind.value,
        entity.name,
        entity.path,
        entity.line,
        entity.end_line,
        entity.signature,
        entity.docstring,
        "\n".join(entity.decorators),
        int(entity.resolved),
        int(derived),
        entity.set_in,
        entity.assignments,
        entity.under,
        int(entity.asynchronous),
    )


def fact_row(fact: Fact, derived: bool) -> tuple:
    """The ``facts`` row of a fact (columns in table order)."""
    where = fact.provenance
    return (
        fact.fact_id,
        fact.subject,
        fact.relation.value,
        fact.object,
        where.path if where else None,
        where.start_line if where else None,
        where.end_line if where else None,
        where.digest if where else None,
        int(derived),
    )
