"""The code that uses a name no relation of the graph leads to: an attribute it reads, a
setting's key.

The graph records what a function calls, not what it reads: "where `digest_method` is
read" (an attribute of ``SecureCookieSessionInterface``) or "where the
`PROVIDE_AUTOMATIC_OPTIONS` setting is read" (a key of ``app.config``, no entity at all)
has no relation to follow. So a widening whose last answer said it lacks such a name
looks for it in the lines of the modules the answer and the context are about
(:func:`users_of`): the functions and methods whose lines use it, as code or as a
string that is one identifier (a key), show their source as what the answer named
lacking does.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from citeloop.knowledge.body_lines import code_terms
from citeloop.knowledge.excerpts import excerptable
from citeloop.knowledge.model import Entity, EntityKind, is_test_path
from citeloop.knowledge.neighbourhood import all_defined_by
from citeloop.knowledge.source import LineSource
from citeloop.knowledge.store import BatchedGraphStore

USERS_ASKED = 4
"""Most entities shown for the names an answer said lacking that no relation leads to."""

MAX_USED_NAMES = 8
"""Most such names looked for in one widening."""

MAX_MODULES = 8
"""Most modules whose lines are read for them."""

MIN_NAME_CHARS = 4


def used_names(names: Iterable[str], entities: Sequence[Entity]) -> list[str]:
    """Those of ``names`` (what an answer said the context lacks, a dotted one by its
    last part) that no relation leads to: of no entity of ``entities`` (theirs), or of
    attributes only; and written as code of its own (an underscore or a capital, at
    least :data:`MIN_NAME_CHARS` characters, no dunder): `kwargs` or `url` would find
    every function. At most :data:`MAX_USED_NAMES`, in order."""
    kinds: dict[str, set[EntityKind]] = {}
    for entity in entities:
        kinds.setdefault(entity.name, set()).add(entity.kind)
    found: dict[str, None] = {}
    for name in names:
        name = name.rpartition(".")[2]
        if (
            len(name) >= MIN_NAME_CHARS
            and name.isidentifier()
            and ("_" in name.strip("_") or any(char.isupper() for char in name))
            and not (name.startswith("__") and name.endswith("__"))
            and kinds.get(name, {EntityKind.ATTRIBUTE}) <= {EntityKind.ATTRIBUTE}
        ):
            found.setdefault(name)
    return list(found)[:MAX_USED_NAMES]


def users_of(
    reads: BatchedGraphStore,
    names: Collection[str],
    anchors: Sequence[Entity],
    source: LineSource,
    follow_tests: bool,
    seen: Collection[str] = (),
    most: int = USERS_ASKED,
) -> list[Entity]:
    """The first ``most`` functions, methods and properties of the modules of
    ``anchors`` (the first :data:`MAX_MODULES`; a module's classes' members too) whose
    lines use one of ``names`` (as code, or as a string that is one identifier:
    :func:`~citeloop.knowledge.body_lines.code_terms`), but those of ``seen`` (ids whose
    source the answer saw: a played widening had offered back the three that set the
    flag asked about, not the one that reads it), code before tests (a test only when
    ``follow_tests``), then in the order of the anchors' modules and of their lines. A
    file not as indexed is passed over; one pass over each entity's lines."""
    wanted = set(names)
    modules = _modules_of(reads, anchors) if wanted else []
    if not modules:
        return []
    defined = all_defined_by(reads, [m.id for m in modules])
    entities = reads.get_entities(defined)
    classes = [i for i in defined if i in entities and entities[i].kind is EntityKind.CLASS]
    members = all_defined_by(reads, classes)
    entities.update(reads.get_entities(members))
    chosen = [
        entities[i]
        for i in [*defined, *members]
        if i in entities
        and excerptable(entities[i])
        and (follow_tests or entities[i].kind is not EntityKind.TEST)
        and i not in seen
    ]
    files = source.lines({entity.path for entity in chosen if entity.path})
    by_name: dict[str, list[Entity]] = {name: [] for name in names}
    for entity in sorted(chosen, key=lambda e: is_test_path(e.path)):  # code first
        for name in wanted.intersection(names_used(entity, files)):
            by_name[name].append(entity)
    # Each name in turn, its users in order: every name asked for finds code.
    using: dict[str, Entity] = {}
    for rank in range(most):
        for users in by_name.values():
            if rank < len(users) and len(using) < most:
                using.setdefault(users[rank].id, users[rank])
    return list(using.values())


def names_used(entity: Entity, files: Mapping[str, Sequence[str]]) -> set[str]:
    """The names ``entity``'s lines use, as code or as a string that is one identifier
    (:func:`~citeloop.knowledge.body_lines.code_terms`), its file's lines read from
    ``files`` (by path, as indexed); none when its file or span is unknown."""
    lines = files.get(entity.path or "")
    if lines is None or entity.line is None or entity.end_line is None:
        return set()
    return set().union(*(code_terms(line) for line in lines[entity.line - 1 : entity.end_line]))


def _modules_of(reads: BatchedGraphStore, anchors: Sequence[Entity]) -> list[Entity]:
    """The modules (of the graph) that define ``anchors``, in their order, each once,
    at most :data:`MAX_MODULES`: the longest prefix of an anchor's id that is a module of
    its file."""
    prefixes = {
        ".".join(entity.id.split(".")[:n])
        for entity in anchors
        for n in range(1, entity.id.count(".") + 1)
    }
    known = reads.get_entities(list(prefixes))
    found: dict[str, Entity] = {}
    for entity in anchors:
        parts = entity.id.split(".")
        for n in range(len(parts) - 1, 0, -1):
            module = known.get(".".join(parts[:n]))
            if module is not None and module.kind is EntityKind.MODULE:
                if module.path == entity.path:
                    found.setdefault(module.id, module)
                break
        if len(found) >= MAX_MODULES:
            break
    return list(found.values())
