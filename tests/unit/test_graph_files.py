"""The knowledge-graph file over time: one index run writes it at a time, and a
long-running process reads the file the path names now, not the one it first opened."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.knowledge import SqliteGraphStore, index_tree
from citeloop.knowledge.indexing.file_lock import exclusive_writer
from citeloop.nodes.graph_files import open_graph
from tests.fakes import ScriptedChatModel


def _tree(root: Path, module: str, name: str) -> Path:
    (root / module).mkdir(parents=True)
    (root / module / "__init__.py").write_text(f"class {name}:\n    pass\n", "utf-8")
    return root


def _index(tree: Path, db: Path) -> None:
    with SqliteGraphStore(db) as store:
        index_tree(tree, store)


def _names(store: SqliteGraphStore) -> set[str]:
    return {name for name in store.names() if name[:1].isupper()}


def test_a_replaced_graph_file_is_read_afresh(tmp_path):
    old, new = _tree(tmp_path / "a", "alpha", "Alpha"), _tree(tmp_path / "b", "beta", "Beta")
    db = tmp_path / "graph.db"
    _index(old, db)
    first = open_graph(str(db))
    assert "Alpha" in _names(first) and open_graph(str(db)) is first  # shared while unchanged
    _index(new, tmp_path / "next.db")
    os.replace(tmp_path / "next.db", db)  # `mv next.db graph.db`
    assert _names(open_graph(str(db))) == {"Beta"}
    db.unlink()  # delete and index again
    _index(old, db)
    assert _names(open_graph(str(db))) == {"Alpha"}


def test_a_run_after_the_file_is_replaced_uses_the_new_graph(tmp_path):
    old, new = _tree(tmp_path / "a", "alpha", "Alpha"), _tree(tmp_path / "b", "beta", "Beta")
    db = tmp_path / "graph.db"
    _index(old, db)
    graph = build_grounded_answer_graph(ScriptedChatModel(script=["x", "y"]))
    context = {"db_path": str(db), "max_retries": 0}
    out = graph.invoke({"task": "What is `Alpha`?"}, context=context)
    assert [e["name"] for e in out["context_entities"]] == ["Alpha"]
    _index(new, tmp_path / "next.db")
    os.replace(tmp_path / "next.db", db)
    out = graph.invoke({"task": "What is `Beta`?"}, context=context)
    assert [e["name"] for e in out["context_entities"]] == ["Beta"]


def test_a_second_index_run_waits_for_the_first(tmp_path):
    first, second = _tree(tmp_path / "a", "alpha", "Alpha"), _tree(tmp_path / "b", "beta", "Beta")
    db = tmp_path / "graph.db"
    _index(first, db)
    waits: list[str] = []
    done = threading.Event()

    def index_second() -> None:
        with SqliteGraphStore(db) as store:
            index_tree(second, store, on_wait=waits.append)
        done.set()

    with exclusive_writer(db):  # as the first run holds it
        worker = threading.Thread(target=index_second)
        worker.start()
        deadline = time.monotonic() + 10
        while not waits and time.monotonic() < deadline:
            time.sleep(0.01)
        assert waits == [f"another index run is writing {str(db)!r}; waiting for it to end"]
        time.sleep(0.2)
        assert not done.is_set()
    worker.join(timeout=30)
    assert done.is_set()
    with SqliteGraphStore(db, read_only=True) as store:
        assert _names(store) == {"Beta"}  # the last tree, not the union of both


def test_the_lock_creates_no_file(tmp_path):
    db = tmp_path / "graph.db"
    _index(_tree(tmp_path / "a", "alpha", "Alpha"), db)
    before = sorted(os.listdir(tmp_path))
    with exclusive_writer(db):
        assert sorted(os.listdir(tmp_path)) == before
