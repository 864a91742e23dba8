"""The ``grounded_answer`` graph: inject context, answer, validate, widen and re-ask.

::

    inject_context -> call_model -> validate -> END (passed | retries or tokens spent)
                          ^   |         |
                          |   v         v
                          |  END   expand_context   (call_model ends on an error, or
                          |             |            before a call over the token budget)
                          |             v
                          +---- build_retry_prompt -> END (the widened context makes
                                                           the previous answer pass)
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer, RetryPolicy

from citeloop.checks.check import Check
from citeloop.context import GroundedAnswerContext
from citeloop.knowledge import ContextInjector, GraphStore
from citeloop.nodes.chat import DEFAULT_MODEL_RETRY
from citeloop.nodes.dual import DualNode, inline_router
from citeloop.nodes.grounded_answer import (
    GroundedAnswerNodes,
    route_after_model,
    route_after_retry_prompt,
    route_after_validate,
)
from citeloop.state.grounded_answer import InputState, OutputState, State


def build_grounded_answer_graph(
    model: BaseChatModel | str | None = None,
    *,
    store: GraphStore | None = None,
    checks: Sequence[Check] = (),
    model_retry: RetryPolicy = DEFAULT_MODEL_RETRY,
    checkpointer: Checkpointer = None,
    name: str = "grounded_answer",
    injector: ContextInjector | None = None,
) -> CompiledStateGraph:
    """Build and compile the ``grounded_answer`` graph.

    Args:
        model: A chat model, or a spec (``"provider:model"``, ``"replay:PATH"``)
            resolved now; when ``None``, ``GroundedAnswerContext.model`` is resolved at run
            time (one client per spec and process).
        store: A knowledge-graph store; when ``None``, ``GroundedAnswerContext.db_path``
            is opened at run time.
        checks: Output checks (:class:`citeloop.checks.Check`) run by ``validate``
            before the context validation, with their failure policies: fixes apply to
            the answer; failures of ``reask``/``fix_reask`` checks fail it, and their
            problems join the retry prompt; ``exception`` raises; ``noop`` is recorded.
            The report lists them under ``checks`` (and ``context_passed`` is the
            context validation's own verdict).
        model_retry: Retry policy of ``call_model`` for transient model errors; its
            ``retry_on`` should be :func:`citeloop.models.is_transient_model_error`.
        checkpointer: Persists threads; the caller's choice (``None``: no persistence).
        name: The compiled graph's name (shown in LangGraph Studio).
        injector: A :class:`~citeloop.knowledge.ContextInjector` that builds every
            context of a run (its store replaces ``store``; the context's ``hops``,
            ``max_context_tokens`` and ``max_entities`` are then its own, not the
            runtime context's).

    Returns:
        The compiled graph: input ``InputState``, output ``OutputState``, context
        ``GroundedAnswerContext``.

    Raises:
        ConfigurationError: If ``model`` is a spec that cannot be resolved,
            ``injector`` has no ``store`` or no ``inject`` (a retriever goes into the
            injector: ``ContextInjector(store, retriever=...)``), or ``checks`` is not a
            list of ``Check`` objects (one ``Check`` alone is refused: pass ``[check]``).

    Example:
        >>> graph = build_grounded_answer_graph()
        >>> out = graph.invoke(  # doctest: +SKIP
        ...     {"task": "How does StateGraph.compile work?"},
        ...     context={"model": "openai:gpt-4o-mini", "db_path": "langgraph.db"},
        ... )
    """
    nodes = GroundedAnswerNodes(
        model, store, checks=checks, model_retry=model_retry, injector=injector
    )
    builder = StateGraph(
        State,
        input_schema=InputState,
        output_schema=OutputState,
        context_schema=GroundedAnswerContext,
    )
    # Under `ainvoke`, LangGraph runs a plain function node in a worker thread: the
    # nodes that read the graph (inject_context, expand_context) stay off the event
    # loop that way. validate and build_retry_prompt, which look names up in it and run
    # the user's checks, which may do I/O, have async bodies that run them in a worker
    # thread too, but for a short answer once the names are read (a thread costs more
    # than its judging). The model call has an async body; the routers only read the
    # state, so they run on the event loop (`inline_router`).
    builder.add_node("inject_context", nodes.inject_context)
    builder.add_node(
        "call_model",
        DualNode("call_model", nodes.call_model, nodes.acall_model),
        retry_policy=model_retry,
    )
    builder.add_node("validate", DualNode("validate", nodes.validate, nodes.avalidate))
    builder.add_node("expand_context", nodes.expand_context)
    builder.add_node(
        "build_retry_prompt",
        DualNode("build_retry_prompt", nodes.build_retry_prompt, nodes.abuild_retry_prompt),
    )
    builder.add_edge(START, "inject_context")
    builder.add_edge("inject_context", "call_model")
    builder.add_conditional_edges("call_model", *inline_router(route_after_model))
    builder.add_conditional_edges("validate", *inline_router(route_after_validate))
    builder.add_edge("expand_context", "build_retry_prompt")
    builder.add_conditional_edges("build_retry_prompt", *inline_router(route_after_retry_prompt))
    return builder.compile(checkpointer=checkpointer, name=name)


graph = build_grounded_answer_graph()
"""The graph registered in ``langgraph.json`` (model and store come from the context)."""
