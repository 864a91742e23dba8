"""Degenerate generation loops in model output, found in linear time.

A degenerate loop is a short cycle repeated many times in a row:
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
"""

from __future__ import annotations

import operator
import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, chain, repeat

from citeloop.text import normalize_text

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
_TOKEN = re.compile(r"\S+")
_LETTER = re.compile(r"[^\W\d_]")  # a word character that is no digit or underscore
# Tried at token starts only (the lookbehind), so each token is read once.
_LONG_TOKEN = re.compile(rf"(?<!\S)\S{{{LOOP_MIN_CHARS},}}")
# Punctuation stripped from both ends of a word before loop comparison.
_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~“”‘’«»„‹›…—–·•¡¿"
_CLOSERS = "\"')]}*_“”’»›`"
_TERMINATORS = (".", "!", "?", "…", "。", "！", "？")
# --- generation loops -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Loop:
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


def find_loops(
    text: str, lines: list[str], line_starts: list[int], structured: list[bool]
) -> list[Loop]:
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

    loops: list[Loop] = []
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
                    Loop(offset + start, offset + end, offset + start + period, repeats, "char")
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
            Loop(
                starts[first],
                starts[last] + len(raws[last]),
                starts[cycle] + len(raws[cycle]),
                repeats,
                unit,
            )
            for first, last, cycle, repeats, unit in spans
        ]
    return _select_loops(loops)


def _select_loops(loops: list[Loop]) -> list[Loop]:
    """Non-overlapping loops: of overlapping ones the longest, then the shortest cycle."""
    chosen: list[Loop] = []
    for loop in sorted(loops, key=lambda loop: (loop.start, -loop.end, loop.keep)):
        if not chosen or loop.start >= chosen[-1].end:
            chosen.append(loop)
        elif loop.end - loop.start > chosen[-1].end - chosen[-1].start:
            chosen[-1] = loop
    return chosen
