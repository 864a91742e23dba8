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

from citeloop.grounding.citation_section import (
    DEFAULT_SECTION_LABELS,
    CitationSection,
    CitedLocation,
    find_citation_section,
)
from citeloop.grounding.context_text import ParsedEntity, Place, parse_context_entities
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
)
from citeloop.grounding.matching import NameScanner
from citeloop.grounding.results import GraphValidationResult, ValidationResult
from citeloop.grounding.retry_prompt import (
    CHECKS_RETRY_HEADER,
    RETRY_PROMPT_HEADER,
    RETRY_PROMPT_TEMPLATE,
    RULE_SUMMARIES,
    build_retry_prompt,
)

__all__ = [
    "CHECKS_RETRY_HEADER",
    "COMPLIANCE_THRESHOLD",
    "DEFAULT_SECTION_LABELS",
    "MAX_VALIDATION_RETRIES",
    "RETRY_PROMPT_HEADER",
    "RETRY_PROMPT_TEMPLATE",
    "RULE_SUMMARIES",
    "CitationSection",
    "CitedLocation",
    "Critic",
    "Critique",
    "FactIdCritic",
    "GraphContextValidator",
    "GraphValidationResult",
    "NameScanner",
    "ParsedEntity",
    "Place",
    "ValidationResult",
    "build_retry_prompt",
    "find_citation_section",
    "mentions_fact_id",
    "missing_fact_ids",
    "parse_context_entities",
]
