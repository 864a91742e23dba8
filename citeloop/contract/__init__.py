"""The delivery contract: whether an answer may be shown to a user at all.

Deterministic mechanical checks come first, then an LLM audit against a strict schema.
The public result carries error codes only, never model or exception text.
"""

from citeloop.contract.audit_payload import (
    AuditPayload,
    audit_messages,
    build_payload,
    repair_messages,
    split_answer,
    split_question,
)
from citeloop.contract.codes import (
    DeliveryCheck,
    Failure,
    diagnose,
    fingerprint,
    request_fingerprint,
)
from citeloop.contract.evidence_files import evidence_from_jsonl, load_index, load_model
from citeloop.contract.graph_evidence import evidence_from_graph
from citeloop.contract.mechanical import (
    check_citations,
    check_coverage,
    check_evidence,
    check_scope,
    check_snapshot,
    mechanical_checks,
)
from citeloop.contract.review import Verdict, parse_review, repair_flips_negative, verdict
from citeloop.contract.schemas import (
    AnswerResult,
    Claim,
    EvidenceIndex,
    EvidenceUnit,
    Fulfilment,
    Intent,
    Notice,
    Period,
    Plan,
    Requirement,
    StageFailure,
    strict_json_schema,
)

__all__ = [
    "AnswerResult",
    "AuditPayload",
    "Claim",
    "DeliveryCheck",
    "EvidenceIndex",
    "EvidenceUnit",
    "Failure",
    "Fulfilment",
    "Intent",
    "Notice",
    "Period",
    "Plan",
    "Requirement",
    "StageFailure",
    "Verdict",
    "audit_messages",
    "build_payload",
    "check_citations",
    "check_coverage",
    "check_evidence",
    "check_scope",
    "check_snapshot",
    "diagnose",
    "evidence_from_graph",
    "evidence_from_jsonl",
    "fingerprint",
    "load_index",
    "load_model",
    "mechanical_checks",
    "parse_review",
    "repair_flips_negative",
    "repair_messages",
    "request_fingerprint",
    "split_answer",
    "split_question",
    "strict_json_schema",
    "verdict",
]
