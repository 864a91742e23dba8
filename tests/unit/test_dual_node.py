"""DualNode: the body it runs under invoke and ainvoke, and the run it (does not) open."""

from __future__ import annotations

import threading
from typing import Any, Literal

from langchain_core.callbacks import BaseCallbackHandler
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import get_runtime
from typing_extensions import TypedDict

from citeloop.nodes.dual import DualNode, inline_router


class S(TypedDict, total=False):
    seen: list[str]


class Context(TypedDict, total=False):
    label: str


def sync_body(state: S) -> dict[str, Any]:
    label = (get_runtime().context or {}).get("label", "")
    return {"seen": [f"sync {label} {threading.get_ident()}"]}


async def async_body(state: S) -> dict[str, Any]:
    label = (get_runtime().context or {}).get("label", "")
    return {"seen": [f"async {label} {threading.get_ident()}"]}


def graph(node: DualNode):
    builder = StateGraph(S, context_schema=Context)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    builder.add_edge("node", END)
    return builder.compile()


def test_invoke_runs_the_sync_body_with_the_runs_context():
    out = graph(DualNode("node", sync_body, async_body)).invoke({}, context={"label": "x"})
    assert out["seen"][0].startswith("sync x ")


async def test_ainvoke_awaits_the_async_body_with_the_runs_context():
    node = DualNode("node", sync_body, async_body)
    out = await graph(node).ainvoke({}, context={"label": "y"})
    assert out["seen"][0] == f"async y {threading.get_ident()}"


async def test_without_an_async_body_ainvoke_runs_the_sync_one_on_the_event_loop():
    out = await graph(DualNode("node", sync_body)).ainvoke({}, context={"label": "z"})
    assert out["seen"] == [f"sync z {threading.get_ident()}"]


async def test_a_plain_function_node_runs_in_a_worker_thread():
    # The contrast DualNode exists for: LangGraph hops to a thread for a sync function.
    builder = StateGraph(S, context_schema=Context)
    builder.add_node("node", sync_body)
    builder.add_edge(START, "node")
    out = await builder.compile().ainvoke({}, context={"label": "w"})
    assert out["seen"][0] != f"sync w {threading.get_ident()}"


class ChainRuns(BaseCallbackHandler):
    def __init__(self) -> None:
        self.names: list[str] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.names.append(kwargs.get("name") or "")


async def test_the_node_opens_no_run_of_its_own():
    runs = ChainRuns()
    await graph(DualNode("node", sync_body, async_body)).ainvoke({}, config={"callbacks": [runs]})
    # The graph's run and the node's run (LangGraph's), nothing nested under the node.
    assert runs.names.count("node") == 1


def route_by_thread(state: S) -> Literal["on_loop", "off_loop"]:
    return "on_loop" if state["seen"][0].endswith(f" {threading.get_ident()}") else "off_loop"


def routed_graph(path: Any, path_map: Any = None):
    def mark(label: str) -> Any:
        return lambda state: {"seen": [label]}

    builder = StateGraph(S)
    builder.add_node("start", DualNode("start", sync_body))
    builder.add_node("on_loop", mark("on_loop"))
    builder.add_node("off_loop", mark("off_loop"))
    builder.add_edge(START, "start")
    builder.add_conditional_edges("start", path, path_map)
    return builder.compile()


async def test_an_inline_router_runs_on_the_event_loop_and_keeps_its_destinations():
    graph = routed_graph(*inline_router(route_by_thread))
    out = await graph.ainvoke({})
    # `seen` keeps its last write: that of the node the router chose.
    assert out["seen"] == ["on_loop"]
    assert {edge.target for edge in graph.get_graph().edges if edge.source == "start"} == {
        "on_loop",
        "off_loop",
    }


async def test_a_plain_function_router_runs_in_a_worker_thread():
    out = await routed_graph(route_by_thread).ainvoke({})
    assert out["seen"] == ["off_loop"]


def test_an_inline_router_serves_invoke():
    # Under invoke everything runs on the caller's thread.
    assert routed_graph(*inline_router(route_by_thread)).invoke({})["seen"] == ["on_loop"]
