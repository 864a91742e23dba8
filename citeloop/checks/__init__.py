"""Everyday output validators (the source design 002's API) and ``Check``: pure functions
over strings, no LangGraph, no I/O.

- JSON (``validate_json``), length (``validate_length``, ``estimate_tokens``), JSON Schema
  (``validate_structure``), citations (``validate_citations``), formatting and response
  modes (``validate_complete``), format compliance (``check_format_compliance``,
  ``is_off_topic``), repetition (``detect_repetition``, ``clean_repetitive_output``) and
  required sections (``validate_section_completeness``).
- ``Check``: any validator behind one signature, ``check(text) -> CheckOutcome``, with a
  failure policy (``OnFail``); each module has a ``*_check`` factory.

Error contract: schema-level checks (JSON, JSON Schema, structured mode) raise
:class:`citeloop.ValidationError` with structured ``details``; signal checks return values
and never raise on odd text. Bad settings raise :class:`citeloop.ConfigurationError`.
"""

from citeloop.checks.check import (
    Check,
    CheckOutcome,
    CheckRun,
    OnFail,
    Problem,
    format_problems,
    require_checks,
    run_checks,
)
from citeloop.checks.citation_spans import CitationSpan
from citeloop.checks.citations import Citations, citations_check, validate_citations
from citeloop.checks.compliance import (
    ComplianceResult,
    check_format_compliance,
    has_on_topic_signals,
    is_off_topic,
)
from citeloop.checks.compliance_check import compliance_check
from citeloop.checks.deduplication import clean_repetitive_output, deduplicate_sections
from citeloop.checks.formatting import FormattingResult, formatting_check, validate_formatting
from citeloop.checks.json_output import JsonExtraction, json_check, validate_json
from citeloop.checks.length import (
    LengthResult,
    estimate_tokens,
    length_check,
    validate_length,
    validate_long_response,
    validate_short_response,
)
from citeloop.checks.modes import (
    CompletenessResult,
    ResponseMode,
    complete_check,
    validate_complete,
)
from citeloop.checks.phrase_patterns import DEFAULT_PATTERNS, PhraseMatch, PhrasePatterns
from citeloop.checks.phrase_scan import detect_conversational_phrases
from citeloop.checks.repetition import (
    RepetitionResult,
    calculate_unique_content_ratio,
    detect_repetition,
    repetition_check,
    validate_no_repetition,
)
from citeloop.checks.section_parser import Section, extract_structured_sections
from citeloop.checks.sections import (
    SectionReport,
    sections_check,
    validate_response_structure,
    validate_section_completeness,
)
from citeloop.checks.structure import structure_check, validate_structure

__all__ = [
    "DEFAULT_PATTERNS",
    "Check",
    "CheckOutcome",
    "CheckRun",
    "CitationSpan",
    "Citations",
    "CompletenessResult",
    "ComplianceResult",
    "FormattingResult",
    "JsonExtraction",
    "LengthResult",
    "OnFail",
    "PhraseMatch",
    "PhrasePatterns",
    "Problem",
    "RepetitionResult",
    "ResponseMode",
    "Section",
    "SectionReport",
    "calculate_unique_content_ratio",
    "check_format_compliance",
    "citations_check",
    "clean_repetitive_output",
    "complete_check",
    "compliance_check",
    "deduplicate_sections",
    "detect_conversational_phrases",
    "detect_repetition",
    "estimate_tokens",
    "extract_structured_sections",
    "format_problems",
    "formatting_check",
    "has_on_topic_signals",
    "is_off_topic",
    "json_check",
    "length_check",
    "repetition_check",
    "require_checks",
    "run_checks",
    "sections_check",
    "structure_check",
    "validate_citations",
    "validate_complete",
    "validate_formatting",
    "validate_json",
    "validate_length",
    "validate_long_response",
    "validate_no_repetition",
    "validate_response_structure",
    "validate_section_completeness",
    "validate_short_response",
    "validate_structure",
]
