"""Delivery-check codes, the request fingerprint, and public failures.

A rejected result is shown to nobody: it becomes a :class:`DeliveryCheck` of codes
only (``layer``, ``code``, ``request_fingerprint``), never model or exception text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Literal, overload

from pydantic import BaseModel, ConfigDict

from citeloop.contract.schemas import AnswerResult

Layer = Literal[
    "scope",
    "evidence",
    "coverage",
    "answer",
    "verification",
    "fulfilment",
    "context",
    "planning",
    "retrieval",
    "service",
    "delivery",
]

MIXED_SNAPSHOT = ("scope", "mixed_snapshot")
"""The result's index version differs from the index."""
WRONG_SUBJECT = ("scope", "wrong_subject")
"""Evidence or claims about a subject outside the plan (not for relational questions)."""
WRONG_PERIOD = ("scope", "wrong_period")
"""Evidence or claims dated outside the plan's period."""
WRONG_SCOPE = ("scope", "wrong_scope")
"""Evidence or claims outside the plan's allowed values of an attribute."""
MISSING_EVIDENCE = ("evidence", "missing_evidence")
"""The intent requires evidence and the result has none."""
ALTERED_EVIDENCE = ("evidence", "altered_evidence")
"""A unit not in the index, or one whose immutable fields differ from the index's copy."""
MISSING_SUBJECT = ("coverage", "missing_subject")
"""A required subject with no evidence or claim, and no notice naming it."""
INVALID_CITATION = ("answer", "invalid_citation")
"""A source URL or citation outside the sources of the evidence."""
INVALID_REVIEW = ("verification", "invalid_review")
"""The audit's review did not parse, or referenced unknown ids, twice."""
VERIFICATION_UNAVAILABLE = ("verification", "verification_unavailable")
"""The auditing model could not be reached (a model or transport error)."""
REQUEST_NOT_FULFILLED = ("fulfilment", "request_not_fulfilled")
"""The review found the request not fulfilled (a false verdict, or a requirement
``unfulfilled`` or ``uncertain``, or one without what its status needs)."""
UNDISCLOSED_GAP = ("fulfilment", "undisclosed_gap")
"""The first failing requirement is ``missing_disclosed`` while no answer segment it
names carries a notice (source design 004): a gap the answer does not disclose."""

UNVERIFIABLE_LENGTH = ("verification", "unverifiable_length")
"""The question or the answer has more segments, or longer ones, than the audit can
show the model: what it cannot see it cannot verify (closed, never open)."""

STAGE_REASONS = frozenset(
    {
        "failed",
        "timeout",
        "unavailable",
        "rate_limited",
        "invalid_input",
        "no_results",
        "model_error",
        "citations_missing",
    }
)
"""The reason codes a failed result may carry into a public failure; any other reason
is reported as ``failed`` (a reason is input, and a public failure carries codes only)."""


class Failure(BaseModel):
    """One failed check: ``(layer, code)``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    layer: Layer
    code: str

    @classmethod
    def of(cls, pair: tuple[str, str]) -> Failure:
        return cls(layer=pair[0], code=pair[1])  # type: ignore[arg-type]


class DeliveryCheck(BaseModel):
    """The public result of a failed delivery check: codes only.

    Attributes:
        layer: The layer of the first failure (``scope``, ``evidence``, ...).
        code: Its code (``mixed_snapshot``, ...).
        request_fingerprint: :func:`request_fingerprint` of the request.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    layer: Layer
    code: str
    request_fingerprint: str


def request_fingerprint(engine: str, query: str) -> str:
    """SHA-256 hex digest of the canonical JSON of ``[engine, query.strip()]``.

    Canonical JSON: UTF-8, no whitespace between tokens, non-ASCII kept as is (RFC 8785
    for arrays of strings).

    Example:
        >>> request_fingerprint("citeloop", " Who? ") == request_fingerprint("citeloop", "Who?")
        True
    """
    canonical = json.dumps([engine, query.strip()], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def fingerprint(query: str, engine: str) -> str:
    """:func:`request_fingerprint` with the source design 004's argument order.

    Example:
        >>> fingerprint("Who?", "citeloop") == request_fingerprint("citeloop", "Who?")
        True
    """
    return request_fingerprint(engine, query)


CONTEXT_REASONS = frozenset({"invalid_context", "stale_context", "expired_context"})
"""Reasons of a result that failed in its context (source design 004, ``diagnose``)."""
RETRIEVAL_REASONS = frozenset({"retrieval_unavailable", "content_index_unavailable"})
"""Reasons of a result that failed in retrieval."""
VERIFICATION_REASONS = frozenset({"answer_rejected", "verification_unavailable"})
"""Reasons of a result that failed in verification."""
STATUS_CODES = {"ambiguous": "clarification_required", "no_answer": "evidence_not_found"}
"""The code of a result by its status, when its reason is not ``answer_rejected``."""


@overload
def diagnose(result: AnswerResult) -> Failure: ...
@overload
def diagnose(
    result: Mapping[str, Any] | AnswerResult, query: str, engine: str
) -> dict[str, Any]: ...
def diagnose(
    result: Mapping[str, Any] | AnswerResult, query: str | None = None, engine: str | None = None
) -> Failure | dict[str, Any]:
    """The failure of a result that failed upstream, in its stage's layer, without
    running any check.

    ``diagnose(result)`` takes an :class:`AnswerResult` whose status is ``failed`` and
    returns ``Failure(stage, reason)``, e.g. ``("retrieval", "timeout")``; a reason
    outside :data:`STAGE_REASONS` becomes ``failed``.

    ``diagnose(result, query, engine)`` is the source design 004's form: ``result`` is a
    mapping with ``status`` and ``reason`` (or an :class:`AnswerResult`, then dumped as
    JSON and diagnosed as above), and the return value is a copy of it with
    ``delivery_check = {"layer", "code", "request_fingerprint"}``. The layer is
    ``context`` for a reason in :data:`CONTEXT_REASONS`, else ``planning`` for status
    ``ambiguous``, else ``retrieval`` for status ``no_answer`` or a reason in
    :data:`RETRIEVAL_REASONS`, else ``verification`` for a reason in
    :data:`VERIFICATION_REASONS`, else ``service``. The code is
    ``request_not_fulfilled`` for reason ``answer_rejected``, else by status
    (:data:`STATUS_CODES`), else ``unavailable``. The fingerprint is
    :func:`fingerprint` ``(query, engine)``.

    Raises:
        ValueError: An :class:`AnswerResult` that did not fail.
        TypeError: Only one of ``query`` and ``engine``, or a ``result`` of another type.
    """
    if query is None and engine is None:
        if not isinstance(result, AnswerResult):
            raise TypeError("diagnose(result) takes an AnswerResult; pass query and engine too")
        return _stage_failure(result)
    if query is None or engine is None:
        raise TypeError("diagnose(result, query, engine) needs both query and engine")
    mark = fingerprint(query, engine)
    if isinstance(result, AnswerResult):
        failure = _stage_failure(result)
        check = {"layer": failure.layer, "code": failure.code, "request_fingerprint": mark}
        return {**result.model_dump(mode="json"), "delivery_check": check}
    if not isinstance(result, Mapping):
        raise TypeError(f"result must be a mapping or an AnswerResult, got {type(result).__name__}")
    reason, status = result.get("reason") or "", result.get("status")
    if reason in CONTEXT_REASONS:
        layer = "context"
    elif status == "ambiguous":
        layer = "planning"
    elif status == "no_answer" or reason in RETRIEVAL_REASONS:
        layer = "retrieval"
    elif reason in VERIFICATION_REASONS:
        layer = "verification"
    else:
        layer = "service"
    if reason == "answer_rejected":
        code = "request_not_fulfilled"
    else:
        code = STATUS_CODES.get(status, "unavailable") if isinstance(status, str) else "unavailable"
    return {**result, "delivery_check": {"layer": layer, "code": code, "request_fingerprint": mark}}


def _stage_failure(result: AnswerResult) -> Failure:
    if result.status != "failed" or result.failure is None:
        raise ValueError("diagnose() takes a result whose status is 'failed'")
    reason = result.failure.reason
    return Failure(layer=result.failure.stage, code=reason if reason in STAGE_REASONS else "failed")
