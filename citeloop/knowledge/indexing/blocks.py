"""Parsing a large Python file one block of top-level statements at a time.

``ast.parse`` holds the parser's own tree and the Python objects it converts it into at
the same time: about 160 bytes of memory per byte of source at its peak, twice what the
finished tree keeps. :func:`iter_blocks` parses a large file in blocks of about
:data:`BLOCK_CHARS` characters, each cut at the start of a top-level statement, and hands
the blocks out one at a time, so that the indexer walks each and lets it go: the parser's
peak is that of one block, and of the rest only small copies of the parts the indexer
links later (call sites, assigned values; see :mod:`citeloop.knowledge.indexing.compact`)
and annotations are kept.

A block keeps the line numbers it has in the file: it is parsed after as many blank lines
as the file has lines before it, so the parser numbers them; once those would outnumber
the block's own characters, it is parsed alone and :func:`ast.increment_lineno` moves
them, so a file of any length is still read in linear time.

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
from collections.abc import Iterator

__all__ = ["BLOCK_CHARS", "BlocksUnparseable", "iter_blocks", "splits_into_blocks"]

BLOCK_CHARS = 65_536
"""Target size of a block, in characters; a file no larger is parsed whole."""

# A line that may start a top-level statement: not indented, blank, a comment, a closing
# bracket, a clause that continues a compound statement, or a string literal (which may
# be the docstring of the attribute above it).
_STATEMENT_START = re.compile(
    r"\n(?![\s#)\]}]|(?:else|elif|except|finally)\b|[rRbBuUfF]{0,2}[\"'])"
)


class BlocksUnparseable(Exception):
    """A block does not parse up to the end of the file: parse the file whole instead."""


def splits_into_blocks(source: str, block_chars: int = BLOCK_CHARS) -> bool:
    """Whether :func:`iter_blocks` reads ``source`` in more than one block: it is larger
    than one block and uses neither carriage returns as line ends nor the
    ``barry_as_FLUFL`` future (which changes how later lines parse)."""
    return len(source) > block_chars and "\r" not in source and "barry_as_FLUFL" not in source


def iter_blocks(source: str, path: str, block_chars: int = BLOCK_CHARS) -> Iterator[ast.Module]:
    """Parse ``source`` one block of top-level statements at a time, lazily.

    The blocks' statements, in order, are those of a whole-file ``ast.parse``, with the
    same positions; a consumer that drops each block after use holds one block's tree at
    a time. A cut never falls before a line that starts with a string literal, so an
    attribute's docstring stays in the block of its assignment.

    Args:
        source: The decoded source text (see :func:`splits_into_blocks`).
        path: The file name given to the parser.
        block_chars: Target block size in characters (at least 1).

    Yields:
        One module per block.

    Raises:
        BlocksUnparseable: A block does not parse up to the end of the file (a real
            syntax error, or syntax the caller lowers); raised before that block.
        ValueError: If ``ast.parse`` raises it for a block (null bytes).
        RecursionError: If ``ast.parse`` raises it for a too deeply nested block.
        MemoryError: If ``ast.parse`` raises it (CPython's parser does on deep nesting).
    """
    length = len(source)
    start, line, size = 0, 1, block_chars
    while start < length:
        end = _cut(source, start + size)
        ahead = line - 1 if line - 1 <= end - start else 0
        try:
            tree = ast.parse("\n" * ahead + source[start:end], filename=path)
        except SyntaxError:
            if end >= length:
                raise BlocksUnparseable(path) from None
            size *= 2
            continue
        if line - 1 > ahead:
            ast.increment_lineno(tree, line - 1)
        line += source.count("\n", start, end)
        start, size = end, block_chars
        yield tree


def _cut(source: str, at: int) -> int:
    """The start of the first line at or after ``at`` that may begin a top-level
    statement, or the end of ``source``."""
    match = _STATEMENT_START.search(source, max(at - 1, 0))
    return match.end() if match else len(source)
