"""What the indexed files import from code outside the graph.

A graph holds the code it indexed; the names its files import from elsewhere (a
dependency's, or a sibling distribution's re-exported whole) are bindings in its
``aliases`` table only (:meth:`~citeloop.knowledge.sqlite_store.SqliteGraphStore.
import_targets`). When an answer says its context lacks such a name, no widening can
bring it: the retry says where it comes from instead
(:data:`~citeloop.grounding.retry_prompt.IMPORTED_PROBLEM`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from citeloop.knowledge.model import EntityKind
from citeloop.knowledge.store import BatchedGraphStore

STAR_NAME = "*"
"""The name a ``from module import *`` binds in :meth:`import_targets`' terms."""


def outside_imports(
    reads: BatchedGraphStore, bindings: Collection[tuple[str | None, str]]
) -> dict[tuple[str, str], str]:
    """What each import binding ``(path, name)`` names when that is code of a module the
    graph does not hold (``urllib3.exceptions.ProxyError`` for
    ``("requests/adapters.py", "_ProxyError")`` after ``from urllib3.exceptions import
    ProxyError as _ProxyError``), by binding; a name its file binds by no import, or
    to the graph's own code (a target of which some dotted prefix is a module of the
    graph), is left out, and so is every binding of a store without
    ``import_targets``."""
    targets = _targets(reads, bindings)
    outside = _outside(reads, set(targets.values()))
    return {key: target for key, target in targets.items() if target in outside}


def imported_names(
    reads: BatchedGraphStore, names: Collection[str], paths: Collection[str]
) -> frozenset[str]:
    """Those of ``names`` that a file at ``paths`` binds by an import, of any code (none
    from a store without ``import_targets``)."""
    if not names or not paths:
        return frozenset()
    return frozenset(name for _, name in _targets(reads, {(p, n) for p in paths for n in names}))


def imported_from_outside(
    reads: BatchedGraphStore, names: Sequence[str], paths: Sequence[str]
) -> dict[str, str]:
    """What the files at ``paths`` import under ``names`` from code outside the graph,
    by name, as the first of ``paths`` that imports it says: a bare name's binding
    (:func:`outside_imports`); of a dotted one (``templates.document_root_template``),
    what its first part is bound to, followed by the rest, when that is a module outside
    the graph (``np.diff``: ``numpy.diff``) or a module of the graph whose file takes
    every name of one outside it (``from reflex_base.compiler.templates import *``: a
    played answer had asked three times for a function that such a re-export held). A
    name bound to itself (``import requests``) tells nothing and is left out, and so is
    a dotted name whose first part is bound to the module's namesake member
    (``datetime.timedelta`` beside ``from datetime import datetime``: the answer means
    the module; a played retry had been told of ``datetime.datetime.timedelta``)."""
    heads = {name: name.partition(".")[0] for name in names}
    targets = _targets(reads, {(path, heads[name]) for name in names for path in paths})
    # A module of the graph's that the dotted names reach: what its file takes whole.
    modules = reads.get_entities(set(targets.values()))
    module_files = {
        module_id: entity.path
        for module_id, entity in modules.items()
        if entity.kind is EntityKind.MODULE and entity.path
    }
    stars = _targets(reads, {(path, STAR_NAME) for path in module_files.values()})
    outside = _outside(reads, {*targets.values(), *stars.values()})
    # What a module of the graph defines itself is not what its star import brings.
    defined = reads.get_entities(
        {
            targets[path, heads[name]] + name[len(heads[name]) :]
            for name in names
            for path in paths
            if (path, heads[name]) in targets
        }
    )
    origins: dict[str, str] = {}
    for path in paths:
        for name in names:
            target = targets.get((path, heads[name]))
            if name in origins or target is None:
                continue
            rest = name[len(heads[name]) :]
            if rest and target == f"{heads[name]}.{heads[name]}":
                continue  # `datetime.timedelta` beside `from datetime import datetime`
            star = stars.get((module_files.get(target, ""), STAR_NAME))
            if target in outside:
                origin = target + rest
            elif rest and star in outside and target + rest not in defined:
                origin = star + rest
            else:
                continue
            if origin != name:
                origins[name] = origin
    return origins


def _targets(
    reads: BatchedGraphStore, bindings: Collection[tuple[str | None, str]]
) -> dict[tuple[str, str], str]:
    """What each binding ``(path, name)`` is bound to by an import in that file (see
    :func:`outside_imports`); none from a store without ``import_targets``."""
    targets_of = getattr(reads, "import_targets", None)
    wanted = {(path, name) for path, name in bindings if path}
    return targets_of(wanted) if targets_of is not None and wanted else {}


def _outside(reads: BatchedGraphStore, targets: Collection[str]) -> set[str]:
    """Those of ``targets`` (dotted names) that no module of the graph holds: a target is
    the graph's when a module it names is (``pkg.graph.StateGraph``: the module
    ``pkg.graph``, though a namespace package ``pkg`` is no module of its own)."""
    prefixes = {target: _module_prefixes(target) for target in targets}
    found = reads.get_entities({prefix for names in prefixes.values() for prefix in names})
    inside = {entity_id for entity_id, entity in found.items() if entity.kind is EntityKind.MODULE}
    return {target for target, names in prefixes.items() if not any(n in inside for n in names)}


def _module_prefixes(target: str) -> list[str]:
    """``a``, ``a.b`` and ``a.b.c`` of ``a.b.c``: the modules a dotted target may name."""
    parts = target.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts) + 1)]
