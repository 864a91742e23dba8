"""What each name of a Python file is bound to, scope by scope, as chains.

A :class:`Scope` is a module, class or function body. A function binds its parameters
(by their annotations; ``self`` and ``cls`` to its class), its assignments (a
constructor call ``x = Client()``, an annotation ``x: Client``, another chain), loop and
comprehension variables (an element of the iterable; ``enumerate`` and ``zip`` pair
names with their arguments), ``with ... as`` and ``except ... as`` names, unpacked
tuples, its imports and its nested definitions. A use of a name reads the innermost
function scope that binds it (class bodies do not enclose their methods), else the
module. Where a function binds a name more than once, a use reads the last binding
before it, else any binding with a known value: a static, mostly flow-insensitive
approximation of what Python does at run time. Chains are described in
:mod:`citeloop.knowledge.indexing.chains`.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

from citeloop.knowledge.indexing.chains import annotation_chain, expression_chain, extend
from citeloop.knowledge.indexing.compact import Compactor

_BUILTIN_NAMES = frozenset(dir(builtins))

MAX_BINDINGS = 64
"""Bindings of one name kept per scope (a generated file may rebind a name thousands
of times)."""


@dataclass(slots=True)
class Binding:
    """One binding of a name in a function scope: ``how`` says what ``value`` is
    (``"chain"``, ``"expr"`` or ``"annotation"``); ``suffixes`` are then applied
    (``"[]"`` for a loop variable, ``"[1]"`` for the second name of ``a, b = ...``)."""

    line: float
    how: str
    value: object
    suffixes: tuple[str, ...] = ()


@dataclass(slots=True, eq=False)
class Scope:
    """A module, class or function body, with the names it binds."""

    kind: str  # "module" | "class" | "function"
    id: str
    parent: Scope | None
    class_id: str | None = None
    """The class whose ``self``/``cls`` a function's first parameter is."""
    names: dict[str, str] = field(default_factory=dict)
    """Names bound once and for all here: definitions (their ids) and, in a class, its
    attributes."""
    bindings: dict[str, list[Binding]] = field(default_factory=dict)


class Bindings:
    """The scopes of one file and the chain of every name used in them.

    Args:
        module: The module's id (its dotted name).
    """

    def __init__(self, module: str) -> None:
        self.module = Scope("module", module, None)
        self.imports: dict[str, str] = {}
        """Module-level import bindings: name -> qualified target."""
        self.star_imports = False
        """Whether the module has a ``from m import *`` (a name bound nowhere else may
        come from it)."""
        self.compact = Compactor()
        """Makes the small copies of expression values that bindings keep."""
        self._memo: dict[tuple[int, str, int], str | None] = {}
        self._evaluating: set[tuple[int, str, int]] = set()

    def bind(
        self,
        scope: Scope,
        name: str,
        line: float,
        how: str,
        value: object,
        suffixes: tuple[str, ...] = (),
    ) -> None:
        bindings = scope.bindings.setdefault(name, [])
        if len(bindings) < MAX_BINDINGS:
            if how == "expr":  # a small copy with the same chain (see compact.py)
                value = self.compact.value(value)  # type: ignore[arg-type]
            bindings.append(Binding(line, how, value, suffixes))

    def bind_parameters(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        scope: Scope,
        in_class: bool,
        decorators: set[str],
    ) -> None:
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        line = node.lineno
        for position, arg in enumerate([*positional, *args.kwonlyargs]):
            if (
                position == 0
                and in_class
                and arg in positional
                and "staticmethod" not in decorators
            ):
                class_chain = scope.class_id
                value = class_chain if "classmethod" in decorators else extend(class_chain, "()")
                self.bind(scope, arg.arg, line, "chain", value)
            elif arg.annotation is not None:
                self.bind(scope, arg.arg, line, "annotation", arg.annotation)
            else:
                self.bind(scope, arg.arg, line, "chain", None)
        for arg in (args.vararg, args.kwarg):
            if arg is not None:
                self.bind(scope, arg.arg, line, "chain", None)

    def bind_unpacked(
        self,
        target: ast.Tuple | ast.List,
        value: ast.expr | None,
        scope: Scope,
        line: float,
        suffixes: tuple[str, ...],
    ) -> None:
        """``a, b = value``: item ``n`` of the value for the ``n``-th name (the matching
        element of a display ``a, b = x, y``); names after a ``*rest`` stay unknown."""
        pairs = (
            isinstance(value, ast.Tuple | ast.List)
            and not suffixes
            and len(value.elts) == len(target.elts)
        )
        starred = False
        for position, element in enumerate(target.elts):
            starred = starred or isinstance(element, ast.Starred)
            if not isinstance(element, ast.Name):
                continue
            if pairs:
                self.bind(scope, element.id, line, "expr", value.elts[position])  # type: ignore[union-attr]
            elif starred or value is None:
                self.bind(scope, element.id, line, "chain", None)
            else:
                self.bind(scope, element.id, line, "expr", value, (*suffixes, f"[{position}]"))

    def bind_loop(self, target: ast.expr, iterable: ast.expr, scope: Scope, line: float) -> None:
        """A loop variable: an element of the iterable; ``enumerate`` and ``zip`` pair
        the names with their arguments' elements."""
        if isinstance(target, ast.Name):
            self.bind(scope, target.id, line, "expr", iterable, ("[]",))
            return
        if not isinstance(target, ast.Tuple | ast.List):
            return
        call = (
            iterable.func.id
            if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
            else ""
        )
        arguments = iterable.args if isinstance(iterable, ast.Call) else []
        if call == "enumerate" and arguments and len(target.elts) == 2:
            sources: list[ast.expr | None] = [None, arguments[0]]
        elif call == "zip" and len(arguments) == len(target.elts):
            sources = list(arguments)
        else:
            self.bind_unpacked(target, iterable, scope, line, ("[]",))
            return
        for element, source in zip(target.elts, sources, strict=True):
            if isinstance(element, ast.Name):
                if source is None:
                    self.bind(scope, element.id, line, "chain", None)
                else:
                    self.bind(scope, element.id, line, "expr", source, ("[]",))

    def is_receiver(self, scope: Scope, name: str) -> bool:
        """Whether ``name`` is the ``self`` (or ``cls``) parameter of the method ``scope``,
        or of the method a function defined in it (at any depth) closes over: a nested
        ``generate()`` that sets ``self._content_consumed`` sets its method's instance's
        attribute (a played context had said "set 2 times" of one set three times)."""
        current: Scope | None = scope
        while current is not None and current.kind == "function":
            bindings = current.bindings.get(name)
            if bindings:
                return (
                    bindings[0].how == "chain"
                    and bindings[0].value is not None
                    and current.class_id == scope.class_id
                    and (str(bindings[0].value).rstrip("()") == scope.class_id)
                )
            current = current.parent
        return False

    def lookup(self, scope: Scope, name: str, line: float) -> str | None:
        """The chain bound to ``name`` where ``scope`` uses it at ``line``."""
        current: Scope | None = scope
        while current is not None:
            if current.kind == "class" and current is not scope:
                current = current.parent  # class bodies do not enclose their methods
                continue
            if name in current.names:
                return current.names[name]
            if name in current.bindings:
                return self.binding_value(current, name, line)
            if current.kind == "module":
                break
            current = current.parent
        if name in self.imports:
            return self.imports[name]
        if name in self.module.names:
            return self.module.names[name]
        if self.star_imports and name not in _BUILTIN_NAMES:
            return f"{self.module.id}.{name}"  # maybe bound by ``from m import *``
        return None

    def binding_value(self, scope: Scope, name: str, line: float) -> str | None:
        bindings = scope.bindings[name]
        before = [i for i, b in enumerate(bindings) if b.line < line]
        order = [*reversed(before), *(i for i in range(len(bindings)) if i not in before)]
        for position in order:
            value = self.evaluate(scope, name, position)
            if value is not None:
                return value
        return None

    def evaluate(self, scope: Scope, name: str, position: int) -> str | None:
        key = (id(scope), name, position)
        if key in self._memo:
            return self._memo[key]
        if key in self._evaluating:
            return None
        self._evaluating.add(key)
        binding = scope.bindings[name][position]
        try:
            value = self.chain_of(binding.how, binding.value, scope, binding.line)
            for suffix in binding.suffixes:
                value = extend(value, suffix)
        finally:
            self._evaluating.discard(key)
        self._memo[key] = value
        return value

    def chain_of(self, how: str, value: object, scope: Scope, line: float) -> str | None:
        if how == "chain":
            return value  # type: ignore[return-value]
        if how == "annotation":
            return self.annotation(value, scope, line)  # type: ignore[arg-type]
        return expression_chain(
            value,  # type: ignore[arg-type]
            lambda name: self.lookup(scope, name, line),
            lambda node: self.annotation(node, scope, line),
        )

    def annotation(self, node: ast.expr | None, scope: Scope, line: float) -> str | None:
        self_chain = extend(scope.class_id, "()") if scope.class_id else None
        return annotation_chain(node, lambda name: self.lookup(scope, name, line), self_chain)
