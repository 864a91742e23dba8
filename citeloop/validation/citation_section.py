"""Find and parse the citation section (``## Entities used``) of an answer.

Accepted Markdown forms of the section's label, matched case-insensitively:

- an ATX heading of any level: ``## Entities used``;
- a setext heading: ``Entities used`` underlined with ``===`` or ``---``;
- a bold label on its own line: ``**Entities used**``, ``**Entities used:**``;
- a plain label: ``Entities used:`` with the items below it, or on the same line
  (``Entities used: A, B``; the section is then that line alone).

A trailing note or count in parentheses is not part of the label
(``## Entities used (7)``, ``**Entities used (7):**``), and blockquote markers are
ignored, so a quoted section (``> ## Entities used``) is read like any other.

Labels (see :data:`DEFAULT_SECTION_LABELS`): "Entities used" and the synonyms
"Entities cited", "Cited entities" and "Citations". "Sources" and "References" are
deliberately left out: answers use them for URLs and documents, which would all be
reported as invalid citations.

Items: ``-``/``*``/``+`` bullets, ``1.``/``1)`` numbers and GFM task items (``- [x]``),
plain lines, or the cells of a GFM table's name column: the first column with a cell
that is neither a number nor blank, so a row-number column (``| # | Entity |``) is
skipped (header and delimiter rows are not items). An item may be wrapped in
backticks, bold or emphasis, be a Markdown link ``[Name](url)``, carry backslash
escapes (``build\\_index``), end in ``()`` and carry a description after ``—``, ``–``,
`` - ``, ``:`` or ``(``. An item is split at commas only when it is a plain list of
names (``A, B`` or ``A (note, more), B``); a name followed by prose
(``A which does x, y``, ``A: does x, y``) is one item.

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
  :func:`find_citation_section`) the label is always the item.

The section ends at a heading of its own level or higher (any heading, after a bold or
plain label), a thematic break or code fence, a bold or setext heading that labels no
list, or a blank line followed by text that is neither a list item nor a group label.
Of several candidate sections the last one is taken, or the last of the highest rank
when the caller ranks them (``prefer`` in :func:`find_citation_section`). Everything is
a single pass over the lines, so work is linear in the text length.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from citeloop.validation.markdown import (
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

_Items = tuple[list[str], list[str]]
"""(cited names, group labels) read from one item, line or table."""
_Label = tuple[int, int, str]


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
    """

    start: int
    end: int
    items: tuple[str, ...]
    group_labels: tuple[str, ...] = ()


def _normalize_label(label: str) -> str:
    label = label.strip(_WRAPPERS + "_")
    if label.endswith(")"):
        # A count or note ("Entities used (7)") qualifies the label; it is not part of it.
        opening = label.rfind("(")
        if opening > 0:
            label = label[:opening]
    return " ".join(label.strip(_WRAPPERS + "_").split()).lower()


def _split_label(stripped: str) -> tuple[str, str] | None:
    """Split a candidate label line into (normalized label, inline items text)."""
    for marker in BOLD_MARKERS:
        if stripped.startswith(marker):
            close = stripped.find(marker, len(marker))
            if close == -1:
                return None
            inner = stripped[len(marker) : close].rstrip()
            after = stripped[close + len(marker) :].strip()
            if inner.endswith(":"):
                return _normalize_label(inner[:-1]), after
            if not after or after.startswith(":"):
                return _normalize_label(inner), after[1:].strip()
            # A bold phrase followed by prose ("**Entities used** are ...") is not a label.
            return None
    label, _, rest = stripped.partition(":")
    if len(label) > _MAX_LABEL_LENGTH:
        # Labels are short; skip normalizing every long line of prose.
        return None
    return _normalize_label(label), rest.strip()


def _clean(name: str) -> str:
    name = unescape(name).strip(_WRAPPERS)
    if not any(char.isspace() for char in name):
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
    if rest.strip() and any(char.isspace() for char in name):
        # Prose before a separator ("I used A (mostly), and B"): keep all of it, so
        # every entity it mentions is found.
        return _clean(part)
    return name


def _plain_names(text: str) -> list[str] | None:
    """The names of a plain list of names (``A, B``; ``A (note, more), B``), else ``None``."""
    parts = split_top_level(text)
    if len(parts) > 1 and _split_name(parts[0])[1].lstrip().startswith(_OPEN_DESCRIPTIONS):
        # "A: does x, y" and "A — reads, writes" describe A; the commas are prose.
        return None
    names = [name for name in map(_name_of, parts) if name]
    if names and not any(char.isspace() for name in names for char in name):
        return names
    return None


def _labelled_list(text: str, is_entity: Callable[[str], bool] | None) -> _Items | None:
    """``Label: a, b`` read as the group label ``Label`` and its items, or ``None``.

    The text after the colon must be a plain list of names. ``Name: word`` is also the
    usual way to describe an entity (``build_index: entry``), so when the label is a
    context entity and none of the names is, it is read as that instead. Without
    ``is_entity`` the two cannot be told apart and the label stays the item.
    """
    if is_entity is None or ":" not in text:
        return None
    written = split_top_level(text, ":")[0]
    rest = text[len(written) + 1 :]
    if not rest.strip(_WRAPPERS + "_"):
        # No colon outside brackets and code, or nothing after it (`- Classes:`).
        return None
    for marker in _EMPHASIS_MARKERS:
        if written.lstrip().startswith(marker) and rest.startswith(marker):
            # `**Classes:** A, B`: the emphasis of the label closes after the colon.
            rest = rest[len(marker) :]
            break
    label = _clean(written)
    names = _plain_names(rest)
    if not label or names is None:
        return None
    if is_entity(label) and not any(map(is_entity, names)):
        return None
    return names, [label]


def _item_names(text: str, is_entity: Callable[[str], bool] | None) -> _Items:
    """(cited names, group labels) of one item, plain line or inline list.

    A plain list of names (``A, B``; ``A (note, more), B``) gives each name; a label
    and a plain list (``Classes: A, B``) gives the names and the group label (see
    :func:`_labelled_list`); a name followed by prose (``A which does x, y``;
    ``A: does x, y``) gives the name alone; other prose gives itself, and the
    validator cites the entities it mentions.
    """
    labelled = _labelled_list(text, is_entity)
    if labelled is not None:
        return labelled
    names = _plain_names(text)
    if names is None:
        name = _name_of(text)
        names = [name] if name else []
    return names, []


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


def _match_label(lines: list[str], index: int, labels: frozenset[str]) -> _Label | None:
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
    if split is None or split[0] not in labels:
        return None
    return header_lines, level, split[1]


def _is_number_or_blank(cell: str) -> bool:
    # A row number (`1`, `#1`, `1.`, `**1**`) or nothing: never an entity name.
    return all(char in _DIGITS for char in unescape(cell).strip(_WRAPPERS + "_#.()"))


def _table_names(rows: list[list[str]], is_entity: Callable[[str], bool] | None) -> _Items:
    """The items of a table's body rows: the cells of its name column.

    The name column is the first one with a cell that is neither a number nor blank,
    so a leading row-number column (``| # | Entity |``) is skipped.
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
    for row in rows:
        if column < len(row):
            row_names, row_groups = _item_names(row[column], is_entity)
            names.extend(row_names)
            groups.extend(row_groups)
    return names, groups


def _read_items(
    lines: list[str], start: int, level: int, is_entity: Callable[[str], bool] | None
) -> tuple[int, list[str], list[str]]:
    """Read the section's items from ``start``; return (end index, names, group labels).

    ``level`` is the section heading's level: a deeper ATX heading labels a group of
    items, any other heading ends the section.
    """
    names: list[str] = []
    groups: list[str] = []
    rows: list[list[str]] = []

    def add(text: str, group: bool = False) -> None:
        item_names, item_groups = _item_names(text, is_entity)
        (groups if group else names).extend(item_names)
        groups.extend(item_groups)

    def end_table() -> None:
        table_names, table_groups = _table_names(rows, is_entity)
        names.extend(table_names)
        groups.extend(table_groups)
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
    return end, names, groups


def find_citation_section(
    text: str,
    labels: tuple[str, ...] = DEFAULT_SECTION_LABELS,
    prefer: Callable[[CitationSection], int] | None = None,
    is_entity: Callable[[str], bool] | None = None,
) -> CitationSection | None:
    """Find the citation section of ``text``: the last one, or the last one preferred.

    Args:
        text: An answer; any text is accepted.
        labels: Accepted section labels, compared case-insensitively.
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
        The chosen citation section, or ``None`` when there is none.

    Example:
        >>> find_citation_section("Body.\\n\\n## Entities used\\n- `A()`\\n- B: why").items
        ('A', 'B')
    """
    return _find(text.splitlines(), _label_set(labels), prefer, is_entity)


def _label_set(labels: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_normalize_label(label) for label in labels)


def _find(
    lines: list[str],
    labels: frozenset[str],
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
            names, groups = _item_names(inline, is_entity)
        else:
            end, names, groups = _read_items(lines, index + header_lines, level, is_entity)
        sections.append(CitationSection(index, end, tuple(names), tuple(groups)))
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
        labels: Accepted section labels, compared case-insensitively.
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
