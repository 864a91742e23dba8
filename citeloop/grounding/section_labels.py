"""The label of a citation section (``## Entities used``) and the lines around it:
which lines are labels, group labels or the start of a list.

Accepted Markdown forms of the section's label, matched case-insensitively:

- an ATX heading of any level: ``## Entities used``;
- a setext heading: ``Entities used`` underlined with ``===`` or ``---``;
- a bold label on its own line: ``**Entities used**``, ``**Entities used:**``;
- a plain label: ``Entities used:`` with the items below it, or on the same line
  (``Entities used: A, B``; the section is then that line alone).

A trailing note or count in parentheses is not part of the label
(``## Entities used (7)``, ``**Citations (with locations):**``), and blockquote
markers are ignored, so a quoted section (``> ## Entities used``) is read like any
other.

Labels (see :data:`DEFAULT_SECTION_LABELS`): "Entities used" and the synonyms
"Entities cited", "Cited entities" and "Citations". "Sources" and "References" are
deliberately left out: answers use them for URLs and documents, which would all be
reported as invalid citations. A label line may also *contain* a label as whole words
(``## 📚 Entities used``, ``### Key entities cited``, ``Entities used in this
answer:``, ``## 🔗 Citations``) when it is short (at most 80 characters and 6 words)
and reads as a label:

- before the label: any words or symbols (``Key``, ``📚``, ``Here are the``), except
  a word that turns it into a remark (``no``, ``not``, ``without``, ``about``, ``on``,
  ``regarding``: ``## Notes on citations`` is no label);
- inside it, a two-word label may have one word between (``Entities actually used``);
- after it: nothing, or a qualifier: ``in``/``for``/``from`` and a determiner
  (``this``, ``the``, ``my``, ``our``, ``your``, ...) with any noun (``in this
  walkthrough``), or without one a noun such as ``answer``, ``response``,
  ``explanation``, ``code`` (``Entities used in answer``); ``with ...``
  (``Citations with line numbers``); ``and``/``&`` and detail words (``Entities used
  & their roles``); a participle (``Citations used``, ``Entities cited below``); or
  one of ``above``, ``below``, ``here``. So ``## Entities used in passing`` is no label;
- a plain line (neither heading nor bold) must end its label with ``:`` or be followed
  by a list item, and must not itself be a list item.

Exact labels need none of this (``Entities used`` on a line of its own is a label as
before), and prose that merely mentions citations ("The citations below are complete
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeloop.grounding.cited_items import (
    WRAPPERS,
    first_top_level_colon,
)
from citeloop.markdown import (
    BOLD_MARKERS,
    atx_heading,
    is_bold_line,
    is_setext_underline,
    list_item,
)

DEFAULT_SECTION_LABELS: tuple[str, ...] = (
    "entities used",
    "entities cited",
    "cited entities",
    "citations",
)
"""Labels of the citation section, lower-case, single-spaced."""

_MAX_LABEL_LENGTH = 80
FENCES = ("```", "~~~")
# A bold or plain label has no heading level: every ATX heading (1-6) ends its section.
_NO_LEVEL = 6

# Label lines that contain a label (see the module docstring).
LABEL_WORD = re.compile(r"\w+")
_MAX_LABEL_WORDS = 6
_REMARK_WORDS = frozenset({"no", "not", "without", "about", "on", "regarding"})
_QUALIFIER_PREPOSITIONS = frozenset({"in", "for", "from"})
_DETERMINERS = frozenset({"this", "the", "my", "our", "your", "these", "that", "each"})
_PARTICIPLES = frozenset({"used", "cited", "referenced", "mentioned", "named"})
_QUALIFIER_NOUNS = frozenset(
    {"answer", "response", "reply", "explanation", "solution", "summary", "analysis"}
    | {"code", "context"}
)
_DETAIL_WORDS = frozenset(
    {"location", "locations", "line", "lines", "number", "numbers", "file", "files"}
    | {"path", "paths", "role", "roles", "note", "notes", "description", "descriptions"}
    | {"purpose", "purposes", "usage", "where", "why", "how", "defined", "their", "its"}
)
_PLACE_WORDS = frozenset({"above", "below", "here"})

# Lines of a location: at most 9 digits (no int() of a huge digit string).
_Label = tuple[int, int, str]


@dataclass(frozen=True, slots=True)
class Labels:
    """Accepted labels: normalized, and as words (for labels contained in a line)."""

    exact: frozenset[str]
    words: tuple[tuple[str, ...], ...]


def normalize_label(label: str) -> str:
    label = label.strip(WRAPPERS + "_")
    if label.endswith(")"):
        # A count or note ("Entities used (7)") qualifies the label; it is not part of it.
        opening = label.rfind("(")
        if opening > 0:
            label = label[:opening]
    return " ".join(label.strip(WRAPPERS + "_").split()).lower()


def _split_label(stripped: str) -> tuple[str, str, bool] | None:
    """Split a candidate label line into (normalized label, inline items text, delimited).

    ``delimited``: the label is bold or ends at a ``:``.
    """
    for marker in BOLD_MARKERS:
        if stripped.startswith(marker):
            close = stripped.find(marker, len(marker))
            if close == -1:
                return None
            inner = stripped[len(marker) : close].rstrip()
            after = stripped[close + len(marker) :].strip()
            if inner.endswith(":"):
                return normalize_label(inner[:-1]), after, True
            if not after or after.startswith(":"):
                return normalize_label(inner), after[1:].strip(), True
            # A bold phrase followed by prose ("**Entities used** are ...") is not a label.
            return None
    cut = stripped.find(":")
    if cut != -1 and "(" in stripped[:cut]:
        cut = first_top_level_colon(stripped)  # `## Citations (path:line)`
    label, colon, rest = (
        (stripped[:cut], ":", stripped[cut + 1 :]) if cut != -1 else (stripped, "", "")
    )
    if len(label) > _MAX_LABEL_LENGTH:
        # Labels are short; skip normalizing every long line of prose.
        return None
    return normalize_label(label), rest.strip(), bool(colon)


def _is_qualifier(words: list[str]) -> bool:
    """Whether the words after a label qualify it (``in this answer``, ``with lines``)."""
    if not words or words[0] == "with" or (len(words) == 1 and words[0] in _PLACE_WORDS):
        return True
    if words[0] in _PARTICIPLES:
        # `Citations used`, `Entities cited below`
        return _is_qualifier(words[1:])
    if words[0] in _QUALIFIER_PREPOSITIONS:
        rest = words[1:]
        if len(rest) == 2 and rest[0] in _DETERMINERS:
            return True  # any noun after a determiner: `in this walkthrough`
        return len(rest) == 1 and rest[0] in _QUALIFIER_NOUNS
    if words[0] == "and":
        words = words[1:]
    return bool(words) and all(word in _DETAIL_WORDS for word in words)


def _contains_label(label: str, labels: Labels) -> bool:
    """Whether a short normalized label line contains a label as whole words.

    Words before the label may be anything but a remark word; words after it must
    qualify it (see :func:`_is_qualifier`).
    """
    if len(label) > _MAX_LABEL_LENGTH:
        return False
    words = LABEL_WORD.findall(label)
    if len(words) > _MAX_LABEL_WORDS:
        return False
    for label_words in labels.words:
        size = len(label_words)
        for start in range(len(words) - size + 1):
            end = _label_end(words, start, label_words)
            if (
                end is not None
                and _REMARK_WORDS.isdisjoint(words[:end])
                and _is_qualifier(words[end:])
            ):
                return True
    return False


def _label_end(words: list[str], start: int, label_words: tuple[str, ...]) -> int | None:
    """Where ``label_words`` end when they stand at ``start`` in ``words``: as written,
    or a two-word label with one word between (``entities actually used``)."""
    size = len(label_words)
    if tuple(words[start : start + size]) == label_words:
        return start + size
    if (
        size == 2
        and words[start] == label_words[0]
        and words[start + 2 : start + 3] == [label_words[1]]
    ):
        return start + 3
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _next_line(lines: list[str], index: int) -> str | None:
    """The next non-blank line after ``index``, or ``None``."""
    # Each call skips only the blank lines right after one candidate label, and the
    # candidates are distinct lines, so all calls together stay linear.
    for following in range(index + 1, len(lines)):
        if lines[following].strip():
            return lines[following]
    return None


def is_group_label(lines: list[str], index: int, content: str, in_item: bool) -> bool:
    """Whether ``content`` (of ``lines[index]``) only labels the list items below it.

    A list item labels the items nested deeper below it (``- Classes`` or
    ``- Classes:`` above ``  - A``); a line of its own labels the list right below it
    when it ends in ``:`` (``Classes:``, ``**Classes:**``) or is all bold
    (``**Classes**``).
    """
    following = _next_line(lines, index)
    if following is None or list_item(following.strip()) is None:
        return False
    if in_item:
        return _indent(following) > _indent(lines[index])
    return content.rstrip("*_ \t").endswith(":") or is_bold_line(content)


def _followed_by_list(lines: list[str], index: int) -> bool:
    following = _next_line(lines, index)
    return following is not None and list_item(following.strip()) is not None


def match_label(lines: list[str], index: int, labels: Labels) -> _Label | None:
    """If ``lines[index]`` starts a citation section: (label lines, level, inline items)."""
    stripped = lines[index].strip()
    if not stripped:
        return None
    heading = atx_heading(stripped)
    header_lines, level = 1, _NO_LEVEL
    if heading is not None:
        level, title = heading
    else:
        title = stripped
        underline = lines[index + 1].strip() if index + 1 < len(lines) else ""
        if is_setext_underline(underline):
            header_lines, level = 2, 1 if underline[0] == "=" else 2
    split = _split_label(title)
    if split is None:
        return None
    label, inline, delimited = split
    if label in labels.exact:
        return header_lines, level, inline
    if not _contains_label(label, labels):
        return None
    if (
        heading is None
        and header_lines == 1
        and (
            # A plain line must read as a label, not as a list item or a sentence.
            list_item(title) is not None or not (delimited or _followed_by_list(lines, index))
        )
    ):
        return None
    return header_lines, level, inline
