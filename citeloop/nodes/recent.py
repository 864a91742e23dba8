"""What the runs of one compiled graph reuse: recent results, bounded and thread-safe.

A retry of ``grounded_answer`` widens the context its run injected first, and two nodes
(``build_retry_prompt``, then ``validate``) judge answers against the same context
entities. :class:`Recent` keeps such results by key, the most recently used last, so
that the next node of the run finds them; runs under way at the same time (``batch``,
``abatch``, a server) share it under a lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

from citeloop.grounding.graph_context import IndexedContext, index_context

Value = TypeVar("Value")


class Recent(Generic[Value]):
    """At most ``size`` values by key; putting one more drops the least recently used.

    Args:
        size: How many values are kept, >= 1.

    Raises:
        ValueError: ``size`` is below 1.
    """

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"size must be >= 1, got {size}")
        self.size = size
        self._values: OrderedDict[Hashable, Value] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Value | None:
        """The value kept for ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Value) -> None:
        """Keep ``value`` for ``key``, as the most recently used."""
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            if len(self._values) > self.size:
                self._values.popitem(last=False)

    def __len__(self) -> int:
        return len(self._values)


_PLAIN_PLACE = (int, type(None))


def _entities_key(items: Any) -> tuple[tuple[Any, ...], ...] | None:
    """What :func:`~citeloop.grounding.entities.context_names` reads of context entities
    given as the dicts a node writes to state (name, tier, path, line, end_line, and the
    kind and id a member's class is read from), or ``None`` for any other shape (those
    are parsed every time)."""
    if not isinstance(items, list):
        return None
    key = []
    for item in items:
        if type(item) is not dict:
            return None
        entry = (
            item.get("name"),
            item.get("tier"),
            item.get("path"),
            item.get("line"),
            item.get("end_line"),
            item.get("kind"),
            item.get("id"),
        )
        name, tier, path, line, end_line, kind, entity_id = entry
        if (
            type(name) is not str
            or type(tier) is not str
            or not (path is None or type(path) is str)
            or type(line) not in _PLAIN_PLACE
            or type(end_line) not in _PLAIN_PLACE
            or not (kind is None or type(kind) is str)
            or not (entity_id is None or type(entity_id) is str)
        ):
            return None
        key.append(entry)
    return tuple(key)


def indexed_context(memo: Recent[IndexedContext], items: Any) -> Any:
    """``items`` (a state's ``context_entities``) parsed and indexed for validation
    (:func:`~citeloop.grounding.graph_context.index_context`), from ``memo`` when the
    same entities were indexed before; ``items`` unchanged when they are of another
    shape or do not parse (the validator then reports the error).

    Args:
        memo: Indexed contexts by the name, tier, place, kind and id of each entity.
        items: A list of ``{"name", "tier", "path", "line", "end_line", ...}`` dicts.

    Returns:
        An :class:`~citeloop.grounding.graph_context.IndexedContext` (which the
        validator takes as it is), or ``items``.
    """
    key = _entities_key(items)
    if key is None:
        return items
    indexed = memo.get(key)
    if indexed is None:
        try:
            indexed = index_context(items)
        except (TypeError, ValueError):
            return items
        memo.put(key, indexed)
    return indexed
