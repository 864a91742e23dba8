"""Required sections of a Markdown answer, read with a CommonMark parser.

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

What is checked (:func:`validate_response_structure`, :func:`validate_section_completeness`)
concerns the *required* sections only, named as the caller spelled them: ``missing``
(no section matches), ``empty`` (the first matching section has no content, unless
``allow_empty``), ``duplicates`` (more than one section matches: which one answers?)
and, with ``ordered=True``, ``out_of_order``. The answer's other sections are its own
business: a repeated ``### Pros`` under two options is a normal outline, and a closing
``**Good luck!**`` line is not an empty section anyone asked for.

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
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

from citeloop.checks.check import Check, CheckOutcome, OnFail, Problem, failed, require_text
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
    "SectionReport",
    "extract_structured_sections",
    "sections_check",
    "validate_response_structure",
    "validate_section_completeness",
]

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

_DEFAULT_LEVEL = 2
_QUOTE_DEPTH = "citeloop_quote_depth"
# Characters that can start inline markup in CommonMark; a title without any is plain.
_INLINE_MARKERS = frozenset("\\`*_[]!<&")
_NEWLINES = re.compile(r"\r\n?|\n")
_ATX_MARKER = re.compile(r"#{1,6}(?:[ \t]+|$)")
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
    # only titles need it (see `_plain`).
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


@dataclass(frozen=True, slots=True)
class SectionReport:
    """What a section check found; every name is a required name as the caller wrote it.

    Attributes:
        sections: Every section of the answer, in order (:func:`extract_structured_sections`).
        required: The required names, in the order given.
        present: Required names that some section matches, in required order.
        missing: Required names that no section matches.
        empty: Required names whose (first) matching section has no content; always
            ``()`` when empty sections were allowed.
        duplicates: Required names that more than one section matches.
        out_of_order: Required names whose sections break the required order (the
            fewest such names: those outside a longest in-order run); ``()`` unless
            the order was checked.
        min_sections: The least number of sections asked for (0: no minimum).
    """

    sections: tuple[Section, ...]
    required: tuple[str, ...]
    present: tuple[str, ...]
    missing: tuple[str, ...]
    empty: tuple[str, ...]
    duplicates: tuple[str, ...]
    out_of_order: tuple[str, ...] = ()
    min_sections: int = 0

    @property
    def too_few_sections(self) -> bool:
        """Whether the answer has fewer sections than :attr:`min_sections`."""
        return len(self.sections) < self.min_sections

    @property
    def passed(self) -> bool:
        """No required section missing, empty, duplicated or out of order, and enough
        sections."""
        problems = self.missing or self.empty or self.duplicates or self.out_of_order
        return not problems and not self.too_few_sections

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "passed": self.passed,
            "required": list(self.required),
            "present": list(self.present),
            "missing": list(self.missing),
            "empty": list(self.empty),
            "duplicates": list(self.duplicates),
            "out_of_order": list(self.out_of_order),
            "min_sections": self.min_sections,
            "too_few_sections": self.too_few_sections,
            "sections": [section.to_dict() for section in self.sections],
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


def _plain(source: str) -> str:
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


def _normalize(title: str) -> str:
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
            open_heading(_Heading(_plain(source), int(token.tag[1:]), kind, start, end))
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


def _sections(text: str, flexible: bool) -> tuple[Section, ...]:
    lines = _lines(text)
    headings = _headings(text, flexible, len(lines))
    return tuple(
        Section(
            title=heading.title,
            normalized=_normalize(heading.title),
            level=heading.level,
            kind=heading.kind,
            line_range=(heading.start, heading.end),
            body=_body(lines, heading.body_start, heading.end),
            empty=not heading.has_content,
        )
        for heading in headings
    )


def extract_structured_sections(text: str, *, flexible: bool = True) -> tuple[Section, ...]:
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
        >>> [(s.title, s.level, s.empty) for s in extract_structured_sections(
        ...     "Intro\\n=====\\n## 11. **Risks**\\nNone.\\n```\\n# not a heading\\n```\\n")]
        [('Intro', 1, False), ('11. Risks', 2, False)]
        >>> extract_structured_sections("**Risks:**\\n- late data\\n")[0].normalized
        'risks'
    """
    require_text(text)
    _require_bool("flexible", flexible)
    return _sections(text, flexible)


# --- checks ---------------------------------------------------------------------------


def _require_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise ConfigurationError(f"{name} must be True or False, got {value!r}")


def _required_key(name: str) -> str:
    """The matching key of a required name; a leading ``##`` marker is dropped."""
    name = name.strip()
    marker = _ATX_MARKER.match(name)
    return _normalize(_plain(name[marker.end() :] if marker else name))


def _required_keys(required_headers: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(names as given, their matching keys); raises ConfigurationError on bad names."""
    if isinstance(required_headers, str) or not isinstance(required_headers, list | tuple):
        raise ConfigurationError(
            "required_headers must be a list of section names, e.g. ['Overview', 'Risks']; "
            f"got {type(required_headers).__name__} {required_headers!r:.80}"
        )
    keys: dict[str, str] = {}
    for name in required_headers:
        if not isinstance(name, str):
            raise ConfigurationError(
                f"required_headers must hold only strings; got {type(name).__name__} {name!r:.80}"
            )
        key = _required_key(name)
        if not key:
            raise ConfigurationError(
                f"required_headers holds an empty section name ({name!r}); "
                "give each required section a title, e.g. 'Risks'"
            )
        if key in keys:
            raise ConfigurationError(
                f"required_headers names the same section twice: {keys[key]!r} and {name!r} "
                f"(both match {key!r}); list it once"
            )
        keys[key] = name
    return tuple(keys.values()), tuple(keys)


def _out_of_order(positions: list[tuple[str, int]]) -> tuple[str, ...]:
    """Names outside a longest run of sections in the required order.

    Of the longest runs, the one that keeps the earliest required names is chosen, so
    a section moved ahead of its place is the one reported. ``O(k log k)`` in the
    number of names.
    """
    # Right to left, patience sorting on negated positions: starts[i] is the length of
    # the longest in-order run that begins with name i.
    starts = [0] * len(positions)
    tails: list[int] = []
    for index in range(len(positions) - 1, -1, -1):
        value = -positions[index][1]
        slot = bisect_left(tails, value)
        if slot == len(tails):
            tails.append(value)
        else:
            tails[slot] = value
        starts[index] = slot + 1
    kept: set[int] = set()
    needed, last = len(tails), -1
    for index, (_, position) in enumerate(positions):
        if needed and starts[index] == needed and position > last:
            kept.add(index)
            needed, last = needed - 1, position
    return tuple(name for index, (name, _) in enumerate(positions) if index not in kept)


def _report(
    text: str,
    required_headers: object,
    *,
    flexible: bool,
    ordered: bool,
    min_sections: int,
    allow_empty: bool,
) -> SectionReport:
    require_text(text)
    names, keys = _required_keys(required_headers)
    for name, value in (("flexible", flexible), ("ordered", ordered), ("allow_empty", allow_empty)):
        _require_bool(name, value)
    if isinstance(min_sections, bool) or not isinstance(min_sections, int) or min_sections < 0:
        raise ConfigurationError(
            f"min_sections must be a whole number >= 0 (0: no minimum), got {min_sections!r}"
        )
    sections = _sections(text, flexible)
    matches: dict[str, list[int]] = {key: [] for key in keys}
    for index, section in enumerate(sections):
        found = matches.get(section.normalized)
        if found is not None:
            found.append(index)
    present = tuple(name for name, key in zip(names, keys, strict=True) if matches[key])
    first = [(name, matches[key][0]) for name, key in zip(names, keys, strict=True) if matches[key]]
    return SectionReport(
        sections=sections,
        required=names,
        present=present,
        missing=tuple(name for name, key in zip(names, keys, strict=True) if not matches[key]),
        empty=() if allow_empty else tuple(name for name, index in first if sections[index].empty),
        duplicates=tuple(
            name for name, key in zip(names, keys, strict=True) if len(matches[key]) > 1
        ),
        out_of_order=_out_of_order(first) if ordered else (),
        min_sections=min_sections,
    )


def validate_section_completeness(
    text: str, required_headers: Sequence[str], flexible: bool = True
) -> SectionReport:
    """Check that every required section is there, once, with content.

    A signal check: any text gives a report. Matching is level- and number-agnostic
    (``## 11. Risks`` satisfies ``"Risks"``; see the module docstring).

    Args:
        text: The answer, Markdown (CommonMark); any text is accepted.
        required_headers: The section names that must be present, e.g.
            ``["Overview", "Risks"]`` (a list or tuple of non-empty strings; markup and
            a leading ``##`` are ignored).
        flexible: Accept bold pseudo-headings (``**Risks:**``) as sections.

    Returns:
        A :class:`SectionReport` with ``present``, ``missing``, ``empty`` and
        ``duplicates``; ``passed`` when all three are empty.

    Raises:
        ConfigurationError: ``required_headers`` is not a list of strings, holds an
            empty name or the same name twice; ``text`` is not a ``str``; ``flexible``
            is not a ``bool``.

    Example:
        >>> report = validate_section_completeness(
        ...     "## Overview\\n## 3) Results\\nData.\\n", ["Overview", "Results", "Risks"])
        >>> report.present, report.missing, report.empty, report.passed
        (('Overview', 'Results'), ('Risks',), ('Overview',), False)
    """
    return _report(
        text,
        required_headers,
        flexible=flexible,
        ordered=False,
        min_sections=0,
        allow_empty=False,
    )


def validate_response_structure(
    text: str,
    required_headers: Sequence[str] = (),
    *,
    flexible: bool = True,
    ordered: bool = False,
    min_sections: int = 0,
    allow_empty: bool = False,
) -> SectionReport:
    """Check the outline of an answer: required sections, their order, their number.

    With the defaults this is :func:`validate_section_completeness`.

    Args:
        text: The answer, Markdown (CommonMark); any text is accepted.
        required_headers: Section names that must be present (see
            :func:`validate_section_completeness`); none by default.
        flexible: Accept bold pseudo-headings (``**Risks:**``) as sections.
        ordered: The required sections must come in the given order (by the first
            section matching each); those that do not are reported in
            ``out_of_order``. Missing ones are ignored here (they are ``missing``).
        min_sections: The least number of sections the answer must have (every
            section counts, sub-sections and, when ``flexible``, bold pseudo-headings
            included).
        allow_empty: Accept required sections without content (presence is enough).

    Returns:
        A :class:`SectionReport`.

    Raises:
        ConfigurationError: Bad ``required_headers`` (see
            :func:`validate_section_completeness`), a ``min_sections`` that is not a
            whole number >= 0, or a flag that is not a ``bool``.

    Example:
        >>> text = "## Risks\\nLate data.\\n## Overview\\nA plan.\\n"
        >>> validate_response_structure(text, ["Overview", "Risks"]).passed
        True
        >>> validate_response_structure(text, ["Overview", "Risks"], ordered=True).out_of_order
        ('Risks',)
    """
    return _report(
        text,
        required_headers,
        flexible=flexible,
        ordered=ordered,
        min_sections=min_sections,
        allow_empty=allow_empty,
    )


# --- the Check ------------------------------------------------------------------------


def _display(name: str) -> str:
    """A required name without a leading ``##`` marker, for headings in messages."""
    name = name.strip()
    marker = _ATX_MARKER.match(name)
    return name[marker.end() :] if marker else name


def _problems(report: SectionReport) -> list[Problem]:
    by_key: dict[str, list[Section]] = {}
    for section in report.sections:
        by_key.setdefault(section.normalized, []).append(section)

    def found(name: str) -> list[Section]:
        return by_key.get(_required_key(name), [])

    # Headings in the level the answer uses for its required sections, else 2.
    levels = (section.level for name in report.present for section in found(name)[:1])
    marks = "#" * next((level for level in levels if level < BOLD_LEVEL), _DEFAULT_LEVEL)
    outline = "\n".join(f"{marks} {_display(name)}" for name in report.required)
    problems: list[Problem] = []
    many = len(report.required) > 1
    for name in report.missing:
        heading = f"{marks} {_display(name)}"
        problems.append(
            Problem(
                f"the answer has no {_display(name)!r} section",
                heading,
                f"Add a section headed '{heading}' with its content"
                + (f"; the sections go in this order:\n{outline}" if many else "."),
                {"reason": "missing", "section": name},
            )
        )
    for name in report.empty:
        section = found(name)[0]
        written = f" (heading {section.title!r})" if section.title != _display(name) else ""
        problems.append(
            Problem(
                f"the {_display(name)!r} section{written} has no content",
                f"{marks} {_display(name)}, followed by its content",
                f"Write the content of the {_display(name)!r} section under its heading, "
                "before the next heading.",
                {"reason": "empty", "section": name, "line_range": list(section.line_range)},
            )
        )
    for name in report.duplicates:
        sections = found(name)
        headings = ", ".join(repr(section.title) for section in sections)
        problems.append(
            Problem(
                f"the {_display(name)!r} section appears {len(sections)} times ({headings})",
                f"one {marks} {_display(name)} section",
                f"Keep a single '{marks} {_display(name)}' section: merge the others into it.",
                {
                    "reason": "duplicate",
                    "section": name,
                    "line_ranges": [list(section.line_range) for section in sections],
                },
            )
        )
    for name in report.out_of_order:
        problems.append(
            Problem(
                f"the {_display(name)!r} section is out of order",
                outline,
                "Put the sections in this order: "
                + ", ".join(map(_display, report.required))
                + ".",
                {"reason": "out_of_order", "section": name},
            )
        )
    if report.too_few_sections:
        problems.append(
            Problem(
                f"the answer has {len(report.sections)} sections, fewer than {report.min_sections}",
                f"at least {report.min_sections} sections, each under a Markdown heading",
                "Organise the answer into sections, each under a Markdown heading.",
                {"reason": "too_few_sections", "count": len(report.sections)},
            )
        )
    return problems


def sections_check(
    required_headers: Sequence[str],
    *,
    flexible: bool = True,
    ordered: bool = False,
    on_fail: OnFail | str = "reask",
) -> Check:
    """A :class:`~citeloop.checks.check.Check` named ``"sections"``.

    Its outcome has one :class:`~citeloop.checks.check.Problem` per missing,
    empty, duplicated or (with ``ordered``) misplaced required section, each naming
    the section, giving its heading (``"## Risks"``, at the level the answer uses for
    its required sections, else 2) or the whole required outline as the expected shape,
    and saying how to fix it. It has no ``fixed`` text (content cannot be invented);
    ``value`` is the :class:`SectionReport`.

    Args:
        required_headers: Section names that must be present (see
            :func:`validate_section_completeness`).
        flexible: Accept bold pseudo-headings as sections.
        ordered: The required sections must come in the given order.
        on_fail: The failure policy (:class:`~citeloop.checks.check.OnFail`).

    Raises:
        ConfigurationError: Bad ``required_headers``, a flag that is not a ``bool``, or
            an unknown ``on_fail`` (raised here, before any model call).

    Example:
        >>> check = sections_check(["Overview", "Risks"])
        >>> outcome = check("## Overview\\nA plan.\\n")
        >>> outcome.passed, outcome.problems[0].expected
        (False, '## Risks')
    """
    names, _ = _required_keys(required_headers)
    _require_bool("flexible", flexible)
    _require_bool("ordered", ordered)

    def run(text: str) -> CheckOutcome:
        report = validate_response_structure(text, names, flexible=flexible, ordered=ordered)
        if report.passed:
            return CheckOutcome("sections", True, value=report)
        return failed("sections", _problems(report), value=report)

    return Check("sections", run, on_fail=on_fail)
