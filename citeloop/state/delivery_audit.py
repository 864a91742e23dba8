"""State schemas of the ``delivery_audit`` graph.

``InputState`` and ``OutputState`` are what a caller or a parent graph sees; ``State``
adds the working keys the nodes share. The public output carries codes only, never
model or exception text.
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import TypedDict  # pydantic needs it for JSON schemas on Python < 3.12

DeliveryOutcome = Literal["complete", "partial", "rejected"]


class InputState(TypedDict, total=False):
    """What a run starts from (JSON documents of the ``citeloop.contract`` models).

    Attributes:
        result: The result to check (``AnswerResult``).
        plan: How the question was understood (``Plan``).
        index: The evidence the result may use (``EvidenceIndex``).
    """

    result: dict[str, Any]
    plan: dict[str, Any]
    index: dict[str, Any]


class DeliveryCheckState(TypedDict):
    """The public failure: ``layer``, ``code`` and ``request_fingerprint``."""

    layer: str
    code: str
    request_fingerprint: str


class OutputState(TypedDict, total=False):
    """What a run returns.

    Attributes:
        delivered: Whether the answer may be shown.
        delivery_outcome: ``complete``; ``partial`` (a requirement's absence is
            disclosed by a notice); or ``rejected``.
        delivery_check: For a rejected result, the first failure with the request
            fingerprint; ``None`` when delivered.
        failures: Every failure found, as ``{"layer", "code"}``, in check order.
    """

    delivered: bool
    delivery_outcome: DeliveryOutcome
    delivery_check: DeliveryCheckState | None
    failures: list[dict[str, str]]


class State(InputState, OutputState, total=False):
    """The graph's internal state.

    Attributes:
        review: The auditor's review (``Fulfilment`` fields), or ``None``.
        review_reply: The auditor's first reply as it came (parsed arguments or text),
            for the repair prompt and the no-flip rule.
        review_problems: Why the review cannot be used yet (for the repair prompt only).
        audit_failure: The audit's own failure (``{"layer", "code"}``), or ``None``.
    """

    review: dict[str, Any] | None
    review_reply: dict[str, Any] | str | None
    review_problems: list[str]
    audit_failure: dict[str, str] | None
