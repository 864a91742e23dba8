"""The query rewrite of a ``grounded_answer`` run (``rewrite_query``): the run's chat
model behind a :class:`~citeloop.retrievers.QueryRewriteRetriever`, its calls counted
in the run's tokens and kept within ``max_total_tokens``.

The injector asks the retriever while a node builds a context, so the node opens
:func:`counted_rewrites` around it: the calls made inside are counted there (a context
variable, so concurrent runs keep theirs apart), and a call the budget has no room for,
or that raises, raises :class:`RewriteNotMade` for the node to build the context
without it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableLambda
from langgraph.constants import TAG_NOSTREAM

from citeloop.checks import estimate_tokens
from citeloop.knowledge import GraphStore
from citeloop.nodes.chat import call_usage, describe_error
from citeloop.retrievers import QueryRewriteRetriever
from citeloop.state.tokens import TokenUsage

REWRITE_REPLY_TOKENS = 150
"""Tokens a query-rewrite reply is expected to take (a dozen names), to judge before the
call whether the run's token budget has room for it."""


@dataclasses.dataclass
class _Rewrites:
    """The query-rewrite calls of one context's building: their tokens, and the tokens
    the run may still spend (``None``: no limit)."""

    room: int | None
    calls: list[TokenUsage] = dataclasses.field(default_factory=list)


_REWRITES: ContextVar[_Rewrites | None] = ContextVar("rewrites", default=None)
"""The calls of the context being built (``None`` outside :func:`counted_rewrites`)."""


class RewriteNotMade(Exception):
    """The query rewrite was not made: the chat model raised (the cause is chained), or
    the run's token budget had no room for it."""


@contextmanager
def counted_rewrites(room: int | None) -> Iterator[list[TokenUsage]]:
    """Count the query-rewrite calls made inside: yields the list their tokens are
    added to; a call is not made when its prompt and :data:`REWRITE_REPLY_TOKENS` would
    spend more than ``room`` tokens (``None``: no limit)."""
    rewrites = _Rewrites(room)
    token = _REWRITES.set(rewrites)
    try:
        yield rewrites.calls
    finally:
        _REWRITES.reset(token)


def rewrite_retriever(
    model: Callable[[], BaseChatModel], store: GraphStore
) -> QueryRewriteRetriever:
    """A query-rewrite retriever over ``store`` that asks the chat model ``model()``
    returns at each call (the run's; a replay file read again), through
    :func:`_counted_call`."""
    return QueryRewriteRetriever(
        model=RunnableLambda(functools.partial(_counted_call, model)), store=store
    )


def _counted_call(model: Callable[[], BaseChatModel], messages: list[BaseMessage]) -> AIMessage:
    """The reply of ``model()`` to a query-rewrite prompt, its tokens counted (inside
    :func:`counted_rewrites`); not streamed (``stream_mode="messages"`` shows the
    answer only).

    Raises:
        RewriteNotMade: If the model raised, or the call would spend more than the run
            has room for.
    """
    rewrites = _REWRITES.get()
    if rewrites is not None and rewrites.room is not None:
        expected = sum(estimate_tokens(message.text) for message in messages)
        if expected + REWRITE_REPLY_TOKENS > rewrites.room:
            raise RewriteNotMade(
                f"the run has {rewrites.room} tokens left of max_total_tokens, the rewrite "
                f"needs about {expected + REWRITE_REPLY_TOKENS}"
            )
    try:
        response = model().invoke(messages, config={"tags": [TAG_NOSTREAM]})
    except Exception as exc:
        raise RewriteNotMade(describe_error(exc)) from exc
    if rewrites is not None:
        rewrites.calls.append(call_usage(messages, response))
    return response
