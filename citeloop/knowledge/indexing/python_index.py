"""Indexing one Python file: one walk over its syntax tree (the code is never imported).

Records the module, its classes, functions (nested ones included), methods, tests and
attributes (class attributes and fields, instance attributes set through ``self`` in a
method, properties, module variables and constants), each with its signature,
docstring, decorators and line span (:mod:`~citeloop.knowledge.indexing.signatures`);
``defines`` facts; the chain of each attribute's value and each function's result; and
the references to link later (:mod:`~citeloop.knowledge.indexing.references`), their
targets written as chains of what each name is bound to
(:mod:`~citeloop.knowledge.indexing.scopes`). Calls, and strings that may name a class,
are recorded inside functions and methods, and in the value of a module or class
attribute (the attribute calls or names them); others at import time or in class
bodies are not. The names in a function's or an attribute's annotations are references
too. A method's body is walked after its class's body, so that the class's own
attributes come before those its methods set.

In a package's ``__init__.py``, a module-level definition whose name is also a
submodule of the package is not recorded, nor anything inside it: importing the
submodule rebinds that name (and its members' ids are the submodule's).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace

from citeloop.knowledge.indexing.chains import dotted
from citeloop.knowledge.indexing.records import FileIndex
from citeloop.knowledge.indexing.references import (
    REQUIREMENT_MARK,
    CallSite,
    ValueName,
    annotation_references,
    base_reference,
    call_references,
    chain_references,
    may_name_class,
    names_class,
    override_references,
    requirement_references,
    requirement_texts,
    string_references,
)
from citeloop.knowledge.indexing.scopes import Bindings, Scope
from citeloop.knowledge.indexing.signatures import (
    SourceText,
    attribute_signature,
    bounded_docstring,
    class_signature,
    decorator_name,
    docstring,
    function_signature,
    is_property_decorator,
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

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp})
_NO_CHILDREN = frozenset(
    {"ctx", "id", "attr", "arg", "name", "asname", "module", "level", "kind", "names"}
    | {"type_comment", "is_async", "conversion", "simple", "op", "ops"}
)
"""Fields of expression nodes that never hold a node that can contain a call."""
_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that may hold nodes (cached per type)."""
    found = _FIELDS[kind] = tuple(f for f in kind._fields if f not in _NO_CHILDREN)  # type: ignore[attr-defined]
    return found


_LEAF_TYPES = frozenset(
    {
        ast.Name,
        ast.Constant,
        ast.Load,
        ast.Store,
        ast.Del,
        ast.alias,
        *ast.operator.__subclasses__(),
    }
    | set(ast.cmpop.__subclasses__())
    | set(ast.unaryop.__subclasses__())
    | set(ast.boolop.__subclasses__())
    | {str, int, type(None)}
)


def is_main_guard(test: ast.expr) -> bool:
    """Whether ``test`` is ``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) is ast.Eq):
        return False
    sides = (test.left, test.comparators[0])
    names = [side.id for side in sides if isinstance(side, ast.Name)]
    values = [side.value for side in sides if isinstance(side, ast.Constant)]
    return names == ["__name__"] and values == ["__main__"]


_SIMPLE = (
    ast.Expr,
    ast.Return,
    ast.AugAssign,
    ast.Raise,
    ast.Assert,
    ast.Delete,
    ast.Pass,
    ast.Break,
    ast.Continue,
    ast.Global,
    ast.Nonlocal,
)
_ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"})
_TYPE_ALIAS = getattr(ast, "TypeAlias", None)  # Python 3.12+


def _span_start(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    return min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])


_Stack = list[tuple["ast.stmt | None", "Scope", str]]
"""Statements to visit, with their scope and attribute docstring; ``None`` flushes a
class's deferred method bodies."""


_VALUE_NAMES = frozenset({ast.Name, ast.Attribute})
"""Expressions of a call's argument that may name a class (:meth:`_FileWalker.value`)."""

_DEFINITIONS = frozenset({EntityKind.FUNCTION, EntityKind.METHOD, EntityKind.TEST})
"""Kinds of entity a ``def`` statement defines (a property is an attribute)."""


def _paired_values(target: ast.Tuple | ast.List, value: ast.expr | None) -> list[ast.expr] | None:
    """The value of each element of an unpacking target when the value is a tuple or
    list of as many elements, neither starred (``a, b = 1, f()``), else ``None``."""
    if not isinstance(value, ast.Tuple | ast.List) or len(value.elts) != len(target.elts):
        return None
    if any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts)):
        return None
    return list(value.elts)


_CLASS_BOOKKEEPING = frozenset(
    {"__doc__", "__module__", "__qualname__", "__annotations__", "__dict__", "__weakref__"}
)
"""A class's dunders that say nothing of what its instances can do (Python sets them)."""


class _FileWalker:
    """Collects one file's entities, facts and references in one pass over its tree."""

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

    def document(self, entity_id: str, node: ast.AST) -> None:
        """Keep a definition for its requirement ids, when the file has any."""
        if self.requirements:
            self.documented.append((entity_id, requirement_texts(node)))

    def provenance(self, start: int, end: int) -> Provenance:
        return Provenance(self.path, start, end, self.digest)

    # -- the walk -------------------------------------------------------------------

    def run(self, blocks: Iterable[ast.Module]) -> FileIndex:
        """Walk the file's statements, given as one module or as consecutive blocks of
        top-level statements (each let go once walked), then link what they reference."""
        name = self.module.rsplit(".", 1)[-1]
        end = len(self.text.lines)
        for number, block in enumerate(blocks):
            if not number:
                self.add_entity(
                    Entity(
                        self.module,
                        EntityKind.MODULE,
                        name,
                        self.path,
                        1,
                        "",
                        True,
                        end,
                        docstring(block),
                    ),
                    None,
                )
                self.document(self.module, block)
            self.walk(block.body, self.bindings.module)
            self.compact.forget()  # before the block's nodes, which key its memo, are freed
            del block
        self.index.references.extend(
            reference
            for class_id, scope, base in self.bases
            if (reference := base_reference(self.bindings, class_id, scope, base)) is not None
        )
        self.index.references.extend(override_references(self.members, self.bases))
        self.resolve_types()
        self.index.references.extend(call_references(self.bindings, self.calls))
        self.index.references.extend(string_references(self.strings))
        self.index.references.extend(
            chain_references(self.bindings, RelationKind.REFERENCES, self.values, "value")
        )
        self.annotated.extend(
            (entity_id, scope, annotation)
            for entity_id, scope, _, annotation, _ in self.attribute_values
            if annotation is not None
        )
        self.index.references.extend(annotation_references(self.bindings, self.annotated))
        if self.requirements:
            self.index.references.extend(
                requirement_references(self.module, self.source, self.documented, self.spans)
            )
        self.index.top_names = frozenset(self.top_names)
        return self.index

    def walk(self, body: list[ast.stmt], scope: Scope) -> None:
        stack: _Stack = []
        self.push(stack, body, scope)
        while stack:
            node, scope, doc = stack.pop()
            if node is None:
                for method_body, method_scope in reversed(self.deferred.pop(id(scope), [])):
                    self.push(stack, method_body, method_scope)
            elif isinstance(node, _FUNCTIONS):
                self.visit_function(node, scope, stack)
            elif isinstance(node, ast.ClassDef):
                self.visit_class(node, scope, stack)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                self.visit_assignment(node, scope, doc)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                self.visit_import(node, scope)
            elif _TYPE_ALIAS is not None and isinstance(node, _TYPE_ALIAS):
                self.visit_type_alias(node, scope, doc)
            else:
                self.visit_compound(node, scope, stack)

    def push(self, stack: _Stack, body: list[ast.stmt], scope: Scope) -> None:
        """Push ``body`` so that it pops in source order, with attribute docstrings (a
        string right after an assignment) for module and class bodies."""
        for position in range(len(body) - 1, -1, -1):
            node = body[position]
            doc = ""
            if scope.kind != "function" and isinstance(node, ast.Assign | ast.AnnAssign):
                following = body[position + 1] if position + 1 < len(body) else None
                if (
                    isinstance(following, ast.Expr)
                    and isinstance(following.value, ast.Constant)
                    and isinstance(following.value.value, str)
                ):
                    doc = bounded_docstring(following.value.value)
            stack.append((node, scope, doc))

    def sweep(
        self,
        node: ast.AST | None,
        scope: Scope,
        shadow: frozenset[str] = frozenset(),
        caller: str | None = None,
    ) -> None:
        """Record the calls, the strings that may name a class (and walrus and
        comprehension bindings) inside an expression of a function, or of a module or
        class attribute's value when ``caller`` is that attribute; ``shadow`` holds the
        parameters of the lambdas around it. The hot loop of indexing: it reads child
        fields directly."""
        if node is None or (caller is None and scope.kind != "function"):
            return
        caller = caller or scope.id
        stack: list = [node]
        pop, push, extend = stack.pop, stack.append, stack.extend
        leaves, fields_of = _LEAF_TYPES, _child_fields
        while stack:
            current = pop()
            kind = type(current)
            if kind in leaves:
                value = current.value if kind is ast.Constant else None
                if type(value) is str and names_class(value):
                    self.strings.append((caller, value, current.lineno))
                continue
            if kind is ast.Call:
                end = current.end_lineno or current.lineno
                callee = self.compact.callee(current)
                site = (caller, scope, callee, shadow, current.lineno, end, current.col_offset)
                self.calls.append(site)
                for argument in current.args:
                    if type(argument) in _VALUE_NAMES:
                        self.value(caller, scope, argument, shadow)
                for keyword in current.keywords:
                    if type(keyword.value) in _VALUE_NAMES:
                        self.value(caller, scope, keyword.value, shadow)
            elif kind is ast.Raise and current.exc is not None:
                self.value(caller, scope, current.exc, shadow)
            elif kind is ast.JoinedStr:  # an f-string's text is not a name: its fields are
                extend(part for part in current.values if type(part) is not ast.Constant)
                continue
            elif kind is ast.Expr and type(current.value) is ast.Constant:
                continue  # a docstring, or a string as a comment
            elif kind is ast.Lambda:
                args = current.args
                names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
                names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
                extend((*args.defaults, *(d for d in args.kw_defaults if d is not None)))
                self.sweep(current.body, scope, shadow | names, caller)
                continue
            elif kind is ast.NamedExpr and type(current.target) is ast.Name:
                self.bindings.bind(scope, current.target.id, current.lineno, "expr", current.value)
            elif kind in _COMPREHENSIONS:
                # Bound just before the line, so the element expression sees them.
                for generator in current.generators:
                    self.bindings.bind_loop(
                        generator.target, generator.iter, scope, current.lineno - 0.5
                    )
            for name in _FIELDS.get(kind) or fields_of(kind):
                value = getattr(current, name)
                if type(value) is list:
                    extend(value)
                else:
                    push(value)

    def value(self, caller: str, scope: Scope, node: ast.expr, shadow: frozenset[str]) -> None:
        """Keep a name ``caller`` passes, raises or catches as a value (``vo_warn(W39)``,
        ``raise Error``, ``except Error:``) when it may name a class
        (:func:`~citeloop.knowledge.indexing.references.may_name_class`): the linker
        keeps those naming a class of the tree as ``references`` facts."""
        parts = may_name_class(node, shadow)
        if parts is not None and (key := (caller, *parts)) not in self.valued:
            self.valued.add(key)  # its first place only, as the linker keeps
            self.values.append((caller, scope, parts, node.lineno, node.end_lineno or node.lineno))

    def visit_compound(self, node: ast.stmt, scope: Scope, stack: _Stack) -> None:
        in_function = scope.kind == "function"
        if isinstance(node, _SIMPLE):  # no statements inside: one sweep
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self.reassigned(f"{scope.id}.{node.target.id}", scope)  # `NAMES += (...)`
            self.sweep(node, scope)
            return
        if scope.kind == "module" and isinstance(node, ast.If) and is_main_guard(node.test):
            # A script's run, not the module's definitions: its `res = ...` and `msg =
            # ...` are no module attributes. Its `else:` runs on import.
            self.push(stack, node.orelse, scope)
            return
        if isinstance(node, ast.For | ast.AsyncFor) and in_function:
            self.bindings.bind_loop(node.target, node.iter, scope, node.lineno)
        elif isinstance(node, ast.With | ast.AsyncWith) and in_function:
            for item in node.items:
                if isinstance(item.optional_vars, ast.Name):
                    self.bindings.bind(
                        scope, item.optional_vars.id, node.lineno, "expr", item.context_expr
                    )
        bodies: list[list[ast.stmt]] = []
        for name, value in ast.iter_fields(node):
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    bodies.append(value)
                elif value and isinstance(value[0], ast.excepthandler | ast.match_case):
                    for clause in value:
                        self.visit_clause(clause, scope)
                        bodies.append(clause.body)
                elif in_function and value and isinstance(value[0], ast.AST):
                    for item in value:
                        self.sweep(item, scope)
            elif isinstance(value, ast.AST) and in_function and name != "target":
                self.sweep(value, scope)
        for body in reversed(bodies):
            self.push(stack, body, scope)

    def visit_clause(self, clause: ast.AST, scope: Scope) -> None:
        if scope.kind != "function":
            return
        if isinstance(clause, ast.ExceptHandler):
            if clause.name and clause.type is not None:
                self.bindings.bind(scope, clause.name, clause.lineno, "annotation", clause.type)
            caught = clause.type.elts if isinstance(clause.type, ast.Tuple) else [clause.type]
            for error in caught:
                if error is not None:
                    self.value(scope.id, scope, error, frozenset())
            self.sweep(clause.type, scope)
        elif isinstance(clause, ast.match_case):
            self.sweep(clause.guard, scope)

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

    def visit_function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        scope: Scope,
        stack: _Stack,
    ) -> None:
        decorators = tuple(decorator_name(d, self.text) for d in node.decorator_list)
        for decorator in node.decorator_list:
            self.sweep(decorator, scope)
        for default in (*node.args.defaults, *node.args.kw_defaults):
            self.sweep(default, scope)
        in_class = scope.kind == "class"
        entity_id = f"{scope.id}.{node.name}"
        last_parts = {d.rpartition(".")[2] for d in decorators}
        accessor = any(
            d.startswith(node.name + ".") and d.endswith((".setter", ".deleter", ".getter"))
            for d in decorators
        )
        if in_class and (any(map(is_property_decorator, last_parts)) or accessor):
            kind = EntityKind.ATTRIBUTE
        elif self.is_tests and node.name.startswith("test") and scope.kind != "function":
            kind = EntityKind.TEST
        else:
            kind = EntityKind.METHOD if in_class else EntityKind.FUNCTION
        start, end = _span_start(node), node.end_lineno or node.lineno
        hidden = self.shadowed(scope, node.name)
        if accessor and in_class and not hidden:
            self.extend_property(entity_id, end)
        if not accessor and not hidden:
            params = self.type_params.get(node.lineno, "")
            if kind is EntityKind.ATTRIBUTE:  # a property reads as its value's type
                signature = attribute_signature(node.returns, None, self.text)
            else:
                signature = function_signature(node, self.text, params)
            entity = Entity(
                entity_id,
                kind,
                node.name,
                self.path,
                start,
                signature,
                True,
                end,
                docstring(node),
                decorators,
            )
            if self.add_entity(entity, scope.id, start):
                self.spans.append((start, end, entity_id))
                self.document(entity_id, node)
                if in_class and kind is not EntityKind.TEST:
                    self.members.append((entity_id, scope.id, node.name, start))
                if "overload" in last_parts:
                    self.overloads.add(entity_id)
                arguments = node.args
                self.annotated.extend(
                    (entity_id, scope, argument.annotation)
                    for argument in (
                        *arguments.posonlyargs,
                        *arguments.args,
                        arguments.vararg,
                        *arguments.kwonlyargs,
                        arguments.kwarg,
                    )
                    if argument is not None and argument.annotation is not None
                )
                if node.returns is not None:
                    self.returns.append((entity_id, scope, node.returns))
                    self.annotated.append((entity_id, scope, node.returns))
            else:
                self.redefined(entity_id)
        scope.names.setdefault(node.name, entity_id)
        if hidden:  # nothing inside it is recorded either (it would take the submodule's ids)
            return
        inner = Scope("function", entity_id, scope, scope.id if in_class else scope.class_id)
        self.bindings.bind_parameters(node, inner, in_class, last_parts)
        if in_class:  # after the class body, so that its own attributes come first
            self.deferred.setdefault(id(scope), []).append((node.body, inner))
        else:
            self.push(stack, node.body, inner)

    def visit_class(self, node: ast.ClassDef, scope: Scope, stack: _Stack) -> None:
        for part in (*node.decorator_list, *node.bases, *(k.value for k in node.keywords)):
            self.sweep(part, scope)
        entity_id = f"{scope.id}.{node.name}"
        start, end = _span_start(node), node.end_lineno or node.lineno
        hidden = self.shadowed(scope, node.name)
        if not hidden:
            entity = Entity(
                entity_id,
                EntityKind.CLASS,
                node.name,
                self.path,
                start,
                class_signature(node, self.text, self.type_params.get(node.lineno, "")),
                True,
                end,
                docstring(node),
                tuple(decorator_name(d, self.text) for d in node.decorator_list),
            )
            if self.add_entity(entity, scope.id, start):
                self.spans.append((start, end, entity_id))
                self.document(entity_id, node)
                self.bases.extend((entity_id, scope, base) for base in node.bases)
                if any((dotted(b) or [""])[-1] in _ENUM_BASES for b in node.bases):
                    self.enums.add(entity_id)
        scope.names.setdefault(node.name, entity_id)
        if hidden:
            return
        inner = Scope("class", entity_id, scope, entity_id)
        stack.append((None, inner, ""))  # pops after the body: then the method bodies
        self.push(stack, node.body, inner)

    def visit_assignment(self, node: ast.Assign | ast.AnnAssign, scope: Scope, doc: str) -> None:
        value = node.value
        annotation = node.annotation if isinstance(node, ast.AnnAssign) else None
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if scope.kind == "function":
            self.sweep(value, scope)
        for target in targets:
            if scope.kind == "function":
                self.bind_target(target, scope, node.lineno, annotation, value)
            elif isinstance(target, ast.Name):
                attribute = self.define_attribute(scope, target.id, node, annotation, value, doc)
                if attribute is not None and len(targets) == 1:
                    self.sweep(value, scope, caller=attribute)  # what its value calls
            elif isinstance(target, ast.Tuple | ast.List):
                # `X, y = digits.data, digits.target`: each name its own value
                values = _paired_values(target, value) if len(targets) == 1 else None
                for position, element in enumerate(target.elts):
                    if isinstance(element, ast.Name):
                        own = values[position] if values is not None else None
                        attribute = self.define_attribute(scope, element.id, node, None, own, doc)
                        if attribute is not None and own is not None:
                            self.sweep(own, scope, caller=attribute)

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
                    self.bind_target(element, scope, line, None, None)
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
            assignments=1,
        )
        if not self.add_entity(entity, scope.id, node.lineno):
            self.reassigned(entity_id, scope)
        self.attribute_values.append(
            (entity_id, scope, node.lineno, annotation, self.compact.value(value))
        )
        scope.names.setdefault(name, entity_id)
        if node.lineno in self.type_aliases or (_TYPE_ALIAS and isinstance(node, _TYPE_ALIAS)):
            self.mark_type_alias(entity_id, node)
        return entity_id

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
        if known.kind is EntityKind.ATTRIBUTE and known.assignments:
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
        if entity_id in self.entities:
            position = self.entities[entity_id]
            known = self.index.entities[position]
            if known.assignments:  # an instance attribute: one more statement sets it
                self.index.entities[position] = replace(known, assignments=known.assignments + 1)
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
            set_in=scope.id.removeprefix(class_id + ".") if class_id else "",
            assignments=1,
        )
        self.add_entity(entity, class_id, line)

    def visit_type_alias(self, node: ast.AST, scope: Scope, doc: str) -> None:
        """A PEP 695 ``type X = ...`` statement, as parsed by Python 3.12+."""
        name = node.name.id  # type: ignore[attr-defined]
        self.define_attribute(scope, name, node, None, node.value, doc)  # type: ignore[arg-type, attr-defined]

    def mark_type_alias(self, entity_id: str, node: ast.stmt) -> None:
        """Prefix a type alias's signature with its type parameters (``[T] = ...``)."""
        position = self.entities.get(entity_id)
        params = self.type_params.get(node.lineno) or native_type_params(node, self.text)
        if position is not None and params:
            entity = self.index.entities[position]
            self.index.entities[position] = replace(entity, signature=params + entity.signature)

    def visit_import(self, node: ast.Import | ast.ImportFrom, scope: Scope) -> None:
        if isinstance(node, ast.Import):
            bindings = {
                (alias.asname or alias.name.split(".", 1)[0]): (
                    alias.name if alias.asname else alias.name.split(".", 1)[0]
                )
                for alias in node.names
            }
        else:
            origin = self.absolute_module(node.module or "", node.level)
            bindings = {
                (alias.asname or alias.name): f"{origin}.{alias.name}" if origin else alias.name
                for alias in node.names
                if alias.name != "*"
            }
            if scope.kind == "module" and origin and any(a.name == "*" for a in node.names):
                self.index.stars.append(origin)
                self.bindings.star_imports = True
        if scope.kind == "function":
            for name, target in bindings.items():
                self.bindings.bind(scope, name, node.lineno, "chain", target)
            return
        if scope.kind == "module":
            for name, target in bindings.items():
                self.bindings.imports.setdefault(name, target)
                self.index.aliases.setdefault(f"{self.module}.{name}", target)
        else:
            for name, target in bindings.items():
                scope.names.setdefault(name, target)

    def absolute_module(self, module: str, level: int) -> str:
        if not level:
            return module
        package = self.module.split(".")
        if not self.path.endswith("__init__.py"):
            package.pop()
        base = package[: len(package) - (level - 1)] if level > 1 else package
        return ".".join([*base, module] if module else base)

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


def index_python(
    path: str,
    digest: str,
    source: str,
    module: str,
    *,
    tree: ast.Module | Iterable[ast.Module] | None = None,
    submodules: Collection[str] = (),
    type_params: Mapping[int, str] | None = None,
    type_aliases: Collection[int] = (),
) -> FileIndex:
    """Index one Python file.

    Args:
        path: POSIX path relative to the indexed root.
        digest: SHA-256 hex digest of the file's bytes.
        source: The decoded source text.
        module: The file's dotted module name (see :mod:`citeloop.knowledge.indexing.modules`).
        tree: The parsed source, when the caller parsed it (e.g. with newer syntax
            lowered, :func:`citeloop.knowledge.indexing.syntax.parse_source`), or its
            consecutive blocks of top-level statements
            (:func:`citeloop.knowledge.indexing.blocks.iter_blocks`); else it is parsed.
        submodules: Names of the package's submodules, for a package's ``__init__.py``.
        type_params: PEP 695 type parameter text by definition line, when lowered.
        type_aliases: Lines of lowered ``type X = ...`` statements.

    Returns:
        The file's entities, ``defines`` facts, references, aliases, star imports and
        types.

    Raises:
        SyntaxError: If the source does not parse.
        ValueError: If the source contains null bytes.
        RecursionError: If the tree is too deeply nested to compile.
    """
    if tree is None:
        tree = ast.parse(source, filename=path)
    walker = _FileWalker(
        path,
        digest,
        module,
        source,
        frozenset(submodules),
        type_params or {},
        type_aliases,
    )
    return walker.run([tree] if isinstance(tree, ast.Module) else tree)
