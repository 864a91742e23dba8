"""A re-index in place by another process, in the middle of a read: for the tests that a
reader reads one version of the graph."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from citeloop.knowledge import SqliteGraphStore, index_tree


def indexed_module(folder: Path, code: str) -> tuple[Path, Path]:
    """``(tree, db)``: a tree holding ``mod.py`` with ``code``, indexed into ``db``."""
    tree = folder / "repo"
    tree.mkdir()
    (tree / "mod.py").write_text(code, encoding="utf-8")
    db = folder / "graph.db"
    with SqliteGraphStore(db) as writer:
        index_tree(tree, writer)
    return tree, db


def re_indexed_on_first_call(
    read: Callable[..., Any], tree: Path, db: Path, code: str, calls: list[bool]
) -> Callable[..., Any]:
    """``read``, whose first call first rewrites ``mod.py`` with ``code`` and indexes the
    tree into ``db`` again through another connection (``calls`` records it)."""

    def wrapped(*args: Any) -> Any:
        if not calls:
            calls.append(True)
            (tree / "mod.py").write_text(code, encoding="utf-8")
            with SqliteGraphStore(db) as writer:
                index_tree(tree, writer)
        return read(*args)

    return wrapped
