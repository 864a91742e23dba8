"""Fenced code blocks in Markdown, found in one linear pass over the lines.

Rules follow CommonMark §4.5 (https://spec.commonmark.org/0.31.2/#fenced-code-blocks):
backtick or tilde fences of three or more characters, closed by a fence of the same
character at least as long; an unclosed fence runs to the end of the text. Two deliberate
leniencies: a fence may be indented any amount (fences nest in list items), and in a
JSON-tagged block a fence line inside a JSON string does not close the block.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_BLANK = re.compile(r"[ \t\r]*+")
_SPACES = re.compile(r"[ \t]*+")
_BACKTICKS = re.compile(r"`*+")
_TILDES = re.compile(r"~*+")
_LANGUAGE = re.compile(r"[\w+.#-]*+")
_QUOTE_OR_ESCAPE = re.compile(r'\\.|"')
# --- fenced code blocks ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CodeFence:
    """A fenced code block (CommonMark §4.5).

    Offsets index the text the block was found in (``text[start:end]`` is the block).

    Attributes:
        start: Offset of the opening fence line.
        end: Offset just past the closing fence line (its newline included), or the
            length of the text when the block is not closed.
        content_start: Offset of the first content line.
        content_end: Offset of the closing fence line (or the end of the text).
        marker: The opening fence, e.g. ``"```"`` or ``"~~~~"``.
        info: The info string after the opening fence, stripped (``"JSON"``).
        language: The info string's first word in lower case, cut at the first character
            that is not a letter, digit or one of ``+.#-_`` (``"json"``; ``""`` if none).
        closed: Whether a closing fence was found.
    """

    start: int
    end: int
    content_start: int
    content_end: int
    marker: str
    info: str
    language: str
    closed: bool


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end == -1 else end


def _opening_fence(text: str, start: int, end: int) -> tuple[str, str] | None:
    """(marker, info string) when ``text[start:end]`` is an opening fence line."""
    index = _SPACES.match(text, start, end).end()
    if index >= end or text[index] not in "`~":
        return None
    run = (_BACKTICKS if text[index] == "`" else _TILDES).match(text, index, end).end()
    if run - index < 3:
        return None
    info = text[run:end].strip()
    # CommonMark: the info string of a backtick fence may not contain a backtick, so an
    # inline "```code```" line is not a fence.
    if text[index] == "`" and "`" in info:
        return None
    return text[index:run], info


def _is_closing_fence(text: str, start: int, end: int, marker: str) -> bool:
    index = _SPACES.match(text, start, end).end()
    if not text.startswith(marker, index):
        return False
    run = (_BACKTICKS if marker[0] == "`" else _TILDES).match(text, index, end).end()
    return _BLANK.match(text, run, end).end() == end


def _inside_string_after(text: str, start: int, end: int, inside: bool) -> bool:
    """Whether a JSON string is open after ``text[start:end]``, given the state before."""
    for match in _QUOTE_OR_ESCAPE.finditer(text, start, end):
        if match.group() == '"':
            inside = not inside
    return inside


def _close_of(text: str, start: int, marker: str, string_aware: bool) -> tuple[int, int, bool]:
    """(content end, block end, string-aware search failed) of a block from ``start``.

    With ``string_aware``, a fence line inside a JSON string does not close the block;
    when no fence line outside a string is found, the first fence line closes it, as
    CommonMark says (the quotes were not JSON's after all).
    """
    pos, inside, first = start, False, None
    while pos < len(text):
        end = _line_end(text, pos)
        if _is_closing_fence(text, pos, end, marker):
            if not inside:
                return pos, min(end + 1, len(text)), False
            if first is None:
                first = (pos, min(end + 1, len(text)))
            if not string_aware:
                break
        elif string_aware:
            inside = _inside_string_after(text, pos, end, inside)
        pos = end + 1
    if first is not None:
        return first[0], first[1], string_aware
    return len(text), len(text), string_aware


def iter_fences(text: str, string_aware: frozenset[str] = frozenset()) -> Iterator[CodeFence]:
    """The fenced code blocks of ``text`` in order; see :func:`find_code_fences`.

    Blocks whose language is in ``string_aware`` are closed only by a fence line outside
    a JSON string. Once such a search reads to the end without finding one, later blocks
    are closed the plain way, so no line is read more than twice.
    """
    pos = 0
    while pos < len(text):
        end = _line_end(text, pos)
        opening = _opening_fence(text, pos, end)
        if opening is None:
            pos = end + 1
            continue
        marker, info = opening
        first_word = info.split(maxsplit=1)[0] if info else ""
        language = _LANGUAGE.match(first_word).group().lower()
        content_start = min(end + 1, len(text))
        aware = language in string_aware
        content_end, block_end, gave_up = _close_of(text, content_start, marker, aware)
        if gave_up:
            string_aware = frozenset()
        yield CodeFence(
            pos,
            block_end,
            content_start,
            content_end,
            marker,
            info,
            language,
            content_end < len(text) or block_end > content_end,
        )
        pos = block_end


def find_code_fences(text: str) -> list[CodeFence]:
    """The fenced code blocks of ``text``, in order (CommonMark §4.5 fences).

    An opening fence is a line of three or more backticks or tildes (any indentation)
    and an info string (which, for backticks, may not contain a backtick); the block
    ends at the next line holding only a fence of the same character at least as long,
    or at the end of the text. Lines are read once, so work is linear.

    Args:
        text: Any text.

    Returns:
        One :class:`CodeFence` per block.

    Example:
        >>> [(fence.language, fence.closed) for fence in find_code_fences("``` JSON\\n{}\\n```")]
        [('json', True)]
    """
    return list(iter_fences(text))


def outside_fences(text: str, fences: list[CodeFence]) -> list[tuple[int, int]]:
    """The (start, end) spans of ``text`` outside fenced code blocks."""
    spans, last = [], 0
    for fence in fences:
        spans.append((last, fence.start))
        last = fence.end
    spans.append((last, len(text)))
    return [(start, end) for start, end in spans if start < end]
