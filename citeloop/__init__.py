"""citeloop: LangGraph workflows that make LLM answers use and cite their graph context.

Example:
    >>> from citeloop import GraphContextValidator
    >>> GraphContextValidator().validate("Uses GraphStore.", "class GraphStore").passed
    False
"""

from citeloop.context import GroundedAnswerContext
from citeloop.errors import CiteloopError, ConfigurationError, SourceTreeError, ValidationError
from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.knowledge import (
    ContextEntity,
    ContextExpansion,
    ContextInjector,
    Entity,
    EntityKind,
    Fact,
    GraphStore,
    IndexReport,
    InjectedContext,
    MemoryGraphStore,
    Provenance,
    RelationKind,
    SqliteGraphStore,
    Tier,
    index_tree,
)
from citeloop.models import ReplayChatModel, ReplayRecorder, resolve_chat_model
from citeloop.validation import (
    GraphContextValidator,
    GraphValidationResult,
    build_retry_prompt,
    parse_context_entities,
)

__all__ = [
    "CiteloopError",
    "ConfigurationError",
    "ContextEntity",
    "ContextExpansion",
    "ContextInjector",
    "Entity",
    "EntityKind",
    "Fact",
    "GraphContextValidator",
    "GraphStore",
    "GraphValidationResult",
    "GroundedAnswerContext",
    "IndexReport",
    "InjectedContext",
    "MemoryGraphStore",
    "Provenance",
    "RelationKind",
    "ReplayChatModel",
    "ReplayRecorder",
    "SourceTreeError",
    "SqliteGraphStore",
    "Tier",
    "ValidationError",
    "build_grounded_answer_graph",
    "build_retry_prompt",
    "index_tree",
    "parse_context_entities",
    "resolve_chat_model",
]
