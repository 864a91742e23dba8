"""The items of a citation section: cited names, group labels and locations
(:class:`CitedLocation`), read from list items, plain lines and table rows.


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
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from citeloop.markdown import (
    BOLD_MARKERS,
    split_top_level,
    unescape,
)

_DESCRIPTION_SEPARATORS = ("—", "–", " - ", ":", "(")
# Separators whose description runs to the end of the item (a parenthesis closes).
_OPEN_DESCRIPTIONS = ("—", "–", "-", ":")
WRAPPERS = "`*\"' "
EMPHASIS_MARKERS = (*BOLD_MARKERS, "*", "_")
_DIGITS = frozenset("0123456789")
_MAX_LINE_DIGITS = 9
# Every location has a line number after `:` or `#L` (`a.py:12`, `a.py:L3`, `a.py#L3`).
_LINE_MARK = re.compile(r"[:#]L?-?[0-9]")
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


Items = tuple[list[str], list[str], list[CitedLocation]]
"""(cited names, group labels, locations) read from one item, line or table."""


def _clean(name: str) -> str:
    name = unescape(name).strip(WRAPPERS)
    if not _SPACE.search(name):
        # `build_index()` and `build_index(root)` name `build_index`; a phrase keeps
        # its parentheses, they are part of what it says.
        name = name.partition("(")[0]
    return " ".join(name.strip(WRAPPERS).rstrip(".,;:").split())


def _split_name(part: str) -> tuple[str, str]:
    """(the name as written, what follows it: link target, description or nothing)."""
    part = part.strip()
    if part.startswith("["):
        close = part.find("]", 1)
        if close > 0:
            rest = part[close + 1 :]
            if rest.startswith("("):
                # The link target is part of the link, not a description.
                target_end = rest.find(")")
                rest = rest[target_end + 1 :] if target_end != -1 else ""
            return part[1:close], rest
    elif part.startswith("`"):
        # A code span: its opening run of backticks, to a closing run as long
        # (``Item.total`` — a.py:12, as reStructuredText writes code).
        run = len(part) - len(part.lstrip("`"))
        close = _closing_run(part, run)
        if close > 0:
            return part[run:close], part[close + run :]
    cuts = (part.find(separator) for separator in _DESCRIPTION_SEPARATORS)
    cut = min((cut for cut in cuts if cut > 0), default=len(part))
    return part[:cut], part[cut:]


def _closing_run(text: str, length: int) -> int:
    """Where the first run of exactly ``length`` backticks after the opening one of
    ``text`` starts (a code span's end), or -1. Each run is looked at once: linear."""
    at = text.find("`", length)
    while at != -1:
        end = at
        while end < len(text) and text[end] == "`":
            end += 1
        if end - at == length:
            return at
        at = text.find("`", end)
    return -1


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
    token = unescape(written).strip(WRAPPERS).replace("`", "").rstrip(".,;")
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
        before, colon, line = path.rpartition(":")  # `path:12:5`, a line and a column
        if colon and _is_line_number(line) and _is_path(_posix(before)):
            path, lines = before, line
        lines = lines.removeprefix("L")
    path = _posix(path)
    if not (_is_path(path) or (not path and anchor < 0)):
        return None
    first, last = lines, lines
    for dash in _RANGE_DASHES:
        if dash in lines[1:]:
            first, _, last = lines.partition(dash)
            last = last.removeprefix("#").removeprefix("L")
            break
    if _is_line_number(first) and _is_line_number(last) and path:
        return path, int(first), int(last)
    if lines[:1].isdigit() or lines[:2].lstrip("-–").isdigit():
        # Written as a place, but no lines of a file (`a.py:0`, `a.py:-1`, `a.py:1.5`, a
        # line of 10 digits, `:12`): a location no entity holds, reported, not dropped.
        return path, 0, 0
    return None


def _posix(path: str) -> str:
    """A Windows path written with ``\\`` and a drive (``C:\\src\\a.py``) as ``/src/a.py``,
    which names the same file as ``src/a.py`` does; any other path as written."""
    if "\\" not in path:
        return path
    path = path.replace("\\", "/")
    if len(path) > 2 and path[1] == ":" and path[0].isalpha() and path[2] == "/":
        path = path[2:]
    return path


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


def _items_of(entries: list[_Entry], groups: list[str]) -> Items:
    locations = [
        CitedLocation(entry.name or None, *entry.place, entry.text)
        for entry in entries
        if entry.place is not None
    ]
    return [entry.name for entry in entries if entry.name], groups, locations


def first_top_level_colon(text: str) -> int:
    """Index of the first ``:`` outside brackets, parentheses and code spans, or -1."""
    head = split_top_level(text, ":", maxsplit=1)
    return len(head[0]) if len(head) > 1 else -1


def _labelled_list(text: str, is_entity: Callable[[str], bool] | None) -> Items | None:
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
    colon = first_top_level_colon(text)
    if colon == -1:
        return None
    written, rest = text[:colon], text[colon + 1 :]
    if not rest.strip(WRAPPERS + "_") or (not rest[:1].isspace() and rest[:1] not in "*_"):
        # No colon outside brackets and code, nothing after it (`- Classes:`), or a
        # colon inside a word (`a.py:12`, `pkg.mod:main`).
        return None
    for marker in EMPHASIS_MARKERS:
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


def item_names(text: str, is_entity: Callable[[str], bool] | None) -> Items:
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


def _is_number_or_blank(cell: str) -> bool:
    # A row number (`1`, `#1`, `1.`, `**1**`) or nothing: never an entity name.
    return all(char in _DIGITS for char in unescape(cell).strip(WRAPPERS + "_#.()"))


def table_names(rows: list[list[str]], is_entity: Callable[[str], bool] | None) -> Items:
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
        row_names, row_groups, row_locations = item_names(row[column], is_entity)
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
