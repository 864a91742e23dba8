"""Seeds from a retriever: dense (embedding) retrieval beside the lexical one.

A task that paraphrases the code ("the method that executes the directive") often shares
no word with it, so the full-text search (:mod:`~citeloop.knowledge.search`) misses it.
A retriever over embeddings of the entities can find it. citeloop leaves the embeddings
and the vector store to LangChain: :func:`citeloop.retrievers.entity_documents` turns
the graph's entities into documents of :func:`entity_text` (an entity's id as the
document's ``id`` and ``metadata["entity_id"]``), the user loads them into any vector
store and passes its retriever to :class:`~citeloop.knowledge.injector.ContextInjector`.
The entities the retriever returns seed the ranking walk, the first strongest
(:data:`RANK_DECAY`), at most :data:`MAX_RETRIEVED` of them. This module only reads
what a retriever returns (duck-typed, so the knowledge package imports no LangChain).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from citeloop.errors import ConfigurationError
from citeloop.grounding.mentions import identifier_words
from citeloop.knowledge.model import Entity
from citeloop.knowledge.neighbourhood import admissible
from citeloop.knowledge.store import BatchedGraphStore

MAX_DOCUMENT_SIGNATURE = 150
"""Characters of a signature a document holds."""

MAX_DOCUMENT_DOCSTRING = 300
"""Characters of a docstring a document holds (its opening, where the summary is)."""

RANK_DECAY = 0.9
"""Seed weight of the retriever's n-th document (from 0): ``RANK_DECAY ** n`` times the
first's. A retriever returns documents in order, without scores."""

MAX_RETRIEVED = 64
"""Entities a retriever seeds at most, its first ones a context may hold: the 64th
weighs 0.9 ** 63 (about 0.1%) of the first, and every seed more is walked, so a
retriever asked for thousands of documents would cost seconds and change nothing but
the tail of a context."""


class RetrievedDocument(Protocol):
    """A document as a retriever returns it (LangChain's ``Document``): the entity's id
    in ``metadata["entity_id"]`` or as its ``id``."""

    id: str | None
    metadata: Mapping[str, Any]


@runtime_checkable
class Retriever(Protocol):
    """What the injector asks of a retriever: ``invoke(text)`` returns documents, best
    first (a LangChain ``BaseRetriever``, or any runnable from a string to documents)."""

    def invoke(self, input: str, /, *args: Any, **kwargs: Any) -> Sequence[RetrievedDocument]: ...


def entity_text(entity: Entity) -> str:
    """The text an entity is embedded by: the words of its name, its kind, name and
    owner, its signature and the opening of its docstring (at most about 520
    characters), e.g. ``"default json provider (class DefaultJSONProvider in
    flask.json.provider) (JSONProvider) Provide JSON operations using..."``."""
    owner = entity.id.rpartition(".")[0]
    words = " ".join(identifier_words(entity.name))
    where = f" in {owner}" if owner else ""
    return (
        f"{words} ({entity.kind.value} {entity.name}{where}) "
        f"{entity.signature[:MAX_DOCUMENT_SIGNATURE]} "
        f"{entity.docstring[:MAX_DOCUMENT_DOCSTRING]}"
    ).strip()


def retrieved_ids(retriever: Retriever, text: str) -> list[str]:
    """The entity ids of the documents ``retriever`` returns for ``text``, in order,
    each once.

    Raises:
        ConfigurationError: If the retriever returns something other than a sequence of
            documents, or a document with no entity id (a non-empty string in neither
            ``metadata["entity_id"]``, of any mapping, nor ``id``); the message names the
            document by its position.
    """
    documents = retriever.invoke(text)
    if isinstance(documents, str | bytes) or not isinstance(documents, Sequence):
        raise ConfigurationError(
            f"retriever {type(retriever).__name__} returned {type(documents).__name__}, not "
            "a list of documents; pass a LangChain retriever (vector_store.as_retriever())"
        )
    ids: dict[str, None] = {}
    for at, document in enumerate(documents):
        metadata = getattr(document, "metadata", None)
        in_metadata = metadata.get("entity_id") if isinstance(metadata, Mapping) else None
        entity_id = in_metadata or getattr(document, "id", None)
        if not isinstance(entity_id, str) or not entity_id:
            raise ConfigurationError(
                f"retriever {type(retriever).__name__} returned document {at} "
                f"({type(document).__name__}) with no entity id: metadata['entity_id'] is "
                f"{_shown(in_metadata)}, id {_shown(getattr(document, 'id', None))}; load "
                "the documents of citeloop.entity_documents(store) into its vector store"
            )
        ids.setdefault(entity_id, None)
    return list(ids)


def _shown(value: object) -> str:
    """A value in an error message, with its type when it is not ``None``."""
    return "None" if value is None else f"{value!r:.60} ({type(value).__name__})"


class RetrievedSeeds:
    """The entities a retriever returns for a task text, as seeds of its contexts.

    The retriever is asked once per text (the last ``kept`` texts' ids are kept: a
    retry widens the context of the same task) and never for a blank one (it has no
    meaning to compare, and an embedding API may refuse an empty input). When the graph
    has none of the ids it returned, a warning says so once.

    Args:
        retriever: The retriever (checked: an instance with ``invoke``).
        reads: The graph's reads.
        kept: Task texts whose ids are kept, >= 1.

    Raises:
        ConfigurationError: If ``retriever`` has no ``invoke``, or is a class.
    """

    def __init__(self, retriever: Retriever, reads: BatchedGraphStore, kept: int) -> None:
        if isinstance(retriever, type) or not isinstance(retriever, Retriever):
            got = f"the class {retriever.__name__}" if isinstance(retriever, type) else None
            raise ConfigurationError(
                f"retriever must have invoke(text) -> documents, got "
                f"{got or type(retriever).__name__}; pass vector_store.as_retriever() "
                "(a retriever instance)"
            )
        self.retriever = retriever
        self._reads = reads
        self._kept = kept
        self._ids: dict[str, list[str]] = {}
        self._lock = threading.Lock()  # an injector serves concurrent runs

    def entities(self, text: str, follow_tests: bool) -> list[Entity]:
        """The first :data:`MAX_RETRIEVED` entities of the retriever's documents for
        ``text`` that a context may hold (of the graph, and a test only when tests are
        followed), in the retriever's order.

        Raises:
            ConfigurationError: As :func:`retrieved_ids`.
        """
        if not text.strip():
            return []
        ids = self._ids.get(text)
        fresh = ids is None
        if ids is None:
            ids = retrieved_ids(self.retriever, text)
            with self._lock:
                if len(self._ids) >= self._kept:
                    del self._ids[next(iter(self._ids))]
                self._ids[text] = ids
        entities = self._reads.get_entities(ids)
        if fresh and ids and not entities:
            import logging  # only here: a context's imports stay light

            logging.getLogger(__name__).warning(
                "the graph has none of the %d entity ids retriever %s returned (first: "
                "%.80r; a vector store gives a document without an id one of its own): "
                "load citeloop.entity_documents(store) into its vector store, built from "
                "this graph",
                len(ids),
                type(self.retriever).__name__,
                ids[0],
            )
        admitted = (
            entities[entity_id]
            for entity_id in ids
            if entity_id in entities and admissible(entities[entity_id], follow_tests)
        )
        return list(itertools.islice(admitted, MAX_RETRIEVED))
