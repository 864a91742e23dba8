"""State schemas of the ``output_guard`` graph.

``InputState`` and ``OutputState`` are what a caller or a parent graph sees; ``State``
adds the working keys the nodes share. TypedDicts carry no defaults: nodes read
optional keys with ``.get``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from typing_extensions import TypedDict  # pydantic needs it for JSON schemas on Python < 3.12

from citeloop.state.messages import add_chat_messages
from citeloop.state.tokens import TokenUsage

Outcome = Literal["passed", "failed", "exhausted", "stalled", "error"]


class InputState(TypedDict, total=False):
    """What a run starts from.

    Attributes:
        task: The prompt. When absent, the text of the last human message in
            ``messages`` is the task.
        system_prompt: Replaces the default system prompt: its text, or a system
            message's content blocks (e.g. with prompt-caching marks).
        messages: Chat messages, as from a chat agent (see ``task``); the final output
            is appended as an AI message.
    """

    task: str
    system_prompt: str | list[str | dict[str, Any]]
    messages: Annotated[list[AnyMessage], add_chat_messages]


class OutputState(TypedDict, total=False):
    """What a run returns.

    Attributes:
        output: The final output: the last answer, with the fixes of ``fix`` /
            ``fix_reask`` checks applied.
        checks: Each check's result on it: ``name``, ``passed``, ``problems``
            (``message``, ``expected``, ``fix``, ``details``), ``fixed``, and ``status``
            (``passed`` | ``fixed`` | ``failed``).
        passed: Every check passed or was fixed.
        outcome: ``passed``; ``failed`` (checks failed whose policy does not re-ask:
            ``noop``, or ``fix`` without a fix); ``exhausted`` (re-ask budget spent);
            ``stalled`` (the model repeated an output that had already failed);
            ``error`` (the chat model failed); ``None`` while the run is under way.
        attempts: Model calls that returned an output.
        tokens: Tokens spent across the attempts (:class:`TokenUsage`).
        error: Why the run ended with ``stalled`` or ``error``.
        messages: The input messages plus the final output as an AI message.
    """

    output: str
    checks: list[dict[str, Any]]
    passed: bool
    outcome: Outcome | None
    attempts: int
    tokens: TokenUsage
    error: str
    messages: Annotated[list[AnyMessage], add_chat_messages]


class State(InputState, OutputState, total=False):
    """The graph's internal state.

    Attributes:
        prompt: The human prompt of the current attempt.
        answer: The model's last answer, before fixes.
        reask: The problems to re-ask about: ``{"check", "message", "expected", "fix"}``.
        failed_digests: SHA-256 digests of the outputs that failed so far.
        retry: Whether ``validate`` asks for another attempt.
        task_taken: The task the run took (a digest) and the last human message then
            (:func:`citeloop.nodes.chat.task_taken`); cleared when the run ends. A run
            that does not end leaves it and its task on the thread, and the next run
            takes a newer human message instead (:func:`citeloop.nodes.chat.
            stale_task`).
    """

    prompt: str
    answer: str
    reask: list[dict[str, Any]]
    failed_digests: list[str]
    retry: bool
    task_taken: dict[str, str]
