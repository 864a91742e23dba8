"""Lexical retrieval: finding entities by the words of a task, ranked by BM25.

Each entity is a small document of two fields: its **words** (its name, the words of its
name split at ``_`` and case changes, the words of its owners' names, and the names in
its signature) and its **doc** (its docstring, or a requirement's or decision's title;
a special method's also has what Python says it does,
:mod:`~citeloop.knowledge.special_methods`: ``__eq__``, "equality").
A task's words (:func:`~citeloop.knowledge.finding.task_words`) are matched against
both, the words field weighted :data:`WORDS_WEIGHT` times as much, and scored with BM25
(Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond",
2009), so that "the JSON serialization provider" finds ``DefaultJSONProvider``.

:class:`~citeloop.knowledge.sqlite_store.SqliteGraphStore` keeps this index in the graph
file (SQLite FTS5 with the Porter stemmer, https://sqlite.org/fts5.html);
:class:`MemoryIndex` is the same over entities in memory (without stemming).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from citeloop.grounding.mentions import identifier_words
from citeloop.knowledge.abbreviations import expansions
from citeloop.knowledge.model import Entity, EntityKind
from citeloop.knowledge.special_methods import special_method_words

WORDS_WEIGHT = 4.0
"""Weight of a match in an entity's name and signature words against one in its doc."""

SEARCHABLE = frozenset(
    {
        EntityKind.CLASS,
        EntityKind.FUNCTION,
        EntityKind.METHOD,
        EntityKind.ATTRIBUTE,
        EntityKind.TEST,
        EntityKind.REQUIREMENT,
        EntityKind.DECISION,
    }
)
"""Kinds of entity a context may hold, so the kinds lexical retrieval finds."""

_NAMES = re.compile(r"[^\W\d]\w*")
_ALPHANUMERIC = re.compile(r"[^\W_]+")
_MAX_SIGNATURE_NAMES = 24
_TEXT_KINDS = frozenset({EntityKind.REQUIREMENT, EntityKind.DECISION})
_CALLABLE_KINDS = frozenset({EntityKind.METHOD, EntityKind.FUNCTION})


def entity_document(entity: Entity) -> tuple[str, str] | None:
    """The ``(words, doc)`` an entity is found by, or ``None`` when it is not searchable
    (a module, an unresolved target)."""
    if entity.kind not in SEARCHABLE or not entity.resolved:
        return None
    if entity.kind in _TEXT_KINDS:
        return " ".join([entity.name, *identifier_words(entity.name)]), entity.signature
    owners = entity.id.rsplit(".", 1)[0] if "." in entity.id else ""
    words = [entity.name, *identifier_words(entity.name), *identifier_words(owners)]
    words.extend(expansions(words[1:]))  # "expression" finds ASTParenExpr
    names = _NAMES.findall(entity.signature)[:_MAX_SIGNATURE_NAMES]
    words.extend(word for name in names for word in identifier_words(name))
    doc = entity.docstring
    if entity.kind in _CALLABLE_KINDS and (meaning := special_method_words(entity.name)):
        doc = f"{meaning}\n{doc}"  # "equality" finds __eq__
    return " ".join(words), doc


def fts_query(words: Sequence[str]) -> str:
    """An FTS5 query matching any of ``words`` (alphanumeric words, quoted, each once)."""
    return " OR ".join(f'"{word}"' for word in dict.fromkeys(words) if word.isalnum())


class MemoryIndex:
    """BM25 over the documents of entities held in memory (k1 = 1.2, b = 0.75).

    Args:
        entities: The entities; those that are not searchable are left out.
    """

    K1 = 1.2
    B = 0.75

    def __init__(self, entities: Iterable[Entity]) -> None:
        self._docs: dict[str, tuple[Counter[str], Counter[str]]] = {}
        for entity in entities:
            document = entity_document(entity)
            if document is not None:
                words, doc = document
                self._docs[entity.id] = (_terms(words), _terms(doc))
        self._postings: dict[str, list[str]] = {}
        for entity_id, (words, doc) in self._docs.items():
            for term in words.keys() | doc.keys():
                self._postings.setdefault(term, []).append(entity_id)
        count = len(self._docs) or 1
        self._average = [
            sum(sum(fields[i].values()) for fields in self._docs.values()) / count or 1.0
            for i in (0, 1)
        ]

    def search(self, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
        """The ``limit`` best ``(entity id, score)`` for ``words``, best first."""
        scores: dict[str, float] = {}
        total = len(self._docs)
        for term in dict.fromkeys(word.lower() for word in words):
            matches = self._postings.get(term, ())
            if not matches:
                continue
            idf = math.log(1 + (total - len(matches) + 0.5) / (len(matches) + 0.5))
            for entity_id in matches:
                fields = self._docs[entity_id]
                weight = 0.0
                for index, factor in ((0, WORDS_WEIGHT), (1, 1.0)):
                    frequency = fields[index][term]
                    if frequency:
                        length = sum(fields[index].values()) / self._average[index]
                        norm = self.K1 * (1 - self.B + self.B * length)
                        weight += factor * frequency * (self.K1 + 1) / (frequency + norm)
                scores[entity_id] = scores.get(entity_id, 0.0) + idf * weight
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        return ranked[:limit]


def _terms(text: str) -> Counter[str]:
    """The terms of a field as the graph file's index has them (FTS5's ``unicode61``
    tokenizer: each run of letters and digits, lower-cased), without stemming: a
    document's words already hold each name's split words, and its name whole."""
    return Counter(run.lower() for run in _ALPHANUMERIC.findall(text))
