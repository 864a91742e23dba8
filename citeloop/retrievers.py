"""Retrievers for a context injector: the graph's entities as LangChain documents, and
a chat model that rewrites a task into the names of its code.

Load :func:`entity_documents` into any vector store with the embeddings of your choice
and pass its retriever to :class:`~citeloop.knowledge.ContextInjector`, or pass a
:class:`QueryRewriteRetriever` (see :mod:`citeloop.knowledge.retrieval` for how a
retriever seeds a context).

Example:
    >>> from langchain_core.vectorstores import InMemoryVectorStore  # doctest: +SKIP
    >>> documents = entity_documents(store)  # doctest: +SKIP
    >>> vectors = InMemoryVectorStore.from_documents(documents, embeddings)  # doctest: +SKIP
    >>> retriever = vectors.as_retriever(search_kwargs={"k": 12})  # doctest: +SKIP
    >>> injector = ContextInjector(store, retriever=retriever)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable
from pydantic import ConfigDict, Field, StrictInt, field_validator

from citeloop.knowledge.model import Entity
from citeloop.knowledge.retrieval import entity_text
from citeloop.knowledge.rewrite import named_entities, outline, reply_names, rewrite_prompt
from citeloop.knowledge.search import entity_document
from citeloop.knowledge.store import GraphStore
from citeloop.text import estimated_tokens


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
        _document(entity) for entity in store.all_entities() if entity_document(entity) is not None
    ]


def _document(entity: Entity) -> Document:
    return Document(page_content=entity_text(entity), id=entity.id, metadata=_metadata(entity))


def _metadata(entity: Entity) -> dict[str, str | int]:
    metadata: dict[str, str | int] = {"entity_id": entity.id, "kind": entity.kind.value}
    if entity.path:
        metadata["path"] = entity.path
    if entity.line:
        metadata["line"] = entity.line
    return metadata


class QueryRewriteRetriever(BaseRetriever):
    """A retriever that asks a chat model which code a task is about, by name.

    Query rewriting (Ma et al., "Query Rewriting for Retrieval-Augmented Large Language
    Models", EMNLP 2023): the model sees the task and an outline of the files that hold
    its best lexical hits (:func:`citeloop.knowledge.rewrite.outline`), and replies with
    the names of the classes, functions and methods the task concerns, one per line. The
    documents returned are those of the graph's entities with those names, in the
    reply's order (:func:`citeloop.knowledge.rewrite.named_entities`); a name the graph
    lacks is left out, so the model cannot invent a seed. Pass it to
    ``ContextInjector(store, retriever=...)``: the injector asks once per task text.

    Each new task costs one model call (a blank task none). Given to an injector of
    your own, the call is outside a run's ``tokens`` and ``max_total_tokens``, and a
    model error propagates (give a model with ``.with_retry()`` for transient ones);
    the graph's ``rewrite_query`` counts the call and builds the context without it
    when it fails.

    Attributes:
        model: A chat model (any runnable from messages to a message or a string).
        store: The graph the names are looked up in (the injector's).
        max_names: Names asked for and read at most, >= 1.
        outline_tokens: Tokens the outline may take, >= 0 (0: the task alone).
        count_tokens: Counts the outline's tokens (default: characters / 4).

    Example:
        >>> retriever = QueryRewriteRetriever(model=model, store=store)  # doctest: +SKIP
        >>> injector = ContextInjector(store, retriever=retriever)  # doctest: +SKIP
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: Runnable[Any, Any]
    store: Any
    max_names: StrictInt = Field(default=12, ge=1)
    outline_tokens: StrictInt = Field(default=1_600, ge=0)
    count_tokens: Callable[[str], int] = estimated_tokens

    @field_validator("store")
    @classmethod
    def _a_graph(cls, store: object) -> object:
        if not isinstance(store, GraphStore):
            raise ValueError(
                f"store must be a knowledge-graph store, got {type(store).__name__}; pass "
                "SqliteGraphStore(path) (the injector's)"
            )
        return store

    def prompt(self, query: str) -> tuple[list[BaseMessage], frozenset[str]]:
        """The messages the model is sent for ``query`` (system, then human), and the
        files the outline shows."""
        text, shown = outline(self.store, query, self.outline_tokens, self.count_tokens)
        system, human = rewrite_prompt(query, text, self.max_names)
        return [SystemMessage(system), HumanMessage(human)], shown

    def _documents(self, reply: object, shown: frozenset[str]) -> list[Document]:
        text = reply if isinstance(reply, str) else getattr(reply, "text", "")
        names = reply_names(text, self.max_names)
        return [_document(entity) for entity in named_entities(self.store, names, shown)]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        if not query.strip():
            return []  # nothing to ask about
        messages, shown = self.prompt(query)
        reply = self.model.invoke(messages, config={"callbacks": run_manager.get_child()})
        return self._documents(reply, shown)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        if not query.strip():
            return []
        messages, shown = self.prompt(query)
        reply = await self.model.ainvoke(messages, config={"callbacks": run_manager.get_child()})
        return self._documents(reply, shown)
