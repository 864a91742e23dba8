"""What a definition looks like, as text a model can read: signatures, docstrings and
decorators, cut from the source (never ``ast.unparse``, which is slow and rewrites what
the author wrote)."""

from __future__ import annotations

import ast
import inspect

from citeloop.knowledge.indexing.chains import dotted
from citeloop.knowledge.model import MAX_DOCSTRING_CHARS

MAX_ANNOTATION_CHARS = 120
"""Longest annotation kept in a signature; a longer one reads ``...``."""

MAX_VALUE_CHARS = 60
"""Longest default or assigned value kept in a signature; a longer one reads ``...``."""

MAX_SIGNATURE_CHARS = 600
"""Longest signature; a longer one is cut and ends with ``...)``."""

PROPERTY_DECORATORS = frozenset({"property", "cached_property", "abstractproperty"})
"""Decorators (last dotted part) that make a method read as an attribute; so does one
whose name ends with ``property`` (:func:`is_property_decorator`)."""


def is_property_decorator(name: str) -> bool:
    """Whether a decorator (its last dotted part) makes a method read as an attribute:
    one of :data:`PROPERTY_DECORATORS`, or a library's own property descriptor named so
    (astropy's ``lazyproperty`` and ``classproperty``, SQLAlchemy's
    ``hybrid_property``), whose ``@name.deleter`` a played context had left out of the
    property it belongs to."""
    return name in PROPERTY_DECORATORS or name.endswith("property")


class SourceText:
    """The lines of one source file, to cut the text of syntax-tree nodes.

    The syntax tree's columns count UTF-8 bytes, so a line that is not ASCII is cut
    through its encoding.
    """

    def __init__(self, source: str) -> None:
        self.lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")

    def segment(self, node: ast.AST, limit: int) -> str:
        """The source text of ``node`` with whitespace runs of several lines collapsed,
        or ``"..."`` when it is longer than ``limit`` characters."""
        start, end = node.lineno - 1, (node.end_lineno or node.lineno) - 1  # type: ignore[attr-defined]
        first, last = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        if end - start > 8 or start >= len(self.lines) or end >= len(self.lines):
            return "..."
        if start == end:
            text = self._cut(self.lines[start], first, last)
        else:
            pieces = [self._cut(self.lines[start], first, None)]
            pieces.extend(self.lines[start + 1 : end])
            pieces.append(self._cut(self.lines[end], 0, last))
            text = " ".join(" ".join(piece.split()) for piece in pieces)
        return text if len(text) <= limit else "..."

    @staticmethod
    def _cut(line: str, first: int, last: int | None) -> str:
        if line.isascii():
            return line[first:last]
        return line.encode()[first:last].decode(errors="replace")


def _parameter(arg: ast.arg, default: ast.expr | None, text: SourceText, prefix: str = "") -> str:
    name = prefix + arg.arg
    if arg.annotation is not None:
        name += ": " + text.segment(arg.annotation, MAX_ANNOTATION_CHARS)
        if default is not None:
            name += " = " + text.segment(default, MAX_VALUE_CHARS)
    elif default is not None:
        name += "=" + text.segment(default, MAX_VALUE_CHARS)
    return name


def function_signature(
    node: ast.FunctionDef | ast.AsyncFunctionDef, text: SourceText, type_params: str = ""
) -> str:
    """``"[T](a: int, /, b=1, *args, c: str = 'x', **kw) -> T"``, as PEP 8 spaces it."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults.extend(args.defaults)
    parts = [_parameter(a, d, text) for a, d in zip(positional, defaults, strict=True)]
    if args.posonlyargs:
        parts.insert(len(args.posonlyargs), "/")
    if args.vararg is not None:
        parts.append(_parameter(args.vararg, None, text, "*"))
    elif args.kwonlyargs:
        parts.append("*")
    parts.extend(
        _parameter(a, d, text) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    )
    if args.kwarg is not None:
        parts.append(_parameter(args.kwarg, None, text, "**"))
    signature = f"{type_params or native_type_params(node, text)}({', '.join(parts)})"
    if node.returns is not None:
        signature += " -> " + text.segment(node.returns, MAX_ANNOTATION_CHARS)
    if len(signature) > MAX_SIGNATURE_CHARS:
        signature = signature[: MAX_SIGNATURE_CHARS - 4].rsplit(",", 1)[0] + ", ...)"
    return signature


def class_signature(node: ast.ClassDef, text: SourceText, type_params: str = "") -> str:
    """``"[T](Base, Mixin, metaclass=Meta)"``; ``""`` without bases or type parameters."""
    parts = [text.segment(base, MAX_ANNOTATION_CHARS) for base in node.bases]
    parts.extend(
        f"{keyword.arg}={text.segment(keyword.value, MAX_VALUE_CHARS)}"
        if keyword.arg
        else "**" + text.segment(keyword.value, MAX_VALUE_CHARS)
        for keyword in node.keywords
    )
    bases = f"({', '.join(parts)})" if parts else ""
    return (type_params or native_type_params(node, text)) + bases


def attribute_signature(
    annotation: ast.expr | None, value: ast.expr | None, text: SourceText
) -> str:
    """``": int = 3"``, ``": Client"`` or ``" = Client()"``."""
    signature = ""
    if annotation is not None:
        signature = ": " + text.segment(annotation, MAX_ANNOTATION_CHARS)
    if value is not None:
        signature += " = " + text.segment(value, MAX_VALUE_CHARS)
    return signature


def native_type_params(node: ast.AST, text: SourceText) -> str:
    """PEP 695 type parameters as parsed by an interpreter that knows them (3.12+)."""
    params = getattr(node, "type_params", None)
    if not params:
        return ""
    return "[" + ", ".join(text.segment(p, MAX_ANNOTATION_CHARS) for p in params) + "]"


def docstring(node: ast.AST) -> str:
    """The cleaned docstring of a module, class or function, bounded to
    :data:`~citeloop.knowledge.model.MAX_DOCSTRING_CHARS` (cut at a line end, then ``…``)."""
    body = getattr(node, "body", None)
    if not body or not isinstance(body[0], ast.Expr):
        return ""
    value = body[0].value
    if not isinstance(value, ast.Constant) or not isinstance(value.value, str):
        return ""
    return bounded_docstring(value.value)


def bounded_docstring(raw: str) -> str:
    """``raw`` cleaned like :func:`inspect.cleandoc` and bounded."""
    if len(raw) > MAX_DOCSTRING_CHARS * 2:
        raw = raw[: MAX_DOCSTRING_CHARS * 2]
    cleaned = inspect.cleandoc(raw)
    if len(cleaned) <= MAX_DOCSTRING_CHARS:
        return cleaned
    cut = cleaned[: MAX_DOCSTRING_CHARS - 1]
    cut = cut.rsplit("\n", 1)[0] if "\n" in cut else cut
    return cut.rstrip() + "…"


def decorator_name(node: ast.expr, text: SourceText) -> str:
    """A decorator as written without its arguments: ``@app.route("/")`` -> ``"app.route"``."""
    target = node.func if isinstance(node, ast.Call) else node
    parts = dotted(target)
    return ".".join(parts) if parts else text.segment(target, MAX_ANNOTATION_CHARS)


MAX_DECORATOR_ARGUMENTS = 32
"""Longest arguments of a decorator that its entity keeps (``(frozen=True)``,
``(Tags.security, deploy=True)``); longer ones (a ``parametrize`` table) are left out."""


def decorator_written(node: ast.expr, text: SourceText) -> str:
    """A decorator as an entity line shows it: its name (:func:`decorator_name`) and its
    arguments when they are short (:data:`MAX_DECORATOR_ARGUMENTS`): a judge found
    ``@dataclasses.dataclass(frozen=True)`` shown as a plain dataclass, and the answer
    missed that the class is immutable. Only the name when the arguments are longer."""
    name = decorator_name(node, text)
    if not isinstance(node, ast.Call) or not (node.args or node.keywords):
        return name
    arguments = ", ".join(
        [
            *(text.segment(a, MAX_DECORATOR_ARGUMENTS) for a in node.args),
            *(
                f"{k.arg}={text.segment(k.value, MAX_DECORATOR_ARGUMENTS)}"
                if k.arg
                else f"**{text.segment(k.value, MAX_DECORATOR_ARGUMENTS)}"
                for k in node.keywords
            ),
        ]
    )
    if len(arguments) > MAX_DECORATOR_ARGUMENTS or "..." in arguments:
        return name
    return f"{name}({arguments})"
