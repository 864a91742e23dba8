"""Repetition in model output: repeated sections and degenerate generation loops.

Two kinds of repetition are found, both in time linear in the text length:

**Repeated sections.** The text is split into sections: Markdown headings (ATX ``#``
lines and setext underlines, never inside fenced code) and thematic breaks separate
blocks, and blank lines outside fenced code separate blocks further, so a section is a
paragraph, a list without blank lines, a table or a code block. Headings themselves are
structure and never compared. A section shorter than ``min_section_chars`` characters is
never compared either. A section repeats an earlier one when their similarity is at
least the threshold. Prose sections are compared with the combined similarity below;
code blocks, tables and indented blocks (where near-identical copies are normal, e.g. a
before/after pair of snippets) and sections without any word count only when they are
identical up to whitespace. A chorus written out again as a paragraph of its own is a
repeated section too (allow it with ``max_repetitions``); refrain lines inside a stanza
are not (see the loops below).

**Similarity** of two prose sections is the plain mean of three measures over their
NFC-normalized, case-folded words (``\\w+`` runs; :func:`citeloop.text.normalize_text`):

- word-set overlap, the Jaccard coefficient ``|A ∩ B| / |A ∪ B|`` of the two sets of
  distinct words (Jaccard 1901; Broder, "On the resemblance and containment of
  documents", 1997);
- term-frequency cosine ``Σ tf_a(w)·tf_b(w) / (‖tf_a‖·‖tf_b‖)`` (the vector space model,
  Salton, Wong & Yang 1975), raw counts, no idf: a section is compared with one other
  section, not ranked in a collection;
- character 3-gram overlap, the Jaccard coefficient of the sets of character trigrams
  of the words joined by single spaces (q-gram similarity, Ukkonen 1992), which is
  tolerant of typos and inflections that change a whole word for the other two.

``similarity = (jaccard + cosine + trigram) / 3``, in 0..1. rapidfuzz is not used: its
measures are edit distances and ratios over whole strings, none is a q-gram overlap,
and order-sensitive edit distance scores a section with its sentences reordered as
different, which is still a repetition here.

**Candidate pairs** come from blocking, not from all pairs: prefix filtering (Chaudhuri,
Ganti & Kaushik, "A primitive operator for similarity joins", ICDE 2006; Bayardo, Ma &
Srikant, "Scaling up all pairs similarity search", WWW 2007). The distinct words of each
section are ordered by document frequency in the text (the rarest first, ties
alphabetically), and each section is indexed under its first ``|A| - ⌈t·|A|⌉ + 1``
words, its *prefix*: two sets with a Jaccard coefficient ``≥ t`` always share a word of
their prefixes. A combined similarity ``≥ θ`` strictly implies only a Jaccard coefficient
``≥ 3θ - 2`` (the two other measures are at most 1), but in text the three measures move
together: of 6,000 generated paraphrase pairs (1 to 25 words substituted, dropped or
inserted, sentences swapped, words appended) none reached ``θ`` (0.65, 0.8 or 0.95) with
a Jaccard coefficient more than 0.13 below ``θ``. So ``t = max(3θ - 2, θ -``
:data:`PREFIX_MARGIN` ``, 0.2)``: exact from ``θ = 0.9`` up, an assumption with a margin
below it (``t = 0.6`` at the default 0.8, a prefix of 41% of the words instead of 61%).
Identical sections are matched through a dictionary first. Each posting list keeps the
last :data:`POSTING_LIMIT` sections, and each section verifies at most
:data:`MAX_CANDIDATES` candidates with the exact similarity (those sharing the most prefix
words first) and stops at the first that reaches the threshold. The caps bound the work
per section by its length, so the whole scan is linear; they can miss a match only when
more than :data:`POSTING_LIMIT` sections between the two carry every prefix word they
share, or :data:`MAX_CANDIDATES` non-matching sections share more prefix words. A
repeated block keeps matching its latest copy, and the benchmark
(``benchmarks/bench_repetition.py``) and the tests compare the matches with all pairs.

**Generation loops.** A degenerate loop is a short cycle repeated many times in a row:
one word (``the the the ...``), a few words (``a b c a b c ...``), up to
:data:`LOOP_MAX_PERIOD` sentences or lines (``I'm sorry. I'm sorry. ...``), or up to
:data:`LOOP_MAX_PERIOD` characters inside one whitespace-free token (``hahaha...``,
``abababab...``). Words are compared case-folded and without surrounding punctuation.
For each period ``p`` the scan marks the units equal to the unit ``p`` places later, in
C (``map(operator.eq, ...)``), and finds runs of marks with one single-quantifier regex
over those marks, so it is ``O(LOOP_MAX_PERIOD · n)``. A run is a loop when its cycle
repeats at least :data:`LOOP_MIN_REPEATS` times, contains a letter, and covers at least
:data:`LOOP_MIN_WORDS` words (:data:`LOOP_MIN_CHARS` characters inside a token); in code
blocks, tables and indented blocks the bar is :data:`STRUCTURED_FACTOR` times higher, so
repeated code structure, an all-"Yes" table row, ``----`` rules and ``0 0 0`` matrices
are not loops. Numbered steps and ordinary lists break the cycle with their numbers and
items; a refrain sung a few times stays below the repeat count.

Lines are counted after ``\\r\\n`` and ``\\r`` are read as ``\\n``; cleaned text uses
``\\n`` line ends (text that needs no cleaning is returned as it is).
"""

from __future__ import annotations

import math
import operator
import re
from bisect import bisect_right
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, chain, repeat
from operator import itemgetter
from typing import NamedTuple

from citeloop.checks.check import Check, CheckOutcome, OnFail, Problem, failed, require_text
from citeloop.errors import ConfigurationError
from citeloop.markdown import (
    atx_heading,
    is_setext_underline,
    is_table_delimiter,
    is_thematic_break,
    list_item,
)
from citeloop.text import normalize_text

DEFAULT_SIMILARITY_THRESHOLD = 0.8
"""Similarity (0..1) from which a section repeats an earlier one."""
DEFAULT_MIN_SECTION_CHARS = 40
"""Sections shorter than this (stripped, in characters) are never compared."""

DEFAULT_CONTENT_PRESERVATION = 0.5
"""Smallest share of the characters a clean-up keeps; removing more returns the text."""
MODE_THRESHOLDS: dict[str, float] = {"conservative": 0.95, "balanced": 0.8, "aggressive": 0.65}
"""Default similarity threshold of each :func:`deduplicate_sections` mode."""

LOOP_MAX_PERIOD = 8
"""Longest cycle of a generation loop, in units (characters, words or sentences)."""
LOOP_MIN_REPEATS = 8
"""Fewest consecutive repeats of a cycle that make a loop."""
LOOP_MIN_WORDS = 16
"""Fewest words a word or sentence loop covers."""
LOOP_MIN_CHARS = 32
"""Fewest characters a character loop (inside one token) covers."""
STRUCTURED_FACTOR = 4
"""How much higher the loop bar is in code blocks, tables and indented blocks."""

POSTING_LIMIT = 16
"""Sections kept per word in the candidate index (the most recent ones)."""
MAX_CANDIDATES = 8
"""Candidates verified with the exact similarity, per section."""
PREFIX_MARGIN = 0.2
"""The candidate index assumes a word Jaccard >= threshold - PREFIX_MARGIN (module doc)."""
_MIN_PREFIX_JACCARD = 0.2

_MAX_EXAMPLE_CHARS = 80
_MAX_PROBLEMS = 5
_WORD = re.compile(r"\w+")
_TOKEN = re.compile(r"\S+")
_LETTER = re.compile(r"[^\W\d_]")  # a word character that is no digit or underscore
# Tried at token starts only (the lookbehind), so each token is read once.
_LONG_TOKEN = re.compile(rf"(?<!\S)\S{{{LOOP_MIN_CHARS},}}")
# Punctuation stripped from both ends of a word before loop comparison.
_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~“”‘’«»„‹›…—–·•¡¿"
_CLOSERS = "\"')]}*_“”’»›`"
_TERMINATORS = (".", "!", "?", "…", "。", "！", "？")

_PROSE, _CODE, _HEADING, _BREAK = "prose", "code", "heading", "break"
_CONTENT = (_PROSE, _CODE)


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


# --- settings ---------------------------------------------------------------------------


def _check_threshold(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise ConfigurationError(
            f"{name} must be a number in (0, 1], got {value!r}; 0.8 suits paraphrased "
            "repeats, 0.95 near-exact copies only"
        )
    return float(value)


def _check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigurationError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def _check_share(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ConfigurationError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


def _mode_threshold(mode: object, similarity_threshold: object) -> float:
    if mode not in MODE_THRESHOLDS:
        choices = ", ".join(MODE_THRESHOLDS)
        raise ConfigurationError(f"mode must be one of {choices}; got {mode!r}")
    if similarity_threshold is None:
        return MODE_THRESHOLDS[str(mode)]
    return _check_threshold("similarity_threshold", similarity_threshold)


# --- sections ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Block:
    """Lines ``[start, end)`` of the text: a heading, a thematic break or a section."""

    start: int
    end: int
    kind: str
    level: int = 0
    title: str = ""


def _indent(line: str) -> int:
    """Columns of leading blanks (a tab is 4 columns, as CommonMark counts it)."""
    width = len(line) - len(line.lstrip(" \t"))
    return len(line[:width].expandtabs(4))


def _fence(line: str) -> tuple[str, int] | None:
    """``(marker, length)`` of a fence opening line (CommonMark §4.5), else ``None``."""
    stripped = line.lstrip(" \t")
    for marker in "`~":
        if stripped.startswith(marker * 3):
            length = len(stripped) - len(stripped.lstrip(marker))
            if marker == "`" and "`" in stripped[length:]:
                return None  # a backtick info string cannot hold a backtick
            return marker, length
    return None


def _closes(line: str, fence: tuple[str, int]) -> bool:
    marker, length = fence
    stripped = line.strip()
    return stripped.startswith(marker * length) and not stripped.lstrip(marker)


def _split_blocks(lines: list[str]) -> list[_Block]:
    """Headings, thematic breaks and sections of ``lines``, in order (one pass).

    A fenced code block runs to its closing fence (or the end of the text, CommonMark
    §4.5), blank lines included; fences are recognized at any indentation, so a fence
    inside a list item counts too. Up to three spaces may indent a heading or a break.
    A setext underline makes a heading of the paragraph above it, never of a list item,
    quote or table (``- item\\n---`` is a list and a thematic break).
    """
    blocks: list[_Block] = []
    start = -1  # first line of the open section, -1 when none is open
    paragraph = table = indented = False

    def close(end: int) -> None:
        nonlocal start
        if start >= 0:
            blocks.append(_Block(start, end, _CODE if table or indented else _PROSE))
            start = -1

    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if not stripped:
            close(index)
            index += 1
            continue
        fence = _fence(line)
        if fence is not None:
            close(index)
            end = index + 1
            while end < len(lines) and not _closes(lines[end], fence):
                end += 1
            end = min(end + 1, len(lines))
            blocks.append(_Block(index, end, _CODE))
            index = end
            continue
        indent = _indent(line)
        if indent < 4:
            heading = atx_heading(stripped)
            if heading is not None:
                close(index)
                blocks.append(_Block(index, index + 1, _HEADING, heading[0], heading[1]))
                index += 1
                continue
            if start >= 0 and paragraph and not table and is_setext_underline(stripped):
                title = " ".join(part.strip() for part in lines[start:index])
                level = 1 if stripped[0] == "=" else 2
                blocks.append(_Block(start, index + 1, _HEADING, level, title))
                start = -1
                index += 1
                continue
            if is_thematic_break(stripped):
                close(index)
                blocks.append(_Block(index, index + 1, _BREAK))
                index += 1
                continue
        if start < 0:
            # An indented first line starts indented code, which no underline can head.
            start, paragraph, table, indented = index, indent < 4, False, True
        if indent < 4 and (stripped[0] in "|>" or list_item(stripped) is not None):
            paragraph = False  # a list item, quote or table row: no setext heading
        table = table or is_table_delimiter(stripped)
        indented = indented and indent >= 4
        index += 1
    close(len(lines))
    return blocks


# --- similarity -------------------------------------------------------------------------


class _Profile:
    """The words of one prose section, for the combined similarity."""

    __slots__ = ("_trigrams", "counts", "joined", "norm", "vocabulary")

    def __init__(self, words: list[str]) -> None:
        self.counts: dict[str, int] = Counter(words)
        self.vocabulary = frozenset(self.counts)
        self.norm = math.hypot(*self.counts.values())
        self.joined = " ".join(words)
        self._trigrams: set[str] | None = None

    def trigrams(self) -> set[str]:
        """Character trigrams of the joined words (computed on first use)."""
        if self._trigrams is None:
            joined = self.joined
            self._trigrams = (
                {joined[index : index + 3] for index in range(len(joined) - 2)}
                if len(joined) >= 3
                else {joined}
            )
        return self._trigrams


def _words(text: str) -> list[str]:
    return _WORD.findall(normalize_text(text).casefold())


def _similarity(first: _Profile, second: _Profile, threshold: float = 0.0) -> float:
    """The combined similarity, or ``-1.0`` once it provably stays below ``threshold``.

    Word Jaccard comes first, then cosine; each later measure is computed only when the
    mean could still reach ``threshold`` with the measures not yet computed at 1, so
    the trigram sets are built only for likely matches.
    """
    sizes = len(first.vocabulary), len(second.vocabulary)
    if (min(sizes) / max(sizes) + 2.0) / 3 < threshold:
        return -1.0  # Jaccard is at most the ratio of the set sizes
    common = first.vocabulary & second.vocabulary
    if not common:
        return -1.0 if threshold > 0 else 0.0
    shared = len(common)
    jaccard = shared / (sizes[0] + sizes[1] - shared)
    if (jaccard + 2.0) / 3 < threshold:
        return -1.0
    dot = sum(first.counts[word] * second.counts[word] for word in common)
    cosine = min(1.0, dot / (first.norm * second.norm))
    if (jaccard + cosine + 1.0) / 3 < threshold:
        return -1.0
    first_grams, second_grams = first.trigrams(), second.trigrams()
    overlap = len(first_grams & second_grams)
    trigram = overlap / (len(first_grams) + len(second_grams) - overlap)
    return (jaccard + cosine + trigram) / 3


def text_similarity(first: str, second: str) -> float:
    """The combined similarity of two texts (see the module docstring), 0..1.

    Args:
        first: Any text.
        second: Any text.

    Returns:
        ``(word Jaccard + term-frequency cosine + character-trigram Jaccard) / 3`` over
        the NFC-normalized, case-folded words; 1.0 for two texts without words that are
        equal up to whitespace, 0.0 when only one of them has words or they share none.

    Raises:
        ConfigurationError: An argument is not a string.

    Example:
        >>> text_similarity("The store keeps every fact.", "the store keeps every FACT")
        1.0
        >>> round(text_similarity("The store keeps every fact.", "The store keeps each fact."), 2)
        0.7
    """
    first_words, second_words = _words(require_text(first)), _words(require_text(second))
    if not first_words or not second_words:
        same = not first_words and not second_words and first.split() == second.split()
        return 1.0 if same else 0.0
    return _similarity(_Profile(first_words), _Profile(second_words))


def _prefix_size(size: int, threshold: float) -> int:
    """Prefix length that keeps every pair with a Jaccard coefficient >= ``t`` (module doc)."""
    jaccard = max(_MIN_PREFIX_JACCARD, 3 * threshold - 2, threshold - PREFIX_MARGIN)
    return min(size, size - math.ceil(jaccard * size - 1e-9) + 1)


@dataclass(frozen=True, slots=True)
class _Match:
    """Section ``block`` repeats the earlier section ``earlier`` (indexes of blocks)."""

    block: int
    earlier: int
    group: int
    similarity: float


def _match_sections(
    lines: list[str], blocks: list[_Block], threshold: float, min_chars: int
) -> tuple[list[_Match], int]:
    """Every section that repeats an earlier one, and how many sections were compared."""
    items: list[tuple[int, str, _Profile | None]] = []
    for number, block in enumerate(blocks):
        if block.kind not in _CONTENT:
            continue
        body = "\n".join(lines[block.start : block.end]).strip()
        if len(body) < min_chars:
            continue
        words = _words(body) if block.kind == _PROSE else []
        if words:
            profile = _Profile(words)
            items.append((number, profile.joined, profile))
        else:
            # Code, tables and word-less sections: identical copies only.
            items.append((number, "\x00" + " ".join(body.split()), None))

    frequency: Counter[str] = Counter()
    for _, _, profile in items:
        if profile is not None:
            frequency.update(profile.counts.keys())

    exact: dict[str, int] = {}
    groups: list[int] = []
    postings: dict[str, deque[int]] = {}
    matches: list[_Match] = []
    for ordinal, (number, key, profile) in enumerate(items):
        groups.append(ordinal)
        if key in exact:
            earlier = exact[key]
            groups[ordinal] = groups[earlier]
            matches.append(_Match(number, items[earlier][0], items[groups[earlier]][0], 1.0))
            continue
        exact[key] = ordinal
        if profile is None:
            continue
        words = sorted(sorted(profile.counts), key=frequency.__getitem__)
        visited: list[int] = []
        for word in words[: _prefix_size(len(words), threshold)]:
            posting = postings.get(word)
            if posting is None:
                posting = postings[word] = deque(maxlen=POSTING_LIMIT)
            else:
                visited += posting
            posting.append(ordinal)
        # Most shared prefix words first; a stable sort keeps ties in visiting order.
        shared = sorted(Counter(visited).items(), key=itemgetter(1), reverse=True)
        for earlier, _ in shared[:MAX_CANDIDATES]:
            earlier_profile = items[earlier][2]
            assert earlier_profile is not None  # only prose sections are indexed
            similarity = _similarity(profile, earlier_profile, threshold)
            if similarity >= threshold:
                groups[ordinal] = groups[earlier]
                group = items[groups[earlier]][0]
                matches.append(_Match(number, items[earlier][0], group, similarity))
                break
    return matches, len(items)


# --- generation loops -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Loop:
    """Characters ``[start, end)`` repeat ``text[start:keep]`` ``repeats`` times."""

    start: int
    end: int
    keep: int
    repeats: int
    unit: str


@cache
def _run_pattern(matches: int) -> re.Pattern[bytes]:
    return re.compile(b"\x01{%d,}" % matches)


def _periodic_runs(units: Sequence[str], min_units: int) -> Iterator[tuple[int, int, int]]:
    """``(start, end, period)`` of every stretch of ``units`` with a period <= 8 that
    repeats its cycle >= :data:`LOOP_MIN_REPEATS` times and spans >= ``min_units``."""
    for period in range(1, LOOP_MAX_PERIOD + 1):
        if len(units) <= period:
            break
        # equal[i] is 1 when units[i] == units[i + period]; a stretch of m ones from i
        # makes units[i : i + m + period] periodic.
        equal = bytes(map(operator.eq, units, units[period:]))
        needed = max((LOOP_MIN_REPEATS - 1) * period, min_units - period, 1)
        for run in _run_pattern(needed).finditer(equal):
            yield run.start(), run.end() + period, period


def _has_letter(units: Sequence[str]) -> bool:
    return any(char.isalpha() for unit in units for char in unit)


def _is_loop(repeats: int, size: int, minimum: int, structured: bool) -> bool:
    factor = STRUCTURED_FACTOR if structured else 1
    return repeats >= LOOP_MIN_REPEATS * factor and size >= minimum * factor


def _find_loops(
    text: str, lines: list[str], line_starts: list[int], structured: list[bool]
) -> list[_Loop]:
    """Every generation loop of ``text`` (``lines`` are its lines, ``structured`` flags
    the lines of code blocks, tables and indented blocks).

    The whole scan runs over token lists built with C-level string methods; character
    offsets are only worked out for the tokens of the loops found.
    """
    raws = text.split()
    if not raws:
        return []
    folded = normalize_text(text).casefold().split()
    if len(folded) != len(raws):
        folded = [normalize_text(raw).casefold() for raw in raws]
    stripped = [token.strip(_PUNCTUATION) for token in folded]
    kept = [index for index, word in enumerate(stripped) if word]
    words = [stripped[index] for index in kept]

    line_ends = list(accumulate(len(line.split()) for line in lines))
    ends = [raw.rstrip(_CLOSERS).endswith(_TERMINATORS) for raw in raws]
    for first, last in zip([0, *line_ends], line_ends, strict=False):
        if last > first:
            ends[last - 1] = True  # a line break ends a sentence
    marks: list[int] | None = None
    if any(structured):
        flags = chain.from_iterable(
            repeat(int(flag), last - first)
            for flag, first, last in zip(structured, [0, *line_ends], line_ends, strict=False)
        )
        marks = [0, *accumulate(flags)]

    def is_loop(first: int, last: int, repeats: int, size: int, minimum: int) -> bool:
        """Raw tokens ``first..last`` (inclusive) hold a cycle repeated ``repeats`` times."""
        inside = marks is not None and marks[last + 1] > marks[first]
        return _is_loop(repeats, size, minimum, inside)

    loops: list[_Loop] = []
    for token in _LONG_TOKEN.finditer(text):
        raw = token.group()
        folded_raw = raw.casefold()
        if len(folded_raw) != len(raw) or not _LETTER.search(raw):
            continue  # case folding moved the offsets ("ß" -> "ss"), or no letter at all
        inside = structured[bisect_right(line_starts, token.start()) - 1]
        for start, end, period in _periodic_runs(folded_raw, LOOP_MIN_CHARS):
            repeats = (end - start) // period
            cycle = folded_raw[start : start + period]
            if _has_letter(cycle) and _is_loop(repeats, end - start, LOOP_MIN_CHARS, inside):
                offset = token.start()
                loops.append(
                    _Loop(offset + start, offset + end, offset + start + period, repeats, "char")
                )
    # (first raw token, last raw token, last raw token of the first cycle, repeats, unit)
    spans: list[tuple[int, int, int, int, str]] = []
    for start, end, period in _periodic_runs(words, LOOP_MIN_WORDS):
        first, last = kept[start], kept[end - 1]
        repeats = (end - start) // period
        if _has_letter(words[start : start + period]) and is_loop(
            first, last, repeats, end - start, LOOP_MIN_WORDS
        ):
            spans.append((first, last, kept[start + period - 1], repeats, "word"))

    counts = accumulate(map(bool, stripped))
    bounds = sorted({count for count, end in zip(counts, ends, strict=True) if end and count})
    sentences = [" ".join(words[a:b]) for a, b in zip([0, *bounds], bounds, strict=False)]
    for start, end, period in _periodic_runs(sentences, 0):
        first_word = bounds[start - 1] if start else 0
        first, last = kept[first_word], kept[bounds[end - 1] - 1]
        repeats = (end - start) // period
        if _has_letter(sentences[start : start + period]) and is_loop(
            first, last, repeats, bounds[end - 1] - first_word, LOOP_MIN_WORDS
        ):
            cycle_end = kept[bounds[start + period - 1] - 1]
            spans.append((first, last, cycle_end, repeats, "sentence"))
    if spans:
        starts = [token.start() for token in _TOKEN.finditer(text)]
        loops += [
            _Loop(
                starts[first],
                starts[last] + len(raws[last]),
                starts[cycle] + len(raws[cycle]),
                repeats,
                unit,
            )
            for first, last, cycle, repeats, unit in spans
        ]
    return _select_loops(loops)


def _select_loops(loops: list[_Loop]) -> list[_Loop]:
    """Non-overlapping loops: of overlapping ones the longest, then the shortest cycle."""
    chosen: list[_Loop] = []
    for loop in sorted(loops, key=lambda loop: (loop.start, -loop.end, loop.keep)):
        if not chosen or loop.start >= chosen[-1].end:
            chosen.append(loop)
        elif loop.end - loop.start > chosen[-1].end - chosen[-1].start:
            chosen[-1] = loop
    return chosen


# --- analysis ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Analysis:
    text: str
    lines: list[str]
    offsets: list[int]
    blocks: list[_Block]
    matches: list[_Match]
    compared: int
    loops: list[_Loop]

    def line_of(self, offset: int) -> int:
        """1-based line number of a character offset."""
        return bisect_right(self.offsets, offset)

    def unique_ratio(self) -> float:
        return (self.compared - len(self.matches)) / self.compared if self.compared else 1.0

    def excess(self, max_repetitions: int) -> list[_Match]:
        """Matches beyond the first ``max_repetitions`` occurrences of their group."""
        seen: Counter[int] = Counter()
        extra: list[_Match] = []
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

    def describe_loop(self, loop: _Loop) -> str:
        return (
            f"{self.snippet(loop.start, loop.keep)} repeated {loop.repeats} times in a row "
            f"(lines {self.line_of(loop.start)}-{self.line_of(loop.end - 1)})"
        )

    def describe_match(self, match: _Match) -> str:
        block, earlier = self.blocks[match.block], self.blocks[match.earlier]
        last = block.end - 1
        body = self.snippet(self.offsets[block.start], self.offsets[last] + len(self.lines[last]))
        return (
            f"lines {block.start + 1}-{block.end} repeat lines {earlier.start + 1}-"
            f"{earlier.end} (similarity {match.similarity:.2f}): {body}"
        )


def _analyze(text: str, threshold: float, min_chars: int) -> _Analysis:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    offsets: list[int] = []
    position = 0
    for line in lines:
        offsets.append(position)
        position += len(line) + 1
    blocks = _split_blocks(lines)
    structured = [False] * len(lines)
    for block in blocks:
        if block.kind == _CODE:
            structured[block.start : block.end] = [True] * (block.end - block.start)
    matches, compared = _match_sections(lines, blocks, threshold, min_chars)
    loops = _find_loops(text, lines, offsets, structured)
    return _Analysis(text, lines, offsets, blocks, matches, compared, loops)


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
    threshold = _check_threshold("similarity_threshold", similarity_threshold)
    min_chars = _check_int("min_section_chars", min_section_chars, 1)
    limit = _check_int("max_examples", max_examples, 0)
    analysis = _analyze(text, threshold, min_chars)
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
    *,
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
    min_section_chars: int = DEFAULT_MIN_SECTION_CHARS,
) -> float:
    """Share of the sections of ``text`` that repeat no earlier section, 0..1.

    Args:
        text: Any string.
        similarity_threshold: As in :func:`detect_repetition`.
        min_section_chars: As in :func:`detect_repetition`.

    Returns:
        ``1 - repeated / compared`` over the sections long enough to compare; 1.0 when
        there is none (empty text included). Generation loops do not count here.

    Raises:
        ConfigurationError: ``text`` is not a string, or a setting is out of range.

    Example:
        >>> para = "Every fact in the graph names its source file and line."
        >>> calculate_unique_content_ratio("\\n\\n".join([para, para, para, "Something else."]))
        0.3333333333333333
        >>> calculate_unique_content_ratio("")
        1.0
    """
    require_text(text)
    threshold = _check_threshold("similarity_threshold", similarity_threshold)
    min_chars = _check_int("min_section_chars", min_section_chars, 1)
    return _analyze(text, threshold, min_chars).unique_ratio()


def validate_no_repetition(
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
        >>> validate_no_repetition(para), validate_no_repetition(para + "\\n\\n" + para)
        (True, False)
    """
    require_text(text)
    threshold = _check_threshold("similarity_threshold", similarity_threshold)
    allowed = _check_int("max_repetitions", max_repetitions, 1)
    min_chars = _check_int("min_section_chars", min_section_chars, 1)
    analysis = _analyze(text, threshold, min_chars)
    return not analysis.loops and not analysis.excess(allowed)


def _removed_blocks(analysis: _Analysis, max_repetitions: int) -> set[int]:
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
        if block.kind == _HEADING:
            close(block.level, number)
            open_headings.append([number, block.level, False, True])
        elif block.kind in _CONTENT:
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
    analysis: _Analysis | None = None,
) -> str:
    """Remove repeated sections; ``analysis``, when given, is ``text``'s with the same
    ``threshold`` and ``min_chars``."""
    analysis = analysis or _analyze(text, threshold, min_chars)
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
    max_repetitions: int = 1,
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
        mode: ``"conservative"`` (threshold 0.95: exact and near-exact copies only),
            ``"balanced"`` (0.8) or ``"aggressive"`` (0.65); see :data:`MODE_THRESHOLDS`.
        similarity_threshold: Overrides the mode's threshold when given.
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
        >>> print(deduplicate_sections(text, min_content_preservation=0))
        # A
        Every fact in the graph names its source file and line.
        <BLANKLINE>
        # C
        End.
    """
    require_text(text)
    allowed = _check_int("max_repetitions", max_repetitions, 1)
    threshold = _mode_threshold(mode, similarity_threshold)
    preservation = _check_share("min_content_preservation", min_content_preservation)
    min_chars = _check_int("min_section_chars", min_section_chars, 1)
    return _deduplicate(text, threshold, allowed, preservation, min_chars)


def _collapse_loops(text: str, analysis: _Analysis) -> str:
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
    max_repetitions: int = 1,
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
    allowed = _check_int("max_repetitions", max_repetitions, 1)
    threshold = _mode_threshold(mode, similarity_threshold)
    preservation = _check_share("min_content_preservation", min_content_preservation)
    min_chars = _check_int("min_section_chars", min_section_chars, 1)
    analysis = _analyze(text, threshold, min_chars)
    return _clean(text, analysis, threshold, allowed, preservation, min_chars)


def _clean(
    text: str,
    analysis: _Analysis,
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
    threshold = _check_threshold("similarity_threshold", similarity_threshold)
    allowed = _check_int("max_repetitions", max_repetitions, 1)
    name = "repetition"

    def check(text: str) -> CheckOutcome:
        analysis = _analyze(require_text(text), threshold, DEFAULT_MIN_SECTION_CHARS)
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
        fixed = _clean(
            text,
            analysis,
            threshold,
            allowed,
            DEFAULT_CONTENT_PRESERVATION,
            DEFAULT_MIN_SECTION_CHARS,
        )
        return failed(name, problems, fixed=None if fixed == text else fixed)

    return Check(name, check, on_fail)


def _loop_problem(analysis: _Analysis, loop: _Loop) -> Problem:
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


def _repeat_problem(analysis: _Analysis, match: _Match, allowed: int) -> Problem:
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
