"""Sections of model output and their similarity: the engine under repetition detection.

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
"""

from __future__ import annotations

import math
import re
from collections import Counter, deque
from dataclasses import dataclass
from operator import itemgetter

from citeloop.checks.check import require_text
from citeloop.markdown import (
    atx_heading,
    is_setext_underline,
    is_table_delimiter,
    is_thematic_break,
    list_item,
)
from citeloop.text import normalize_text

POSTING_LIMIT = 16
"""Sections kept per word in the candidate index (the most recent ones)."""
MAX_CANDIDATES = 8
"""Candidates verified with the exact similarity, per section."""
PREFIX_MARGIN = 0.2
"""The candidate index assumes a word Jaccard >= threshold - PREFIX_MARGIN (module doc)."""
_MIN_PREFIX_JACCARD = 0.2
_WORD = re.compile(r"\w+")
_LETTER = re.compile(r"[^\W\d_]")  # a word character that is no digit or underscore
PROSE, CODE, HEADING, BREAK = "prose", "code", "heading", "break"
CONTENT = (PROSE, CODE)
# --- sections ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Block:
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


def split_blocks(lines: list[str]) -> list[Block]:
    """Headings, thematic breaks and sections of ``lines``, in order (one pass).

    A fenced code block runs to its closing fence (or the end of the text, CommonMark
    §4.5), blank lines included; fences are recognized at any indentation, so a fence
    inside a list item counts too. Up to three spaces may indent a heading or a break.
    A setext underline makes a heading of the paragraph above it, never of a list item,
    quote or table (``- item\\n---`` is a list and a thematic break).
    """
    blocks: list[Block] = []
    start = -1  # first line of the open section, -1 when none is open
    paragraph = table = indented = False

    def close(end: int) -> None:
        nonlocal start
        if start >= 0:
            blocks.append(Block(start, end, CODE if table or indented else PROSE))
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
            blocks.append(Block(index, end, CODE))
            index = end
            continue
        indent = _indent(line)
        if indent < 4:
            heading = atx_heading(stripped)
            if heading is not None:
                close(index)
                blocks.append(Block(index, index + 1, HEADING, heading[0], heading[1]))
                index += 1
                continue
            if start >= 0 and paragraph and not table and is_setext_underline(stripped):
                title = " ".join(part.strip() for part in lines[start:index])
                level = 1 if stripped[0] == "=" else 2
                blocks.append(Block(start, index + 1, HEADING, level, title))
                start = -1
                index += 1
                continue
            if is_thematic_break(stripped):
                close(index)
                blocks.append(Block(index, index + 1, BREAK))
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
class SectionMatch:
    """Section ``block`` repeats the earlier section ``earlier`` (indexes of blocks)."""

    block: int
    earlier: int
    group: int
    similarity: float


def match_sections(
    lines: list[str], blocks: list[Block], threshold: float, min_chars: int
) -> tuple[list[SectionMatch], int]:
    """Every section that repeats an earlier one, and how many sections were compared.

    Sections of at least ``min_chars`` characters are compared by similarity; shorter
    ones that hold a letter only as identical copies (same words, case-folded).
    """
    items: list[tuple[int, str, _Profile | None]] = []
    for number, block in enumerate(blocks):
        if block.kind not in CONTENT:
            continue
        body = "\n".join(lines[block.start : block.end]).strip()
        if len(body) < min_chars:
            # Short sections repeat only as identical copies (same words, any case):
            # "## Introduction\nSame content." written twice is a repeated section.
            short = _words(body)
            if any(_LETTER.search(word) for word in short):
                items.append((number, "\x01" + " ".join(short), None))
            continue
        words = _words(body) if block.kind == PROSE else []
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
    matches: list[SectionMatch] = []
    for ordinal, (number, key, profile) in enumerate(items):
        groups.append(ordinal)
        if key in exact:
            earlier = exact[key]
            groups[ordinal] = groups[earlier]
            matches.append(SectionMatch(number, items[earlier][0], items[groups[earlier]][0], 1.0))
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
                matches.append(SectionMatch(number, items[earlier][0], group, similarity))
                break
    return matches, len(items)
