"""The ``verbalize`` graph: turn a retrieval path into a narrative that cites its facts.

::

    prepare -> draft -> critique -> END (passed | budget spent)
                           ^   |
                           |   v
                           refine
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer, RetryPolicy

from citeloop.context import VerbalizeContext
from citeloop.grounding.critics import Critic
from citeloop.nodes.chat import DEFAULT_MODEL_RETRY
from citeloop.nodes.dual import DualNode
from citeloop.nodes.verbalize import VerbalizeNodes, route_after_critique, route_after_model
from citeloop.state.verbalize import InputState, OutputState, State


def build_verbalize_graph(
    model: BaseChatModel | str | None = None,
    *,
    critics: Sequence[Critic] = (),
    model_retry: RetryPolicy = DEFAULT_MODEL_RETRY,
    checkpointer: Checkpointer = None,
    name: str = "verbalize",
) -> CompiledStateGraph:
    """Build and compile the ``verbalize`` graph (critic/refiner loop over a path).

    Budget semantics: ``VerbalizeContext.max_iterations`` (default 2) counts the
    critiques that may fail; after a failed critique the loop refines only while
    fewer than ``max_iterations`` have failed. With 2: a first draft that passes costs
    1 model call (0 iterations used); passing after one refinement, 2 calls (1 used);
    never passing, 2 calls (2 used, ``passed`` false). An empty path passes without a
    model call.

    Args:
        model: A chat model, or a spec (``"provider:model"``, ``"replay:PATH"``)
            resolved now; when ``None``, ``VerbalizeContext.model`` is resolved at run
            time (one client per spec and process).
        critics: Extra critics ``(narrative, path) -> Critique``, run after the default
            :class:`~citeloop.grounding.FactIdCritic` (every fact id mentioned,
            boundary-aware); all must pass, and the feedback of those that fail is
            combined into the refinement prompt.
        model_retry: Retry policy of ``draft`` and ``refine`` for transient model errors.
        checkpointer: Persists threads; the caller's choice (``None``: no persistence).
        name: The compiled graph's name (shown in LangGraph Studio).

    Returns:
        The compiled graph: input ``InputState`` (``path``, as
        ``RetrievalPath.to_dict()``, and ``question``), output ``OutputState``
        (``narrative``, ``verbalization``), context ``VerbalizeContext``. Each run starts
        afresh: on a thread, nothing of an earlier run's output is reported as its own.

    Raises:
        ConfigurationError: A critic that is not callable.

    Example:
        >>> from citeloop.knowledge import EntityRef, PathHop, RetrievalPath
        >>> hop = PathHop(EntityRef("class", "B"), "f-1")
        >>> path = RetrievalPath(EntityRef("class", "A"), (hop,))
        >>> out = build_verbalize_graph().invoke(  # doctest: +SKIP
        ...     {"path": path.to_dict()}, context={"model": "openai:gpt-4o-mini"}
        ... )
        >>> out["verbalization"]["passed"]  # doctest: +SKIP
        True
    """
    nodes = VerbalizeNodes(model, critics, model_retry=model_retry)
    builder = StateGraph(
        State,
        input_schema=InputState,
        output_schema=OutputState,
        context_schema=VerbalizeContext,
    )
    # The model nodes have both a sync and an async body, so `invoke` works and
    # `ainvoke` never blocks the loop.
    draft = DualNode("draft", nodes.draft, nodes.adraft)
    refine = DualNode("refine", nodes.refine, nodes.arefine)
    builder.add_node("prepare", nodes.prepare)
    builder.add_node("draft", draft, retry_policy=model_retry)
    builder.add_node("critique", nodes.critique)
    builder.add_node("refine", refine, retry_policy=model_retry)
    builder.add_edge(START, "prepare")
    builder.add_edge("prepare", "draft")
    builder.add_conditional_edges("draft", route_after_model)
    builder.add_conditional_edges("critique", route_after_critique)
    builder.add_conditional_edges("refine", route_after_model)
    return builder.compile(checkpointer=checkpointer, name=name)


graph = build_verbalize_graph()
"""The graph registered in ``langgraph.json`` (the model comes from the context)."""
