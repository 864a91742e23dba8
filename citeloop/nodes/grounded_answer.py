"""Nodes and routers of the ``grounded_answer`` graph.

The nodes need two things the runtime context cannot carry as JSON — an optional chat
model object and an optional knowledge-graph store — so they are methods of
:class:`GroundedAnswerNodes`, built once per compiled graph. Routers are pure functions.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Sequence
from typing import Any, Literal, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import run_in_executor
from langgraph.graph import END
from langgraph.runtime import Runtime, get_runtime
from langgraph.types import RetryPolicy

from citeloop.checks import estimate_tokens
from citeloop.checks.check import (
    Check,
    Problem,
    format_problems,
    require_checks,
    run_checks,
)
from citeloop.context import GroundedAnswerContext, resolve_context
from citeloop.errors import ConfigurationError
from citeloop.grounding import GraphContextValidator, GraphValidationResult, build_retry_prompt
from citeloop.grounding.asked_lines import asked_lines
from citeloop.grounding.dismissals import dismissed_names
from citeloop.grounding.entities import standalone_names
from citeloop.grounding.graph_context import INSUFFICIENT_RULE, IndexedContext
from citeloop.grounding.lacking import (
    cited_places,
    lacking_callers,
    lacking_files,
    lacking_lines,
    lacking_members,
    lacking_names,
    lacking_words,
    listed_lacking_names,
)
from citeloop.grounding.mentions import code_mentions, qualified
from citeloop.grounding.retry_prompt import UNSEEN_PROBLEM, core_places
from citeloop.grounding.substance import prompt_names
from citeloop.knowledge import (
    ContextExpansion,
    ContextInjector,
    GraphStore,
    InjectedContext,
)
from citeloop.knowledge.imports import imported_from_outside
from citeloop.knowledge.injector import taken_options
from citeloop.knowledge.model import LISTED_BY_OTHERS, EntityKind, Reason
from citeloop.knowledge.store import BatchedGraphStore
from citeloop.nodes.chat import (
    achat_model,
    add_usage,
    builder_model,
    call_usage,
    chat_model,
    check_recursion_limit,
    check_system_prompt,
    model_failure,
    stale_task,
    task_from,
    task_taken,
    tool_calls_only,
)
from citeloop.nodes.graph_files import graph_names, open_graph
from citeloop.nodes.query_rewrite import RewriteNotMade, counted_rewrites, rewrite_retriever
from citeloop.nodes.recent import indexed_context
from citeloop.nodes.widened_news import also_shown, now_shown
from citeloop.prompts import (
    GROUNDED_ANSWER_PROMPT,
    GROUNDED_PAYLOAD_BLOCK,
    GROUNDED_RETRY_PROMPT,
    GROUNDED_SYSTEM_PROMPT,
    RETRY_CONTEXT_SAME,
    RETRY_CONTEXT_WIDENED,
)
from citeloop.recent import Recent
from citeloop.state.grounded_answer import State
from citeloop.state.tokens import TokenUsage, no_tokens
from citeloop.text import in_data_block

_log = logging.getLogger(__name__)

_DEFAULT_SETTINGS = GroundedAnswerContext()
"""The settings of a run given no context, built and type-checked once (nodes only read
their settings)."""


def settings(runtime: Runtime[GroundedAnswerContext]) -> GroundedAnswerContext:
    """The run's context (see :func:`citeloop.context.resolve_context`)."""
    if runtime.context is None:
        return _DEFAULT_SETTINGS
    return resolve_context(runtime.context, GroundedAnswerContext)


def task_of(state: State) -> str:
    """The task (see :func:`citeloop.nodes.chat.task_from`)."""
    return task_from(state, "grounded_answer")


RUN_INPUTS_CLEARED = {"task": "", "payload": "", "system_prompt": ""}
"""Written when a run ends: on a thread, the next run's task, payload and system prompt
come from its own input (or its last human message), never from an earlier run's."""

_ENDED = {**RUN_INPUTS_CLEARED, "task_taken": {}}
"""What this graph writes when a run ends: its inputs cleared, and the record of the
task it took (a run that did not end leaves both: :func:`~citeloop.nodes.chat.
stale_task`)."""


def retries_left(state: State, ctx: GroundedAnswerContext) -> bool:
    """Whether another attempt fits the budget of ``1 + ctx.max_retries`` model calls."""
    return state.get("attempts", 0) <= ctx.max_retries


def supersteps_needed(max_retries: int) -> int:
    """The recursion limit a run needs: 4 steps (inject, call, validate, end) + 4 per retry.

    Measured against LangGraph's step counter, which also counts the step that ends.
    """
    return 4 * (max_retries + 1)


def _payload_block(state: State) -> str:
    payload = state.get("payload")
    return (
        GROUNDED_PAYLOAD_BLOCK.format(payload=in_data_block(payload, "payload")) if payload else ""
    )


def prompt_of(state: State) -> str:
    """The human prompt of the current attempt, built from state (not kept in it, so a
    checkpoint holds the context text once): the first prompt from the context, payload
    and task; a retry's from the widened context, payload and ``feedback``."""
    block = _payload_block(state)
    if feedback := state.get("feedback"):
        how = RETRY_CONTEXT_WIDENED if state.get("widened", True) else RETRY_CONTEXT_SAME
        return GROUNDED_RETRY_PROMPT.format(
            how=how, context=state["context_text"], payload_block=block, feedback=feedback
        )
    return GROUNDED_ANSWER_PROMPT.format(
        context=state["context_text"], payload_block=block, task=state["task"]
    )


def _check_payload(state: State) -> None:
    payload = state.get("payload")
    if payload is not None and not isinstance(payload, str):
        raise ConfigurationError(
            f"payload must be a string (the text the task refers to), got "
            f"{type(payload).__name__}; join or serialise it first"
        )


def _ended_with_error(state: State, error: str) -> dict[str, Any]:
    """The update that ends a run with outcome ``error``: the report of this run's last
    judged answer, or ``{}`` (always present, never an earlier run's)."""
    return {
        **_ENDED,
        "outcome": "error",
        "error": error,
        "report": state.get("report") or {},
    }


def _check_not_empty(reads: BatchedGraphStore) -> None:
    """Raise when the knowledge graph holds no entity: an empty context then says
    nothing of the task (a mistyped path opened for writing creates an empty graph)."""
    with reads.reading():
        empty = not reads.names()
    if empty:
        where = getattr(reads, "path", None)
        named = f"knowledge graph {where!r}" if isinstance(where, str) else "the knowledge graph"
        raise ConfigurationError(
            f"{named} holds no entities: index code into it first (`citeloop index DIR "
            "--db FILE`, or citeloop.index_tree), or pass the graph file that holds it"
        )


def _context_update(injected: InjectedContext) -> dict[str, Any]:
    return {
        "context_text": injected.text,
        "context_entities": [
            {
                "name": e.name,
                "kind": str(e.kind),
                "tier": str(e.tier),
                "id": e.id,
                "path": e.path,
                "line": e.line,
                "end_line": e.end_line,
                "signature": e.signature,
                "summary": e.summary,
                "reason": e.reason,
                "score": e.score,
            }
            for e in injected.entities
        ],
        "snapshot": injected.snapshot,
        "context_excerpts": {entity_id: list(lines) for entity_id, lines in injected.excerpts},
        "context_relations": list(injected.relations),
        "context_brief": list(injected.brief),
    }


def _rank(report: dict[str, Any]) -> tuple[bool, bool, int, float]:
    """How good an answer is by its report: passed, then failed only for saying the
    context is not enough (:func:`_only_insufficient`), then fewer failed rules, then
    more core entities referenced."""
    return (
        bool(report.get("passed")),
        _only_insufficient(report),
        -len(report.get("failed_rules") or report.get("reasons") or ()),
        float(report.get("compliance_ratio", 0.0)),
    )


def _only_insufficient(report: dict[str, Any]) -> bool:
    """Whether an answer failed for saying the context is not enough and nothing else
    (no other rule, no check's problem): judged as on a last attempt, that is reported,
    not failed."""
    return list(report.get("failed_rules") or ()) == [INSUFFICIENT_RULE] and not report.get(
        "check_problems"
    )


EMPTY_CONTEXT_REASON = (
    "the context is empty: the task names no code of the knowledge graph and no entity "
    "matches its words, so nothing grounds the answer; name the code the task is about as "
    "it is written (e.g. `Cart.total()`)"
)
"""The reason of the ``empty_context`` rule: an answer over an empty context never passes."""


def _with_empty_context_rule(report: dict[str, Any]) -> dict[str, Any]:
    """A validation report in which an empty context (``vacuous``: the task names no
    entity of the graph and none matches its words) fails: nothing grounds the answer,
    and every name it cites is outside the context."""
    if not report.get("vacuous"):
        return report
    return {
        **report,
        "passed": False,
        "failed_rules": [*report.get("failed_rules", []), "empty_context"],
        "reasons": [*report.get("reasons", []), EMPTY_CONTEXT_REASON],
    }


@functools.lru_cache(maxsize=16, typed=True)
def _validator(
    reference_threshold: float,
    require_citations: bool,
    fail_on_invented: bool,
    require_locations: bool,
    fail_on_insufficient: bool = True,
) -> GraphContextValidator:
    """The validator of a run's settings (immutable, so shared by the runs that have them)."""
    return GraphContextValidator(
        reference_threshold=reference_threshold,
        require_citations=require_citations,
        fail_on_invented=fail_on_invented,
        require_locations=require_locations,
        fail_on_insufficient=fail_on_insufficient,
    )


_DEFAULTS_KEPT = 256
"""Default contexts (and indexed context entities) a graph keeps for the runs under way."""


_INJECTORS_KEPT = 16
"""Injectors a graph keeps, one per store and injection settings."""


_NAMES_KEPT = 2
"""Graph versions whose names a graph keeps (:func:`graph_names`, by snapshot)."""


INLINE_ANSWER_CHARS = 1_000
"""The longest answer ``validate`` and ``build_retry_prompt`` judge on the event loop
under ``ainvoke`` (when nothing in them can block): about 0.5 ms of CPU, what handing
the node to a worker thread costs (``benchmarks/bench_abatch.py`` measures the batch)."""


class GroundedAnswerNodes:
    """The nodes of one compiled ``grounded_answer`` graph.

    Args:
        model: A chat model that overrides ``GroundedAnswerContext.model``, or ``None``.
        store: A knowledge-graph store that overrides ``GroundedAnswerContext.db_path``,
            or ``None``.
        checks: Output checks run on each answer before the context validation; their
            fixes apply to the answer, and failures of re-asking checks fail it.
        model_retry: The model nodes' retry policy: an error it retries is re-raised
            while attempts are left; any other error, or the last attempt's, ends the run.
        injector: A :class:`ContextInjector` (or an object with its ``store`` and
            ``inject(payload, expansion=...)``) used instead of one built from the
            context's ``hops``, ``max_context_tokens`` and ``max_entities``; its store
            is the graph's store.

    Raises:
        ConfigurationError: If ``injector`` has no ``store`` or no ``inject``.
    """

    def __init__(
        self,
        model: BaseChatModel | str | None = None,
        store: GraphStore | None = None,
        *,
        checks: Sequence[Check] = (),
        model_retry: RetryPolicy | None = None,
        injector: ContextInjector | None = None,
    ) -> None:
        if injector is not None and not (
            callable(getattr(injector, "inject", None)) and hasattr(injector, "store")
        ):
            raise ConfigurationError(
                f"injector must be a ContextInjector (an object with store and inject), got "
                f"{type(injector).__name__}; a retriever goes into the injector: "
                "injector=ContextInjector(store, retriever=...)"
            )
        self.model = builder_model(model)
        self.store = store if injector is None else injector.store
        self.checks = require_checks(checks)
        self.model_retry = model_retry
        self.injector = injector
        # The default context of recent tasks, so that widening it for a retry does not
        # select it again (the injector checks it is of the graph's snapshot now).
        self._defaults: Recent[InjectedContext] = Recent(_DEFAULTS_KEPT)
        # Context entities parsed and indexed for validation: build_retry_prompt and
        # validate judge answers against the same entities.
        self._indexed: Recent[IndexedContext] = Recent(_DEFAULTS_KEPT)
        self._injectors: Recent[ContextInjector] = Recent(_INJECTORS_KEPT)
        # The graph's names by the snapshot they were read at: an answer is judged by
        # the names of the graph version its context came from, read once per version.
        self._names: Recent[frozenset[str]] = Recent(_NAMES_KEPT)

    def _store(self, ctx: GroundedAnswerContext) -> GraphStore:
        return self.store if self.store is not None else open_graph(ctx.db_path)

    def _injector(self, ctx: GroundedAnswerContext) -> ContextInjector:
        """The injector of the run's store and settings (kept for the graph's runs; a
        graph file replaced since gets a new one, and the old store is let go); with
        ``rewrite_query``, its retriever asks the run's chat model
        (:class:`~citeloop.retrievers.QueryRewriteRetriever`)."""
        store = self._store(ctx)
        source = ctx.db_path if self.store is None else None
        key = (source, ctx.hops, ctx.max_context_tokens, ctx.max_entities, self._rewriter(ctx))
        injector = self._injectors.get(key)
        if injector is None or injector.store is not store:
            retriever = None
            if ctx.rewrite_query:
                # The run's model is resolved at each call (a replay file re-read).
                retriever = rewrite_retriever(functools.partial(self._chat_model, ctx), store)
            injector = ContextInjector(
                store,
                hops=ctx.hops,
                max_context_tokens=ctx.max_context_tokens,
                max_entities=ctx.max_entities,
                retriever=retriever,
            )
            self._injectors.put(key, injector)
        return injector

    def _rewriter(self, ctx: GroundedAnswerContext) -> str | None:
        """Who rewrites a run's task: ``None`` (no rewrite), the model spec of the
        context, or ``""`` for the graph's own model (a key of injectors and contexts)."""
        if not ctx.rewrite_query:
            return None
        return ctx.model if self.model is None else ""

    def _inject(
        self, state: State, ctx: GroundedAnswerContext, expansion: ContextExpansion | None
    ) -> InjectedContext:
        texts = [task_of(state), state.get("payload") or ""]
        # A widening keeps what the previous attempt's context showed: it only grows.
        shown = (state.get("context_entities") or []) if expansion is not None else []
        lines = state.get("context_excerpts") or {}
        keep = {
            e["id"]: lines.get(e["id"], [])
            for e in shown
            if e.get("id") and e.get("reason") not in LISTED_BY_OTHERS
        }
        # and the relation lines it wrote, the members it listed and the lines it wrote
        # whole (none known of a thread that kept no `context_brief`)
        relations = (state.get("context_relations") or []) if expansion is not None else []
        listed = [e["id"] for e in shown if e.get("id") and e.get("reason") == Reason.MEMBER]
        brief = state.get("context_brief")
        briefs = set(brief or ())
        whole = [] if brief is None else [i for i in keep if i not in briefs]
        options = {"keep": keep, "relations": relations, "listed": listed, "whole": whole}
        if self.injector is not None:
            # a user's own `inject` may lack `keep`, `relations`, `listed` or `whole`
            options = taken_options(self.injector, options)
            return self.injector.inject(texts, expansion=expansion, **options)
        injector = self._injector(ctx)
        key = (*texts, ctx.hops, ctx.max_context_tokens, ctx.max_entities, self._rewriter(ctx))
        if expansion is not None:
            default = self._defaults.get(key)
            return injector.inject(texts, expansion=expansion, default=default, **options)
        injected = injector.inject(texts)
        self._defaults.put(key, injected)
        return injected

    def inject_context(
        self, state: State, runtime: Runtime[GroundedAnswerContext], config: RunnableConfig
    ) -> dict[str, Any]:
        """Seed and walk the knowledge graph for the task; write the first prompt.

        Raises:
            ConfigurationError: No task, or a task, payload or system prompt that is not
                a string; an empty knowledge graph; no knowledge graph; a model spec that
                cannot be resolved; ``rewrite_query`` with an injector given to the graph
                (give that injector the retriever); or a recursion limit too small for
                ``max_retries`` (so that the retry budget, not the recursion limit, ends a
                run). All are raised here, before any model call but the query rewrite's.
        """
        ctx = settings(runtime)
        # An earlier run that did not end left its task; a chat turn's message since is
        # this run's task (an interrupted run's question had been answered again).
        if stale_task(state):
            state = cast(State, {**state, "task": ""})
        task = task_of(state)
        _check_payload(state)
        check_system_prompt(state)
        self._chat_model(ctx)
        needed = supersteps_needed(ctx.max_retries)
        check_recursion_limit(config, needed, "max_retries", ctx.max_retries)
        if ctx.rewrite_query and self.injector is not None:
            raise ConfigurationError(
                "rewrite_query asks the graph's own context injector to rewrite the task, "
                "but the graph was built with injector=...: give that injector "
                "retriever=QueryRewriteRetriever(model=..., store=...) instead"
            )
        injected, rewrites = self._counted_inject(state, ctx, None)
        if not injected.entities:
            _check_not_empty(self._injector(ctx).reads)
        tokens = functools.reduce(add_usage, rewrites, no_tokens())  # the query rewrite's
        # A thread may run the graph again: counters, tokens and the error start afresh.
        return {
            "task": task,
            "task_taken": task_taken(task, state.get("messages")),
            "feedback": "",
            "expanded": False,
            "attempts": 0,
            "error": "",
            "answer": "",
            "outcome": None,
            **({"report": {}} if state.get("report") else {}),  # an earlier run's, on a thread
            "best": {},
            "tokens": tokens,
            "attempt_tokens": [],
            **_context_update(injected),
        }

    def _counted_inject(
        self, state: State, ctx: GroundedAnswerContext, expansion: ContextExpansion | None
    ) -> tuple[InjectedContext, list[TokenUsage]]:
        """:meth:`_inject`, and the tokens of the query-rewrite calls it made
        (``rewrite_query``; the first context of a task asks, and a widening asks again
        only when that failed, or when its answer is no longer kept). A rewrite that
        fails, or that the run's token budget has no room for beside the answering call
        that follows (:func:`_answer_reserve`), is left out: the context is built
        without it, with a warning."""
        if not ctx.rewrite_query:
            return self._inject(state, ctx, expansion), []
        room = None
        if ctx.max_total_tokens is not None:
            spent = (state.get("tokens") or {}).get("total", 0) if expansion is not None else 0
            room = ctx.max_total_tokens - spent - _answer_reserve(state, ctx, expansion)
        with counted_rewrites(room) as calls:
            try:
                injected = self._inject(state, ctx, expansion)
            except RewriteNotMade as why:
                _log.warning("query rewrite not made, the context is built without it: %s", why)
                plain = dataclasses.replace(ctx, rewrite_query=False)
                injected = self._inject(state, plain, expansion)
        return injected, calls

    def _messages(self, state: State) -> list[BaseMessage]:
        return [
            SystemMessage(state.get("system_prompt") or GROUNDED_SYSTEM_PROMPT),
            HumanMessage(prompt_of(state)),
        ]

    def _model_failed(self, state: State, exc: Exception) -> dict[str, Any]:
        """End the run on a permanent error; re-raise a transient one for the retry policy."""
        return _ended_with_error(state, model_failure(exc, self.model_retry))

    def _over_budget(self, state: State, messages: list[BaseMessage]) -> bool:
        """Whether the call of ``messages`` would spend more than ``max_total_tokens``:
        what was spent, plus the prompt's estimate and the last reply's length."""
        return _exceeds_budget(state, messages, settings(get_runtime()).max_total_tokens)

    def _budget_spent(self, state: State) -> dict[str, Any]:
        """End the run before a call over budget (:meth:`_over_budget`) with its best
        answer (:meth:`_held`: ``passed`` when that passes judged as last)."""
        best = state.get("best") or {}
        update: dict[str, Any] = {
            **_ENDED,
            "outcome": "budget_exhausted",
            "answer": best.get("answer", state.get("answer", "")),
            "report": best.get("report", {}),
        }
        if (held := self._held(state, settings(get_runtime()))) is not None:
            update.update(held)
        if update["answer"]:
            update["messages"] = [AIMessage(update["answer"])]
        return update

    def _answered(self, state: State, messages: list[BaseMessage], response: Any) -> dict[str, Any]:
        call = call_usage(messages, response)
        spent = {
            "attempts": state.get("attempts", 0) + 1,
            "tokens": add_usage(state.get("tokens"), call),
            "attempt_tokens": [*(state.get("attempt_tokens") or []), call],
        }
        if refused := tool_calls_only(response):
            return {**spent, **_ended_with_error(state, refused)}
        return {**spent, "answer": response.text}

    def call_model(self, state: State) -> dict[str, Any]:
        """Ask the chat model; a permanent error ends the run with outcome ``error``.

        Transient errors (timeouts, rate limits, 5xx) are re-raised so that the node's
        retry policy retries them with backoff, except on its last attempt. A call that
        would exceed ``max_total_tokens`` is not made: the run ends with outcome
        ``budget_exhausted`` and its best answer. This is the sync variant;
        :meth:`acall_model` serves ``ainvoke``/``astream``.
        """
        messages = self._messages(state)
        if self._over_budget(state, messages):
            return self._budget_spent(state)
        try:
            response = self._chat_model(settings(get_runtime())).invoke(messages)
        except Exception as exc:
            return self._model_failed(state, exc)
        return self._answered(state, messages, response)

    async def acall_model(self, state: State) -> dict[str, Any]:
        """Async variant of :meth:`call_model` (no blocking call on the event loop: a
        run that ends over budget judges its best answer again, :meth:`_held`, in a
        worker thread unless :meth:`_inline` allows it on the loop)."""
        messages = self._messages(state)
        if self._over_budget(state, messages):
            best = (state.get("best") or {}).get("answer", "")
            if self._inline({**state, "answer": best}):
                return self._budget_spent(state)
            return await run_in_executor(None, self._budget_spent, state)
        try:
            model = await achat_model(self.model, settings(get_runtime()).model)
            response = await model.ainvoke(messages)
        except Exception as exc:
            return self._model_failed(state, exc)
        return self._answered(state, messages, response)

    def _chat_model(self, ctx: GroundedAnswerContext) -> BaseChatModel:
        return chat_model(self.model, ctx.model)

    def _validation(
        self, state: State, ctx: GroundedAnswerContext, *, last: bool = False
    ) -> GraphValidationResult:
        """The answer judged against the context in state, with the prompt's names
        grounded and the knowledge graph's names telling invented ones apart. Saying
        the context is not enough fails an answer only while a retry can widen it (not
        on the ``last`` attempt): then what the answer says it lacks is reported, not
        failed."""
        validator = _validator(
            ctx.reference_threshold,
            ctx.require_citations,
            ctx.fail_on_invented,
            ctx.require_locations,
            not last,
        )
        prompt = [state["task"], state.get("payload") or "", state.get("context_text") or ""]
        return validator.validate(
            state["answer"],
            indexed_context(self._indexed, state["context_entities"]),
            prompt=prompt,
            graph_names=self._graph_names(state, ctx),
        )

    def _graph_names(self, state: State, ctx: GroundedAnswerContext) -> frozenset[str]:
        """:func:`graph_names` of the graph version of the run's context (its
        ``snapshot``), read from the graph when not read at that version yet."""
        names = self._names.get(state.get("snapshot") or None)
        if names is None:
            reads = self._injector(ctx).reads
            with reads.reading():
                names, snapshot = graph_names(reads), reads.snapshot()
            self._names.put(snapshot, names)
        return names

    def _inline(self, state: State) -> bool:
        """Whether a node that judges the answer runs on the event loop under
        ``ainvoke``: nothing in it can block (no checks of the user's, which may do I/O;
        the graph's names already read at the context's snapshot) and the answer is
        short (:data:`INLINE_ANSWER_CHARS`)."""
        return (
            not self.checks
            and len(state.get("answer") or "") <= INLINE_ANSWER_CHARS
            and self._names.get(state.get("snapshot") or None) is not None
        )

    async def avalidate(self, state: State) -> dict[str, Any]:
        """Async variant of :meth:`validate`: on the event loop when
        :meth:`_inline` allows, otherwise in a worker thread (as LangGraph runs a sync
        node), since it may read the graph or run the user's checks."""
        if self._inline(state):
            return self.validate(state)
        return await run_in_executor(None, self.validate, state)

    def validate(self, state: State) -> dict[str, Any]:
        """Check that the answer uses and cites the context; label a final verdict.

        Ends the run with ``passed``; ``exhausted`` when no retry is left;
        ``budget_exhausted`` (with the best answer) when ``max_total_tokens`` is spent.
        """
        ctx = settings(get_runtime())
        answer = state["answer"]
        update: dict[str, Any] = {}
        report: dict[str, Any] = {}
        if self.checks:
            run = run_checks(self.checks, answer)
            if run.text != answer:
                answer = update["answer"] = run.text
            report["checks"] = run.to_list()
            report["check_problems"] = [
                {"check": name, **problem.to_dict()} for name, problem in run.reask
            ]
        spent = (state.get("tokens") or {}).get("total", 0)
        spent_all = ctx.max_total_tokens is not None and spent >= ctx.max_total_tokens
        # The last attempt: no retry left, or no room for one (the next prompt is at
        # least this one: the context only grows).
        last = not retries_left(state, ctx) or (
            ctx.max_total_tokens is not None
            and _exceeds_budget(state, self._messages(state), ctx.max_total_tokens)
        )
        result = self._validation({**state, "answer": answer}, ctx, last=last)
        report = {**_with_empty_context_rule(result.to_dict()), **report}
        report["context_passed"] = report["passed"]
        report["passed"] = report["context_passed"] and not report.get("check_problems")
        update["report"] = report
        best = state.get("best") or {}
        if not best or _rank(report) >= _rank(best["report"]):  # a later one saw more
            attempt = state.get("attempts", 0)
            best = update["best"] = {"answer": answer, "report": report, "attempt": attempt}
        if report["passed"]:
            update["outcome"] = "passed"
        elif (not retries_left(state, ctx) or spent_all) and (
            held := self._held(state, ctx)
        ) is not None:
            update.update(held)
        elif not retries_left(state, ctx):
            update["outcome"] = "exhausted"
        elif spent_all:
            update.update(outcome="budget_exhausted", answer=best["answer"], report=best["report"])
        if "outcome" in update:
            update["messages"] = [AIMessage(update.get("answer", answer))]
            update.update(_ENDED)
        return update

    def _held(self, state: State, ctx: GroundedAnswerContext) -> dict[str, Any] | None:
        """The update that ends a run left without a pass ``passed`` with its best earlier
        answer, when that answer failed only for saying the context is not enough and,
        judged again as on the last attempt, against the context the run ends with
        (which holds every entity, source line and relation line of the one it
        answered), it passes; ``None`` otherwise. A played last answer had dropped the
        citation of a core entity that its earlier, passing-but-for-its-caveats answer
        made, and the run had ended ``exhausted`` on a rule no feedback had named."""
        best = state.get("best") or {}
        if not best or not _only_insufficient(best["report"]):
            return None
        result = self._validation({**state, "answer": best["answer"]}, ctx, last=True)
        report = _with_empty_context_rule(result.to_dict())
        if not report["passed"]:
            return None
        report.update(context_passed=True, answer_attempt=best.get("attempt"))
        if "checks" in best["report"]:  # the user's checks, run on that answer
            report["checks"] = best["report"]["checks"]
        return {"outcome": "passed", "answer": best["answer"], "report": report}

    def expand_context(
        self, state: State, runtime: Runtime[GroundedAnswerContext]
    ) -> dict[str, Any]:
        """Widen the context for retry ``attempts - 1`` (0-based): a larger budget, a
        deeper neighbourhood, and the code the last answer named that the graph has
        (in its body or its citations; first what it said the context lacks, whose
        source is shown first, and more of it when some was shown), what the words in
        which it said the rest it lacks find, the source lines it said the context
        lacks (:func:`asked_lines`), the best members of a class whose members it
        said the context lacks and the code that calls what it said it lacks the
        callers of, keeping every entity the last context showed; a name it used
        that the last context writes, without saying the context lacks it, means the
        code shown unless an entity of it is related to that context (``written``);
        what the answer named only to set aside (:func:`~citeloop.grounding.dismissals.
        dismissed_names`) is left out."""
        report = state.get("report") or {}
        answer = state.get("answer") or ""
        # What the answer said the context lacks first, then the rest it named, but for
        # what it named only to set aside ("`KFold` is unrelated to the tree `Splitter`").
        dismissed = dismissed_names(answer)
        lacking = tuple(name for name in lacking_names(answer) if name not in dismissed)
        named = [*lacking, *(mention.name for mention in code_mentions(answer))]
        named += report.get("invalid_citations", []) + report.get("ungrounded_in_graph", [])
        # A bare name beside a dotted one it ends is that one (`pop`, `RequestContext.pop`),
        # but for a class or function of the context of that name.
        entities = state.get("context_entities") or []
        standalone = standalone_names(entities)
        names = qualified((name for name in named if name not in dismissed), None, standalone)
        lacking = qualified(lacking, names, standalone)
        # Of those, the ones the context it saw writes (`_args` of `f(*_args)` shown)
        shown_words = prompt_names([state.get("context_text") or ""])
        expansion = ContextExpansion.for_attempt(
            state["attempts"] - 1,
            names,
            lacking,
            lacking_words(answer),
            asked_lines(
                lacking_lines(answer),
                entities,
                lacking,
                state.get("context_excerpts"),
                cited_places(answer),
            ),
            lacking_members(answer),
            lacking_files(answer),
            tuple(name for name in lacking_callers(answer) if name not in dismissed),
            tuple(name for name in names if name in shown_words),
        )
        ctx = settings(runtime)
        injected, rewrites = self._counted_inject(state, ctx, expansion)
        widened = injected.text != state.get("context_text")
        update = {"expanded": True, "widened": widened, **_context_update(injected)}
        # What the answer listed as lacking that the code base imports from outside the
        # graph (not what its prose names beside a saying: it also names code it used).
        in_list = listed_lacking_names(answer)
        listed = [*in_list, *(report.get("lacking_not_in_graph") or ())]
        news: dict[str, Any] = {}
        if origins := self._origins(state, list(dict.fromkeys(listed)), injected, ctx):
            news["lacking_origins"] = origins
        # What it now shows, that it did not, of what the answer listed as lacking (of
        # what its sayings name, when it lists nothing: its prose names code it used too)
        # and of the code whose lines it asked for.
        said = [name for name in in_list if name not in dismissed]
        held = [".".join(entity_id.split(".")[-2:]) for entity_id, _, _ in expansion.lines]
        sourced_before = state.get("context_excerpts") or {}
        if shown := now_shown(
            [*(qualified(said, names, standalone) or lacking), *held],
            injected,
            entities,
            sourced_before,
        ):
            news["lacking_shown"] = shown
        # and the other code whose source it now shows
        if also := also_shown(injected, sourced_before, shown):
            news["also_shown"] = also
        if news:
            update["report"] = {**report, **news}
        if rewrites:  # the first context's rewrite had failed; this one was made
            update["tokens"] = functools.reduce(add_usage, rewrites, state.get("tokens"))
        return update

    def _origins(
        self,
        state: State,
        names: Sequence[str],
        context: InjectedContext,
        ctx: GroundedAnswerContext,
    ) -> dict[str, str]:
        """What the files of ``context`` import under ``names`` (names an answer listed
        as lacking) when that is code outside the graph: ``{"_ProxyError":
        "urllib3.exceptions.ProxyError"}``, as the first file (in context order) that
        imports it says (:func:`~citeloop.knowledge.imports.imported_from_outside`).
        A name the graph has (a resolved entity's, or a module its code
        imports: ``SSLError`` is a class of requests and urllib3's name in another of
        its files; ``requests`` imports ``requests``) is left out: which one the answer
        meant is not known; so is a dotted name whose first part names a class or
        function of the graph (``Filter._skip``, where a file that imports ``Filter``
        from a library defines its own ``Filter`` when that import fails). A call the
        indexer could not resolve is no code of the graph's
        (``templates.document_root_template``, called through a module that re-exports
        another package's whole)."""
        paths = list(dict.fromkeys(e.path for e in context.entities if e.path))
        if not names or not paths:
            return {}
        reads = self._injector(ctx).reads
        with reads.reading():
            heads = {name: name.partition(".")[0] for name in names}
            named = reads.entities_named_many({*names, *heads.values()})
            imported = getattr(reads, "imported_modules", frozenset)()
            wanted = [
                name
                for name in names
                if name not in imported
                and not any(e.resolved for e in named.get(name, ()))
                and not any(
                    e.resolved and e.kind is not EntityKind.MODULE
                    for e in named.get(heads[name], ())
                )
            ]
            return imported_from_outside(reads, wanted, paths) if wanted else {}

    def build_retry_prompt(self, state: State) -> dict[str, Any]:
        """The next prompt's feedback: the previous answer, and what is wrong with it judged
        against the widened context (so no problem line contradicts it).

        When the widened context makes the previous answer pass (what it cited is in
        the context now, or the widening added nothing, so its saying the context is
        not enough is reported, not failed) and the answer cited something of the
        context it was shown, the run ends ``passed`` with that report instead; an
        answer that cited only what the widening brought in of its own names (after an
        empty context, say) is asked again
        (:data:`~citeloop.grounding.retry_prompt.UNSEEN_PROBLEM`). Reads the graph's
        names, so it runs in a worker thread under ``ainvoke`` unless they were read
        (:meth:`abuild_retry_prompt`)."""
        ctx = settings(get_runtime())
        report = state["report"]
        # A widening that added nothing leaves nothing to ask again about: saying the
        # context is not enough is then reported, not failed, as on the last attempt.
        result = self._validation(state, ctx, last=not state.get("widened", True))
        problems = [
            (item["check"], Problem(item["message"], item["expected"], item["fix"]))
            for item in report.get("check_problems", [])
        ]
        # An answer that cited nothing it was shown (an empty context, code of its own)
        # is not grounded by what the widening brought in of its names: it answers again.
        seen = bool(report.get("citations"))
        if result.passed and not result.vacuous and not problems and seen:
            fresh = {**report, **result.to_dict(), "context_passed": True, "passed": True}
            return {
                **_ENDED,
                "report": fresh,
                "outcome": "passed",
                "messages": [AIMessage(state["answer"])],
            }
        extra = format_problems(problems).splitlines() if problems else []
        if result.passed and not seen:
            extra.append(UNSEEN_PROBLEM)
        feedback = build_retry_prompt(
            state["task"],
            result,
            extra,
            previous_answer=state.get("answer") or "",
            payload=state.get("payload") or "",
            widened=state.get("widened", True),
            origins=report.get("lacking_origins") or {},
            shown=report.get("lacking_shown") or {},
            also=report.get("also_shown") or (),
            places=core_places(
                [*result.missing_core_citations, *result.entities_missing],
                state.get("context_entities") or [],
            ),
        )
        return {"feedback": feedback}

    async def abuild_retry_prompt(self, state: State) -> dict[str, Any]:
        """Async variant of :meth:`build_retry_prompt`, run as :meth:`avalidate` is."""
        if self._inline(state):
            return self.build_retry_prompt(state)
        return await run_in_executor(None, self.build_retry_prompt, state)


def _answer_reserve(
    state: State, ctx: GroundedAnswerContext, expansion: ContextExpansion | None
) -> int:
    """Tokens kept back for the answering call after a context is built, that a query
    rewrite may not spend: on a retry, what the last call spent; first, the system
    prompt, task and payload with a context of the whole ``max_context_tokens``."""
    calls = state.get("attempt_tokens") or []
    if expansion is not None and calls:
        return calls[-1]["total"]
    system = SystemMessage(state.get("system_prompt") or GROUNDED_SYSTEM_PROMPT).text
    texts = (system, task_of(state), state.get("payload") or "")
    return sum(estimate_tokens(text) for text in texts) + ctx.max_context_tokens


def _exceeds_budget(state: State, messages: list[BaseMessage], budget: int | None) -> bool:
    """Whether a call with ``messages`` would spend more than ``budget`` tokens in all:
    what was spent, plus the prompt's estimate and the last reply's length."""
    if budget is None:
        return False
    spent = (state.get("tokens") or {}).get("total", 0)
    calls = state.get("attempt_tokens") or []
    expected = sum(estimate_tokens(m.text) for m in messages) + (
        calls[-1]["output"] if calls else 0
    )
    return spent + expected > budget


def route_after_model(state: State) -> Literal["validate", "__end__"]:
    """End on a model error or a spent token budget; otherwise validate the answer."""
    return END if state.get("error") or state.get("outcome") else "validate"


def route_after_retry_prompt(state: State) -> Literal["call_model", "__end__"]:
    """End when the widened context made the previous answer pass; otherwise ask again."""
    return END if state.get("outcome") else "call_model"


def route_after_validate(state: State) -> Literal["expand_context", "__end__"]:
    """End when ``validate`` gave an outcome (passed, retries or tokens spent); otherwise
    widen and re-ask.

    This edge is what bounds the loop (never the recursion limit).
    """
    return END if state.get("outcome") else "expand_context"
