"""The clause of a module's or class's body that a definition is under.

A definition inside ``try:``, ``except ImportError:``, ``if TYPE_CHECKING:`` or the
``else:`` of a version check exists only when that clause runs. pylint's spelling
checker defines a stand-in ``Filter`` under ``except ImportError:`` (the real one is
pyenchant's); a played context showed the stand-in's line, its ``_skip`` that raises
``NotImplementedError`` and a ``get_tokenizer`` that ignores its filters, with nothing
to say so, and read as if composing filters did nothing. So the indexer records, for
each class, function and attribute of a module's or class's body, the innermost clause
of a compound statement of that body it sits in, as its header reads, with the line of
the header's keyword: ``except ImportError (L34)``
(:attr:`~citeloop.knowledge.model.Entity.under`).

A header is read from the syntax tree, each expression as the source writes it (a header
over several lines, or a comment after it, reads as one expression on one line), cut at
:data:`MAX_CLAUSE_CHARS`. :class:`ClauseSpans` collects the clauses as the walk meets
them and, once the file is walked, :meth:`ClauseSpans.under` gives each definition line
its clause: one sort and one sweep, linear after sorting.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from citeloop.knowledge.indexing.signatures import SourceText

MAX_CLAUSE_CHARS = 60
"""Longest clause header kept (cut with ``…``)."""

_SEGMENT_CHARS = 2_000
"""Longest expression read for a header, then cut (a longer one, or one over more than
eight lines, reads ``...``)."""


class ClauseSpans:
    """The clauses of one file's module and class bodies: their lines and headers.

    Args:
        text: The file's source.
    """

    def __init__(self, text: SourceText) -> None:
        self._text = text
        self._spans: list[tuple[int, int, str]] = []

    def add(self, node: ast.stmt) -> None:
        """Record the clauses of compound statement ``node`` (of a module or class body)."""
        for body, label in _clauses(node, self._text):
            if body:
                self._spans.append((*_lines_of(body), label))

    def add_class(self, node: ast.ClassDef) -> None:
        """Record a class's body: what it defines is under no clause of the bodies
        around it (a method of a class under ``except ImportError:`` is the class's),
        from the line after its ``class`` line (the class itself is under the clause,
        one written on one line too)."""
        if node.body:
            start, end = _lines_of(node.body)
            if max(start, node.lineno + 1) <= end:
                self._spans.append((max(start, node.lineno + 1), end, ""))

    def under(self, lines: Iterable[int]) -> dict[int, str]:
        """The innermost clause each of ``lines`` (definition lines) is in, by line; a
        line in none is left out."""
        spans = sorted(self._spans, key=lambda span: (span[0], -span[1]))
        found: dict[int, str] = {}
        open_spans: list[tuple[int, int, str]] = []
        at = 0
        for line in sorted(set(lines)):
            while at < len(spans) and spans[at][0] <= line:
                while open_spans and open_spans[-1][1] < spans[at][0]:
                    open_spans.pop()  # a sibling that ended before this one starts
                open_spans.append(spans[at])
                at += 1
            while open_spans and open_spans[-1][1] < line:
                open_spans.pop()
            if open_spans and open_spans[-1][2]:
                found[line] = open_spans[-1][2]
        return found


def _lines_of(body: list[ast.stmt]) -> tuple[int, int]:
    """The first and last line of a statement list (a decorated definition starts at
    its first decorator, as its entity's line does)."""
    first = body[0]
    decorators = getattr(first, "decorator_list", [])
    start = min([first.lineno, *(decorator.lineno for decorator in decorators)])
    return start, _last_line(body, start)


def _last_line(body: list[ast.stmt], default: int) -> int:
    return max((statement.end_lineno or statement.lineno for statement in body), default=default)


def _clauses(node: ast.stmt, text: SourceText) -> list[tuple[list[ast.stmt], str]]:
    """Each statement list of ``node`` with its clause's label (``try (L22)``,
    ``except ImportError (L34)``, ``else of if TYPE_CHECKING (L30)``)."""
    found: list[tuple[list[ast.stmt], str]] = []
    head = _opener(node, text)
    if head is not None:
        found.append((getattr(node, "body", []), _label(head, node.lineno)))
    last = _last_line(getattr(node, "body", []), node.lineno)
    for handler in getattr(node, "handlers", []):
        star = "*" if type(node).__name__ == "TryStar" else ""
        caught = f" {_code(handler.type, text)}" if handler.type is not None else ""
        found.append((handler.body, _label(f"except{star}{caught}", handler.lineno)))
        last = _last_line(handler.body, last)
    for case in getattr(node, "cases", []):
        guard = f" if {_code(case.guard, text)}" if case.guard is not None else ""
        line = _keyword_line(text, "case", case.pattern.lineno, node.lineno)
        found.append((case.body, _label(f"case {_code(case.pattern, text)}{guard}", line)))
    orelse = getattr(node, "orelse", [])
    is_elif = (
        isinstance(node, ast.If)
        and len(orelse) == 1
        and isinstance(orelse[0], ast.If)
        and _line(text, orelse[0].lineno).startswith("elif")
    )
    if orelse and not is_elif:  # an `elif` is an `if` of its own, labelled by its header
        line = _clause_line(text, "else", last, orelse)
        found.append((orelse, _label(f"else of {head}", line)))
        last = _last_line(orelse, last)
    finalbody = getattr(node, "finalbody", [])
    if finalbody:
        found.append((finalbody, _label("finally", _clause_line(text, "finally", last, finalbody))))
    return found


def _opener(node: ast.stmt, text: SourceText) -> str | None:
    """The header of ``node``'s own body (``if x``, ``for a in b``, ``try``), or
    ``None`` for a statement whose body is its cases (``match``)."""
    if isinstance(node, ast.If):
        keyword = "elif" if _line(text, node.lineno).startswith("elif") else "if"
        return f"{keyword} {_code(node.test, text)}"
    if isinstance(node, ast.While):
        return f"while {_code(node.test, text)}"
    if isinstance(node, ast.For | ast.AsyncFor):
        keyword = "async for" if isinstance(node, ast.AsyncFor) else "for"
        return f"{keyword} {_code(node.target, text)} in {_code(node.iter, text)}"
    if isinstance(node, ast.With | ast.AsyncWith):
        keyword = "async with" if isinstance(node, ast.AsyncWith) else "with"
        items = ", ".join(
            _code(item.context_expr, text)
            + (f" as {_code(item.optional_vars, text)}" if item.optional_vars else "")
            for item in node.items
        )
        return f"{keyword} {items}"
    if isinstance(node, ast.Match):
        return None
    return "try" if hasattr(node, "handlers") else _line(text, node.lineno).rstrip(":")


def _code(node: ast.AST, text: SourceText) -> str:
    """The source of ``node`` on one line, as written (``...`` when long; a line's
    continuation backslash left out)."""
    code = text.segment(node, _SEGMENT_CHARS)
    if getattr(node, "end_lineno", None) != getattr(node, "lineno", None):
        code = " ".join(code.replace("\\ ", " ").split())
    return code


def _label(header: str, line: int) -> str:
    if len(header) > MAX_CLAUSE_CHARS:
        header = header[: MAX_CLAUSE_CHARS - 1].rstrip() + "…"
    return f"{header} (L{line})"


def _line(text: SourceText, line: int) -> str:
    return text.lines[line - 1].strip() if 0 < line <= len(text.lines) else ""


def _opens_with(code: str, keyword: str) -> bool:
    """Whether ``code`` opens with the keyword ``keyword`` (not with a name that starts
    so: ``elsewhere=True``)."""
    return code.startswith(keyword) and not code[len(keyword) : len(keyword) + 1].isidentifier()


def _clause_line(text: SourceText, keyword: str, after: int, body: list[ast.stmt]) -> int:
    """The line of the ``else`` or ``finally`` that opens ``body`` (which has no node of
    its own): the first line after line ``after`` (the end of the clause before) that
    opens with the keyword, else the body's first line."""
    first = _lines_of(body)[0]
    for line in range(after + 1, first + 1):
        if _opens_with(_line(text, line), keyword):
            return line
    return first


def _keyword_line(text: SourceText, keyword: str, line: int, floor: int) -> int:
    """The line at or above ``line`` (down to ``floor``) that opens with ``keyword``: a
    ``case`` whose pattern starts on a later line."""
    for number in range(line, floor - 1, -1):
        if _opens_with(_line(text, number), keyword):
            return number
    return line
