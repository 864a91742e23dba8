"""``ValidatorLoop``: the source design 001's API, as a thin way into ``grounded_answer``.

Code written for the design's loop runs unchanged: ``ValidatorLoop(injector,
validator_factory=None, max_retries=2)`` and ``await loop.run(payload, call_llm, ...)``
returning ``ValidatorLoopResult(response, validation, retries, expanded)``. Underneath,
the user's ``call_llm`` coroutine becomes a chat model (:class:`CallableChatModel`) and
the run is one run of the ``grounded_answer`` graph, so the loop has the graph's
validation, its retry prompt and its widening
(:meth:`~citeloop.knowledge.ContextExpansion.for_attempt`: ``extra_hops=attempt + 1``,
tests and requirement closure included, ``limit_multiplier=attempt + 2``).

One behaviour differs on purpose: the design rebuilt its validator from each widened
context, so every entity the widening brought in became one more entity the answer had
to cite. Here what must be cited is fixed by the first context: widening adds
supporting entities only, and a ``validator_factory`` is called once, with the first
attempt's context text.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from numbers import Integral
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.types import RetryPolicy

from citeloop.callable_chat import CallableChatModel, PromptCall, split_grounded_prompt
from citeloop.checks.check import Check, CheckOutcome, Problem
from citeloop.context import MAX_RETRIES, GroundedAnswerContext
from citeloop.errors import ConfigurationError
from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.grounding import GraphValidationResult, ValidationResult
from citeloop.knowledge import ContextExpansion, ContextInjector, InjectedContext
from citeloop.knowledge.injector import taken_options
from citeloop.nodes.chat import DEFAULT_MODEL_RETRY
from citeloop.nodes.grounded_answer import supersteps_needed
from citeloop.prompts import GROUNDED_ANSWER_PROMPT, GROUNDED_PAYLOAD_BLOCK

DEFAULT_MAX_RETRIES = 2
"""Retries after the first call, by default (the source design's value)."""

CallLlm = Callable[..., Awaitable[str] | str]
"""``call_llm(system_prompt, user_message, **kwargs) -> str`` (a coroutine or a plain
function); ``kwargs`` holds ``graph_context`` when the context is not empty."""


@dataclass
class ValidatorLoopResult:
    """What :meth:`ValidatorLoop.run` returns.

    Attributes:
        response: The final answer (on ``budget_exhausted``, the run's best answer).
        validation: Its validation: the result of the ``validator_factory``'s validator,
            else the graph's, as the source design 000's
            :class:`~citeloop.grounding.ValidationResult` (its ``.report`` is citeloop's
            full :class:`~citeloop.grounding.GraphValidationResult`).
        retries: Model calls after the first one, ``0..max_retries``.
        expanded: Whether the context was widened.
        outcome: The graph's outcome: ``passed``, ``exhausted`` or ``budget_exhausted``.
        report: The graph's full report (a dict; see ``grounded_answer``'s output).
    """

    response: str
    validation: Any
    retries: int = 0
    expanded: bool = False
    outcome: str = ""
    report: dict[str, Any] = field(default_factory=dict)


def payload_text(payload: Any) -> str:
    """The text of a loop's payload: a string as it is; a mapping's values, a string as
    it is and any other value as JSON, one per line; ``None`` as ``""``.

    Raises:
        TypeError: ``payload`` is none of these.
    """
    if payload is None or isinstance(payload, str):
        return payload or ""
    if not isinstance(payload, Mapping):
        raise TypeError(
            f"payload must be a dict (or a str), got {type(payload).__name__}; pass the "
            "packet's fields as a dict"
        )
    return "\n".join(
        value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        for value in payload.values()
    )


@dataclass(frozen=True, slots=True)
class _TypedInjector:
    """The user's injector with the run's ``task_type`` bound."""

    injector: ContextInjector
    task_type: str | None

    @property
    def store(self) -> Any:
        return self.injector.store

    def inject(
        self,
        payload: Any,
        task_type: str | None = None,
        expansion: ContextExpansion | None = None,
        **options: Any,
    ) -> InjectedContext:
        chosen = self.task_type if task_type is None else task_type
        # what the user's `inject` takes of the options a widening gives (`keep`,
        # `relations`, `listed`, `whole`): all of them reach it, as they are added
        options = taken_options(self.injector, options)
        return self.injector.inject(payload, task_type=chosen, expansion=expansion, **options)


def _task_type(value: Any) -> str | None:
    value = value.value if isinstance(value, Enum) else value
    return None if value is None else str(value)


def _settings(
    context: GroundedAnswerContext | Mapping[str, Any] | None, max_retries: int
) -> GroundedAnswerContext:
    names = [item.name for item in fields(GroundedAnswerContext)]
    if context is None or isinstance(context, GroundedAnswerContext):
        chosen = {name: getattr(context or GroundedAnswerContext(), name) for name in names}
    elif isinstance(context, Mapping):
        if unknown := sorted(set(context) - set(names)):
            raise ConfigurationError(
                f"context has unknown settings {unknown}; the grounded_answer settings are "
                + ", ".join(names)
            )
        chosen = dict(context)
    else:
        raise ConfigurationError(
            f"context must be a GroundedAnswerContext or a dict, got {type(context).__name__}"
        )
    return GroundedAnswerContext(**{**chosen, "max_retries": max_retries})


def _names(result: Any, attribute: str) -> list[str]:
    return [str(name) for name in getattr(result, attribute, None) or ()]


_USER_PROBLEMS = (
    (
        "missing_core_citations",
        "these core entities are not cited: ",
        "an '## Entities used' section that cites them",
        "cite each of them under '## Entities used'",
    ),
    (
        "invalid_citations",
        "these citations are not in the context: ",
        "citations of context entities only",
        "remove them from '## Entities used'",
    ),
    (
        "public_missing",
        "these context entities are not referenced: ",
        "the answer's text naming the entities it relies on",
        "use them in the answer, or say why one does not apply",
    ),
)
"""(result attribute, problem, what was expected, the fix) for a user's validator's result."""


def _problems(result: Any) -> tuple[Problem, ...]:
    """Retry-prompt problems of a failed result of a user's validator."""
    problems = [
        Problem(problem + ", ".join(names), expected, fix)
        for attribute, problem, expected, fix in _USER_PROBLEMS
        if (names := _names(result, attribute))
    ]
    return tuple(problems) or (Problem("the validator rejected the answer"),)


class ValidatorLoop:
    """Retry a model call with a wider graph context until its answer cites the context.

    Args:
        injector: The :class:`~citeloop.knowledge.ContextInjector` that builds every
            context (its store also tells invented names from the graph's own).
        validator_factory: ``factory(context_text) -> validator`` whose
            ``validate(response)`` returns a result with ``passed`` (e.g. the source
            design's ``GraphContextValidator``). Called once per run, with the first
            attempt's context; each answer must pass it as well as the graph's
            validation, and a failed result's ``missing_core_citations``,
            ``invalid_citations`` and ``public_missing`` join the retry prompt.
            ``None``: the graph's validation alone.
        max_retries: Calls after the first, ``0..100`` (a negative value is 0, as in the
            source design); the loop always calls the model once.
        context: Further ``grounded_answer`` settings (:class:`GroundedAnswerContext`
            fields such as ``reference_threshold`` or ``fail_on_invented``); its
            ``max_retries`` is replaced by this loop's.
        model_retry: The retry policy for transient errors of ``call_llm`` (timeouts,
            rate limits, 5xx): by default 4 tries with backoff.

    Raises:
        TypeError: ``injector`` has no ``inject`` and ``store``, or ``validator_factory``
            is not callable.
        ConfigurationError: ``max_retries`` is no int or over 100, or a ``context`` field
            is invalid.

    Example:
        >>> loop = ValidatorLoop(ContextInjector(store), max_retries=2)  # doctest: +SKIP
        >>> result = await loop.run({"task": "..."}, call_llm, user_message="...")  # doctest: +SKIP
        >>> result.validation.passed, result.retries, result.expanded  # doctest: +SKIP
        (True, 1, True)
    """

    def __init__(
        self,
        injector: ContextInjector,
        validator_factory: Callable[[str], Any] | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        *,
        context: GroundedAnswerContext | Mapping[str, Any] | None = None,
        model_retry: RetryPolicy = DEFAULT_MODEL_RETRY,
    ) -> None:
        if not (hasattr(injector, "inject") and hasattr(injector, "store")):
            raise TypeError(
                f"injector must be a citeloop ContextInjector, got {type(injector).__name__}; "
                "build one with ContextInjector(store)"
            )
        if validator_factory is not None and not callable(validator_factory):
            raise TypeError("validator_factory must be callable: factory(context_text)")
        if isinstance(max_retries, bool) or not isinstance(max_retries, Integral):
            raise ConfigurationError(
                f"max_retries must be an int (0..{MAX_RETRIES}), got {max_retries!r}"
            )
        if max_retries > MAX_RETRIES:
            raise ConfigurationError(
                f"max_retries must be at most {MAX_RETRIES}, got {max_retries}"
            )
        self.injector = injector
        self.validator_factory = validator_factory
        self.max_retries = max(max_retries, 0)
        self.context = _settings(context, self.max_retries)
        self.model_retry = model_retry

    async def run(
        self,
        payload: Mapping[str, Any] | str | None,
        call_llm: CallLlm,
        *,
        task_type: Any | None = None,
        system_prompt: str = "",
        user_message: str = "",
        call_kwargs: Mapping[str, Any] | None = None,
    ) -> ValidatorLoopResult:
        """Call the model, validate its answer, and retry with a wider context if needed.

        Args:
            payload: What the task is about (a dict of strings or JSON values, or a
                str): with ``user_message`` it seeds the context, and its names count
                as written in the prompt.
            call_llm: ``call_llm(system_prompt, user_message, graph_context=...,
                **call_kwargs) -> str``, a coroutine function or a plain one.
                ``user_message`` is yours on the first call and, on a retry, your
                message followed by what to fix and the previous answer;
                ``system_prompt`` is yours, or the graph's (which asks for the
                ``## Entities used`` section) when yours is empty.
            task_type: Forwarded to the injector (``"test"`` includes tests).
            system_prompt: The system prompt.
            user_message: The task.
            call_kwargs: Added to every call.

        Returns:
            The final answer, its validation, the retries and whether the context was
            widened, with the graph's outcome and report.

        Raises:
            ValueError: Neither ``user_message`` nor ``payload`` has text.
            TypeError: ``payload`` is not a dict or str; ``call_llm`` returned no str.
            Exception: Whatever ``call_llm`` raised that ended the run.
        """
        material = payload_text(payload)
        task, material = (user_message, material) if user_message.strip() else (material, "")
        if not task.strip():
            raise ValueError("ValidatorLoop.run needs a user_message or a payload with text")
        block = GROUNDED_PAYLOAD_BLOCK.format(payload=material) if material else ""

        def to_call(messages: list[BaseMessage]) -> PromptCall:
            system = messages[0].text if messages and messages[0].type == "system" else ""
            context, rest = split_grounded_prompt(messages[-1].text if messages else "")
            first = GROUNDED_ANSWER_PROMPT.format(
                context=context, payload_block=block, task=task.strip()
            )
            if messages and messages[-1].text == first:
                rest = user_message  # the first call gets the message as the user wrote it
            else:
                rest = rest.removeprefix(block)
            return PromptCall(system, rest, context)

        model = CallableChatModel(
            call=call_llm, to_call=to_call, call_kwargs=dict(call_kwargs or {})
        )
        user_check = self._user_check(model) if self.validator_factory else None
        graph = build_grounded_answer_graph(
            model,
            injector=_TypedInjector(self.injector, _task_type(task_type)),  # type: ignore[arg-type]
            checks=[user_check[0]] if user_check else (),
            model_retry=self.model_retry,
            name="validator_loop",
        )
        inputs = {"task": task, "payload": material, "system_prompt": system_prompt}
        limit = max(25, supersteps_needed(self.max_retries))
        out = await graph.ainvoke(inputs, {"recursion_limit": limit}, context=self.context)
        if out.get("outcome") == "error":
            raise model.last_error or RuntimeError(out.get("error") or "the model call failed")
        answer, report = out.get("answer", ""), dict(out.get("report") or {})
        if user_check:
            validation = user_check[1](answer)
        else:
            # The source design 000's result, with citeloop's full one as its `.report`.
            validation = (
                ValidationResult.from_report(GraphValidationResult.from_dict(report))
                if report
                else None
            )
        return ValidatorLoopResult(
            response=answer,
            validation=validation,
            retries=max(out.get("attempts", 0) - 1, 0),
            expanded=bool(out.get("expanded")),
            outcome=out.get("outcome") or "",
            report=report,
        )

    def _user_check(self, model: CallableChatModel) -> tuple[Check, Callable[[str], Any]]:
        """The user's validator as a ``Check``, built on first use from the first call's
        context (so what it requires never grows), and a function that validates."""
        built: list[Any] = []

        def validate(text: str) -> Any:
            if not built:
                first = model.calls[0].graph_context if model.calls else ""
                built.append(self.validator_factory(first))  # type: ignore[misc]
            return built[0].validate(text)

        def check(text: str) -> CheckOutcome:
            result = validate(text)
            if getattr(result, "passed", False):
                return CheckOutcome("validator", True)
            return CheckOutcome("validator", False, _problems(result))

        return Check("validator", check, on_fail="reask"), validate
