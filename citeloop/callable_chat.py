"""A chat model over a plain ``call_llm(system_prompt, user_message, **kwargs)`` function.

:class:`CallableChatModel` lets code that calls a model through its own function (the
source design 001's ``call_llm``) run a citeloop graph: the graph's messages become the
function's arguments, and its string becomes the model's reply.
:func:`split_grounded_prompt` takes the knowledge-graph context back out of a
``grounded_answer`` prompt, so that the function receives it as ``graph_context``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

from citeloop.prompts import (
    GROUNDED_ANSWER_PROMPT,
    GROUNDED_RETRY_PROMPT,
    RETRY_CONTEXT_SAME,
    RETRY_CONTEXT_WIDENED,
)


@dataclass(frozen=True, slots=True)
class PromptCall:
    """One call of ``call_llm``: what it was given."""

    system_prompt: str
    user_message: str
    graph_context: str


def _context_parts(template: str) -> tuple[str, str]:
    """The literal text before ``{context}`` in a prompt template and the literal right
    after it (up to the next field)."""
    head, _, after = template.partition("{context}")
    return head, after.split("{", 1)[0]


_TEMPLATES = (
    _context_parts(GROUNDED_ANSWER_PROMPT),
    *(
        _context_parts(GROUNDED_RETRY_PROMPT.replace("{how}", how))
        for how in (RETRY_CONTEXT_WIDENED, RETRY_CONTEXT_SAME)
    ),
)


def split_grounded_prompt(prompt: str) -> tuple[str, str]:
    """``(graph_context, rest)`` of a human prompt of the ``grounded_answer`` graph.

    The graph's templates (:data:`citeloop.prompts.GROUNDED_ANSWER_PROMPT` and
    ``GROUNDED_RETRY_PROMPT``) put the context between fixed lines; the rest is the
    payload block and the task or the retry feedback. A prompt of another shape is
    all ``rest``, with an empty context.
    """
    for head, close in _TEMPLATES:
        if prompt.startswith(head):
            context, found, rest = prompt[len(head) :].partition(close)
            if found:
                return context, rest
    return "", prompt


class CallableChatModel(BaseChatModel):
    """A chat model that answers by calling ``call(system_prompt, user_message, **kwargs)``.

    ``to_call(messages) -> PromptCall`` says what the call is given; ``call_kwargs`` are
    added to every call, and ``graph_context`` when the call's context is not empty. A
    plain function runs in a worker thread under ``ainvoke``; a coroutine is awaited.
    Every call is kept in :attr:`calls`, and the last error raised in :attr:`last_error`.

    Raises:
        TypeError: ``call`` returned something other than a string.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    call: Callable[..., Any]
    to_call: Callable[[list[BaseMessage]], PromptCall]
    call_kwargs: dict[str, Any] = Field(default_factory=dict)
    _calls: list[PromptCall] = PrivateAttr(default_factory=list)
    _error: BaseException | None = PrivateAttr(default=None)

    @property
    def _llm_type(self) -> str:
        return "citeloop-callable"

    @property
    def calls(self) -> list[PromptCall]:
        return self._calls

    @property
    def last_error(self) -> BaseException | None:
        return self._error

    def _arguments(self, messages: list[BaseMessage]) -> tuple[PromptCall, dict[str, Any]]:
        prompt = self.to_call(messages)
        self._calls.append(prompt)
        kwargs = dict(self.call_kwargs)
        if prompt.graph_context:
            kwargs["graph_context"] = prompt.graph_context
        return prompt, kwargs

    def _result(self, text: Any) -> ChatResult:
        if not isinstance(text, str):
            raise TypeError(
                f"call_llm returned {type(text).__name__}; it must return the answer as a str"
            )
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        prompt, kwargs = self._arguments(messages)
        try:
            text = self.call(prompt.system_prompt, prompt.user_message, **kwargs)
            if inspect.isawaitable(text):
                raise TypeError("call_llm is a coroutine function: run the graph with ainvoke")
            return self._result(text)
        except Exception as exc:
            self._error = exc
            raise

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        prompt, kwargs = self._arguments(messages)
        args = (prompt.system_prompt, prompt.user_message)
        try:
            if _is_coroutine_function(self.call):
                text = await self.call(*args, **kwargs)
            else:
                text = await asyncio.to_thread(self.call, *args, **kwargs)
                if inspect.isawaitable(text):
                    text = await text
            return self._result(text)
        except Exception as exc:
            self._error = exc
            raise


def _is_coroutine_function(call: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(
        getattr(call, "__call__", None)  # noqa: B004 (an object with an async __call__)
    )
