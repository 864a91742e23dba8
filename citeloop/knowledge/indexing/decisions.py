"""Indexing Markdown decision records (``docs/adr/*.md``, ``decisions/*.md``).

A record's id is the first ``DEC-<n>`` / ``ADR-<n>`` in its first heading or file name,
else ``ADR-<nnnn>`` from a numbered file name (``0003-use-sqlite.md`` -> ``ADR-0003``).
Records without an id (a README, a template) contribute nothing. The title is the first
heading without the id and numbering. Every identifier in the record becomes a
``decided`` reference, linked to the indexed classes and functions of that name.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from citeloop.knowledge.indexing.records import FileIndex, Reference
from citeloop.knowledge.model import Entity, EntityKind, RelationKind

_DECISION_ID = re.compile(r"\b(?:DEC|ADR)-\d+\b")
_NUMBERED_FILE = re.compile(r"(\d+)[-_]")
_HEADING = re.compile(r"#{1,6}\s+(.*)")
_TITLE_NOISE = " \t:-–—.#"
_IDENTIFIER = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
_FENCE = "```"


def _record_id(heading: str, filename: str) -> str | None:
    for text in (heading, filename):
        if match := _DECISION_ID.search(text):
            return match.group()
    if match := _NUMBERED_FILE.match(filename):
        return f"ADR-{int(match.group(1)):04d}"
    return None


def _title(heading: str, record_id: str, stem: str) -> str:
    title = heading.replace(record_id, "", 1).strip(_TITLE_NOISE)
    # "3. Use SQLite" -> "Use SQLite"
    title = re.sub(r"^\d+[.)]?\s+", "", title)
    return title or stem.replace("-", " ").replace("_", " ")


def index_decision(path: str, digest: str, text: str) -> FileIndex:
    """Index one decision record.

    Args:
        path: POSIX path relative to the indexed root.
        digest: SHA-256 hex digest of the file's bytes.
        text: The decoded Markdown text.

    Returns:
        The decision entity and one ``decided`` reference per distinct identifier
        (first occurrence), marked ``mode="code"`` when written in backticks or a
        fenced block; empty when the record has no id.
    """
    index = FileIndex(path, digest)
    lines = text.splitlines()
    heading, heading_line = "", 1
    for number, line in enumerate(lines, start=1):
        if match := _HEADING.match(line):
            heading, heading_line = match.group(1).strip(), number
            break
    pure = PurePosixPath(path)
    record_id = _record_id(heading, pure.name)
    if record_id is None:
        return index
    title = _title(heading, record_id, pure.stem)
    index.entities.append(
        Entity(record_id, EntityKind.DECISION, record_id, path, heading_line, title)
    )
    seen: dict[str, Reference] = {}
    fenced = False
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith(_FENCE):
            fenced = not fenced
            continue
        # Odd segments between backticks are inline code.
        for position, segment in enumerate(line.split("`")):
            code = fenced or position % 2 == 1
            for match in _IDENTIFIER.finditer(segment):
                name = match.group()
                known = seen.get(name)
                if known is None or (code and known.mode != "code"):
                    seen[name] = Reference(
                        RelationKind.DECIDED,
                        record_id,
                        name,
                        name,
                        number,
                        number,
                        "code" if code else "",
                    )
    index.references.extend(seen.values())
    return index
