"""Find and parse the citation section (``## Entities used``) of an answer.

Accepted Markdown forms of the section's label, matched case-insensitively:

- an ATX heading of any level: ``## Entities used``;
- a setext heading: ``Entities used`` underlined with ``===`` or ``---``;
- a bold label on its own line: ``**Entities used**``, ``**Entities used:**``;
- a plain label: ``Entities used:`` with the items below it, or on the same line
  (``Entities used: A, B``; the section is then that line alone).

Labels (see :data:`DEFAULT_SECTION_LABELS`): "Entities used" and the synonyms
"Entities cited", "Cited entities" and "Citations". "Sources" and "References" are
deliberately left out: answers use them for URLs and documents, which would all be
reported as invalid citations.

Items: ``-``/``*``/``+`` bullets, ``1.``/``1)`` numbers, comma-separated lists, or plain
lines; an item may be wrapped in backticks or bold, be a Markdown link ``[Name](url)``,
end in ``()`` and carry a description after ``—``, ``–``, `` - ``, ``:`` or ``(``.

The section ends at the next heading, thematic break or code fence, or at a blank line
followed by text that is not a list item. When several sections exist, the last one is
used. Everything is a single pass over the lines, so work is linear in the text length.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SECTION_LABELS: tuple[str, ...] = (
    "entities used",
    "entities cited",
    "cited entities",
    "citations",
)
"""Labels of the citation section, lower-case, single-spaced."""

_DESCRIPTION_SEPARATORS = ("—", "–", " - ", ":", "(")
_WRAPPERS = "`*\"' "
_BOLD_MARKERS = ("**", "__")
_DIGITS = "0123456789"
_MAX_LABEL_LENGTH = 80


@dataclass(frozen=True, slots=True)
class CitationSection:
    """The citation section of an answer.

    Attributes:
        start: Index of the label line (0-based, in ``text.splitlines()``).
        end: Index one past the section's last line.
        items: The cited names in order, as written, cleaned of Markdown and
            descriptions (``"citeloop.knowledge.GraphStore"``, ``"build_index"``).
    """

    start: int
    end: int
    items: tuple[str, ...]


def _normalize_label(label: str) -> str:
    return " ".join(label.strip(_WRAPPERS + "_").split()).lower()


def _split_label(stripped: str) -> tuple[str, str] | None:
    """Split a candidate label line into (normalized label, inline items text)."""
    for marker in _BOLD_MARKERS:
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


def _atx_title(stripped: str) -> str | None:
    if not stripped.startswith("#"):
        return None
    hashes = len(stripped) - len(stripped.lstrip("#"))
    if not 1 <= hashes <= 6 or (len(stripped) > hashes and stripped[hashes] not in " \t"):
        return None
    return stripped[hashes:].strip().rstrip("#").strip()


def _is_setext_underline(stripped: str) -> bool:
    # One `-` would be an empty bullet, so `-` underlines need two.
    return (bool(stripped) and set(stripped) == {"="}) or (
        len(stripped) >= 2 and set(stripped) == {"-"}
    )


def _is_thematic_break(stripped: str) -> bool:
    marker = stripped[:1]
    if marker not in ("-", "*", "_"):
        return False
    # Only the marker and blanks, at least three markers: `---`, `* * *`.
    return not stripped.strip(marker + " \t") and stripped.count(marker) >= 3


def _is_bold_line(stripped: str) -> bool:
    return (
        any(
            stripped.startswith(marker) and stripped.rstrip(":").endswith(marker)
            for marker in _BOLD_MARKERS
        )
        and len(stripped) > 4
    )


def _list_item(stripped: str) -> str | None:
    """The content of a bullet or numbered list item, or ``None`` for other lines."""
    if stripped[:1] in ("-", "*", "+") and stripped[1:2] in ("", " ", "\t"):
        return stripped[1:].strip()
    digits = len(stripped) - len(stripped.lstrip(_DIGITS))
    marker, after = stripped[digits : digits + 1], stripped[digits + 1 : digits + 2]
    if 1 <= digits <= 9 and marker in (".", ")") and after in ("", " ", "\t"):
        return stripped[digits + 1 :].strip()
    return None


def _ends_section(lines: list[str], index: int) -> bool:
    stripped = lines[index].strip()
    if _atx_title(stripped) is not None or _is_thematic_break(stripped):
        return True
    if stripped.startswith(("```", "~~~")):
        return True
    if _list_item(stripped) is not None:
        return False
    following = lines[index + 1].strip() if index + 1 < len(lines) else ""
    return _is_bold_line(stripped) or _is_setext_underline(following)


def _clean(name: str) -> str:
    name = name.strip(_WRAPPERS)
    name = name.partition("(")[0]
    return " ".join(name.strip(_WRAPPERS).rstrip(".,;:").split())


def _cut_description(text: str) -> str:
    cuts = [text.find(separator) for separator in _DESCRIPTION_SEPARATORS]
    return text[: min((cut for cut in cuts if cut > 0), default=len(text))]


def _item_names(content: str) -> list[str]:
    """Names in one list item (usually one; a comma-separated item gives several)."""
    content = content.strip()
    for opening, closing in (("[", "]"), ("`", "`")):
        if content.startswith(opening):
            close = content.find(closing, 1)
            if close > 0:
                name = _clean(content[1:close])
                return [name] if name else []
    parts = (_clean(part) for part in _cut_description(content).split(","))
    return [part for part in parts if part]


def _line_names(line: str) -> list[str]:
    """Names in a plain line: a comma-separated list, each part maybe described."""
    return [name for part in line.split(",") for name in _item_names(part)]


def _match_label(lines: list[str], index: int, labels: frozenset[str]) -> tuple[int, str] | None:
    """If ``lines[index]`` starts a citation section: (label line count, inline items)."""
    stripped = lines[index].strip()
    if not stripped:
        return None
    title = _atx_title(stripped)
    header_lines = 1
    if title is None:
        title = stripped
        if index + 1 < len(lines) and _is_setext_underline(lines[index + 1].strip()):
            header_lines = 2
    split = _split_label(title)
    if split is None or split[0] not in labels:
        return None
    return header_lines, split[1]


def _read_items(lines: list[str], start: int) -> tuple[int, list[str]]:
    """Read list items from ``start``; return (end index, names)."""
    names: list[str] = []
    in_list = False
    plain = False
    after_blank = False
    end = start
    for index in range(start, len(lines)):
        stripped = lines[index].strip()
        if not stripped:
            after_blank = True
            continue
        if _ends_section(lines, index):
            break
        content = _list_item(stripped)
        if content is not None:
            in_list = True
            names.extend(_item_names(content))
        elif not in_list and not plain:
            # The first line under the label may be a plain (comma) list.
            plain = True
            names.extend(_line_names(stripped))
        elif after_blank:
            break
        elif plain:
            names.extend(_line_names(stripped))
        # Otherwise a lazy continuation line of the previous list item: skipped.
        after_blank = False
        end = index + 1
    return end, names


def find_citation_section(
    text: str, labels: tuple[str, ...] = DEFAULT_SECTION_LABELS
) -> CitationSection | None:
    """Find the last citation section of ``text``.

    Args:
        text: An answer; any text is accepted.
        labels: Accepted section labels, compared case-insensitively.

    Returns:
        The last citation section, or ``None`` when there is none.

    Example:
        >>> find_citation_section("Body.\\n\\n## Entities used\\n- `A()`\\n- B: why").items
        ('A', 'B')
    """
    return _find(text.splitlines(), frozenset(_normalize_label(label) for label in labels))


def _find(lines: list[str], labels: frozenset[str]) -> CitationSection | None:
    section = None
    index = 0
    while index < len(lines):
        label = _match_label(lines, index, labels)
        if label is None:
            index += 1
            continue
        header_lines, inline = label
        if inline:
            end, names = index + header_lines, _line_names(inline)
        else:
            end, names = _read_items(lines, index + header_lines)
        section = CitationSection(index, end, tuple(names))
        index = end
    return section


def split_citation_section(
    text: str, labels: tuple[str, ...] = DEFAULT_SECTION_LABELS
) -> tuple[str, CitationSection | None]:
    """Split ``text`` into its body and its last citation section.

    Args:
        text: An answer; any text is accepted.
        labels: Accepted section labels, compared case-insensitively.

    Returns:
        ``(body, section)``: the text without the section's lines (all of ``text``
        when there is no section), and the section or ``None``.
    """
    lines = text.splitlines()
    section = _find(lines, frozenset(_normalize_label(label) for label in labels))
    if section is None:
        return text, None
    return "\n".join(lines[: section.start] + lines[section.end :]), section
