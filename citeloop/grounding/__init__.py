"""Does an answer use and cite the knowledge-graph context injected into its prompt: pure
functions and small classes over strings, no LangGraph, no I/O.

- ``GraphContextValidator`` (the source design 000's API, plus) checks references,
  citations and substance; ``build_retry_prompt`` turns a failed result into the prompt
  that asks again.
- ``find_citation_section`` reads the answer's ``Entities used`` section;
  ``parse_context_entities`` reads rendered context text back into entities;
  ``NameScanner`` finds names in text, boundary-aware.
- Critics (``FactIdCritic``) judge a narrative of a retrieval path.

This package may import :mod:`citeloop.checks`; the checks never import it.
"""

from typing import TYPE_CHECKING

from citeloop._lazy import lazy_exports

if TYPE_CHECKING:  # the names as type checkers and IDEs see them
    from citeloop.grounding.citation_section import (
        DEFAULT_SECTION_LABELS,
        CitationSection,
        CitedLocation,
        find_citation_section,
    )
    from citeloop.grounding.context_text import (
        ParsedEntity,
        Place,
        parse_context_entities,
    )
    from citeloop.grounding.critics import (
        Critic,
        Critique,
        FactIdCritic,
        mentions_fact_id,
        missing_fact_ids,
    )
    from citeloop.grounding.graph_context import (
        COMPLIANCE_THRESHOLD,
        MAX_VALIDATION_RETRIES,
        GraphContextValidator,
        IndexedContext,
        index_context,
    )
    from citeloop.grounding.matching import (
        NameScanner,
    )
    from citeloop.grounding.results import (
        GraphValidationResult,
        ValidationResult,
    )
    from citeloop.grounding.retry_prompt import (
        CHECKS_RETRY_HEADER,
        RETRY_PROMPT_HEADER,
        RETRY_PROMPT_TEMPLATE,
        RULE_SUMMARIES,
        SAID_LACKING_HEADER,
        WIDENED_HEADER,
        build_retry_prompt,
    )

_EXPORTS_BY_MODULE: dict[str, tuple[str, ...]] = {
    "citeloop.grounding.citation_section": (
        "CitationSection",
        "CitedLocation",
        "DEFAULT_SECTION_LABELS",
        "find_citation_section",
    ),
    "citeloop.grounding.context_text": (
        "ParsedEntity",
        "Place",
        "parse_context_entities",
    ),
    "citeloop.grounding.critics": (
        "Critic",
        "Critique",
        "FactIdCritic",
        "mentions_fact_id",
        "missing_fact_ids",
    ),
    "citeloop.grounding.graph_context": (
        "COMPLIANCE_THRESHOLD",
        "GraphContextValidator",
        "IndexedContext",
        "MAX_VALIDATION_RETRIES",
        "index_context",
    ),
    "citeloop.grounding.matching": ("NameScanner",),
    "citeloop.grounding.results": (
        "GraphValidationResult",
        "ValidationResult",
    ),
    "citeloop.grounding.retry_prompt": (
        "CHECKS_RETRY_HEADER",
        "RETRY_PROMPT_HEADER",
        "RETRY_PROMPT_TEMPLATE",
        "RULE_SUMMARIES",
        "SAID_LACKING_HEADER",
        "WIDENED_HEADER",
        "build_retry_prompt",
    ),
}
"""Each public name, grouped by the module that defines it; imported on first use."""

__all__ = [
    "CHECKS_RETRY_HEADER",
    "COMPLIANCE_THRESHOLD",
    "DEFAULT_SECTION_LABELS",
    "MAX_VALIDATION_RETRIES",
    "RETRY_PROMPT_HEADER",
    "RETRY_PROMPT_TEMPLATE",
    "RULE_SUMMARIES",
    "SAID_LACKING_HEADER",
    "WIDENED_HEADER",
    "CitationSection",
    "CitedLocation",
    "Critic",
    "Critique",
    "FactIdCritic",
    "GraphContextValidator",
    "GraphValidationResult",
    "IndexedContext",
    "NameScanner",
    "ParsedEntity",
    "Place",
    "ValidationResult",
    "build_retry_prompt",
    "find_citation_section",
    "index_context",
    "mentions_fact_id",
    "missing_fact_ids",
    "parse_context_entities",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {name: module for module, names in _EXPORTS_BY_MODULE.items() for name in names},
    globals(),
)
