"""What the runs of one compiled graph reuse: recent results, bounded and thread-safe.

A retry of ``grounded_answer`` widens the context its run injected first, and two nodes
(``build_retry_prompt``, then ``validate``) judge answers against the same context
entities. :class:`~citeloop.recent.Recent` keeps such results by key, the most recently
used last, so that the next node of the run finds them; runs under way at the same time
(``batch``, ``abatch``, a server) share it under a lock.
"""

from __future__ import annotations

from typing import Any

from citeloop.grounding.graph_context import IndexedContext, index_context
from citeloop.recent import Recent

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
