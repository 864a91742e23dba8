"""Conformance with the source design 004, ``../shared/seeds/004-delivery-contract.txt``.

The design's functions ``fingerprint``, ``diagnose``, ``mechanical_check``,
``semantic_check`` and ``enforce`` are citeloop's :mod:`citeloop.contract` and its
``delivery_audit`` graph; the design's persons, works and meetings are citeloop's
subjects, scope and period. Each test names the part of the design it checks. The
auditing model is scripted.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from langchain_core.messages import AIMessage
from pydantic import ValidationError

from citeloop.contract import AnswerResult, Fulfilment, Requirement, diagnose, fingerprint
from citeloop.contract.codes import request_fingerprint
from citeloop.graphs.delivery_audit import build_delivery_audit_graph
from tests.fakes import ScriptedToolChatModel, tool_reply

QUESTION = "Which class stores carts? Where is it defined?"
UNITS = [
    {"id": "f-1", "source": "shop/cart.py:1-9", "text": "class CartStore keeps carts."},
    {"id": "f-2", "source": "shop/cart.py:1-9", "text": "CartStore is in shop/cart.py."},
]
ANSWER = "CartStore stores carts.\n\nIt is defined in shop/cart.py."


def requirement(status="answered", answers=("A1",), evidence=("E1",), questions=("Q1",)):
    return {
        "description": "the class that stores carts",
        "question_segments": list(questions),
        "status": status,
        "answer_segments": list(answers),
        "evidence_ids": list(evidence),
    }


def review(*requirements, **flags):
    names = ("plan_matches_request", "all_requirements_identified", "facts_supported", "clear")
    return {**dict.fromkeys(names, True), **flags, "requirements": list(requirements)}


BOTH = review(requirement(), requirement(answers=("A2",), evidence=("E2",), questions=("Q2",)))


def audit(*replies, result=None, plan=None):
    model = ScriptedToolChatModel(
        script=[tool_reply("Fulfilment", r) if isinstance(r, dict) else r for r in replies]
    )
    inputs = {
        "result": {
            "answer": ANSWER,
            "evidence": UNITS,
            "index_version": "v1",
            **(result or {}),
        },
        "plan": {"question": QUESTION, "resolved_question": QUESTION, **(plan or {})},
        "index": {"version": "v1", "units": {unit["id"]: unit for unit in UNITS}},
    }
    return build_delivery_audit_graph(model).invoke(inputs), model


# -- fingerprint ----------------------------------------------------------------------


def test_fingerprint_is_sha256_of_compact_json_of_engine_and_stripped_query():
    """fingerprint(query, engine): sha256 of json.dumps([engine, query.strip()]) with
    compact separators and non-ASCII kept."""
    expected = hashlib.sha256('["citeloop","Où est CartStore ?"]'.encode()).hexdigest()
    assert fingerprint("  Où est CartStore ?\n", "citeloop") == expected
    assert fingerprint("q", "e") == request_fingerprint("e", "q") != fingerprint("e", "q")


# -- diagnose -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "layer", "code"),
    [
        ({"status": "error", "reason": "stale_context"}, "context", "unavailable"),
        ({"status": "ambiguous", "reason": "invalid_context"}, "context", "clarification_required"),
        ({"status": "ambiguous"}, "planning", "clarification_required"),
        ({"status": "no_answer"}, "retrieval", "evidence_not_found"),
        ({"status": "error", "reason": "content_index_unavailable"}, "retrieval", "unavailable"),
        ({"status": "error", "reason": "answer_rejected"}, "verification", "request_not_fulfilled"),
        ({"status": "error", "reason": "verification_unavailable"}, "verification", "unavailable"),
        ({"status": "error", "reason": "boom"}, "service", "unavailable"),
        ({"status": "ok", "accepted_for_delivery": False}, "service", "unavailable"),
    ],
)
def test_diagnose_maps_status_and_reason_to_layer_and_code(result, layer, code):
    """diagnose(result, query, engine): the layer and code rules, in their order."""
    diagnosed = diagnose(result, "Who?", "citeloop")
    assert diagnosed["delivery_check"] == {
        "layer": layer,
        "code": code,
        "request_fingerprint": fingerprint("Who?", "citeloop"),
    }


def test_diagnose_keeps_the_result_and_leaves_it_unchanged():
    """diagnose returns {**result, 'delivery_check': ...}: a copy with every key kept."""
    result = {"status": "no_answer", "answer": "", "engine": "x"}
    diagnosed = diagnose(result, "q", "x")
    assert {k: v for k, v in diagnosed.items() if k != "delivery_check"} == result
    assert "delivery_check" not in result


def test_diagnose_of_an_answer_result_keeps_todays_form():
    """Beside the design's form, diagnose(AnswerResult) still returns its Failure."""
    failed = AnswerResult(status="failed", failure={"stage": "retrieval", "reason": "timeout"})
    assert (diagnose(failed).layer, diagnose(failed).code) == ("retrieval", "timeout")
    assert diagnose(failed, "q", "e")["delivery_check"]["layer"] == "retrieval"


# -- the audit schema and its bounds --------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("description", ""),
        ("description", "x" * 501),
        ("question_segments", []),
        ("question_segments", [f"Q{i}" for i in range(33)]),
        ("answer_segments", [f"A{i}" for i in range(65)]),
        ("evidence_ids", [f"E{i}" for i in range(49)]),
        ("status", "done"),
    ],
)
def test_requirement_bounds(field, value):
    """Requirement: description 1-500, question_segments 1-32, answer_segments at most
    64, evidence_ids at most 48, and one of the four statuses."""
    with pytest.raises(ValidationError):
        Requirement(**{**requirement(), field: value})


def test_requirement_at_its_bounds_and_fulfilment_limits():
    """Requirement at its upper bounds is valid; Fulfilment needs 1-32 requirements and
    forbids extra keys (the strict schema)."""
    Requirement(
        description="x" * 500,
        question_segments=[f"Q{i}" for i in range(32)],
        status="missing_disclosed",
        answer_segments=[f"A{i}" for i in range(64)],
        evidence_ids=[f"E{i}" for i in range(48)],
    )
    for requirements in ([], [requirement()] * 33):
        with pytest.raises(ValidationError):
            Fulfilment(**review(*requirements))
    with pytest.raises(ValidationError):
        Fulfilment(**review(requirement()), verdict="fine")


# -- the enforce flow -----------------------------------------------------------------


def test_a_fulfilled_request_is_delivered_complete_with_its_fingerprint():
    """enforce: mechanical check, then the semantic audit; all answered is 'complete'."""
    out, model = audit(BOTH)
    assert (out["delivered"], out["delivery_outcome"], model.calls) == (True, "complete", 1)


def test_a_disclosed_gap_is_partial():
    """semantic_check: a missing_disclosed requirement whose segment carries the notice
    makes the delivery 'partial'."""
    notice = "No record of where CartStore is tested was found."
    out, _ = audit(
        review(requirement(), requirement("missing_disclosed", ("A3",), (), ("Q2",))),
        result={"answer": ANSWER + "\n\n" + notice, "notices": [{"text": notice}]},
    )
    assert (out["delivered"], out["delivery_outcome"]) == (True, "partial")


def test_an_undisclosed_gap_is_rejected():
    """semantic_check: missing_disclosed without the notice in its segments is
    fulfilment/undisclosed_gap."""
    out, _ = audit(review(requirement(), requirement("missing_disclosed", ("A2",), (), ("Q2",))))
    check = out["delivery_check"]
    assert (check["layer"], check["code"]) == ("fulfilment", "undisclosed_gap")


@pytest.mark.parametrize(
    "reviewed",
    [
        review(requirement(), requirement("uncertain", ("A2",), (), ("Q2",))),
        review(requirement(), requirement("unfulfilled", (), (), ("Q2",))),
        review(requirement(evidence=())),
        {**BOTH, "facts_supported": False},
    ],
)
def test_unmet_requirements_are_request_not_fulfilled(reviewed):
    """semantic_check: a false boolean, an uncertain or unfulfilled requirement, or an
    answered one without evidence is fulfilment/request_not_fulfilled."""
    out, _ = audit(reviewed)
    assert out["delivery_check"]["code"] == "request_not_fulfilled"
    assert out["delivery_check"]["layer"] == "fulfilment" and not out["delivered"]


def test_exactly_one_format_repair_then_invalid_review():
    """semantic_check: a review that does not parse gets one repair; a second bad one is
    verification/invalid_review."""
    out, model = audit(AIMessage("no json"), AIMessage("none again"))
    assert model.calls == 2
    assert (out["delivery_check"]["layer"], out["delivery_check"]["code"]) == (
        "verification",
        "invalid_review",
    )
    repaired, model = audit(review(requirement(evidence=("E7",))), BOTH)
    assert (repaired["delivered"], model.calls) == (True, 2)


def test_a_model_error_is_verification_unavailable():
    """semantic_check: any error of the auditing model is verification_unavailable."""
    out, _ = audit(RuntimeError("provider down: secret-token"))
    assert (out["delivery_check"]["layer"], out["delivery_check"]["code"]) == (
        "verification",
        "verification_unavailable",
    )
    assert "secret-token" not in json.dumps(out, default=str)  # codes only, never text


def test_a_mechanical_failure_decides_before_the_model():
    """mechanical_check: a result made from another index version is scope/mixed_snapshot,
    and no audit runs; the public check carries the request fingerprint."""
    out, model = audit(result={"index_version": "v0"})
    assert model.calls == 0
    assert out["delivery_check"] == {
        "layer": "scope",
        "code": "mixed_snapshot",
        "request_fingerprint": fingerprint(QUESTION, "citeloop"),
    }


def test_missing_and_altered_evidence():
    """mechanical_check: no evidence is evidence/missing_evidence; evidence whose
    immutable text differs from the index is evidence/altered_evidence."""
    out, _ = audit(result={"evidence": []})
    assert out["delivery_check"]["code"] == "missing_evidence"
    altered = [{**UNITS[0], "text": "class CartStore deletes carts."}, UNITS[1]]
    out, _ = audit(result={"evidence": altered})
    assert (out["delivery_check"]["layer"], out["delivery_check"]["code"]) == (
        "evidence",
        "altered_evidence",
    )


def test_a_result_that_failed_upstream_is_diagnosed_without_checks():
    """enforce: a result that is not ok is diagnosed, with no check and no model call."""
    failed = {"status": "failed", "failure": {"stage": "context", "reason": "failed"}}
    out, model = audit(result=failed)
    assert model.calls == 0 and out["delivery_check"]["layer"] == "context"
