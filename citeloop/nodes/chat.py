"""What the model-calling nodes of every graph share: how a failed call ends, and how
a previous output is quoted in a retry prompt."""

from __future__ import annotations

from langgraph.runtime import get_runtime

from citeloop.models import is_transient_model_error
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


def model_failure(exc: Exception, max_attempts: int) -> str:
    """The error text that ends a run, for a chat-model call that raised ``exc``.

    A transient error (see :func:`citeloop.models.is_transient_model_error`) is re-raised
    instead while the node's retry policy has attempts left, so that it is retried with
    backoff.

    Args:
        exc: What the chat model raised.
        max_attempts: The node's retry policy's ``max_attempts``.

    Raises:
        Exception: ``exc`` itself, when it is transient and attempts are left.
    """
    info = get_runtime().execution_info
    attempt = info.node_attempt if info is not None else 1
    if is_transient_model_error(exc) and attempt < max_attempts:
        raise exc
    return f"chat model failed: {describe_error(exc)}"
