"""Find and parse the citation section (``## Entities used``) of an answer.

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
and I checked them against the code.") is none.

Items: ``-``/``*``/``+`` bullets, ``1.``/``1)`` numbers and GFM task items (``- [x]``),
plain lines, or the cells of a GFM table's name column: the first column with a cell
that is neither a number nor blank, so a row-number column (``| # | Entity |``) is
skipped (header and delimiter rows are not items). An item may be wrapped in
backticks, bold or emphasis, be a Markdown link ``[Name](url)``, carry backslash
escapes (``build\\_index``), end in ``()`` and carry a description after ``—``, ``–``,
`` - ``, ``:`` or ``(``. An item is split at commas and at ``and`` only when it is a
plain list of names: ``A, B``, ``A (note, more), B``, ``A, B and C``, `` `A`, `B`, and
`C`. `` (Oxford comma, trailing period), `` `A` (the builder) and `B` — the graph``,
``A (builder), B (runtime), and C (checkpointer)``: every part a name, optionally with
a description in parentheses, or after ``—``/``–``/``-``/``:`` on the last part. A name
followed by prose (``A which does x, y``, ``A which calls B and C``, ``A: does x, y``,
``A — reads and writes``) is one item.

Locations (see :class:`CitedLocation` and :attr:`CitationSection.locations`): an item
part may give where its name is, ``path:line`` or ``path:start-end``:

- ``Name (path:12)``, `` `Name` (`path:12-40`) ``, ``Name (path:12) — description``;
- `` `Name` — path:12 ``, ``Name - path:12``, ``Name: path:12``, ``Name at path:12``;
- ``Name — description (path:12)`` (a location in the last parentheses);
- a bare location, ``path:12-40`` or `` `path:12` ``: a location of no name, never an
  item;
- in a table, a cell other than the name cell that is a location (``| `A` |
  `a.py:3` |``) locates the row's name.

``path`` has a ``/`` or ends in a suffix (``.py``, any ``.\\w+``), with no ``:``, ``#``
or blank, and is not a URL (``https://x.org/a.py:12`` is no location). Lines are
positive integers (at most 9 digits): ``:12``, ``:12-40``, ``:12–40`` (en dash),
``:L12``, ``:L12-L40``, ``#L12``, ``#L12-L40``. A range whose end is before its start
is kept as written (the validator reports it). Link targets (``[A](a.py#L3)``) are not
read as locations.

Group labels (see :attr:`CitationSection.group_labels`) name a group of items:

- a list item with items nested deeper below it (``- Classes`` or ``- **Classes:**``
  above ``  - A``);
- a line of its own ending in ``:`` or all bold, followed by list items
  (``Functions:``, ``**Classes:**``, ``**Classes**``);
- a subheading deeper than the section's heading (``### Classes`` under
  ``## Entities used``);
- the label of ``Label: a, b`` when what follows the colon is a plain list of names
  (``- Classes: A, B``). ``build_index: entry`` has the same shape, so when the label
  is a context entity and none of the names is, the label is the item and the rest its
  description. Telling the two apart needs the context: without ``is_entity`` (see
  :func:`find_citation_section`) the label is always the item. ``Name: path:12`` is
  always the item ``Name`` and its location.

The section ends at a heading of its own level or higher (any heading, after a bold or
plain label), a thematic break or code fence, a bold or setext heading that labels no
list, or a blank line followed by text that is neither a list item nor a group label.
Of several candidate sections the last one is taken, or the last of the highest rank
when the caller ranks them (``prefer`` in :func:`find_citation_section`). Everything is
a single pass over the lines with string methods and regexes without nested
quantifiers, so work is linear in the text length.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from citeloop.markdown import (
    BOLD_MARKERS,
    atx_heading,
    is_bold_line,
    is_setext_underline,
    is_table_delimiter,
    is_thematic_break,
    list_item,
    split_top_level,
    table_cells,
    unescape,
    unquote,
)

DEFAULT_SECTION_LABELS: tuple[str, ...] = (
    "entities used",
    "entities cited",
    "cited entities",
    "citations",
)
"""Labels of the citation section, lower-case, single-spaced."""

_DESCRIPTION_SEPARATORS = ("—", "–", " - ", ":", "(")
# Separators whose description runs to the end of the item (a parenthesis closes).
_OPEN_DESCRIPTIONS = ("—", "–", "-", ":")
_WRAPPERS = "`*\"' "
_MAX_LABEL_LENGTH = 80
_EMPHASIS_MARKERS = (*BOLD_MARKERS, "*", "_")
_FENCES = ("```", "~~~")
_DIGITS = frozenset("0123456789")
# A bold or plain label has no heading level: every ATX heading (1-6) ends its section.
_NO_LEVEL = 6

# Label lines that contain a label (see the module docstring).
_WORD = re.compile(r"\w+")
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
_MAX_LINE_DIGITS = 9
# Every location has a line number after `:` or `#L` (`a.py:12`, `a.py:L3`, `a.py#L3`).
_LINE_MARK = re.compile(r"[:#]L?[0-9]")
# A file suffix, then lines written out: `a.py, L12`, `a.py line 12`, `a.py lines 3-9`.
_SPELLED_LINES = re.compile(r"(\.\w+),?[ \t]+(?:lines?[ \t]+|L)(?=[0-9])")
# Whitespace (the same characters as `str.isspace`), found at C speed.
_SPACE = re.compile(r"\s")
# An item that is one name and nothing else (`A`, `` `pkg.A` ``, `**f()**`): most items
# are, and reading them needs none of the list, label or location rules.
_BARE_NAME = re.compile(r"[`*\"']*([^\W\d]\w*(?:\.[^\W\d]\w*)*)(?:\(\))?[`*\"']*")
_RANGE_DASHES = ("-", "–")

_Place = tuple[str, int, int]
"""(path, start, end) of a location."""


@dataclass(frozen=True, slots=True)
class CitedLocation:
    """A location a citation item gives.

    Attributes:
        name: The cited name it belongs to (as in :attr:`CitationSection.items` or
            :attr:`CitationSection.group_labels`), or ``None`` for a bare location item.
        path: The path as written, without backticks (``"citeloop/index.py"``).
        start: First line, 1-based.
        end: Last line, inclusive (``end == start`` for one line). Kept as written,
            so it may be before ``start``.
        text: The item as written (``"`build_index` (citeloop/index.py:40-80)"``),
            for reports.
    """

    name: str | None
    path: str
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class _Entry:
    """One part of an item: its name ("" for a bare location), location and text."""

    name: str
    place: _Place | None
    text: str


_Items = tuple[list[str], list[str], list[CitedLocation]]
"""(cited names, group labels, locations) read from one item, line or table."""
_Label = tuple[int, int, str]


@dataclass(frozen=True, slots=True)
class _Labels:
    """Accepted labels: normalized, and as words (for labels contained in a line)."""

    exact: frozenset[str]
    words: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class CitationSection:
    """The citation section of an answer.

    Attributes:
        start: Index of the label line (0-based, in ``text.splitlines()``).
        end: Index one past the section's last line.
        items: The cited names in order, as written, cleaned of Markdown and
            descriptions (``"citeloop.knowledge.GraphStore"``, ``"build_index"``).
            Underscore emphasis is kept (``"__GraphStore__"``): it cannot be told apart
            from a Python name such as ``__init__`` without the context's names.
        group_labels: Labels of item groups (``"Classes"`` for ``- Classes:`` with
            nested items), cleaned like items. A group label cites an entity only when
            it names one (``- GraphStore:`` above its methods); otherwise it is not a
            citation at all, so never an invalid one.
        locations: The locations items give, in order (``Name (path:12)`` gives
            ``CitedLocation("Name", "path", 12, 12, "Name (path:12)")``; a bare
            ``path:3-9`` item gives one with ``name=None`` and no item).
    """

    start: int
    end: int
    items: tuple[str, ...]
    group_labels: tuple[str, ...] = ()
    locations: tuple[CitedLocation, ...] = ()


def _normalize_label(label: str) -> str:
    label = label.strip(_WRAPPERS + "_")
    if label.endswith(")"):
        # A count or note ("Entities used (7)") qualifies the label; it is not part of it.
        opening = label.rfind("(")
        if opening > 0:
            label = label[:opening]
    return " ".join(label.strip(_WRAPPERS + "_").split()).lower()


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
                return _normalize_label(inner[:-1]), after, True
            if not after or after.startswith(":"):
                return _normalize_label(inner), after[1:].strip(), True
            # A bold phrase followed by prose ("**Entities used** are ...") is not a label.
            return None
    cut = stripped.find(":")
    if cut != -1 and "(" in stripped[:cut]:
        cut = _first_top_level_colon(stripped)  # `## Citations (path:line)`
    label, colon, rest = (
        (stripped[:cut], ":", stripped[cut + 1 :]) if cut != -1 else (stripped, "", "")
    )
    if len(label) > _MAX_LABEL_LENGTH:
        # Labels are short; skip normalizing every long line of prose.
        return None
    return _normalize_label(label), rest.strip(), bool(colon)


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


def _contains_label(label: str, labels: _Labels) -> bool:
    """Whether a short normalized label line contains a label as whole words.

    Words before the label may be anything but a remark word; words after it must
    qualify it (see :func:`_is_qualifier`).
    """
    if len(label) > _MAX_LABEL_LENGTH:
        return False
    words = _WORD.findall(label)
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


def _clean(name: str) -> str:
    name = unescape(name).strip(_WRAPPERS)
    if not _SPACE.search(name):
        # `build_index()` and `build_index(root)` name `build_index`; a phrase keeps
        # its parentheses, they are part of what it says.
        name = name.partition("(")[0]
    return " ".join(name.strip(_WRAPPERS).rstrip(".,;:").split())


def _split_name(part: str) -> tuple[str, str]:
    """(the name as written, what follows it: link target, description or nothing)."""
    part = part.strip()
    for opening, closing in (("[", "]"), ("`", "`")):
        close = part.find(closing, 1) if part.startswith(opening) else -1
        if close > 0:
            rest = part[close + 1 :]
            if opening == "[" and rest.startswith("("):
                # The link target is part of the link, not a description.
                target_end = rest.find(")")
                rest = rest[target_end + 1 :] if target_end != -1 else ""
            return part[1:close], rest
    cuts = (part.find(separator) for separator in _DESCRIPTION_SEPARATORS)
    cut = min((cut for cut in cuts if cut > 0), default=len(part))
    return part[:cut], part[cut:]


def _name_of(part: str) -> str:
    """The cited name of one item part, or the whole part when it is prose."""
    written, rest = _split_name(part)
    name = _clean(written)
    if rest.strip() and _SPACE.search(name):
        # Prose before a separator ("I used A (mostly), and B"): keep all of it, so
        # every entity it mentions is found.
        return _clean(part)
    return name


def _is_line_number(text: str) -> bool:
    return 0 < len(text) <= _MAX_LINE_DIGITS and all(char in _DIGITS for char in text)


def _is_path(path: str) -> bool:
    """A file path: has a ``/`` or a suffix (``a.py``); no ``:``, ``#`` or URL scheme."""
    if not path.strip("./") or ":" in path or "#" in path:
        return False
    if "/" in path:
        return True
    stem, dot, suffix = path.rpartition(".")
    return bool(dot and stem and suffix) and all(c.isalnum() or c == "_" for c in suffix)


def _location(written: str) -> _Place | None:
    """``(path, start, end)`` when ``written`` is only a location, else ``None``.

    Forms: ``path:12``, ``path:12-40``, ``path:12–40``, ``path:L12``, ``path:L12-L40``,
    ``path#L12``, ``path#L12-L40``, in backticks or not, or as a Markdown link's text
    (``[path:12](url)``). A URL is no location.
    """
    token = unescape(written).strip(_WRAPPERS).replace("`", "").rstrip(".,;")
    if token.startswith("[") and (close := token.find("](")) > 0:
        token = token[1:close]
    if not token or "//" in token or _SPACE.search(token):
        # `//` is a URL (`https://x.org/a.py:12`, or its tail after `https:`).
        return None
    anchor = token.rfind("#L")
    if anchor > 0:
        path, lines = token[:anchor], token[anchor + 2 :]
    else:
        path, colon, lines = token.rpartition(":")
        if not colon:
            return None
        lines = lines.removeprefix("L")
    first, last = lines, lines
    for dash in _RANGE_DASHES:
        if dash in lines:
            first, _, last = lines.partition(dash)
            last = last.removeprefix("#").removeprefix("L")
            break
    if not (_is_line_number(first) and _is_line_number(last) and _is_path(path)):
        return None
    start, end = int(first), int(last)
    if start < 1 or end < 1:
        return None
    return path, start, end


def _locate(part: str) -> tuple[str, _Place | None]:
    """``part`` without its location, and the location (``None`` when it gives none).

    A bare location gives ``""``; ``Name (path:1)``, ``Name (path:1) — note``,
    ``Name — path:1``, ``Name: path:1``, ``Name at path:1`` and ``Name — note (path:1)``
    give the text around the location.
    """
    text = part.strip()
    if not _LINE_MARK.search(text):
        if "L" not in text and "line" not in text:
            return text, None
        # `path, L12`, `path L12`, `path line 12`, `path lines 12-40` are `path:12...`.
        text = _SPELLED_LINES.sub(r"\1:", text)
        if not _LINE_MARK.search(text):
            return part.strip(), None
    place = _location(text)
    if place is not None:
        return "", place
    before, at, after = text.rpartition(" at ")
    if at and before.strip():
        place = _location(after)
        if place is not None:
            return before, place
    written_rest = _split_name(text)[1]
    prefix = text[: len(text) - len(written_rest)]
    rest = written_rest.strip()
    if rest.startswith("("):
        close = rest.find(")")
        place = _location(rest[1:close]) if close > 0 else None
        if place is not None:
            return f"{prefix} {rest[close + 1 :]}", place
    elif rest.startswith(_OPEN_DESCRIPTIONS):
        place = _location(rest[1:])
        if place is not None:
            return prefix, place
    if text.endswith(")"):
        opening = text.rfind("(")
        # `[Name](a.py#L3)`: a link target is not a location.
        if opening > 0 and text[opening - 1] != "]":
            place = _location(text[opening + 1 : -1])
            if place is not None:
                return text[:opening], place
    return text, None


def _entry(part: str) -> tuple[_Entry, str]:
    """One item part read as an entry, and its text without the location."""
    text, place = _locate(part)
    return _Entry(_name_of(text) if text else "", place, part.strip()), text


def _opens_description(text: str) -> bool:
    """Whether a name in ``text`` is followed by a description running to its end."""
    return _split_name(text)[1].lstrip().startswith(_OPEN_DESCRIPTIONS)


def _split_and(text: str) -> list[str]:
    """Split ``text`` at `` and `` outside brackets, parentheses and code spans."""
    return split_top_level(text, "and") if "and" in text else [text]


def _is_name_entry(entry: _Entry) -> bool:
    if entry.name:
        return not _SPACE.search(entry.name)
    return entry.place is not None


def _and_entries(part: str) -> list[tuple[_Entry, str]]:
    """The entries of one comma part: split at ``and`` when every piece is a name.

    Only the last piece may carry a description running to its end (``B — the
    graph``): ``A — reads and writes`` is one entry, and so is ``A which calls B and C``.
    """
    pieces = _split_and(part)
    if len(pieces) > 1:
        entries: list[tuple[_Entry, str]] = []
        for index, piece in enumerate(pieces):
            entry, text = _entry(piece)
            if not _is_name_entry(entry) or (index < len(pieces) - 1 and _opens_description(text)):
                break
            entries.append((entry, text))
        else:
            return entries
    return [_entry(part)]


def _plain_names(text: str) -> list[_Entry] | None:
    """The entries of a plain list of names, else ``None``.

    ``A, B``; ``A (note, more), B``; ``A, B, and C``; ``A (a.py:3) and B``; a bare
    location is an entry without a name.
    """
    parts = split_top_level(text)
    entries: list[tuple[_Entry, str]] = []
    for index, part in enumerate(parts):
        if index:
            stripped = part.lstrip()
            if stripped.startswith(("and ", "and\t")):
                # The Oxford comma: `A, B, and C`.
                part = stripped[4:]
        entries.extend(_and_entries(part))
        if not index and len(parts) > 1 and _opens_description(entries[0][1]):
            # "A: does x, y" and "A — reads, writes" describe A; the commas are prose.
            return None
    kept = [entry for entry, _ in entries if entry.name or entry.place is not None]
    if kept and all(_is_name_entry(entry) for entry in kept):
        return kept
    return None


def _items_of(entries: list[_Entry], groups: list[str]) -> _Items:
    locations = [
        CitedLocation(entry.name or None, *entry.place, entry.text)
        for entry in entries
        if entry.place is not None
    ]
    return [entry.name for entry in entries if entry.name], groups, locations


def _first_top_level_colon(text: str) -> int:
    """Index of the first ``:`` outside brackets, parentheses and code spans, or -1."""
    head = split_top_level(text, ":", maxsplit=1)
    return len(head[0]) if len(head) > 1 else -1


def _labelled_list(text: str, is_entity: Callable[[str], bool] | None) -> _Items | None:
    """``Label: a, b`` read as the group label ``Label`` and its items, or ``None``.

    The text after the colon must be a plain list of names. ``Name: word`` is also the
    usual way to describe an entity (``build_index: entry``), so when the label is a
    context entity and none of the names is, it is read as that instead. Without
    ``is_entity`` the two cannot be told apart and the label stays the item. A bare
    location after the colon (``Name: a.py:3``) is the location of ``Name``.
    """
    if is_entity is None:
        return None
    # Only the first top-level colon matters: finding it ends the scan (`a: b: c: ...`).
    colon = _first_top_level_colon(text)
    if colon == -1:
        return None
    written, rest = text[:colon], text[colon + 1 :]
    if not rest.strip(_WRAPPERS + "_") or (not rest[:1].isspace() and rest[:1] not in "*_"):
        # No colon outside brackets and code, nothing after it (`- Classes:`), or a
        # colon inside a word (`a.py:12`, `pkg.mod:main`).
        return None
    for marker in _EMPHASIS_MARKERS:
        if written.lstrip().startswith(marker) and rest.startswith(marker):
            # `**Classes:** A, B`: the emphasis of the label closes after the colon.
            rest = rest[len(marker) :]
            break
    label = _clean(written)
    entries = _plain_names(rest)
    if not label or entries is None:
        return None
    names = [entry.name for entry in entries if entry.name]
    if not names or (is_entity(label) and not any(map(is_entity, names))):
        return None
    return _items_of(entries, [label])


def _item_names(text: str, is_entity: Callable[[str], bool] | None) -> _Items:
    """(cited names, group labels, locations) of one item, plain line or inline list.

    A plain list of names (``A, B``; ``A (note, more), B``; ``A, B and C``) gives each
    name; a label and a plain list (``Classes: A, B``) gives the names and the group
    label (see :func:`_labelled_list`); a name followed by prose (``A which does x, y``;
    ``A: does x, y``) gives the name alone; other prose gives itself, and the
    validator cites the entities it mentions. Each part may give a location (see
    :func:`_locate`); a bare location gives no name.
    """
    bare = _BARE_NAME.fullmatch(text.strip())
    if bare is not None:
        return [bare.group(1)], [], []
    labelled = _labelled_list(text, is_entity)
    if labelled is not None:
        return labelled
    entries = _plain_names(text)
    if entries is None:
        entry = _entry(text)[0]
        entries = [entry] if entry.name or entry.place is not None else []
    return _items_of(entries, [])


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


def _is_group_label(lines: list[str], index: int, content: str, in_item: bool) -> bool:
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


def _match_label(lines: list[str], index: int, labels: _Labels) -> _Label | None:
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


def _is_number_or_blank(cell: str) -> bool:
    # A row number (`1`, `#1`, `1.`, `**1**`) or nothing: never an entity name.
    return all(char in _DIGITS for char in unescape(cell).strip(_WRAPPERS + "_#.()"))


def _table_names(rows: list[list[str]], is_entity: Callable[[str], bool] | None) -> _Items:
    """The items of a table's body rows: the cells of its name column.

    The name column is the first one with a cell that is neither a number nor blank,
    so a leading row-number column (``| # | Entity |``) is skipped. Another cell of a
    row that is a location (``| `A` | `a.py:3` |``) locates the row's name.
    """
    # The first such column is the smallest first non-number index over the rows:
    # each cell is looked at once at most, however ragged the rows are.
    firsts = (
        next((column for column, cell in enumerate(row) if not _is_number_or_blank(cell)), None)
        for row in rows
    )
    column = min((first for first in firsts if first is not None), default=0)
    names: list[str] = []
    groups: list[str] = []
    locations: list[CitedLocation] = []
    for row in rows:
        if column >= len(row):
            continue
        row_names, row_groups, row_locations = _item_names(row[column], is_entity)
        names.extend(row_names)
        groups.extend(row_groups)
        locations.extend(row_locations)
        name = row_names[0] if len(row_names) == 1 else None
        for other, cell in enumerate(row):
            place = _location(cell) if other != column else None
            if place is not None:
                text = f"{row[column]} | {cell}" if other > column else f"{cell} | {row[column]}"
                locations.append(CitedLocation(name, *place, text))
    return names, groups, locations


def _read_items(
    lines: list[str], start: int, level: int, is_entity: Callable[[str], bool] | None
) -> tuple[int, _Items]:
    """Read the section's items from ``start``; return (end index, items).

    ``level`` is the section heading's level: a deeper ATX heading labels a group of
    items, any other heading ends the section.
    """
    names: list[str] = []
    groups: list[str] = []
    locations: list[CitedLocation] = []
    rows: list[list[str]] = []

    def add(text: str, group: bool = False) -> None:
        item_names, item_groups, item_locations = _item_names(text, is_entity)
        (groups if group else names).extend(item_names)
        groups.extend(item_groups)
        locations.extend(item_locations)

    def end_table() -> None:
        table_names, table_groups, table_locations = _table_names(rows, is_entity)
        names.extend(table_names)
        groups.extend(table_groups)
        locations.extend(table_locations)
        rows.clear()

    in_list = plain = table = after_blank = False
    end = index = start
    while index < len(lines):
        stripped = lines[index].strip()
        index += 1
        if not stripped:
            after_blank = True
            continue
        heading = atx_heading(stripped)
        content = list_item(stripped)
        if heading is not None and heading[0] > level:
            # `### Classes` under `## Entities used`: a group, and a fresh start for
            # the list, plain lines or table below it.
            end_table()
            add(heading[1], group=True)
            in_list = plain = table = False
        elif heading is not None or is_thematic_break(stripped) or stripped.startswith(_FENCES):
            break
        elif table:
            # A table ends at its first line that is not a row.
            if after_blank or "|" not in stripped:
                break
            rows.append(table_cells(stripped))
        elif content is not None:
            in_list = True
            add(content, group=_is_group_label(lines, index - 1, content, in_item=True))
        elif _is_group_label(lines, index - 1, stripped, in_item=False):
            add(stripped, group=True)
        elif is_bold_line(stripped) or (
            index < len(lines) and is_setext_underline(lines[index].strip())
        ):
            # A bold pseudo-heading or a setext heading starts another part of the answer.
            break
        elif not in_list and not plain:
            if index < len(lines) and is_table_delimiter(lines[index].strip()):
                # A header row and its delimiter row name the columns, not entities.
                table = True
                index += 1
            else:
                # The first line under the label may be a plain (comma) list.
                plain = True
                add(stripped)
        elif after_blank:
            break
        elif plain:
            add(stripped)
        # Otherwise a lazy continuation line of the previous list item: skipped.
        after_blank = False
        end = index
    end_table()
    return end, (names, groups, locations)


def find_citation_section(
    text: str,
    labels: tuple[str, ...] = DEFAULT_SECTION_LABELS,
    prefer: Callable[[CitationSection], int] | None = None,
    is_entity: Callable[[str], bool] | None = None,
) -> CitationSection | None:
    """Find the citation section of ``text``: the last one, or the last one preferred.

    Args:
        text: An answer; any text is accepted.
        labels: Accepted section labels, compared case-insensitively. A short label
            line containing one as whole words is accepted too (``## 📚 Entities
            used``, ``Entities used in this answer:``; see the module docstring).
        prefer: Optional rank of a candidate section (a ``bool`` or an ``int``). When
            given, the last section of the highest rank is chosen. The validator
            ranks sections that cite a context entity by name above those that only
            mention one in prose, and both above those that cite none, so a trailing
            label line of prose ("Citations: StateGraph is the key one.") does not
            replace the real list.
        is_entity: Optional test of a cleaned name: whether it is a context entity.
            It tells a group label from a described entity in ``Label: a, b`` items
            (see the module docstring); without it the label is the item.

    Returns:
        The chosen citation section, or ``None`` when there is none. Its ``items`` are
        the cited names, its ``locations`` the :class:`CitedLocation` items give.

    Example:
        >>> find_citation_section("Body.\\n\\n## Entities used\\n- `A()`\\n- B: why").items
        ('A', 'B')
        >>> find_citation_section("Entities used: `A` (a.py:3-9) and B.").locations
        (CitedLocation(name='A', path='a.py', start=3, end=9, text='`A` (a.py:3-9)'),)
    """
    return _find(text.splitlines(), _label_set(labels), prefer, is_entity)


def _label_set(labels: tuple[str, ...]) -> _Labels:
    exact = frozenset(_normalize_label(label) for label in labels)
    words = (tuple(_WORD.findall(label)) for label in sorted(exact))
    return _Labels(exact, tuple(label_words for label_words in words if label_words))


def _find(
    lines: list[str],
    labels: _Labels,
    prefer: Callable[[CitationSection], int] | None,
    is_entity: Callable[[str], bool] | None,
) -> CitationSection | None:
    lines = [unquote(line) for line in lines]
    sections: list[CitationSection] = []
    index = 0
    while index < len(lines):
        label = _match_label(lines, index, labels)
        if label is None:
            index += 1
            continue
        header_lines, level, inline = label
        if inline:
            end = index + header_lines
            names, groups, locations = _item_names(inline, is_entity)
        else:
            end, (names, groups, locations) = _read_items(
                lines, index + header_lines, level, is_entity
            )
        sections.append(CitationSection(index, end, tuple(names), tuple(groups), tuple(locations)))
        index = end
    if not sections or prefer is None:
        return sections[-1] if sections else None
    # `max` keeps the first of equal ranks, so scanning backwards picks the last one;
    # sections never overlap, so ranking each once keeps the work linear.
    return max(reversed(sections), key=prefer)


def split_citation_section(
    text: str,
    labels: tuple[str, ...] = DEFAULT_SECTION_LABELS,
    prefer: Callable[[CitationSection], int] | None = None,
    is_entity: Callable[[str], bool] | None = None,
) -> tuple[str, CitationSection | None]:
    """Split ``text`` into its body and its citation section.

    Args:
        text: An answer; any text is accepted.
        labels: Accepted section labels (see :func:`find_citation_section`).
        prefer: Optional rank of a candidate section (see :func:`find_citation_section`).
        is_entity: Optional test of a name (see :func:`find_citation_section`).

    Returns:
        ``(body, section)``: the text without the section's lines (all of ``text``
        when there is no section), and the section or ``None``. Other candidate
        sections stay in the body.
    """
    lines = text.splitlines()
    section = _find(lines, _label_set(labels), prefer, is_entity)
    if section is None:
        return text, None
    return "\n".join(lines[: section.start] + lines[section.end :]), section
