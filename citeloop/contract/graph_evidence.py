"""Evidence indexes from the knowledge graph: one unit per fact, with what backs it.

- :func:`evidence_from_graph`: one unit per fact of a
  :class:`~citeloop.knowledge.GraphStore`, with its provenance, the signatures and
  docstrings of the entities it joins and (given the indexed folder) the source lines
  of its provenance span, bounded; the version is the graph's snapshot.
- :func:`fact_unit`: the unit of one fact; :func:`~citeloop.knowledge.source.read_source`
  reads the lines of one indexed file, only below the indexed root.

Every error is a :class:`~citeloop.errors.ConfigurationError` that names the ids or the
folder at fault; a source file that cannot be read is no error: its units are marked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from citeloop.contract.evidence_files import listed
from citeloop.contract.schemas import EvidenceIndex, EvidenceUnit
from citeloop.errors import ConfigurationError
from citeloop.knowledge import BatchedGraphStore, Entity, EntityRef, Fact, GraphStore, Provenance
from citeloop.knowledge.source import (
    SOURCE_MISSING,
    SOURCE_OUTSIDE_ROOT,
    SOURCE_UNREADABLE,
    SourceLines,
    read_source,
)
from citeloop.knowledge.store import READ_ATTEMPTS, batched, changed_during

MAX_UNIT_TEXT_CHARS = 2_400
"""Characters of a graph unit's text the source lines may fill up to: lines past it are
left out and counted. It stays under the audit's
:data:`citeloop.contract.audit_payload.MAX_TEXT_CHARS`, so the auditor sees a unit whole
(only an entity label longer than a few hundred characters can push a unit past it)."""

MAX_SOURCE_LINES = 30
"""Source lines shown of one fact's provenance span at most; the rest are counted."""

MAX_SOURCE_LINE_CHARS = 160
"""Characters shown of one source line; a longer line ends in ``…``."""

MAX_SIGNATURE_CHARS = 200
"""Characters shown of an entity's signature; a longer one ends in ``…``."""

MAX_UNIT_DOCSTRING_CHARS = 400
"""Characters shown of an entity's docstring, cut at a line end (a first line longer
than that is cut and ends in ``…``); the lines left out are counted."""

SOURCE_CHANGED = "(source changed since indexing)"
"""The mark of a unit whose file's SHA-256 digest differs from its provenance's (the
other marks, :data:`~citeloop.knowledge.source.SOURCE_MISSING` and the rest, say why a
file was not read)."""


def _ref(entities: Mapping[str, Entity], entity_id: str) -> EntityRef:
    entity = entities.get(entity_id)
    return EntityRef.of(entity) if entity is not None else EntityRef("", entity_id, entity_id)


def _more(count: int) -> str:
    return f"… ({count} more line{'s' if count != 1 else ''})"


def _clipped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in ``…`` when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fitting(lines: list[str], max_lines: int, max_chars: int) -> int:
    """How many of ``lines`` fit: at most ``max_lines`` and ``max_chars`` characters with
    a line break after each."""
    used = 0
    for count, line in enumerate(lines[:max_lines]):
        used += len(line) + 1
        if used > max_chars:
            return count
    return min(len(lines), max_lines)


def _entity_block(entity: Entity) -> list[str]:
    """An entity's lines of a unit: its label, then its signature and docstring (bounded);
    ``[]`` when it has neither."""
    signature = " ".join(entity.signature.split())
    docstring = entity.docstring.strip()
    if not signature and not docstring:
        return []
    block = [f"- {EntityRef.of(entity).label()}"]
    if signature:
        block.append(f"  signature: {_clipped(signature, MAX_SIGNATURE_CHARS)}")
    if docstring:
        lines = docstring.splitlines()
        shown = _fitting(lines, len(lines), MAX_UNIT_DOCSTRING_CHARS)
        kept = lines[:shown] or [_clipped(lines[0], MAX_UNIT_DOCSTRING_CHARS)]
        block.append(f"  docstring: {kept[0]}")
        block.extend(f"    {line}" if line else "" for line in kept[1:])
        if len(kept) < len(lines):
            block.append(f"    {_more(len(lines) - len(kept))}")
    return block


def _source_block(provenance: Provenance, source: SourceLines | None, room: int) -> list[str]:
    """The unit's lines of the fact's provenance span: a heading, then the numbered lines
    (at most :data:`MAX_SOURCE_LINES`, and ``room`` characters) and what was left out;
    or the heading with the mark of why there are none. ``[]`` without a source root."""
    if source is None:
        return []
    heading = f"- source {provenance.marker()}"
    if source.problem:
        return [f"{heading} {source.problem}"]
    if source.digest != provenance.digest:
        return [f"{heading} {SOURCE_CHANGED}"]
    start = max(provenance.start_line, 1)
    numbers = range(start, min(max(provenance.end_line, start), len(source.lines)) + 1)
    width = len(str(numbers.stop - 1)) if numbers else 1
    lines = [
        f"  {number:>{width}} | {_clipped(source.lines[number - 1], MAX_SOURCE_LINE_CHARS)}"
        for number in numbers
    ]
    lines = [line.rstrip() for line in lines]
    room -= len(heading) + 1
    shown = _fitting(lines, MAX_SOURCE_LINES, room)
    if shown < len(lines):  # make room for the line that counts the rest
        shown = _fitting(lines, MAX_SOURCE_LINES, room - len(f"  {_more(len(lines))}") - 1)
    block = [heading, *lines[:shown]]
    if shown < len(lines):
        block.append(f"  {_more(len(lines) - shown)}")
    return block


def fact_unit(
    fact: Fact,
    subject: EntityRef,
    object_: EntityRef,
    *,
    entities: Mapping[str, Entity] | None = None,
    source: SourceLines | None = None,
) -> EvidenceUnit:
    """The evidence unit of one fact.

    - ``id``: the fact id.
    - ``source``: the provenance marker (``"shapes/circle.py:12-14"``), or the subject's
      entity id when the fact has no provenance.
    - ``text``: the fact as a sentence, in the words of
      :func:`citeloop.knowledge.paths.describe_hop`
      (``"class Circle defines method Circle.area"``), then what backs it, one line each:

      - for the subject, then the object (once when they are one entity), when it is in
        ``entities`` and has a signature or a docstring: ``- <label>``, ``  signature:
        ...`` (at most :data:`MAX_SIGNATURE_CHARS`), ``  docstring: ...`` (cut at a line
        end to :data:`MAX_UNIT_DOCSTRING_CHARS`, continuation lines indented by four
        spaces, the lines left out counted as ``… (3 more lines)``);
      - with ``source`` and a provenance: ``- source <marker>``, then the lines of the
        provenance span, numbered (``  12 |     return a + b``): at most
        :data:`MAX_SOURCE_LINES` lines of at most :data:`MAX_SOURCE_LINE_CHARS`
        characters each, and only as many as keep the text within
        :data:`MAX_UNIT_TEXT_CHARS`; the rest counted as ``  … (12 more lines)``. When
        the file was not read, or its digest is not the provenance's, the heading ends
        with a mark (:data:`SOURCE_CHANGED`, :data:`SOURCE_MISSING`,
        :data:`SOURCE_OUTSIDE_ROOT`, :data:`SOURCE_UNREADABLE`) and no line follows:
        never lines of another version of the file.

      Without entities that have a signature or a docstring, and without ``source``, the
      text is the sentence alone.
    - ``attributes``: ``subject`` and ``object`` (the entities' short names),
      ``subject_id`` and ``object_id``, ``relation``, and with provenance ``path``,
      ``lines`` (``"12-14"``, or ``"12"``) and ``digest`` (SHA-256 of the file).

    Args:
        fact: The fact.
        subject: Its subject entity (:meth:`EntityRef.of`).
        object_: Its object entity.
        entities: The entities of the graph by id (at least the fact's ends), for their
            signatures and docstrings; ``None`` for none.
        source: The file of the fact's provenance (:func:`read_source`), or ``None`` for
            no source lines.
    """
    attributes = {
        "subject": subject.name,
        "subject_id": fact.subject,
        "relation": str(fact.relation),
        "object": object_.name,
        "object_id": fact.object,
    }
    provenance = fact.provenance
    if provenance is not None:
        marker = provenance.marker()
        attributes["path"] = provenance.path
        attributes["lines"] = marker[len(provenance.path) + 1 :]
        attributes["digest"] = provenance.digest
    lines = [f"{subject.label()} {fact.relation} {object_.label()}"]
    for entity_id in dict.fromkeys((fact.subject, fact.object)):
        entity = (entities or {}).get(entity_id)
        if entity is not None:
            lines.extend(_entity_block(entity))
    if provenance is not None:
        used = sum(len(line) + 1 for line in lines)
        lines.extend(_source_block(provenance, source, MAX_UNIT_TEXT_CHARS - used))
    return EvidenceUnit(
        id=fact.fact_id,
        source=provenance.marker() if provenance is not None else fact.subject,
        text="\n".join(lines),
        attributes=attributes,
    )


def _facts_of(store: BatchedGraphStore, entity_ids: list[str]) -> dict[str, Fact]:
    """The facts touching ``entity_ids``, by fact id (first seen wins)."""
    facts: dict[str, Fact] = {}
    for found in store.facts_of_many(entity_ids).values():
        for fact in found:
            facts.setdefault(fact.fact_id, fact)
    return facts


def _find_facts(store: GraphStore, wanted: set[str]) -> dict[str, Fact]:
    """The facts of ``wanted``, walking the graph entity by entity until all are found
    (the :class:`GraphStore` protocol has no look-up by fact id)."""
    found: dict[str, Fact] = {}
    for entity in store.all_entities():
        for fact in store.facts_of(entity.id):
            if fact.fact_id in wanted:
                found.setdefault(fact.fact_id, fact)
        if len(found) == len(wanted):
            break
    return found


def _ids(values: Iterable[str] | None, what: str) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, str):
        raise ConfigurationError(f"{what} must be a list of ids, not the string {values!r}")
    ids = list(dict.fromkeys(values))
    bad = [value for value in ids if not isinstance(value, str) or not value]
    if bad:
        raise ConfigurationError(f"{what} must be non-empty strings; got {listed(bad)}")
    return ids


def _source_root(source_root: str | Path | None) -> Path | None:
    """``source_root`` absolute and resolved, or ``None``.

    Raises:
        ConfigurationError: It is not an existing directory.
    """
    if source_root is None:
        return None
    root = Path(source_root)
    if not root.is_dir():
        problem = "does not exist" if not root.exists() else "is not a directory"
        raise ConfigurationError(
            f"source_root {str(source_root)!r} {problem}; pass the folder that was indexed "
            "(the path given to `citeloop index`)"
        )
    return root.resolve()


def _read_facts(
    store: GraphStore,
    reads: BatchedGraphStore,
    wanted: list[str] | None,
    entities: list[str] | None,
) -> tuple[str, dict[str, Fact], dict[str, Entity]]:
    """The snapshot id, the facts :func:`evidence_from_graph` asks for by id, and the
    entities at their ends, read in the caller's session."""
    version = reads.snapshot()
    if entities is not None:
        known = reads.get_entities(entities)
        unknown = [entity_id for entity_id in entities if entity_id not in known]
        if unknown:
            raise ConfigurationError(f"no entity with id {listed(unknown)} in the graph")
        facts = _facts_of(reads, entities)
        if wanted is not None:
            facts = {fact_id: facts[fact_id] for fact_id in wanted if fact_id in facts}
    elif wanted is not None:
        facts = _find_facts(store, set(wanted)) if wanted else {}
    else:
        facts = _facts_of(reads, [entity.id for entity in store.all_entities()])
    ends = reads.get_entities(
        {end for fact in facts.values() for end in (fact.subject, fact.object)}
    )
    return version, facts, ends


def evidence_from_graph(
    store: GraphStore,
    fact_ids: Iterable[str] | None = None,
    *,
    entity_ids: Iterable[str] | None = None,
    source_root: str | Path | None = None,
) -> EvidenceIndex:
    """An evidence index of facts of the knowledge graph, one unit per fact.

    Units are built by :func:`fact_unit` and sorted by fact id: the fact as a sentence,
    the signature and docstring of the entities it joins, and, with ``source_root``, the
    source lines of its provenance span (a definition's whole span for ``defines``, the
    call's line for ``calls``), all bounded (:data:`MAX_UNIT_TEXT_CHARS`,
    :data:`MAX_SOURCE_LINES`, :data:`MAX_SOURCE_LINE_CHARS`,
    :data:`MAX_SIGNATURE_CHARS`, :data:`MAX_UNIT_DOCSTRING_CHARS`), each cut marked.
    The version is ``store.snapshot()``, so a result made from an older graph has a
    ``scope/mixed_snapshot``.

    Which facts:

    - ``entity_ids`` given: the facts touching those entities (as subject or object).
    - ``fact_ids`` given: those facts. Without ``entity_ids`` the graph is walked entity
      by entity until every id is found (the store has no look-up by fact id), so give
      ``entity_ids`` too on a large graph; with both, the facts must touch the entities.
    - neither: every fact (``facts_of`` for every entity, de-duplicated).

    Source lines: the graph does not record the folder it indexed, so pass it as
    ``source_root``. Each file a provenance names is read once per call
    (:func:`read_source`), only below ``source_root``, and shown only when its SHA-256
    digest is the provenance's: a file edited, removed, unreadable or outside the root
    since indexing gives no lines and a mark (:data:`SOURCE_CHANGED`, ...) instead.
    Since the text shows the files' current state, a result's evidence made before a
    file changed is ``evidence/altered_evidence`` against an index made after.

    Args:
        store: Any :class:`~citeloop.knowledge.GraphStore`.
        fact_ids: Only these facts, or ``None``.
        entity_ids: Only facts touching these entities, or ``None``.
        source_root: The folder the graph was indexed from (relative paths are to the
            working directory), or ``None`` for no source lines.

    Returns:
        The index.

    Raises:
        ConfigurationError: An entity id the graph does not have, a fact id not found
            (among the facts of ``entity_ids`` when given), an id that is not a
            non-empty string, or a ``source_root`` that is not a directory. A source file
            that cannot be read is no error: its units are marked.

    Example:
        >>> from citeloop.knowledge import Entity, EntityKind, MemoryGraphStore, RelationKind
        >>> store = MemoryGraphStore(
        ...     [Entity("m.A", EntityKind.CLASS, "A"), Entity("m.A.pay", EntityKind.METHOD, "pay")],
        ...     [Fact("m.A", RelationKind.DEFINES, "m.A.pay")],
        ... )
        >>> [unit.text for unit in evidence_from_graph(store).units.values()]
        ['class A defines method A.pay']
    """
    wanted = _ids(fact_ids, "fact_ids")
    entities = _ids(entity_ids, "entity_ids")
    root = _source_root(source_root)
    reads = batched(store)
    for _ in range(READ_ATTEMPTS):  # the facts and their ends of one version
        with reads.reading() as session:
            version, facts, ends = _read_facts(store, reads, wanted, entities)
        if not changed_during(session):
            break
    if wanted is not None:
        missing = [fact_id for fact_id in wanted if fact_id not in facts]
        if missing:
            where = " among the facts of entity_ids" if entities is not None else " in the graph"
            raise ConfigurationError(f"no fact with id {listed(missing)}{where}")
    files: dict[str, SourceLines] = {}

    def source_of(fact: Fact) -> SourceLines | None:
        if root is None or fact.provenance is None:
            return None
        path = fact.provenance.path
        if path not in files:
            files[path] = read_source(root, path)
        return files[path]

    units = {
        fact_id: fact_unit(
            fact,
            _ref(ends, fact.subject),
            _ref(ends, fact.object),
            entities=ends,
            source=source_of(fact),
        )
        for fact_id, fact in sorted(facts.items())
    }
    return EvidenceIndex(version=version, units=units)


__all__ = [
    "MAX_SIGNATURE_CHARS",
    "MAX_SOURCE_LINES",
    "MAX_SOURCE_LINE_CHARS",
    "MAX_UNIT_DOCSTRING_CHARS",
    "MAX_UNIT_TEXT_CHARS",
    "SOURCE_CHANGED",
    "SOURCE_MISSING",
    "SOURCE_OUTSIDE_ROOT",
    "SOURCE_UNREADABLE",
    "SourceLines",
    "evidence_from_graph",
    "fact_unit",
    "read_source",
]
