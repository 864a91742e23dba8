"""The semantic audit's request: what the auditing model is shown, and the messages
that ask it for a review.

Pure functions, no model call. A graph node runs the audit with them and with those of
:mod:`citeloop.contract.review` (the review's checks and the verdict):

1. ``payload = build_payload(result, plan)``.
2. Ask the model with :func:`audit_messages` for structured output into
   :class:`~citeloop.contract.schemas.Fulfilment` (``strict_json_schema(Fulfilment)``);
   a model without structured output answers in JSON text, and its messages carry the
   review's JSON Schema (``audit_messages(payload, schema=REVIEW_JSON_SCHEMA)``).
   A model or transport error: ``verification/verification_unavailable``.
3. ``review, problems = parse_review(reply, payload)``; no problems: go to 5.
4. Exactly one format-repair retry with :func:`repair_messages` (an error of the model:
   ``verification/verification_unavailable``), then ``repaired, again =
   parse_review(reply, payload)``. Problems again, or
   :func:`~citeloop.contract.review.repair_flips_negative` ``(review, repaired,
   first_reply)``: ``verification/invalid_review``; else ``review = repaired``.
5. ``verdict(review, payload)``: passed with outcome ``complete`` or ``partial``, or
   ``fulfilment/request_not_fulfilled``. :meth:`~citeloop.contract.review.Verdict.rejected`
   makes the verdicts of steps 2-4.

**The payload.** The model sees one JSON document (:meth:`AuditPayload.to_json`): the
question as received and resolved, the plan, the question in segments ``Q1..``
(:func:`split_question` of the question *as received*: the request is what must be
fulfilled, and a wrong resolution must not hide a part of it), the answer's paragraphs
``A1..`` (:func:`split_answer`), the evidence under aliases ``E1..`` (in the result's
order, one alias per distinct id; the ids themselves are not shown), the source URLs, the
deterministic notices and the answer kind.

Its size is bounded. Kept at most: :data:`MAX_QUESTION_SEGMENTS` question segments,
:data:`MAX_ANSWER_SEGMENTS` answer segments, :data:`MAX_EVIDENCE` evidence units (the
schema's limits), :data:`MAX_SOURCES` source URLs, :data:`MAX_NOTICES` notices,
:data:`MAX_ITEMS` items of each list or mapping of the plan and of each unit's
attributes. Texts (questions, segments, evidence and notice texts) are cut at
:data:`MAX_TEXT_CHARS` characters, short fields (sources, URLs, attributes, plan values,
kinds) at :data:`MAX_FIELD_CHARS`, names of attributes and scopes at
:data:`MAX_NAME_CHARS`. Every cut is named under ``"truncated"``: the key is
the path of what was cut (``"answer_segments"``, ``"A3"``, ``"E2.text"``,
``"plan.scope.work"``, ``"E2.attributes.<name>#key"`` for a name) and the value says how
many items or characters are ``shown`` of the ``total``. The worst case is under 5
million characters (escaping can turn one character into six); a usual payload is a
few kilobytes. What was cut is not audited: a
requirement met only there is ``uncertain`` for the model, which fails the verdict
(closed, never open).

**Data, never instructions.** The payload JSON sits between ``<audit_data>`` and
``</audit_data>``, and ``&``, ``<`` and ``>`` are escaped inside it (``\\u003c``, as
JSON allows), so no text of the question, the evidence or the answer can close the
delimiter or appear as free prompt text. The system prompt says that everything inside is
data. The previous review of a repair is embedded the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from citeloop.contract.schemas import (
    AnswerResult,
    EvidenceUnit,
    Fulfilment,
    Notice,
    Plan,
)
from citeloop.prompts import (
    DELIVERY_AUDIT_MORE_PROBLEMS,
    DELIVERY_AUDIT_NOT_A_REVIEW,
    DELIVERY_AUDIT_PROMPT,
    DELIVERY_AUDIT_REPAIR_PROMPT,
    DELIVERY_AUDIT_SCHEMA_NOTE,
    DELIVERY_AUDIT_SYSTEM_PROMPT,
)

MAX_QUESTION_SEGMENTS = 32
"""Question segments shown (a requirement names at most 32)."""
MAX_ANSWER_SEGMENTS = 64
"""Answer segments shown (a requirement names at most 64)."""
MAX_EVIDENCE = 48
"""Evidence units shown (a requirement names at most 48)."""
MAX_SOURCES = 48
"""Source URLs shown."""
MAX_NOTICES = 32
"""Notices shown (the verdict checks all of them)."""
MAX_ITEMS = 16
"""Items shown of each list or mapping of the plan, and attributes of each unit."""
MAX_TEXT_CHARS = 4_000
"""Characters shown of a question, a segment, an evidence text or a notice text."""
MAX_FIELD_CHARS = 300
"""Characters shown of a short field: a source, a URL, an attribute, a plan value."""
MAX_NAME_CHARS = 64
"""Characters shown of the name of an attribute or of a scope."""
MAX_PROBLEMS = 20
"""Problems of a review listed (one more line counts the rest)."""
MAX_PROBLEM_CHARS = 300
"""Characters of one problem in the repair prompt."""
MAX_PREVIOUS_CHARS = 16_000
"""Characters of the previous reply shown in the repair prompt."""

_T = TypeVar("_T")

# Split points of a question: a terminator, and any terminators and spaces after it.
# ASCII ``?!;``, their full-width forms, the Arabic question mark and the Greek one.
_TERMINATORS = "?!;\uff1f\uff01\uff1b\u061f\u037e"
_SPLIT = re.compile(f"[{_TERMINATORS}][\\s{_TERMINATORS}]*")
_SURROGATES = re.compile("[\\ud800-\\udfff]")
_MARKUP = str.maketrans({"&": "\\u0026", "<": "\\u003c", ">": "\\u003e"})
_PLAIN_MARKUP = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


# --- segmentation ------------------------------------------------------------------------


def split_question(text: str) -> list[str]:
    """The segments of a question: split after ``?``, ``!`` and ``;`` (and their
    full-width forms, ``؟`` and the Greek ``;``), stripped, empty ones dropped.

    A run of terminators and spaces (``"?!"``, ``"? ?"``) is one split point; text made
    only of terminators joins the segment after it. A question without a terminator is
    one segment. Linear in ``len(text)``.

    Example:
        >>> split_question("Who wrote Hamlet? When; and where!")
        ['Who wrote Hamlet?', 'When;', 'and where!']
        >>> split_question("  Who wrote Hamlet  ")
        ['Who wrote Hamlet']
    """
    segments: list[str] = []
    start = 0
    for match in _SPLIT.finditer(text):
        if match.start() == start or not text[start : match.start()].strip():
            continue  # only terminators so far: they join the next segment
        segments.append(text[start : match.end()].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        segments.append(tail)
    return segments


def split_answer(text: str) -> list[str]:
    """The paragraphs of an answer: separated by blank lines (lines of whitespace only),
    stripped, empty ones dropped. ``\\r\\n`` and ``\\r`` end lines too. Linear.

    Example:
        >>> split_answer("One.\\r\\n\\r\\n\\n  \\nTwo,\\nstill two.\\n")
        ['One.', 'Two,\\nstill two.']
    """
    paragraphs: list[str] = []
    lines: list[str] = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line.strip():
            lines.append(line)
        elif lines:
            paragraphs.append("\n".join(lines).strip())
            lines = []
    if lines:
        paragraphs.append("\n".join(lines).strip())
    return paragraphs


# --- the payload -------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditPayload:
    """What the auditor is shown, and what its ids stand for.

    The mappings hold the *full* texts of what is kept (the verdict matches notices in
    them); :meth:`to_json` shows them cut to their limits. Do not mutate them.

    Attributes:
        question: The question as received.
        resolved_question: The question with references resolved.
        plan: The plan.
        answer_kind: The result's answer kind.
        question_segments: ``"Q1"`` -> segment, at most :data:`MAX_QUESTION_SEGMENTS`.
        answer_segments: ``"A1"`` -> paragraph, at most :data:`MAX_ANSWER_SEGMENTS`.
        evidence: ``"E1"`` -> unit, in the result's order, one per distinct id, at most
            :data:`MAX_EVIDENCE`.
        aliases: ``"E1"`` -> the unit's id.
        source_urls: All the result's source URLs.
        notices: All the result's notices.
        truncated: What the JSON document cut: path -> ``{"shown": n, "total": m}``
            (items of a list, characters of a text).
        json_text: The JSON document; see :meth:`to_json`.
    """

    question: str
    resolved_question: str
    plan: Plan
    answer_kind: str
    question_segments: dict[str, str]
    answer_segments: dict[str, str]
    evidence: dict[str, EvidenceUnit]
    aliases: dict[str, str]
    source_urls: tuple[str, ...]
    notices: tuple[Notice, ...]
    truncated: dict[str, dict[str, int]]
    json_text: str = field(repr=False)

    def to_json(self) -> str:
        """The JSON document shown to the model: compact, keys in a fixed order
        (question, resolved_question, plan, answer_kind, question_segments,
        answer_segments, evidence, source_urls, notices, truncated; attributes and scope
        sorted by key), non-ASCII kept, ``&``, ``<`` and ``>`` escaped as ``\\u0026``,
        ``\\u003c`` and ``\\u003e``. Equal inputs give equal text."""
        return self.json_text

    @property
    def segments_cut(self) -> bool:
        """Whether the question or the answer was cut (segments dropped, or a segment's
        text cut): an auditor cannot judge what it does not see."""
        return any(
            key in ("question_segments", "answer_segments") or _SEGMENT_ALIAS.fullmatch(key)
            for key in self.truncated
        )


_SEGMENT_ALIAS = re.compile(r"[AQ][0-9]+")


class _Cuts:
    """Cuts texts and lists to their limits and records each cut by path."""

    def __init__(self) -> None:
        self.cut: dict[str, dict[str, int]] = {}

    def text(self, value: str, path: str, limit: int = MAX_TEXT_CHARS) -> str:
        if len(value) > limit:
            self.cut[path] = {"shown": limit, "total": len(value)}
            value = value[:limit]
        # A lone surrogate would make the prompt unencodable as UTF-8.
        return _SURROGATES.sub("\ufffd", value)

    def items(self, values: Sequence[_T], path: str, limit: int) -> Sequence[_T]:
        if len(values) > limit:
            self.cut[path] = {"shown": limit, "total": len(values)}
            return values[:limit]
        return values

    def name(self, key: str, path: str) -> str:
        """A mapping's key as shown; a cut one is recorded as ``path.<shown>#key``."""
        shown = _SURROGATES.sub("\ufffd", key[:MAX_NAME_CHARS])
        if len(key) > MAX_NAME_CHARS:
            self.cut[f"{path}.{shown}#key"] = {"shown": MAX_NAME_CHARS, "total": len(key)}
        return shown

    def mapping(self, values: Mapping[str, str], path: str) -> dict[str, str]:
        shown: dict[str, str] = {}
        for key, value in self.items(sorted(values.items()), path, MAX_ITEMS):
            name = self.name(key, path)
            shown[name] = self.text(value, f"{path}.{name}", MAX_FIELD_CHARS)
        return shown

    def strings(self, values: Sequence[str], path: str, limit: int = MAX_FIELD_CHARS) -> list[str]:
        kept = self.items(values, path, MAX_ITEMS)
        return [self.text(value, f"{path}[{i}]", limit) for i, value in enumerate(kept)]


def _plan_document(plan: Plan, cuts: _Cuts) -> dict[str, Any]:
    scope: dict[str, list[str]] = {}
    for key in cuts.items(sorted(plan.scope), "plan.scope", MAX_ITEMS):
        name = cuts.name(key, "plan.scope")
        scope[name] = cuts.strings(plan.scope[key], f"plan.scope.{name}")
    period = plan.period
    return {
        "intent": {
            "kind": cuts.text(plan.intent.kind, "plan.intent.kind", MAX_FIELD_CHARS),
            "evidence_required": plan.intent.evidence_required,
        },
        "required_subjects": cuts.strings(plan.required_subjects, "plan.required_subjects"),
        "scope": scope,
        "period": None
        if period is None
        else {
            "attribute": cuts.text(period.attribute, "plan.period.attribute", MAX_FIELD_CHARS),
            "start": period.start.isoformat() if period.start else None,
            "end": period.end.isoformat() if period.end else None,
        },
        "relational": plan.relational,
    }


def _escaped_json(value: Any) -> str:
    """Compact JSON of ``value`` in which ``&``, ``<`` and ``>`` are escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    # These characters occur in JSON text only inside strings, where \\uXXXX is valid.
    return text.translate(_MARKUP)


def build_payload(result: AnswerResult, plan: Plan) -> AuditPayload:
    """The audit payload of ``result`` against ``plan``; see the module docstring.

    Args:
        result: The result to audit.
        plan: How its question was understood.

    Returns:
        The payload, its aliases and its JSON document. Work is linear in the size of
        ``result`` and ``plan`` (plus sorting attribute and scope keys).
    """
    cuts = _Cuts()
    questions = cuts.items(
        split_question(plan.question), "question_segments", MAX_QUESTION_SEGMENTS
    )
    answers = cuts.items(split_answer(result.answer), "answer_segments", MAX_ANSWER_SEGMENTS)
    distinct: dict[str, EvidenceUnit] = {}
    for unit in result.evidence:
        distinct.setdefault(unit.id, unit)
    units = cuts.items(list(distinct.values()), "evidence", MAX_EVIDENCE)
    sources = cuts.items(result.source_urls, "source_urls", MAX_SOURCES)
    notices = cuts.items(result.notices, "notices", MAX_NOTICES)

    question_segments = {f"Q{i}": text for i, text in enumerate(questions, 1)}
    answer_segments = {f"A{i}": text for i, text in enumerate(answers, 1)}
    evidence = {f"E{i}": unit for i, unit in enumerate(units, 1)}

    document: dict[str, Any] = {
        "question": cuts.text(plan.question, "question"),
        "resolved_question": cuts.text(plan.resolved_question, "resolved_question"),
        "plan": _plan_document(plan, cuts),
        "answer_kind": cuts.text(result.answer_kind, "answer_kind", MAX_FIELD_CHARS),
        "question_segments": {key: cuts.text(text, key) for key, text in question_segments.items()},
        "answer_segments": {key: cuts.text(text, key) for key, text in answer_segments.items()},
        "evidence": {
            alias: {
                "source": cuts.text(unit.source, f"{alias}.source", MAX_FIELD_CHARS),
                "text": cuts.text(unit.text, f"{alias}.text"),
                "attributes": cuts.mapping(unit.attributes, f"{alias}.attributes"),
            }
            for alias, unit in evidence.items()
        },
        "source_urls": [
            cuts.text(url, f"source_urls[{i}]", MAX_FIELD_CHARS) for i, url in enumerate(sources)
        ],
        "notices": [
            {
                "text": cuts.text(notice.text, f"notices[{i}].text"),
                "subject": None
                if notice.subject is None
                else cuts.text(notice.subject, f"notices[{i}].subject", MAX_FIELD_CHARS),
                "kind": cuts.text(notice.kind, f"notices[{i}].kind", MAX_FIELD_CHARS),
            }
            for i, notice in enumerate(notices)
        ],
    }
    document["truncated"] = cuts.cut
    return AuditPayload(
        question=plan.question,
        resolved_question=plan.resolved_question,
        plan=plan,
        answer_kind=result.answer_kind,
        question_segments=question_segments,
        answer_segments=answer_segments,
        evidence=evidence,
        aliases={alias: unit.id for alias, unit in evidence.items()},
        source_urls=tuple(result.source_urls),
        notices=tuple(result.notices),
        truncated=cuts.cut,
        json_text=_escaped_json(document),
    )


# --- messages ----------------------------------------------------------------------------


REVIEW_JSON_SCHEMA = json.dumps(
    Fulfilment.model_json_schema(), ensure_ascii=False, separators=(",", ":")
).translate(_MARKUP)
"""The review's JSON Schema (``Fulfilment.model_json_schema()``, with its length limits)
as compact JSON, for the prompts of a model without structured output
(:data:`~citeloop.prompts.DELIVERY_AUDIT_SCHEMA_NOTE`)."""


def _with_schema(text: str, schema: str | None) -> str:
    return text if schema is None else text + DELIVERY_AUDIT_SCHEMA_NOTE.format(schema=schema)


def audit_messages(payload: AuditPayload, *, schema: str | None = None) -> list[tuple[str, str]]:
    """The audit's messages: ``[("system", ...), ("human", ...)]``, the payload JSON
    between ``<audit_data>`` and ``</audit_data>`` in the human message.

    Args:
        payload: What to audit.
        schema: For a model without structured output, the review's JSON Schema
            (:data:`REVIEW_JSON_SCHEMA`): the human message then ends with it between
            ``<review_schema>`` and ``</review_schema>`` and asks for one JSON object
            only. ``None`` (structured output: the tool carries the schema): no schema.
    """
    return [
        ("system", DELIVERY_AUDIT_SYSTEM_PROMPT),
        ("human", _with_schema(DELIVERY_AUDIT_PROMPT.format(payload=payload.to_json()), schema)),
    ]


_MORE_PREFIX = DELIVERY_AUDIT_MORE_PROBLEMS.partition("{")[0]


def capped_problems(problems: Sequence[str]) -> list[str]:
    """At most :data:`MAX_PROBLEMS` problems and a line counting the rest; a list that
    :func:`~citeloop.contract.review.parse_review` already capped is kept as it is."""
    capped = len(problems) == MAX_PROBLEMS + 1 and problems[-1].startswith(_MORE_PREFIX)
    if len(problems) <= MAX_PROBLEMS or capped:
        return list(problems)
    rest = DELIVERY_AUDIT_MORE_PROBLEMS.format(count=len(problems) - MAX_PROBLEMS)
    return [*problems[:MAX_PROBLEMS], rest]


def _plain(problem: object) -> str:
    """One problem as one line of at most :data:`MAX_PROBLEM_CHARS`, markup escaped."""
    text = " ".join(str(problem).split())
    if len(text) > MAX_PROBLEM_CHARS:
        text = text[: MAX_PROBLEM_CHARS - 3] + "..."
    return _SURROGATES.sub("\ufffd", text).translate(_PLAIN_MARKUP)


def _previous_json(previous: str | Mapping[str, Any] | Fulfilment) -> str:
    """The previous reply as escaped JSON: the value it holds if it is JSON, else a JSON
    string of its text; at most :data:`MAX_PREVIOUS_CHARS` of it."""
    if isinstance(previous, Fulfilment):
        text = previous.model_dump_json()
    elif isinstance(previous, str):
        text = previous
    else:
        try:
            text = json.dumps(previous, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            text = str(previous)
    text = _SURROGATES.sub("\ufffd", text[:MAX_PREVIOUS_CHARS])
    try:
        return _escaped_json(json.loads(text))
    except (ValueError, RecursionError):
        return _escaped_json(text)


def repair_messages(
    payload: AuditPayload,
    previous: str | Mapping[str, Any] | Fulfilment,
    problems: Sequence[str],
    *,
    schema: str | None = None,
) -> list[tuple[str, str]]:
    """The messages of the one format-repair retry: ``[("system", ...), ("human", ...)]``.

    The human message holds the payload, the problems (one line each, at most
    :data:`MAX_PROBLEMS`) and the previous reply between ``<previous_review>`` and
    ``</previous_review>`` (as escaped JSON, like the payload), and forbids changing the
    judgement: a false boolean stays false, an ``unfulfilled`` or ``uncertain``
    requirement keeps its status, the requirements keep their order.
    :func:`~citeloop.contract.review.repair_flips_negative` enforces this on the reply.

    Args:
        payload: The payload of the first request.
        previous: The first reply (text, parsed JSON, or a review).
        problems: What :func:`~citeloop.contract.review.parse_review` found wrong with it.
        schema: As for :func:`audit_messages`: the review's JSON Schema for a model
            without structured output, else ``None``.
    """
    listed = capped_problems(problems) or [DELIVERY_AUDIT_NOT_A_REVIEW]
    lines = [f"- {_plain(problem)}" for problem in listed]
    return [
        ("system", DELIVERY_AUDIT_SYSTEM_PROMPT),
        (
            "human",
            _with_schema(
                DELIVERY_AUDIT_REPAIR_PROMPT.format(
                    payload=payload.to_json(),
                    problems="\n".join(lines),
                    previous=_previous_json(previous),
                ),
                schema,
            ),
        ),
    ]
