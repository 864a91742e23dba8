"""The references one Python file makes, to link once every file is known: calls,
bases, the names in annotations, class names written as strings, and requirement ids
(``REQ-...``) in decorators, docstrings and comments."""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterable, Sequence

from citeloop.knowledge.indexing.chains import (
    MAX_CHAIN_STEPS,
    MAX_STRING_ANNOTATION,
    alternatives,
    dotted,
    expression_chain,
    is_collection,
    union,
)
from citeloop.knowledge.indexing.records import Reference
from citeloop.knowledge.indexing.scopes import Bindings, Scope
from citeloop.knowledge.model import RelationKind
from citeloop.knowledge.names import requirement_mentions

REQUIREMENT_MARK = "REQ-"


def base_reference(
    bindings: Bindings, class_id: str, scope: Scope, base: ast.expr
) -> Reference | None:
    """The ``inherits`` reference of one base of a class (its chain through ``scope``)."""
    target = base.value if isinstance(base, ast.Subscript) else base
    parts = dotted(target)
    if parts is None:
        return None
    written = ".".join(parts)
    head = bindings.lookup(scope, parts[0], base.lineno)
    if head == class_id:  # `class Foo(Foo)`: the base is the name bound before the class
        head = bindings.imports.get(parts[0])
    plain = head is not None and not any(mark in head for mark in "([*#|")
    chain = ".".join([head, *parts[1:]]) if plain else ""
    end = base.end_lineno or base.lineno
    return Reference(RelationKind.INHERITS, class_id, chain, written, base.lineno, end)


CallSite = tuple[str, Scope, ast.expr, frozenset[str], int, int, int]
"""``(caller id, scope, callee, names a lambda around the call binds, first line, last
line, column)``; the callee may be a small copy
(:meth:`~citeloop.knowledge.indexing.compact.Compactor.callee`)."""


def override_references(
    members: Sequence[tuple[str, str, str, int]], bases: Sequence[tuple[str, Scope, ast.expr]]
) -> list[Reference]:
    """An ``overrides`` reference for each method (or property) ``(id, class id, name,
    line)`` of ``members`` whose class has bases (``bases``: ``(class id, ...)``): the
    linker looks its name up in the bases of its class, as for ``super().name()``, and
    a name no base defines makes no fact."""
    derived = {class_id for class_id, *_ in bases}
    return [
        Reference(RelationKind.OVERRIDES, member_id, member_id, name, line, line, "bases")
        for member_id, class_id, name, line in members
        if class_id in derived
    ]


def call_references(bindings: Bindings, calls: Sequence[CallSite]) -> list[Reference]:
    """The ``calls`` references of call sites, in source order, one per caller, target
    and name as written (the first site's lines)."""
    seen: dict[tuple[str, str, str, str], Reference] = {}
    for caller, scope, func, shadow, line, end, _ in sorted(
        calls, key=lambda item: (item[4], item[6])
    ):
        reference = call_reference(bindings, caller, scope, func, line, end, shadow)
        if reference is not None:
            key = (caller, reference.target, reference.written, reference.mode)
            seen.setdefault(key, reference)
    return list(seen.values())


MAX_STRING_NAME = 100
"""Longest string literal read as a class name, in characters."""


def names_class(text: str) -> bool:
    """Whether a string literal may name a class: one identifier in PEP 8's CapWords
    style (upper case first, some lower case: ``"SelectClauseSegment"``, ``"Author"``;
    not ``"GET"``, ``"MAX_SIZE"`` or ``"T"``), at most :data:`MAX_STRING_NAME` long."""
    return (
        len(text) <= MAX_STRING_NAME
        and text[:1].isupper()
        and not text.isupper()
        and text.isidentifier()
    )


def string_references(strings: Sequence[tuple[str, str, int]]) -> list[Reference]:
    """The ``references`` references of string literals ``(subject, name, line)`` that
    may name a class (:func:`names_class`): one per subject and name, at its first
    line. The linker keeps those that name a class of the tree."""
    seen: dict[tuple[str, str], Reference] = {}
    for subject, name, line in sorted(strings, key=lambda item: item[2]):
        seen.setdefault(
            (subject, name), Reference(RelationKind.REFERENCES, subject, name, name, line, line)
        )
    return list(seen.values())


MAX_ANNOTATION_NAMES = 16
"""Names read from one annotation at most (``dict[str, tuple[A, B]] | None`` reads 5)."""

_LITERALS = frozenset({"Literal"})
"""Subscripted names whose arguments are values, not types."""

_METADATA = frozenset({"Annotated"})
"""Subscripted names whose first argument is the type and the rest metadata."""


def annotation_names(node: ast.expr | None) -> list[tuple[list[str], ast.expr]]:
    """The dotted names an annotation is made of, as ``(parts, node)``
    (``Optional[pkg.Model]`` -> ``Optional``, ``pkg.Model``), in order: a string
    annotation's parsed (at most
    :data:`~citeloop.knowledge.indexing.chains.MAX_STRING_ANNOTATION` characters), the
    values of ``Literal[...]`` and the metadata of ``Annotated[T, ...]`` left out; at
    most :data:`MAX_ANNOTATION_NAMES`, each of at most
    :data:`~citeloop.knowledge.indexing.chains.MAX_CHAIN_STEPS` parts."""
    if type(node) is ast.Name:  # the common case: one name
        return [([node.id], node)]
    names: list[tuple[list[str], ast.expr]] = []
    stack: list[ast.expr] = [node] if node is not None else []
    while stack and len(names) < MAX_ANNOTATION_NAMES:
        current = stack.pop()
        kind = type(current)
        if kind is ast.Name or kind is ast.Attribute:
            parts = dotted(current)
            if parts is not None and len(parts) <= MAX_CHAIN_STEPS:
                names.append((parts, current))
        elif kind is ast.Subscript:
            last = (dotted(current.value) or [""])[-1]
            arguments = current.slice
            if last in _LITERALS:
                arguments = None
            elif last in _METADATA and isinstance(arguments, ast.Tuple) and arguments.elts:
                arguments = arguments.elts[0]
            stack.extend(a for a in (arguments, current.value) if a is not None)
        elif kind is ast.BinOp:
            stack.extend((current.right, current.left))
        elif kind is ast.Tuple or kind is ast.List:
            stack.extend(reversed(current.elts))
        elif (
            kind is ast.Constant
            and isinstance(current.value, str)
            and len(current.value) <= MAX_STRING_ANNOTATION
        ):
            try:
                parsed = ast.parse(current.value.strip(), mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            for child in ast.walk(parsed):  # positions as in the string: the annotation's
                child.lineno, child.end_lineno = current.lineno, current.end_lineno
            stack.append(parsed)
    return names


def annotation_references(
    bindings: Bindings, annotated: Sequence[tuple[str, Scope, ast.expr]]
) -> list[Reference]:
    """The ``uses_type`` references of annotations ``(subject, scope, annotation)``: one
    per subject and name the annotation is made of, its chain through ``scope``; the
    linker keeps those naming a class of the tree."""
    names = (
        (subject, scope, parts, name.lineno, name.end_lineno or name.lineno)
        for subject, scope, annotation in annotated
        for parts, name in annotation_names(annotation)
    )
    return chain_references(bindings, RelationKind.USES_TYPE, names)


ValueName = tuple[str, Scope, list[str], int, int]
"""``(subject, scope, dotted name, first line, last line)`` of a name used as a value."""


def chain_references(
    bindings: Bindings, relation: RelationKind, names: Iterable[ValueName], mode: str = ""
) -> list[Reference]:
    """``relation`` references of dotted names ``(subject, scope, parts, line, end)``:
    one per subject and chain (the name's chain through ``scope``), at its first line."""
    seen: dict[tuple[str, str], Reference] = {}
    for subject, scope, parts, line, end in names:
        head = bindings.lookup(scope, parts[0], line)
        if head is None or any(mark in head for mark in "([*#|"):
            continue
        chain = ".".join([head, *parts[1:]]) if len(parts) > 1 else head
        if (subject, chain) not in seen:
            seen[subject, chain] = Reference(
                relation, subject, chain, ".".join(parts), line, end, mode
            )
    return list(seen.values())


def may_name_class(node: ast.expr, shadow: frozenset[str]) -> list[str] | None:
    """The dotted name of ``node`` when it may name a class: a name or attribute chain
    whose last part is in PEP 8's CapWords style, upper case first (``W39``,
    ``errors.ParseError``; not ``x`` or ``self.items``), not a parameter of a lambda
    around it (``shadow``), of at most
    :data:`~citeloop.knowledge.indexing.chains.MAX_CHAIN_STEPS` parts."""
    kind = type(node)
    if kind is ast.Name:
        name = node.id  # type: ignore[attr-defined]
        return [name] if name[:1].isupper() and name not in shadow else None
    if kind is not ast.Attribute or not node.attr[:1].isupper():  # type: ignore[attr-defined]
        return None
    parts = dotted(node)
    if parts is None or parts[0] in shadow or len(parts) > MAX_CHAIN_STEPS:
        return None
    return parts


def call_reference(
    bindings: Bindings,
    caller: str,
    scope: Scope,
    func: ast.expr,
    line: int,
    end: int,
    shadow: frozenset[str] = frozenset(),
) -> Reference | None:
    """The reference of one call of ``func`` on lines ``line`` to ``end``: its callee's
    chain (``\"\"`` when unknown, as when its first name is a parameter of a lambda
    around it, in ``shadow``) and its name as written, without a ``self.``/``cls.``
    receiver; ``super().m()`` looks ``m`` up in the bases of the class
    (``super(C, self).m()``: of ``C``) only."""
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
        and func.value.func.id == "super"
    ):
        owner = scope.class_id
        if func.value.args and (named := dotted(func.value.args[0])) is not None:
            found = bindings.lookup(scope, named[0], line)
            plain = found is not None and not any(mark in found for mark in "([*#|")
            owner = ".".join([found, *named[1:]]) if plain else None  # type: ignore[list-item]
        if owner is None:
            return None
        return Reference(
            RelationKind.CALLS, caller, f"{owner}.{func.attr}", func.attr, line, end, "bases"
        )
    parts = dotted(func)
    if parts == ["super"]:
        return None  # super() itself; the method called on it is the reference
    if shadow and _root_name(func) in shadow:
        chain = None
    else:
        chain = expression_chain(
            func,
            lambda name: bindings.lookup(scope, name, line),
            lambda node: bindings.annotation(node, scope, line),
        )
    if parts is not None:
        receiver = (
            len(parts) > 1
            and scope.class_id is not None
            and chain is not None
            and chain.startswith(scope.class_id)
            and bindings.lookup(scope, parts[0], line) in (scope.class_id, scope.class_id + "()")
        )
        written = ".".join(parts[1:] if receiver else parts)
    elif isinstance(func, ast.Attribute):
        written = func.attr
    elif isinstance(func, ast.Subscript) and (inner := dotted(func.value)) is not None:
        written = ".".join(inner)
    else:
        return None
    if chain is not None:
        chain = union([a for a in alternatives(chain) if not is_collection(a)])
    return Reference(RelationKind.CALLS, caller, chain or "", written, line, end)


def _root_name(node: ast.expr) -> str | None:
    """The name an expression starts from (``a`` in ``a.b().c[0]``), if any."""
    for _ in range(64):
        if isinstance(node, ast.Attribute | ast.Subscript | ast.Await):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            break
    return node.id if isinstance(node, ast.Name) else None


def requirement_texts(node: ast.AST) -> tuple[tuple[str, int], ...]:
    """The lines of a definition (or module) that mention a ``REQ-...`` id, as
    ``(text, line)``: string constants in its decorators, then its docstring's lines.
    Kept instead of the node, so that its tree can be let go before linking."""
    texts: list[tuple[str, int]] = []
    for decorator in getattr(node, "decorator_list", ()):
        for part in ast.walk(decorator):
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                texts.append((part.value, part.lineno))
    body = getattr(node, "body", ())
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        doc = body[0].value
        lines = doc.value.splitlines()
        texts.extend((line, doc.lineno + offset) for offset, line in enumerate(lines))
    return tuple((text, line) for text, line in texts if REQUIREMENT_MARK in text)


def requirement_references(
    module: str,
    source: str,
    documented: Sequence[tuple[str, Sequence[tuple[str, int]]]],
    spans: Sequence[tuple[int, int, str]],
) -> list[Reference]:
    """``traces`` references to the ``REQ-...`` ids in the decorators and docstrings of
    ``documented`` ``(entity id, texts)`` pairs (:func:`requirement_texts`) and in
    comments (owned by the innermost definition whose line span, in ``spans``, holds the
    comment)."""
    references: list[Reference] = []

    def add(subject: str, text: str, line: int) -> None:
        for requirement, title in requirement_mentions(text):
            references.append(
                Reference(RelationKind.TRACES, subject, requirement, title, line, line)
            )

    for entity_id, texts in documented:
        for text, line in texts:
            add(entity_id, text, line)
    for line, comment in _comments(source):
        add(_owner_of_line(module, spans, line), comment, line)
    return references


def _comments(source: str) -> list[tuple[int, str]]:
    try:
        return [
            (token.start[0], token.string)
            for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.COMMENT and REQUIREMENT_MARK in token.string
        ]
    except (tokenize.TokenError, SyntaxError):
        # The file parsed, so this is tokenizer/parser disagreement on an edge case;
        # requirement ids from comments are then best-effort missing, never a crash.
        return []


def _owner_of_line(module: str, spans: Sequence[tuple[int, int, str]], line: int) -> str:
    """Innermost class or def whose span holds ``line``; the module otherwise."""
    owner, owner_start = module, 0
    for start, end, entity_id in spans:
        if start <= line <= end and start >= owner_start:
            owner, owner_start = entity_id, start
    return owner
