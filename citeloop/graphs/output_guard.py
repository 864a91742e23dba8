"""The ``output_guard`` graph: any output checks around any prompt, re-asking within a
budget.

::

    prepare -> call_model -> validate -> END (passed | failed | exhausted | stalled)
                   ^             |
                   |             v
                build_retry_prompt
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer, RetryPolicy

from citeloop.checks.check import Check
from citeloop.context import OutputGuardContext
from citeloop.nodes.chat import DEFAULT_MODEL_RETRY
from citeloop.nodes.dual import DualNode, inline_router
from citeloop.nodes.output_guard import OutputGuardNodes, route_after_model, route_after_validate
from citeloop.state.output_guard import InputState, OutputState, State


def build_output_guard_graph(
    model: BaseChatModel | str | None = None,
    *,
    checks: Sequence[Check] | None = None,
    model_retry: RetryPolicy = DEFAULT_MODEL_RETRY,
    checkpointer: Checkpointer = None,
    name: str = "output_guard",
) -> CompiledStateGraph:
    """Build and compile the ``output_guard`` graph.

    Each check's failure policy decides what a failure does (Guardrails' vocabulary):
    ``reask`` asks again with every problem, its expected shape and its fix;
    ``fix`` applies the check's fixed text; ``fix_reask`` applies it when it passes and
    asks again otherwise; ``exception`` raises :class:`citeloop.ValidationError` out of
    the run; ``noop`` records the failure. The loop ends on a pass; with outcome
    ``failed`` when only non-re-asking checks failed; ``exhausted`` after
    ``1 + max_retries`` model calls; ``stalled`` as soon as the model repeats an output
    that already failed (asking again would not help); ``error`` on a model failure.
    Tokens across attempts are summed in ``tokens``.

    Args:
        model: A chat model, or a spec (``"provider:model"``, ``"replay:PATH"``)
            resolved now; when ``None``, ``OutputGuardContext.model`` is resolved at run
            time (one client per spec and process).
        checks: The checks, in order (later ones see earlier fixes). ``None``: built
            from the context's ``mode``, ``json_schema``, ``required_sections``,
            ``on_topic_signals`` and ``check_repetition`` for each run.
        model_retry: Retry policy of ``call_model`` for transient model errors.
        checkpointer: Persists threads; the caller's choice (``None``: no persistence).
        name: The compiled graph's name (shown in LangGraph Studio).

    Returns:
        The compiled graph: input ``InputState`` (``task``, ``system_prompt``,
        ``messages``), output ``OutputState``, context ``OutputGuardContext``.

    Raises:
        ConfigurationError: ``checks`` is not a list (one ``Check`` alone, a string, a
            mapping, a set), or an item of it is not a ``Check``.

    Example:
        >>> from citeloop.checks import json_check
        >>> graph = build_output_guard_graph(checks=[json_check()])
        >>> out = graph.invoke(  # doctest: +SKIP
        ...     {"task": "List three primes as a JSON array."},
        ...     context={"model": "openai:gpt-4o-mini", "max_retries": 2},
        ... )
    """
    nodes = OutputGuardNodes(model, checks, model_retry=model_retry)
    builder = StateGraph(
        State,
        input_schema=InputState,
        output_schema=OutputState,
        context_schema=OutputGuardContext,
    )
    builder.add_node("prepare", nodes.prepare)
    # Both a sync and an async body, so `invoke` works and `ainvoke` never blocks the loop.
    call_model = DualNode("call_model", nodes.call_model, nodes.acall_model)
    builder.add_node("call_model", call_model, retry_policy=model_retry)
    builder.add_node("validate", nodes.validate)
    builder.add_node("build_retry_prompt", nodes.build_retry_prompt)
    builder.add_edge(START, "prepare")
    builder.add_edge("prepare", "call_model")
    builder.add_conditional_edges("call_model", *inline_router(route_after_model))
    builder.add_conditional_edges("validate", *inline_router(route_after_validate))
    builder.add_edge("build_retry_prompt", "call_model")
    return builder.compile(checkpointer=checkpointer, name=name)


graph = build_output_guard_graph()
"""The graph registered in ``langgraph.json`` (model and checks come from the context)."""
