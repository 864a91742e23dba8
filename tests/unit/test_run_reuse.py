"""What the runs of a grounded_answer graph reuse (nodes/recent.py, nodes/graph_files.py):
bounded memos that never change a verdict, and graph names that stay current."""

from __future__ import annotations

import gc
import os
import weakref
from pathlib import Path

import pytest

from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.grounding import GraphContextValidator, IndexedContext
from citeloop.grounding.context_text import Place
from citeloop.grounding.entities import ContextName, context_names
from citeloop.knowledge import SqliteGraphStore, index_tree
from citeloop.nodes.graph_files import graph_names, open_graph
from citeloop.nodes.recent import indexed_context
from citeloop.recent import Recent
from tests.fakes import ScriptedChatModel

ENTITIES = [
    {"name": "Cart", "kind": "class", "tier": "core", "path": "shop/cart.py", "line": 3,
     "end_line": 9, "signature": "", "summary": "", "reason": "mention", "score": 0.5},
    {"name": "total", "kind": "method", "tier": "supporting", "path": "shop/cart.py",
     "line": 6, "end_line": None, "signature": "(self)", "summary": "", "reason": "graph",
     "score": 0.1},
    {"name": "Cart", "kind": "class", "tier": "supporting", "path": "shop/old.py", "line": 1,
     "end_line": 2, "signature": "", "summary": "", "reason": "graph", "score": 0.0},
]  # fmt: skip


def test_recent_keeps_the_most_recently_used():
    recent: Recent[int] = Recent(2)
    recent.put("a", 1)
    recent.put("b", 2)
    assert recent.get("a") == 1  # "a" is now the most recently used
    recent.put("c", 3)
    assert (recent.get("a"), recent.get("b"), recent.get("c"), len(recent)) == (1, None, 3, 2)


def test_recent_needs_room_for_one():
    with pytest.raises(ValueError, match="size must be >= 1"):
        Recent(0)


def test_indexed_context_is_what_context_names_reads_and_is_reused():
    memo: Recent[IndexedContext] = Recent(4)
    indexed = indexed_context(memo, ENTITIES)
    assert list(indexed.entities) == context_names(ENTITIES)
    assert indexed.entities[0] == ContextName(
        "Cart", "core", (Place("shop/cart.py", 3, 9), Place("shop/old.py", 1, 2))
    )
    assert (indexed.names, indexed.core, indexed.private) == ({"Cart", "total"}, {"Cart"}, set())
    assert indexed_context(memo, [dict(item) for item in ENTITIES]) is indexed  # equal dicts


@pytest.mark.parametrize(
    "items",
    [
        [{"name": "Cart", "tier": "core", "line": True}],  # a bool is no line number
        [{"name": "Cart", "tier": "core", "line": 3.0}],
        ["Cart"],
        ("Cart",),
        [{"name": "", "tier": "core"}],  # does not parse: the validator says why
        [{"name": "Cart", "tier": "primary"}],
    ],
)
def test_indexed_context_leaves_other_shapes_to_the_validator(items):
    memo: Recent[IndexedContext] = Recent(4)
    assert indexed_context(memo, items) is items
    assert len(memo) == 0


def test_context_names_takes_parsed_names_as_they_are():
    parsed = context_names(ENTITIES)
    assert context_names(parsed) == parsed


@pytest.mark.parametrize(
    "answer",
    [
        "`Cart` sums it.\n\n## Entities used\n- Cart (shop/cart.py:4)\n- total (shop/cart.py:40)\n",
        "`Cart` and `Basket` sum it.\n\n## Entities used\n- Cart\n- Basket\n",
        "It sums them.",
    ],
)
def test_a_verdict_on_an_indexed_context_is_the_verdict_on_the_dicts(answer):
    memo: Recent[IndexedContext] = Recent(4)
    validator = GraphContextValidator(require_locations=True)
    raw = validator.validate(answer, ENTITIES, prompt="What does Cart do?")
    indexed = indexed_context(memo, ENTITIES)
    reused = validator.validate(answer, indexed, prompt="What does Cart do?")
    assert reused.to_dict() == raw.to_dict()
    assert context_names(indexed) == context_names(ENTITIES)  # it reads as its entities


def test_indexed_context_is_not_reused_for_a_member_of_another_class():
    """The same member at the same place, its class renamed (a re-index): the memo must
    not give it the old class, or `Basket.total` at a wrong line would be judged as a
    citation of a member the context shows only under `Cart`."""
    memo: Recent[IndexedContext] = Recent(4)
    member = {
        "name": "total",
        "kind": "method",
        "tier": "core",
        "path": "shop/cart.py",
        "line": 6,
        "end_line": 7,
    }
    before = [{**member, "id": "shop.cart.Cart.total"}]
    after = [{**member, "id": "shop.cart.Basket.total"}]
    answer = "`total` sums it.\n\n## Entities used\n- Basket.total (shop/cart.py:40)\n"
    validator = GraphContextValidator()
    validator.validate(answer, indexed_context(memo, before))
    reused = validator.validate(answer, indexed_context(memo, after))
    assert reused.to_dict() == validator.validate(answer, after).to_dict()
    assert reused.invalid_locations == ("Basket.total (shop/cart.py:40)",)
    assert reused.invalid_citations == ()


def _index(root: Path, files: dict[str, str], db: Path) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, "utf-8")
    with SqliteGraphStore(db) as writer:
        index_tree(root, writer)


def test_graph_names_follow_a_reindex_in_place(tmp_path):
    db = tmp_path / "graph.db"
    _index(tmp_path / "src", {"shop/__init__.py": "class Cart:\n    pass\n"}, db)
    with SqliteGraphStore(db, read_only=True) as store:
        assert "Cart" in graph_names(store) and "Basket" not in graph_names(store)
        _index(tmp_path / "src", {"shop/basket.py": "class Basket:\n    pass\n"}, db)
        assert {"Cart", "Basket"} <= graph_names(store)


def test_a_name_indexed_between_runs_is_no_longer_invented(tmp_path):
    db = tmp_path / "graph.db"
    _index(tmp_path / "src", {"shop/__init__.py": "class Cart:\n    pass\n"}, db)
    answer = "`Cart` holds a `Basket`.\n\n## Entities used\n- Cart\n"
    with SqliteGraphStore(db, read_only=True) as store:
        graph = build_grounded_answer_graph(ScriptedChatModel(script=[answer] * 2), store=store)
        context = {"max_retries": 0}
        before = graph.invoke({"task": "What does `Cart` hold?"}, context=context)["report"]
        _index(tmp_path / "src", {"shop/basket.py": "class Basket:\n    pass\n"}, db)
        after = graph.invoke({"task": "What does `Cart` hold?"}, context=context)["report"]
    assert before["invented_names"] == ["Basket"] and not before["passed"]
    assert after["invented_names"] == [] and "Basket" in after["ungrounded_in_graph"]


def test_a_library_the_code_imports_is_no_invented_name(tmp_path):
    """``import numpy as np`` makes ``numpy`` a name of the graph's code: an answer that
    says "NumPy" or `numpy` names that library; one the code does not import is
    invented."""
    db = tmp_path / "graph.db"
    source = "import numpy as np\n\n\nclass Cart:\n    def total(self):\n        return np.sum(1)\n"
    _index(tmp_path / "src", {"shop/__init__.py": source}, db)
    answer = (
        "`Cart` sums with NumPy (`numpy`), not `torch` or TensorFlow.\n\n## Entities used\n- Cart\n"
    )
    with SqliteGraphStore(db, read_only=True) as store:
        assert "numpy" in graph_names(store) and "numpy" not in store.names()
        graph = build_grounded_answer_graph(ScriptedChatModel(script=[answer]), store=store)
        report = graph.invoke({"task": "What does `Cart` use?"}, context={"max_retries": 0})
    assert report["report"]["invented_names"] == ["torch", "TensorFlow"]


def test_a_replaced_graph_file_lets_the_old_store_go(tmp_path):
    """The graph keeps one injector per graph file and settings: after the file is
    replaced, nothing holds the old file's store (its connection closes)."""
    db = tmp_path / "graph.db"
    _index(tmp_path / "a", {"alpha/__init__.py": "class Alpha:\n    pass\n"}, db)
    graph = build_grounded_answer_graph(ScriptedChatModel(script=["x", "y"]))
    context = {"db_path": str(db), "max_retries": 0}
    graph.invoke({"task": "What is `Alpha`?"}, context=context)
    old = weakref.ref(open_graph(str(db)))
    _index(tmp_path / "b", {"beta/__init__.py": "class Beta:\n    pass\n"}, tmp_path / "next.db")
    os.replace(tmp_path / "next.db", db)
    out = graph.invoke({"task": "What is `Beta`?"}, context=context)
    gc.collect()
    assert [e["name"] for e in out["context_entities"]] == ["Beta"]
    assert old() is None


def test_runs_of_the_same_task_build_its_context_once(tmp_path, monkeypatch):
    """A second run of a task over the same graph file reuses the first run's context
    (knowledge/reuse.py); a task of its own is built."""
    from citeloop.knowledge.injector import ContextInjector

    built = []
    select = ContextInjector._select
    monkeypatch.setattr(
        ContextInjector,
        "_select",
        lambda self, text, *a, **k: built.append(text) or select(self, text, *a, **k),
    )
    db = tmp_path / "graph.db"
    _index(tmp_path / "src", {"shop/__init__.py": "class Cart:\n    pass\n"}, db)
    answer = "`Cart` holds items.\n\n## Entities used\n- Cart\n"
    with SqliteGraphStore(db, read_only=True) as store:
        graph = build_grounded_answer_graph(ScriptedChatModel(script=[answer] * 3), store=store)
        context = {"max_retries": 0}
        runs = [
            graph.invoke({"task": task}, context=context)
            for task in ("What does `Cart` hold?", "What does `Cart` hold?", "Is `Cart` a class?")
        ]
    assert [run["outcome"] for run in runs] == ["passed"] * 3
    assert [text.strip() for text in built] == ["What does `Cart` hold?", "Is `Cart` a class?"]


@pytest.mark.parametrize("read_only", [True, False])
def test_the_imported_modules_follow_a_reindex_in_place(tmp_path, read_only):
    """Read in a session (read-only store) or by snapshot (a writable one), the modules
    the code imports are those of the graph file now."""
    db = tmp_path / "graph.db"
    _index(tmp_path / "src", {"shop/__init__.py": "import numpy.linalg\n"}, db)
    with SqliteGraphStore(db, read_only=read_only) as store:
        assert "numpy" in graph_names(store) and "torch" not in graph_names(store)
        _index(tmp_path / "src", {"shop/nn.py": "import torch as t\n"}, db)
        assert {"numpy", "torch", "shop"} <= graph_names(store)
