"""Pure validators over strings: no LangGraph, no I/O.

- Grounding: ``GraphContextValidator`` checks that an answer uses and cites the
  knowledge-graph context injected into its prompt; ``build_retry_prompt`` turns a failed
  result into the prompt that asks again. Critics (``FactIdCritic``) judge a narrative of
  a retrieval path.
- Output validators: JSON (``validate_json``), length (``validate_length``,
  ``estimate_tokens``), JSON Schema (``validate_structure``), citations
  (``validate_citations``), formatting and response modes (``validate_complete``),
  format compliance (``check_format_compliance``, ``is_off_topic``), repetition
  (``detect_repetition``, ``clean_repetitive_output``) and required sections
  (``validate_section_completeness``).
- ``Check``: any validator behind one signature, ``check(text) -> CheckOutcome``, with a
  failure policy (``OnFail``); each module has a ``*_check`` factory.

Error contract: schema-level checks (JSON, JSON Schema, structured mode) raise
:class:`citeloop.ValidationError` with structured ``details``; signal checks return values
and never raise on odd text. Bad settings raise :class:`citeloop.ConfigurationError`.
"""

from typing import TYPE_CHECKING

from citeloop._lazy import lazy_exports

if TYPE_CHECKING:  # the names as type checkers and IDEs see them
    from citeloop.validation.checks import (
        Check,
        CheckOutcome,
        CheckRun,
        OnFail,
        Problem,
        format_problems,
        require_checks,
        run_checks,
    )
    from citeloop.validation.citation_section import (
        DEFAULT_SECTION_LABELS,
        CitationSection,
        CitedLocation,
        find_citation_section,
    )
    from citeloop.validation.citations import (
        Citations,
        CitationSpan,
        citations_check,
        validate_citations,
    )
    from citeloop.validation.compliance import (
        DEFAULT_PATTERNS,
        ComplianceResult,
        PhraseMatch,
        PhrasePatterns,
        check_format_compliance,
        compliance_check,
        detect_conversational_phrases,
        has_on_topic_signals,
        is_off_topic,
    )
    from citeloop.validation.context_text import ParsedEntity, Place, parse_context_entities
    from citeloop.validation.critics import (
        Critic,
        Critique,
        FactIdCritic,
        mentions_fact_id,
        missing_fact_ids,
    )
    from citeloop.validation.graph_context import GraphContextValidator, GraphValidationResult
    from citeloop.validation.json_output import JsonExtraction, json_check, validate_json
    from citeloop.validation.length import (
        LengthResult,
        estimate_tokens,
        length_check,
        validate_length,
        validate_long_response,
        validate_short_response,
    )
    from citeloop.validation.matching import NameScanner
    from citeloop.validation.modes import (
        CompletenessResult,
        FormattingResult,
        ResponseMode,
        complete_check,
        formatting_check,
        validate_complete,
        validate_formatting,
    )
    from citeloop.validation.repetition import (
        RepetitionResult,
        calculate_unique_content_ratio,
        clean_repetitive_output,
        deduplicate_sections,
        detect_repetition,
        repetition_check,
        validate_no_repetition,
    )
    from citeloop.validation.retry_prompt import (
        CHECKS_RETRY_HEADER,
        RETRY_PROMPT_HEADER,
        RETRY_PROMPT_TEMPLATE,
        RULE_SUMMARIES,
        build_retry_prompt,
    )
    from citeloop.validation.sections import (
        Section,
        SectionReport,
        extract_structured_sections,
        sections_check,
        validate_response_structure,
        validate_section_completeness,
    )
    from citeloop.validation.structure import structure_check, validate_structure

_EXPORTS_BY_MODULE: dict[str, tuple[str, ...]] = {
    "citeloop.validation.checks": (
        "Check",
        "CheckOutcome",
        "CheckRun",
        "OnFail",
        "Problem",
        "format_problems",
        "require_checks",
        "run_checks",
    ),
    "citeloop.validation.citation_section": (
        "DEFAULT_SECTION_LABELS",
        "CitationSection",
        "CitedLocation",
        "find_citation_section",
    ),
    "citeloop.validation.citations": (
        "Citations",
        "CitationSpan",
        "citations_check",
        "validate_citations",
    ),
    "citeloop.validation.compliance": (
        "DEFAULT_PATTERNS",
        "ComplianceResult",
        "PhraseMatch",
        "PhrasePatterns",
        "check_format_compliance",
        "compliance_check",
        "detect_conversational_phrases",
        "has_on_topic_signals",
        "is_off_topic",
    ),
    "citeloop.validation.context_text": (
        "ParsedEntity",
        "Place",
        "parse_context_entities",
    ),
    "citeloop.validation.critics": (
        "Critic",
        "Critique",
        "FactIdCritic",
        "mentions_fact_id",
        "missing_fact_ids",
    ),
    "citeloop.validation.graph_context": (
        "GraphContextValidator",
        "GraphValidationResult",
    ),
    "citeloop.validation.json_output": (
        "JsonExtraction",
        "json_check",
        "validate_json",
    ),
    "citeloop.validation.length": (
        "LengthResult",
        "estimate_tokens",
        "length_check",
        "validate_length",
        "validate_long_response",
        "validate_short_response",
    ),
    "citeloop.validation.matching": ("NameScanner",),
    "citeloop.validation.modes": (
        "CompletenessResult",
        "FormattingResult",
        "ResponseMode",
        "complete_check",
        "formatting_check",
        "validate_complete",
        "validate_formatting",
    ),
    "citeloop.validation.repetition": (
        "RepetitionResult",
        "calculate_unique_content_ratio",
        "clean_repetitive_output",
        "deduplicate_sections",
        "detect_repetition",
        "repetition_check",
        "validate_no_repetition",
    ),
    "citeloop.validation.retry_prompt": (
        "CHECKS_RETRY_HEADER",
        "RETRY_PROMPT_HEADER",
        "RETRY_PROMPT_TEMPLATE",
        "RULE_SUMMARIES",
        "build_retry_prompt",
    ),
    "citeloop.validation.sections": (
        "Section",
        "SectionReport",
        "extract_structured_sections",
        "sections_check",
        "validate_response_structure",
        "validate_section_completeness",
    ),
    "citeloop.validation.structure": (
        "structure_check",
        "validate_structure",
    ),
}
"""Each public name, grouped by the module that defines it; imported on first use."""

__all__ = [
    "CHECKS_RETRY_HEADER",
    "DEFAULT_PATTERNS",
    "DEFAULT_SECTION_LABELS",
    "RETRY_PROMPT_HEADER",
    "RETRY_PROMPT_TEMPLATE",
    "RULE_SUMMARIES",
    "Check",
    "CheckOutcome",
    "CheckRun",
    "CitationSection",
    "CitationSpan",
    "Citations",
    "CitedLocation",
    "CompletenessResult",
    "ComplianceResult",
    "Critic",
    "Critique",
    "FactIdCritic",
    "FormattingResult",
    "GraphContextValidator",
    "GraphValidationResult",
    "JsonExtraction",
    "LengthResult",
    "NameScanner",
    "OnFail",
    "ParsedEntity",
    "PhraseMatch",
    "PhrasePatterns",
    "Place",
    "Problem",
    "RepetitionResult",
    "ResponseMode",
    "Section",
    "SectionReport",
    "build_retry_prompt",
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
    "find_citation_section",
    "format_problems",
    "formatting_check",
    "has_on_topic_signals",
    "is_off_topic",
    "json_check",
    "length_check",
    "mentions_fact_id",
    "missing_fact_ids",
    "parse_context_entities",
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

__getattr__, __dir__ = lazy_exports(
    __name__,
    {name: module for module, names in _EXPORTS_BY_MODULE.items() for name in names},
    globals(),
)
