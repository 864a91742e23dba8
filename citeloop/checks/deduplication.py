"""Remove repetition from model output: repeated sections beyond what is allowed
(:func:`deduplicate_sections`) and, first, generation loops collapsed to one cycle
(:func:`clean_repetitive_output`). What counts as a repeat is defined in
:mod:`citeloop.checks.repetition`; a clean-up that would remove more than its
``content_preservation`` share of the characters returns the text unchanged.

Lines are counted after ``\\r\\n`` and ``\\r`` are read as ``\\n``; cleaned text uses ``\\n``
line ends (text that needs no cleaning is returned as it is).
"""

from __future__ import annotations

from citeloop.checks.check import require_text
from citeloop.checks.repetition_scan import (
    DEFAULT_CONTENT_PRESERVATION,
    DEFAULT_MAX_REPETITIONS,
    DEFAULT_MIN_SECTION_CHARS,
    Analysis,
    analyze,
    check_count,
    check_share,
    mode_settings,
)
from citeloop.checks.similarity import (
    CONTENT,
    HEADING,
)


def _removed_blocks(analysis: Analysis, max_repetitions: int) -> set[int]:
    """Blocks to drop: repeats beyond the limit, and headings left with nothing.

    A heading goes when its part of the text (up to the next heading of its level or
    higher) had content and all of it is removed; its subheadings go with it. A heading
    that had no content of its own to begin with stays.
    """
    removed = {match.block for match in analysis.excess(max_repetitions)}
    if not removed:
        return removed
    blocks = analysis.blocks
    # Open headings: [block index, level, has content, all content removed].
    open_headings: list[list[int | bool]] = []
    spans: list[tuple[int, int]] = []

    def close(level: int, end: int) -> None:
        while open_headings and int(open_headings[-1][1]) >= level:
            number, _, has_content, all_removed = open_headings.pop()
            if has_content and all_removed:
                spans.append((int(number), end))

    for number, block in enumerate(blocks):
        if block.kind == HEADING:
            close(block.level, number)
            open_headings.append([number, block.level, False, True])
        elif block.kind in CONTENT:
            for heading in open_headings:
                heading[2] = True
                heading[3] = bool(heading[3]) and number in removed
    close(0, len(blocks))
    for start, end in spans:
        removed.update(range(start, end))
    return removed


def _deduplicate(
    text: str,
    threshold: float,
    max_repetitions: int,
    preservation: float,
    min_chars: int,
    analysis: Analysis | None = None,
) -> str:
    """Remove repeated sections; ``analysis``, when given, is ``text``'s with the same
    ``threshold`` and ``min_chars``."""
    analysis = analysis or analyze(text, threshold, min_chars)
    removed = _removed_blocks(analysis, max_repetitions)
    if not removed:
        return text
    lines, blocks = analysis.lines, analysis.blocks
    kept: list[str] = lines[: blocks[0].start] if blocks else []
    for number, block in enumerate(blocks):
        # A block owns its lines and the blank lines after it.
        end = blocks[number + 1].start if number + 1 < len(blocks) else len(lines)
        if number not in removed:
            kept.extend(lines[block.start : end])
    while kept and not kept[-1].strip():
        kept.pop()
    result = "\n".join(kept) + ("\n" if analysis.text.endswith("\n") and kept else "")
    if len(result) < preservation * len(analysis.text):
        return text
    return result


def deduplicate_sections(
    text: str,
    max_repetitions: int = DEFAULT_MAX_REPETITIONS,
    mode: str = "balanced",
    similarity_threshold: float | None = None,
    min_content_preservation: float = DEFAULT_CONTENT_PRESERVATION,
    *,
    min_section_chars: int = DEFAULT_MIN_SECTION_CHARS,
) -> str:
    """Remove sections that repeat earlier ones, keeping the first occurrences in order.

    Args:
        text: Any string.
        max_repetitions: How many times one section may occur: the first occurrence
            and the next ``max_repetitions - 1`` near-copies are kept, later ones go.
        mode: ``"conservative"`` (threshold at least 0.9, default 0.95; at least three
            occurrences kept), ``"balanced"`` (the settings as given; threshold 0.8 by
            default) or ``"aggressive"`` (threshold at most 0.7, default 0.65; one
            occurrence kept); see :func:`~citeloop.checks.repetition_scan.mode_settings`.
        similarity_threshold: The threshold, within the mode's bounds.
        min_content_preservation: Smallest share (0..1) of the characters the result
            must keep. When removing the repeats would keep less, nothing is removed and
            ``text`` is returned as it is: so much repetition calls for a new answer,
            not a silent cut (keeping some copies instead would leave it repetitive).
        min_section_chars: Shorter sections are never removed.

    A section that repeats a repeat counts as another occurrence of the first one (a
    chain of small edits stays one group, as a model drifting while it loops writes).

    Returns:
        ``text`` without the extra sections. A heading whose sections were all removed
        goes too (with its subheadings), so no empty heading is left behind; blank
        lines between kept sections stay as they were. ``text`` itself when nothing is
        removed.

    Raises:
        ConfigurationError: ``text`` is not a string, an unknown ``mode``, or a setting
            out of range.

    Example:
        >>> para = "Every fact in the graph names its source file and line."
        >>> text = f"# A\\n{para}\\n\\n# B\\n{para}\\n\\n# C\\nEnd."
        >>> print(deduplicate_sections(text, 1, min_content_preservation=0))
        # A
        Every fact in the graph names its source file and line.
        <BLANKLINE>
        # C
        End.
    """
    require_text(text)
    threshold, allowed = mode_settings(mode, similarity_threshold, max_repetitions)
    preservation = check_share("min_content_preservation", min_content_preservation)
    min_chars = check_count("min_section_chars", min_section_chars, 1)
    return _deduplicate(text, threshold, allowed, preservation, min_chars)


def _collapse_loops(text: str, analysis: Analysis) -> str:
    if not analysis.loops:
        return text
    pieces: list[str] = []
    last = 0
    source = analysis.text
    for loop in analysis.loops:
        pieces += [source[last : loop.start], source[loop.start : loop.keep]]
        last = loop.end
    pieces.append(source[last:])
    return "".join(pieces)


def clean_repetitive_output(
    text: str,
    *,
    max_repetitions: int = DEFAULT_MAX_REPETITIONS,
    mode: str = "balanced",
    similarity_threshold: float | None = None,
    min_content_preservation: float = DEFAULT_CONTENT_PRESERVATION,
    min_section_chars: int = DEFAULT_MIN_SECTION_CHARS,
) -> str:
    """Collapse generation loops to one cycle, then remove repeated sections.

    Every loop is replaced by the first occurrence of its cycle (``"the the the"`` ->
    ``"the"``), whatever it removes; then :func:`deduplicate_sections` runs on the
    result with the given settings (``min_content_preservation`` applies to that step).

    Args:
        text: Any string.
        max_repetitions: As in :func:`deduplicate_sections`.
        mode: As in :func:`deduplicate_sections`.
        similarity_threshold: As in :func:`deduplicate_sections`.
        min_content_preservation: As in :func:`deduplicate_sections`.
        min_section_chars: As in :func:`deduplicate_sections`.

    Returns:
        The cleaned text; ``text`` itself when there is nothing to clean.

    Raises:
        ConfigurationError: ``text`` is not a string, an unknown ``mode``, or a setting
            out of range.

    Example:
        >>> clean_repetitive_output("Sure: " + "I'm sorry. " * 20 + "Let me try again.")
        "Sure: I'm sorry. Let me try again."
    """
    require_text(text)
    threshold, allowed = mode_settings(mode, similarity_threshold, max_repetitions)
    preservation = check_share("min_content_preservation", min_content_preservation)
    min_chars = check_count("min_section_chars", min_section_chars, 1)
    analysis = analyze(text, threshold, min_chars)
    return clean_text(text, analysis, threshold, allowed, preservation, min_chars)


def clean_text(
    text: str,
    analysis: Analysis,
    threshold: float,
    allowed: int,
    preservation: float,
    min_chars: int,
) -> str:
    """:func:`clean_repetitive_output` of ``text`` given its ``analysis`` (with the same
    ``threshold`` and ``min_chars``; reused by the section pass when no loop is
    collapsed)."""
    collapsed = _collapse_loops(text, analysis)
    again = analysis if collapsed is text else None
    return _deduplicate(collapsed, threshold, allowed, preservation, min_chars, again)
