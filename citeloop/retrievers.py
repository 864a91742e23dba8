"""The graph's entities as LangChain documents, to give a context injector a retriever.

Load them into any vector store with the embeddings of your choice and pass its
retriever to :class:`~citeloop.knowledge.ContextInjector` (see
:mod:`citeloop.knowledge.retrieval` for how it seeds a context).

Example:
    >>> from langchain_core.vectorstores import InMemoryVectorStore  # doctest: +SKIP
    >>> documents = entity_documents(store)  # doctest: +SKIP
    >>> vectors = InMemoryVectorStore.from_documents(documents, embeddings)  # doctest: +SKIP
    >>> retriever = vectors.as_retriever(search_kwargs={"k": 12})  # doctest: +SKIP
    >>> injector = ContextInjector(store, retriever=retriever)  # doctest: +SKIP
"""

from __future__ import annotations

from langchain_core.documents import Document

from citeloop.knowledge.model import Entity
from citeloop.knowledge.retrieval import entity_text
from citeloop.knowledge.search import entity_document
from citeloop.knowledge.store import GraphStore


def entity_documents(store: GraphStore) -> list[Document]:
    """One ``Document`` per entity a context may hold (those the full-text search
    indexes: classes, functions, methods, attributes, tests, requirements, decisions).

    Args:
        store: The graph.

    Returns:
        Documents in the store's order: ``page_content`` is
        :func:`~citeloop.knowledge.retrieval.entity_text`, ``id`` and
        ``metadata["entity_id"]`` the entity's id, and ``metadata`` also holds ``kind``,
        and ``path`` and ``line`` when the entity has them (some vector stores refuse a
        ``None`` value). Build them again after re-indexing: a document of an entity
        the graph no longer has is left out of a context.
    """
    return [
        Document(
            page_content=entity_text(entity),
            id=entity.id,
            metadata=_metadata(entity),
        )
        for entity in store.all_entities()
        if entity_document(entity) is not None
    ]


def _metadata(entity: Entity) -> dict[str, str | int]:
    metadata: dict[str, str | int] = {"entity_id": entity.id, "kind": entity.kind.value}
    if entity.path:
        metadata["path"] = entity.path
    if entity.line:
        metadata["line"] = entity.line
    return metadata
