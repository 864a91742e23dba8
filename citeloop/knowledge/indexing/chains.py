"""Value chains: what the indexer knows statically about the value of a name.

A *chain* is a string of dotted steps, each a name optionally followed by operations:
``()`` (the result of calling it), ``[]`` (an element of it, or a generic alias
``Box[int]`` of a class) and ``[n]`` (item ``n`` of a tuple). Its head is a qualified
candidate id (``"pkg.mod.Client"``). Examples::

    pkg.mod.Client()              an instance of Client (``x = Client()``, ``x: Client``)
    pkg.mod.Client().pool         its attribute pool
    pkg.mod.C.items[]             an element of C's attribute items
    pkg.mod.Client                the class itself (``type[Client]``, ``Alias = Client``)
    *pkg.mod.Doc()                an iterable of Doc instances (``list[Doc]``, ``[a, b]``)
    #0:pkg.A()|#1:pkg.B()         a pair: item 0 an A, item 1 a B (``tuple[A, B]``)
    pkg.A()|pkg.B()               an A or a B (``A | B``, ``a if c else b``), tried in order

Names never contain ``.``, ``(``, ``[``, ``*``, ``#``, ``:`` or ``|``, so parsing a
chain is unambiguous. The indexer writes chains per file, from annotations, constructor
calls and assignments; the linker resolves them once every file is known
(:mod:`citeloop.knowledge.indexing.linker`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

MAX_CHAIN_STEPS = 16
"""Longest chain kept; a longer one is unknown (bounds work per reference)."""

MAX_ALTERNATIVES = 4
"""Alternatives of a union kept, in order."""

_OPTIONAL_WRAPPERS = frozenset(
    {
        "Optional",
        "Annotated",
        "ClassVar",
        "Final",
        "Required",
        "NotRequired",
        "ReadOnly",
        "Awaitable",
        "InitVar",
    }
)
_ITERABLES = frozenset(
    {
        "list",
        "List",
        "Sequence",
        "MutableSequence",
        "Iterable",
        "Iterator",
        "Generator",
        "AsyncIterable",
        "AsyncIterator",
        "AsyncGenerator",
        "set",
        "Set",
        "frozenset",
        "FrozenSet",
        "AbstractSet",
        "MutableSet",
        "Collection",
        "Reversible",
        "deque",
        "Deque",
    }
)
_MAPPINGS = frozenset(
    {"dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "DefaultDict", "OrderedDict"}
)
_NO_VALUE = frozenset({"None", "NoReturn", "Never", "Any", "object"})
MAX_STRING_ANNOTATION = 200
"""Longest string (forward) annotation parsed, in characters."""
_OPS = re.compile(r"\(\)|\[\d*\]")
"""One operation of a step: ``()``, ``[]`` or ``[n]`` (no nested quantifier: linear)."""

Lookup = Callable[[str], "str | None"]
"""Maps a bare name used in a scope to its chain (``None`` when unknown)."""


def alternatives(chain: str) -> list[str]:
    """The alternatives of a chain (one for a chain that is no union)."""
    return chain.split("|")


def union(chains: list[str | None]) -> str | None:
    """The chains as alternatives, in order, without repeats (``None`` when none)."""
    found: list[str] = []
    for chain in chains:
        for alternative in alternatives(chain) if chain else ():
            if alternative not in found:
                found.append(alternative)
    return "|".join(found[:MAX_ALTERNATIVES]) or None


def steps(chain: str) -> list[tuple[str, str]]:
    """The steps of one plain alternative: ``"a.b().c[]"`` as
    ``[("a", ""), ("b", "()"), ("c", "[]")]``."""
    found = []
    for part in chain.split("."):
        if "(" in part or "[" in part:
            cut = min(i for i in (part.find("("), part.find("[")) if i >= 0)
            found.append((part[:cut], part[cut:]))
        else:
            found.append((part, ""))
    return found


def operations(ops: str) -> list[str]:
    """``"()[][1]"`` as ``["()", "[]", "[1]"]``."""
    return _OPS.findall(ops)


def is_collection(chain: str) -> bool:
    """Whether an alternative is an iterable (``*...``) or a tuple item (``#n:...``)."""
    return chain[:1] in ("*", "#")


def extend(chain: str | None, suffix: str) -> str | None:
    """``chain`` with ``suffix`` (``".name"``, ``"()"``, ``"[]"``, ``"[n]"``) applied to
    each alternative; ``None`` when unknown or too long. On an iterable or a tuple, only
    an element (``[]``, ``[n]``) is known."""
    if chain is None:
        return None
    if "|" not in chain:  # the common case: one alternative
        return _extend_one(chain, suffix)
    return union([_extend_one(alternative, suffix) for alternative in alternatives(chain)])


def _extend_one(chain: str, suffix: str) -> str | None:
    if chain.startswith("*"):
        return chain[1:] if suffix.startswith("[") else None
    if chain.startswith("#"):
        position, _, inner = chain[1:].partition(":")
        return inner if suffix in ("[]", f"[{position}]") else None
    if chain.count(".") >= MAX_CHAIN_STEPS:
        return None
    return chain + suffix


def dotted(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; ``None`` when it does not start with a name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        parts.reverse()
        return parts
    return None


def _qualified(parts: list[str], lookup: Lookup) -> str | None:
    chain = lookup(parts[0])
    for part in parts[1:]:
        chain = extend(chain, "." + part)
    return chain


def _items(chains: list[str | None]) -> str | None:
    """A tuple of these items (each item's first alternative, collections left out)."""
    found = [
        f"#{position}:{alternatives(chain)[0]}"
        for position, chain in enumerate(chains)
        if chain and not is_collection(alternatives(chain)[0])
    ]
    return "|".join(found) or None


def _iterable(element: str | None) -> str | None:
    """An iterable of ``element``: of each of its alternatives that is no iterable itself
    (``*#0:A()|*#1:B()`` is an iterable of pairs)."""
    if element is None:
        return None
    return union(["*" + a for a in alternatives(element) if not a.startswith("*")])


def annotation_chain(
    node: ast.expr | None, lookup: Lookup, self_chain: str | None = None, depth: int = 0
) -> str | None:
    """The chain of a value annotated with ``node`` (``Client`` -> ``"pkg.Client()"``).

    Understands ``Optional``/``Union``/``X | Y`` (the members that are not ``None``, as
    alternatives), ``Annotated``, ``ClassVar``, ``Final`` and the like, ``type[X]`` (the
    class), iterables (``list[X]`` -> ``"*...X()"``), tuples, ``Self`` (``self_chain``)
    and string (forward) annotations. ``Any``, ``object`` and ``None`` are unknown.
    """
    while node is not None and depth < MAX_CHAIN_STEPS:
        depth += 1
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if len(node.value) > MAX_STRING_ANNOTATION:
                return None
            try:
                node = ast.parse(node.value.strip(), mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None
            continue
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            members = [m for m in _union_members(node) if not _is_none(m)]
            return union([annotation_chain(m, lookup, self_chain, depth) for m in members])
        parts = dotted(node.value if isinstance(node, ast.Subscript) else node)
        if parts is None:
            return None
        last = parts[-1]
        if not isinstance(node, ast.Subscript):
            if last in _NO_VALUE:
                return None
            if last == "Self":
                return self_chain
            return extend(_qualified(parts, lookup), "()")
        arguments = _subscript_arguments(node)
        if last in _OPTIONAL_WRAPPERS:
            node = arguments[0] if arguments else None
        elif last == "Union":
            members = [m for m in arguments if not _is_none(m)]
            return union([annotation_chain(m, lookup, self_chain, depth) for m in members])
        elif last == "Coroutine":
            node = arguments[-1] if arguments else None
        elif last in ("type", "Type"):
            inner = dotted(arguments[0]) if arguments else None
            return _qualified(inner, lookup) if inner else None
        elif last in _ITERABLES:  # ``Generator[()]`` (no arguments) is unknown
            first = arguments[0] if arguments else None
            return _iterable(annotation_chain(first, lookup, self_chain, depth))
        elif last in _MAPPINGS and len(arguments) == 2:
            # Its values: what `d[k]`, `d.get(k)` and `d.values()` give (see _accessed).
            return _iterable(annotation_chain(arguments[1], lookup, self_chain, depth))
        elif last in ("tuple", "Tuple"):
            if len(arguments) == 2 and isinstance(arguments[1], ast.Constant):  # tuple[X, ...]
                return _iterable(annotation_chain(arguments[0], lookup, self_chain, depth))
            return _items([annotation_chain(a, lookup, self_chain, depth) for a in arguments])
        else:
            return extend(_qualified(parts, lookup), "()")
    return None


def _union_members(node: ast.expr) -> list[ast.expr]:
    members: list[ast.expr] = []
    stack = [node]
    while stack and len(members) < MAX_CHAIN_STEPS:
        current = stack.pop()
        if isinstance(current, ast.BinOp) and isinstance(current.op, ast.BitOr):
            stack.extend((current.right, current.left))
        else:
            members.append(current)
    return members


def _is_none(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None or (isinstance(node.value, str) and node.value == "None")
    return isinstance(node, ast.Name) and node.id == "None"


def _subscript_arguments(node: ast.Subscript) -> list[ast.expr]:
    index = node.slice
    return list(index.elts) if isinstance(index, ast.Tuple) else [index]


def expression_chain(
    node: ast.expr,
    lookup: Lookup,
    annotate: Callable[[ast.expr], str | None],
    depth: int = 0,
) -> str | None:
    """The chain of the value of an expression, or ``None`` when unknown.

    Names go through ``lookup``; ``a.b`` extends, ``f()`` calls, ``x[i]`` takes an
    element (``x[0]`` an item); ``await x`` and ``(y := x)`` are ``x``; ``cast(T, x)`` is
    a ``T`` (``annotate`` turns ``T`` into a chain); ``a if c else b`` and ``a or b``
    are either; ``[a, b]``, ``{a}`` and comprehensions are iterables of their first
    element, ``(a, b)`` a tuple.
    """
    suffixes: list[str] = []
    chain: str | None = None
    for _ in range(MAX_CHAIN_STEPS * 2):
        if isinstance(node, ast.Attribute):
            suffixes.append("." + node.attr)
            node = node.value
        elif isinstance(node, ast.Call):
            if _is_cast(node):
                chain = annotate(node.args[0])
                break
            accessor = (
                _ACCESSORS.get(node.func.attr) if isinstance(node.func, ast.Attribute) else None
            )
            if accessor is not None:
                receiver = expression_chain(node.func.value, lookup, annotate, depth + 1)
                if receiver is not None and any(a.startswith("*") for a in alternatives(receiver)):
                    chain = accessor(receiver)
                    break
            suffixes.append("()")
            node = node.func
        elif isinstance(node, ast.Subscript):
            index = node.slice
            item = isinstance(index, ast.Constant) and type(index.value) is int
            suffixes.append(f"[{index.value}]" if item else "[]")  # type: ignore[union-attr]
            node = node.value
        elif isinstance(node, ast.Await | ast.NamedExpr):
            node = node.value
        elif isinstance(node, ast.Name):
            chain = lookup(node.id)
            break
        elif depth >= 4:  # nested displays and conditionals: bounded
            return None
        elif isinstance(node, ast.IfExp):
            chain = union(
                [
                    expression_chain(node.body, lookup, annotate, depth + 1),
                    expression_chain(node.orelse, lookup, annotate, depth + 1),
                ]
            )
            break
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            chain = union(
                [expression_chain(v, lookup, annotate, depth + 1) for v in node.values[:4]]
            )
            break
        elif isinstance(node, ast.List | ast.Set | ast.ListComp | ast.SetComp | ast.GeneratorExp):
            chain = _iterable(_first_element(node, lookup, annotate, depth + 1))
            break
        elif isinstance(node, ast.Tuple):
            chain = _items(
                [expression_chain(e, lookup, annotate, depth + 1) for e in node.elts[:8]]
            )
            break
        else:
            return None
    else:
        return None
    for suffix in reversed(suffixes):
        chain = extend(chain, suffix)
    return chain


_ACCESSORS: dict[str, Callable[[str], str | None]] = {
    "get": lambda chain: extend(chain, "[]"),
    "pop": lambda chain: extend(chain, "[]"),
    "setdefault": lambda chain: extend(chain, "[]"),
    "values": lambda chain: chain,
    "copy": lambda chain: chain,
    "items": lambda chain: _iterable(
        union([f"#1:{e}" for e in alternatives(extend(chain, "[]") or "")])
    ),
}
"""What a method of a container gives, for a receiver whose chain is a collection of
values (a list, or a mapping's values): ``d.get(k)`` a value, ``d.items()`` pairs whose
item 1 is a value."""


def accessed(chain: str, method: str) -> str | None:
    """The chain of ``x.method()`` for an ``x`` whose chain, ``chain``, is a collection
    of values (:data:`_ACCESSORS`: ``get``, ``values``, ``items``...), or ``None`` for
    another method."""
    accessor = _ACCESSORS.get(method)
    return accessor(chain) if accessor is not None else None


def _first_element(
    node: ast.expr, lookup: Lookup, annotate: Callable[[ast.expr], str | None], depth: int
) -> str | None:
    if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
        return expression_chain(node.elt, lookup, annotate, depth)
    for element in node.elts:  # type: ignore[attr-defined]
        if isinstance(element, ast.Starred):
            found = extend(expression_chain(element.value, lookup, annotate, depth), "[]")
        else:
            found = expression_chain(element, lookup, annotate, depth)
        if found is not None:
            return found
    return None


def _is_cast(node: ast.Call) -> bool:
    parts = dotted(node.func)
    return parts is not None and parts[-1] == "cast" and len(node.args) == 2
