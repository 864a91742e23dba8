"""What the model-calling nodes of every graph share: how a failed call ends, and how
a previous output is quoted in a retry prompt."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langgraph.runtime import get_runtime
from langgraph.types import RetryPolicy

from citeloop.models import resolve_chat_model
from citeloop.prompts import EXCERPT_NOTE

MAX_DRAFT_CHARS = 8_000
"""Characters of a previous output quoted in a retry or refinement prompt (the rest is
cut, and the prompt says so), so a runaway answer cannot grow the next prompt."""


def excerpt(text: str, limit: int = MAX_DRAFT_CHARS) -> str:
    """``text``, cut after ``limit`` characters with a note saying how much was shown."""
    if len(text) <= limit:
        return text
    return text[:limit] + EXCERPT_NOTE.format(shown=limit, total=len(text))


def describe_error(exc: BaseException) -> str:
    """``"TypeName: message"``, or just the type name when the message is empty."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def achat_model(model: BaseChatModel | None, spec: str) -> BaseChatModel:
    """``model``, else ``spec`` resolved in a worker thread: resolving a ``replay:`` spec
    checks its file, a blocking call that must not run on the event loop."""
    return model if model is not None else await asyncio.to_thread(resolve_chat_model, spec)


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
