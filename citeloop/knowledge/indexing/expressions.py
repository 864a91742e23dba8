"""Sweeping one expression of a Python file for what it calls and names.

The hot loop of indexing (:meth:`ExpressionSweep.sweep`): one pass over an expression
records its call sites, the strings in it that may name a class, and the names it
passes, raises or catches as values, binding walrus and comprehension targets on the
way. It reads child fields directly, with the node types that can hold no call
skipped. The file's walk (:mod:`~citeloop.knowledge.indexing.python_index`) sweeps
the expressions of functions and methods, and the values of module and class
attributes; what is swept becomes references in
:mod:`~citeloop.knowledge.indexing.references`.
"""

from __future__ import annotations

import ast

from citeloop.knowledge.indexing.compact import Compactor
from citeloop.knowledge.indexing.references import (
    CallSite,
    ValueName,
    may_name_class,
    names_class,
)
from citeloop.knowledge.indexing.scopes import Bindings, Scope

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

_VALUE_NAMES = frozenset({ast.Name, ast.Attribute})
"""Expressions of a call's argument that may name a class (:meth:`ExpressionSweep.value`)."""


class ExpressionSweep:
    """What a file's walk finds inside expressions (mixed into the walker, which holds
    the lists it appends to)."""

    bindings: Bindings
    compact: Compactor
    calls: list[CallSite]
    strings: list[tuple[str, str, int]]  # (subject, class name, line)
    values: list[ValueName]  # names passed, raised or caught as values
    valued: set[tuple[str, ...]]  # (subject, *name) of those kept

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
