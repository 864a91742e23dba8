"""``index_tree``: build or refresh a knowledge graph from a Python source tree."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from citeloop.knowledge.indexing.blocks import BlocksUnparseable, iter_blocks, splits_into_blocks
from citeloop.knowledge.indexing.decisions import index_decision
from citeloop.knowledge.indexing.diagnostics import graph_import_warnings, renamed_warnings
from citeloop.knowledge.indexing.file_lock import exclusive_writer
from citeloop.knowledge.indexing.modules import ModuleLayout, PackageRoot, module_layout
from citeloop.knowledge.indexing.python_index import index_python
from citeloop.knowledge.indexing.records import FileIndex
from citeloop.knowledge.indexing.sources import (
    DEFAULT_MAX_FILE_BYTES,
    SkippedFile,
    SourceFile,
    check_root,
    decode_source,
    discover,
)
from citeloop.knowledge.indexing.syntax import parse_source
from citeloop.knowledge.indexing.writer import apply_changes
from citeloop.knowledge.sqlite_store import SqliteGraphStore

ProgressCallback = Callable[[int, int, str], None]
"""Called after each file as ``progress(done, total, path)``."""

INDEX_FORMAT = "30"
"""Version of what the indexer records; bump it when that changes, so that stores
written by an older indexer are re-indexed whole instead of only by file digest."""


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What one :func:`index_tree` run did.

    Attributes:
        files_seen: Python files and decision records found (skipped ones included).
        files_indexed: Files (re-)indexed because they are new, their digest changed, or
            their module name changed.
        files_unchanged: Files whose digest matched the store, left as they were.
        files_removed: Files dropped from the graph: deleted, or now skipped.
        entities: Entities in the graph after the run.
        relations: Facts in the graph after the run.
        snapshot: The graph's snapshot id after the run.
        skipped: Files and linked directories not indexed, with the reason.
        packages: The top-level packages found, with their folders.
        lowered: Files written in syntax newer than the running Python, indexed by
            lowering it (see :mod:`citeloop.knowledge.indexing.syntax`).
        warnings: Things the user may want to fix, such as the tree's own imports that
            do not resolve (e.g. a namespace package indexed without ``--package``).
    """

    files_seen: int
    files_indexed: int
    files_unchanged: int
    files_removed: int
    entities: int
    relations: int
    snapshot: str
    skipped: tuple[SkippedFile, ...]
    packages: tuple[PackageRoot, ...] = ()
    lowered: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


_GC_THRESHOLD = 100_000
"""Allocations between young-generation collections while indexing (CPython's default
is 700): an index run allocates many objects that all live until it ends, and each
collection scans the older ones again (about a fifth of the run time at the default)."""


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """Raise the collector's first threshold (:func:`gc.set_threshold`) while indexing,
    and restore it after."""
    first, *older = gc.get_threshold()
    gc.set_threshold(max(first, _GC_THRESHOLD), *older)
    try:
        yield
    finally:
        gc.set_threshold(first, *older)


def _index_file(
    source: SourceFile, known_digest: str | None, layout: ModuleLayout, max_file_bytes: int
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
    except (UnicodeError, SyntaxError, LookupError) as error:
        # detect_encoding raises SyntaxError for undecodable bytes in the first two lines;
        # a coding cookie naming no text codec (``rot13``, ``undefined``) raises
        # LookupError or UnicodeError, as it makes Python's own import fail.
        if isinstance(error, SyntaxError):
            detail = error.msg
        elif isinstance(error, UnicodeDecodeError):
            detail = error.reason
        else:
            detail = str(error)
        fix = (
            "save the file as UTF-8"
            if source.kind == "decision"
            else "declare the encoding with a PEP 263 coding comment or save the file as UTF-8"
        )
        return SkippedFile(source.path, f"not decodable ({detail}); {fix}")
    if source.kind == "decision":
        return index_decision(source.path, digest, text)
    module = layout.modules[source.path]
    submodules = layout.children.get(module, ())
    try:
        index = None
        if splits_into_blocks(text):  # parsed and walked a block at a time: less memory
            with contextlib.suppress(BlocksUnparseable):
                index = index_python(
                    source.path,
                    digest,
                    text,
                    module,
                    tree=iter_blocks(text, source.path),
                    submodules=submodules,
                )
                lowered = False
        if index is None:
            parsed = parse_source(text, source.path)
            lowered = parsed.lowered
            index = index_python(
                source.path,
                digest,
                text,
                module,
                tree=parsed.tree,
                submodules=submodules,
                type_params=parsed.type_params,
                type_aliases=parsed.type_aliases,
            )
    except SyntaxError as error:
        where = f" at line {error.lineno}" if error.lineno else ""
        return SkippedFile(source.path, f"syntax error{where}: {error.msg}")
    except ValueError as error:  # e.g. null bytes in the source
        return SkippedFile(source.path, f"not parseable as Python: {error}")
    except (RecursionError, MemoryError):
        # CPython's parser raises either for pathologically nested expressions.
        return SkippedFile(source.path, "syntax tree too deeply nested to parse")
    except Exception as error:  # one file the indexer fails on is left out
        # A construct no rule foresaw must not stop the rest of the tree from indexing;
        # the report names the file and the error.
        return SkippedFile(
            source.path,
            f"the indexer failed on this file ({type(error).__name__}: {error}); it is "
            "left out of the graph: please report it with the file",
        )
    index.context = layout.context_key(source.path, index.top_names)
    index.lowered = lowered
    return index


def index_tree(
    root: str | os.PathLike[str],
    store: SqliteGraphStore,
    *,
    packages: Sequence[str] = (),
    progress: ProgressCallback | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    on_wait: Callable[[str], None] | None = None,
) -> IndexReport:
    """Index the Python sources and decision records below ``root`` into ``store``.

    Source is parsed, never imported or run; syntax newer than the running Python is
    lowered first (:mod:`citeloop.knowledge.indexing.syntax`). Modules get the names Python
    imports them by (:mod:`citeloop.knowledge.indexing.modules`). Only files whose SHA-256 digest
    or module name changed are re-indexed; facts of deleted files are removed; then only
    the references that can depend on the changed files are re-linked. The store is
    changed in one transaction, and one index run at a time writes a graph file (a second
    waits for the first: :func:`~citeloop.knowledge.indexing.file_lock.exclusive_writer`,
    so its counts and result are its own tree's). While it runs, the garbage collector's
    first threshold is raised (an index run allocates many objects that live until it
    ends), then restored.

    Args:
        root: The directory to index (e.g. a repository root or a package directory).
        store: The store to update.
        packages: Dotted import names of folders that no rule names (``--package``),
            e.g. ``["langgraph"]`` for a namespace package outside site-packages.
        progress: Optional callback ``(done, total, path)`` called after each file.
        max_file_bytes: Files larger than this are skipped (generated code, data).
        on_wait: Called with a message when another index run holds the file and this
            one waits for it.

    Returns:
        Counts, the new snapshot id, the skipped files with reasons, the packages found
        and warnings. Files with syntax errors, undecodable bytes or over the size limit
        are skipped, never fatal.

    Raises:
        SourceTreeError: If ``root`` does not exist or is not a directory, or a name in
            ``packages`` is not a dotted name of a folder of the tree.

    Example:
        >>> with SqliteGraphStore("graph.db") as store:  # doctest: +SKIP
        ...     report = index_tree("src", store)
    """
    root_path = check_root(root)
    with exclusive_writer(store.path, on_wait), _fewer_collections():
        return _index_tree(root_path, store, packages, progress, max_file_bytes)


def _index_tree(
    root_path: Path,
    store: SqliteGraphStore,
    packages: Sequence[str],
    progress: ProgressCallback | None,
    max_file_bytes: int,
) -> IndexReport:
    found = discover(root_path)
    python = [source.path for source in found.files if source.kind == "python"]
    layout = module_layout(root_path, python, found.distributions, packages)
    skipped = found.skipped
    known = store.file_states(INDEX_FORMAT)
    updated: list[FileIndex] = []
    present: set[str] = set()
    changed = 0
    lowered: list[str] = []
    for done, source in enumerate(found.files, start=1):
        digest, context, names = known.get(source.path, (None, None, frozenset()))
        if source.kind == "python" and context != layout.context_key(source.path, names):
            digest = None  # its module name changed (or a submodule now shadows a name)
        # Decision records are re-read every run (they are few and small): two with one
        # id then keep the first by path, whatever changed.
        outcome = _index_file(
            source, None if source.kind == "decision" else digest, layout, max_file_bytes
        )
        if isinstance(outcome, SkippedFile):
            skipped.append(outcome)
        else:
            present.add(source.path)
        if isinstance(outcome, FileIndex):
            updated.append(outcome)
            changed += outcome.digest != digest
            if outcome.lowered:
                lowered.append(source.path)
        if progress is not None:
            progress(done, len(found.files), source.path)
    removed = sorted(path for path in known if path not in present)
    source_root = str(root_path.resolve())
    if changed or removed or store.source_root() != Path(source_root):
        with store.write_transaction() as db:
            if changed or removed:
                snapshot = apply_changes(db, updated, removed, INDEX_FORMAT)
            # Where the sources are, so evidence can quote them (not part of the snapshot).
            db.execute("INSERT OR REPLACE INTO meta VALUES ('source_root', ?)", (source_root,))
    if not (changed or removed):
        snapshot = store.snapshot()
    stats = store.stats()
    with store.read_connection() as db:
        warnings = renamed_warnings(layout) + graph_import_warnings(db, _top_names(layout))
    return IndexReport(
        files_seen=len(found.files),
        files_indexed=changed,
        files_unchanged=len(present) - changed,
        files_removed=len(removed),
        entities=stats["entities"],
        relations=stats["facts"],
        snapshot=snapshot,
        skipped=tuple(sorted(skipped, key=lambda skip: skip.path)),
        packages=layout.packages,
        lowered=tuple(lowered),
        warnings=tuple(warnings),
    )


def _top_names(layout: ModuleLayout) -> set[str]:
    return {module.split(".", 1)[0] for module in layout.modules.values()}
