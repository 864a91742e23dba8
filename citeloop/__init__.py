"""citeloop: LangGraph workflows that make LLM answers use and cite their graph context.

Example:
    >>> from citeloop import GraphContextValidator
    >>> GraphContextValidator().validate("Uses GraphStore.", "class GraphStore").passed
    False
"""

from typing import TYPE_CHECKING

from citeloop._lazy import lazy_exports

if TYPE_CHECKING:  # the names as type checkers and IDEs see them
    from citeloop.checks.check import (
        Check,
        CheckOutcome,
        OnFail,
        Problem,
    )
    from citeloop.checks.citations import (
        citations_check,
        validate_citations,
    )
    from citeloop.checks.compliance import (
        check_format_compliance,
        compliance_check,
        detect_conversational_phrases,
        has_on_topic_signals,
        is_off_topic,
    )
    from citeloop.checks.json_output import (
        json_check,
        validate_json,
    )
    from citeloop.checks.length import (
        estimate_tokens,
        length_check,
        validate_length,
        validate_long_response,
        validate_short_response,
    )
    from citeloop.checks.modes import (
        ResponseMode,
        complete_check,
        formatting_check,
        validate_complete,
        validate_formatting,
    )
    from citeloop.checks.repetition import (
        RepetitionResult,
        calculate_unique_content_ratio,
        clean_repetitive_output,
        deduplicate_sections,
        detect_repetition,
        repetition_check,
        validate_no_repetition,
    )
    from citeloop.checks.sections import (
        extract_structured_sections,
        sections_check,
        validate_response_structure,
        validate_section_completeness,
    )
    from citeloop.checks.structure import (
        structure_check,
        validate_structure,
    )
    from citeloop.context import (
        DeliveryAuditContext,
        GroundedAnswerContext,
        OutputGuardContext,
        VerbalizeContext,
    )
    from citeloop.errors import CiteloopError, ConfigurationError, SourceTreeError, ValidationError
    from citeloop.graphs.delivery_audit import (
        build_audited_answer_graph,
        build_delivery_audit_graph,
    )
    from citeloop.graphs.grounded_answer import build_grounded_answer_graph
    from citeloop.graphs.output_guard import build_output_guard_graph
    from citeloop.graphs.verbalize import build_verbalize_graph
    from citeloop.grounding.context_text import (
        parse_context_entities,
    )
    from citeloop.grounding.critics import (
        Critique,
        FactIdCritic,
    )
    from citeloop.grounding.graph_context import (
        GraphContextValidator,
        GraphValidationResult,
    )
    from citeloop.grounding.retry_prompt import (
        build_retry_prompt,
    )
    from citeloop.knowledge import (
        ContextEntity,
        ContextExpansion,
        ContextInjector,
        Entity,
        EntityKind,
        EntityRef,
        Fact,
        GraphStore,
        IndexReport,
        InjectedContext,
        MemoryGraphStore,
        PathHop,
        Provenance,
        RelationKind,
        RetrievalPath,
        SqliteGraphStore,
        Tier,
        UnknownEntityError,
        index_tree,
        recall_paths,
    )
    from citeloop.models import ReplayChatModel, ReplayRecorder, resolve_chat_model
    from citeloop.validator_loop import ValidatorLoop, ValidatorLoopResult

_EXPORTS_BY_MODULE: dict[str, tuple[str, ...]] = {
    "citeloop.context": (
        "DeliveryAuditContext",
        "GroundedAnswerContext",
        "OutputGuardContext",
        "VerbalizeContext",
    ),
    "citeloop.errors": (
        "CiteloopError",
        "ConfigurationError",
        "SourceTreeError",
        "ValidationError",
    ),
    "citeloop.graphs.delivery_audit": (
        "build_audited_answer_graph",
        "build_delivery_audit_graph",
    ),
    "citeloop.graphs.grounded_answer": ("build_grounded_answer_graph",),
    "citeloop.graphs.output_guard": ("build_output_guard_graph",),
    "citeloop.graphs.verbalize": ("build_verbalize_graph",),
    "citeloop.knowledge": (
        "ContextEntity",
        "ContextExpansion",
        "ContextInjector",
        "Entity",
        "EntityKind",
        "EntityRef",
        "Fact",
        "GraphStore",
        "IndexReport",
        "InjectedContext",
        "MemoryGraphStore",
        "PathHop",
        "Provenance",
        "RelationKind",
        "RetrievalPath",
        "SqliteGraphStore",
        "Tier",
        "UnknownEntityError",
        "index_tree",
        "recall_paths",
    ),
    "citeloop.validator_loop": ("ValidatorLoop", "ValidatorLoopResult"),
    "citeloop.models": (
        "ReplayChatModel",
        "ReplayRecorder",
        "resolve_chat_model",
    ),
    "citeloop.checks.check": (
        "Check",
        "CheckOutcome",
        "OnFail",
        "Problem",
    ),
    "citeloop.checks.citations": (
        "citations_check",
        "validate_citations",
    ),
    "citeloop.checks.compliance": (
        "check_format_compliance",
        "compliance_check",
        "detect_conversational_phrases",
        "has_on_topic_signals",
        "is_off_topic",
    ),
    "citeloop.checks.json_output": (
        "json_check",
        "validate_json",
    ),
    "citeloop.checks.length": (
        "estimate_tokens",
        "length_check",
        "validate_length",
        "validate_long_response",
        "validate_short_response",
    ),
    "citeloop.checks.modes": (
        "ResponseMode",
        "complete_check",
        "formatting_check",
        "validate_complete",
        "validate_formatting",
    ),
    "citeloop.checks.repetition": (
        "RepetitionResult",
        "calculate_unique_content_ratio",
        "clean_repetitive_output",
        "deduplicate_sections",
        "detect_repetition",
        "repetition_check",
        "validate_no_repetition",
    ),
    "citeloop.checks.sections": (
        "extract_structured_sections",
        "sections_check",
        "validate_response_structure",
        "validate_section_completeness",
    ),
    "citeloop.checks.structure": (
        "structure_check",
        "validate_structure",
    ),
    "citeloop.grounding.context_text": ("parse_context_entities",),
    "citeloop.grounding.critics": (
        "Critique",
        "FactIdCritic",
    ),
    "citeloop.grounding.graph_context": (
        "GraphContextValidator",
        "GraphValidationResult",
    ),
    "citeloop.grounding.retry_prompt": ("build_retry_prompt",),
}
"""Each public name, grouped by the module that defines it; imported on first use."""

__all__ = [
    "Check",
    "CheckOutcome",
    "CiteloopError",
    "ConfigurationError",
    "ContextEntity",
    "ContextExpansion",
    "ContextInjector",
    "Critique",
    "DeliveryAuditContext",
    "Entity",
    "EntityKind",
    "EntityRef",
    "Fact",
    "FactIdCritic",
    "GraphContextValidator",
    "GraphStore",
    "GraphValidationResult",
    "GroundedAnswerContext",
    "IndexReport",
    "InjectedContext",
    "MemoryGraphStore",
    "OnFail",
    "OutputGuardContext",
    "PathHop",
    "Problem",
    "Provenance",
    "RelationKind",
    "RepetitionResult",
    "ReplayChatModel",
    "ReplayRecorder",
    "ResponseMode",
    "RetrievalPath",
    "SourceTreeError",
    "SqliteGraphStore",
    "Tier",
    "UnknownEntityError",
    "ValidationError",
    "ValidatorLoop",
    "ValidatorLoopResult",
    "VerbalizeContext",
    "build_audited_answer_graph",
    "build_delivery_audit_graph",
    "build_grounded_answer_graph",
    "build_output_guard_graph",
    "build_retry_prompt",
    "build_verbalize_graph",
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
    "formatting_check",
    "has_on_topic_signals",
    "index_tree",
    "is_off_topic",
    "json_check",
    "length_check",
    "parse_context_entities",
    "recall_paths",
    "repetition_check",
    "resolve_chat_model",
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
