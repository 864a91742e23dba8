"""The contract's schemas: closed and frozen models, limits, and the strict JSON Schema."""

from __future__ import annotations

import copy
from datetime import date
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from citeloop.contract.schemas import (
    AnswerResult,
    Claim,
    EvidenceIndex,
    EvidenceUnit,
    Fulfilment,
    Notice,
    Period,
    Plan,
    Requirement,
    StageFailure,
    strict_json_schema,
)

UNIT = {"id": "e1", "source": "https://a.org/x", "text": "A.", "attributes": {"subject": "A"}}

RESULT = {
    "status": "ok",
    "answer": "A is here [1].",
    "evidence": [UNIT],
    "claims": [{"text": "A is here.", "subject": "A", "evidence_ids": ["e1"], "attributes": {}}],
    "source_urls": ["https://a.org/x"],
    "notices": [{"text": "No record of B was found.", "subject": "B", "kind": "no_record"}],
    "index_version": "v1",
}
FAILED = {"status": "failed", "failure": {"stage": "retrieval", "reason": "timeout"}}
PLAN = {
    "question": "Where is A?",
    "resolved_question": "Where is A?",
    "intent": {"kind": "lookup", "evidence_required": True},
    "required_subjects": ["A"],
    "scope": {"work": ["W"]},
    "period": {"attribute": "date", "start": "2020-01-01", "end": "2020-12-31"},
}
INDEX = {"version": "v1", "units": {"e1": UNIT}}
REQUIREMENT = {
    "description": "Say where A is.",
    "question_segments": ["Q1"],
    "status": "answered",
    "answer_segments": ["A1"],
    "evidence_ids": ["E1"],
}
FULFILMENT = {
    "plan_matches_request": True,
    "all_requirements_identified": True,
    "facts_supported": True,
    "clear": True,
    "requirements": [REQUIREMENT],
}


def with_extra(payload: dict[str, Any], path: tuple[str | int, ...]) -> dict[str, Any]:
    """A copy of ``payload`` with an unknown key added to the object at ``path``."""
    changed = copy.deepcopy(payload)
    node: Any = changed
    for part in path:
        node = node[part]
    node["unexpected"] = 1
    return changed


@pytest.mark.parametrize(
    ("model", "payload", "path"),
    [
        (AnswerResult, RESULT, ()),
        (AnswerResult, RESULT, ("evidence", 0)),
        (AnswerResult, RESULT, ("claims", 0)),
        (AnswerResult, RESULT, ("notices", 0)),
        (AnswerResult, FAILED, ("failure",)),
        (Plan, PLAN, ()),
        (Plan, PLAN, ("intent",)),
        (Plan, PLAN, ("period",)),
        (EvidenceIndex, INDEX, ()),
        (EvidenceIndex, INDEX, ("units", "e1")),
        (Fulfilment, FULFILMENT, ()),
        (Fulfilment, FULFILMENT, ("requirements", 0)),
        (Requirement, REQUIREMENT, ()),
    ],
    ids=lambda value: "/".join(map(str, value)) if isinstance(value, tuple) else None,
)
def test_extra_keys_are_rejected_at_every_level(model, payload, path):
    model.model_validate(payload)  # the payload itself is valid
    with pytest.raises(ValidationError, match="unexpected"):
        model.model_validate(with_extra(payload, path))


@pytest.mark.parametrize(
    ("instance", "field", "value"),
    [
        (AnswerResult.model_validate(RESULT), "answer", "changed"),
        (EvidenceUnit.model_validate(UNIT), "text", "changed"),
        (Plan.model_validate(PLAN), "relational", True),
        (EvidenceIndex.model_validate(INDEX), "version", "v2"),
        (Fulfilment.model_validate(FULFILMENT), "clear", False),
        (Claim(text="x"), "subject", "y"),
        (Notice(text="No record of x."), "kind", "y"),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, BaseModel) else None,
)
def test_models_are_frozen(instance, field, value):
    with pytest.raises(ValidationError, match="frozen"):
        setattr(instance, field, value)


def test_round_trip_through_json():
    result = AnswerResult.model_validate(RESULT)
    assert AnswerResult.model_validate_json(result.model_dump_json()) == result
    plan = Plan.model_validate(PLAN)
    assert plan.period == Period(attribute="date", start=date(2020, 1, 1), end=date(2020, 12, 31))


# --- strict JSON Schema -------------------------------------------------------------------


def object_nodes(node: Any, where: str = "$") -> list[tuple[str, dict[str, Any]]]:
    """Every object-typed node of a schema, with its location."""
    found = []
    if isinstance(node, dict):
        if node.get("type") == "object":
            found.append((where, node))
        for key, value in node.items():
            if key == "properties":
                for name, child in value.items():
                    found += object_nodes(child, f"{where}.{name}")
            else:
                found += object_nodes(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found += object_nodes(item, f"{where}[{index}]")
    return found


def walk(node: Any) -> list[Any]:
    nodes = [node]
    if isinstance(node, dict):
        for value in node.values():
            nodes += walk(value)
    elif isinstance(node, list):
        for item in node:
            nodes += walk(item)
    return nodes


@pytest.mark.parametrize("model", [Fulfilment, Requirement, AnswerResult, Plan])
def test_strict_schema_closes_every_object_and_requires_every_property(model):
    schema = strict_json_schema(model)
    objects = object_nodes(schema)
    assert objects, "no object node found"
    for where, node in objects:
        if "properties" not in node:  # a free-form map (dict[str, str])
            continue
        assert node["additionalProperties"] is False, where
        assert sorted(node["required"]) == sorted(node["properties"]), where


def test_strict_fulfilment_schema_in_full():
    schema = strict_json_schema(Fulfilment)
    assert schema["title"] == "Fulfilment"
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert schema["required"] == [
        "plan_matches_request",
        "all_requirements_identified",
        "facts_supported",
        "clear",
        "requirements",
    ]
    requirement = schema["properties"]["requirements"]["items"]
    assert requirement["additionalProperties"] is False
    assert requirement["required"] == [
        "description",
        "question_segments",
        "status",
        "answer_segments",
        "evidence_ids",
    ]
    assert requirement["properties"]["status"]["enum"] == [
        "answered",
        "missing_disclosed",
        "unfulfilled",
        "uncertain",
    ]
    for node in walk(schema):
        if isinstance(node, dict):
            assert "$ref" not in node
            assert "$defs" not in node
            assert not {"minItems", "maxItems", "minLength", "maxLength", "default"} & set(node)


# --- limits -------------------------------------------------------------------------------


def requirement(**changes: Any) -> dict[str, Any]:
    return {**REQUIREMENT, **changes}


@pytest.mark.parametrize(
    "changes",
    [
        {"description": "x"},
        {"description": "x" * 500},
        {"question_segments": ["Q1"] * 32},
        {"answer_segments": []},
        {"answer_segments": ["A1"] * 64},
        {"evidence_ids": []},
        {"evidence_ids": ["E1"] * 48},
    ],
    ids=["description-1", "description-500", "qs-32", "as-0", "as-64", "ev-0", "ev-48"],
)
def test_requirement_limits_accept_the_bounds(changes):
    Requirement.model_validate(requirement(**changes))


@pytest.mark.parametrize(
    "changes",
    [
        {"description": ""},
        {"description": "x" * 501},
        {"question_segments": []},
        {"question_segments": ["Q1"] * 33},
        {"answer_segments": ["A1"] * 65},
        {"evidence_ids": ["E1"] * 49},
        {"status": "done"},
    ],
    ids=["description-0", "description-501", "qs-0", "qs-33", "as-65", "ev-49", "status"],
)
def test_requirement_limits_reject_past_the_bounds(changes):
    with pytest.raises(ValidationError):
        Requirement.model_validate(requirement(**changes))


@pytest.mark.parametrize("count", [1, 32])
def test_fulfilment_accepts_1_to_32_requirements(count):
    Fulfilment.model_validate({**FULFILMENT, "requirements": [REQUIREMENT] * count})


@pytest.mark.parametrize("count", [0, 33])
def test_fulfilment_rejects_0_or_33_requirements(count):
    with pytest.raises(ValidationError):
        Fulfilment.model_validate({**FULFILMENT, "requirements": [REQUIREMENT] * count})


@pytest.mark.parametrize("field", ["plan_matches_request", "requirements"])
def test_fulfilment_fields_are_required(field):
    payload = {key: value for key, value in FULFILMENT.items() if key != field}
    with pytest.raises(ValidationError, match=field):
        Fulfilment.model_validate(payload)


# --- evidence -----------------------------------------------------------------------------


def test_index_keys_must_be_unit_ids():
    with pytest.raises(ValidationError, match="units\\['e2'\\] holds a unit whose id is 'e1'"):
        EvidenceIndex.model_validate({"version": "v1", "units": {"e2": UNIT}})


@pytest.mark.parametrize(
    "payload",
    [
        {**UNIT, "id": ""},
        {**UNIT, "source": ""},
        {**UNIT, "attributes": {"date": 2020}},
        {"id": "e1", "text": "A."},
    ],
    ids=["empty-id", "empty-source", "non-string-attribute", "no-source"],
)
def test_unit_fields_are_checked(payload):
    with pytest.raises(ValidationError):
        EvidenceUnit.model_validate(payload)


def test_index_needs_a_version():
    with pytest.raises(ValidationError):
        EvidenceIndex.model_validate({"version": "", "units": {}})


# --- period -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "end"),
    [("2020-01-01", None), (None, "2020-12-31"), ("2020-05-05", "2020-05-05")],
)
def test_period_accepts_one_or_two_bounds(start, end):
    period = Period.model_validate({"attribute": "date", "start": start, "end": end})
    assert (period.start or period.end) is not None


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"attribute": "date"}, "needs a start, an end, or both"),
        ({"attribute": "date", "start": "2021-01-01", "end": "2020-01-01"}, "starts"),
        ({"attribute": "", "start": "2020-01-01"}, "attribute"),
        ({"attribute": "date", "start": "2020-02-30"}, "start"),
        ({"attribute": "date", "start": "someday"}, "start"),
    ],
    ids=["no-bound", "reversed", "no-attribute", "bad-day", "not-a-date"],
)
def test_period_rejects_invalid_periods(payload, message):
    with pytest.raises(ValidationError, match=message):
        Period.model_validate(payload)


# --- results ------------------------------------------------------------------------------


def test_failed_result_needs_a_failure():
    with pytest.raises(ValidationError, match="failed result needs 'failure'"):
        AnswerResult(status="failed")
    result = AnswerResult.model_validate(FAILED)
    assert result.failure == StageFailure(stage="retrieval", reason="timeout")


def test_result_defaults():
    result = AnswerResult()
    assert (result.status, result.engine, result.answer_kind) == ("ok", "citeloop", "text")
    assert result.evidence == result.claims == result.notices == []


@pytest.mark.parametrize("reason", ["timeout", "failed", "rate_limited", "e2", "a" * 64])
def test_stage_failure_reason_is_a_code(reason):
    assert StageFailure(stage="service", reason=reason).reason == reason


@pytest.mark.parametrize(
    "reason",
    [
        "Traceback: boom",
        "Timeout",
        "timed out",
        "",
        "2fast",
        "_private",
        "a" * 65,
        "error\n",
        "KeyError('x')",
    ],
)
def test_stage_failure_rejects_free_text(reason):
    with pytest.raises(ValidationError):
        StageFailure(stage="service", reason=reason)


def test_stage_failure_stage_is_closed():
    with pytest.raises(ValidationError):
        StageFailure.model_validate({"stage": "kitchen", "reason": "timeout"})


def test_plan_defaults():
    plan = Plan(question="Q?", resolved_question="Q?")
    assert plan.intent.evidence_required is True
    assert plan.intent.kind == "lookup"
    assert (plan.required_subjects, plan.scope, plan.period, plan.relational) == (
        [],
        {},
        None,
        False,
    )
