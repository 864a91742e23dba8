"""Where ``validate`` and ``build_retry_prompt`` run under ``ainvoke``: on the event loop
for a short answer once the graph's names are read at the context's snapshot, in a
worker thread otherwise (with checks of the user's: test_grounded_answer_graph); and
the names an answer is judged by are its graph version's."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.knowledge import ContextInjector, SqliteGraphStore, index_tree
from citeloop.nodes.grounded_answer import INLINE_ANSWER_CHARS, GroundedAnswerNodes
from tests.fakes import ScriptedChatModel

SOURCE = {
    "shop/__init__.py": "",
    "shop/cart.py": "class Cart:\n    def total(self):\n        return 0\n",
    "shop/checkout.py": (
        "from shop.cart import Cart\n\n\nclass Checkout:\n"
        "    def pay(self, cart: Cart):\n        return cart.total()\n"
    ),
}
TASK = "How does `Checkout` use `Cart` to compute the amount to pay?"
BAD_ANSWER = "Checkout asks the cart for its total."


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


@pytest.fixture
def store(tmp_path: Path):
    write(tmp_path / "src", SOURCE)
    graph_store = SqliteGraphStore(tmp_path / "graph.db")
    index_tree(tmp_path / "src", graph_store)
    yield graph_store
    graph_store.close()


def good_answer(store: SqliteGraphStore, padding: str = "") -> str:
    names = sorted({entity.name for entity in ContextInjector(store).inject(TASK).core})
    body = "The answer relies on " + ", ".join(f"`{name}`" for name in names) + "." + padding
    return body + "\n\n## Entities used\n" + "".join(f"- {name}\n" for name in names)


@pytest.fixture
def threads(monkeypatch) -> dict[str, list[int]]:
    """The thread each run of the two judging nodes' sync bodies ran on, by node."""
    seen: dict[str, list[int]] = {"validate": [], "build_retry_prompt": []}
    for name in seen:
        body = getattr(GroundedAnswerNodes, name)

        def spy(self, state, body=body, name=name):
            seen[name].append(threading.get_ident())
            return body(self, state)

        monkeypatch.setattr(GroundedAnswerNodes, name, spy)
    return seen


async def test_a_short_answer_is_judged_on_the_event_loop_once_the_names_are_read(store, threads):
    answer = good_answer(store)
    model = ScriptedChatModel(script=[answer, answer])
    graph = build_grounded_answer_graph(model, store=store)
    for _ in range(2):
        assert (await graph.ainvoke({"task": TASK}))["outcome"] == "passed"
    loop = threading.get_ident()
    # The first run reads the graph's names in a worker thread; the second has them.
    assert threads["validate"][0] != loop
    assert threads["validate"][1] == loop


async def test_a_retry_prompt_is_built_on_the_event_loop_for_a_short_answer(store, threads):
    model = ScriptedChatModel(script=[BAD_ANSWER, good_answer(store)])
    out = await build_grounded_answer_graph(model, store=store).ainvoke({"task": TASK})
    assert (out["outcome"], out["attempts"]) == ("passed", 2)
    assert threads["build_retry_prompt"] == [threading.get_ident()]


async def test_a_long_answer_is_judged_in_a_worker_thread(store, threads):
    answer = good_answer(store, " It adds the prices." * (INLINE_ANSWER_CHARS // 10))
    assert len(answer) > INLINE_ANSWER_CHARS
    model = ScriptedChatModel(script=[answer, answer])
    graph = build_grounded_answer_graph(model, store=store)
    for _ in range(2):
        assert (await graph.ainvoke({"task": TASK}))["outcome"] == "passed"
    assert threading.get_ident() not in threads["validate"]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_an_answer_is_judged_by_the_names_of_its_graph_version(tmp_path, store, mode):
    # `Refund` is invented until the graph indexes it; a re-index in place is a new
    # snapshot, whose names the next run reads (the first run's are not reused).
    answer = good_answer(store).replace(".", ", as `Refund` does.", 1)
    model = ScriptedChatModel(script=[answer] * 4)
    graph = build_grounded_answer_graph(model, store=store)

    async def invented() -> tuple[str, ...]:
        inputs, context = {"task": TASK}, {"max_retries": 0}
        if mode == "invoke":
            out = graph.invoke(inputs, context=context)
        else:
            out = await graph.ainvoke(inputs, context=context)
        assert out["attempts"] == 1
        return tuple(out["report"]["invented_names"])

    assert "Refund" in await invented()
    write(tmp_path / "src", {"shop/refund.py": "class Refund:\n    pass\n"})
    index_tree(tmp_path / "src", store)
    assert "Refund" not in await invented()
