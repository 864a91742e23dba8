"""Small copies of the expressions the indexer keeps until the end of a file.

Names in a file resolve only once the whole file is walked (a function may use a name
bound further down), so the indexer keeps the values of assignments and the callees of
calls until then. Keeping the parser's nodes would keep whole trees: the arguments of
every call and every element of every literal table, about 50 bytes of memory per byte
of source. :class:`Compactor` copies only what
:func:`~citeloop.knowledge.indexing.chains.expression_chain` and
:func:`~citeloop.knowledge.indexing.references.call_reference` read, without positions
(a call site keeps its line span and column beside the copy), so that a file parsed in blocks
(:mod:`citeloop.knowledge.indexing.blocks`) lets each block's tree go:

- a value keeps its *spine* (attributes, calls, subscripts, ``await`` and ``:=``, down
  to a name) and, at its end, the displays and conditionals ``expression_chain`` reads
  (to its nesting limit of 4): every element of a list or set display that can have a
  chain, the first 8 items of a tuple, the first 4 operands of ``or``;
- a call keeps no arguments, except the two of ``cast(T, x)`` (``T`` whole: it is read as
  an annotation) and the first of ``super(C, self)`` (when it is a dotted name);
- whatever can have no chain (a constant, a dict display, a tuple of constants) is
  :data:`UNKNOWN`, and a value that can have no chain is :data:`UNKNOWN` as a whole.

For every lookup, the chain of a copy is the chain of the original: a copy keeps every
node the chain functions can reach, and cuts only subtrees whose chain is ``None``
whatever names resolve to. Copies of calls are shared (a method chain ``a().b().c()``
holds three call sites, one spine), so the copies of a tree take at most as many nodes
as the tree.
"""

from __future__ import annotations

import ast

from citeloop.knowledge.indexing.chains import dotted

__all__ = ["UNKNOWN", "Compactor"]

_DISPLAY_DEPTH = 4
"""Nesting depth from which ``expression_chain`` reads no display or conditional."""
_TUPLE_ITEMS = 8
_OR_OPERANDS = 4
_SPINE = (ast.Attribute, ast.Call, ast.Subscript, ast.Await, ast.NamedExpr)
_ITERABLE_DISPLAYS = (ast.List, ast.Set)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp)


class _Unknown(ast.expr):
    """An expression whose chain is ``None`` whatever names resolve to."""

    _fields = ()


UNKNOWN: ast.expr = _Unknown()
"""Stands for a cut subtree: no chain function recognises it, so its chain is ``None``."""


def _is_cast(node: ast.Call) -> bool:
    parts = dotted(node.func)
    return parts is not None and parts[-1] == "cast" and len(node.args) == 2


def _dotted_copy(node: ast.expr) -> ast.expr:
    """A copy of a dotted name ``a.b.c`` (:data:`UNKNOWN` when ``node`` is none)."""
    parts = dotted(node)
    if parts is None:
        return UNKNOWN
    copy: ast.expr = ast.Name(id=parts[0])
    for part in parts[1:]:
        copy = ast.Attribute(value=copy, attr=part)
    return copy


class Compactor:
    """Makes the small copies of one file's kept expressions.

    Copies of calls are remembered by the identity of the original node, so the
    originals must stay alive while the memo holds them: call :meth:`forget` whenever a
    tree (or a block of one) is let go.
    """

    def __init__(self) -> None:
        self._calls: dict[tuple[int, int], tuple[ast.Call, bool]] = {}

    def forget(self) -> None:
        """Drop the memo of copied calls (before the nodes it was keyed by are freed)."""
        self._calls.clear()

    def value(self, node: ast.expr | None, depth: int = 0) -> ast.expr | None:
        """A copy of an assigned value with the same chain as ``node`` at ``depth`` (and
        deeper) for every lookup; :data:`UNKNOWN` when it can have none."""
        if node is None:
            return None
        copy, known = self._spine(node, depth)
        return copy if known else UNKNOWN

    def callee(self, node: ast.Call) -> ast.expr:
        """A copy of the callee of a call site for
        :func:`~citeloop.knowledge.indexing.references.call_reference`: what its chain,
        dotted name, root name and ``super(C, self)`` read (positions are not kept)."""
        copy, _ = self._spine(node, 0)
        return copy.func  # type: ignore[attr-defined]

    def _spine(self, node: ast.expr, depth: int) -> tuple[ast.expr, bool]:
        """The copy of ``node`` down its spine, and whether its end can have a chain
        (when it cannot, neither can ``node``: a cast, which ends the chain early,
        counts as an end)."""
        spine: list[ast.expr] = []
        current = node
        end: ast.expr | None = None
        known = True
        while isinstance(current, _SPINE):
            if isinstance(current, ast.Call):
                remembered = self._calls.get((id(current), depth))
                if remembered is not None:
                    end, known = remembered
                    break
                if _is_cast(current):
                    end = ast.Call(func=_dotted_copy(current.func), args=[current.args[0], UNKNOWN])
                    break
                spine.append(current)
                current = current.func
            else:
                spine.append(current)
                current = current.value
        if end is None:
            if isinstance(current, ast.Name):
                end = ast.Name(id=current.id)
            else:
                end = self._end(current, depth)
                known = end is not UNKNOWN
        copy = end
        for original in reversed(spine):
            copy = self._step(original, copy)
            if isinstance(original, ast.Call):
                self._calls[(id(original), depth)] = (copy, known)  # type: ignore[assignment]
        return copy, known

    @staticmethod
    def _step(original: ast.expr, inner: ast.expr) -> ast.expr:
        """A copy of one spine node around the copy of what it applies to."""
        if isinstance(original, ast.Attribute):
            return ast.Attribute(value=inner, attr=original.attr)
        if isinstance(original, ast.Call):
            args: list[ast.expr] = []
            if isinstance(original.func, ast.Name) and original.func.id == "super":
                args = [_dotted_copy(arg) for arg in original.args[:1]]
            return ast.Call(func=inner, args=args, keywords=[])
        if isinstance(original, ast.Subscript):
            index = original.slice
            item = isinstance(index, ast.Constant) and type(index.value) is int
            kept = ast.Constant(value=index.value) if item else UNKNOWN  # type: ignore[union-attr]
            return ast.Subscript(value=inner, slice=kept)
        if isinstance(original, ast.Await):
            return ast.Await(value=inner)
        return ast.NamedExpr(target=UNKNOWN, value=inner)

    def _end(self, node: ast.expr, depth: int) -> ast.expr:
        """The copy of the end of a spine: a display or conditional, else UNKNOWN."""
        if depth >= _DISPLAY_DEPTH:
            return UNKNOWN
        inner = depth + 1
        if isinstance(node, ast.IfExp):
            body, orelse = self.value(node.body, inner), self.value(node.orelse, inner)
            if body is UNKNOWN and orelse is UNKNOWN:
                return UNKNOWN
            return ast.IfExp(test=UNKNOWN, body=body, orelse=orelse)
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            values = [self.value(value, inner) for value in node.values[:_OR_OPERANDS]]
            if all(value is UNKNOWN for value in values):
                return UNKNOWN
            return ast.BoolOp(op=node.op, values=values)
        if isinstance(node, _ITERABLE_DISPLAYS):
            elements: list[ast.expr] = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    kept = self.value(element.value, inner)
                    if kept is not UNKNOWN:
                        elements.append(ast.Starred(value=kept))
                elif (kept := self.value(element, inner)) is not UNKNOWN:
                    elements.append(kept)  # type: ignore[arg-type]
            return ast.List(elts=elements) if elements else UNKNOWN
        if isinstance(node, _COMPREHENSIONS):
            element = self.value(node.elt, inner)
            return UNKNOWN if element is UNKNOWN else ast.ListComp(elt=element, generators=[])
        if isinstance(node, ast.Tuple):
            items = [self.value(item, inner) for item in node.elts[:_TUPLE_ITEMS]]
            if all(item is UNKNOWN for item in items):
                return UNKNOWN
            return ast.Tuple(elts=items)
        return UNKNOWN
