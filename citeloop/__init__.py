"""citeloop: LangGraph workflows that make LLM answers use and cite their graph context.

The public API, importable from the package root. Names load on first use, so that
``import citeloop.validation`` (pure Python) does not import LangGraph.

Example:
    >>> from citeloop import GraphContextValidator
    >>> GraphContextValidator().validate("Uses GraphStore.", "class GraphStore").passed
    False
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "CiteloopError": "citeloop.errors",
    "ConfigurationError": "citeloop.errors",
    "SourceTreeError": "citeloop.errors",
    "ValidationError": "citeloop.errors",
    "ContextEntity": "citeloop.knowledge",
    "ContextExpansion": "citeloop.knowledge",
    "ContextInjector": "citeloop.knowledge",
    "Entity": "citeloop.knowledge",
    "EntityKind": "citeloop.knowledge",
    "Fact": "citeloop.knowledge",
    "GraphStore": "citeloop.knowledge",
    "IndexReport": "citeloop.knowledge",
    "InjectedContext": "citeloop.knowledge",
    "MemoryGraphStore": "citeloop.knowledge",
    "Provenance": "citeloop.knowledge",
    "RelationKind": "citeloop.knowledge",
    "SqliteGraphStore": "citeloop.knowledge",
    "Tier": "citeloop.knowledge",
    "index_tree": "citeloop.knowledge",
    "GraphContextValidator": "citeloop.validation",
    "GraphValidationResult": "citeloop.validation",
    "build_retry_prompt": "citeloop.validation",
    "parse_context_entities": "citeloop.validation",
    "GroundedAnswerContext": "citeloop.context",
    "build_grounded_answer_graph": "citeloop.graphs.grounded_answer",
    "ReplayChatModel": "citeloop.models",
    "ReplayRecorder": "citeloop.models",
    "resolve_chat_model": "citeloop.models",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from citeloop.context import GroundedAnswerContext
    from citeloop.errors import (
        CiteloopError,
        ConfigurationError,
        SourceTreeError,
        ValidationError,
    )
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


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'citeloop' has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
