"""The default contexts an injector built, reused while the graph and its source stay as
they were.

A batch of runs of one question (``abatch([inputs] * k)`` to sample k answers, a
server asked the same thing again) injects the same default context every time; on a
large graph that is most of a run's own CPU. :class:`ReusedContexts` keeps the last
:data:`CONTEXTS_KEPT` of them by task text, task type and the injector's settings (its
``hops``, budget, entity cap, token counter and excerpt share), and gives one back only
while it is what :meth:`~citeloop.knowledge.injector.ContextInjector.inject` would build
again:

- the graph file is at the version the context was read from (the store's read
  session says which: SQLite's ``PRAGMA data_version``,
  https://sqlite.org/pragma.html#pragma_data_version, which changes when another
  connection commits, as a re-index does); a store that does not say (a writable one,
  :class:`~citeloop.knowledge.store.MemoryGraphStore`) reuses nothing;
- the injector reads source through the reader it read it through then (none, when
  the indexed folder was gone: a folder gone or back since builds again);
- every source file the excerpts read (:class:`SourceRecorder`) still gives the same
  lines (a file edited since indexing gives none, see
  :class:`~citeloop.knowledge.source.SourceReader`).

A widened context (a retry's) is never reused: it depends on the answer.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable
from typing import NamedTuple

from citeloop.knowledge.model import InjectedContext
from citeloop.knowledge.source import SourceReader
from citeloop.recent import Recent

CONTEXTS_KEPT = 64
"""Default contexts an injector keeps for reuse."""


class SourceRecorder:
    """A :class:`~citeloop.knowledge.source.SourceReader` that records the lines it gave,
    by path (``None`` for a path it gave none of), for :meth:`ReusedContexts.put`."""

    def __init__(self, reader: SourceReader) -> None:
        self.reader = reader
        self.read: dict[str, tuple[str, ...] | None] = {}

    def lines(self, paths: Collection[str]) -> dict[str, tuple[str, ...]]:
        """:meth:`SourceReader.lines <citeloop.knowledge.source.SourceReader.lines>`,
        recorded."""
        found = self.reader.lines(paths)
        for path in paths:
            self.read[path] = found.get(path)
        return found


class _Kept(NamedTuple):
    context: InjectedContext
    reader: SourceReader | None
    read: dict[str, tuple[str, ...] | None]


class ReusedContexts:
    """Default contexts by ``(text, task type, graph version, the injector's settings)``,
    at most ``size``.

    Args:
        size: How many are kept, >= 1.
    """

    def __init__(self, size: int = CONTEXTS_KEPT) -> None:
        self._kept: Recent[_Kept] = Recent(size)

    def get(self, key: Hashable, reader: SourceReader | None) -> InjectedContext | None:
        """The context kept for ``key`` when ``reader`` (the injector's now, ``None``
        when it shows no source) is the one it read through and gives the same lines
        now, else ``None``."""
        kept = self._kept.get(key)
        if kept is None or kept.reader is not reader:
            return None
        if kept.read and reader is not None:
            now = reader.lines(kept.read)
            if any(now.get(path) != lines for path, lines in kept.read.items()):
                return None
        return kept.context

    def put(self, key: Hashable, context: InjectedContext, recorder: SourceRecorder | None) -> None:
        """Keep ``context`` for ``key``, with the source ``recorder`` saw read."""
        reader, read = (recorder.reader, recorder.read) if recorder is not None else (None, {})
        self._kept.put(key, _Kept(context, reader, dict(read)))
