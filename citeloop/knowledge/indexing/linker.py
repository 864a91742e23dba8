"""Turning references into facts once every file of the tree is known.

A reference's target is a chain (:mod:`citeloop.knowledge.indexing.chains`), resolved step by
step: its head through entity ids and module-level import aliases (re-exports such as
``from .impl import Name`` in ``pkg/__init__.py``, and ``from m import *``); a member
through the module, or through the class and its bases in C3 order; an attribute
through the chain of its value, a call through the chain of the function's result (its
return annotation) or, for a class, to an instance. Bases are resolved through ids and
aliases only, so they never depend on the order in which classes are linked.

What stays unresolved becomes an entity ``"?<name as written>"`` with ``resolved=False``.

A name in an annotation resolves as a callee does, to a class or to nothing (``int``,
``Optional``: no fact). A class name written as a string (``Ref("SelectClauseSegment")``)
is looked up by name among the classes of the tree
(:mod:`citeloop.knowledge.indexing.string_names`); one that names no class, or too many
alike, gives no fact.

Linking one file records the module names it read (:attr:`Linked.dependencies`): when
another file changes what it defines under such a name, the next index run re-links
this file (see :mod:`citeloop.knowledge.indexing.writer`); reads through a class's bases
record the names its bases were resolved through, too, and a string's lookup the class
name (:func:`~citeloop.knowledge.indexing.string_names.name_key`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from citeloop.knowledge.indexing.chains import (
    accessed,
    alternatives,
    extend,
    is_collection,
    operations,
    steps,
)
from citeloop.knowledge.indexing.records import Reference
from citeloop.knowledge.indexing.string_names import StringNames
from citeloop.knowledge.model import Entity, EntityKind, Fact, Provenance, RelationKind
from citeloop.knowledge.names import is_noise

MAX_ALIAS_STEPS = 8
MAX_BASE_CLASSES = 64
MAX_DEPTH = 12
"""Nested resolutions (an attribute's value, a result's type) followed at most."""

_CALLABLE = frozenset({EntityKind.FUNCTION, EntityKind.METHOD, EntityKind.TEST})
_DECIDABLE = frozenset({EntityKind.CLASS, EntityKind.FUNCTION})
_CALLABLE_TARGETS = _CALLABLE | {EntityKind.CLASS}
"""What a call's other alternatives may call (a class: its construction)."""

State = tuple[str, bool] | tuple[str, str]
"""A value: ``(entity id, is_instance)``, or ``("@", chain)`` for an iterable or a tuple
(whose elements the chain's ``[]`` and ``[n]`` give)."""

_COLLECTION = "@"


class Symbols(Protocol):
    """What linking reads of the whole tree (in memory, or from the store)."""

    def kind(self, entity_id: str) -> EntityKind | None:
        """The kind of a defined (not derived) entity, or ``None``."""
        ...

    def alias(self, name: str) -> str | None:
        """The target of a module-level import binding ``"pkg.mod.Name"``, or ``None``."""
        ...

    def stars(self, module: str) -> Sequence[str]:
        """Modules whose names ``from m import *`` binds in ``module``."""
        ...

    def chain(self, entity_id: str) -> str | None:
        """The chain of an attribute's value or of a function's result."""
        ...

    def base_refs(self, class_id: str) -> Sequence[Reference]:
        """The ``inherits`` references written for a class, in order."""
        ...

    def is_module(self, name: str) -> bool:
        """Whether ``name`` is the module name of a file of the tree."""
        ...

    def classes(self, name: str) -> Sequence[tuple[str, str]]:
        """``(id, module)`` of each class of the tree named ``name``, by id."""
        ...

    def imports(self, path: str) -> tuple[str, Collection[str]]:
        """The module of the file at ``path``, and the targets of its import bindings
        (module-level; star imports' modules too)."""
        ...


def unresolved_id(written: str) -> str:
    """Id of the unresolved target written as ``written``."""
    return "?" + written


class Resolver:
    """Resolves chains against :class:`Symbols`, recording the module names it reads."""

    def __init__(self, symbols: Symbols) -> None:
        self.symbols = symbols
        self.deps: set[str] = set()
        self._memo: dict[tuple[str, str], tuple[object, frozenset[str]]] = {}
        self._active: set[tuple[str, str]] = set()
        self._cycle = False
        self._keys: dict[str, str] = {}

    # -- reads, each recording the module name it depends on ------------------------

    def _key(self, name: str) -> str:
        found = self._keys.get(name)
        if found is None:
            parts = name.split(".")
            found = parts[0]
            for cut in range(len(parts), 0, -1):
                prefix = ".".join(parts[:cut])
                if self.symbols.is_module(prefix):
                    found = prefix
                    break
            self._keys[name] = found
        return found

    def kind(self, entity_id: str) -> EntityKind | None:
        self.deps.add(self._key(entity_id))
        return self.symbols.kind(entity_id)

    def _alias(self, name: str) -> str | None:
        # An alias "pkg.mod.name" is written in the module "pkg.mod" (even when a
        # submodule "pkg.mod.name" exists too).
        self.deps.add(self._key(name.rpartition(".")[0] or name))
        return self.symbols.alias(name)

    def _remember(self, kind: str, key: str, compute: Callable[[], object]) -> object:
        """``compute()``, once per key, replaying the module names it read on each use
        (so a file that reads a class's bases depends on what they were resolved by)."""
        memo_key = (kind, key)
        if memo_key in self._memo:
            value, deps = self._memo[memo_key]
            self.deps |= deps
            return value
        if memo_key in self._active or len(self._active) >= MAX_DEPTH:
            self._cycle = True
            return None
        outer, self.deps = self.deps, set()
        outer_cycle, self._cycle = self._cycle, False
        self._active.add(memo_key)
        try:
            value = compute()
        finally:
            self._active.discard(memo_key)
            deps, self.deps = self.deps, outer
            self.deps |= deps
            cycle, self._cycle = self._cycle, outer_cycle or self._cycle
        # A result that met a cycle depends on where the cycle was entered: not kept, so
        # that every reference resolves the same whichever files are linked with it.
        if not cycle:
            self._memo[memo_key] = (value, frozenset(deps))
        return value

    # -- names ----------------------------------------------------------------------

    def follow(self, target: str) -> str | None:
        """The entity id ``target`` names, through import aliases (at most
        :data:`MAX_ALIAS_STEPS`)."""
        for _ in range(MAX_ALIAS_STEPS):
            if self.kind(target) is not None:
                return target
            parts = target.split(".")
            for cut in range(len(parts), 0, -1):
                head = ".".join(parts[:cut])
                aliased = self._alias(head)
                if aliased is not None and aliased != head:
                    target = ".".join([aliased, *parts[cut:]])
                    break
            else:
                return None
        return None

    def module_member(self, module: str, name: str, depth: int = 0) -> str | None:
        found = self.follow(f"{module}.{name}")
        if found is not None or depth >= MAX_ALIAS_STEPS:
            return found
        self.deps.add(self._key(module))
        for star in self.symbols.stars(module):
            source = self.follow(star)
            if source is not None and self.kind(source) is EntityKind.MODULE:
                found = self.module_member(source, name, depth + 1)
                if found is not None:
                    return found
        return None

    def bases(self, class_id: str) -> tuple[str, ...]:
        """The resolved bases of a class, in order."""

        def compute() -> tuple[str, ...]:
            found = []
            for reference in self.symbols.base_refs(class_id):
                base = self.base_target(reference.target)
                if base is not None and base != class_id:
                    found.append(base)
            return tuple(found)

        self.deps.add(self._key(class_id))
        return self._remember("bases", class_id, compute) or ()  # type: ignore[return-value]

    def mro(self, class_id: str) -> tuple[str, ...]:
        """The class and its bases in C3 order (depth-first when C3 has no answer),
        at most :data:`MAX_BASE_CLASSES` (https://www.python.org/download/releases/2.3/mro/)."""

        def compute() -> tuple[str, ...]:
            sequences = [list(self.mro(base)) for base in self.bases(class_id)]
            sequences.append(list(self.bases(class_id)))
            order = [class_id]
            while any(sequences) and len(order) < MAX_BASE_CLASSES:
                for sequence in sequences:
                    if not sequence:
                        continue
                    head = sequence[0]
                    if not any(head in other[1:] for other in sequences):
                        break
                else:  # inconsistent hierarchy: take the first head, like depth-first
                    head = next(sequence[0] for sequence in sequences if sequence)
                if head not in order:
                    order.append(head)
                for sequence in sequences:
                    while head in sequence:
                        sequence.remove(head)
            return tuple(order)

        return self._remember("mro", class_id, compute) or (class_id,)  # type: ignore[return-value]

    def class_member(self, class_id: str, name: str) -> str | None:
        for owner in self.mro(class_id):
            member = f"{owner}.{name}"
            if self.kind(member) is not None:
                return member
        return None

    def in_bases(self, class_id: str, name: str) -> str | None:
        """``name`` in the bases of a class only (``super().name()``)."""
        for owner in self.mro(class_id)[1:]:
            member = f"{owner}.{name}"
            if self.kind(member) is not None:
                return member
        return None

    # -- values ---------------------------------------------------------------------

    def value_of(self, entity_id: str) -> State | None:
        """The value an entity stands for: an attribute's value, else the entity."""
        if self.kind(entity_id) is EntityKind.ATTRIBUTE:
            return self._remember("value", entity_id, lambda: self._chain_value(entity_id))  # type: ignore[return-value]
        return (entity_id, False)

    def _chain_value(self, entity_id: str) -> State | None:
        self.deps.add(self._key(entity_id))
        chain = self.symbols.chain(entity_id)
        return self.evaluate(chain) if chain is not None else None

    def evaluate(self, chain: str) -> State | None:
        """The value of a whole chain: its first alternative that has one."""
        collections = []
        for alternative in alternatives(chain):
            if is_collection(alternative):
                collections.append(alternative)
                continue
            state = self._evaluate_one(alternative)
            if state is not None:
                return state
        return (_COLLECTION, "|".join(collections)) if collections else None

    def _evaluate_one(self, chain: str) -> State | None:
        parts = steps(chain)
        named, index = self.head(parts)
        if named is None:
            return None
        state = self.apply(self.value_of(named), parts[index - 1][1])
        for name, ops in parts[index:]:
            through = self._accessed(state, name, ops)
            if through is not None:  # `self.items.values()`: a container's method
                state = through
                continue
            member = self.member(state, name)
            if member is None:
                return None
            state = self.apply(self.value_of(member), ops)
        return state

    def _accessed(self, state: State | None, name: str, ops: str) -> State | None:
        """The value of ``x.name()`` and the operations after the call (``ops`` are those
        of the step), for an ``x`` whose value, ``state``, is a collection and ``name`` a
        container's accessor (:func:`~citeloop.knowledge.indexing.chains.accessed`:
        ``self.items.get(k)`` of an attribute ``items: dict[str, Item]`` is an
        ``Item``); else ``None``."""
        if state is None or state[0] != _COLLECTION or not ops.startswith("()"):
            return None
        chain = accessed(state[1], name)  # type: ignore[arg-type]
        return self.apply(self.evaluate(chain), ops[2:]) if chain is not None else None

    def head(self, parts: list[tuple[str, str]]) -> tuple[str | None, int]:
        """The entity the leading names of a chain name (the longest prefix that names
        one, up to the first call or subscript), and the index of the step after it."""
        plain = next((i + 1 for i, (_, ops) in enumerate(parts) if ops), len(parts))
        names = [name for name, _ in parts[:plain]]
        for size in range(plain, 0, -1):
            found = self.follow(".".join(names[:size]))
            if found is not None:
                return found, size
        return None, 0

    def member(self, state: State | None, name: str) -> str | None:
        if state is None or state[0] == _COLLECTION:
            return None
        entity_id = state[0]
        kind = self.kind(entity_id)
        if kind is EntityKind.MODULE:
            return self.module_member(entity_id, name)
        if kind is EntityKind.CLASS:
            return self.class_member(entity_id, name)
        nested = f"{entity_id}.{name}"  # a function's nested definition
        return nested if self.kind(nested) is not None else None

    def apply(self, state: State | None, ops: str) -> State | None:
        for op in operations(ops):
            if state is None:
                return None
            state = self.call(state) if op == "()" else self.element(state, op)
        return state

    def call(self, state: State) -> State | None:
        entity_id, flag = state
        if entity_id == _COLLECTION:
            return None
        kind = self.kind(entity_id)
        if kind is EntityKind.CLASS:
            return None if flag else (entity_id, True)
        if kind in _CALLABLE:
            return self._remember("result", entity_id, lambda: self._chain_value(entity_id))  # type: ignore[return-value]
        return None

    def element(self, state: State, op: str = "[]") -> State | None:
        """An element (``[]``) or item (``[n]``) of a value; a class subscripted is a
        generic alias of it (``Box[int]`` is ``Box``)."""
        entity_id, flag = state
        if entity_id == _COLLECTION:
            inner = extend(flag, op)  # type: ignore[arg-type]
            if inner is None:
                return None
            # An attribute's value may hold itself (``self.xs = [x for x in self.xs]``).
            return self._remember("element", inner, lambda: self.evaluate(inner))  # type: ignore[return-value]
        if self.kind(entity_id) is not EntityKind.CLASS:
            return None
        if not flag:
            return state
        for dunder in ("__iter__", "__getitem__"):
            method = self.class_member(entity_id, dunder)
            result = self.call((method, False)) if method is not None else None
            if result is not None and result[0] == _COLLECTION:
                return self.element(result, op)
            if result is not None and dunder == "__getitem__":
                return result
        return None

    # -- targets --------------------------------------------------------------------

    def call_target(self, chain: str) -> str | None:
        """The entity a call of ``chain`` calls: a function, a method, a class (its
        construction), or an attribute holding a callable (first alternative that has
        one)."""
        return next(self._call_targets(chain), None)

    def call_targets(self, chain: str) -> list[str]:
        """Every entity a call of ``chain`` may call, one per alternative that has one
        (``printer = self._print_tex if usetex else self._print``, then ``printer()``:
        both), in order, each once."""
        return list(dict.fromkeys(self._call_targets(chain)))

    def _call_targets(self, chain: str) -> Iterator[str]:
        for alternative in alternatives(chain):
            if not is_collection(alternative):
                found = self._call_target_one(alternative)
                if found is not None:
                    yield found

    def _call_target_one(self, chain: str) -> str | None:
        parts = steps(chain)
        named, index = self.head(parts)
        if named is None:
            return None
        position = index
        while position <= len(parts):
            ops = parts[position - 1][1]
            last = position == len(parts)
            if last and not ops:
                return self._callable(named)
            state = self.apply(self.value_of(named), ops)
            if last:
                if state is None or state[0] == _COLLECTION or state[1]:
                    return None
                return state[0]  # type: ignore[return-value]
            # `self.items.get(k).value()`: the container's method calls no entity; what
            # it gives does.
            while (through := self._accessed(state, *parts[position])) is not None:
                position += 1
                if position == len(parts):
                    return None
                state = through
            named = self.member(state, parts[position][0])  # type: ignore[assignment]
            if named is None:
                return None
            position += 1
        return None

    def _callable(self, entity_id: str) -> str:
        """An attribute that aliases a class or function (``Alias = Client``) calls it; a
        submodule's name that its package rebinds (``from .sub import sub``) calls that."""
        kind = self.kind(entity_id)
        if kind is EntityKind.MODULE:
            rebound = self._alias(entity_id)
            if rebound is not None and rebound != entity_id:
                found = self.follow(rebound)
                return found if found is not None else entity_id
        if kind is EntityKind.ATTRIBUTE:
            state = self.value_of(entity_id)
            if (
                state is not None
                and state[0] != _COLLECTION
                and not state[1]
                and self.kind(state[0]) in (_CALLABLE | {EntityKind.CLASS})  # type: ignore[arg-type]
            ):
                return state[0]  # type: ignore[return-value]
        return entity_id

    def type_target(self, chain: str) -> str | None:
        """The class an annotation's name names: as a call's target is (through star
        imports too), if that is a class; once per chain (its reads replayed)."""

        def compute() -> str | None:
            found = self.call_target(chain)
            return found if found is not None and self.kind(found) is EntityKind.CLASS else None

        return self._remember("type", chain, compute)  # type: ignore[return-value]

    def base_target(self, chain: str) -> str | None:
        """The class a base names, through ids, aliases and attributes aliasing a class."""
        if not chain:
            return None
        target = self.follow(chain)
        for _ in range(MAX_ALIAS_STEPS):
            if target is None:
                return None
            kind = self.kind(target)
            if kind is EntityKind.CLASS:
                return target
            if kind is not EntityKind.ATTRIBUTE:
                return None
            self.deps.add(self._key(target))
            value = self.symbols.chain(target)
            if value is None or any(mark in value for mark in "(*[#|"):
                return None
            target = self.follow(value)
        return None

    def resolve(self, reference: Reference) -> str | None:
        if reference.relation is RelationKind.INHERITS:
            return self.base_target(reference.target)
        if reference.mode == "bases":
            owner, _, member = reference.target.rpartition(".")
            found = self.call_target(owner)  # the class, through aliases and star imports
            if found is None or self.kind(found) is not EntityKind.CLASS:
                return None
            return self.in_bases(found, member)
        return self.call_target(reference.target) if reference.target else None


@dataclass(slots=True)
class Linked:
    """Facts derived by linking some files, and what each file's links read.

    Attributes:
        facts: ``inherits``, ``overrides``, ``calls``, ``tested_by``, ``traces``,
            ``uses_type`` and ``references`` facts, each with the provenance of its
            reference (so owned by that reference's file).
        dependencies: Module names each linked file's references were resolved through,
            and the ``name_key`` of each class name its strings were looked up by.
    """

    facts: list[Fact] = field(default_factory=list)
    dependencies: dict[str, set[str]] = field(default_factory=dict)


def link_code(
    resolver: Resolver,
    references: Iterable[tuple[Reference, Provenance]],
    subject_kind: Callable[[str], EntityKind | None],
) -> Linked:
    """Resolve ``inherits``, ``overrides``, ``calls``, ``traces``, ``uses_type`` and
    ``references`` references into facts (a string's class by
    :class:`~citeloop.knowledge.indexing.string_names.StringNames`, a name used as a
    value as an annotation's; one that names none, like an annotation's name that is no
    class of the tree, is left out).

    Args:
        resolver: Resolves against the whole tree.
        references: References with the provenance of where each is written, grouped
            by file (by path, then line).
        subject_kind: The kind of a reference's subject (its own file's entity).

    Returns:
        The facts, and the module names each file's links read.
    """
    linked = Linked()
    strings = StringNames(resolver)
    for reference, provenance in references:
        if reference.relation is RelationKind.DECIDED:
            continue
        resolver.deps = linked.dependencies.setdefault(provenance.path, set())
        if reference.relation is RelationKind.TRACES:
            linked.facts.append(
                Fact(reference.subject, RelationKind.TRACES, reference.target, provenance)
            )
            continue
        if reference.relation is RelationKind.USES_TYPE or reference.mode == "value":
            try:
                found = resolver.type_target(reference.target)
            except RecursionError:
                found = None
            if found is not None and found != reference.subject:
                linked.facts.append(Fact(reference.subject, reference.relation, found, provenance))
            continue
        if reference.relation is RelationKind.REFERENCES:
            linked.facts.extend(
                Fact(reference.subject, RelationKind.REFERENCES, class_id, provenance)
                for class_id in strings.refers_to(reference.target, provenance.path)
                if class_id != reference.subject  # a class rebound under its own name
            )
            continue
        try:
            found = resolver.resolve(reference)
        except RecursionError:  # a chain deeper than the guards foresee: left unresolved
            found = None
        if found is None and reference.relation is RelationKind.OVERRIDES:
            continue  # no base defines the name: the member overrides nothing
        target = found if found is not None else unresolved_id(reference.written)
        targets = [target]
        if (
            found is not None
            and reference.relation is RelationKind.CALLS
            and reference.mode != "bases"
        ):
            # a call of a name bound to either of two callables calls both
            targets += [t for t in _other_targets(resolver, reference.target) if t != found]
        for called in targets:
            linked.facts.append(Fact(reference.subject, reference.relation, called, provenance))
            if (
                reference.relation is RelationKind.CALLS
                and found is not None
                and subject_kind(reference.subject) is EntityKind.TEST
                and resolver.kind(called) is not EntityKind.TEST
            ):
                linked.facts.append(
                    Fact(called, RelationKind.TESTED_BY, reference.subject, provenance)
                )
    return linked


def _other_targets(resolver: Resolver, chain: str) -> list[str]:
    """What a call of ``chain`` may call besides its first target
    (:meth:`Resolver.call_targets`), when ``chain`` has alternatives: the functions,
    methods and classes of the others (not ``LIMIT`` of ``f if c else LIMIT``)."""
    if "|" not in chain:
        return []
    try:
        targets = resolver.call_targets(chain)[1:]
    except RecursionError:
        return []
    return [target for target in targets if resolver.kind(target) in _CALLABLE_TARGETS]


def decidable_names(entities: Iterable[Entity]) -> dict[str, list[str]]:
    """Names a decision record may mention: classes, functions, and ``Owner.member``."""
    names: dict[str, list[str]] = {}
    for entity in entities:
        if not entity.resolved:
            continue
        if entity.kind in _DECIDABLE:
            names.setdefault(entity.name, []).append(entity.id)
        if entity.kind is EntityKind.METHOD and entity.id.count(".") >= 2:
            dotted = ".".join(entity.id.rsplit(".", 2)[-2:])
            names.setdefault(dotted, []).append(entity.id)
    return names


def decided_name(reference: Reference) -> str | None:
    """The name a ``decided`` reference looks up, or ``None`` when it is prose: a common
    word, or a plain lowercase word not written as code."""
    name = reference.target
    if "." in name:
        return name
    if is_noise(name) or (name.isalpha() and name.islower() and reference.mode != "code"):
        return None
    return name


def link_decisions(
    references: Iterable[tuple[Reference, Provenance]], lookup: Callable[[str], Sequence[str]]
) -> list[Fact]:
    """``decided`` facts from decision records, by the names they mention."""
    facts = []
    for reference, provenance in references:
        name = decided_name(reference)
        if name is None:
            continue
        for entity_id in lookup(name):
            facts.append(Fact(reference.subject, RelationKind.DECIDED, entity_id, provenance))
    return facts


def unresolved_entities(facts: Iterable[Fact]) -> list[Entity]:
    """The ``?name`` entities the facts point to: a class when some ``inherits`` fact
    names it, else a function."""
    kinds: dict[str, EntityKind] = {}
    for fact in facts:
        if fact.object.startswith("?"):
            if fact.relation is RelationKind.INHERITS:
                kinds[fact.object] = EntityKind.CLASS
            else:
                kinds.setdefault(fact.object, EntityKind.FUNCTION)
    return [
        Entity(entity_id, kind, entity_id[1:], resolved=False)
        for entity_id, kind in sorted(kinds.items())
    ]


def requirement_entity(requirement: str, mentions: Iterable[tuple[str, int, str]]) -> Entity | None:
    """The entity of a requirement id from its mentions ``(path, line, title)`` in
    (path, line) order: where it is first mentioned, with the first title given."""
    first: tuple[str, int] | None = None
    title = ""
    for path, line, written in mentions:
        if first is None:
            first = (path, line)
        if written and not title:
            title = written
    if first is None:
        return None
    return Entity(requirement, EntityKind.REQUIREMENT, requirement, first[0], first[1], title)
