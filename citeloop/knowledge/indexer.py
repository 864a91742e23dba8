"""``index_tree``: build or refresh a knowledge graph from a Python source tree."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from citeloop.knowledge.decisions import index_decision
from citeloop.knowledge.python_index import index_python, module_name
from citeloop.knowledge.records import FileIndex
from citeloop.knowledge.sources import (
    SkippedFile,
    SourceFile,
    check_root,
    decode_source,
    discover,
)
from citeloop.knowledge.sqlite_store import SqliteGraphStore

ProgressCallback = Callable[[int, int, str], None]
"""Called after each file as ``progress(done, total, path)``."""

DEFAULT_MAX_FILE_BYTES = 2_000_000
INDEX_FORMAT = "2"
"""Version of what the indexer records; bump it when that changes, so that stores
written by an older indexer are re-indexed whole instead of only by file digest."""


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What one :func:`index_tree` run did.

    Attributes:
        files_seen: Python files and decision records found (skipped ones included).
        files_indexed: Files (re-)indexed because they are new or their digest changed.
        files_unchanged: Files whose digest matched the store, left as they were.
        files_removed: Files dropped from the graph: deleted, or now skipped.
        entities: Entities in the graph after the run.
        relations: Facts in the graph after the run.
        snapshot: The graph's snapshot id after the run.
        skipped: Files and linked directories not indexed, with the reason.
    """

    files_seen: int
    files_indexed: int
    files_unchanged: int
    files_removed: int
    entities: int
    relations: int
    snapshot: str
    skipped: tuple[SkippedFile, ...]


def root_package(root: Path) -> str:
    """Dotted package name of ``root`` when it is a package (has ``__init__.py``), so that
    ``langchain_core/`` indexes as ``langchain_core.*`` and absolute imports resolve."""
    names: list[str] = []
    directory = root
    while (directory / "__init__.py").is_file() and directory.name.isidentifier():
        names.append(directory.name)
        directory = directory.parent
    return ".".join(reversed(names))


def _index_file(
    source: SourceFile, known_digest: str | None, package: str, max_file_bytes: int
) -> FileIndex | SkippedFile | None:
    """The file's new index, why it was skipped, or ``None`` when unchanged."""
    try:
        size = source.location.stat().st_size
        if size > max_file_bytes:
            return SkippedFile(
                source.path,
                f"file is {size} bytes, over max_file_bytes={max_file_bytes} "
                "(likely generated); raise the limit to index it",
            )
        data = source.location.read_bytes()
    except OSError as error:
        return SkippedFile(source.path, f"cannot read file: {error.strerror or error}")
    digest = hashlib.sha256(data).hexdigest()
    if digest == known_digest:
        return None
    try:
        text = data.decode("utf-8-sig") if source.kind == "decision" else decode_source(data)
    except (UnicodeDecodeError, SyntaxError) as error:
        # detect_encoding raises SyntaxError for undecodable bytes in the first two lines.
        detail = error.msg if isinstance(error, SyntaxError) else error.reason
        fix = (
            "save the file as UTF-8"
            if source.kind == "decision"
            else "declare the encoding with a PEP 263 coding comment or save the file as UTF-8"
        )
        return SkippedFile(source.path, f"not decodable ({detail}); {fix}")
    if source.kind == "decision":
        return index_decision(source.path, digest, text)
    try:
        return index_python(source.path, digest, text, module_name(source.path, package))
    except SyntaxError as error:
        where = f" at line {error.lineno}" if error.lineno else ""
        return SkippedFile(source.path, f"syntax error{where}: {error.msg}")
    except ValueError as error:  # e.g. null bytes in the source
        return SkippedFile(source.path, f"not parseable as Python: {error}")
    except (RecursionError, MemoryError):
        # CPython's parser raises either for pathologically nested expressions.
        return SkippedFile(source.path, "syntax tree too deeply nested to parse")


def index_tree(
    root: str | os.PathLike[str],
    store: SqliteGraphStore,
    *,
    progress: ProgressCallback | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> IndexReport:
    """Index the Python sources and decision records below ``root`` into ``store``.

    Source is parsed with :mod:`ast`, never imported or run. Only files whose SHA-256
    digest differs from the stored one are re-indexed; facts of deleted files are
    removed; calls, bases and names are then re-linked across the whole tree. The
    store is changed in one transaction.

    Args:
        root: The directory to index (e.g. a repository root or a package directory).
        store: The store to update.
        progress: Optional callback ``(done, total, path)`` called after each file.
        max_file_bytes: Files larger than this are skipped (generated code, data).

    Returns:
        Counts, the new snapshot id, and the skipped files with reasons. Files with
        syntax errors, undecodable bytes or over the size limit are skipped, never fatal.

    Raises:
        SourceTreeError: If ``root`` does not exist or is not a directory.

    Example:
        >>> with SqliteGraphStore("graph.db") as store:  # doctest: +SKIP
        ...     report = index_tree("src", store)
    """
    root_path = check_root(root)
    files, skipped = discover(root_path)
    package = root_package(root_path)
    known = store.file_digests(INDEX_FORMAT)
    updated: list[FileIndex] = []
    present: set[str] = set()
    for done, source in enumerate(files, start=1):
        outcome = _index_file(source, known.get(source.path), package, max_file_bytes)
        if isinstance(outcome, SkippedFile):
            skipped.append(outcome)
        else:
            present.add(source.path)
            if outcome is not None:
                updated.append(outcome)
        if progress is not None:
            progress(done, len(files), source.path)
    removed = sorted(path for path in known if path not in present)
    changed = updated or removed
    snapshot = store.apply(updated, removed, INDEX_FORMAT) if changed else store.snapshot()
    stats = store.stats()
    return IndexReport(
        files_seen=len(files),
        files_indexed=len(updated),
        files_unchanged=len(present) - len(updated),
        files_removed=len(removed),
        entities=stats["entities"],
        relations=stats["facts"],
        snapshot=snapshot,
        skipped=tuple(sorted(skipped, key=lambda skip: skip.path)),
    )
