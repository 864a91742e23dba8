"""The ``citeloop`` commands that run a graph: ``run``, ``explain`` and ``audit``.

They keep their runs on a thread of a checkpointer (a SQLite file by default, see
:mod:`citeloop.checkpoints`): ``--thread ID`` resumes an interrupted run of that thread,
or starts a new run on a thread whose run finished. Imported by :mod:`citeloop.cli` only
when one of them runs, as it loads LangGraph and LangChain.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import messages_to_dict

from citeloop.checkpoints import (
    CheckpointerError,
    open_async_checkpointer,
    parse_spec,
    redact,
)
from citeloop.cli_common import (
    CHECKPOINTER_ENV,
    DEFAULT_CHECKPOINTS,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    open_graph,
    print_json,
    read_text,
    thread_argument,
)
from citeloop.context import DeliveryAuditContext, GroundedAnswerContext, VerbalizeContext
from citeloop.contract import AnswerResult, Plan, load_index, load_model
from citeloop.errors import ConfigurationError
from citeloop.graphs.delivery_audit import build_delivery_audit_graph
from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.graphs.verbalize import build_verbalize_graph
from citeloop.interrupts import run_interruptible
from citeloop.knowledge import (
    SqliteGraphStore,
    path_distance,
    recall_paths,
    render_hops,
    resolve_entities,
)
from citeloop.knowledge.paths import MAX_HOPS
from citeloop.models import ReplayRecorder, resolve_chat_model
from citeloop.prompts import EXPLAIN_QUESTION, EXPLAIN_QUESTION_NO_TARGET
from citeloop.state.delivery_audit import OutputState as DeliveryOutput
from citeloop.state.grounded_answer import OutputState
from citeloop.text import counted


def _describe_update(node: str, update: dict[str, Any]) -> str:
    if node in ("inject_context", "expand_context") and "context_entities" in update:
        entities = update["context_entities"]
        core = sum(1 for e in entities if e["tier"] == "core")
        retrieved = sum(1 for e in entities if e.get("reason") == "retrieved")
        found = f", {retrieved} retrieved" if retrieved else ""  # the rewrite's (or a retriever's)
        return f"{len(entities)} entities, {core} core{found}"
    if node == "call_model":
        return "failed" if "error" in update else f"{len(update.get('answer', ''))} chars"
    if node == "validate":
        report = update["report"]
        return "passed" if report["passed"] else "; ".join(report["reasons"]) or "failed"
    if node in ("draft", "refine"):
        return "failed" if update.get("error") else f"{len(update.get('narrative', ''))} chars"
    if node == "mechanical_check":
        failures = update.get("failures") or []
        return ", ".join(f"{f['layer']}/{f['code']}" for f in failures) or "passed"
    if node in ("semantic_audit", "repair_review"):
        if update.get("audit_failure"):
            return update["audit_failure"]["code"]
        return "review needs a repair" if update.get("review_problems") else "reviewed"
    if node == "verdict":
        return update["delivery_outcome"]
    if node == "critique":
        report = update["verbalization"]
        return "passed" if report["passed"] else report["feedback"].replace("\n", " ")
    return ""


async def _run_graph(args: argparse.Namespace, payload: str) -> dict[str, Any]:
    open_graph(args.db).close()  # refuse a missing or empty graph before the run
    context = GroundedAnswerContext(
        model=args.model,
        db_path=args.db,
        max_retries=args.max_retries,
        rewrite_query=args.rewrite_query,
    )
    inputs: dict[str, Any] = {"task": args.task}
    if args.payload:
        inputs["payload"] = payload
    # Resuming compares the task as the graph keeps it (stripped) and the payload.
    same = {"task": args.task.strip(), "payload": payload}
    return await _run_on_thread(
        args, build_grounded_answer_graph, inputs, _run_config(args), context, same
    )


def _run_config(args: argparse.Namespace) -> dict[str, Any]:
    """The run's config: a replay recorder with ``--record``."""
    if not args.record:
        return {}
    try:  # fail before the run, not in a callback after it
        _check_recording(Path(args.record))
        Path(args.record).open("a", encoding="utf-8").close()
    except OSError as exc:
        raise UsageError(f"cannot write --record file {args.record!r}: {exc.strerror}") from None
    return {"callbacks": [ReplayRecorder(args.record)]}


MAX_TURN_BYTES = 16 * 1024 * 1024
"""Most bytes of a recording's first line read to tell it is one."""


def _check_recording(file: Path) -> None:
    """Refuse to append turns to a file that holds something else than recorded turns
    (a source file, the knowledge graph): ``--record`` adds to a recording, or starts
    one in a new or empty file.

    Raises:
        UsageError: Names the file and the fix.
        OSError: The file cannot be read.
    """
    if not file.is_file():
        return
    with file.open("rb") as stream:  # its first turn: blank lines are skipped, as read
        while (first := stream.readline(MAX_TURN_BYTES)) and not first.strip():
            pass
    if not first:
        return
    try:
        turn = json.loads(first.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        turn = None
    if not isinstance(turn, dict) or not isinstance(turn.get("content"), str):
        raise UsageError(
            f"--record file {str(file)!r} is not a recording of turns (its first line is no "
            'JSON object with a string "content"); name a new file, or one that --record '
            "wrote"
        )


async def _run_on_thread(
    args: argparse.Namespace,
    build: Callable[..., Any],
    inputs: dict[str, Any],
    config: dict[str, Any],
    context: Any,
    same: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run the graph of ``build(checkpointer=...)`` on a thread of ``--checkpointer``.

    Without ``--thread`` the run starts on a new thread. With it, an interrupted run of
    the thread (one with pending nodes, e.g. after a kill) is resumed from its last
    checkpoint, so finished steps and model calls are not repeated; a thread whose run
    finished (or a new id) gets a new run. The thread id is printed to stderr first.

    Args:
        same: The values an interrupted run must have been started with to be resumed
            (default ``inputs``).

    Raises:
        UsageError: The thread's interrupted run had other inputs.
        ConfigurationError: The checkpointer cannot be opened.
    """
    if getattr(args, "model", None):  # a bad replay file, a provider not installed:
        resolve_chat_model(args.model)  # refused before the thread starts
    spec = args.checkpointer or os.environ.get(CHECKPOINTER_ENV)
    async with contextlib.AsyncExitStack() as stack:
        try:
            saver = await stack.enter_async_context(
                open_async_checkpointer(spec, default_path=DEFAULT_CHECKPOINTS)
            )
        except ConfigurationError as exc:
            if spec and not args.checkpointer:  # a spec the command line did not show
                raise ConfigurationError(f"{exc} (the spec is ${CHECKPOINTER_ENV})") from None
            raise
        graph = build(checkpointer=saver)
        thread = args.thread or str(uuid.uuid4())
        # Named if the run is interrupted (see cli.main), unless no file keeps it.
        in_memory = parse_spec(spec, DEFAULT_CHECKPOINTS) == ("sqlite", ":memory:")
        args.thread_started = None if in_memory else thread
        config = {**config, "configurable": {"thread_id": thread}}
        print(f"thread: {thread_argument(thread)}", file=sys.stderr)
        run_input: dict[str, Any] | None = inputs
        try:
            if args.thread:
                state = await graph.aget_state(config)
                if state.next:
                    _check_resumable(args, state.values, inputs if same is None else same, spec)
                    nodes = ", ".join(state.next)
                    print(
                        f"resuming the interrupted run of thread {thread_argument(thread)} "
                        f"at {nodes}",
                        file=sys.stderr,
                    )
                    run_input = None  # LangGraph resumes a thread's pending nodes on None
                elif state.values:
                    outcome = state.values.get("outcome")
                    ended = f" (outcome {outcome}: it is not resumed)" if outcome else ""
                    print(
                        f"thread {thread_argument(thread)}: its last run finished{ended}; "
                        "starting a new run",
                        file=sys.stderr,
                    )
            return await _stream(graph, run_input, config, context)
        except CheckpointerError as exc:
            raise UsageError(
                f"{exc}; to resume, run the same command again with --thread "
                f"{thread_argument(thread)}"
            ) from None


def _canonical(value: Any) -> str:
    if isinstance(value, str):
        value = value.strip()
    return json.dumps(value or "", sort_keys=True, ensure_ascii=False, default=str)


def _check_resumable(
    args: argparse.Namespace, values: dict[str, Any], same: dict[str, Any], spec: str | None
) -> None:
    differ = [
        key for key, value in same.items() if _canonical(values.get(key)) != _canonical(value)
    ]
    if differ:
        where = f" (in {redact(spec)})" if spec else ""
        raise UsageError(
            f"thread {args.thread!r}{where} holds an interrupted `citeloop {args.command}` with "
            f"another {', '.join(differ)}; pass the same inputs to resume it, or omit "
            "--thread to start a new run on a new thread"
        )


async def _stream(graph: Any, inputs: Any, config: Any, context: Any) -> dict[str, Any]:
    """Run ``graph``, printing one progress line per node update to stderr; the final
    state (all keys, internal ones included).

    With a checkpointer, each step is saved before the next one starts (``durability=
    "sync"``), so a run killed at any point resumes after its last finished step.
    """
    final: dict[str, Any] = {}
    async for mode, chunk in graph.astream(
        inputs, config, context=context, stream_mode=["updates", "values"], durability="sync"
    ):
        if mode == "values":
            final = chunk
            continue
        for node, update in chunk.items():
            detail = _describe_update(node, update or {})
            print(f"> {node}" + (f": {detail}" if detail else ""), file=sys.stderr)
    return final


_RUN_EXIT = {"passed": EXIT_OK, "exhausted": EXIT_FAILED}


def cmd_run(args: argparse.Namespace) -> int:
    payload = read_text(args.payload, "payload") if args.payload else ""  # read once
    final = run_interruptible(_run_graph(args, payload))
    outcome = final.get("outcome")
    if args.json:
        shown = {key: final[key] for key in sorted(OutputState.__annotations__) if key in final}
        if "messages" in shown:  # LangChain's dict form (messages_from_dict reads it back)
            shown["messages"] = messages_to_dict(shown["messages"])
        if final.get("context_text"):  # what the model was shown: `check` grounds its names
            shown["context_text"] = final["context_text"]
        # What it was asked: `check` grounds its names and reads its bare names as the run.
        shown["task"] = final.get("task") or args.task.strip()
        if asked := final.get("payload") or payload:
            shown["payload"] = asked
        print_json(shown)
    elif outcome != "error":  # an error run has nothing to show but the error, below
        report = final.get("report") or {}
        print(final.get("answer", ""))
        print(
            f"\noutcome: {outcome}; attempts: {final.get('attempts', 0)}; "
            f"context expanded: {final.get('expanded', False)}; "
            f"core entities referenced: {report.get('compliance_ratio', 0):.0%}"
        )
        if report.get("vacuous"):
            print(
                "note: the task names no entity of the knowledge graph, so the context was "
                "empty and nothing could ground the answer; name the code the task is about "
                "as it is written"
            )
        if report.get("insufficient_context"):
            print(
                "note: the answer says its context lacks something (on the last attempt "
                "this is reported, not failed): read what it names as missing before "
                "relying on it"
            )
    if outcome == "error":
        print(f"citeloop: error: {final.get('error')}", file=sys.stderr)
    return _RUN_EXIT.get(outcome, EXIT_USAGE)


def cmd_explain(args: argparse.Namespace) -> int:
    # The cheap checks first: a bad model spec or --record fails before the search.
    context = VerbalizeContext(model=args.model, max_iterations=args.max_iterations)
    resolve_chat_model(context.model)
    config = _run_config(args)
    with open_graph(args.db) as store:
        paths = recall_paths(store, args.source, args.target, max_hops=args.max_hops)
        if not paths:
            return _no_path(args, store)
    path = paths[0]
    # As JSON: a checkpointer keeps the input, and plain data reads back anywhere.
    inputs = {"path": path.to_dict(), "question": _question(args)}
    final = run_interruptible(_run_on_thread(args, build_verbalize_graph, inputs, config, context))
    report = final["verbalization"]
    if args.json:
        print_json(
            {
                "path": path.to_dict(),
                "paths_found": len(paths),
                "narrative": final.get("narrative", ""),
                "verbalization": report,
            }
        )
    elif not report["error"]:
        print(f"Path ({counted(len(path), 'hop')}, {len(paths)} found):\n{render_hops(path)}\n")
        print(final.get("narrative", ""))
        print(
            f"\npassed: {str(report['passed']).lower()}; iterations used: "
            f"{report['iterations_used']} of {report['max_iterations']}; "
            f"model calls: {report['model_calls']}"
        )
        if report["missing_fact_ids"]:
            print(f"missing fact ids: {', '.join(report['missing_fact_ids'])}")
    if report["error"]:
        print(f"citeloop: error: {report['error']}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK if report["passed"] else EXIT_FAILED


def _no_path(args: argparse.Namespace, store: SqliteGraphStore) -> int:
    """Say why no path was found (on stderr; with --json also an empty result)."""
    lonely = [
        name
        for name in (args.source, args.target)
        if name and not any(store.facts_of(e.id) for e in resolve_entities(store, name))
    ]
    between = f"{args.source!r} and {args.target!r}" if args.target else repr(args.source)
    if lonely:
        why = f"{' and '.join(map(repr, lonely))} has no facts in the knowledge graph"
    elif not args.target:
        why = "none of its facts leads to another resolved entity"
    else:
        # The search proved there is no path within --max-hops; say how far apart the
        # entities are instead of guessing.
        reach = path_distance(store, args.source, args.target, max_hops=MAX_HOPS)
        if reach.distance is not None:
            why = (
                f"they are {counted(reach.distance, 'hop')} apart: use --max-hops {reach.distance}"
            )
        elif reach.exhausted:
            why = "they are not connected in the knowledge graph"
        else:
            why = f"they are not connected within {MAX_HOPS} hops, the largest --max-hops"
    print(
        f"citeloop: no path connects {between} within {counted(args.max_hops, 'hop')}; {why}",
        file=sys.stderr,
    )
    if args.json:
        print_json({"path": None, "paths_found": 0, "narrative": "", "verbalization": None})
    return EXIT_FAILED


def _question(args: argparse.Namespace) -> str:
    if args.target:
        return EXPLAIN_QUESTION.format(source=args.source, target=args.target)
    return EXPLAIN_QUESTION_NO_TARGET.format(source=args.source)


def cmd_audit(args: argparse.Namespace) -> int:
    result = load_model(args.result, AnswerResult)
    plan = load_model(args.plan, Plan)
    index = load_index(args.index)
    context = DeliveryAuditContext(model=args.model)
    inputs = {
        "result": result.model_dump(mode="json"),
        "plan": plan.model_dump(mode="json"),
        "index": index.model_dump(mode="json"),
    }
    config = _run_config(args)
    final = run_interruptible(
        _run_on_thread(args, build_delivery_audit_graph, inputs, config, context)
    )
    keys = sorted(DeliveryOutput.__annotations__)
    verdict = {key: final[key] for key in keys if key in final}
    if args.json:
        print_json(verdict)
    elif verdict["delivered"]:
        print(f"delivered: {verdict['delivery_outcome']}")
    else:
        check = verdict["delivery_check"]
        print(f"rejected: {check['layer']}/{check['code']}")
        print(f"request fingerprint: {check['request_fingerprint']}")
        for failure in verdict["failures"][1:]:
            print(f"also: {failure['layer']}/{failure['code']}")
    return EXIT_OK if verdict["delivered"] else EXIT_FAILED
