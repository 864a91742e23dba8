"""Typographic style of prose: runs of ``!``/``?`` and double spaces.

The source design 002's formatting check flags ``!!!``, ``???`` and double spaces;
citeloop reports them as two problem codes of
:func:`citeloop.checks.formatting.formatting_result` with ``style=True`` (always on in
:func:`citeloop.checks.plain.validate_formatting`):

- ``repeated_punctuation``: three or more ``!`` or ``?`` in a row (``"Wow!!!"``,
  ``"Really???"``, ``"What?!?"``).
- ``double_spaces``: two or more spaces between two visible characters of a line.
  Indentation, the two trailing spaces of a Markdown hard line break, table rows
  (lines starting with ``|``) and code (code spans and fenced blocks) are not prose
  and are not read.

Both are read outside code only (:func:`citeloop.checks.code_mask.mask_code`); each
regex is a single character class with a bounded lookaround, so the scan is linear.
"""

from __future__ import annotations

import re

from citeloop.checks.check import Problem
from citeloop.checks.code_mask import mask_code

__all__ = ["STYLE_CODES", "style_problems"]

STYLE_CODES = ("repeated_punctuation", "double_spaces")
"""The problem codes of :func:`style_problems`."""

_PUNCTUATION_RUN = re.compile(r"[!?]{3,}")
_DOUBLE_SPACE = re.compile(r"(?<=\S) {2,}(?=\S)")
_TABLE_ROW = re.compile(r"[ \t]*\|")


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _double_spaces(text: str, masked: str) -> list[int]:
    """Offsets of double spaces in prose; each line start is looked up once."""
    found: list[int] = []
    line_start, table_row, scanned = -1, False, 0
    for match in _DOUBLE_SPACE.finditer(masked):
        start, end = match.span()
        # Only the text since the previous match is searched for a newline: linear.
        newline = text.rfind("\n", scanned, start)
        scanned = start
        if newline != -1 or line_start == -1:
            line_start = newline + 1 if newline != -1 else 0
            table_row = _TABLE_ROW.match(text, line_start) is not None
        # Spaces that were code before masking are not prose.
        if text[start:end] != masked[start:end]:
            continue
        if not table_row:
            found.append(start)
    return found


def style_problems(text: str) -> list[Problem]:
    """The style problems of ``text`` (codes in :data:`STYLE_CODES`), at most one per code.

    Args:
        text: Any text.

    Returns:
        Problems whose ``details`` hold ``code``, ``count``, ``position`` (offset of the
        first) and ``line`` (1-based); empty when the prose is clean.

    Example:
        >>> [problem.details["code"] for problem in style_problems("Wow!!!  Really???")]
        ['repeated_punctuation', 'double_spaces']
        >>> style_problems("Code `a  b` and a hard break  \\nnext line.")
        []
    """
    masked = mask_code(text)
    problems: list[Problem] = []
    runs = [match.start() for match in _PUNCTUATION_RUN.finditer(masked)]
    if runs:
        problems.append(
            Problem(
                f"{len(runs)} run(s) of three or more '!' or '?', the first at line "
                f"{_line_of(text, runs[0])}",
                "one '!' or '?' at the end of a sentence",
                "Use a single '!' or '?'.",
                {
                    "code": "repeated_punctuation",
                    "count": len(runs),
                    "position": runs[0],
                    "line": _line_of(text, runs[0]),
                },
            )
        )
    spaces = _double_spaces(text, masked)
    if spaces:
        problems.append(
            Problem(
                f"{len(spaces)} double space(s) in prose, the first at line "
                f"{_line_of(text, spaces[0])}",
                "single spaces between words",
                "Replace each run of spaces between words with one space.",
                {
                    "code": "double_spaces",
                    "count": len(spaces),
                    "position": spaces[0],
                    "line": _line_of(text, spaces[0]),
                },
            )
        )
    return problems
