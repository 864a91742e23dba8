"""Recording one Python file's definitions as its walk finds them.

:class:`DefinitionRecorder` holds what the walk of one file
(:mod:`~citeloop.knowledge.indexing.python_index`) has collected so far, and records its
definitions: each entity with its ``defines`` fact (an ``@overload`` stub replaced by its
implementation, a property's setter or deleter extending the property's span, a function
defined again or an attribute set again counted on the first, a module-level name that a
submodule of the package rebinds left out); module, class and instance attributes with
their signatures, and what an assignment in a function binds; a type alias's type
parameters. Once the file is walked, it resolves the types of attributes and of
functions' results (:meth:`DefinitionRecorder.resolve_types`).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping
from dataclasses import replace

from citeloop.knowledge.indexing.clauses import ClauseSpans
from citeloop.knowledge.indexing.records import FileIndex
from citeloop.knowledge.indexing.references import (
    REQUIREMENT_MARK,
    CallSite,
    ValueName,
    requirement_texts,
)
from citeloop.knowledge.indexing.scopes import Bindings, Scope
from citeloop.knowledge.indexing.signatures import (
    SourceText,
    attribute_signature,
    native_type_params,
)
from citeloop.knowledge.model import (
    Entity,
    EntityKind,
    Fact,
    Provenance,
    RelationKind,
    is_test_path,
)

TYPE_ALIAS = getattr(ast, "TypeAlias", None)  # Python 3.12+
"""The node type of a PEP 695 ``type X = ...`` statement (``None`` before Python 3.12)."""

_DEFINITIONS = frozenset({EntityKind.FUNCTION, EntityKind.METHOD, EntityKind.TEST})
"""Kinds of entity a ``def`` statement defines (a property is an attribute)."""

_CLASS_BOOKKEEPING = frozenset(
    {"__doc__", "__module__", "__qualname__", "__annotations__", "__dict__", "__weakref__"}
)
"""A class's dunders that say nothing of what its instances can do (Python sets them)."""


class DefinitionRecorder:
    """The state of one file's walk, and how it records the file's definitions."""

    def __init__(
        self,
        path: str,
        digest: str,
        module: str,
        source: str,
        submodules: Collection[str],
        type_params: Mapping[int, str],
        type_aliases: Collection[int],
    ) -> None:
        self.path = path
        self.module = module
        self.source = source
        self.text = SourceText(source)
        self.digest = digest
        self.submodules = submodules
        self.type_params = type_params
        self.type_aliases = type_aliases
        self.is_tests = is_test_path(path)
        self.is_package = path.endswith("__init__.py")
        self.requirements = REQUIREMENT_MARK in source
        self.top_names: set[str] = set()
        self.index = FileIndex(path, digest, module)
        self.bindings = Bindings(module)
        self.entities: dict[str, int] = {}  # id -> position in index.entities
        self.overloads: set[str] = set()
        self.spans: list[tuple[int, int, str]] = []
        self.calls: list[CallSite] = []
        self.strings: list[tuple[str, str, int]] = []  # (subject, class name, line)
        self.values: list[ValueName] = []  # names passed, raised or caught as values
        self.valued: set[tuple[str, ...]] = set()  # (subject, *name) of those kept
        self.bases: list[tuple[str, Scope, ast.expr]] = []
        self.members: list[tuple[str, str, str, int]] = []  # (id, class id, name, line)
        self.documented: list[tuple[str, tuple[tuple[str, int], ...]]] = []
        # (attribute id, scope of the value, line, annotation, value): types resolved at the
        # end. Values and call sites are kept as small copies (compact.py), so that a block's
        # tree can be let go once walked.
        self.compact = self.bindings.compact
        self.attribute_values: list[tuple[str, Scope, int, ast.expr | None, ast.expr | None]] = []
        self.returns: list[tuple[str, Scope, ast.expr]] = []
        self.annotated: list[tuple[str, Scope, ast.expr]] = []  # (subject, scope, annotation)
        self.enums: set[str] = set()
        self.deferred: dict[int, list[tuple[list[ast.stmt], Scope]]] = {}
        self.clauses = ClauseSpans(self.text)
        self.declared: set[str] = set()  # attributes a bare annotation declares first

    def document(self, entity_id: str, node: ast.AST) -> None:
        """Keep a definition for its requirement ids, when the file has any."""
        if self.requirements:
            self.documented.append((entity_id, requirement_texts(node)))

    def provenance(self, start: int, end: int) -> Provenance:
        return Provenance(self.path, start, end, self.digest)

    # -- definitions ----------------------------------------------------------------

    def add_entity(self, entity: Entity, container: str | None, start: int | None = None) -> bool:
        """Add an entity (and its ``defines`` fact); ``False`` when the id is taken."""
        if entity.id in self.entities and entity.id not in self.overloads:
            return False
        fact = None
        if container is not None:
            where = self.provenance(start or entity.line or 1, entity.end_line or entity.line or 1)
            fact = Fact(container, RelationKind.DEFINES, entity.id, where)
        if entity.id in self.entities:  # the implementation after its @overload stubs
            position = self.entities[entity.id]
            self.index.entities[position] = entity
            self.index.facts = [f for f in self.index.facts if f.object != entity.id]
            self.overloads.discard(entity.id)
        else:
            self.entities[entity.id] = len(self.index.entities)
            self.index.entities.append(entity)
        if fact is not None:
            self.index.facts.append(fact)
        return True

    def extend_property(self, entity_id: str, end: int) -> None:
        """A property's setter or deleter (``@name.setter``) is the property's: its
        calls are credited to it, so its line span runs to the accessor's end and its
        excerpt shows them (a played context had said ``ucd calls check_ucd()`` of a
        getter that calls nothing, its setter never shown)."""
        position = self.entities.get(entity_id)
        if position is None:
            return
        entity = self.index.entities[position]
        if entity.kind is not EntityKind.ATTRIBUTE or (entity.end_line or 0) >= end:
            return
        self.index.entities[position] = replace(entity, end_line=end)
        self.spans = [
            (first, end if owner == entity_id else last, owner) for first, last, owner in self.spans
        ]

    def shadowed(self, scope: Scope, name: str) -> bool:
        """A module-level name that a submodule of this package rebinds on import."""
        if scope.kind != "module" or not self.is_package:
            return False
        self.top_names.add(name)
        return name in self.submodules

    def bind_target(
        self,
        target: ast.expr,
        scope: Scope,
        line: int,
        annotation: ast.expr | None,
        value: ast.expr | None,
    ) -> None:
        if isinstance(target, ast.Name):
            if annotation is not None:
                self.bindings.bind(scope, target.id, line, "annotation", annotation)
            elif value is not None:
                self.bindings.bind(scope, target.id, line, "expr", value)
        elif isinstance(target, ast.Tuple | ast.List):
            self.bindings.bind_unpacked(target, value, scope, line, ())
            # `_, self.labels_, _ = k_means(...)` sets an instance attribute too.
            elements = list(target.elts)
            while elements:
                element = elements.pop()
                if isinstance(element, ast.Starred):
                    element = element.value
                if isinstance(element, ast.Tuple | ast.List):
                    elements.extend(element.elts)
                elif isinstance(element, ast.Attribute):
                    # at its own line: a played list had put all eleven targets of a
                    # multi-line `(self.support_, ..., self._probB, ...) = fit(...)` at
                    # the statement's first line
                    self.bind_target(element, scope, element.lineno, None, None)
        elif (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and scope.class_id is not None
            and self.bindings.is_receiver(scope, target.value.id)
        ):
            self.define_instance_attribute(scope, target, line, annotation, value)

    def define_attribute(
        self,
        scope: Scope,
        name: str,
        node: ast.stmt,
        annotation: ast.expr | None,
        value: ast.expr | None,
        doc: str,
    ) -> str | None:
        """Define a module or class attribute; return its id (``None`` when the name is
        a module's dunder such as ``__all__``, shadowed by a submodule, or bound by an
        import; a class's ``__slots__`` or ``__hash__ = None`` says what its instances
        can do, and is one)."""
        dunder = name.startswith("__") and name.endswith("__")
        if dunder and (scope.kind != "class" or len(name) <= 4 or name in _CLASS_BOOKKEEPING):
            return None
        if self.shadowed(scope, name):
            return None
        if scope.kind == "module" and name in self.bindings.imports:
            return None  # e.g. `try: from x import y / except ImportError: y = None`
        entity_id = f"{scope.id}.{name}"
        end = node.end_lineno or node.lineno
        # `cookies: RequestsCookieJar` declares, and assigns nothing (a played context
        # had said `Session.cookies ... set 2 times` of it and one `self.cookies = ...`)
        declared = isinstance(node, ast.AnnAssign) and node.value is None
        entity = Entity(
            entity_id,
            EntityKind.ATTRIBUTE,
            name,
            self.path,
            node.lineno,
            attribute_signature(annotation, value, self.text),
            True,
            end,
            doc,
            assignments=0 if declared else 1,
        )
        if self.add_entity(entity, scope.id, node.lineno):
            if declared:
                self.declared.add(entity_id)
        elif not declared:
            self.reassigned(entity_id, scope)
        self.attribute_values.append(
            (entity_id, scope, node.lineno, annotation, self.compact.value(value))
        )
        scope.names.setdefault(name, entity_id)
        if node.lineno in self.type_aliases or (TYPE_ALIAS and isinstance(node, TYPE_ALIAS)):
            self.mark_type_alias(entity_id, node)
        return entity_id

    def mark_clauses(self) -> None:
        """Give each definition of a module's or class's body (not an instance
        attribute, a method's) the clause of that body it is under, once the file is
        walked (:mod:`~citeloop.knowledge.indexing.clauses`)."""
        entities = self.index.entities
        # Not a declaration assigned elsewhere: `registry: dict` under `if TYPE_CHECKING:`
        # says nothing of where `registry = {}` is.
        in_bodies = [
            position
            for position, entity in enumerate(entities)
            if entity.kind is not EntityKind.MODULE
            and entity.line
            and not entity.set_in
            and not (entity.id in self.declared and entity.assignments)
            and self._in_body(entity.id)
        ]
        under = self.clauses.under(entities[position].line or 0 for position in in_bodies)
        for position in in_bodies:
            clause = under.get(entities[position].line or 0)
            if clause:
                entities[position] = replace(entities[position], under=clause)

    def _in_body(self, entity_id: str) -> bool:
        """Whether ``entity_id`` is defined by its module's or a class's body."""
        parent = entity_id.rpartition(".")[0]
        if parent == self.module:
            return True
        position = self.entities.get(parent)
        return position is not None and self.index.entities[position].kind is EntityKind.CLASS

    def redefined(self, entity_id: str) -> None:
        """One more ``def`` of a function's name in its scope (``if sys.byteorder ==
        "little": def swap(x): ... else: def swap(x): ...``): its line shows the first,
        and says how many (a played context had shown one of two conditional
        definitions as the function, and the answer had read the other's code into
        it)."""
        position = self.entities[entity_id]
        known = self.index.entities[position]
        if known.kind in _DEFINITIONS:
            defined = max(known.assignments, 1) + 1
            self.index.entities[position] = replace(known, assignments=defined)

    def reassigned(self, entity_id: str, scope: Scope) -> None:
        """One more statement of its module or class body sets attribute ``entity_id``
        (``model = ...`` twice, ``NAMES += (...)``): its line shows the first, and says
        how many (a played context had shown a module variable's first value as all
        of it, and its second value's call beside it)."""
        if scope.kind == "function" or (position := self.entities.get(entity_id)) is None:
            return
        known = self.index.entities[position]
        if known.kind is EntityKind.ATTRIBUTE and (known.assignments or entity_id in self.declared):
            self.index.entities[position] = replace(known, assignments=known.assignments + 1)

    def define_instance_attribute(
        self,
        scope: Scope,
        target: ast.Attribute,
        line: int,
        annotation: ast.expr | None,
        value: ast.expr | None,
    ) -> None:
        class_id = scope.class_id or ""
        name = target.attr
        entity_id = f"{class_id}.{name}"
        if name.startswith("__") and name.endswith("__"):
            return
        kept = self.compact.value(value)
        self.attribute_values.append((entity_id, scope, line, annotation, kept))
        declared = annotation is not None and value is None  # `self.x: T` sets nothing
        set_in = scope.id.removeprefix(class_id + ".") if class_id else ""
        if entity_id in self.entities:
            position = self.entities[entity_id]
            known = self.index.entities[position]
            # An attribute, or one its class declares: one more statement sets it (not
            # a property's setter, which `self.x = ...` calls)
            if not declared and (known.assignments or entity_id in self.declared):
                known = replace(known, assignments=known.assignments + 1)
                if "." in known.set_in and "." not in set_in:
                    # a callback defined first (`def _on_done(f): self.result = ...`)
                    # gives way to its method's own statement (`self.result = None`)
                    known = replace(
                        known,
                        line=line,
                        end_line=target.end_lineno or line,
                        signature=attribute_signature(annotation, value, self.text),
                        set_in=set_in,
                    )
                self.index.entities[position] = known
            return
        entity = Entity(
            entity_id,
            EntityKind.ATTRIBUTE,
            name,
            self.path,
            line,
            attribute_signature(annotation, value, self.text),
            True,
            target.end_lineno or line,
            set_in=set_in,
            assignments=0 if declared else 1,
        )
        if self.add_entity(entity, class_id, line) and declared:
            self.declared.add(entity_id)

    def mark_type_alias(self, entity_id: str, node: ast.stmt) -> None:
        """Prefix a type alias's signature with its type parameters (``[T] = ...``)."""
        position = self.entities.get(entity_id)
        params = self.type_params.get(node.lineno) or native_type_params(node, self.text)
        if position is not None and params:
            entity = self.index.entities[position]
            self.index.entities[position] = replace(entity, signature=params + entity.signature)

    # -- bindings and chains --------------------------------------------------------

    def resolve_types(self) -> None:
        types = self.index.types
        for entity_id, scope, node in self.returns:
            if entity_id not in types:
                chain = self.bindings.annotation(node, scope, node.lineno)
                if chain is not None:
                    types[entity_id] = chain
        values = sorted(self.attribute_values, key=_value_order)
        kinds = {entity.id: entity.kind for entity in self.index.entities}
        for entity_id, scope, line, annotation, value in values:
            if entity_id in types or kinds.get(entity_id) is not EntityKind.ATTRIBUTE:
                continue
            if annotation is not None:
                chain = self.bindings.annotation(annotation, scope, line)
            elif value is not None:
                chain = self.bindings.chain_of("expr", value, scope, line)
            else:
                chain = None
            owner = entity_id.rpartition(".")[0]
            if chain is None and owner in self.enums and annotation is None:
                chain = owner + "()"
            if chain is not None:
                types[entity_id] = chain


def _value_order(item: tuple[str, Scope, int, ast.expr | None, ast.expr | None]) -> tuple:
    """Which assignment gives an attribute its type, first: an annotated one; then for
    a module or class attribute the last (what code sees once the body has run), for
    an instance attribute the first in ``__init__``, then in other methods in order."""
    _, scope, line, annotation, _ = item
    if scope.kind != "function":
        return (annotation is None, False, -line)
    return (annotation is None, not scope.id.endswith(".__init__"), line)
