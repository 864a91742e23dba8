"""Building the knowledge graph from a source tree (:func:`index_tree`).

The pipeline, one module a step:

- :mod:`~.sources` finds the files; :mod:`~.modules` names them as Python imports them;
- :mod:`~.syntax` parses each, lowering syntax newer than the running Python;
- :mod:`~.python_index` walks one file (with :mod:`~.definitions` recording what it
  defines, :mod:`~.expressions` what expressions call and name, :mod:`~.scopes` what
  names are bound to, :mod:`~.signatures` how definitions read, :mod:`~.chains` static
  values, :mod:`~.references` what is linked later); :mod:`~.decisions` reads decision
  records; each file's result is a :class:`~.records.FileIndex`;
- :mod:`~.linker` resolves references across files (through :mod:`~.symbols` when the
  graph file holds the rest of the tree), and :mod:`~.writer` applies a run's changes
  to the graph file, re-linking only what can depend on them;
- :mod:`~.diagnostics` words what the user may want to fix.

It writes through :class:`~citeloop.knowledge.sqlite_store.SqliteGraphStore`; nothing
else in :mod:`citeloop.knowledge` imports this package.
"""

from typing import TYPE_CHECKING

from citeloop._lazy import lazy_exports

if TYPE_CHECKING:
    from citeloop.knowledge.indexing.indexer import IndexReport, ProgressCallback, index_tree

__all__ = ["IndexReport", "ProgressCallback", "index_tree"]

# Lazy, so that a step's module (e.g. ``sources`` for its limits) imports alone.
__getattr__, __dir__ = lazy_exports(
    __name__, dict.fromkeys(__all__, "citeloop.knowledge.indexing.indexer"), globals()
)
