"""Find and parse the citation section (``## Entities used``) of an answer.

Which lines are labels is described in :mod:`citeloop.grounding.section_labels`; how
items, names and locations are read in :mod:`citeloop.grounding.cited_items`.

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

import functools
from collections.abc import Callable
from dataclasses import dataclass

from citeloop.grounding.cited_items import (
    CitedLocation,
    Items,
    item_names,
    table_names,
)
from citeloop.grounding.section_labels import (
    DEFAULT_SECTION_LABELS,
    FENCES,
    LABEL_WORD,
    Labels,
    is_group_label,
    match_label,
    normalize_label,
)
from citeloop.markdown import (
    atx_heading,
    fenced,
    is_bold_line,
    is_setext_underline,
    is_table_delimiter,
    is_thematic_break,
    lines_of,
    list_item,
    table_cells,
    unquote,
)


@dataclass(frozen=True, slots=True)
class CitationSection:
    """The citation section of an answer.

    Attributes:
        start: Index of the label line (0-based, in :func:`citeloop.markdown.lines_of`).
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


def _read_items(
    lines: list[str], start: int, level: int, is_entity: Callable[[str], bool] | None
) -> tuple[int, Items]:
    """Read the section's items from ``start``; return (end index, items).

    ``level`` is the section heading's level: a deeper ATX heading labels a group of
    items, any other heading ends the section.
    """
    names: list[str] = []
    groups: list[str] = []
    locations: list[CitedLocation] = []
    rows: list[list[str]] = []

    def add(text: str, group: bool = False) -> None:
        found_names, item_groups, item_locations = item_names(text, is_entity)
        (groups if group else names).extend(found_names)
        groups.extend(item_groups)
        locations.extend(item_locations)

    def end_table() -> None:
        row_names, table_groups, table_locations = table_names(rows, is_entity)
        names.extend(row_names)
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
        elif heading is not None or is_thematic_break(stripped) or stripped.startswith(FENCES):
            break
        elif table:
            # A table ends at its first line that is not a row.
            if after_blank or "|" not in stripped:
                break
            rows.append(table_cells(stripped))
        elif content is not None:
            in_list = True
            add(content, group=is_group_label(lines, index - 1, content, in_item=True))
        elif is_group_label(lines, index - 1, stripped, in_item=False):
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
    return _find(lines_of(text), _label_set(tuple(labels)), prefer, is_entity)


@functools.lru_cache(maxsize=16)
def _label_set(labels: tuple[str, ...]) -> Labels:
    # Normalized once per set of labels (a validator reads every answer with its own).
    exact = frozenset(normalize_label(label) for label in labels)
    words = (tuple(LABEL_WORD.findall(label)) for label in sorted(exact))
    return Labels(exact, tuple(label_words for label_words in words if label_words))


def _find(
    lines: list[str],
    labels: Labels,
    prefer: Callable[[CitationSection], int] | None,
    is_entity: Callable[[str], bool] | None,
) -> CitationSection | None:
    code = fenced(lines)
    lines = [unquote(line) for line in lines]
    sections: list[CitationSection] = []
    index = 0
    while index < len(lines):
        # A label inside a fenced code block is code the answer shows, not its list.
        label = None if code[index] else match_label(lines, index, labels)
        if label is None:
            index += 1
            continue
        header_lines, level, inline = label
        if inline:
            end = index + header_lines
            names, groups, locations = item_names(inline, is_entity)
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
    lines = lines_of(text)
    section = _find(lines, _label_set(tuple(labels)), prefer, is_entity)
    if section is None:
        return text, None
    return "\n".join(lines[: section.start] + lines[section.end :]), section
