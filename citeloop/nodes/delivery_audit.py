"""Nodes and routers of the ``delivery_audit`` graph.

``mechanical_check`` runs the deterministic checks (no model); ``semantic_audit`` asks
the auditing model for a structured review; ``repair_review`` gives a review that does
not parse, or names unknown ids, exactly one format-repair retry; ``verdict`` turns it
all into codes. No model or exception text ever reaches the output.

A model with structured output (``with_structured_output`` works) gets the strict review
schema as its tool; a model without it (``with_structured_output`` raises
``NotImplementedError``) answers in JSON text, and its audit and repair prompts carry
the review's JSON Schema (:data:`~citeloop.contract.audit_payload.REVIEW_JSON_SCHEMA`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from langgraph.runtime import Runtime, get_runtime
from langgraph.types import RetryPolicy
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from citeloop.context import DeliveryAuditContext, GroundedAnswerContext, resolve_context
from citeloop.contract.audit_payload import (
    REVIEW_JSON_SCHEMA,
    AuditPayload,
    audit_messages,
    build_payload,
    repair_messages,
)
from citeloop.contract.codes import (
    INVALID_REVIEW,
    UNVERIFIABLE_LENGTH,
    VERIFICATION_UNAVAILABLE,
    Failure,
    diagnose,
    request_fingerprint,
)
from citeloop.contract.graph_evidence import evidence_from_graph
from citeloop.contract.mechanical import mechanical_checks
from citeloop.contract.review import parse_review, repair_flips_negative, verdict
from citeloop.contract.schemas import (
    AnswerResult,
    EvidenceIndex,
    Fulfilment,
    Intent,
    Plan,
    StageFailure,
    strict_json_schema,
)
from citeloop.errors import ConfigurationError
from citeloop.knowledge import GraphStore
from citeloop.knowledge.store import batched
from citeloop.nodes.chat import (
    achat_model,
    builder_model,
    chat_model,
    last_human_text,
    model_failure,
)
from citeloop.nodes.graph_files import open_graph
from citeloop.nodes.grounded_answer import RUN_INPUTS_CLEARED
from citeloop.state.delivery_audit import State

_ROLES = {"system": SystemMessage, "human": HumanMessage}
_REVIEW_SCHEMA = strict_json_schema(Fulfilment)


def settings(runtime: Runtime[DeliveryAuditContext]) -> DeliveryAuditContext:
    """The run's context (see :func:`citeloop.context.resolve_context`)."""
    return resolve_context(runtime.context, DeliveryAuditContext)


def _parsed(state: State, key: str, model: type[BaseModel]) -> Any:
    value = state.get(key)
    if value is None:
        raise ConfigurationError(
            f"delivery_audit needs '{key}': a {model.__name__} JSON object "
            "(see citeloop.contract.schemas)"
        )
    if isinstance(value, model):
        return value
    try:
        return model.model_validate(value)
    except PydanticValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, error['loc'])) or '(top)'}: {error['msg']}"
            for error in exc.errors()[:10]
        )
        raise ConfigurationError(f"'{key}' is not a valid {model.__name__}: {problems}") from None


def inputs_of(state: State) -> tuple[AnswerResult, Plan, EvidenceIndex]:
    """The run's result, plan and index, validated.

    Raises:
        ConfigurationError: One is missing or invalid (the message names its fields).
    """
    return (*_result_and_plan(state), _parsed(state, "index", EvidenceIndex))


def _result_and_plan(state: State) -> tuple[AnswerResult, Plan]:
    """The result and the plan: all the audit needs after ``mechanical_check`` (which
    alone reads the index, possibly large)."""
    return _parsed(state, "result", AnswerResult), _parsed(state, "plan", Plan)


def _code(failure: Failure | tuple[str, str]) -> dict[str, str]:
    failure = failure if isinstance(failure, Failure) else Failure.of(failure)
    return {"layer": failure.layer, "code": failure.code}


def _messages(pairs: list[tuple[str, str]]) -> list[BaseMessage]:
    return [_ROLES[role](content) for role, content in pairs]


MessageBuilder = Callable[[str | None], list[BaseMessage]]
"""Builds a model call's messages; its argument is the review's JSON Schema to show (a
model without structured output), or ``None`` (structured output carries it)."""


def _structured(model: BaseChatModel) -> Runnable[Any, Any] | None:
    """``model`` with structured output into the review, or ``None`` when it has none."""
    try:
        return model.with_structured_output(_REVIEW_SCHEMA, include_raw=True, strict=True)
    except NotImplementedError:
        return None


class DeliveryAuditNodes:
    """The nodes of one compiled ``delivery_audit`` graph.

    Args:
        model: The auditing chat model; overrides ``DeliveryAuditContext.model``.
        model_retry: The model nodes' retry policy: an error it retries is re-raised
            while attempts are left; any other error, or the last attempt's, ends the run.
    """

    def __init__(
        self, model: BaseChatModel | str | None = None, *, model_retry: RetryPolicy | None = None
    ):
        self.model = builder_model(model)
        self.model_retry = model_retry

    def _chat_model(self) -> BaseChatModel:
        return chat_model(self.model, settings(get_runtime()).model)

    def mechanical_check(self, state: State) -> dict[str, Any]:
        """Validate the inputs and run the mechanical checks; a result that failed
        upstream is diagnosed into its stage's layer without checks.

        Raises:
            ConfigurationError: A missing or invalid input, or a model spec that cannot
                be resolved (before any model call).
        """
        result, plan, index = inputs_of(state)
        reset: dict[str, Any] = {
            "review": None,
            "review_reply": None,
            "review_problems": [],
            "audit_failure": None,
        }
        if result.status == "failed":
            return {**reset, "failures": [_code(diagnose(result))]}
        failures = [_code(failure) for failure in mechanical_checks(result, plan, index)]
        if not failures and build_payload(result, plan).segments_cut:
            failures.append(_code(UNVERIFIABLE_LENGTH))
        if not failures:
            self._chat_model()  # a bad model spec fails here, before any call
        return {**reset, "failures": failures}

    def _payload(self, state: State) -> AuditPayload:
        return build_payload(*_result_and_plan(state))

    def _reply(self, build: MessageBuilder) -> Any:
        """The review as structured output; a model without it answers in JSON text, and
        its messages show the review's JSON Schema (``build(REVIEW_JSON_SCHEMA)``)."""
        model = self._chat_model()
        structured = _structured(model)
        if structured is None:
            return model.invoke(build(REVIEW_JSON_SCHEMA)).text
        return _unpack(structured.invoke(build(None)))

    async def _areply(self, build: MessageBuilder) -> Any:
        model = await achat_model(self.model, settings(get_runtime()).model)
        structured = _structured(model)
        if structured is None:
            return (await model.ainvoke(build(REVIEW_JSON_SCHEMA))).text
        return _unpack(await structured.ainvoke(build(None)))

    @staticmethod
    def _audit_messages(payload: AuditPayload) -> MessageBuilder:
        return lambda schema: _messages(audit_messages(payload, schema=schema))

    def _unavailable(self, exc: Exception) -> dict[str, Any]:
        model_failure(exc, self.model_retry)  # re-raises a transient error to retry
        return {"audit_failure": _code(VERIFICATION_UNAVAILABLE), "review_problems": []}

    def _audited(self, reply: Any, payload: AuditPayload) -> dict[str, Any]:
        review, problems = parse_review(reply, payload)
        return {
            "review": review.model_dump() if review is not None else None,
            "review_reply": _json_ready(reply),
            "review_problems": problems,
        }

    def semantic_audit(self, state: State) -> dict[str, Any]:
        """Ask the auditing model for a review of the result (sync variant; see
        :meth:`asemantic_audit`). A model or transport error:
        ``verification/verification_unavailable``."""
        payload = self._payload(state)
        try:
            reply = self._reply(self._audit_messages(payload))
        except Exception as exc:
            return self._unavailable(exc)
        return self._audited(reply, payload)

    async def asemantic_audit(self, state: State) -> dict[str, Any]:
        """Async variant of :meth:`semantic_audit`."""
        payload = self._payload(state)
        try:
            reply = await self._areply(self._audit_messages(payload))
        except Exception as exc:
            return self._unavailable(exc)
        return self._audited(reply, payload)

    def _repair_messages(self, state: State, payload: AuditPayload) -> MessageBuilder:
        previous = state.get("review") or state.get("review_reply") or ""
        problems = state["review_problems"]
        return lambda schema: _messages(repair_messages(payload, previous, problems, schema=schema))

    def _repaired(self, state: State, reply: Any, payload: AuditPayload) -> dict[str, Any]:
        before = state.get("review")
        review, problems = parse_review(reply, payload)
        first = Fulfilment.model_validate(before) if before is not None else None
        flipped = review is not None and repair_flips_negative(
            first, review, state.get("review_reply")
        )
        if problems or review is None or flipped:
            return {"audit_failure": _code(INVALID_REVIEW), "review_problems": problems}
        return {"review": review.model_dump(), "review_problems": []}

    def repair_review(self, state: State) -> dict[str, Any]:
        """The one format-repair retry; its instruction forbids changing a negative
        verdict, and a repair that does is refused. Still unusable:
        ``verification/invalid_review``. Sync variant; see :meth:`arepair_review`."""
        payload = self._payload(state)
        try:
            reply = self._reply(self._repair_messages(state, payload))
        except Exception as exc:
            return self._unavailable(exc)
        return self._repaired(state, reply, payload)

    async def arepair_review(self, state: State) -> dict[str, Any]:
        """Async variant of :meth:`repair_review`."""
        payload = self._payload(state)
        try:
            reply = await self._areply(self._repair_messages(state, payload))
        except Exception as exc:
            return self._unavailable(exc)
        return self._repaired(state, reply, payload)

    def verdict(self, state: State) -> dict[str, Any]:
        """Decide: the first mechanical failure, else the audit's failure, else the
        review's verdict. A rejection carries ``{layer, code, request_fingerprint}``."""
        result, plan = _result_and_plan(state)
        failures = list(state.get("failures") or [])
        failure = failures[0] if failures else state.get("audit_failure")
        outcome = None
        if failure is None:
            review = Fulfilment.model_validate(state["review"])
            decided = verdict(review, build_payload(result, plan))
            if decided.passed:
                outcome = decided.outcome
            else:
                assert decided.failure is not None
                failure = _code(decided.failure)
        if failure is not None and failure not in failures:
            failures.append(failure)
        if outcome is not None:
            return {
                "delivered": True,
                "delivery_outcome": outcome,
                "delivery_check": None,
                "failures": failures,
            }
        assert failure is not None
        fingerprint = request_fingerprint(result.engine, plan.question)
        return {
            "delivered": False,
            "delivery_outcome": "rejected",
            "delivery_check": {**failure, "request_fingerprint": fingerprint},
            "failures": failures,
        }


def _json_ready(reply: Any) -> Any:
    """A reply as JSON-ready state (checkpointers serialise it): a mapping or text."""
    if isinstance(reply, Mapping):
        return json.loads(json.dumps(reply, default=str))
    return reply if isinstance(reply, str) else str(reply)


def _unpack(output: Mapping[str, Any]) -> Any:
    """The review from ``with_structured_output(..., include_raw=True)``: the parsed
    arguments, else the raw tool-call arguments or text (so that the repair prompt can
    show what came back)."""
    if output.get("parsed") is not None:
        return output["parsed"]
    raw = output.get("raw")
    tool_calls = getattr(raw, "tool_calls", None) or []
    if tool_calls:
        return tool_calls[0].get("args", {})
    return getattr(raw, "text", "") or ""


def route_after_mechanical(state: State) -> Literal["semantic_audit", "verdict"]:
    """A failure found without the model decides; otherwise audit."""
    return "verdict" if state.get("failures") else "semantic_audit"


def route_after_audit(state: State) -> Literal["repair_review", "verdict"]:
    """One repair for a review that cannot be used; otherwise decide."""
    if state.get("review_problems") and not state.get("audit_failure"):
        return "repair_review"
    return "verdict"


GROUNDED_ENGINE = "citeloop.grounded_answer"
"""The ``engine`` of results audited from ``grounded_answer`` (part of the fingerprint)."""

OUTCOME_FAILURES = {
    "error": StageFailure(stage="service", reason="model_error"),
    "exhausted": StageFailure(stage="verification", reason="citations_missing"),
    "budget_exhausted": StageFailure(stage="verification", reason="citations_missing"),
}
"""How a ``grounded_answer`` run that did not pass failed, by its outcome: a model error
in the ``service`` stage; an answer that failed grounding when the retries or the token
budget were spent, in ``verification``. Any other outcome but ``passed`` (none, or one
this table does not know) is ``verification/failed``: only a pass is audited."""
_UNPASSED = StageFailure(stage="verification", reason="failed")


def audit_input_from_grounded(
    state: Mapping[str, Any], store: GraphStore, *, source_root: str | Path | None = None
) -> dict[str, Any]:
    """The ``delivery_audit`` input for a ``grounded_answer`` output state.

    The evidence index holds the knowledge graph's facts about the context entities,
    at the store's current snapshot, each with the signatures and docstrings of the
    entities it joins and, with ``source_root``, the source lines of its provenance
    (:func:`~citeloop.contract.graph_evidence.evidence_from_graph`), so the auditor can check
    what the answer says the code does, not only which entities it names. The result's
    evidence is the facts between them (those its context held), and its index
    version is the snapshot the context was read from, so a graph re-indexed in between
    is a ``scope/mixed_snapshot``. Only an answer whose outcome is ``passed`` is
    audited; any other is a failed result, diagnosed without the auditing model
    (:data:`OUTCOME_FAILURES`): outcome ``error`` failed in the ``service`` stage
    (``model_error``); ``exhausted`` and ``budget_exhausted`` (retries or tokens spent,
    the answer still failing grounding) in ``verification`` (``citations_missing``);
    no outcome, or an unknown one, in ``verification`` (``failed``). The plan is
    relational: code questions connect entities.

    Args:
        state: ``task`` (else the last human message of ``messages``), ``answer``,
            ``outcome``, ``context_entities`` and ``snapshot`` of a ``grounded_answer``
            run.
        store: The knowledge graph the run read.
        source_root: The folder the graph was indexed from, for source lines; ``None``
            for none (the graph does not record it).

    Returns:
        ``{"result", "plan", "index"}`` as JSON documents.

    Raises:
        ConfigurationError: ``source_root`` is not a directory.
    """
    # A chat agent passes messages: then the task is the last human one.
    task = (state.get("task") or "").strip() or last_human_text(state.get("messages"))
    ids = [entity["id"] for entity in state.get("context_entities") or [] if entity.get("id")]
    found = batched(store).get_entities(ids)
    known = [entity_id for entity_id in ids if entity_id in found]
    index = evidence_from_graph(store, entity_ids=known, source_root=source_root)
    shown = set(known)
    evidence = [
        unit
        for unit in index.units.values()
        if unit.attributes.get("subject_id") in shown and unit.attributes.get("object_id") in shown
    ]
    outcome = state.get("outcome")
    failure = None if outcome == "passed" else OUTCOME_FAILURES.get(outcome or "", _UNPASSED)
    result = AnswerResult(
        status="failed" if failure else "ok",
        engine=GROUNDED_ENGINE,
        answer=state.get("answer") or "",
        answer_kind="text",
        evidence=evidence,
        index_version=state.get("snapshot") or "",
        failure=failure,
    )
    question = task.strip() or "(no task)"
    plan = Plan(
        question=question,
        resolved_question=question,
        intent=Intent(kind="code_question", evidence_required=True),
        relational=True,
    )
    return {
        "result": result.model_dump(mode="json"),
        "plan": plan.model_dump(mode="json"),
        "index": index.model_dump(mode="json"),
    }


class GroundedAnswerAudit:
    """The node that turns a ``grounded_answer`` output into a ``delivery_audit`` input.

    Args:
        store: The knowledge graph; when ``None``, the context's ``db_path`` is opened
            (read-only), as ``grounded_answer`` does.
        source_root: The folder the graph was indexed from: the evidence then shows the
            source lines of each fact (:func:`audit_input_from_grounded`); ``None``: the
            folder the graph file recorded when it was indexed
            (``SqliteGraphStore.source_root()``), when it still exists, else signatures
            and docstrings only.
    """

    def __init__(
        self, store: GraphStore | None = None, *, source_root: str | Path | None = None
    ) -> None:
        self.store = store
        self.source_root = source_root

    def prepare_audit(
        self, state: Mapping[str, Any], runtime: Runtime[GroundedAnswerContext]
    ) -> dict[str, Any]:
        """Build the audit's ``result``, ``plan`` and ``index`` from the answer, and
        clear the run's ``task``, ``payload`` and ``system_prompt`` in the parent's
        state, as ``grounded_answer`` does in its own (whose output does not carry
        them): on a thread, the next turn's task is its own input's or its last human
        message, never this turn's."""
        store = self.store
        if store is None:
            ctx = resolve_context(runtime.context, GroundedAnswerContext)
            store = open_graph(ctx.db_path)
        source_root = self.source_root
        if source_root is None:
            # A graph file knows the folder it was indexed from; quote it when it is there.
            indexed = getattr(store, "source_root", None)
            found = indexed() if callable(indexed) else None
            source_root = found if isinstance(found, Path) and found.is_dir() else None
        audit = audit_input_from_grounded(state, store, source_root=source_root)
        return {**audit, **RUN_INPUTS_CLEARED}
