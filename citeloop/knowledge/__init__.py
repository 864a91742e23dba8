"""The knowledge graph: data model, stores, the Python indexer and the context injector.

Example:
    >>> from citeloop.knowledge import ContextInjector, SqliteGraphStore, index_tree
    >>> with SqliteGraphStore("graph.db") as store:  # doctest: +SKIP
    ...     index_tree("src", store)
    ...     context = ContextInjector(store).inject("How does Indexer.run work?")
"""

from typing import TYPE_CHECKING

from citeloop._lazy import lazy_exports

if TYPE_CHECKING:  # the names as type checkers and IDEs see them
    from citeloop.knowledge.indexing.indexer import IndexReport, ProgressCallback, index_tree
    from citeloop.knowledge.indexing.sources import SkippedFile, check_root
    from citeloop.knowledge.injector import ContextInjector
    from citeloop.knowledge.model import (
        ContextEntity,
        ContextExpansion,
        Entity,
        EntityKind,
        Fact,
        InjectedContext,
        Provenance,
        RelationKind,
        Tier,
        Visibility,
        make_fact_id,
        visibility_of,
    )
    from citeloop.knowledge.paths import (
        EntityRef,
        PathHop,
        PathRecall,
        RetrievalPath,
        UnknownEntityError,
        path_distance,
        recall_paths,
        render_hops,
        resolve_entities,
    )
    from citeloop.knowledge.render import DECISIONS_HEADING
    from citeloop.knowledge.retrieval import Retriever
    from citeloop.knowledge.selection import TEST_TASK_TYPES
    from citeloop.knowledge.sqlite_store import SqliteGraphStore
    from citeloop.knowledge.store import (
        BatchedGraphStore,
        GraphStore,
        MemoryGraphStore,
        compute_snapshot,
    )

_EXPORTS_BY_MODULE: dict[str, tuple[str, ...]] = {
    "citeloop.knowledge.indexing.indexer": (
        "IndexReport",
        "ProgressCallback",
        "index_tree",
    ),
    "citeloop.knowledge.indexing.sources": (
        "SkippedFile",
        "check_root",
    ),
    "citeloop.knowledge.injector": ("ContextInjector",),
    "citeloop.knowledge.model": (
        "ContextEntity",
        "ContextExpansion",
        "Entity",
        "EntityKind",
        "Fact",
        "InjectedContext",
        "Provenance",
        "RelationKind",
        "Tier",
        "Visibility",
        "make_fact_id",
        "visibility_of",
    ),
    "citeloop.knowledge.paths": (
        "EntityRef",
        "PathHop",
        "PathRecall",
        "RetrievalPath",
        "UnknownEntityError",
        "path_distance",
        "recall_paths",
        "render_hops",
        "resolve_entities",
    ),
    "citeloop.knowledge.render": ("DECISIONS_HEADING",),
    "citeloop.knowledge.retrieval": ("Retriever",),
    "citeloop.knowledge.selection": ("TEST_TASK_TYPES",),
    "citeloop.knowledge.sqlite_store": ("SqliteGraphStore",),
    "citeloop.knowledge.store": (
        "BatchedGraphStore",
        "GraphStore",
        "MemoryGraphStore",
        "compute_snapshot",
    ),
}
"""Each public name, grouped by the module that defines it; imported on first use."""

__all__ = [
    "DECISIONS_HEADING",
    "TEST_TASK_TYPES",
    "BatchedGraphStore",
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
    "PathRecall",
    "ProgressCallback",
    "Provenance",
    "RelationKind",
    "RetrievalPath",
    "Retriever",
    "SkippedFile",
    "SqliteGraphStore",
    "Tier",
    "UnknownEntityError",
    "Visibility",
    "check_root",
    "compute_snapshot",
    "index_tree",
    "make_fact_id",
    "path_distance",
    "recall_paths",
    "render_hops",
    "resolve_entities",
    "visibility_of",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {name: module for module, names in _EXPORTS_BY_MODULE.items() for name in names},
    globals(),
)
