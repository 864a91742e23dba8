"""Everyday output validators (the source design 002's API) and ``Check``: pure functions
over strings, no LangGraph, no I/O.

- JSON (``extract_json``), length (``length_result``, ``estimate_tokens``), JSON Schema
  (``validate_structure``), citations (``extract_citations``), formatting and response
  modes (``completeness_result``), format compliance (``compliance_result``,
  ``is_off_topic``), repetition (``detect_repetition``, ``clean_repetitive_output``) and
  required sections (``section_completeness_result``).
- ``Check``: any validator behind one signature, ``check(text) -> CheckOutcome``, with a
  failure policy (``OnFail``); each module has a ``*_check`` factory.

Error contract: schema-level checks (JSON, JSON Schema, structured mode) raise
:class:`citeloop.ValidationError` with structured ``details``; signal checks return values
and never raise on odd text. Bad settings raise :class:`citeloop.ConfigurationError`.
"""

from typing import TYPE_CHECKING

from citeloop._lazy import lazy_exports

if TYPE_CHECKING:  # the names as type checkers and IDEs see them
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
    from citeloop.checks.citation_spans import (
        CitationSpan,
    )
    from citeloop.checks.citations import (
        Citations,
        citations_check,
        extract_citations,
    )
    from citeloop.checks.compliance import (
        ComplianceResult,
        compliance_result,
        has_on_topic_signals,
        is_off_topic,
    )
    from citeloop.checks.compliance_problems import (
        compliance_check,
    )
    from citeloop.checks.deduplication import (
        clean_repetitive_output,
        deduplicate_sections,
    )
    from citeloop.checks.formatting import (
        FormattingResult,
        formatting_check,
        formatting_result,
    )
    from citeloop.checks.json_output import (
        JsonExtraction,
        extract_json,
        json_check,
    )
    from citeloop.checks.length import (
        LengthResult,
        estimate_tokens,
        length_check,
        length_result,
        long_response_result,
        short_response_result,
    )
    from citeloop.checks.modes import (
        CompletenessResult,
        ResponseMode,
        complete_check,
        completeness_result,
    )
    from citeloop.checks.patterns import (
        CONVERSATIONAL_PATTERNS,
        OFF_TOPIC_PATTERNS_ANYWHERE,
        OFF_TOPIC_PATTERNS_START,
        ON_TOPIC_SIGNALS,
    )
    from citeloop.checks.phrase_patterns import (
        DEFAULT_PATTERNS,
        PhraseMatch,
        PhrasePatterns,
    )
    from citeloop.checks.phrase_scan import (
        find_conversational_phrases,
    )
    from citeloop.checks.plain import (
        check_format_compliance,
        detect_conversational_phrases,
        extract_structured_sections,
        validate_citations,
        validate_complete,
        validate_formatting,
        validate_json,
        validate_length,
        validate_long_response,
        validate_response_structure,
        validate_section_completeness,
        validate_short_response,
    )
    from citeloop.checks.repetition import (
        RepetitionResult,
        calculate_unique_content_ratio,
        detect_repetition,
        repetition_check,
        repetition_within_limit,
        validate_no_repetition,
    )
    from citeloop.checks.section_parser import (
        Section,
        extract_sections,
    )
    from citeloop.checks.sections import (
        SectionReport,
        response_structure_result,
        section_completeness_result,
        sections_check,
    )
    from citeloop.checks.structure import (
        structure_check,
        validate_structure,
    )

_EXPORTS_BY_MODULE: dict[str, tuple[str, ...]] = {
    "citeloop.checks.check": (
        "Check",
        "CheckOutcome",
        "CheckRun",
        "OnFail",
        "Problem",
        "format_problems",
        "require_checks",
        "run_checks",
    ),
    "citeloop.checks.citation_spans": ("CitationSpan",),
    "citeloop.checks.citations": (
        "Citations",
        "citations_check",
        "extract_citations",
    ),
    "citeloop.checks.compliance": (
        "ComplianceResult",
        "compliance_result",
        "has_on_topic_signals",
        "is_off_topic",
    ),
    "citeloop.checks.compliance_problems": ("compliance_check",),
    "citeloop.checks.deduplication": (
        "clean_repetitive_output",
        "deduplicate_sections",
    ),
    "citeloop.checks.formatting": (
        "FormattingResult",
        "formatting_check",
        "formatting_result",
    ),
    "citeloop.checks.json_output": (
        "JsonExtraction",
        "extract_json",
        "json_check",
    ),
    "citeloop.checks.length": (
        "LengthResult",
        "estimate_tokens",
        "length_check",
        "length_result",
        "long_response_result",
        "short_response_result",
    ),
    "citeloop.checks.modes": (
        "CompletenessResult",
        "ResponseMode",
        "complete_check",
        "completeness_result",
    ),
    "citeloop.checks.patterns": (
        "CONVERSATIONAL_PATTERNS",
        "OFF_TOPIC_PATTERNS_ANYWHERE",
        "OFF_TOPIC_PATTERNS_START",
        "ON_TOPIC_SIGNALS",
    ),
    "citeloop.checks.phrase_patterns": (
        "DEFAULT_PATTERNS",
        "PhraseMatch",
        "PhrasePatterns",
    ),
    "citeloop.checks.phrase_scan": ("find_conversational_phrases",),
    "citeloop.checks.plain": (
        "check_format_compliance",
        "detect_conversational_phrases",
        "extract_structured_sections",
        "validate_citations",
        "validate_complete",
        "validate_formatting",
        "validate_json",
        "validate_length",
        "validate_long_response",
        "validate_response_structure",
        "validate_section_completeness",
        "validate_short_response",
    ),
    "citeloop.checks.repetition": (
        "RepetitionResult",
        "calculate_unique_content_ratio",
        "detect_repetition",
        "repetition_check",
        "repetition_within_limit",
        "validate_no_repetition",
    ),
    "citeloop.checks.section_parser": (
        "Section",
        "extract_sections",
    ),
    "citeloop.checks.sections": (
        "SectionReport",
        "response_structure_result",
        "section_completeness_result",
        "sections_check",
    ),
    "citeloop.checks.structure": (
        "structure_check",
        "validate_structure",
    ),
}
"""Each public name, grouped by the module that defines it; imported on first use."""

__all__ = [
    "CONVERSATIONAL_PATTERNS",
    "DEFAULT_PATTERNS",
    "OFF_TOPIC_PATTERNS_ANYWHERE",
    "OFF_TOPIC_PATTERNS_START",
    "ON_TOPIC_SIGNALS",
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
    "completeness_result",
    "compliance_check",
    "compliance_result",
    "deduplicate_sections",
    "detect_conversational_phrases",
    "detect_repetition",
    "estimate_tokens",
    "extract_citations",
    "extract_json",
    "extract_sections",
    "extract_structured_sections",
    "find_conversational_phrases",
    "format_problems",
    "formatting_check",
    "formatting_result",
    "has_on_topic_signals",
    "is_off_topic",
    "json_check",
    "length_check",
    "length_result",
    "long_response_result",
    "repetition_check",
    "repetition_within_limit",
    "require_checks",
    "response_structure_result",
    "run_checks",
    "section_completeness_result",
    "sections_check",
    "short_response_result",
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

__getattr__, __dir__ = lazy_exports(
    __name__,
    {name: module for module, names in _EXPORTS_BY_MODULE.items() for name in names},
    globals(),
)
