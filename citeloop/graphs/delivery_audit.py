"""The ``delivery_audit`` graph: may this answer be shown to a user?

::

    mechanical_check -> semantic_audit -> verdict -> END
           |                  |             ^
           |                  v             |
           |            repair_review ------+      (exactly once)
           +--------------------------------+      (a mechanical failure decides)
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer, RetryPolicy

from citeloop.context import DeliveryAuditContext, GroundedAnswerContext
from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.knowledge import GraphStore
from citeloop.nodes.chat import DEFAULT_MODEL_RETRY, builder_model
from citeloop.nodes.delivery_audit import (
    DeliveryAuditNodes,
    GroundedAnswerAudit,
    route_after_audit,
    route_after_mechanical,
)
from citeloop.nodes.dual import DualNode, inline_router
from citeloop.state.delivery_audit import InputState, OutputState, State
from citeloop.state.delivery_audit import InputState as DeliveryInput
from citeloop.state.delivery_audit import OutputState as DeliveryOutput
from citeloop.state.grounded_answer import InputState as GroundedInput
from citeloop.state.grounded_answer import OutputState as GroundedOutput


def build_delivery_audit_graph(
    model: BaseChatModel | str | None = None,
    *,
    model_retry: RetryPolicy = DEFAULT_MODEL_RETRY,
    checkpointer: Checkpointer = None,
    name: str = "delivery_audit",
) -> CompiledStateGraph:
    """Build and compile the ``delivery_audit`` graph.

    Mechanical checks first (snapshot, evidence, scope, coverage, citations; no model);
    then the auditing model reviews every requirement of the request into a strict
    ``Fulfilment``; a review that does not parse or names unknown ids gets one repair;
    the verdict needs all four booleans true and every requirement answered with
    evidence or disclosed by a notice. A result that failed upstream is diagnosed into
    its stage's layer without checks. A successful model call alone never delivers.

    Args:
        model: The auditing chat model (it needs structured output, or answers in JSON
            text), or its spec, resolved now; when ``None``,
            ``DeliveryAuditContext.model`` is resolved at run time.
        model_retry: Retry policy of the model nodes for transient errors; a permanent
            error ends the audit with ``verification/verification_unavailable``.
        checkpointer: Persists threads; the caller's choice.
        name: The compiled graph's name (shown in LangGraph Studio).

    Returns:
        The compiled graph: input ``InputState`` (``result``, ``plan``, ``index``),
        output ``OutputState`` (``delivered``, ``delivery_outcome``, ``delivery_check``,
        ``failures``), context ``DeliveryAuditContext``.
    """
    nodes = DeliveryAuditNodes(model, model_retry=model_retry)
    builder = StateGraph(
        State,
        input_schema=InputState,
        output_schema=OutputState,
        context_schema=DeliveryAuditContext,
    )
    builder.add_node("mechanical_check", nodes.mechanical_check)
    audit = DualNode("semantic_audit", nodes.semantic_audit, nodes.asemantic_audit)
    repair = DualNode("repair_review", nodes.repair_review, nodes.arepair_review)
    builder.add_node("semantic_audit", audit, retry_policy=model_retry)
    builder.add_node("repair_review", repair, retry_policy=model_retry)
    builder.add_node("verdict", nodes.verdict)
    builder.add_edge(START, "mechanical_check")
    builder.add_conditional_edges("mechanical_check", *inline_router(route_after_mechanical))
    builder.add_conditional_edges("semantic_audit", *inline_router(route_after_audit))
    builder.add_edge("repair_review", "verdict")
    builder.add_edge("verdict", END)
    return builder.compile(checkpointer=checkpointer, name=name)


graph = build_delivery_audit_graph()
"""The graph registered in ``langgraph.json`` (the model comes from the context)."""


class _AuditedAnswer(GroundedInput, GroundedOutput, DeliveryInput, DeliveryOutput, total=False):
    """The state of :func:`build_audited_answer_graph`: both graphs' public keys."""


def build_audited_answer_graph(
    model: BaseChatModel | str | None = None,
    *,
    audit_model: BaseChatModel | str | None = None,
    store: GraphStore | None = None,
    checkpointer: Checkpointer = None,
    name: str = "audited_answer",
) -> CompiledStateGraph:
    """``grounded_answer``, then the delivery audit of its answer against the knowledge
    graph's facts (:func:`~citeloop.nodes.delivery_audit.audit_input_from_grounded`).

    ::

        grounded_answer -> prepare_audit -> delivery_audit -> END

    The auditing model is known before the answering call: a spec given to the builder
    is resolved now, and a model left to the context is the answering one, whose spec
    ``grounded_answer`` resolves before its first call. So a configuration error never
    costs an answer.

    Args:
        model: The answering chat model, or its spec, resolved now; when ``None``, the
            context's ``model`` (see :func:`build_grounded_answer_graph`).
        audit_model: The auditing chat model, or its spec, resolved now; when ``None``,
            the answering model: ``model``, else the context's ``model``.
        store: The knowledge graph; when ``None``, the context's ``db_path``.
        checkpointer: Persists threads; the caller's choice.
        name: The compiled graph's name.

    Returns:
        A compiled graph with context ``GroundedAnswerContext``; its output holds the
        answer (``answer``, ``report``, ``outcome``, ...) and the delivery verdict
        (``delivered``, ``delivery_outcome``, ``delivery_check``, ``failures``).

    Raises:
        ConfigurationError: ``model`` or ``audit_model`` is a spec that cannot be
            resolved, or no chat model.
    """
    answering = builder_model(model)
    auditing = answering if audit_model is None else builder_model(audit_model)
    builder = StateGraph(_AuditedAnswer, context_schema=GroundedAnswerContext)
    builder.add_node("grounded_answer", build_grounded_answer_graph(answering, store=store))
    builder.add_node("prepare_audit", GroundedAnswerAudit(store).prepare_audit)
    builder.add_node("delivery_audit", build_delivery_audit_graph(auditing))
    builder.add_edge(START, "grounded_answer")
    builder.add_edge("grounded_answer", "prepare_audit")
    builder.add_edge("prepare_audit", "delivery_audit")
    builder.add_edge("delivery_audit", END)
    return builder.compile(checkpointer=checkpointer, name=name)
