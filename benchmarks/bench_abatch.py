"""Concurrency of ``grounded_answer`` on the async path: ``abatch`` of 100 runs vs one run.

Run: ``python benchmarks/bench_abatch.py [--corpus sample|langchain_core]`` (default:
both, one after the other).
The model is :class:`_common.SleepyChatModel`: every call awaits ``asyncio.sleep(0.1)``
and returns an answer that passes validation; its sync path raises, so a run that passes
went the async path. Prints the median time of one ``ainvoke`` and of an ``abatch`` of
100 (``max_concurrency`` unset: all at once), their ratio (target: at most 2.5x), the CPU
time per run, the same ratio when every run builds its context (the injector reuses a
task's default context while the graph is unchanged, ``reuse_contexts``: a batch of one
question, as here, builds it about once), the same ratio also without the store's read
cache (every run reads the graph file, as a first walk of a neighbourhood does), the
same ratio for a graph of the same shape with trivial node bodies (LangGraph's own floor
on this machine), and a blockbuster scan for blocking calls on the event loop. Exits 1
when a target is missed;
the ratio is reported (``_common.report_result``) with the min and max of the batches.

The runs share one CPU-bound event loop (and the GIL), so the ratio is about
``1 + RUNS * CPU per run / DELAY``: 2.5x leaves about 1.5 ms of CPU per run. A full
collection of Python's garbage collector costs about 80 ms here, wherever it happens to
fall, so every timed section starts with ``gc.collect()`` (``timeit`` goes further and
turns the collector off); the collections a batch itself triggers are counted.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from _common import SleepyChatModel, corpus_root, report_result
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from typing_extensions import TypedDict

from citeloop import build_grounded_answer_graph
from citeloop.knowledge import ContextInjector, SqliteGraphStore, index_tree

RUNS = 100
DELAY = 0.1
TARGET_RATIO = 2.5
SINGLE_REPEATS = 5
BATCH_REPEATS = 5
"""Batches timed per figure, judged on the median: a full collection of the garbage
collector (about 80 ms) or a stall of the machine falls in one batch now and then (two of
three batches of one run once took 369 ms against 253 ms at the same CPU per run)."""
SAMPLE_REPO = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "sample_repo"
CORPORA = {
    "sample": (SAMPLE_REPO, "How does `Circle` compute its area with `Shape`?"),
    "langchain_core": (None, "How does BaseChatModel use RunnableSequence and BaseMessage?"),
}


def passing_answer(store: SqliteGraphStore, task: str) -> str:
    """An answer that references and cites every core entity of the task's context."""
    core = sorted({entity.name for entity in ContextInjector(store).inject(task).core})
    if not core:
        raise SystemExit(f"the task names no entity of the graph: {task!r}")
    names = ", ".join(f"`{name}`" for name in core)
    cited = "".join(f"- {name}\n" for name in core)
    return f"The context shows how {names} fit together.\n\n## Entities used\n{cited}"


async def single_seconds(graph: CompiledStateGraph, inputs: dict[str, Any], **kwargs: Any) -> float:
    """Median wall time of one ``ainvoke``."""
    times = []
    for _ in range(SINGLE_REPEATS):
        gc.collect()
        start = time.perf_counter()
        await graph.ainvoke(inputs, **kwargs)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def batch_seconds(
    graph: CompiledStateGraph, inputs: dict[str, Any], **kwargs: Any
) -> tuple[float, float, list[Any], list[float]]:
    """(median wall time, median CPU seconds per run, last outputs, every wall time) of
    ``abatch`` x RUNS."""
    walls, cpus, outputs = [], [], []
    for _ in range(BATCH_REPEATS):
        gc.collect()
        cpu, start = time.process_time(), time.perf_counter()
        outputs = await graph.abatch([inputs] * RUNS, **kwargs)
        walls.append(time.perf_counter() - start)
        cpus.append((time.process_time() - cpu) / RUNS)
    return statistics.median(walls), statistics.median(cpus), outputs, walls


class _ShapeState(TypedDict, total=False):
    step: int


def reference_graph() -> CompiledStateGraph:
    """``grounded_answer``'s shape with trivial bodies: sync nodes and routers, one
    async node that sleeps like the model."""

    def node(state: _ShapeState) -> dict[str, int]:
        return {"step": state.get("step", 0) + 1}

    async def call_model(state: _ShapeState) -> dict[str, int]:
        await asyncio.sleep(DELAY)
        return {"step": state.get("step", 0) + 1}

    def route_after_model(state: _ShapeState) -> Literal["validate", "__end__"]:
        return "validate"

    def route_after_validate(state: _ShapeState) -> Literal["expand_context", "__end__"]:
        return END

    builder = StateGraph(_ShapeState)
    builder.add_node("inject_context", node)
    builder.add_node("call_model", call_model)
    builder.add_node("validate", node)
    builder.add_node("expand_context", node)
    builder.add_edge(START, "inject_context")
    builder.add_edge("inject_context", "call_model")
    builder.add_conditional_edges("call_model", route_after_model)
    builder.add_conditional_edges("validate", route_after_validate)
    builder.add_edge("expand_context", "call_model")
    return builder.compile()


async def blocking_call(graph: CompiledStateGraph, task: str, **kwargs: Any) -> str:
    """A blocking call blockbuster finds on the event loop in a run and a batch of 10
    (every module scanned, no exemption), or ``"none"``. The model node turns an error
    into outcome ``error``, so the outputs are searched too."""
    from blockbuster import BlockingError, blockbuster_ctx

    await graph.ainvoke({"task": task}, **kwargs)  # imports and caches, outside the scan
    try:
        with blockbuster_ctx():
            outputs = [await graph.ainvoke({"task": task}, **kwargs)]
            outputs += await graph.abatch([{"task": task}] * 10, **kwargs)
    except BlockingError as exc:
        return f"BlockingError: {exc}".splitlines()[0]
    errors = {out.get("error", "") for out in outputs if out.get("outcome") != "passed"}
    return "; ".join(sorted(errors)) or "none"


async def scan(store: SqliteGraphStore, db: Path, answer: str, task: str, scratch: Path) -> None:
    try:
        import blockbuster  # noqa: F401
    except ImportError:
        print("blockbuster is not installed (it comes with langgraph-api): no scan")
        return
    print("blocking calls on the event loop (blockbuster, all modules, no exemptions):")
    model = SleepyChatModel(answer=answer, delay=0.01)
    objects = build_grounded_answer_graph(model, store=store)
    print(f"  model and store objects:          {await blocking_call(objects, task)}")
    # As the server runs it: the model and the graph file named by the run's context.
    replay = scratch / "replay.jsonl"
    replay.write_text((json.dumps({"content": answer}) + "\n") * 20, encoding="utf-8")
    context = {"model": f"replay:{replay}", "db_path": str(db)}
    found = await blocking_call(build_grounded_answer_graph(), task, context=context)
    print(f"  replay:PATH and db_path (context): {found}")


async def run(corpus: str) -> bool:
    root, task = CORPORA[corpus]
    root = root or corpus_root()
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "graph.db"
        with SqliteGraphStore(db) as writer:
            report = index_tree(root, writer)
        with SqliteGraphStore(db, read_only=True) as store:
            answer = passing_answer(store, task)
            model = SleepyChatModel(answer=answer, delay=DELAY)
            graph = build_grounded_answer_graph(model, store=store)
            inputs = {"task": task}
            first = await graph.ainvoke(inputs)  # warm-up
            assert first["outcome"] == "passed", first.get("report") or first.get("error")
            single = await single_seconds(graph, inputs)
            batch, cpu, outputs, walls = await batch_seconds(graph, inputs)
            failed = [out for out in outputs if (out["outcome"], out["attempts"]) != ("passed", 1)]
            assert not failed, f"{len(failed)} runs did not pass at once: {failed[0]}"

            # Every run builds its context (the injector reuses none).
            built = build_grounded_answer_graph(
                model, injector=ContextInjector(store, reuse_contexts=0)
            )
            await built.ainvoke(inputs)
            built_single = await single_seconds(built, inputs)
            built_batch, built_cpu, _, _ = await batch_seconds(built, inputs)

            with SqliteGraphStore(db, read_only=True, cache_size=0) as uncached:
                cold = build_grounded_answer_graph(
                    model, injector=ContextInjector(uncached, reuse_contexts=0)
                )
                await cold.ainvoke(inputs)
                cold_single = await single_seconds(cold, inputs)
                cold_batch, cold_cpu, _, _ = await batch_seconds(cold, inputs)

            reference = reference_graph()
            await reference.ainvoke({})
            ref_single = await single_seconds(reference, {})
            ref_batch, ref_cpu, _, _ = await batch_seconds(reference, {})

            ratio = batch / single
            met = ratio <= TARGET_RATIO
            budget = (TARGET_RATIO * single - DELAY) / RUNS
            print(
                f"grounded_answer on {corpus} ({report.entities} entities), task {task!r}; "
                f"the model awaits {DELAY * 1000:.0f} ms per call (async only)"
            )
            print(f"single ainvoke:   {single * 1000:7.1f} ms (median of {SINGLE_REPEATS})")
            print(
                f"abatch x{RUNS}:      {batch * 1000:7.1f} ms (median of {BATCH_REPEATS}, "
                f"max_concurrency unset), {cpu * 1000:.2f} ms CPU per run"
            )
            print(
                f"ratio:            {ratio:7.2f}x, target <= {TARGET_RATIO:g}x: "
                + ("met" if met else "NOT met")
                + f" (the target leaves about {budget * 1000:.2f} ms of CPU per run)"
            )
            print(
                f"no reuse:         {built_batch / built_single:7.2f}x ({built_cpu * 1000:.2f} ms "
                "CPU per run): every run builds its context (reuse_contexts=0)"
            )
            print(
                f"no read cache:    {cold_batch / cold_single:7.2f}x ({cold_cpu * 1000:.2f} ms CPU "
                "per run): every run builds its context from the graph file (cache_size=0)"
            )
            print(
                f"reference graph:  {ref_batch / ref_single:7.2f}x ({ref_cpu * 1000:.2f} ms CPU "
                "per run): the same nodes and edges with trivial bodies, LangGraph's own floor"
            )
            await scan(store, db, answer, task, Path(scratch))
    ratios = [wall / single for wall in walls]
    return report_result(f"abatch x{RUNS} / one run ({corpus})", ratios, TARGET_RATIO)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=sorted(CORPORA), help="one corpus (default: both)")
    args = parser.parse_args()
    met = [asyncio.run(run(corpus)) for corpus in ([args.corpus] if args.corpus else CORPORA)]
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
