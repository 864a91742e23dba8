"""Nodes and routers of the ``output_guard`` graph.

The nodes need what the runtime context cannot carry as JSON — an optional chat model
object and the caller's checks — so they are methods of :class:`OutputGuardNodes`,
built once per compiled graph. Routers are pure functions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END
from langgraph.runtime import Runtime, get_runtime
from langgraph.types import RetryPolicy

from citeloop.checks import (
    Check,
    Problem,
    complete_check,
    compliance_check,
    format_problems,
    repetition_check,
    require_checks,
    run_checks,
    sections_check,
)
from citeloop.context import OutputGuardContext, resolve_context
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
from citeloop.prompts import GUARD_RETRY_PROMPT, GUARD_SYSTEM_PROMPT
from citeloop.state.output_guard import State
from citeloop.state.tokens import no_tokens
from citeloop.text import excerpt, in_data_block


def settings(runtime: Runtime[OutputGuardContext]) -> OutputGuardContext:
    """The run's context (see :func:`citeloop.context.resolve_context`)."""
    return resolve_context(runtime.context, OutputGuardContext)


def task_of(state: State) -> str:
    """The task (see :func:`citeloop.nodes.chat.task_from`)."""
    return task_from(state, "output_guard")


RUN_INPUTS_CLEARED = {"task": "", "system_prompt": "", "task_taken": {}}
"""Written when a run ends: on a thread, the next run's task then comes from its own
input (or its last human message), never from an earlier run's ``task``; and the record
of the task it took (a run that did not end leaves both:
:func:`~citeloop.nodes.chat.stale_task`)."""


def _ended_with_error(error: str) -> dict[str, Any]:
    """The update that ends a run with outcome ``error``."""
    return {**RUN_INPUTS_CLEARED, "outcome": "error", "passed": False, "error": error}


def checks_from_context(ctx: OutputGuardContext) -> tuple[Check, ...]:
    """The default checks: the response mode's, then required sections, on-topic
    signals and repetition (not in ``structured`` mode), as the context sets them.
    Built once per distinct setting, so a JSON Schema is compiled once, not on every
    attempt.

    Raises:
        ConfigurationError: An unknown mode, or a JSON Schema that is not valid.
    """
    key = json.dumps(
        [
            ctx.mode,
            ctx.json_schema,
            ctx.required_sections,
            ctx.on_topic_signals,
            ctx.check_repetition,
        ],
        sort_keys=True,
        default=str,
    )
    return _build_checks(key)


@lru_cache(maxsize=32)
def _build_checks(key: str) -> tuple[Check, ...]:
    """:func:`checks_from_context` for its settings, as canonical JSON."""
    mode, json_schema, required_sections, on_topic_signals, check_repetition = json.loads(key)
    checks = [complete_check(mode=mode, schema=json_schema)]
    if required_sections:
        checks.append(sections_check(required_sections))
    if on_topic_signals:
        checks.append(compliance_check(on_topic_signals))
    # Repeated items are data in JSON, not a generation loop.
    if check_repetition and mode != "structured":
        checks.append(repetition_check())
    return tuple(checks)


def supersteps_needed(max_retries: int) -> int:
    """The recursion limit a run needs: prepare, call, validate, the end step, and
    3 steps (retry prompt, call, validate) per retry."""
    return 4 + 3 * max_retries


def _digest(text: str, problems: Sequence[str] = ()) -> str:
    """Of the text with runs of whitespace collapsed, and the problems it was failed
    for: a re-spaced copy that fails alike is the same output, one whose line breaks
    changed what fails it (a heading put on a line of its own) is not."""
    key = "\x00".join([" ".join(text.split()), *sorted(problems)])
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


class OutputGuardNodes:
    """The nodes of one compiled ``output_guard`` graph.

    Args:
        model: A chat model that overrides ``OutputGuardContext.model``, or ``None``.
        checks: The checks; ``None`` builds them from the context for each run
            (:func:`checks_from_context`).
        model_retry: The model nodes' retry policy: an error it retries is re-raised
            while attempts are left; any other error, or the last attempt's, ends the run.
    """

    def __init__(
        self,
        model: BaseChatModel | str | None = None,
        checks: Sequence[Check] | None = None,
        *,
        model_retry: RetryPolicy | None = None,
    ) -> None:
        self.model = builder_model(model)
        self.checks = None if checks is None else require_checks(checks)
        self.model_retry = model_retry

    def _chat_model(self, ctx: OutputGuardContext) -> BaseChatModel:
        return chat_model(self.model, ctx.model)

    def _checks(self, ctx: OutputGuardContext) -> tuple[Check, ...]:
        return self.checks if self.checks is not None else checks_from_context(ctx)

    def prepare(
        self, state: State, runtime: Runtime[OutputGuardContext], config: RunnableConfig
    ) -> dict[str, Any]:
        """Check the run's settings and write the first prompt; start the run afresh:
        its counters and every output it reports (``outcome`` is ``None`` until the
        run ends), so nothing of an earlier run on the thread shows as this one's.

        Raises:
            ConfigurationError: No task; a task or system prompt that is not a string;
                a model spec or check settings that cannot be
                used; a recursion limit too small for ``max_retries``. All before any
                model call.
        """
        ctx = settings(runtime)
        # An earlier run that did not end left its task; a chat turn's message since is
        # this run's task (see grounded_answer's inject_context).
        if stale_task(state):
            state = cast(State, {**state, "task": ""})
        task = task_of(state)
        check_system_prompt(state)
        self._chat_model(ctx)
        self._checks(ctx)
        needed = supersteps_needed(ctx.max_retries)
        check_recursion_limit(config, needed, "max_retries", ctx.max_retries)
        return {
            "task": task,
            "task_taken": task_taken(task, state.get("messages")),
            "prompt": task,
            "attempts": 0,
            "tokens": no_tokens(),
            "failed_digests": [],
            "reask": [],
            "retry": False,
            "error": "",
            "answer": "",
            "output": "",
            "checks": [],
            "passed": False,
            "outcome": None,
        }

    def _messages(self, state: State) -> list[BaseMessage]:
        return [
            SystemMessage(state.get("system_prompt") or GUARD_SYSTEM_PROMPT),
            HumanMessage(state["prompt"]),
        ]

    def _answered(self, state: State, messages: list[BaseMessage], response: Any) -> dict:
        spent = {
            "attempts": state.get("attempts", 0) + 1,
            "tokens": add_usage(state.get("tokens"), call_usage(messages, response)),
        }
        if refused := tool_calls_only(response):
            return {**spent, **_ended_with_error(refused)}
        return {**spent, "answer": response.text}

    def _failed(self, exc: Exception) -> dict[str, Any]:
        return _ended_with_error(model_failure(exc, self.model_retry))

    def call_model(self, state: State) -> dict[str, Any]:
        """Ask the chat model; a permanent error ends the run with outcome ``error``.
        Sync variant; :meth:`acall_model` serves ``ainvoke``/``astream``."""
        messages = self._messages(state)
        try:
            response = self._chat_model(settings(get_runtime())).invoke(messages)
        except Exception as exc:
            return self._failed(exc)
        return self._answered(state, messages, response)

    async def acall_model(self, state: State) -> dict[str, Any]:
        """Async variant of :meth:`call_model`."""
        messages = self._messages(state)
        try:
            response = await (await achat_model(self.model, settings(get_runtime()).model)).ainvoke(
                messages
            )
        except Exception as exc:
            return self._failed(exc)
        return self._answered(state, messages, response)

    def validate(self, state: State, runtime: Runtime[OutputGuardContext]) -> dict[str, Any]:
        """Run the checks with their failure policies; label a final verdict.

        Raises:
            ValidationError: A check with policy ``exception`` failed.
        """
        ctx = settings(runtime)
        answer = state["answer"]
        run = run_checks(self._checks(ctx), answer)
        update: dict[str, Any] = {
            "output": run.text,
            "checks": run.to_list(),
            "passed": run.passed,
            "reask": [{"check": name, **problem.to_dict()} for name, problem in run.reask],
        }
        digest = _digest(answer, [f"{name}: {problem.message}" for name, problem in run.reask])
        update["retry"] = False
        if run.passed:
            update["outcome"] = "passed"
        elif not run.reask:
            update["outcome"] = "failed"
        elif digest in state.get("failed_digests", []):
            update["outcome"] = "stalled"
            update["error"] = (
                "the model returned an output that had already failed the checks; "
                "stopped early instead of asking again"
            )
        elif state["attempts"] > ctx.max_retries:
            update["outcome"] = "exhausted"
        else:
            update["retry"] = True
        if not run.passed:
            update["failed_digests"] = [*state.get("failed_digests", []), digest]
        if "outcome" in update:
            update["messages"] = [AIMessage(run.text)]
            update.update(RUN_INPUTS_CLEARED)
        return update

    def build_retry_prompt(self, state: State) -> dict[str, Any]:
        """The next prompt: the task, each problem (what, expected shape, fix), and the
        previous output (cut when long)."""
        problems = [
            (item["check"], Problem(item["message"], item["expected"], item["fix"]))
            for item in state["reask"]
        ]
        prompt = GUARD_RETRY_PROMPT.format(
            task=state["task"],
            problems=format_problems(problems),
            output=in_data_block(excerpt(state["answer"]), "output"),
        )
        return {"prompt": prompt}


def route_after_model(state: State) -> Literal["validate", "__end__"]:
    """End on a model error; otherwise validate the output."""
    return END if state.get("error") else "validate"


def route_after_validate(state: State) -> Literal["build_retry_prompt", "__end__"]:
    """Re-ask when ``validate`` found problems to re-ask about, with budget left and no
    repeated output; otherwise end. This edge bounds the loop."""
    return "build_retry_prompt" if state.get("retry") else END
