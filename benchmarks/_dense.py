"""A dense retriever for ``bench_context --embeddings MODEL``: a local sentence-transformers
model behind LangChain's ``Embeddings``, the graph's documents in an
``InMemoryVectorStore``, as a user would plug one into ``ContextInjector``.

Optional: needs the ``sentence-transformers`` package and a model folder (or a name its
cache holds); nothing here downloads. Document vectors are kept in the benchmark cache,
keyed by the model and the documents' text, so a later run embeds only the questions.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore

from citeloop.knowledge import SqliteGraphStore
from citeloop.retrievers import entity_documents

K = 12
"""Documents the retriever returns per question."""


class LocalEmbeddings(Embeddings):
    """Normalized sentence-transformers embeddings, documents cached in ``cache``."""

    def __init__(self, model: str, cache: Path) -> None:
        from sentence_transformers import SentenceTransformer

        self.model_name = model
        self.model = SentenceTransformer(model, device="cpu")
        self.cache = cache

    def _encode(self, texts: list[str]) -> list[list[float]]:
        vectors = self.model.encode(
            texts, batch_size=128, normalize_embeddings=True, show_progress_bar=False
        )
        return [[float(x) for x in vector] for vector in vectors]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        key = hashlib.sha256(json.dumps([self.model_name, texts]).encode()).hexdigest()[:24]
        path = self.cache / f"vectors-{key}.npy"
        if path.exists():
            return numpy.load(path).tolist()
        vectors = self._encode(texts)
        numpy.save(path, numpy.array(vectors, dtype=numpy.float32))
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self._encode([text])[0]


def dense_retriever(store: SqliteGraphStore, model: str, cache: Path) -> Any:
    """A retriever over ``store``'s entity documents (top :data:`K`)."""
    vectors = InMemoryVectorStore(LocalEmbeddings(model, cache))
    vectors.add_documents(entity_documents(store))
    return vectors.as_retriever(search_kwargs={"k": K})
