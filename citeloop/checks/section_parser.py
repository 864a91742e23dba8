"""The sections of a Markdown answer, read with a CommonMark parser
(:func:`extract_sections`).

The answer is parsed by markdown-it-py in CommonMark mode (``MarkdownIt("commonmark")``,
https://spec.commonmark.org/), so what counts as a heading is what CommonMark says:

- ATX (``## Risks``) and setext (``Risks`` underlined with ``===`` or ``---``) headings
  both count;
- a ``#`` line inside a fenced or indented code block, or in an HTML block, is not a
  heading;
- ``---`` after a list is a thematic break, not a setext underline (a setext heading
  underlines a paragraph, and a list is not one).

Only *top-level* headings make the outline: a heading inside a block quote or a list
item (``> ## Note``) is part of the section that holds it.

Bold pseudo-headings: with ``flexible=True`` a paragraph whose whole first line is bold
(``**Risks**``, ``**Risks:**``, ``**Risks**:``, ``__Risks__``, ``***Risks***``) is a
section heading too, when the paragraph is top-level or opens an item of a top-level
list (``1. **Risks**``, the common "numbered bold outline" of model answers). Such a
section has level :data:`BOLD_LEVEL` (7, below every real heading), so it ends at the
next heading of any kind, and the rest of its paragraph is its first content. A line
that is only partly bold (``**Risks:** none.``) is a run-in label, not a heading. With
``flexible=False`` only real headings count.

Matching is level- and number-agnostic. A title and a required name are compared by
their *normalized* forms (see :attr:`Section.normalized`): inline markup stripped
(by the same parser), NFC (:func:`citeloop.text.normalize_text`), white space
collapsed, case-folded, a leading emoji or symbol dropped, a leading enumeration
dropped (``11.``, ``3)``, ``(2)``, ``1.2``, ``1.2.``, ``4 -``, ``IV.``, ``A.``, ``b)``;
Roman numerals up to 89), and trailing punctuation dropped (``.:;,!?…`` and dashes).
So ``## 11. Risks``, ``### 3) Risks``, ``# Risks:``, ``**RISKS**`` and ``## `Risks```
all satisfy the required name ``"Risks"``. A required name may itself be written as a
heading (``"## Risks"``).

Sections and their bodies: a section runs from its heading to the next heading of the
same or a higher level (a smaller number), or to the end of the document, so it holds
its sub-sections. It is *empty* when no content block lies in that range: a paragraph
(the rest of a bold heading's paragraph included), a list, a block quote, a non-blank
code block, or an HTML block that is not only a comment. Sub-headings, thematic breaks,
link reference definitions and HTML comments are not content. So ``## Overview``
directly followed by ``## Results`` is empty; ``## Plan`` followed by ``### Step 1``
and then text is not (its sub-section is its body), while ``## Plan`` followed only by
an empty ``### Step 1`` is, and so is that step. Text before the first heading belongs
to no section.

Bounds and cost. Work is linear in the length of the text (guard tests time ``n``
against ``4n``). markdown-it-py is pure Python, so the constant is that of its block
parser: plain prose goes at about 0.3 microseconds a character and a model-like answer
(headings, lists, code, quotes) at about 4, while the worst inputs found (a megabyte of
``#`` lines, of lazy lines after deep block quotes, of short headings or bold lines full
of ``![``) take 15-25, that is 15-25 seconds a megabyte, most of it in the parser.
Three guards keep other inputs from being worse:

- :data:`MAX_QUOTE_DEPTH`, :data:`MAX_PARSED_NESTING`: inside 4 nested block quotes, or
  from nesting level 16 (8 nested lists), a container's content is kept as one opaque
  block. Each nested quote re-reads every lazy continuation line after it, so 20 nested
  quotes cost 20 times as much per line; and markdown-it's own guard (20 levels) drops
  *the rest of the document*, so ten nested list markers (``1. 1. 1. ...``) would hide
  every later heading. The opaque block ends where the container ends (a blank line and
  then a line indented less than the container, or a line that would interrupt a
  paragraph), so the headings after it are found. Top-level structure is unchanged
  below the guards (a differential test compares it with an unguarded parser).
- :data:`MAX_TITLE_CHARS`: the inline parser costs up to ~16 microseconds a character
  (runs of ``![``); a heading whose source is longer than this is taken as written
  (white space collapsed) without inline parsing, and a bold pseudo-heading must have a
  first line at most :data:`MAX_BOLD_TITLE_CHARS` long.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

from citeloop.checks.check import require_text
from citeloop.errors import ConfigurationError
from citeloop.text import normalize_text

__all__ = [
    "BOLD_LEVEL",
    "MAX_BOLD_TITLE_CHARS",
    "MAX_PARSED_NESTING",
    "MAX_QUOTE_DEPTH",
    "MAX_TITLE_CHARS",
    "Section",
    "SectionKind",
    "extract_sections",
    "require_bool",
]


def require_bool(name: str, value: object) -> None:
    """Raise :class:`ConfigurationError` unless ``value`` is ``True`` or ``False``."""
    if not isinstance(value, bool):
        raise ConfigurationError(f"{name} must be True or False, got {value!r}")


BOLD_LEVEL = 7
"""Level of a bold pseudo-heading: below ``######``, so any heading ends its section."""
MAX_TITLE_CHARS = 1000
"""Longest heading source that is inline-parsed; a longer one is taken as written."""
MAX_BOLD_TITLE_CHARS = 200
"""Longest first line of a paragraph that can be a bold pseudo-heading."""
MAX_PARSED_NESTING = 16
"""Token nesting level (a block quote adds 1, a list 2) from which a container's content
is kept as one opaque block (see the module docstring): 8 nested lists are parsed."""
MAX_QUOTE_DEPTH = 4
"""Block quotes nested in one another from which content is kept as one opaque block."""

SectionKind = Literal["atx", "setext", "bold"]
_BlockRule = Callable[[StateBlock, int, int, bool], bool]

DEFAULT_LEVEL = 2
_QUOTE_DEPTH = "citeloop_quote_depth"
# Characters that can start inline markup in CommonMark; a title without any is plain.
_INLINE_MARKERS = frozenset("\\`*_[]!<&")
_NEWLINES = re.compile(r"\r\n?|\n")
ATX_MARKER = re.compile(r"#{1,6}(?:[ \t]+|$)")
_ENUMERATION = re.compile(
    r"\(?(?:\d{1,4}(?:\.\d{1,4}){0,5}[.):]|\d{1,4}(?:\.\d{1,4}){1,5}|\d{1,4}\s{0,3}[-–—]"
    r"|(?=[ivxl])l?x{0,3}(?:ix|iv|v?i{0,3})[.)]|[a-z][.)])\s+"
)
_TRAILING_PUNCTUATION = " .:;,!?…-–—"
_BOLD_TRAILERS = frozenset(":.：")
_DECORATION_CATEGORIES = frozenset(("So", "Sk", "Cf", "Mn", "Zs"))
# Blocks that are not content: headings, thematic breaks, and a list item's frame (its
# own blocks are content).
_STRUCTURAL = frozenset(("heading_open", "hr", "list_item_open"))


def _nesting_guard(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Keep a container nested too deep as one opaque block (see the module docstring).

    Registered first in the block chain; it acts inside a container opened at nesting
    level :data:`MAX_PARSED_NESTING` or inside :data:`MAX_QUOTE_DEPTH` block quotes.
    Lines belong to the opaque block while they are blank or indented as far as the
    container's content; a less indented line is a lazy continuation unless a blank
    line precedes it or it would interrupt a paragraph (the paragraph rule's own test).
    Each line is visited once.
    """
    too_deep = state.env.get(_QUOTE_DEPTH, 0) >= MAX_QUOTE_DEPTH
    if silent or not (too_deep or state.level >= MAX_PARSED_NESTING):
        return False
    terminators = state.md.block.ruler.getRules("paragraph")
    line = last = start
    blank_before = False
    old_parent = state.parentType
    state.parentType = "paragraph"
    try:
        while line + 1 < end:
            line += 1
            if state.isEmpty(line):
                blank_before = True
                continue
            if state.sCount[line] < state.blkIndent and (
                blank_before or any(rule(state, line, end, True) for rule in terminators)
            ):
                break
            blank_before = False
            last = line
    finally:
        state.parentType = old_parent
    token = state.push("citeloop_deep_block", "", 0)
    token.map = [start, last + 1]
    state.line = last + 1
    return True


def _counting_quotes(blockquote: _BlockRule) -> _BlockRule:
    """Wrap the block-quote rule to count the quotes open around the parser."""

    def rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        if silent:
            return bool(blockquote(state, start, end, silent))
        state.env[_QUOTE_DEPTH] = state.env.get(_QUOTE_DEPTH, 0) + 1
        try:
            return bool(blockquote(state, start, end, silent))
        finally:
            state.env[_QUOTE_DEPTH] -= 1

    return rule


def _block_parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark")
    # Block structure only: inline parsing (links, emphasis) is what costs most, and
    # only titles need it (see `plain_text`).
    parser.disable("inline")
    ruler = parser.block.ruler
    quote = next(rule for rule in ruler.__rules__ if rule.name == "blockquote")
    # Same rule, same place in the terminator chains; it only counts the open quotes.
    ruler.at("blockquote", _counting_quotes(quote.fn), {"alt": list(quote.alt)})
    ruler.before("table", "citeloop_nesting_guard", _nesting_guard)
    return parser


_BLOCK = _block_parser()
_INLINE = MarkdownIt("commonmark")


@dataclass(frozen=True, slots=True)
class Section:
    """One section of a Markdown document.

    Attributes:
        title: The heading text as written, inline markup stripped (``"11. Risks"``
            for ``## 11. **Risks**``); setext titles over several lines are joined
            with spaces.
        normalized: The matching key of the title: NFC, case-folded, single-spaced,
            without a leading enumeration or emoji or trailing punctuation
            (``"risks"``); ``""`` for an empty heading.
        level: 1-6 for an ATX or setext heading, :data:`BOLD_LEVEL` (7) for a bold
            pseudo-heading.
        kind: ``"atx"``, ``"setext"`` or ``"bold"``.
        line_range: ``(start, end)``: the 0-based line of the heading and one past the
            section's last line (its sub-sections included). Lines are split at
            ``\\n``, ``\\r\\n`` and ``\\r``, as CommonMark splits them.
        body: The source text of the lines after the heading up to ``end``, leading
            and trailing blank lines removed (sub-sections included, as written).
        empty: Whether the section holds no content block (see the module docstring).
    """

    title: str
    normalized: str
    level: int
    kind: SectionKind
    line_range: tuple[int, int]
    body: str
    empty: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "title": self.title,
            "normalized": self.normalized,
            "level": self.level,
            "kind": self.kind,
            "line_range": list(self.line_range),
            "body": self.body,
            "empty": self.empty,
        }


# --- titles ---------------------------------------------------------------------------


def _inline_text(tokens: Sequence[Token]) -> str:
    """Plain text of inline tokens: markup dropped, code and image alt text kept."""
    parts: list[str] = []
    for token in tokens:
        if token.type in ("text", "code_inline"):
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif token.type == "image" and token.children:
            parts.append(_inline_text(token.children))
    return "".join(parts)


def _inline_tokens(source: str) -> list[Token]:
    parsed = _INLINE.parseInline(source)
    return list(parsed[0].children or []) if parsed else []


def plain_text(source: str) -> str:
    """The title text of a heading's source: inline markup stripped, single-spaced."""
    if len(source) <= MAX_TITLE_CHARS and not _INLINE_MARKERS.isdisjoint(source):
        source = _inline_text(_inline_tokens(source))
    return " ".join(source.split())


def _strip_decoration(text: str) -> str:
    """Drop a leading emoji or symbol (``⚠️ Risks``) when a title follows it."""
    index = 0
    while index < len(text) and unicodedata.category(text[index]) in _DECORATION_CATEGORIES:
        index += 1
    return text[index:] if 0 < index < len(text) else text


def normalize_title(title: str) -> str:
    """The matching key of a plain title (see :attr:`Section.normalized`)."""
    key = " ".join(normalize_text(title).casefold().split())
    key = _strip_decoration(key)
    enumeration = _ENUMERATION.match(key)
    if enumeration is not None and enumeration.end() < len(key):
        key = key[enumeration.end() :]
    return key.rstrip(_TRAILING_PUNCTUATION) or key.strip()


def _bold_title(first_line: str) -> str | None:
    """The title of a bold pseudo-heading line (``**Risks:**``), or ``None``."""
    line = first_line.strip()
    if len(line) > MAX_BOLD_TITLE_CHARS or not line.startswith(("**", "__")):
        return None
    tokens = _inline_tokens(line)
    depth = 0
    seen_strong = closed = False
    for token in tokens:
        if token.type == "strong_open":
            depth += 1
            seen_strong = True
        elif token.type == "strong_close":
            depth -= 1
            closed = depth == 0
        elif depth == 0 and token.type not in ("em_open", "em_close"):
            trailer = token.content.strip()
            # Outside the bold span only a trailing colon or dot may stand (`**Risks**:`).
            if token.type not in ("text", "softbreak") or not (
                not trailer or (closed and len(trailer) == 1 and trailer in _BOLD_TRAILERS)
            ):
                return None
    if not seen_strong:
        return None
    return " ".join(_inline_text(tokens).split())


# --- sections -------------------------------------------------------------------------


@dataclass(slots=True)
class _Heading:
    title: str
    level: int
    kind: SectionKind
    start: int
    body_start: int
    end: int = 0
    has_content: bool = False


def _is_content(token: Token) -> bool:
    """Whether a top-level block token is content (see the module docstring)."""
    if token.type in ("fence", "code_block"):
        return bool(token.content.strip())
    if token.type == "html_block":
        html = token.content.strip()
        return not (html.startswith("<!--") and html.endswith("-->"))
    return token.type not in _STRUCTURAL


def _lines(text: str) -> list[str]:
    """The lines of ``text`` as CommonMark counts them (no empty line after a final EOL)."""
    lines = _NEWLINES.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def _may_be_bold_heading(tokens: list[Token], index: int) -> bool:
    """Whether ``tokens[index]`` (a paragraph) is top-level or opens a top-level list item."""
    if index + 1 >= len(tokens):
        return False
    level = tokens[index].level
    if level == 0:
        return True
    before = tokens[index - 1]
    return level == 2 and before.type == "list_item_open" and before.level == 1


def _headings(text: str, flexible: bool, line_count: int) -> list[_Heading]:
    """Top-level headings with their extents and content flags."""
    tokens = _BLOCK.parse(text, {})
    headings: list[_Heading] = []
    open_stack: list[_Heading] = []

    def close(until: int, at: int) -> None:
        # Pop the sections that a heading of level `until` (or the end) ends; a
        # section with content gives it to the section that holds it.
        while open_stack and open_stack[-1].level >= until:
            done = open_stack.pop()
            done.end = at
            if done.has_content and open_stack:
                open_stack[-1].has_content = True

    def open_heading(heading: _Heading) -> None:
        close(heading.level, heading.start)
        headings.append(heading)
        open_stack.append(heading)

    for index, token in enumerate(tokens):
        if token.nesting == -1 or token.map is None or token.type == "inline":
            # Closings, and the inline text of a block (judged with its block).
            continue
        start, end = token.map
        if token.level == 0 and token.type == "heading_open":
            source = tokens[index + 1].content if index + 1 < len(tokens) else ""
            kind: SectionKind = "atx" if token.markup.startswith("#") else "setext"
            open_heading(_Heading(plain_text(source), int(token.tag[1:]), kind, start, end))
            continue
        content = _is_content(token)
        if flexible and token.type == "paragraph_open" and _may_be_bold_heading(tokens, index):
            source = tokens[index + 1].content
            newline = source.find("\n")
            title = _bold_title(source if newline == -1 else source[:newline])
            if title is not None:
                open_heading(_Heading(title, BOLD_LEVEL, "bold", start, start + 1))
                content = end > start + 1
        if content and open_stack:
            open_stack[-1].has_content = True
    close(0, line_count)
    return headings


def _body(lines: list[str], start: int, end: int) -> str:
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end])


def parse_sections(text: str, flexible: bool) -> tuple[Section, ...]:
    lines = _lines(text)
    headings = _headings(text, flexible, len(lines))
    return tuple(
        Section(
            title=heading.title,
            normalized=normalize_title(heading.title),
            level=heading.level,
            kind=heading.kind,
            line_range=(heading.start, heading.end),
            body=_body(lines, heading.body_start, heading.end),
            empty=not heading.has_content,
        )
        for heading in headings
    )


def extract_sections(text: str, *, flexible: bool = True) -> tuple[Section, ...]:
    """The sections of a Markdown document, in order (CommonMark, top-level headings).

    Args:
        text: Any text; an empty or heading-less text has no sections.
        flexible: Also read a paragraph whose whole first line is bold as a section
            heading (level :data:`BOLD_LEVEL`); ``False``: real headings only.

    Returns:
        One :class:`Section` per heading, in document order.

    Raises:
        ConfigurationError: ``text`` is not a ``str`` or ``flexible`` not a ``bool``.

    Example:
        >>> [(s.title, s.level, s.empty) for s in extract_sections(
        ...     "Intro\\n=====\\n## 11. **Risks**\\nNone.\\n```\\n# not a heading\\n```\\n")]
        [('Intro', 1, False), ('11. Risks', 2, False)]
        >>> extract_sections("**Risks:**\\n- late data\\n")[0].normalized
        'risks'
    """
    require_text(text)
    require_bool("flexible", flexible)
    return parse_sections(text, flexible)
