"""Delivery-check codes, the request fingerprint, and public failures.

A rejected result is shown to nobody: it becomes a :class:`DeliveryCheck` of codes
only (``layer``, ``code``, ``request_fingerprint``), never model or exception text.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

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


def diagnose(result: AnswerResult) -> Failure:
    """The failure of a result that failed upstream, in its stage's layer, without
    running any check: ``(stage, reason)``, e.g. ``("retrieval", "timeout")``; a reason
    outside :data:`STAGE_REASONS` becomes ``failed``.

    Raises:
        ValueError: ``result`` did not fail.
    """
    if result.status != "failed" or result.failure is None:
        raise ValueError("diagnose() takes a result whose status is 'failed'")
    reason = result.failure.reason
    return Failure(layer=result.failure.stage, code=reason if reason in STAGE_REASONS else "failed")
