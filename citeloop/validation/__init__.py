"""Pure validators over strings: no LangGraph, no I/O.

``GraphContextValidator`` checks that an answer uses and cites the knowledge-graph
context injected into its prompt; ``build_retry_prompt`` turns a failed result into the
prompt that asks again. Critics (``FactIdCritic``) judge a narrative of a retrieval path.
"""

from citeloop.validation.citation_section import (
    DEFAULT_SECTION_LABELS,
    CitationSection,
    find_citation_section,
)
from citeloop.validation.context_text import ParsedEntity, parse_context_entities
from citeloop.validation.critics import (
    Critic,
    Critique,
    FactIdCritic,
    mentions_fact_id,
    missing_fact_ids,
)
from citeloop.validation.graph_context import (
    RETRY_PROMPT_HEADER,
    RETRY_PROMPT_TEMPLATE,
    GraphContextValidator,
    GraphValidationResult,
    build_retry_prompt,
)
from citeloop.validation.matching import NameScanner

__all__ = [
    "DEFAULT_SECTION_LABELS",
    "RETRY_PROMPT_HEADER",
    "RETRY_PROMPT_TEMPLATE",
    "CitationSection",
    "Critic",
    "Critique",
    "FactIdCritic",
    "GraphContextValidator",
    "GraphValidationResult",
    "NameScanner",
    "ParsedEntity",
    "build_retry_prompt",
    "find_citation_section",
    "mentions_fact_id",
    "missing_fact_ids",
    "parse_context_entities",
]
