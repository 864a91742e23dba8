"""Pure validators over strings: no LangGraph, no I/O.

``GraphContextValidator`` checks that an answer uses and cites the knowledge-graph
context injected into its prompt; ``build_retry_prompt`` turns a failed result into the
prompt that asks again.
"""

from citeloop.validation.citation_section import (
    DEFAULT_SECTION_LABELS,
    CitationSection,
    find_citation_section,
)
from citeloop.validation.context_text import ParsedEntity, parse_context_entities
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
    "GraphContextValidator",
    "GraphValidationResult",
    "NameScanner",
    "ParsedEntity",
    "build_retry_prompt",
    "find_citation_section",
    "parse_context_entities",
]
