"""The loop's own cost: CPU per retry of ``grounded_answer`` vs a bare graph of its shape.

Run: ``python benchmarks/bench_loop.py``. On the sample corpus (``tests/fixtures/
sample_repo``), a scripted chat model (:class:`_common.CyclingChatModel`, no delay)
answers so that a run passes at once (one attempt) or after one retry (a first answer
that cites nothing, then a passing one). The bare graph has the same nodes and edges
with trivial bodies; its ``call_model`` calls the same kind of chat model, so both pay
LangGraph's and LangChain's own costs and the difference is citeloop's work (context,
prompts, validation).

CPU per retry = CPU of a two-attempt run - CPU of a one-attempt run, each the mean of
RUNS runs (``time.process_time``, the garbage collector off while timed, as ``timeit``
does), measured REPEATS times for ``invoke`` and for ``ainvoke`` (a repeat whose
difference comes out <= 0 is measured again, up to MEASURES times). Figures: citeloop's
CPU per retry over the bare graph's, per repeat, judged on the median (target: at most
TARGET_RATIO). Exits 1 when a target is missed.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from _common import CyclingChatModel, report_result
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from typing_extensions import TypedDict

from citeloop import build_grounded_answer_graph
from citeloop.knowledge import ContextInjector, SqliteGraphStore, index_tree

TARGET_RATIO = 1.5
RUNS = 40
REPEATS = 5
MEASURES = 3
"""Measurements of a repeat at most, while a per-retry CPU comes out <= 0 (the machine
was busier during the one-attempt runs than the two-attempt ones): such a repeat gives
no ratio, and is measured again."""
SAMPLE_REPO = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "sample_repo"
TASK = "How does `Circle` compute its area with `Shape`?"
FAILING_ANSWER = "It computes it from its radius."


def passing_answer(store: SqliteGraphStore) -> str:
    """An answer that references and cites every core entity of the task's context."""
    core = sorted({entity.name for entity in ContextInjector(store).inject(TASK).core})
    names = ", ".join(f"`{name}`" for name in core)
    return f"The context shows how {names} fit together.\n\n## Entities used\n" + "".join(
        f"- {name}\n" for name in core
    )


class _BareState(TypedDict, total=False):
    step: int
    answer: str


def bare_graph(attempts: int) -> CompiledStateGraph:
    """``grounded_answer``'s nodes and edges with trivial bodies; ``call_model`` asks a
    chat model (sync or async, as the run is); the run ends after ``attempts`` calls."""
    model = CyclingChatModel(answers=["An answer."])

    def node(state: _BareState) -> dict[str, Any]:
        return {"step": state.get("step", 0) + 1}

    def call_model(state: _BareState) -> dict[str, Any]:
        return {"answer": model.invoke("The prompt.").text, **node(state)}

    async def acall_model(state: _BareState) -> dict[str, Any]:
        return {"answer": (await model.ainvoke("The prompt.")).text, **node(state)}

    def route_after_model(state: _BareState) -> Literal["validate", "__end__"]:
        return "validate"

    def route_after_validate(state: _BareState) -> Literal["expand_context", "__end__"]:
        # inject, call, validate = 3 steps; each retry adds expand, prompt, call, validate
        return END if state["step"] >= 3 + 4 * (attempts - 1) else "expand_context"

    def route_after_retry_prompt(state: _BareState) -> Literal["call_model", "__end__"]:
        return "call_model"

    from langgraph._internal._runnable import RunnableCallable

    builder = StateGraph(_BareState)
    builder.add_node("inject_context", node)
    builder.add_node("call_model", RunnableCallable(call_model, acall_model))
    builder.add_node("validate", node)
    builder.add_node("expand_context", node)
    builder.add_node("build_retry_prompt", node)
    builder.add_edge(START, "inject_context")
    builder.add_edge("inject_context", "call_model")
    builder.add_conditional_edges("call_model", route_after_model)
    builder.add_conditional_edges("validate", route_after_validate)
    builder.add_edge("expand_context", "build_retry_prompt")
    builder.add_conditional_edges("build_retry_prompt", route_after_retry_prompt)
    return builder.compile()


def cpu_per_run(run: Callable[[], Any]) -> float:
    """Mean CPU seconds of ``run()`` over RUNS runs, the garbage collector off."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        for _ in range(RUNS):
            run()
        return (time.process_time() - start) / RUNS
    finally:
        gc.enable()


def per_retry(graphs: tuple[CompiledStateGraph, CompiledStateGraph], mode: str) -> float:
    """CPU seconds a retry adds: two-attempt run minus one-attempt run."""
    loop = asyncio.new_event_loop()
    try:
        times = []
        for graph in graphs:
            if mode == "sync":
                times.append(cpu_per_run(lambda graph=graph: graph.invoke({"task": TASK})))
            else:
                times.append(
                    cpu_per_run(
                        lambda graph=graph: loop.run_until_complete(graph.ainvoke({"task": TASK}))
                    )
                )
        return times[1] - times[0]
    finally:
        loop.close()


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "graph.db"
        with SqliteGraphStore(db) as writer:
            index_tree(SAMPLE_REPO, writer)
        with SqliteGraphStore(db, read_only=True) as store:
            good = passing_answer(store)
            once = build_grounded_answer_graph(CyclingChatModel(answers=[good]), store=store)
            twice = build_grounded_answer_graph(
                CyclingChatModel(answers=[FAILING_ANSWER, good]), store=store
            )
            for graph, attempts in ((once, 1), (twice, 2)):
                out = graph.invoke({"task": TASK})
                assert (out["outcome"], out["attempts"]) == ("passed", attempts), out
            bare = (bare_graph(1), bare_graph(2))
            print(f"grounded_answer on the sample corpus, task {TASK!r}; {RUNS} runs a figure")
            met = True
            for mode in ("sync", "async"):
                ours, theirs = [], []
                for _ in range(REPEATS):
                    for _ in range(MEASURES):  # a difference of two noisy means can be <= 0
                        mine, bare_s = per_retry((once, twice), mode), per_retry(bare, mode)
                        if mine > 0 and bare_s > 0:
                            break
                    ours.append(mine)
                    theirs.append(bare_s)
                print(
                    f"{mode:5s} CPU per retry: citeloop {statistics.median(ours) * 1000:.2f} ms, "
                    f"bare graph {statistics.median(theirs) * 1000:.2f} ms (medians of {REPEATS})"
                )
                ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
                met &= report_result(f"CPU per retry / bare graph ({mode})", ratios, TARGET_RATIO)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
