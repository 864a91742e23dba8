"""One pass over model output that finds its repeated sections and generation loops, and
the settings shared by the repetition functions (thresholds, counts, shares), checked
once with a clear error. The rules are in :mod:`citeloop.checks.repetition`,
:mod:`citeloop.checks.similarity` and :mod:`citeloop.checks.loops`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass

from citeloop.checks.loops import Loop, find_loops
from citeloop.checks.similarity import (
    CODE,
    CONTENT,
    PROSE,
    Block,
    SectionMatch,
    match_sections,
    split_blocks,
)
from citeloop.errors import ConfigurationError

DEFAULT_SIMILARITY_THRESHOLD = 0.8
"""Similarity (0..1) from which a section repeats an earlier one."""
DEFAULT_MIN_SECTION_CHARS = 40
"""Sections shorter than this (stripped, in characters) are never compared."""

DEFAULT_CONTENT_PRESERVATION = 0.5
"""Smallest share of the characters a clean-up keeps; removing more returns the text."""
MODE_THRESHOLDS: dict[str, float] = {"conservative": 0.95, "balanced": 0.8, "aggressive": 0.65}
"""Default similarity threshold of each :func:`deduplicate_sections` mode."""
DEFAULT_MAX_REPETITIONS = 2
"""Occurrences of one section a clean-up keeps by default (the source design 002's)."""
DEFAULT_CHUNK_SIZE = 200
"""Longest chunk (characters) :func:`calculate_unique_content_ratio` compares."""
DEFAULT_MAX_ALLOWED_RATIO = 0.3
"""Largest repeated share :func:`validate_no_repetition` accepts."""

_MAX_EXAMPLE_CHARS = 80
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


# --- settings ---------------------------------------------------------------------------


def check_threshold(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise ConfigurationError(
            f"{name} must be a number in (0, 1], got {value!r}; 0.8 suits paraphrased "
            "repeats, 0.95 near-exact copies only"
        )
    return float(value)


def check_count(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigurationError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def check_share(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ConfigurationError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


CONSERVATIVE_FLOOR = (0.9, 3)
"""``"conservative"`` mode: at least this similarity and this many occurrences kept."""
AGGRESSIVE_CEILING = (0.7, 1)
"""``"aggressive"`` mode: at most this similarity and this many occurrences kept."""


def mode_settings(
    mode: object, similarity_threshold: object, max_repetitions: object
) -> tuple[float, int]:
    """(threshold, occurrences kept) of a clean-up mode (the source design 002's modes).

    ``"balanced"`` takes the settings as given; ``"conservative"`` raises them to at
    least :data:`CONSERVATIVE_FLOOR` (only near-exact copies, three kept);
    ``"aggressive"`` lowers them to at most :data:`AGGRESSIVE_CEILING` (loose copies,
    one kept). Without a threshold, the mode's :data:`MODE_THRESHOLDS` entry is used.

    Raises:
        ConfigurationError: An unknown mode or a setting out of range.
    """
    if mode not in MODE_THRESHOLDS:
        choices = ", ".join(MODE_THRESHOLDS)
        raise ConfigurationError(f"mode must be one of {choices}; got {mode!r}")
    allowed = check_count("max_repetitions", max_repetitions, 1)
    if similarity_threshold is None:
        threshold = MODE_THRESHOLDS[str(mode)]
    else:
        threshold = check_threshold("similarity_threshold", similarity_threshold)
    if mode == "conservative":
        return max(threshold, CONSERVATIVE_FLOOR[0]), max(allowed, CONSERVATIVE_FLOOR[1])
    if mode == "aggressive":
        return min(threshold, AGGRESSIVE_CEILING[0]), min(allowed, AGGRESSIVE_CEILING[1])
    return threshold, allowed


# --- analysis ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Analysis:
    text: str
    lines: list[str]
    offsets: list[int]
    blocks: list[Block]
    matches: list[SectionMatch]
    compared: int
    loops: list[Loop]

    def line_of(self, offset: int) -> int:
        """1-based line number of a character offset."""
        return bisect_right(self.offsets, offset)

    def unique_ratio(self) -> float:
        return (self.compared - len(self.matches)) / self.compared if self.compared else 1.0

    def excess(self, max_repetitions: int) -> list[SectionMatch]:
        """Matches beyond the first ``max_repetitions`` occurrences of their group."""
        seen: Counter[int] = Counter()
        extra: list[SectionMatch] = []
        for match in self.matches:
            seen[match.group] += 1
            if seen[match.group] + 1 > max_repetitions:
                extra.append(match)
        return extra

    def snippet(self, start: int, end: int) -> str:
        text = " ".join(self.text[start:end].split())
        if len(text) > _MAX_EXAMPLE_CHARS:
            text = text[: _MAX_EXAMPLE_CHARS - 1] + "…"
        return repr(text)

    def describe_loop(self, loop: Loop) -> str:
        return (
            f"{self.snippet(loop.start, loop.keep)} repeated {loop.repeats} times in a row "
            f"(lines {self.line_of(loop.start)}-{self.line_of(loop.end - 1)})"
        )

    def describe_match(self, match: SectionMatch) -> str:
        block, earlier = self.blocks[match.block], self.blocks[match.earlier]
        last = block.end - 1
        body = self.snippet(self.offsets[block.start], self.offsets[last] + len(self.lines[last]))
        return (
            f"lines {block.start + 1}-{block.end} repeat lines {earlier.start + 1}-"
            f"{earlier.end} (similarity {match.similarity:.2f}): {body}"
        )


def analyze(text: str, threshold: float, min_chars: int) -> Analysis:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    offsets: list[int] = []
    position = 0
    for line in lines:
        offsets.append(position)
        position += len(line) + 1
    blocks = split_blocks(lines)
    structured = [False] * len(lines)
    for block in blocks:
        if block.kind == CODE:
            structured[block.start : block.end] = [True] * (block.end - block.start)
    matches, compared = match_sections(lines, blocks, threshold, min_chars)
    loops = find_loops(text, lines, offsets, structured)
    return Analysis(text, lines, offsets, blocks, matches, compared, loops)


def _pieces(body: str, size: int) -> list[str]:
    """``body`` cut into pieces of at most ``size`` characters at sentence ends, or at
    spaces inside a longer sentence (a word longer than ``size`` stays whole)."""
    units: list[str] = []
    for sentence in _SENTENCE_END.split(body):
        units.extend(sentence.split() if len(sentence) > size else [sentence])
    pieces: list[str] = []
    current = ""
    for unit in units:
        if current and len(current) + 1 + len(unit) > size:
            pieces.append(current)
            current = unit
        else:
            current = f"{current} {unit}" if current else unit
    if current:
        pieces.append(current)
    return pieces


def chunks(text: str, size: int) -> tuple[list[str], list[Block]]:
    """The sections of ``text``, prose ones longer than ``size`` cut into pieces: one
    line and one block per chunk, ready for
    :func:`~citeloop.checks.similarity.match_sections`."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out_lines: list[str] = []
    out_blocks: list[Block] = []
    for block in split_blocks(lines):
        if block.kind not in CONTENT:
            continue
        body = "\n".join(lines[block.start : block.end]).strip()
        parts = _pieces(body, size) if block.kind == PROSE and len(body) > size else [body]
        for part in parts:
            out_blocks.append(Block(len(out_lines), len(out_lines) + 1, block.kind))
            out_lines.append(part)
    return out_lines, out_blocks
