"""Warnings about an index run that the user may want to act on."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from citeloop.knowledge.indexing.linker import Resolver
from citeloop.knowledge.indexing.modules import ModuleLayout
from citeloop.knowledge.indexing.symbols import SqlSymbols
from citeloop.knowledge.sqlite_schema import STAR

IMPORT_WARNING_SHARE = 0.1
"""Share of the tree's own imports left unresolved above which indexing warns."""

MIN_UNRESOLVED = 5
"""Fewest unresolved imports of the tree's own modules worth a warning."""

IMPORTS_CHECKED = 1_000
"""Most module-level imports :func:`graph_import_warnings` resolves."""

_EXAMPLES = 3


def graph_import_warnings(db: sqlite3.Connection, top_names: set[str]) -> list[str]:
    """:func:`import_warnings` for a graph file, over at most :data:`IMPORTS_CHECKED`
    of its module-level imports, spread evenly over its files."""
    rows = db.execute(
        f"SELECT target FROM aliases WHERE name NOT LIKE '%{STAR}' ORDER BY path, rowid"
    ).fetchall()
    step = max(1, -(-len(rows) // IMPORTS_CHECKED))
    targets = [target for (target,) in rows[::step]]
    sample = len(rows) if step > 1 else None
    return import_warnings(Resolver(SqlSymbols(db)), targets, top_names, sample)


def import_warnings(
    resolver: Resolver, targets: Iterable[str], top_names: set[str], sample: int | None = None
) -> list[str]:
    """A warning when many module-level imports of the tree's own names do not resolve:
    those whose first name is a top-level module of the tree (``top_names``), or whose
    tail names one of its entities (the tree is imported under a package name it was
    not indexed as, e.g. a namespace package outside site-packages). An import whose
    module resolves is none of them (a name that module imports from outside the tree,
    or a module variable such as ``__author__``, which is no entity).

    Args:
        resolver: Resolves names against the graph.
        targets: The import bindings' targets (``"pkg.mod.Name"``).
        top_names: The first names of the tree's modules.
        sample: How many imports the tree has, when ``targets`` is a sample of them.

    Returns:
        ``[]``, or one warning with examples and the fix.
    """
    own, missing, prefixes = 0, [], {}
    for target in targets:
        if resolver.follow(target) is not None:
            own += target.split(".", 1)[0] in top_names
            continue
        parts = target.split(".")
        if len(parts) > 1 and resolver.follow(".".join(parts[:-1])) is not None:
            # Its module is the tree's: a name that module takes from outside the tree
            # (`requests.compat.urlparse`) or that is no entity (`__author__`).
            own += 1
            continue
        if parts[0] in top_names:
            own += 1
            missing.append(target)
            continue
        for cut in range(1, len(parts) - 1):
            if resolver.follow(".".join(parts[cut:])) is not None:
                own += 1
                missing.append(target)
                prefix = ".".join(parts[:cut])
                prefixes[prefix] = prefixes.get(prefix, 0) + 1
                break
    if len(missing) < MIN_UNRESOLVED or len(missing) <= IMPORT_WARNING_SHARE * own:
        return []
    sampled = f" (in a sample of {sample} imports)" if sample else ""
    examples = ", ".join(sorted(set(missing))[:_EXAMPLES])
    message = (
        f"{len(missing)} of {own} imports of the tree's own modules did not resolve"
        f"{sampled}, e.g. {examples}"
    )
    if prefixes:
        best = max(sorted(prefixes), key=lambda prefix: prefixes[prefix])
        return [
            f"{message}; they name this tree's code under the package {best!r}: index it "
            f"with --package {best}"
        ]
    return [
        f"{message}; if the tree is a namespace package or is imported under another "
        "name, pass --package NAME"
    ]


def renamed_warnings(layout: ModuleLayout) -> list[str]:
    """A warning when files share an import name with another file (only one of them
    can be imported), saying under which names they were indexed."""
    if not layout.renamed:
        return []
    examples = "; ".join(
        f"{path} as {fallback} ({name} is another file)"
        for path, name, fallback in layout.renamed[:_EXAMPLES]
    )
    count = len(layout.renamed)
    return [
        f"{count} file{'s' if count > 1 else ''} share an import name with another file and "
        f"{'were' if count > 1 else 'was'} indexed under a name made from the path: {examples}"
    ]
