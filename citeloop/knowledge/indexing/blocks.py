"""Parsing a large Python file one block of top-level statements at a time.

``ast.parse`` holds the parser's own tree and the Python objects it converts it into at
the same time: about 160 bytes of memory per byte of source at its peak, twice what the
finished tree keeps. :func:`parse_in_blocks` parses a large file in blocks of about
:data:`BLOCK_CHARS` characters, each cut at the start of a top-level statement, moves each
block's line numbers to where the block sits in the file (:func:`ast.increment_lineno`) and
joins the blocks' statements into one module. The parser's peak is then that of one block.

A cut is sound when the block before it parses: the tokenizer's state after a prefix of
the file depends on that prefix only, and a prefix that parses ends outside any bracket,
string or continued line, at a line of indentation zero, which is where the whole file's
next top-level statement starts too (a cut before ``else``, ``elif``, ``except`` or
``finally`` is never tried). A block that does not parse is grown to the next cut at twice
the size, so a statement of any length is read in linear time; a file in which some block
cannot parse up to its end is left to the caller to parse whole (a real syntax error, to
be reported where ``ast`` finds it, or syntax to lower, see
:mod:`citeloop.knowledge.indexing.syntax`).
"""

from __future__ import annotations

import ast
import re

__all__ = ["BLOCK_CHARS", "parse_in_blocks"]

BLOCK_CHARS = 262_144
"""Target size of a block, in characters; a file no larger is parsed whole."""

# A line that may start a top-level statement: not indented, blank, a comment, a closing
# bracket, or a clause that continues a compound statement.
_STATEMENT_START = re.compile(r"\n(?![\s#)\]}]|(?:else|elif|except|finally)\b)")


def parse_in_blocks(source: str, path: str, block_chars: int = BLOCK_CHARS) -> ast.Module | None:
    """Parse ``source`` one block of top-level statements at a time.

    Args:
        source: The decoded source text.
        path: The file name given to the parser.
        block_chars: Target block size in characters (at least 1).

    Returns:
        The module's syntax tree, with the positions a whole-file ``ast.parse`` gives;
        ``None`` when the source is no larger than one block, uses carriage returns as
        line ends or the ``barry_as_FLUFL`` future, or a block does not parse up to the end
        of the file: the caller then parses the file whole.

    Raises:
        ValueError: If ``ast.parse`` raises it for a block (null bytes).
        RecursionError: If ``ast.parse`` raises it for a too deeply nested block.
        MemoryError: If ``ast.parse`` raises it (CPython's parser does on deep nesting).
    """
    length = len(source)
    if length <= block_chars or "\r" in source or "barry_as_FLUFL" in source:
        return None
    body: list[ast.stmt] = []
    type_ignores: list[ast.type_ignore] = []
    start, line, size = 0, 1, block_chars
    while start < length:
        end = _cut(source, start + size)
        try:
            tree = ast.parse(source[start:end], filename=path)
        except SyntaxError:
            if end >= length:
                return None
            size *= 2
            continue
        if line > 1:
            ast.increment_lineno(tree, line - 1)
        body.extend(tree.body)
        type_ignores.extend(tree.type_ignores)
        line += source.count("\n", start, end)
        start, size = end, block_chars
    return ast.Module(body=body, type_ignores=type_ignores)


def _cut(source: str, at: int) -> int:
    """The start of the first line at or after ``at`` that may begin a top-level
    statement, or the end of ``source``."""
    match = _STATEMENT_START.search(source, max(at - 1, 0))
    return match.end() if match else len(source)
