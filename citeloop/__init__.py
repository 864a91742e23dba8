"""citeloop: LangGraph workflows that make LLM answers use and cite their graph context.

Example:
    >>> from citeloop import GraphContextValidator
    >>> GraphContextValidator().validate("Uses GraphStore.", "class GraphStore").passed
    False
"""

from citeloop.context import GroundedAnswerContext, VerbalizeContext
from citeloop.errors import CiteloopError, ConfigurationError, SourceTreeError, ValidationError
from citeloop.graphs.grounded_answer import build_grounded_answer_graph
from citeloop.graphs.verbalize import build_verbalize_graph
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
from citeloop.validation import (
    Critique,
    FactIdCritic,
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
    "Critique",
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
    "PathHop",
    "Provenance",
    "RelationKind",
    "ReplayChatModel",
    "ReplayRecorder",
    "RetrievalPath",
    "SourceTreeError",
    "SqliteGraphStore",
    "Tier",
    "UnknownEntityError",
    "ValidationError",
    "VerbalizeContext",
    "build_grounded_answer_graph",
    "build_retry_prompt",
    "build_verbalize_graph",
    "index_tree",
    "parse_context_entities",
    "recall_paths",
    "resolve_chat_model",
]
