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
import importlib
import os
import shlex
import sqlite3
import sys
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from citeloop.cli_common import (
    CHECKPOINTER_ENV,
    DEFAULT_CHECKPOINTS,
    EXIT_FAILED,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    open_graph,
    print_json,
    read_text,
    thread_argument,
)
from citeloop.cli_inputs import answer_of, load_context
from citeloop.context import DEFAULT_MODEL, MAX_ITERATIONS
from citeloop.errors import CiteloopError, ConfigurationError
from citeloop.knowledge.indexing.sources import DEFAULT_MAX_FILE_BYTES
from citeloop.knowledge.model import DEFAULT_MAX_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS, MAX_HOPS
from citeloop.terminal import escape_controls, raw_stream, safe_output
from citeloop.text import counted

if TYPE_CHECKING:
    from citeloop.grounding.results import GraphValidationResult
    from citeloop.knowledge import InjectedContext, SqliteGraphStore
    from citeloop.knowledge.indexing.modules import PackageRoot
    from citeloop.knowledge.model import ContextEntity
    from citeloop.retrievers import QueryRewriteRetriever


def _graph_command(name: str) -> Callable[[argparse.Namespace], int]:
    """The command ``name`` of :mod:`citeloop.cli_graphs`, imported when it runs: only
    the commands that run a graph load LangGraph and LangChain."""

    def command(args: argparse.Namespace) -> int:
        return getattr(importlib.import_module("citeloop.cli_graphs"), name)(args)

    return command


def cmd_index(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from citeloop.knowledge import SqliteGraphStore, check_root, index_tree

    root = check_root(args.path)  # before the database file is created
    if Path(args.db).is_dir():
        raise UsageError(
            f"--db {args.db!r} is a directory; pass the path of the graph file to write "
            f"(e.g. --db {Path(args.db).name or 'graph'}.db)"
        )
    Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    bar: tqdm | None = None  # created on the first file, when the total is known

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
                on_wait=lambda message: print(f"note: {message}", file=sys.stderr),
            )
        finally:
            if bar is not None:
                bar.close()
    print(
        f"indexed {counted(report.files_indexed, 'file')} ({report.files_unchanged} "
        f"unchanged, {report.files_removed} removed): "
        f"{counted(report.entities, 'entity', 'entities')}, "
        f"{counted(report.relations, 'relation')}, {len(report.skipped)} skipped"
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


def _rewriter(spec: str, store: SqliteGraphStore) -> QueryRewriteRetriever:
    """The query-rewrite retriever of ``context --rewrite-model``: an error of its model
    call is a :class:`ConfigurationError` that names the option (exit 2)."""
    from langchain_core.runnables import RunnableLambda

    from citeloop.models import resolve_chat_model
    from citeloop.nodes.chat import describe_error
    from citeloop.retrievers import QueryRewriteRetriever

    model = resolve_chat_model(spec)

    def ask(messages: list[Any]) -> Any:
        try:
            return model.invoke(messages)
        except Exception as exc:
            raise ConfigurationError(
                f"the query rewrite failed: {describe_error(exc)} (check --rewrite-model {spec})"
            ) from exc

    return QueryRewriteRetriever(model=RunnableLambda(ask), store=store)


def cmd_context(args: argparse.Namespace) -> int:
    from citeloop.knowledge import ContextInjector
    from citeloop.knowledge.excerpts import EXCERPT_SHARE

    with open_graph(args.db) as store:
        injector = ContextInjector(
            store,
            hops=args.hops,
            max_context_tokens=args.max_tokens,
            excerpt_share=0 if args.no_source else EXCERPT_SHARE,
            retriever=None if args.rewrite_model is None else _rewriter(args.rewrite_model, store),
        )
        injected = injector.inject(args.task)
        unknown = _unknown_code(args.task, store.names())
        root = None if args.no_source else store.source_root()
        changed = _changed_files(store, injected, root) if root else []
    if changed:
        print(
            f"note: {counted(len(changed), 'file')} changed since the graph was indexed "
            f"({', '.join(changed[:3])}{', ...' if len(changed) > 3 else ''}); their source "
            f"is not shown: run `citeloop index {shlex.quote(str(root))} --db "
            f"{shlex.quote(args.db)}` again",
            file=sys.stderr,
        )
    standard = [name for name in unknown if name.partition(".")[0] in sys.stdlib_module_names]
    if standard:
        print(
            "note: the task names Python's standard library, which the knowledge graph "
            f"does not index: {', '.join(standard)}",
            file=sys.stderr,
        )
    if unknown := [name for name in unknown if name not in standard]:
        print(
            f"note: the task names code the knowledge graph does not have: {', '.join(unknown)} "
            f"(is {args.db!r} the graph of that code?)",
            file=sys.stderr,
        )
    if not injected.entities:
        print("note: the task names no entity of the knowledge graph", file=sys.stderr)
    if args.json:
        print_json(
            {
                "task": args.task,
                "text": injected.text,
                "snapshot": injected.snapshot,
                "tokens": injected.tokens,
                "budget": injected.budget,
                "entities": [dataclasses.asdict(entity) for entity in injected.entities],
                "excerpts": {entity_id: list(lines) for entity_id, lines in injected.excerpts},
            }
        )
        return EXIT_OK
    print(injected.text, end="" if injected.text.endswith("\n") else "\n")
    if args.explain:
        print(f"\n{_explanation(injected)}")
    return EXIT_OK


def _changed_files(store: SqliteGraphStore, injected: InjectedContext, root: Path) -> list[str]:
    """The files of the context's entities whose source differs from what the graph
    indexed from ``root`` (so the context shows none of their lines), sorted; none when
    the folder is gone."""
    from citeloop.knowledge.source import SourceReader

    if not root.is_dir():
        return []
    indexed = store.file_digests({entity.path for entity in injected.entities if entity.path})
    shown = SourceReader(root, lambda _paths: indexed).lines(indexed)
    return sorted(path for path in indexed if path not in shown)


def _unknown_code(task: str, names: Collection[str]) -> list[str]:
    """The code the task names (CamelCase, dotted, ``name()``, with an underscore, an
    id; in backticks too) whose name no entity of the graph has; a capitalized word or
    a plain word in backticks (`` `pip install x` ``, "Python") may be prose, and is
    left out."""
    from citeloop.grounding.mentions import code_mentions, is_code_shaped

    return [
        mention.name
        for mention in code_mentions(task)
        if mention.form != "capitalized"
        and (mention.form != "backticks" or is_code_shaped(mention.name))
        and mention.name.removesuffix("()").rpartition(".")[2] not in names
    ]


def _explanation(injected: InjectedContext) -> str:
    """Why each entity is in the context, and the budget used (``context --explain``)."""
    core = sum(1 for entity in injected.entities if entity.tier == "core")
    lines = [
        f"-- {injected.tokens} of {injected.budget} tokens; {len(injected.entities)} entities, "
        f"{core} core",
        "-- reason: mention = the task names it as code; lexical = its words match the task's;",
        "--   retrieved = the injector's retriever returned it; graph = related to those;",
        "--   owner = the class of a member shown; member = on a class's or file's member list",
        "--   (one row a list, its best score; --json gives every member)",
        f"{'tier':<10} {'reason':<9} {'score':>7}  {'where':<40} entity",
    ]
    for group in _member_lists(injected.entities):
        entity = group[0]
        where = f"{entity.path}:{entity.line}" if entity.path and entity.line else "-"
        what = entity.id
        if len(group) > 1:  # the members a list shows: the owner, how many, which
            where = entity.path or "-"  # a line of one member would read as the owner's
            owner = entity.id.rpartition(".")[0]
            names = [member.id.rpartition(".")[2] for member in group]
            more = ", ..." if len(names) > 4 else ""
            what = f"{owner}: {len(group)} members ({', '.join(names[:4])}{more})"
        score = max(member.score for member in group)
        lines.append(f"{entity.tier:<10} {entity.reason:<9} {score:>7.4f}  {where:<40} {what}")
    return "\n".join(lines)


def _member_lists(entities: Sequence[ContextEntity]) -> list[list[ContextEntity]]:
    """``entities`` in order, the members that one list shows (consecutive, of one
    owner and tier, reason ``member``) in one group; every other entity alone."""
    groups: list[list[ContextEntity]] = []
    for entity in entities:
        last = groups[-1][-1] if groups else None
        if (
            last is not None
            and entity.reason == last.reason == "member"
            and entity.tier == last.tier
            and entity.id.rpartition(".")[0] == last.id.rpartition(".")[0]
        ):
            groups[-1].append(entity)
        else:
            groups.append([entity])
    return groups


def cmd_check(args: argparse.Namespace) -> int:
    from citeloop.grounding.graph_context import GraphContextValidator

    saved = load_context(args.context)
    context = saved.context
    text = read_text(args.response, "response")
    response = answer_of(text, args.response)
    if not response.strip():  # surely the wrong file: an answer says something
        if response != text:  # a run output's answer, not the file, is blank
            raise UsageError(
                f"the answer of run output {args.response!r} is empty; pass the output of "
                "a run that answered"
            )
        raise UsageError(
            f"response file {args.response!r} is empty; pass the file that holds the answer "
            "(its text, or a `run --json` output)"
        )
    # The task the answer was asked (the saved one, or --task): its names are grounded, and
    # a bare name it writes is one requirement, as in the run.
    task = args.task or saved.task
    given = [piece for piece in (task, saved.payload) if piece]
    prompt = [*given, saved.shown] if given else saved.shown
    validator = GraphContextValidator(
        reference_threshold=args.threshold,
        require_citations=not args.no_require_citations,
        fail_on_insufficient=not args.allow_insufficient,
    )
    names = None
    if args.db is not None:  # the code base's names tell invented ones apart
        from citeloop.knowledge.store import batched
        from citeloop.nodes.graph_files import graph_names

        with open_graph(args.db) as store:
            _check_same_code_base(store, context, args.db, args.context)
            names = graph_names(batched(store))
    try:
        result = validator.validate(response, context, prompt=prompt, graph_names=names)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"context file {args.context!r}: {exc}") from None
    if result.vacuous:  # surely the wrong file (or swapped files), not a pass
        raise UsageError(
            f"no entity found in context file {args.context!r}; pass the output of "
            "`citeloop context --json` (or context text) as --context"
        )
    if args.json:
        print_json(result.to_dict())
    else:
        tiered = not isinstance(context, str)
        lines = _check_lines(
            result, response, task, saved.payload, graph=names is not None, tiered=tiered
        )
        print("\n".join(lines))
    return EXIT_OK if result.passed else EXIT_FAILED


def _check_lines(
    result: GraphValidationResult,
    response: str,
    task: str,
    payload: str,
    *,
    graph: bool,
    tiered: bool,
) -> list[str]:
    """What ``check`` prints of ``result``: the verdict, its reasons, and the notes that
    say what to do about them (``graph``: the code base's names were read, ``--db``;
    ``tiered``: the context is JSON, whose entities have tiers)."""
    from citeloop.grounding.graph_context import as_read
    from citeloop.grounding.retry_prompt import as_written
    from citeloop.grounding.sayings import first_saying

    if result.passed:
        lines = [f"PASSED: the body references {result.compliance_ratio:.0%} of core entities"]
    else:
        lines = [f"FAILED ({counted(len(result.reasons), 'problem')}):"]
    lines += [f"  - {reason}" for reason in result.reasons]
    if written := as_written(result.missing_core_citations, task, payload):
        lines.append(f"  note: {'; '.join(written)}")
    if not result.passed and "insufficient_context" in result.failed_rules:
        said = first_saying(as_read(response))  # the text the rule read
        where = f'it says so here: "{said}"' if said else "it says so"
        lines.append(
            f"  note: {where}; --allow-insufficient reports this, not fails it, as a "
            "run's last attempt does"
        )
    if result.passed and result.insufficient_context:  # --allow-insufficient
        lines.append(
            "  note: the answer says its context lacks something (reported, not "
            "failed): read what it names as missing before relying on it"
        )
    if result.ungrounded_in_graph:
        lines.append(
            "  note: the code base has these names, but the context does not show them, "
            f"so nothing the answer says of them is grounded: "
            f"{', '.join(result.ungrounded_in_graph)}"
        )
    if not graph and result.invented_names:
        lines.append(
            "  note: without --db every name the context lacks counts as invented; "
            "pass the graph (--db) to tell the code base's names apart"
        )
    if not tiered and not result.passed:
        lines.append(
            "  note: a text context has no tiers, so every public entity counts as "
            "core; pass `citeloop context --json` output to require only the core"
        )
    return lines


def _check_same_code_base(store: SqliteGraphStore, context: Any, db: str, path: str) -> None:
    """Refuse a ``--db`` that has none of a JSON context's entities (by id): the graph of
    another code base, whose names would spare what the answer invents as "the code
    base has these names". A context text names no ids, and is not checked.

    Raises:
        UsageError: Naming both files and the fix.
    """
    if not isinstance(context, list):
        return
    ids = [e["id"] for e in context if isinstance(e, dict) and isinstance(e.get("id"), str)]
    if ids and not store.get_entities(ids):
        raise UsageError(
            f"knowledge graph {db!r} has none of the context's entities (e.g. "
            f"{ids[0]!r}): it is not the graph of the code context file {path!r} was "
            "built from; pass that graph as --db"
        )


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


MODEL_HELP = f"'provider:model' or 'replay:PATH' (default {DEFAULT_MODEL})"


def _max_tokens(value: str) -> int:
    number = _integer(value, 1)
    if number > MAX_CONTEXT_TOKENS:
        raise argparse.ArgumentTypeError(f"must be <= {MAX_CONTEXT_TOKENS:,}, got {value}")
    return number


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
    try:  # bytes that are not UTF-8 reach sys.argv as lone surrogates
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(
            "is not UTF-8 text (the terminal or script passed other bytes); "
            "pass it in UTF-8, e.g. convert it with iconv -t UTF-8"
        ) from None
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


class _PrintVersion(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked
    (the package metadata costs every other command its import)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("citeloop")
        except PackageNotFoundError:
            found = "unknown (not installed: run `make demo` or `pip install -e .`)"
        print(f"citeloop {found}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citeloop", description="Grounded, cited LLM answers over a code knowledge graph."
    )
    parser.add_argument("--version", action=_PrintVersion, nargs=0, help="print the version")
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
        type=_max_tokens,
        default=DEFAULT_MAX_CONTEXT_TOKENS,
        help=f"token budget of the context (default {DEFAULT_MAX_CONTEXT_TOKENS})",
    )
    context.add_argument(
        "--no-source",
        action="store_true",
        help="entity lines only: no numbered source lines under the functions and "
        "methods the context is most about",
    )
    context.add_argument(
        "--rewrite-model",
        type=_text,
        metavar="MODEL",
        help="first ask this chat model ('provider:model' or 'replay:PATH') which code "
        "the task is about (query rewriting)",
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
    check.add_argument(
        "--task",
        type=_text,
        help="the task the answer was asked (default: the one a JSON context holds)",
    )
    check.add_argument(
        "--db",
        help="SQLite graph from `citeloop index`: a name the answer uses that the code base "
        "has but the context does not is reported, not failed as invented",
    )
    check.add_argument("--threshold", type=_threshold, default=0.5, help="reference threshold")
    check.add_argument(
        "--no-require-citations", action="store_true", help="do not require citations"
    )
    check.add_argument(
        "--allow-insufficient",
        action="store_true",
        help="report, not fail, an answer that says its context is not enough (as a run's "
        "last attempt does)",
    )
    check.add_argument("--json", action="store_true", help="print the result as JSON")
    check.set_defaults(func=cmd_check)

    run = sub.add_parser("run", help="run the grounded_answer graph on a task")
    run.add_argument("--db", required=True, help="SQLite graph from `citeloop index`")
    run.add_argument("--task", required=True, type=_text, help="the task text")
    run.add_argument("--model", default=DEFAULT_MODEL, help=MODEL_HELP)
    run.add_argument("--payload", help="file whose text the task refers to")
    run.add_argument("--max-retries", type=_non_negative, default=2, help="re-asks (default 2)")
    run.add_argument(
        "--rewrite-query",
        action="store_true",
        help="first ask the model which code the task is about (one more call)",
    )
    run.add_argument("--record", help="append the model's turns to this replay JSONL file")
    run.add_argument("--json", action="store_true", help="print the output state as JSON")
    _thread_options(run)
    run.set_defaults(func=_graph_command("cmd_run"))

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
    explain.add_argument("--model", default=DEFAULT_MODEL, help=MODEL_HELP)
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
    explain.set_defaults(func=_graph_command("cmd_explain"))

    audit = sub.add_parser("audit", help="decide whether a result may be delivered")
    audit.add_argument("--result", required=True, help="AnswerResult JSON file")
    audit.add_argument("--plan", required=True, help="Plan JSON file")
    audit.add_argument("--index", required=True, help="EvidenceIndex JSON file, or JSONL documents")
    audit.add_argument("--model", default=DEFAULT_MODEL, help=MODEL_HELP)
    audit.add_argument("--record", help="append the model's turns to this replay JSONL file")
    audit.add_argument("--json", action="store_true", help="print the verdict as JSON")
    _thread_options(audit)
    audit.set_defaults(func=_graph_command("cmd_audit"))
    for command in sub.choices.values():  # an unknown option is named by its command
        command.set_defaults(command_parser=command)
    return parser


def _fail(message: str, code: int) -> NoReturn:
    print(f"citeloop: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def _graph_fault(args: argparse.Namespace, exc: sqlite3.Error) -> str:
    """The message of a SQLite fault on the knowledge graph ``--db``: what failed and the fix."""
    db = getattr(args, "db", None)
    reason = " ".join(str(exc).split()) or type(exc).__name__
    if db is None:
        return f"a SQLite file failed: {reason}; check the disk and the files given, then retry"
    writing = args.command == "index"
    what = f"cannot {'write' if writing else 'read'} knowledge graph {db!r}: {reason}"
    if "full" in reason or "I/O" in reason:
        fix = "free disk space (or index into a file on another disk) and run the command again"
        if writing:
            fix = "the previous graph is intact; " + fix
    else:
        fix = f"the file is damaged: delete it and rebuild it with `citeloop index PATH --db {db}`"
    return f"{what}; {fix}"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``citeloop`` console script; returns the exit code.

    Control characters in what it prints (from indexed files, answers, thread ids,
    tasks) are shown escaped (:mod:`citeloop.terminal`).
    """
    with safe_output():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    args, extra = build_parser().parse_known_args(argv)
    if extra:  # named with the command's own usage, not the top level's
        args.command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return args.func(args)
    except CiteloopError as exc:
        _fail(str(exc), EXIT_USAGE)
    except sqlite3.Error as exc:  # the knowledge graph (checkpointer faults are translated)
        _fail(_graph_fault(args, exc), EXIT_USAGE)
    except BrokenPipeError:  # before OSError, its base class
        # The reader went away (e.g. `| head`): stop quietly, as the Python docs advise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    except OSError as exc:  # a path the user gave cannot be created or read
        _fail(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), EXIT_USAGE)
    except KeyboardInterrupt:
        thread = getattr(args, "thread_started", None)  # a run on a thread keeps its steps
        resume = f"; to resume, run the same command again with --thread {thread_argument(thread)}"
        _fail("interrupted" + (resume if thread else ""), 130)
    except Exception as exc:
        if os.environ.get("CITELOOP_DEBUG"):
            raise
        _fail(f"{type(exc).__name__}: {exc} (set CITELOOP_DEBUG=1 for a traceback)", EXIT_INTERNAL)


if __name__ == "__main__":
    sys.exit(main())
