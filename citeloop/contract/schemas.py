"""The data of the delivery contract (pydantic v2): evidence, the plan, the result to
check, and the audit schemas a model fills.

Every model forbids extra keys and is frozen. :func:`strict_json_schema` turns a model
into the JSON Schema that strict structured-output modes accept (OpenAI's ``strict``:
``additionalProperties: false`` and every property required at every level).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

NonEmpty = Annotated[str, Field(min_length=1)]


def error_path(loc: Sequence[str | int], top: str = "(top level)") -> str:
    """A pydantic error location as a path, ``evidence[0].attributes.date`` (a name
    longer than 40 characters is cut), or ``top`` for the value itself."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            name = part if len(part) <= 40 else part[:37] + "..."
            path += f".{name}" if path else name
    return path or top


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EvidenceUnit(_Strict):
    """One unit of evidence.

    Attributes:
        id: Unique within its index, e.g. a fact id (``"f-0123456789abcdef"``).
        source: Where it comes from: a URL, or a path (``"pkg/mod.py:10-14"``).
        text: What it says.
        attributes: Immutable attributes (``subject``, ``work``, dates as ISO 8601
            ``YYYY-MM-DD``); a unit whose attributes differ from the index's copy was
            altered.
    """

    id: NonEmpty
    source: NonEmpty
    text: str
    attributes: dict[str, str] = Field(default_factory=dict)


class EvidenceIndex(_Strict):
    """The evidence a result may use: a ``version`` and units by id.

    Raises:
        pydantic.ValidationError: A key differs from its unit's ``id``.
    """

    version: NonEmpty
    units: dict[str, EvidenceUnit] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _keys_are_ids(self) -> EvidenceIndex:
        for key, unit in self.units.items():
            if key != unit.id:
                raise ValueError(f"units[{key!r}] holds a unit whose id is {unit.id!r}")
        return self


class Intent(_Strict):
    """What kind of question it is.

    Attributes:
        kind: A label (``"lookup"``, ``"comparison"``, ``"chitchat"``, ...).
        evidence_required: Whether an answer must rest on evidence.
    """

    kind: NonEmpty = "lookup"
    evidence_required: bool = True


class Period(_Strict):
    """A period on a named date attribute, bounds inclusive; at least one bound."""

    attribute: NonEmpty
    start: date | None = None
    end: date | None = None

    @model_validator(mode="after")
    def _has_a_bound(self) -> Period:
        if self.start is None and self.end is None:
            raise ValueError("a period needs a start, an end, or both")
        if self.start and self.end and self.start > self.end:
            raise ValueError(f"the period starts ({self.start}) after it ends ({self.end})")
        return self


class Plan(_Strict):
    """How a question was understood.

    Attributes:
        question: The question as received.
        resolved_question: The question with references resolved.
        intent: Its kind, and whether evidence is required.
        required_subjects: Subjects the answer must cover.
        scope: Allowed values per attribute (e.g. ``{"work": ["Hamlet"]}``).
        period: A period on a named date attribute, or ``None``.
        relational: The question relates subjects (evidence and claims may then be
            about other subjects than the required ones).
    """

    question: NonEmpty
    resolved_question: NonEmpty
    intent: Intent = Field(default_factory=Intent)
    required_subjects: list[NonEmpty] = Field(default_factory=list)
    scope: dict[str, list[str]] = Field(default_factory=dict)
    period: Period | None = None
    relational: bool = False


class Claim(_Strict):
    """A statement the answer makes, with the evidence it rests on."""

    text: str
    subject: str | None = None
    evidence_ids: list[str] = Field(default_factory=list)
    attributes: dict[str, str] = Field(default_factory=dict)


MIN_NOTICE_CHARS = 8
"""Non-space characters a notice needs: a notice of ``"."`` or ``"e"`` would be found in
any answer and disclose anything."""


class Notice(_Strict):
    """A deterministic notice the answer carries, e.g. "No record of X was found."."""

    text: NonEmpty
    subject: str | None = None
    kind: NonEmpty = "no_record"

    @model_validator(mode="after")
    def _says_something(self) -> Notice:
        if sum(not char.isspace() for char in self.text) < MIN_NOTICE_CHARS:
            raise ValueError(
                f"a notice needs at least {MIN_NOTICE_CHARS} non-space characters, such as "
                "'No record of X was found.'"
            )
        return self


Stage = Literal["context", "planning", "retrieval", "verification", "service"]


Code = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")]
"""A reason code: lower-case letters, digits and ``_``, never free text."""


class StageFailure(_Strict):
    """Why an already-failed result failed: the stage, and a reason code (``timeout``),
    never an exception's text."""

    stage: Stage
    reason: Code = "failed"


class AnswerResult(_Strict):
    """A result to check before delivery.

    Attributes:
        status: ``"ok"``, or ``"failed"`` for a result that failed upstream (then
            ``failure`` says where).
        engine: What produced it (part of the request fingerprint).
        answer: The answer text; paragraphs are the audit's answer segments.
        answer_kind: ``"text"``, ``"table"``, ... (shown to the auditor).
        evidence: The evidence units the answer used, as the result carries them.
        claims: The statements the answer makes.
        source_urls: The sources the answer cites.
        notices: Deterministic notices the answer carries.
        index_version: The version of the evidence index the result was made from.
        failure: For ``status="failed"``: the stage that failed.
    """

    status: Literal["ok", "failed"] = "ok"
    engine: NonEmpty = "citeloop"
    answer: str = ""
    answer_kind: NonEmpty = "text"
    evidence: list[EvidenceUnit] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    source_urls: list[str] = Field(default_factory=list)
    notices: list[Notice] = Field(default_factory=list)
    index_version: str = ""
    failure: StageFailure | None = None

    @model_validator(mode="after")
    def _failure_matches_status(self) -> AnswerResult:
        if self.status == "failed" and self.failure is None:
            raise ValueError("a failed result needs 'failure' with the stage that failed")
        return self


RequirementStatus = Literal["answered", "missing_disclosed", "unfulfilled", "uncertain"]


class Requirement(_Strict):
    """One requirement of the request, as the auditor judged it.

    Attributes:
        description: What the request requires, 1-500 characters.
        question_segments: Ids of the question segments it comes from (``"Q1"``), 1-32.
        status: ``answered``, ``missing_disclosed`` (the answer says it could not be
            found), ``unfulfilled`` or ``uncertain``.
        answer_segments: Ids of the answer segments that meet it (``"A2"``), at most 64.
        evidence_ids: Aliases of the evidence that supports it (``"E3"``), at most 48.
    """

    description: Annotated[str, Field(min_length=1, max_length=500)]
    question_segments: Annotated[list[str], Field(min_length=1, max_length=32)]
    status: RequirementStatus
    answer_segments: Annotated[list[str], Field(max_length=64)]
    evidence_ids: Annotated[list[str], Field(max_length=48)]


class Fulfilment(_Strict):
    """The auditor's review of a result against its request.

    Attributes:
        plan_matches_request: The plan is a faithful reading of the question.
        all_requirements_identified: Every requirement of the question is listed.
        facts_supported: Every fact of the answer is supported by the evidence.
        clear: The answer is clear and unambiguous.
        requirements: Each requirement, 1-32.
    """

    plan_matches_request: bool
    all_requirements_identified: bool
    facts_supported: bool
    clear: bool
    requirements: Annotated[list[Requirement], Field(min_length=1, max_length=32)]


# Keywords strict structured-output modes reject or ignore; pydantic enforces them
# after parsing instead.
_UNSUPPORTED = ("minLength", "maxLength", "minItems", "maxItems", "default", "title")


def strict_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model``'s JSON Schema in the form strict structured output accepts.

    References are inlined, every object gets ``additionalProperties: false`` and lists
    every property as required, and length keywords are dropped (pydantic checks them
    when the reply is parsed). Source: OpenAI, "Structured Outputs: supported schemas"
    (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas).

    Returns:
        A JSON-ready dict with ``title`` and ``description`` of the model at the top.
    """
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})

    def convert(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return convert(definitions[node["$ref"].rsplit("/", 1)[-1]])
            converted = {
                key: (
                    {name: convert(field) for name, field in value.items()}
                    if key == "properties"  # property names are kept whatever they are
                    else convert(value)
                )
                for key, value in node.items()
                if key not in _UNSUPPORTED
            }
            if converted.get("type") == "object" and "properties" in converted:
                converted["additionalProperties"] = False
                converted["required"] = list(converted["properties"])
            return converted
        if isinstance(node, list):
            return [convert(item) for item in node]
        return node

    strict = convert(schema)
    strict["title"] = model.__name__
    return strict
