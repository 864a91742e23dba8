"""The ``citeloop`` command.

Exit codes: 0 success (``check``/``run``/``explain``: the answer or narrative passed;
``audit``: the result may be delivered); 1 the answer failed (``check``), the retry
budget was spent (``run``, outcome ``exhausted``; ``explain``, a narrative that never
passed its critics), no path connects the entities (``explain``), or the result was
rejected (``audit``, with codes only); 2 a usage, input or configuration error, or a run
that ended with a model error (the message names the input and the fix); 3 an
unexpected internal error.

``run``, ``explain`` and ``audit`` keep their runs on a thread of a checkpointer (a SQLite
file by default, see :mod:`citeloop.checkpoints`): ``--thread ID`` resumes an
interrupted run of that thread, or starts a new run on a thread whose run finished.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from tqdm import tqdm

from citeloop.checkpoints import open_async_checkpointer, redact
from citeloop.context import (
    MAX_ITERATIONS,
    DeliveryAuditContext,
    GroundedAnswerContext,
    VerbalizeContext,
)
from citeloop.contract import AnswerResult, Plan, load_index, load_model
from citeloop.errors import CiteloopError
from citeloop.graphs.delivery_audit import build_delivery_audit_graph
from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.graphs.verbalize import build_verbalize_graph
from citeloop.interrupts import run_interruptible
from citeloop.knowledge import (
    ContextInjector,
    InjectedContext,
    SqliteGraphStore,
    check_root,
    index_tree,
    recall_paths,
    render_hops,
    resolve_entities,
)
from citeloop.knowledge.indexing.indexer import DEFAULT_MAX_FILE_BYTES
from citeloop.knowledge.indexing.modules import PackageRoot
from citeloop.knowledge.injector import DEFAULT_MAX_CONTEXT_TOKENS
from citeloop.knowledge.paths import MAX_HOPS
from citeloop.models import ReplayRecorder, resolve_chat_model
from citeloop.prompts import EXPLAIN_QUESTION, EXPLAIN_QUESTION_NO_TARGET
from citeloop.reading import read_input_bytes
from citeloop.state.delivery_audit import OutputState as DeliveryOutput
from citeloop.state.grounded_answer import OutputState
from citeloop.terminal import escape_controls, escape_json, raw_stream, safe_output
from citeloop.validation import GraphContextValidator

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class UsageError(CiteloopError):
    """A command-line input is missing or unreadable."""


DEFAULT_CHECKPOINTS = Path(".citeloop") / "checkpoints.db"
"""Where threads are kept without ``--checkpointer`` (relative to the working folder)."""
CHECKPOINTER_ENV = "CITELOOP_CHECKPOINTER"
"""The default ``--checkpointer`` spec (keeps a database password off the command line)."""

MAX_INPUT_BYTES = 50_000_000
"""Largest --context/--response/--payload file read (bounds memory on e.g. /dev/zero)."""


def _read_text(path: str, what: str) -> str:
    try:
        data = read_input_bytes(path, MAX_INPUT_BYTES)  # a pipe without a writer: refused
        if len(data) > MAX_INPUT_BYTES:
            raise UsageError(f"{what} file {path!r} is larger than {MAX_INPUT_BYTES} bytes")
        return data.decode("utf-8")
    except FileNotFoundError:
        raise UsageError(f"{what} file {path!r} does not exist") from None
    except UnicodeDecodeError:
        raise UsageError(f"{what} file {path!r} is not UTF-8 text") from None
    except OSError as exc:
        raise UsageError(f"cannot read {what} file {path!r}: {exc.strerror}") from None


def _open_graph(path: str) -> SqliteGraphStore:
    """An existing, non-empty knowledge graph, opened read-only.

    Raises:
        UsageError: It is missing, a directory, or holds no entity.
    """
    db = Path(path)
    if db.is_dir():
        raise UsageError(f"--db {path!r} is a directory; pass the graph file inside it")
    if not db.is_file():
        raise UsageError(
            f"knowledge graph {path!r} does not exist; build it first with "
            f"`citeloop index PATH --db {path}`"
        )
    store = SqliteGraphStore(db, read_only=True)
    if not store.stats()["entities"]:
        store.close()
        raise UsageError(
            f"knowledge graph {path!r} is empty; index a tree that holds Python "
            f"files with `citeloop index PATH --db {path}`"
        )
    return store


def _print_json(data: Any) -> None:
    print(escape_json(json.dumps(data, indent=2, ensure_ascii=False, default=str)))


def cmd_index(args: argparse.Namespace) -> int:
    root = check_root(args.path)  # before the database file is created
    Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    bar: tqdm | None = None

    def progress(done: int, total: int, path: str) -> None:
        nonlocal bar
        if bar is None:
            # disable=None: no bar when stderr is not a terminal (e.g. CI logs)
            bar = tqdm(
                total=total, unit="file", desc="indexing", file=raw_stream(sys.stderr), disable=None
            )
        bar.set_postfix_str(escape_controls(path[-40:]), refresh=False)
        bar.update(done - bar.n)

    with SqliteGraphStore(args.db) as store:
        try:
            report = index_tree(
                root,
                store,
                packages=args.package,
                progress=None if args.quiet else progress,
                max_file_bytes=args.max_file_bytes,
            )
        finally:
            if bar is not None:
                bar.close()
    print(
        f"indexed {report.files_indexed} files ({report.files_unchanged} unchanged, "
        f"{report.files_removed} removed): {report.entities} entities, "
        f"{report.relations} relations, {len(report.skipped)} skipped"
    )
    if report.packages:
        print("packages: " + _package_list(report.packages))
    for skipped in report.skipped:
        print(f"  skipped {skipped.path}: {skipped.reason}")
    if report.lowered:
        print(
            f"  {len(report.lowered)} files use syntax newer than this Python "
            f"({sys.version_info.major}.{sys.version_info.minor}); indexed by lowering it"
        )
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not report.entities:
        print(f"note: no Python file or decision record found under {args.path}", file=sys.stderr)
    return EXIT_OK


_MAX_PACKAGES_SHOWN = 12


def _package_list(packages: Sequence[PackageRoot]) -> str:
    """``"app (src/app), tests (tests, namespace)"``, the first few then a count."""
    shown = [
        f"{package.name} ({package.path}{', namespace' if package.namespace else ''})"
        for package in packages[:_MAX_PACKAGES_SHOWN]
    ]
    if len(packages) > _MAX_PACKAGES_SHOWN:
        shown.append(f"and {len(packages) - _MAX_PACKAGES_SHOWN} more")
    return ", ".join(shown)


def cmd_context(args: argparse.Namespace) -> int:
    with _open_graph(args.db) as store:
        injector = ContextInjector(store, hops=args.hops, max_context_tokens=args.max_tokens)
        injected = injector.inject(args.task)
    if not injected.entities:
        print("note: the task names no entity of the knowledge graph", file=sys.stderr)
    if args.json:
        _print_json(
            {
                "text": injected.text,
                "snapshot": injected.snapshot,
                "tokens": injected.tokens,
                "budget": injected.budget,
                "entities": [dataclasses.asdict(entity) for entity in injected.entities],
            }
        )
        return EXIT_OK
    print(injected.text, end="" if injected.text.endswith("\n") else "\n")
    if args.explain:
        print(f"\n{_explanation(injected)}")
    return EXIT_OK


def _explanation(injected: InjectedContext) -> str:
    """Why each entity is in the context, and the budget used (``context --explain``)."""
    core = sum(1 for entity in injected.entities if entity.tier == "core")
    lines = [
        f"-- {injected.tokens} of {injected.budget} tokens; {len(injected.entities)} entities, "
        f"{core} core (reason: mention = the task names it as code, lexical = its words "
        "match the task's, graph = related to those, owner = the class of a member shown)",
        f"{'tier':<10} {'reason':<8} {'score':>7}  {'where':<40} entity",
    ]
    for entity in injected.entities:
        where = f"{entity.path}:{entity.line}" if entity.path and entity.line else "-"
        lines.append(
            f"{entity.tier:<10} {entity.reason:<8} {entity.score:>7.4f}  {where:<40} {entity.id}"
        )
    return "\n".join(lines)


def _load_context(path: str) -> Any:
    """JSON with an ``entities`` list (text starting with ``{``), or context text."""
    text = _read_text(path, "context")
    # Decided by content, not by name: `--context <(citeloop context --json)` has none.
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise UsageError(f"context file {path!r} is not valid JSON: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("entities"), list):
            raise UsageError(
                f'context file {path!r} must hold {{"entities": [...]}} '
                "(as printed by `citeloop context --json`), or be context text"
            )
        return data["entities"]
    return text


def cmd_check(args: argparse.Namespace) -> int:
    context = _load_context(args.context)
    response = _read_text(args.response, "response")
    validator = GraphContextValidator(
        reference_threshold=args.threshold, require_citations=not args.no_require_citations
    )
    try:
        result = validator.validate(response, context)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"context file {args.context!r}: {exc}") from None
    if result.vacuous:  # surely the wrong file (or swapped files), not a pass
        raise UsageError(
            f"no entity found in context file {args.context!r}; pass the output of "
            "`citeloop context --json` (or context text) as --context"
        )
    if args.json:
        _print_json(result.to_dict())
    else:
        if result.passed:
            print(f"PASSED: the body references {result.compliance_ratio:.0%} of core entities")
        else:
            print(f"FAILED ({result.compliance_ratio:.0%} of core entities referenced):")
        for reason in result.reasons:
            print(f"  - {reason}")
        if isinstance(context, str) and not result.passed:
            print(
                "  note: a text context has no tiers, so every public entity counts as "
                "core; pass `citeloop context --json` output to require only the core"
            )
    return EXIT_OK if result.passed else EXIT_FAILED


def _describe_update(node: str, update: dict[str, Any]) -> str:
    if node in ("inject_context", "expand_context") and "context_entities" in update:
        entities = update["context_entities"]
        core = sum(1 for e in entities if e["tier"] == "core")
        return f"{len(entities)} entities, {core} core"
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


async def _run_graph(args: argparse.Namespace) -> dict[str, Any]:
    _open_graph(args.db).close()  # refuse a missing or empty graph before the run
    context = GroundedAnswerContext(model=args.model, db_path=args.db, max_retries=args.max_retries)
    inputs: dict[str, Any] = {"task": args.task}
    if args.payload:
        inputs["payload"] = _read_text(args.payload, "payload")
    # Resuming compares the task as the graph keeps it (stripped) and the payload.
    same = {"task": args.task.strip(), "payload": inputs.get("payload", "")}
    return await _run_on_thread(
        args, build_grounded_answer_graph, inputs, _run_config(args), context, same
    )


def _run_config(args: argparse.Namespace) -> dict[str, Any]:
    """The run's config: a replay recorder with ``--record``."""
    if not args.record:
        return {}
    try:  # fail before the run, not in a callback after it
        Path(args.record).open("a", encoding="utf-8").close()
    except OSError as exc:
        raise UsageError(f"cannot write --record file {args.record!r}: {exc.strerror}") from None
    return {"callbacks": [ReplayRecorder(args.record)]}


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
    spec = args.checkpointer or os.environ.get(CHECKPOINTER_ENV)
    async with open_async_checkpointer(spec, default_path=DEFAULT_CHECKPOINTS) as saver:
        graph = build(checkpointer=saver)
        thread = args.thread or str(uuid.uuid4())
        config = {**config, "configurable": {"thread_id": thread}}
        print(f"thread: {thread}", file=sys.stderr)
        run_input: dict[str, Any] | None = inputs
        if args.thread:
            state = await graph.aget_state(config)
            if state.next:
                _check_resumable(args, state.values, inputs if same is None else same, spec)
                nodes = ", ".join(state.next)
                print(
                    f"resuming the interrupted run of thread {thread} at {nodes}", file=sys.stderr
                )
                run_input = None  # LangGraph resumes a thread's pending nodes on None
            elif state.values:
                print(
                    f"thread {thread}: its last run finished; starting a new run", file=sys.stderr
                )
        return await _stream(graph, run_input, config, context)


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
    final = run_interruptible(_run_graph(args))
    outcome = final.get("outcome")
    if args.json:
        keys = OutputState.__annotations__.keys() - {"messages"}
        _print_json({key: final[key] for key in sorted(keys) if key in final})
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
    if outcome == "error":
        print(f"citeloop: error: {final.get('error')}", file=sys.stderr)
    return _RUN_EXIT.get(outcome, EXIT_USAGE)


def cmd_explain(args: argparse.Namespace) -> int:
    # The cheap checks first: a bad model spec or --record fails before the search.
    context = VerbalizeContext(model=args.model, max_iterations=args.max_iterations)
    resolve_chat_model(context.model)
    config = _run_config(args)
    with _open_graph(args.db) as store:
        paths = recall_paths(store, args.source, args.target, max_hops=args.max_hops)
        if not paths:
            return _no_path(args, store)
    path = paths[0]
    # As JSON: a checkpointer keeps the input, and plain data reads back anywhere.
    inputs = {"path": path.to_dict(), "question": _question(args)}
    final = run_interruptible(_run_on_thread(args, build_verbalize_graph, inputs, config, context))
    report = final["verbalization"]
    if args.json:
        _print_json(
            {
                "path": path.to_dict(),
                "paths_found": len(paths),
                "narrative": final.get("narrative", ""),
                "verbalization": report,
            }
        )
    elif not report["error"]:
        print(f"Path ({len(path)} hops, {len(paths)} found):\n{render_hops(path)}\n")
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
    elif args.max_hops < MAX_HOPS:
        why = f"try a larger --max-hops (at most {MAX_HOPS})"
    else:
        why = "they are not connected within the largest --max-hops"
    print(
        f"citeloop: no path connects {between} within {args.max_hops} hops; {why}", file=sys.stderr
    )
    if args.json:
        _print_json({"path": None, "paths_found": 0, "narrative": "", "verbalization": None})
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
    final = run_interruptible(_run_on_thread(args, build_delivery_audit_graph, inputs, {}, context))
    keys = sorted(DeliveryOutput.__annotations__)
    verdict = {key: final[key] for key in keys if key in final}
    if args.json:
        _print_json(verdict)
    elif verdict["delivered"]:
        print(f"delivered: {verdict['delivery_outcome']}")
    else:
        check = verdict["delivery_check"]
        print(f"rejected: {check['layer']}/{check['code']}")
        print(f"request fingerprint: {check['request_fingerprint']}")
        for failure in verdict["failures"][1:]:
            print(f"also: {failure['layer']}/{failure['code']}")
    return EXIT_OK if verdict["delivered"] else EXIT_FAILED


def _threshold(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0.0 <= number <= 1.0:
        raise argparse.ArgumentTypeError(f"must be within 0..1, got {value}")
    return number


def _integer(value: str, minimum: int) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if number < minimum:
        raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
    return number


def _non_negative(value: str) -> int:
    return _integer(value, 0)


def _positive(value: str) -> int:
    return _integer(value, 1)


def _hops(value: str) -> int:
    number = _integer(value, 1)
    if number > MAX_HOPS:
        raise argparse.ArgumentTypeError(f"must be <= {MAX_HOPS}, got {value}")
    return number


def _iterations(value: str) -> int:
    number = _integer(value, 1)
    if number > MAX_ITERATIONS:
        raise argparse.ArgumentTypeError(f"must be <= {MAX_ITERATIONS}, got {value}")
    return number


def _text(value: str) -> str:
    if not value.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return value


def _thread_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--thread",
        type=_text,
        help="thread id: resume its interrupted run, or run again on it (default: new thread)",
    )
    parser.add_argument(
        "--checkpointer",
        metavar="SPEC",
        help=f"where threads are kept: a SQLite file ('sqlite:PATH' or PATH; default "
        f"${CHECKPOINTER_ENV}, else {DEFAULT_CHECKPOINTS}) or a postgresql:// URL",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citeloop", description="Grounded, cited LLM answers over a code knowledge graph."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    index = sub.add_parser("index", help="index a Python source tree into a SQLite graph")
    index.add_argument("path", help="root folder of the source tree")
    index.add_argument("--db", required=True, help="SQLite file to create or update")
    index.add_argument("--quiet", action="store_true", help="no progress bar")
    index.add_argument(
        "--package",
        action="append",
        default=[],
        metavar="NAME",
        help="import name of a folder of the tree that no rule names, e.g. a namespace "
        "package outside site-packages (repeatable; dotted names allowed)",
    )
    index.add_argument(
        "--max-file-bytes",
        type=_positive,
        default=DEFAULT_MAX_FILE_BYTES,
        help=f"skip larger files as generated (default {DEFAULT_MAX_FILE_BYTES})",
    )
    index.set_defaults(func=cmd_index)

    context = sub.add_parser("context", help="print the graph context for a task")
    context.add_argument("--db", required=True, help="SQLite graph from `citeloop index`")
    context.add_argument("--task", required=True, type=_text, help="the task text")
    context.add_argument(
        "--hops", type=_non_negative, default=2, help="neighbourhood depth ranked (default 2)"
    )
    context.add_argument(
        "--max-tokens",
        type=_positive,
        default=DEFAULT_MAX_CONTEXT_TOKENS,
        help=f"token budget of the context (default {DEFAULT_MAX_CONTEXT_TOKENS})",
    )
    shown = context.add_mutually_exclusive_group()
    shown.add_argument(
        "--explain",
        action="store_true",
        help="after the text, show why each entity is there (reason, score, path:line) "
        "and the tokens used",
    )
    shown.add_argument(
        "--json",
        action="store_true",
        help="print text, entities (with reason, score, path:line) and tokens as JSON",
    )
    context.set_defaults(func=cmd_context)

    check = sub.add_parser("check", help="validate an answer against a graph context")
    check.add_argument("--context", required=True, help="context text, or .json with entities")
    check.add_argument("--response", required=True, help="the answer to check")
    check.add_argument("--threshold", type=_threshold, default=0.5, help="reference threshold")
    check.add_argument(
        "--no-require-citations", action="store_true", help="do not require citations"
    )
    check.add_argument("--json", action="store_true", help="print the result as JSON")
    check.set_defaults(func=cmd_check)

    run = sub.add_parser("run", help="run the grounded_answer graph on a task")
    run.add_argument("--db", required=True, help="SQLite graph from `citeloop index`")
    run.add_argument("--task", required=True, type=_text, help="the task text")
    run.add_argument("--model", required=True, help="'provider:model' or 'replay:PATH'")
    run.add_argument("--payload", help="file whose text the task refers to")
    run.add_argument("--max-retries", type=_non_negative, default=2, help="re-asks (default 2)")
    run.add_argument("--record", help="append the model's turns to this replay JSONL file")
    run.add_argument("--json", action="store_true", help="print the output state as JSON")
    _thread_options(run)
    run.set_defaults(func=cmd_run)

    explain = sub.add_parser(
        "explain", help="find how entities are connected and narrate the best path"
    )
    explain.add_argument("--db", required=True, help="SQLite graph from `citeloop index`")
    explain.add_argument(
        "--from", dest="source", required=True, type=_text, help="entity the path starts at"
    )
    explain.add_argument(
        "--to", dest="target", type=_text, help="entity the path ends at (default: strongest)"
    )
    explain.add_argument("--model", required=True, help="'provider:model' or 'replay:PATH'")
    explain.add_argument(
        "--max-hops", type=_hops, default=3, help=f"longest path (1..{MAX_HOPS}, default 3)"
    )
    explain.add_argument(
        "--max-iterations",
        type=_iterations,
        default=2,
        help=f"critiques that may fail (1..{MAX_ITERATIONS}, default 2)",
    )
    explain.add_argument("--record", help="append the model's turns to this replay JSONL file")
    explain.add_argument("--json", action="store_true", help="print path and result as JSON")
    _thread_options(explain)
    explain.set_defaults(func=cmd_explain)

    audit = sub.add_parser("audit", help="decide whether a result may be delivered")
    audit.add_argument("--result", required=True, help="AnswerResult JSON file")
    audit.add_argument("--plan", required=True, help="Plan JSON file")
    audit.add_argument("--index", required=True, help="EvidenceIndex JSON file, or JSONL documents")
    audit.add_argument("--model", required=True, help="'provider:model' or 'replay:PATH'")
    audit.add_argument("--json", action="store_true", help="print the verdict as JSON")
    _thread_options(audit)
    audit.set_defaults(func=cmd_audit)
    return parser


def _fail(message: str, code: int) -> NoReturn:
    print(f"citeloop: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``citeloop`` console script; returns the exit code.

    Control characters in what it prints (from indexed files, answers, thread ids,
    tasks) are shown escaped (:mod:`citeloop.terminal`).
    """
    with safe_output():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CiteloopError as exc:
        _fail(str(exc), EXIT_USAGE)
    except BrokenPipeError:  # before OSError, its base class
        # The reader went away (e.g. `| head`): stop quietly, as the Python docs advise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    except OSError as exc:  # a path the user gave cannot be created or read
        _fail(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), EXIT_USAGE)
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    except Exception as exc:
        if os.environ.get("CITELOOP_DEBUG"):
            raise
        _fail(f"{type(exc).__name__}: {exc} (set CITELOOP_DEBUG=1 for a traceback)", 3)


if __name__ == "__main__":
    sys.exit(main())
