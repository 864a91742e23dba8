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
plain lines, or the first column of a GFM table (header and delimiter rows are not
items). An item may be wrapped in backticks, bold or emphasis, be a Markdown link
``[Name](url)``, carry backslash escapes (``build\\_index``), end in ``()`` and carry a
description after ``—``, ``–``, `` - ``, ``:`` or ``(``. An item is split at commas only
when it is a plain list of names (``A, B`` or ``A (note, more), B``); a name followed by
prose (``A which does x, y``, ``A: does x, y``) is one item. An item or line that only
labels a group (``- Classes:`` with nested items below it, ``Functions:`` followed by
items) is a *group label*: see :attr:`CitationSection.group_labels`.

The section ends at the next heading, thematic break or code fence, or at a blank line
followed by text that is neither a list item nor a group label. Everything is a single
pass over the lines, so work is linear in the text length.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from citeloop.validation.markdown import (
    BOLD_MARKERS,
    atx_title,
    first_cell,
    is_bold_line,
    is_setext_underline,
    is_table_delimiter,
    is_thematic_break,
    list_item,
    split_top_level,
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


def _ends_section(lines: list[str], index: int) -> bool:
    stripped = lines[index].strip()
    if atx_title(stripped) is not None or is_thematic_break(stripped):
        return True
    if stripped.startswith(("```", "~~~")):
        return True
    if list_item(stripped) is not None:
        return False
    following = lines[index + 1].strip() if index + 1 < len(lines) else ""
    return is_bold_line(stripped) or is_setext_underline(following)


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


def _item_names(text: str) -> list[str]:
    """Names in one item, plain line or inline list.

    A plain list of names (``A, B``; ``A (note, more), B``) gives each name; a name
    followed by prose (``A which does x, y``; ``A: does x, y``) gives the name alone;
    other prose gives itself, and the validator cites the entities it mentions.
    """
    parts = split_top_level(text)
    if len(parts) > 1 and not _split_name(parts[0])[1].lstrip().startswith(_OPEN_DESCRIPTIONS):
        names = [name for name in map(_name_of, parts) if name]
        if names and not any(char.isspace() for name in names for char in name):
            return names
    name = _name_of(text)
    return [name] if name else []


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

    A group label ends in ``:`` (outside emphasis: ``**Classes:**``, ``Classes:``) and is
    followed by list items: nested deeper, when the label is itself a list item.
    """
    if not content.rstrip("*_ \t").endswith(":"):
        return False
    following = _next_line(lines, index)
    if following is None or list_item(following.strip()) is None:
        return False
    return not in_item or _indent(following) > _indent(lines[index])


def _match_label(lines: list[str], index: int, labels: frozenset[str]) -> tuple[int, str] | None:
    """If ``lines[index]`` starts a citation section: (label line count, inline items)."""
    stripped = lines[index].strip()
    if not stripped:
        return None
    title = atx_title(stripped)
    header_lines = 1
    if title is None:
        title = stripped
        if index + 1 < len(lines) and is_setext_underline(lines[index + 1].strip()):
            header_lines = 2
    split = _split_label(title)
    if split is None or split[0] not in labels:
        return None
    return header_lines, split[1]


def _read_items(lines: list[str], start: int) -> tuple[int, list[str], list[str]]:
    """Read the section's items from ``start``; return (end index, names, group labels)."""
    names: list[str] = []
    groups: list[str] = []
    in_list = plain = table = after_blank = False
    end = index = start
    while index < len(lines):
        stripped = lines[index].strip()
        index += 1
        if not stripped:
            after_blank = True
            continue
        if _ends_section(lines, index - 1):
            break
        content = list_item(stripped)
        if table:
            # A table ends at its first line that is not a row.
            if after_blank or "|" not in stripped:
                break
            names.extend(_item_names(first_cell(stripped)))
        elif content is not None:
            in_list = True
            group = _is_group_label(lines, index - 1, content, in_item=True)
            (groups if group else names).extend(_item_names(content))
        elif _is_group_label(lines, index - 1, stripped, in_item=False):
            groups.extend(_item_names(stripped))
        elif not in_list and not plain:
            if index < len(lines) and is_table_delimiter(lines[index].strip()):
                # A header row and its delimiter row name the columns, not entities.
                table = True
                index += 1
            else:
                # The first line under the label may be a plain (comma) list.
                plain = True
                names.extend(_item_names(stripped))
        elif after_blank:
            break
        elif plain:
            names.extend(_item_names(stripped))
        # Otherwise a lazy continuation line of the previous list item: skipped.
        after_blank = False
        end = index
    return end, names, groups


def find_citation_section(
    text: str,
    labels: tuple[str, ...] = DEFAULT_SECTION_LABELS,
    prefer: Callable[[CitationSection], bool] | None = None,
) -> CitationSection | None:
    """Find the citation section of ``text``: the last one, or the last one preferred.

    Args:
        text: An answer; any text is accepted.
        labels: Accepted section labels, compared case-insensitively.
        prefer: Optional test of a candidate section. When given, the last section
            it accepts is chosen, and the last section only when it accepts none. The
            validator prefers sections that cite a context entity, so a trailing
            label line of prose ("Citations: none beyond the list above.") does not
            replace the real list.

    Returns:
        The chosen citation section, or ``None`` when there is none.

    Example:
        >>> find_citation_section("Body.\\n\\n## Entities used\\n- `A()`\\n- B: why").items
        ('A', 'B')
    """
    return _find(text.splitlines(), _label_set(labels), prefer)


def _label_set(labels: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_normalize_label(label) for label in labels)


def _find(
    lines: list[str],
    labels: frozenset[str],
    prefer: Callable[[CitationSection], bool] | None,
) -> CitationSection | None:
    lines = [unquote(line) for line in lines]
    sections: list[CitationSection] = []
    index = 0
    while index < len(lines):
        label = _match_label(lines, index, labels)
        if label is None:
            index += 1
            continue
        header_lines, inline = label
        if inline:
            end, names, groups = index + header_lines, _item_names(inline), []
        else:
            end, names, groups = _read_items(lines, index + header_lines)
        sections.append(CitationSection(index, end, tuple(names), tuple(groups)))
        index = end
    if prefer is not None:
        # Sections never overlap, so testing each at most once keeps the work linear.
        for section in reversed(sections):
            if prefer(section):
                return section
    return sections[-1] if sections else None


def split_citation_section(
    text: str,
    labels: tuple[str, ...] = DEFAULT_SECTION_LABELS,
    prefer: Callable[[CitationSection], bool] | None = None,
) -> tuple[str, CitationSection | None]:
    """Split ``text`` into its body and its citation section.

    Args:
        text: An answer; any text is accepted.
        labels: Accepted section labels, compared case-insensitively.
        prefer: Optional test of a candidate section (see :func:`find_citation_section`).

    Returns:
        ``(body, section)``: the text without the section's lines (all of ``text``
        when there is no section), and the section or ``None``. Other candidate
        sections stay in the body.
    """
    lines = text.splitlines()
    section = _find(lines, _label_set(labels), prefer)
    if section is None:
        return text, None
    return "\n".join(lines[: section.start] + lines[section.end :]), section
