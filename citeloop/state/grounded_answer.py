"""State schemas of the ``grounded_answer`` graph.

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

Outcome = Literal["passed", "exhausted", "budget_exhausted", "error"]


class InputState(TypedDict, total=False):
    """What a run starts from.

    Attributes:
        task: The question or instruction. When absent, the text of the last human
            message in ``messages`` is the task.
        payload: Extra text the task refers to (e.g. a diff or a file); its entity
            names also seed the context.
        system_prompt: Replaces the default system prompt: its text, or a system
            message's content blocks (e.g. with prompt-caching marks).
        messages: Chat messages, as from a chat agent: when ``task`` is absent, the last
            human message is the task (earlier messages are not sent to the model). The
            final answer is appended as an AI message.
    """

    task: str
    payload: str
    system_prompt: str | list[str | dict[str, Any]]
    messages: Annotated[list[AnyMessage], add_chat_messages]


class OutputState(TypedDict, total=False):
    """What a run returns.

    Attributes:
        answer: The last answer the model gave ("" when no call succeeded); with outcome
            ``budget_exhausted``, the best answer of the run.
        report: The validation report of that answer (``GraphValidationResult`` fields,
            plus ``checks``, ``check_problems`` and ``context_passed`` with checks).
        attempts: Model calls that returned an answer (1 + retries) in this run.
        expanded: Whether the context was widened for a retry.
        outcome: ``passed``, ``exhausted`` (retry budget spent), ``budget_exhausted``
            (the next call would have spent more than ``max_total_tokens``), or
            ``error``; ``None`` while the run is under way.
        error: Why the run ended with ``error`` (``""`` otherwise).
        messages: The input messages plus the final answer as an AI message.
        context_entities: The final context as ``{"name", "kind", "tier", "id", "path",
            "line", "end_line", "signature", "summary", "reason", "score"}`` dicts (what
            the answer had to use and cite, where each entity is defined, and why it is
            there; ``path``/``line``/``end_line`` may be ``None``).
        tokens: Tokens spent by the run's model calls in all (:class:`TokenUsage`), the
            query rewrite's too (``rewrite_query``).
        attempt_tokens: Tokens of each answering call, in order.
        snapshot: Snapshot id of the knowledge graph the context was read from (the
            evidence index version of a delivery audit).
    """

    answer: str
    report: dict[str, Any]
    attempts: int
    expanded: bool
    outcome: Outcome | None
    error: str
    messages: Annotated[list[AnyMessage], add_chat_messages]
    context_entities: list[dict[str, Any]]
    snapshot: str
    tokens: TokenUsage
    attempt_tokens: list[TokenUsage]


class State(InputState, OutputState, total=False):
    """The graph's internal state.

    Attributes:
        feedback: The retry feedback of the current attempt ("" on the first); the
            human prompt is built from it, ``context_text``, ``payload`` and ``task``
            (so that a checkpoint does not hold the context twice).
        context_text: The injected knowledge-graph context, in the documented format.
        context_excerpts: The source line numbers its excerpts show, by entity id (a
            widening shows them again).
        context_relations: The ids of the facts it writes relation lines for (a
            widening writes them again).
        context_brief: The ids of its entities whose line it writes brief (a widening
            writes the others' whole again).
        best: The best answer so far, its report and its attempt (``{"answer",
            "report", "attempt"}``): one that failed only for saying the context is not
            enough first, then fewest failed rules, then the highest share of core
            entities referenced; of two alike, the later.
        widened: Whether the last widening added to the context (its text changed):
            when it did not, an answer that only said the context is not enough is
            judged as on a last attempt (asked again, it would see the same context).
        task_taken: The task the run took (a digest) and the last human message then
            (:func:`citeloop.nodes.chat.task_taken`); cleared when the run ends. A run
            that does not end leaves it and its task on the thread, and the next run
            takes a newer human message instead (:func:`citeloop.nodes.chat.
            stale_task`).
    """

    feedback: str
    context_text: str
    context_excerpts: dict[str, list[int]]
    context_relations: list[str]
    context_brief: list[str]
    best: dict[str, Any]
    widened: bool
    task_taken: dict[str, str]
