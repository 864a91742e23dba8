"""The clause of a module's or class's body that a definition is under.

A definition inside ``try:``, ``except ImportError:``, ``if TYPE_CHECKING:`` or the
``else:`` of a version check exists only when that clause runs. pylint's spelling
checker defines a stand-in ``Filter`` under ``except ImportError:`` (the real one is
pyenchant's); a played context showed the stand-in's line, its ``_skip`` that raises
``NotImplementedError`` and a ``get_tokenizer`` that ignores its filters, with nothing
to say so, and read as if composing filters did nothing. So the indexer records, for
each class, function and attribute of a module's or class's body, the innermost clause
of a compound statement of that body it sits in, as its header reads, with the header's
line: ``except ImportError (L34)`` (:attr:`~citeloop.knowledge.model.Entity.under`).

:class:`ClauseSpans` collects the clauses as the walk meets them and, once the file is
walked, :meth:`ClauseSpans.under` gives each definition line its clause: one sort and
one sweep, linear after sorting.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

MAX_CLAUSE_CHARS = 60
"""Longest clause header kept (cut with ``…``)."""


class ClauseSpans:
    """The clauses of one file's module and class bodies: their lines and headers.

    Args:
        lines: The file's lines (``ast`` numbering: line ``n`` is ``lines[n - 1]``).
    """

    def __init__(self, lines: Sequence[str]) -> None:
        self._lines = lines
        self._spans: list[tuple[int, int, str]] = []

    def add(self, node: ast.stmt) -> None:
        """Record the clauses of compound statement ``node`` (of a module or class body)."""
        for body, label in _clauses(node, self._lines):
            if body:
                self._spans.append((*_lines_of(body), label))

    def add_class(self, node: ast.ClassDef) -> None:
        """Record a class's body: what it defines is under no clause of the bodies
        around it (a method of a class under ``except ImportError:`` is the class's)."""
        if node.body:
            self._spans.append((*_lines_of(node.body), ""))

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
    return start, max(statement.end_lineno or statement.lineno for statement in body)


def _clauses(node: ast.stmt, lines: Sequence[str]) -> list[tuple[list[ast.stmt], str]]:
    """Each statement list of ``node`` with its clause's label (``try (L22)``,
    ``except ImportError (L34)``, ``else of if TYPE_CHECKING (L30)``)."""
    head = _header(lines, node.lineno)
    found: list[tuple[list[ast.stmt], str]] = [(getattr(node, "body", []), head)]
    for handler in getattr(node, "handlers", []):
        found.append((handler.body, _header(lines, handler.lineno)))
    for case in getattr(node, "cases", []):
        found.append((case.body, _header(lines, case.pattern.lineno)))
    if isinstance(node, ast.Match):
        found = found[1:]  # a match statement's own body is its cases
    orelse = getattr(node, "orelse", [])
    is_elif = (
        isinstance(node, ast.If)
        and len(orelse) == 1
        and isinstance(orelse[0], ast.If)
        and _text(lines, orelse[0].lineno).startswith("elif")
    )
    if orelse and not is_elif:  # an `elif` is an `if` of its own, labelled by its header
        else_line = _else_line(lines, node, orelse[0].lineno)
        opener = head.rpartition(" (L")[0]
        found.append((orelse, f"else of {opener} (L{else_line})"))
    finalbody = getattr(node, "finalbody", [])
    if finalbody:
        found.append((finalbody, f"finally of try (L{node.lineno})"))
    return found


def _text(lines: Sequence[str], line: int) -> str:
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _header(lines: Sequence[str], line: int) -> str:
    """``except ImportError (L34)``: a clause's first line without its colon (and what
    follows it on the line), whitespace collapsed, cut at :data:`MAX_CLAUSE_CHARS`."""
    text = _text(lines, line).partition("  #")[0]  # an inline comment (PEP 8's spacing)
    text = " ".join(text.split())
    if text.endswith(":"):
        text = text[:-1].rstrip()
    elif ": " in text:  # `try: import x` on one line
        text = text.partition(": ")[0]
    if len(text) > MAX_CLAUSE_CHARS:
        text = text[: MAX_CLAUSE_CHARS - 1].rstrip() + "…"
    return f"{text} (L{line})"


def _else_line(lines: Sequence[str], node: ast.stmt, first: int) -> int:
    """The line of the ``else:`` before line ``first`` (an ``else`` has no node of its
    own): the last line above ``first`` that starts with ``else``, else ``first``."""
    body = getattr(node, "handlers", None) or getattr(node, "body", [])
    floor = max((s.end_lineno or s.lineno for s in body), default=node.lineno)
    for line in range(first - 1, floor, -1):
        if _text(lines, line).startswith("else"):
            return line
    return first
