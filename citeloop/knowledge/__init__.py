"""The knowledge graph: data model, stores, the Python indexer and the context injector.

Example:
    >>> from citeloop.knowledge import ContextInjector, SqliteGraphStore, index_tree
    >>> with SqliteGraphStore("graph.db") as store:  # doctest: +SKIP
    ...     index_tree("src", store)
    ...     context = ContextInjector(store).inject("How does Indexer.run work?")
"""

from citeloop.knowledge.indexing.indexer import IndexReport, ProgressCallback, index_tree
from citeloop.knowledge.indexing.sources import SkippedFile, check_root
from citeloop.knowledge.injector import TEST_TASK_TYPES, ContextInjector
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
from citeloop.knowledge.sqlite_store import SqliteGraphStore
from citeloop.knowledge.store import (
    BatchedGraphStore,
    GraphStore,
    MemoryGraphStore,
    compute_snapshot,
)

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
