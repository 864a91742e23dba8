"""The knowledge-graph files the nodes read: one read-only connection per file and process."""

from __future__ import annotations

import functools
import stat
import threading
from pathlib import Path

from citeloop.errors import ConfigurationError
from citeloop.grounding.substance import CALLED
from citeloop.knowledge import SqliteGraphStore
from citeloop.knowledge.store import BatchedGraphStore

_OPEN_GRAPHS: dict[Path, tuple[tuple[int, int], SqliteGraphStore]] = {}
_OPEN_GRAPHS_LOCK = threading.Lock()
_MAX_OPEN_GRAPHS = 8


def open_graph(db_path: str) -> SqliteGraphStore:
    """The knowledge graph at ``db_path``, opened read-only (shared per process).

    One connection per graph file serves every run of the process (safe across
    threads), as long as the path names the same file: a file replaced since (moved
    over, or deleted and indexed again) has another device and inode, and gets a new
    connection, so a long-running server never serves a stale graph. (A re-index in
    place is seen by the open connection itself.) The connection to the old file is
    closed when no run uses it any more.

    Raises:
        ConfigurationError: The file does not exist (the message says how to build it),
            or the path is a directory.
    """
    path = Path(db_path)
    try:
        info = path.resolve().stat()
    except OSError:
        info = None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise ConfigurationError(
            f"knowledge graph {str(path)!r} is a directory; set the context's db_path to "
            f"the graph file in it (as `citeloop index PATH --db FILE` wrote it)"
        )
    if info is None or not stat.S_ISREG(info.st_mode):
        raise ConfigurationError(
            f"knowledge graph {str(path)!r} does not exist; build it with "
            f"`citeloop index PATH --db {path}` or set the context's db_path"
        )
    key, identity = path.resolve(), (info.st_dev, info.st_ino)
    with _OPEN_GRAPHS_LOCK:
        cached = _OPEN_GRAPHS.get(key)
        if cached is not None and cached[0] == identity:
            return cached[1]
        store = SqliteGraphStore(key, read_only=True)
        _OPEN_GRAPHS.pop(key, None)
        while len(_OPEN_GRAPHS) >= _MAX_OPEN_GRAPHS:  # the oldest goes (garbage-collected)
            _OPEN_GRAPHS.pop(next(iter(_OPEN_GRAPHS)))
        _OPEN_GRAPHS[key] = (identity, store)
        return store


def graph_names(reads: BatchedGraphStore) -> frozenset[str]:
    """The entity names of the graph now, and the top-level names of the modules its
    code imports when the store tells them (``imported_modules``, as
    :class:`~citeloop.knowledge.sqlite_store.SqliteGraphStore` does: an answer that
    writes ``numpy`` or "NumPy" names a library the code uses, not invented code), and
    the names the code calls that no entity has, each after
    :data:`~citeloop.grounding.substance.CALLED` (``?add_argument``), read
    in a session of the store's read cache (a statement on entry and one on exit check
    the file's version) when it has one.

    Args:
        reads: A store's batched reads (:func:`citeloop.knowledge.store.batched`).
    """
    with reads.reading():
        names = reads.names()
        imported = getattr(reads, "imported_modules", None)
        called = getattr(reads, "called_names", None)
        return _all_names(
            names,
            imported() if imported is not None else frozenset(),
            called() if called is not None else frozenset(),
        )


@functools.lru_cache(maxsize=4)
def _all_names(
    names: frozenset[str], imported: frozenset[str], called: frozenset[str]
) -> frozenset[str]:
    """The union :func:`graph_names` gives, made once per graph version: the store hands
    the same sets while the graph is unchanged (a frozenset keeps its hash), and a run
    validates every answer against them."""
    return names | imported | {CALLED + name for name in called}
