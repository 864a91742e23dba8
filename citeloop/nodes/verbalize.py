"""Nodes and routers of the ``verbalize`` graph (draft, critique, refine).

The nodes need what the runtime context cannot carry as JSON — an optional chat model
object and the caller's critics — so they are methods of :class:`VerbalizeNodes`, built
once per compiled graph. Routers are pure functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END
from langgraph.runtime import Runtime, get_runtime
from langgraph.types import RetryPolicy

from citeloop.context import VerbalizeContext, resolve_context
from citeloop.errors import ConfigurationError
from citeloop.grounding.critics import Critic, FactIdCritic, missing_fact_ids, run_critics
from citeloop.knowledge import RetrievalPath, render_hops
from citeloop.knowledge.paths import coerce_path
from citeloop.nodes.chat import (
    achat_model,
    builder_model,
    chat_model,
    check_recursion_limit,
    model_failure,
)
from citeloop.prompts import (
    VERBALIZE_DRAFT_PROMPT,
    VERBALIZE_QUESTION_BLOCK,
    VERBALIZE_REFINE_PROMPT,
    VERBALIZE_SYSTEM_PROMPT,
)
from citeloop.state.verbalize import State, VerbalizationReport
from citeloop.text import data_line, excerpt, in_data_block


def settings(runtime: Runtime[VerbalizeContext]) -> VerbalizeContext:
    """The run's context (see :func:`citeloop.context.resolve_context`)."""
    return resolve_context(runtime.context, VerbalizeContext)


def path_of(state: State) -> RetrievalPath:
    """The state's path as a :class:`RetrievalPath`.

    Raises:
        ConfigurationError: No path, or one that is not a path or its JSON form.
    """
    if state.get("path") is None:
        raise ConfigurationError(
            "verbalize needs a path: pass {'path': path.to_dict()}, a RetrievalPath's "
            "JSON form (what a checkpointer stores as plain data)"
        )
    return coerce_path(state["path"])


def supersteps_needed(max_iterations: int) -> int:
    """The recursion limit a run needs: prepare, draft and critique, refine and critique
    per further iteration, and the step that ends."""
    return 2 * max_iterations + 2


MAX_QUESTION_CHARS = 4_000
"""Longest question shown to the model (a longer one is refused before any call)."""


def _question_block(state: State) -> str:
    question = state.get("question")
    if question is not None and not isinstance(question, str):
        raise ConfigurationError(f"question must be a string, got {type(question).__name__}")
    if question and len(question) > MAX_QUESTION_CHARS:
        raise ConfigurationError(
            f"question is {len(question)} characters long; at most {MAX_QUESTION_CHARS} are "
            "accepted. Ask it shorter: the path, not the question, carries the facts"
        )
    return VERBALIZE_QUESTION_BLOCK.format(question=question.strip()) if question else ""


def _report(
    state: State, ctx: VerbalizeContext, path: RetrievalPath, **fields: Any
) -> VerbalizationReport:
    report: VerbalizationReport = {
        "passed": False,
        "iterations_used": state.get("iterations_used", 0),
        "max_iterations": ctx.max_iterations,
        "hops": len(path),
        "missing_fact_ids": missing_fact_ids(state.get("narrative", ""), path.fact_ids),
        "feedback": "",
        "model_calls": state.get("model_calls", 0),
        "error": "",
    }
    report.update(fields)  # type: ignore[typeddict-item]
    return report


class VerbalizeNodes:
    """The nodes of one compiled ``verbalize`` graph.

    Args:
        model: A chat model that overrides ``VerbalizeContext.model``, or ``None``.
        critics: Critics run after the default :class:`FactIdCritic`; all must pass.
        model_retry: The model nodes' retry policy: an error it retries is re-raised
            while attempts are left; any other error, or the last attempt's, ends the run.
    """

    def __init__(
        self,
        model: BaseChatModel | str | None = None,
        critics: Sequence[Critic] = (),
        *,
        model_retry: RetryPolicy | None = None,
    ) -> None:
        if isinstance(critics, str) or not isinstance(critics, Iterable):
            raise ConfigurationError(
                f"critics must be a list of callables (narrative, path) -> Critique, "
                f"got {critics!r}"
            )
        critics = tuple(critics)
        for critic in critics:
            if not callable(critic):
                raise ConfigurationError(
                    f"critics must be callables (narrative, path) -> Critique, got {critic!r}"
                )
        self.model = builder_model(model)
        self.critics: tuple[Critic, ...] = (FactIdCritic(), *critics)
        self.model_retry = model_retry

    def _chat_model(self, ctx: VerbalizeContext) -> BaseChatModel:
        return chat_model(self.model, ctx.model)

    def prepare(
        self, state: State, runtime: Runtime[VerbalizeContext], config: RunnableConfig
    ) -> dict[str, Any]:
        """Check the run's inputs and settings; start the run afresh: its counters, its
        error, its narrative and its report (of a run that has drafted nothing yet), so
        nothing of an earlier run on the thread is reported as this one's.

        Raises:
            ConfigurationError: No path, or a malformed one; a path longer than
                ``max_path_hops``; a question that is not a string or is longer than
                :data:`MAX_QUESTION_CHARS`; a model spec that cannot be resolved (for a
                non-empty path); or a recursion limit too small for ``max_iterations``.
                All before any model call.
        """
        ctx = settings(runtime)
        path = path_of(state)
        if len(path) > ctx.max_path_hops:
            raise ConfigurationError(
                f"the path has {len(path)} hops; verbalize accepts at most max_path_hops="
                f"{ctx.max_path_hops}. Split the path, or raise max_path_hops in the context "
                "(a narrative of hundreds of facts is rarely what a reader wants)"
            )
        needed = supersteps_needed(ctx.max_iterations)
        check_recursion_limit(config, needed, "max_iterations", ctx.max_iterations)
        _question_block(state)
        if path.hops:
            self._chat_model(ctx)  # a bad model spec fails here, before any call
        # A thread may run the graph again: nothing of an earlier run carries over, not
        # even the last critique's feedback that a failed first call would report.
        fresh: dict[str, Any] = {
            "path": path.to_dict(),
            "narrative": "",
            "iterations_used": 0,
            "model_calls": 0,
            "error": "",
        }
        return {**fresh, "verbalization": _report(cast(State, fresh), ctx, path)}

    def _draft_messages(self, state: State) -> list[BaseMessage]:
        path = path_of(state)
        prompt = VERBALIZE_DRAFT_PROMPT.format(
            question_block=_question_block(state),
            source=data_line(path.source.label()),
            hop_count=len(path),
            hops=in_data_block(render_hops(path), "path"),
        )
        return [SystemMessage(VERBALIZE_SYSTEM_PROMPT), HumanMessage(prompt)]

    def _refine_messages(self, state: State) -> list[BaseMessage]:
        path = path_of(state)
        prompt = VERBALIZE_REFINE_PROMPT.format(
            question_block=_question_block(state),
            source=data_line(path.source.label()),
            hop_count=len(path),
            hops=in_data_block(render_hops(path), "path"),
            draft=in_data_block(excerpt(state.get("narrative", "")), "draft"),
            feedback=state["verbalization"]["feedback"],
        )
        return [SystemMessage(VERBALIZE_SYSTEM_PROMPT), HumanMessage(prompt)]

    def _failed(self, state: State, exc: Exception, calls: int) -> dict[str, Any]:
        """End the run: the failed call counts, and this run's last critique's feedback
        stays (``""`` when the draft failed: ``prepare`` reset the report)."""
        error = model_failure(exc, self.model_retry)
        ctx = settings(get_runtime())
        feedback = (state.get("verbalization") or {}).get("feedback", "")
        report = _report(
            state, ctx, path_of(state), error=error, feedback=feedback, model_calls=calls + 1
        )
        return {"error": error, "model_calls": calls + 1, "verbalization": report}

    def draft(self, state: State) -> dict[str, Any]:
        """Write the first narrative of the path; an empty path needs no model (its
        narrative stays ``""``). Sync variant; :meth:`adraft` serves
        ``ainvoke``/``astream``."""
        if not path_of(state).hops:
            return {}
        try:
            response = self._chat_model(settings(get_runtime())).invoke(self._draft_messages(state))
        except Exception as exc:
            return self._failed(state, exc, 0)
        return {"narrative": response.text, "model_calls": 1}

    async def adraft(self, state: State) -> dict[str, Any]:
        """Async variant of :meth:`draft` (no blocking call on the event loop)."""
        if not path_of(state).hops:
            return {}
        try:
            response = await (await achat_model(self.model, settings(get_runtime()).model)).ainvoke(
                self._draft_messages(state)
            )
        except Exception as exc:
            return self._failed(state, exc, 0)
        return {"narrative": response.text, "model_calls": 1}

    def critique(self, state: State, runtime: Runtime[VerbalizeContext]) -> dict[str, Any]:
        """Run every critic on the narrative; count a failure against the budget.

        An empty path passes at once (it has nothing to mention).
        """
        ctx = settings(runtime)
        path = path_of(state)
        if not path.hops:
            return {"verbalization": _report(state, ctx, path, passed=True)}
        passed, feedback = run_critics(self.critics, state.get("narrative", ""), path)
        used = state.get("iterations_used", 0) + (0 if passed else 1)
        report = _report(state, ctx, path, passed=passed, iterations_used=used, feedback=feedback)
        return {"iterations_used": used, "verbalization": report}

    def refine(self, state: State) -> dict[str, Any]:
        """Re-prompt with the hops, the previous narrative and the critique. Sync
        variant; :meth:`arefine` serves ``ainvoke``/``astream``."""
        calls = state.get("model_calls", 0)
        try:
            response = self._chat_model(settings(get_runtime())).invoke(
                self._refine_messages(state)
            )
        except Exception as exc:
            return self._failed(state, exc, calls)
        return {"narrative": response.text, "model_calls": calls + 1}

    async def arefine(self, state: State) -> dict[str, Any]:
        """Async variant of :meth:`refine`."""
        calls = state.get("model_calls", 0)
        try:
            response = await (await achat_model(self.model, settings(get_runtime()).model)).ainvoke(
                self._refine_messages(state)
            )
        except Exception as exc:
            return self._failed(state, exc, calls)
        return {"narrative": response.text, "model_calls": calls + 1}


def route_after_model(state: State) -> Literal["critique", "__end__"]:
    """End when the chat model failed; otherwise critique the narrative."""
    return END if state.get("error") else "critique"


def route_after_critique(
    state: State, runtime: Runtime[VerbalizeContext]
) -> Literal["refine", "__end__"]:
    """End on pass; refine while fewer than ``max_iterations`` critiques have failed;
    otherwise end. This edge is what bounds the loop (never the recursion limit)."""
    if state["verbalization"]["passed"]:
        return END
    if state["iterations_used"] < settings(runtime).max_iterations:
        return "refine"
    return END
