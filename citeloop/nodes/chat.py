"""What the model-calling nodes of every graph share: where the task comes from, how a
failed call ends, and how a previous output is quoted in a retry prompt."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.runtime import get_runtime
from langgraph.types import RetryPolicy

from citeloop.checks import estimate_tokens
from citeloop.errors import ConfigurationError
from citeloop.models import is_transient_model_error, resolve_chat_model
from citeloop.state.tokens import TokenUsage

DEFAULT_MODEL_RETRY = RetryPolicy(
    initial_interval=1.0, backoff_factor=2.0, max_attempts=4, retry_on=is_transient_model_error
)
"""Backoff for transient chat-model errors: 1 s, 2 s, 4 s (with jitter), 4 calls at most;
the default ``model_retry`` of every graph."""


def describe_error(exc: BaseException) -> str:
    """``"TypeName: message"``, or just the type name when the message is empty."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def last_human_text(messages: Sequence[Any] | None) -> str:
    """The text of the last human message with text, stripped, or ``""``."""
    for message in reversed(messages or []):
        if getattr(message, "type", "") == "human" and message.text.strip():
            return message.text.strip()
    return ""


def last_human_mark(messages: Sequence[Any] | None) -> str:
    """Which message the last human message with text is, as written: its id (else its
    position) and a digest of its text (an edited message keeps its id); ``""`` when
    there is none."""
    items = list(messages or [])
    for position in range(len(items) - 1, -1, -1):
        message = items[position]
        if getattr(message, "type", "") == "human" and message.text.strip():
            return f"{message.id or position}:{_digest(message.text.strip())}"
    return ""


def task_taken(task: str, messages: Sequence[Any] | None) -> dict[str, str]:
    """What a run records of the task it takes: a digest of it and the
    :func:`last_human_mark` of the messages then, so that the next run on the thread can
    tell a task left over from its own (:func:`stale_task`)."""
    return {"task": _digest(task.strip()), "human": last_human_mark(messages)}


def stale_task(state: Mapping[str, Any]) -> bool:
    """Whether ``state["task"]`` is an earlier run's, left on the thread because that
    run did not end (an interrupt, a cancelled run, an exception; a run that ends
    clears its task and ``task_taken``): it is the task that run took
    (``state["task_taken"]``, :func:`task_taken`), and a human message came, or was
    edited, since. The newer message is then the task, as in a chat turn; a task the
    new run gives, other than the one taken, is its own."""
    taken, task = state.get("task_taken"), state.get("task")
    if not isinstance(taken, Mapping) or not isinstance(task, str) or not task.strip():
        return False
    newer = taken.get("human") != last_human_mark(state.get("messages"))
    return newer and taken.get("task") == _digest(task.strip())


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def task_from(state: Mapping[str, Any], graph: str) -> str:
    """The task: ``state["task"]``, else the text of the last human message in
    ``state["messages"]`` (as from a chat agent).

    Args:
        state: The graph's state.
        graph: The graph's name, for the error message.

    Raises:
        ConfigurationError: A task that is not a string, or neither is present.
    """
    task = state.get("task")
    if task is not None and not isinstance(task, str):
        raise ConfigurationError(f"task must be a string, got {type(task).__name__}")
    found = (task or "").strip() or last_human_text(state.get("messages"))
    if not found:
        raise ConfigurationError(
            f"{graph} needs a task: pass {{'task': '...'}} or a human message in 'messages'"
        )
    return found


def builder_model(model: BaseChatModel | str | None) -> BaseChatModel | None:
    """A graph builder's ``model``: a spec (``"provider:model"``, ``"replay:PATH"``) is
    resolved when the graph is built, so its errors are raised there; a chat model (any
    runnable with ``invoke`` and ``ainvoke``) or ``None`` is kept.

    Raises:
        ConfigurationError: A spec that cannot be resolved, or anything else that is no
            chat model (a class, a function, a number): named, with the fix.
    """
    if isinstance(model, str):
        return resolve_chat_model(model)
    if model is None:
        return None
    if isinstance(model, type) or not all(
        callable(getattr(model, method, None)) for method in ("invoke", "ainvoke")
    ):
        shown = f"the class {model.__name__}" if isinstance(model, type) else type(model).__name__
        hint = (
            "wrap a function with citeloop.CallableChatModel(call_llm)"
            if callable(model) and not isinstance(model, type)
            else "pass a chat model instance"
        )
        raise ConfigurationError(
            f"model must be a chat model or a 'provider:model' spec, got {shown}; {hint} "
            "(e.g. init_chat_model('openai:gpt-4o-mini')) or a spec string"
        )
    return model


def check_system_prompt(state: Mapping[str, Any]) -> None:
    """Raise :class:`~citeloop.errors.ConfigurationError` when the state's
    ``system_prompt`` is given and is neither a string nor a list of content blocks (a
    system message's content, e.g. with prompt-caching marks), before any model call."""
    prompt = state.get("system_prompt")
    if prompt is not None and not isinstance(prompt, str | list):
        raise ConfigurationError(
            f"system_prompt must be a string (or a list of content blocks), got "
            f"{type(prompt).__name__}; pass the system message's text, or leave it out "
            "for the graph's own"
        )


def chat_model(model: BaseChatModel | None, spec: str) -> BaseChatModel:
    """``model`` (the builder's), else the context's ``spec`` resolved (one client per
    spec and process; see :func:`citeloop.models.resolve_chat_model`)."""
    return model if model is not None else resolve_chat_model(spec)


async def achat_model(model: BaseChatModel | None, spec: str) -> BaseChatModel:
    """:func:`chat_model` with ``spec`` resolved in a worker thread: resolving a
    ``replay:`` spec checks its file, a blocking call that must not run on the event loop."""
    return model if model is not None else await asyncio.to_thread(resolve_chat_model, spec)


def check_recursion_limit(config: Mapping[str, Any], needed: int, setting: str, value: int) -> None:
    """Refuse a caller's ``recursion_limit`` too small for a graph's budget, so that the
    budget, never the recursion limit, ends a run.

    Args:
        config: The node's run config.
        needed: The supersteps a run takes at most with this budget.
        setting: The context field of the budget (``"max_retries"``), for the message.
        value: Its value.

    Raises:
        ConfigurationError: The config's limit is below ``needed``.
    """
    limit = config.get("recursion_limit")
    if limit is not None and limit < needed:
        raise ConfigurationError(
            f"{setting}={value} needs a recursion_limit of at least {needed}, got {limit}; "
            f"pass config={{'recursion_limit': {needed}}} or lower {setting}"
        )


def retries(policy: RetryPolicy, exc: Exception) -> bool:
    """Whether ``policy`` retries ``exc`` (LangGraph's rule for ``retry_on``: an exception
    class, a sequence of them, or a predicate)."""
    retry_on = policy.retry_on
    if isinstance(retry_on, Sequence):
        return isinstance(exc, tuple(retry_on))
    if isinstance(retry_on, type):
        return isinstance(exc, retry_on)
    return bool(retry_on(exc))


def model_failure(exc: Exception, policy: RetryPolicy | None) -> str:
    """The error text that ends a run, for a chat-model call that raised ``exc``.

    An error that the node's retry ``policy`` retries is re-raised instead while the
    policy has attempts left, so that it is retried with backoff; every other error,
    and the last attempt's, ends the run with this text.

    Args:
        exc: What the chat model raised.
        policy: The node's retry policy (``None``: no retries).

    Raises:
        Exception: ``exc`` itself, when the policy retries it and attempts are left.
    """
    info = get_runtime().execution_info
    attempt = info.node_attempt if info is not None else 1
    if policy is not None and attempt < policy.max_attempts and retries(policy, exc):
        raise exc
    return f"chat model failed: {describe_error(exc)}"


def tool_calls_only(response: Any) -> str:
    """The error text that ends a run when the chat model answered with tool calls and
    no text (a model with tools bound: these graphs run no tools, so asking again would
    spend every retry on the same calls); ``""`` for an answer with text."""
    calls = getattr(response, "tool_calls", None) or []
    if not calls or response.text.strip():
        return ""
    names = ", ".join(dict.fromkeys(str(call.get("name", "?")) for call in calls))
    return (
        f"chat model answered with {len(calls)} tool call(s) ({names}) and no text; the "
        "graph runs no tools: pass the chat model without tools bound"
    )


def call_usage(messages: Sequence[BaseMessage], response: AIMessage) -> TokenUsage:
    """The tokens of one call: the model's ``usage_metadata``, else the estimate
    (:func:`citeloop.checks.estimate_tokens`) of ``messages`` and the reply."""
    usage = response.usage_metadata
    if usage:
        spent_in, spent_out = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
        return {
            "input": spent_in,
            "output": spent_out,
            "total": spent_in + spent_out,
            "estimated": False,
        }
    spent_in = sum(estimate_tokens(message.text) for message in messages)
    spent_out = estimate_tokens(response.text)
    return {
        "input": spent_in,
        "output": spent_out,
        "total": spent_in + spent_out,
        "estimated": True,
    }


def add_usage(before: TokenUsage | None, call: TokenUsage) -> TokenUsage:
    """``before`` plus ``call`` (``call`` alone when nothing was spent before)."""
    if before is None:
        return call
    return {
        "input": before["input"] + call["input"],
        "output": before["output"] + call["output"],
        "total": before["total"] + call["total"],
        "estimated": before["estimated"] or call["estimated"],
    }
