"""Line-level Markdown reading for the citation section: one line at a time, no regex
with nested quantifiers, so every helper is linear in the length of its input.

Rules follow CommonMark (https://spec.commonmark.org/) and, for task lists and tables,
GitHub Flavored Markdown (https://github.github.com/gfm/), as far as reading the
names of a citation list needs them.
"""

from __future__ import annotations

import functools
import re

_DIGITS = "0123456789"
BOLD_MARKERS = ("**", "__")
# CommonMark §2.4: a backslash escapes any ASCII punctuation character.
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
# An escape, or a cell boundary of a table row.
_CELL_BOUNDARY = re.compile(r"\\.|\|")
_TABLE_DELIMITER_CHARS = frozenset("|:- \t")
_TASK_MARKERS = ("[ ]", "[x]", "[X]")
_BLOCKQUOTE_INDENT = 3


def unescape(text: str) -> str:
    """Remove CommonMark backslash escapes: ``build\\_index`` -> ``build_index``.

    Args:
        text: Markdown text.

    Returns:
        ``text`` with every backslash that precedes ASCII punctuation removed. Code
        spans are not told apart (CommonMark keeps escapes there): a backslash before
        punctuation is never part of an entity name.
    """
    return _ESCAPE.sub(r"\1", text) if "\\" in text else text


def unquote(line: str) -> str:
    """``line`` without its blockquote markers (``> > text`` -> ``text``)."""
    index = 0
    while True:
        probe = index
        # CommonMark: up to three spaces of indentation before each `>`.
        while probe < len(line) and probe - index < _BLOCKQUOTE_INDENT and line[probe] == " ":
            probe += 1
        if probe >= len(line) or line[probe] != ">":
            break
        index = probe + 1
        if index < len(line) and line[index] in " \t":
            index += 1
    # One slice at the end: slicing in the loop would copy the line once per marker.
    return line[index:] if index else line


def atx_heading(stripped: str) -> tuple[int, str] | None:
    """The level and title of an ATX heading (``## Title ##`` -> ``(2, "Title")``).

    Returns:
        ``(level, title)`` with ``level`` in 1..6, or ``None`` for other lines.
    """
    if not stripped.startswith("#"):
        return None
    hashes = len(stripped) - len(stripped.lstrip("#"))
    if not 1 <= hashes <= 6 or (len(stripped) > hashes and stripped[hashes] not in " \t"):
        return None
    return hashes, stripped[hashes:].strip().rstrip("#").strip()


def is_setext_underline(stripped: str) -> bool:
    """A setext heading underline: ``===`` or ``---``."""
    # One `-` would be an empty bullet, so `-` underlines need two.
    return (bool(stripped) and set(stripped) == {"="}) or (
        len(stripped) >= 2 and set(stripped) == {"-"}
    )


def is_thematic_break(stripped: str) -> bool:
    """A thematic break: three or more ``-``, ``*`` or ``_``, blanks allowed between."""
    marker = stripped[:1]
    if marker not in ("-", "*", "_"):
        return False
    return not stripped.strip(marker + " \t") and stripped.count(marker) >= 3


def is_bold_line(stripped: str) -> bool:
    """A line that is all bold (``**Notes**``, ``__Notes__:``): a pseudo-heading."""
    return (
        any(
            stripped.startswith(marker) and stripped.rstrip(":").endswith(marker)
            for marker in BOLD_MARKERS
        )
        and len(stripped) > 4
    )


def list_item(stripped: str) -> str | None:
    """The content of a bullet, numbered or task-list item, or ``None`` for other lines.

    A GFM task marker (``[ ]``, ``[x]``) is not content: ``- [x] Name`` gives ``Name``.
    """
    if stripped[:1] in ("-", "*", "+") and stripped[1:2] in ("", " ", "\t"):
        content = stripped[1:].strip()
    else:
        digits = len(stripped) - len(stripped.lstrip(_DIGITS))
        marker, after = stripped[digits : digits + 1], stripped[digits + 1 : digits + 2]
        if not (1 <= digits <= 9 and marker in (".", ")") and after in ("", " ", "\t")):
            return None
        content = stripped[digits + 1 :].strip()
    if content[:3] in _TASK_MARKERS and content[3:4] in ("", " ", "\t"):
        return content[3:].strip()
    return content


def is_table_delimiter(stripped: str) -> bool:
    """A GFM table delimiter row: ``|---|:--:|``, ``--- | ---``."""
    return "|" in stripped and "-" in stripped and set(stripped) <= _TABLE_DELIMITER_CHARS


def table_cells(stripped: str) -> list[str]:
    """The cells of a table row, stripped (``| 1 | Name |`` -> ``["1", "Name"]``).

    Outer pipes are optional; an escaped pipe (``\\|``) stays inside its cell.
    """
    row = stripped[1:] if stripped.startswith("|") else stripped
    cells: list[str] = []
    last = 0
    for match in _CELL_BOUNDARY.finditer(row):
        if match.group() == "|":
            cells.append(row[last : match.start()].strip())
            last = match.end()
    tail = row[last:].strip()
    # `a | b |` ends in a pipe: no empty cell after it.
    if tail or not cells:
        cells.append(tail)
    return cells


@functools.cache
def _structure(separator: str) -> re.Pattern[str]:
    # An escape, a character that opens or closes a group, or the separator (a single
    # character, or a word between white space: fixed-length alternatives, linear).
    if len(separator) == 1:
        return re.compile(r"\\.|[()\[\]`" + re.escape(separator) + "]")
    return re.compile(r"\\.|[()\[\]`]|\s" + re.escape(separator) + r"\s")


def split_top_level(text: str, separator: str = ",", maxsplit: int = -1) -> list[str]:
    """Split ``text`` at ``separator`` outside brackets, parentheses and code spans.

    ``GraphStore (the protocol, abstract), `a, b`, build_index`` gives three parts.
    Escaped characters (``\\,``) never split or nest.

    Args:
        text: Markdown text.
        separator: One character (``","`` for lists, ``":"`` for a label), or a word
            that splits where white space surrounds it (``"and"``).
        maxsplit: At most this many splits (``-1``: no limit).

    Returns:
        The parts, unstripped; ``[text]`` when there is no top-level separator.
    """
    parts: list[str] = []
    depth = 0
    in_code = False
    last = 0
    for match in _structure(separator).finditer(text):
        if len(parts) == maxsplit:
            break
        token = match.group()
        if token[0] == "\\":
            continue
        if token == "`":
            in_code = not in_code
        elif in_code:
            continue
        elif token in ("(", "["):
            depth += 1
        elif token in (")", "]"):
            depth = max(0, depth - 1)
        elif depth == 0:
            parts.append(text[last : match.start()])
            last = match.end()
    parts.append(text[last:])
    return parts


_LINE_END = re.compile(r"\r\n?|\n")
_FENCE_OPENING = re.compile(r"( {0,3})(`{3,}|~{3,})")
_COMMENT_OPEN, _COMMENT_CLOSE = "<!--", "-->"


def lines_of(text: str) -> list[str]:
    """The lines of ``text`` as CommonMark reads them (§2.1): only ``\\n``, ``\\r\\n``
    and ``\\r`` end a line; a U+2028 or a form feed is text of its line."""
    return _LINE_END.split(text)


def line_start(text: str, line: int) -> int:
    """The offset in ``text`` where its line ``line`` (0-based, as :func:`lines_of`
    counts) starts; ``len(text)`` past its last line."""
    if line <= 0:
        return 0
    for count, end in enumerate(_LINE_END.finditer(text), 1):
        if count == line:
            return end.end()
    return len(text)


def fenced(lines: list[str]) -> list[bool]:
    """Whether each line is part of a fenced code block (its fences included).

    CommonMark §4.5: a fence is three or more backticks or tildes after at most three
    spaces; the block ends at a fence of the same character at least as long, or at the
    end of the text. One pass over the lines.
    """
    inside: list[bool] = []
    opening: str | None = None
    for line in map(unquote, lines):
        match = _FENCE_OPENING.match(line)
        if opening is None:
            if match and not (match[2][0] == "`" and "`" in line[match.end() :]):
                opening = match[2]
                inside.append(True)
                continue
            inside.append(False)
            continue
        inside.append(True)
        rest = line[match.end() :].strip() if match else ""
        if match and match[2][0] == opening[0] and len(match[2]) >= len(opening) and not rest:
            opening = None
    return inside


def visible_text(text: str) -> str:
    """``text`` as a reader sees it rendered: HTML comments (``<!-- ... -->``) outside
    fenced code blocks are removed, and an unclosed ``<!--`` hides the rest of the text,
    as browsers do. Lines are kept (a removed comment leaves its line breaks), so line
    structure is unchanged. Linear: each comment is found with one ``str.find``.

    Example:
        >>> visible_text("Uses A.<!-- and B -->\\n- A")
        'Uses A.\\n- A'
    """
    if _COMMENT_OPEN not in text:
        return text
    lines = lines_of(text)
    shown: list[str] = []
    in_comment = False
    for line, is_code in zip(lines, fenced(lines), strict=True):
        if is_code and not in_comment:
            shown.append(line)
            continue
        kept, position = [], 0
        while position <= len(line):
            if in_comment:
                close = line.find(_COMMENT_CLOSE, position)
                if close == -1:
                    break
                in_comment, position = False, close + len(_COMMENT_CLOSE)
            else:
                start = line.find(_COMMENT_OPEN, position)
                if start == -1:
                    kept.append(line[position:])
                    break
                kept.append(line[position:start])
                in_comment, position = True, start + len(_COMMENT_OPEN)
        shown.append("".join(kept))
    return "\n".join(shown)
