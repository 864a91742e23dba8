"""Repetition in model output: repeated sections and degenerate generation loops.

Two kinds of repetition are found, both in time linear in the text length:

**Repeated sections.** The text is split into sections: Markdown headings (ATX ``#``
lines and setext underlines, never inside fenced code) and thematic breaks separate
blocks, and blank lines outside fenced code separate blocks further, so a section is a
paragraph, a list without blank lines, a table or a code block. Headings themselves are
structure and never compared. A section shorter than ``min_section_chars`` characters
repeats an earlier one only as an identical copy (the same words, case-folded): two
``## Introduction`` sections reading ``Same content.`` repeat, two short paragraphs that
merely resemble each other do not. A longer section repeats an earlier one when their
similarity is at least the threshold. Prose sections are compared with the combined
similarity below; code blocks, tables and indented blocks (where near-identical copies
are normal, e.g. a before/after pair of snippets) and sections without any word count
only when they are identical up to whitespace. A chorus written out again as a
paragraph of its own is a repeated section too (allow it with ``max_repetitions``);
refrain lines inside a stanza are not (see the loops below).

Similarity of two sections and the candidate index behind it are described in
:mod:`citeloop.checks.similarity`; generation loops (one word, a few words, a sentence or
a few characters repeated many times in a row) in :mod:`citeloop.checks.loops`.

Lines are counted after ``\\r\\n`` and ``\\r`` are read as ``\\n``; cleaned text uses
``\\n`` line ends (text that needs no cleaning is returned as it is).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from citeloop.checks.check import Check, CheckOutcome, OnFail, Problem, failed, require_text
from citeloop.checks.deduplication import clean_text
from citeloop.checks.loops import Loop
from citeloop.checks.repetition_scan import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_CONTENT_PRESERVATION,
    DEFAULT_MAX_ALLOWED_RATIO,
    DEFAULT_MIN_SECTION_CHARS,
    DEFAULT_SIMILARITY_THRESHOLD,
    Analysis,
    analyze,
    check_count,
    check_share,
    check_threshold,
    chunks,
)
from citeloop.checks.similarity import SectionMatch, match_sections

_MAX_PROBLEMS = 5


class RepetitionResult(NamedTuple):
    """What :func:`detect_repetition` found (a tuple: ``found, examples, ratio = ...``).

    Attributes:
        found: Whether any section repeats an earlier one or any generation loop occurs.
        examples: Up to ``max_examples`` readable descriptions: generation loops first
            (``"generation loop: 'the' repeated 40 times in a row (lines 3-3)"``), then
            repeated sections in text order (``"repeated section: lines 9-11 repeat
            lines 1-3 (similarity 0.93): 'The store keeps...'"``).
        unique_ratio: Share of the compared sections that repeat no earlier section,
            0..1; 1.0 when no section is long enough to compare (or the text is empty).
    """

    found: bool
    examples: list[str]
    unique_ratio: float


# --- public API -------------------------------------------------------------------------


def detect_repetition(
    text: str,
    *,
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
    min_section_chars: int = DEFAULT_MIN_SECTION_CHARS,
    max_examples: int = 5,
) -> RepetitionResult:
    """Find repeated sections and generation loops in ``text`` (a signal, never raises).

    Args:
        text: Model output; any string (empty, binary-ish, huge) is accepted.
        similarity_threshold: Combined similarity (0..1] from which a section repeats
            an earlier one (see the module docstring for the formula).
        min_section_chars: Sections shorter than this many characters are not compared.
        max_examples: At most this many descriptions in ``examples``.

    Returns:
        A :class:`RepetitionResult` ``(found, examples, unique_ratio)``.

    Raises:
        ConfigurationError: ``text`` is not a string, or a setting is out of range.

    Example:
        >>> para = "The indexer walks the source tree and records every definition."
        >>> found, examples, ratio = detect_repetition(f"{para}\\n\\n{para}\\n")
        >>> found, ratio
        (True, 0.5)
        >>> examples[0][:46]
        'repeated section: lines 3-3 repeat lines 1-1 ('
        >>> detect_repetition("no " * 30).found
        True
    """
    require_text(text)
    threshold = check_threshold("similarity_threshold", similarity_threshold)
    min_chars = check_count("min_section_chars", min_section_chars, 1)
    limit = check_count("max_examples", max_examples, 0)
    analysis = analyze(text, threshold, min_chars)
    loops = analysis.loops[:limit]
    examples = [f"generation loop: {analysis.describe_loop(loop)}" for loop in loops]
    examples += [
        f"repeated section: {analysis.describe_match(match)}"
        for match in analysis.matches[: limit - len(loops)]
    ]
    found = bool(analysis.loops or analysis.matches)
    return RepetitionResult(found, examples, analysis.unique_ratio())


def calculate_unique_content_ratio(
    text: str,
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    *,
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
    min_section_chars: int = DEFAULT_MIN_SECTION_CHARS,
) -> float:
    """Share of the chunks of ``text`` that repeat no earlier chunk, 0..1 (lower is more
    repetitive).

    The chunks are the sections of :func:`detect_repetition`, with every prose section
    longer than ``chunk_size`` characters cut into chunks of at most ``chunk_size``
    characters at sentence ends (at spaces inside a longer sentence), so a long
    section that repeats part of an earlier one lowers the ratio by that part.

    Args:
        text: Any string.
        chunk_size: Longest chunk in characters (default 200, the source design 002's);
            ``None`` compares whole sections, as :attr:`RepetitionResult.unique_ratio`.
        similarity_threshold: As in :func:`detect_repetition`.
        min_section_chars: As in :func:`detect_repetition`.

    Returns:
        ``1 - repeated / compared`` over the chunks; 1.0 when there is none (empty
        text included). Generation loops do not count here.

    Raises:
        ConfigurationError: ``text`` is not a string, or a setting is out of range.

    Example:
        >>> para = "Every fact in the graph names its source file and line."
        >>> calculate_unique_content_ratio("\\n\\n".join([para, para, para, "Something else."]))
        0.5
        >>> calculate_unique_content_ratio("")
        1.0
    """
    require_text(text)
    threshold = check_threshold("similarity_threshold", similarity_threshold)
    min_chars = check_count("min_section_chars", min_section_chars, 1)
    if chunk_size is None:
        return analyze(text, threshold, min_chars).unique_ratio()
    size = check_count("chunk_size", chunk_size, 1)
    lines, blocks = chunks(text, size)
    matches, compared = match_sections(lines, blocks, threshold, min_chars)
    return (compared - len(matches)) / compared if compared else 1.0


def validate_no_repetition(
    text: str,
    max_allowed_ratio: float = DEFAULT_MAX_ALLOWED_RATIO,
    *,
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
    min_section_chars: int = DEFAULT_MIN_SECTION_CHARS,
) -> tuple[bool, dict[str, Any]]:
    """Whether ``text`` repeats itself at most ``max_allowed_ratio``, and why (source
    design 002's repetition gate over :func:`detect_repetition`).

    Args:
        text: Any string (a signal check: it never raises on odd text).
        max_allowed_ratio: Largest share (0..1) of repeated sections allowed
            (``1 - unique_ratio``); default 0.3.
        similarity_threshold: As in :func:`detect_repetition`.
        min_section_chars: As in :func:`detect_repetition`.

    Returns:
        ``(is_valid, details)``: valid when there is no generation loop and the
        repeated share is at most ``max_allowed_ratio``. ``details`` holds
        ``found``, ``unique_ratio``, ``repeated_ratio``, ``max_allowed_ratio``,
        ``repeated_sections``, ``generation_loops`` and ``examples`` (as
        :func:`detect_repetition` gives them).

    Raises:
        ConfigurationError: ``text`` is not a string, or a setting is out of range.

    Example:
        >>> para = "Every fact in the graph names its source file and line."
        >>> ok, details = validate_no_repetition("\\n\\n".join([para, para, "Other."]))
        >>> ok, round(details["repeated_ratio"], 2)
        (False, 0.33)
    """
    require_text(text)
    threshold = check_threshold("similarity_threshold", similarity_threshold)
    allowed = check_share("max_allowed_ratio", max_allowed_ratio)
    min_chars = check_count("min_section_chars", min_section_chars, 1)
    analysis = analyze(text, threshold, min_chars)
    found, examples, ratio = detect_repetition(
        text, similarity_threshold=threshold, min_section_chars=min_chars
    )
    repeated = 1.0 - ratio
    details = {
        "found": found,
        "unique_ratio": ratio,
        "repeated_ratio": repeated,
        "max_allowed_ratio": allowed,
        "repeated_sections": len(analysis.matches),
        "generation_loops": len(analysis.loops),
        "examples": examples,
    }
    return (not analysis.loops and repeated <= allowed), details


def repetition_within_limit(
    text: str,
    *,
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
    max_repetitions: int = 1,
    min_section_chars: int = DEFAULT_MIN_SECTION_CHARS,
) -> bool:
    """Whether ``text`` is free of generation loops and over-repeated sections.

    Args:
        text: Any string (a signal check: it never raises on odd text).
        similarity_threshold: As in :func:`detect_repetition`.
        max_repetitions: How many times one section may occur (1: no repeat at all).
        min_section_chars: As in :func:`detect_repetition`.

    Returns:
        ``True`` when no loop occurs and no section occurs more than
        ``max_repetitions`` times.

    Raises:
        ConfigurationError: ``text`` is not a string, or a setting is out of range.

    Example:
        >>> para = "Every fact in the graph names its source file and line."
        >>> repetition_within_limit(para), repetition_within_limit(para + "\\n\\n" + para)
        (True, False)
    """
    require_text(text)
    threshold = check_threshold("similarity_threshold", similarity_threshold)
    allowed = check_count("max_repetitions", max_repetitions, 1)
    min_chars = check_count("min_section_chars", min_section_chars, 1)
    analysis = analyze(text, threshold, min_chars)
    return not analysis.loops and not analysis.excess(allowed)


def repetition_check(
    *,
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
    max_repetitions: int = 1,
    on_fail: OnFail | str = OnFail.FIX_REASK,
) -> Check:
    """A :class:`Check` named ``"repetition"``: no generation loop, no repeated section.

    It fails with one :class:`Problem` per loop and per section beyond
    ``max_repetitions`` occurrences (at most five, then one that counts the rest), each
    naming the lines, what is expected and how to fix it. Problem details:
    ``{"kind": "generation_loop", "unit": "char" | "word" | "sentence", "repeats": n,
    "lines": [first, last]}``, ``{"kind": "repeated_section", "lines": [first, last],
    "repeats_lines": [first, last], "similarity": s}`` (1-based lines, inclusive) and
    ``{"kind": "more", "count": n}``. Sections shorter than
    :data:`DEFAULT_MIN_SECTION_CHARS` are not compared. ``fixed`` is
    :func:`clean_repetitive_output` of the text with the same settings, or ``None`` when
    cleaning changes nothing (too much would be removed: ask again instead).

    Args:
        similarity_threshold: As in :func:`detect_repetition`.
        max_repetitions: How many times one section may occur.
        on_fail: The failure policy (default ``"fix_reask"``).

    Returns:
        The check.

    Raises:
        ConfigurationError: A setting out of range or an unknown policy.

    Example:
        >>> check = repetition_check()
        >>> outcome = check("Answer: " + "the " * 40 + "end.")
        >>> outcome.passed, outcome.fixed
        (False, 'Answer: the end.')
    """
    threshold = check_threshold("similarity_threshold", similarity_threshold)
    allowed = check_count("max_repetitions", max_repetitions, 1)
    name = "repetition"

    def check(text: str) -> CheckOutcome:
        analysis = analyze(require_text(text), threshold, DEFAULT_MIN_SECTION_CHARS)
        excess = analysis.excess(allowed)
        if not analysis.loops and not excess:
            return CheckOutcome(name, True)
        problems = [_loop_problem(analysis, loop) for loop in analysis.loops]
        problems += [_repeat_problem(analysis, match, allowed) for match in excess]
        if len(problems) > _MAX_PROBLEMS:
            rest = len(problems) - _MAX_PROBLEMS
            problems = [
                *problems[:_MAX_PROBLEMS],
                Problem(
                    f"{rest} more repetitions like the ones above",
                    "text that says each thing once",
                    "Remove every repeated passage, not only the ones listed.",
                    {"kind": "more", "count": rest},
                ),
            ]
        fixed = clean_text(
            text,
            analysis,
            threshold,
            allowed,
            DEFAULT_CONTENT_PRESERVATION,
            DEFAULT_MIN_SECTION_CHARS,
        )
        return failed(name, problems, fixed=None if fixed == text else fixed)

    return Check(name, check, on_fail)


def _loop_problem(analysis: Analysis, loop: Loop) -> Problem:
    return Problem(
        f"generation loop: {analysis.describe_loop(loop)}",
        "text that says each thing once, with no phrase repeated over and over",
        "Write the repeated phrase once, delete the repetitions and finish the answer.",
        {
            "kind": "generation_loop",
            "unit": loop.unit,
            "repeats": loop.repeats,
            "lines": [analysis.line_of(loop.start), analysis.line_of(loop.end - 1)],
        },
    )


def _repeat_problem(analysis: Analysis, match: SectionMatch, allowed: int) -> Problem:
    block, earlier = analysis.blocks[match.block], analysis.blocks[match.earlier]
    times = "once" if allowed == 1 else f"at most {allowed} times"
    return Problem(
        f"repeated section: {analysis.describe_match(match)}",
        f"each section written {times}",
        "Delete the repeated section and keep the first one; write new content instead "
        "of restating what is already said.",
        {
            "kind": "repeated_section",
            "lines": [block.start + 1, block.end],
            "repeats_lines": [earlier.start + 1, earlier.end],
            "similarity": round(match.similarity, 4),
        },
    )
