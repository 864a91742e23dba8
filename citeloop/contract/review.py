"""The semantic audit's review: whether the auditing model's reply is a valid review, and
what a valid one decides.

Pure functions, no model call; the steps of the audit are listed in
:mod:`citeloop.contract.audit_payload`, which builds what the model is shown.

- :func:`parse_review`: the reply as a :class:`~citeloop.contract.schemas.Fulfilment`,
  and the problems a format repair should mend.
- :func:`repair_flips_negative` (with :func:`is_negative` and :func:`reply_negative`):
  whether a repaired review turned a negative judgement positive.
- :func:`verdict`: passed with outcome ``complete`` or ``partial``, or
  ``fulfilment/request_not_fulfilled``; :meth:`Verdict.rejected` makes the verdicts of
  the steps that fail before it.

**Ids.** :func:`parse_review` validates a review strictly (pydantic strict mode, no
extra keys, the schema's length limits) and checks that every ``Q``, ``A`` and ``E`` id
it references is in the payload. Its problems are plain strings for the repair prompt
only: they never reach a public result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from citeloop.contract.audit_payload import AuditPayload, capped_problems
from citeloop.contract.codes import REQUEST_NOT_FULFILLED, UNDISCLOSED_GAP, Failure
from citeloop.contract.mechanical import name_key
from citeloop.contract.schemas import Fulfilment, error_path

BOOLEANS = ("plan_matches_request", "all_requirements_identified", "facts_supported", "clear")
"""The review's verdicts; each must be true."""
NEGATIVE_STATUSES = frozenset({"unfulfilled", "uncertain"})
"""Statuses that fail the verdict."""


# --- the review --------------------------------------------------------------------------


def _unfence(text: str) -> str:
    """``text`` without one Markdown code fence around it (```` ```json ... ``` ````)."""
    text = text.strip()
    if text.startswith("```") and text.endswith("```") and "\n" in text:
        return text[text.index("\n") + 1 : -3]
    return text


def _short(ident: object) -> str:
    text = str(ident)
    return repr(text if len(text) <= 40 else text[:37] + "...")


def parse_review(
    raw: Mapping[str, Any] | str | Fulfilment | object, payload: AuditPayload
) -> tuple[Fulfilment | None, list[str]]:
    """Validate a reply as a :class:`Fulfilment` and check its ids against ``payload``.

    A mapping is validated in pydantic's strict mode (no coercion: ``1`` is not a
    boolean), a string as JSON (strict; one Markdown code fence around it is removed),
    a :class:`Fulfilment` is taken as it is. Then every ``question_segments``,
    ``answer_segments`` and ``evidence_ids`` entry of every requirement must be an id of
    the payload (``Q``, ``A`` and ``E`` ids respectively, exactly as written).

    Args:
        raw: The model's reply.
        payload: The payload it reviewed.

    Returns:
        ``(review, [])`` for a valid review. ``(None, problems)`` when it does not parse;
        ``(review, problems)`` when it parses but names unknown ids: *not* valid, but
        returned so that :func:`repair_flips_negative` can compare the repair with it.
        Problems are plain strings for
        :func:`~citeloop.contract.audit_payload.repair_messages` (at most
        :data:`~citeloop.contract.audit_payload.MAX_PROBLEMS` and one line counting the
        rest), never for a public result.
    """
    try:
        if isinstance(raw, Fulfilment):
            review = raw
        elif isinstance(raw, str):
            review = Fulfilment.model_validate_json(_unfence(raw), strict=True)
        elif isinstance(raw, Mapping):
            review = Fulfilment.model_validate(dict(raw), strict=True)
        else:
            return None, [f"the review is a {type(raw).__name__}, not a JSON object"]
    except ValidationError as error:
        errors = error.errors(include_url=False, include_input=False, include_context=False)
        return None, capped_problems(
            [f"{error_path(e['loc'], 'review')}: {e['msg']}" for e in errors]
        )
    known = (
        ("question_segments", payload.question_segments),
        ("answer_segments", payload.answer_segments),
        ("evidence_ids", payload.evidence),
    )
    problems = [
        f"requirements[{index}].{name}: unknown id {_short(ident)}"
        for index, requirement in enumerate(review.requirements)
        for name, ids in known
        for ident in getattr(requirement, name)
        if ident not in ids
    ]
    return review, capped_problems(problems)


def is_negative(review: Fulfilment) -> bool:
    """Whether ``review`` itself says no: a false boolean, or a requirement that is
    ``unfulfilled`` or ``uncertain``."""
    return not all(getattr(review, name) for name in BOOLEANS) or any(
        requirement.status in NEGATIVE_STATUSES for requirement in review.requirements
    )


def reply_negative(reply: Any) -> bool:
    """Whether a reply that did not parse as a review shows a negative judgement: a
    boolean of :data:`BOOLEANS` that is false (or ``"false"``), a requirement status in
    :data:`NEGATIVE_STATUSES`, or, in text, the words ``false``, ``unfulfilled`` or
    ``uncertain``. A repair of such a reply may not be positive (closed, never open)."""
    if isinstance(reply, Mapping):
        flags = [reply.get(name) for name in BOOLEANS if name in reply]
        statuses = [
            item.get("status")
            for item in reply.get("requirements") or []
            if isinstance(item, Mapping)
        ]
        return any(flag in (False, "false", 0) for flag in flags) or any(
            status in NEGATIVE_STATUSES for status in statuses
        )
    if isinstance(reply, str):
        return re.search(r"\b(?:false|unfulfilled|uncertain)\b", reply, re.IGNORECASE) is not None
    return False


def repair_flips_negative(
    before: Fulfilment | None, after: Fulfilment, first_reply: Any = None
) -> bool:
    """Whether a repaired review turned a negative judgement of the first one positive.

    The repair prompt forbids it; this enforces it. It is a flip when a boolean false in
    ``before`` is true in ``after``, or when the requirement at the position of an
    ``unfulfilled`` or ``uncertain`` one of ``before`` is missing from ``after`` or is
    ``answered`` or ``missing_disclosed`` (the prompt asks for the same order, so a
    reordered repair counts as a flip: closed, never open). ``unfulfilled`` becoming
    ``uncertain`` (or back) is no flip: the verdict fails either way. When the first
    reply did not parse (``before`` is ``None``), its raw ``first_reply`` may still have
    said no (:func:`reply_negative`): then a repair that is not negative
    (:func:`is_negative`) is a flip. A flip makes the audit
    ``verification/invalid_review``.
    """
    if before is None:
        return reply_negative(first_reply) and not is_negative(after)
    if any(not getattr(before, name) and getattr(after, name) for name in BOOLEANS):
        return True
    return any(
        requirement.status in NEGATIVE_STATUSES
        and (
            index >= len(after.requirements)
            or after.requirements[index].status not in NEGATIVE_STATUSES
        )
        for index, requirement in enumerate(before.requirements)
    )


# --- the verdict -------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What the audit decided.

    Attributes:
        passed: The result may be delivered (as far as the audit goes).
        outcome: ``"partial"`` when a passing review has a ``missing_disclosed``
            requirement, ``"complete"`` when it passes otherwise, ``None`` when it fails.
        failure: ``fulfilment/request_not_fulfilled`` from :func:`verdict`, or the code
            given to :meth:`rejected`; ``None`` when it passes.
        reasons: Why it failed, plain strings for logs and tests; never for a public
            result.
    """

    passed: bool
    outcome: Literal["complete", "partial"] | None
    failure: Failure | None
    reasons: tuple[str, ...] = ()

    @classmethod
    def rejected(cls, pair: tuple[str, str], *reasons: str) -> Verdict:
        """A failed verdict with the code ``pair``, e.g. ``codes.INVALID_REVIEW``.

        Example:
            >>> from citeloop.contract.codes import VERIFICATION_UNAVAILABLE
            >>> Verdict.rejected(VERIFICATION_UNAVAILABLE).failure.code
            'verification_unavailable'
        """
        return cls(passed=False, outcome=None, failure=Failure.of(pair), reasons=reasons)


def verdict(review: Fulfilment, payload: AuditPayload) -> Verdict:
    """Decide a review (checked with :func:`parse_review`).

    Passes when all of these hold; otherwise ``fulfilment/request_not_fulfilled``, or
    ``fulfilment/undisclosed_gap`` when the first rule to fail (the booleans first, then
    the requirements in order) is a ``missing_disclosed`` one:

    - The four booleans (:data:`BOOLEANS`) are true.
    - Each ``answered`` requirement names at least one answer segment of the payload,
      and at least one evidence alias when the plan's intent requires evidence (a
      greeting or a chit-chat question, ``evidence_required=False``, needs none).
    - Each ``missing_disclosed`` requirement names an answer segment that contains the
      text of one of the result's notices (all of them, not only those shown), compared
      NFC-normalized (:func:`citeloop.text.normalize_text`), case-insensitively, with
      runs of whitespace collapsed; a notice of whitespace only matches nothing.
    - No requirement is ``unfulfilled`` or ``uncertain``.

    Ids not in the payload count as absent. The outcome of a passing review is
    ``"partial"`` when a requirement is ``missing_disclosed``, else ``"complete"``.
    Work is linear in the segments named times the notices.
    """
    reasons = [f"{name} is false" for name in BOOLEANS if not getattr(review, name)]
    notices = [text for text in dict.fromkeys(name_key(n.text) for n in payload.notices) if text]
    discloses: dict[str, bool] = {}
    gap = False  # the first rule to fail is a missing_disclosed one

    def disclosed(alias: str) -> bool:
        if alias not in discloses:
            segment = name_key(payload.answer_segments[alias])
            discloses[alias] = any(notice in segment for notice in notices)
        return discloses[alias]

    for index, requirement in enumerate(review.requirements):
        where = f"requirements[{index}]"
        answers = [a for a in requirement.answer_segments if a in payload.answer_segments]
        if requirement.status == "answered":
            cited = any(alias in payload.evidence for alias in requirement.evidence_ids)
            if payload.plan.intent.evidence_required and not cited:
                reasons.append(f"{where} is answered without evidence")
            if not answers:
                reasons.append(f"{where} is answered without answer segments")
        elif requirement.status == "missing_disclosed":
            if not any(disclosed(alias) for alias in answers):
                gap = gap if reasons else True
                reasons.append(f"{where} is missing_disclosed without a notice in its segments")
        else:
            reasons.append(f"{where} is {requirement.status}")
    if reasons:
        return Verdict.rejected(UNDISCLOSED_GAP if gap else REQUEST_NOT_FULFILLED, *reasons)
    partial = any(r.status == "missing_disclosed" for r in review.requirements)
    return Verdict(passed=True, outcome="partial" if partial else "complete", failure=None)
