"""The bounded read cache of a read-only graph file
(:class:`~citeloop.knowledge.sqlite_store.SqliteGraphStore`)."""

from __future__ import annotations

import threading
from typing import Any


class ReadCache:
    """What a read-only store has read, valid for one version of the file.

    The version is SQLite's ``PRAGMA data_version`` of the store's connection, which
    changes whenever another connection commits (https://sqlite.org/pragma.html#pragma_data_version),
    so a re-index in place is seen at the next :meth:`SqliteGraphStore.reading`. Entries
    read under an older version than the current one are not kept. When full, the
    cache starts afresh (no per-hit bookkeeping on the hot path).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.version: int | None = None
        self._lock = threading.Lock()
        self._clear()

    def _clear(self) -> None:
        self.names: frozenset[str] | None = None
        self.snapshot = ""
        self.tables: dict[str, dict[str, Any]] = {
            "named": {},
            "entities": {},
            "facts": {},
            "first_facts": {},
            "search": {},
            "digests": {},
            "meta": {},
        }
        self.count = 0

    def validate(self, version: int) -> None:
        """Drop everything when the file's version is not the one cached."""
        with self._lock:
            if version != self.version:
                self._clear()
                self.version = version

    def keep(
        self, version: int, *, names: frozenset[str] | None = None, snapshot: str = ""
    ) -> None:
        """Keep the name set or the snapshot id read under ``version``, unless outdated."""
        with self._lock:
            if version == self.version:
                self.names = names if names is not None else self.names
                self.snapshot = snapshot or self.snapshot

    def put(self, version: int, table: str, items: dict[str, Any]) -> None:
        """Keep ``items`` (read under ``version``) in ``table``, unless outdated."""
        added = sum(max(len(v), 1) if isinstance(v, list) else 1 for v in items.values())
        with self._lock:
            if version != self.version or added > self.size:
                return
            if self.count + added > self.size:
                names, snapshot = self.names, self.snapshot
                self._clear()
                self.names, self.snapshot = names, snapshot
            self.tables[table].update(items)
            self.count += added


__all__ = ["ReadCache"]
