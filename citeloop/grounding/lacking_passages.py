"""Where an answer says its context lacks what it needs: the passages of its sayings.

The sayings of :mod:`~citeloop.grounding.sayings` read into passages: the paragraph or
list item of each, and under a heading that says it the whole section
(:func:`insufficient_passages`); the sections so headed, the answer's own list of what
it needs (:func:`listed_spans`, :func:`listed_item_spans`); the sentence of each saying
(:func:`lacking_sentences`). An answer is read once for all of them. Everything is
linear in the length of the answer.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from citeloop.grounding.sayings import (
    SENTENCE_END,
    line_spans,
    list_below,
    sayings_in,
    without_fences,
)


def insufficient_passages(body: str) -> list[str]:
    r"""The passages of ``body`` that say what its context lacks, in order: the paragraph
    or list item of each saying, and under a heading that says it (``## What the context
    does not show``) the whole section, to the next heading. Fenced code says nothing
    (``# ... other methods not shown`` is a comment of the code).

    Example:
        >>> insufficient_passages("It uses `a`.\n\n- The body of `b` is not shown.\n- `c`")
        ['- The body of `b` is not shown.']
    """
    return [body[span.start : span.end].strip() for span in _passages(body)]


def listed_and_said(body: str) -> tuple[list[str], list[str]]:
    """:func:`insufficient_passages`, those a heading says (a section headed as what
    the context lacks, ``## Still missing``, ``**What the context lacks:**``: the
    answer's own list of what it needs), then the others, each in order; a passage in
    an answer's prose also cites the lines it did see (``validate_params (L150-233)
    calls it at L208-209``)."""
    passages = _passages(body)
    # A section under a heading of its own first: a saying that a list follows may be
    # an item of the answer's prose ("3. **How the failure becomes `SSLError`.** ... is
    # not shown:" and its sub-items had come before a played answer's "## Still missing").
    headed = sorted((p for p in passages if p.by_heading), key=lambda p: not p.headed)
    listed = [body[p.start : p.end].strip() for p in headed]
    said = [body[p.start : p.end].strip() for p in passages if not p.by_heading]
    return listed, said


def listed_spans(body: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets in ``body`` of the sections a heading says are
    what the context lacks (``## Still missing``, ``**What the context lacks:**``): the
    answer's own list of what it needs, in order."""
    return [(p.start, p.end) for p in _passages(body) if p.by_heading]


def listed_item_spans(body: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets in ``body`` of the list items of the sections a
    heading says are what the context lacks (:func:`listed_spans`): each item's line
    and the indented lines that go on with it, in order. What the answer lists there it
    asks for; its prose under the same heading may still claim."""
    text = _read(body)[0]
    spans: list[tuple[int, int]] = []
    for start, end in listed_spans(body):
        item: int | None = None
        for at, line_end in line_spans(text, start, end):
            line = text[at:line_end]
            if _LIST_ITEM.match(line):
                if item is not None:
                    spans.append((item, at))
                item = at
            elif item is not None and not (line.strip() and line[:1] in " \t"):
                spans.append((item, at))
                item = None
        if item is not None:
            spans.append((item, end))
    return spans


_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]")
"""A list item's first line."""


def asked_first(body: str) -> list[str]:
    """:func:`insufficient_passages`, those a heading says first
    (:func:`listed_and_said`)."""
    listed, said = listed_and_said(body)
    return listed + said


@dataclass(frozen=True, slots=True)
class _Passage:
    start: int
    end: int
    by_heading: bool  # said by the heading the passage starts with: its whole section
    headed: bool  # by a heading of its own (not a saying that a list follows)
    sayings: tuple[tuple[int, int], ...]  # the spans of its sayings


def _passages(body: str) -> tuple[_Passage, ...]:
    """The passages of :func:`insufficient_passages`, with their sayings (offsets are
    ``body``'s)."""
    return _read(body)[1]


@functools.lru_cache(maxsize=8)
def _read(body: str) -> tuple[str, tuple[_Passage, ...]]:
    """``body`` with its fenced code blanked, and its passages: read once for the
    answer a widening reads twice (:func:`~citeloop.grounding.lacking.lacking_names`,
    then :func:`~citeloop.grounding.lacking.lacking_words`)."""
    text = without_fences(body)
    starts = [0, *(block.end() for block in _BLOCK.finditer(text)), len(text)]
    found: list[tuple[int, int, bool, bool, list[tuple[int, int]]]] = []
    for saying in sayings_in(text):
        if found and saying.start() < found[-1][1]:
            found[-1][4].append(saying.span())  # in the passage of the one before
            continue
        at = bisect.bisect_right(starts, saying.start()) - 1
        start, end = starts[at], starts[at + 1]
        lead = text[start : saying.start()]
        head = start + len(lead) - len(lead.lstrip())  # a heading after blank lines
        by_heading = bool(_HEADING.match(text, head)) and "\n" not in text[head : saying.start()]
        headed = by_heading
        if by_heading:  # to the next heading (a `#` one's: to the next `#` heading)
            following = (_ATX if text.startswith("#", head) else _HEADING).search(text, end)
            end = following.start() if following else len(text)
            # A bold label that a colon ends ("**What the context still lacks:**") labels
            # the list under it, not the prose after (a played answer's next paragraph,
            # on helpers it had set apart, had been read as lacking them).
            line_end = text.find("\n", head)
            label = text[head : len(text) if line_end < 0 else line_end].rstrip()
            if not text.startswith("#", head) and label.rstrip("*_").endswith(":"):
                end = min(end, _list_after(text, head) or end)
        # a label that ends with its colon ("Missing:") is on the line the list follows
        elif (listed := _list_after(text, saying.end() - saying.group().endswith(":"))) is not None:
            by_heading, end = True, listed  # "Still missing from the context:" and a list
        elif (label := _LABEL.match(text, head)) and saying.end() <= label.end():
            by_heading = True  # "**Still missing:** `a`; the body of `b`": its paragraph
        found.append((start, max(end, saying.end()), by_heading, headed, [saying.span()]))
    return text, tuple(_Passage(a, b, c, h, tuple(d)) for a, b, c, h, d in found)


def _list_after(text: str, at: int) -> int | None:
    """Where the list ends that follows the line ``at`` is on, when that line ends with
    a colon ("Still missing from the context:", then "1. ...", "2. ..."), or is all
    bold ("**Still missing.**": a played answer's list under it had asked for nothing):
    the list says what is missing, as a heading's section does. ``None`` when the line ends
    otherwise, no list follows, or another sentence than the saying's ends with the
    colon and says no need (:func:`_asks_for`): the list is that sentence's ("The
    context gives no rationale. These are the general reasons:" lists reasons, and the
    names in them had been told as code the answer asked for). A list item's sub-list
    then goes on with the item in any case ("2. L1749-1755 are left out. The shown part
    loops over `slots`:" introduces shown code). Reads each line once."""
    line_end = text.find("\n", at)
    if line_end < 0:
        return None
    line_start = text.rfind("\n", 0, at) + 1
    if _BOLD_LINE.fullmatch(text[line_start:line_end].rstrip()):
        pass  # "**Still missing.**": a heading that a stop ends, the list its section
    elif not text[at:line_end].rstrip().endswith(":"):
        return None
    else:
        introduced = at  # where the sentence that ends with the colon starts
        for end in SENTENCE_END.finditer(text, at, line_end):
            if not text.endswith(_ABBREVIATIONS, max(at, end.start() - 4), end.end()):
                introduced = end.end()
        if introduced > at and (
            _LIST_ITEM.match(text, line_start) or not _asks_for(text[introduced:line_end])
        ):
            return None
    return list_below(text, line_end + 1, len(text))[0]


_NEED = re.compile(
    r"\b(?:need|needs|needed|require|requires|required|missing|lack|lacks|provide|want)\b"
)
"""A word of needing or asking for what is not there ("I would need:", "Please
provide:", "Also missing:")."""
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "cf.", "vs.")
"""Stops that end no sentence ("The context does not show several helpers, e.g. `Foo`
and others:" is one sentence)."""


def _asks_for(sentence: str) -> bool:
    """Whether ``sentence``, one that introduces a list after a saying's sentence, says
    the list is of what is needed: it says so itself, or names a need or asks ("I would
    need:", "Please provide:"); not "`factorize` appears on:", which lists what the
    context shows."""
    return (
        _NEED.search(sentence.lower()) is not None or next(sayings_in(sentence), None) is not None
    )


def lacking_sentences(body: str) -> Iterator[str]:
    """The text of each span of :func:`_lacking_spans`."""
    return (body[start:end] for start, end in _lacking_spans(body))


def _lacking_spans(body: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets in ``body`` of what it says its context lacks: the
    sentence of each saying of :func:`insufficient_passages` (from the end of the
    sentence before to the first end after it: a saying may run over a line break), or
    the whole section under a heading that says it (each of its items says what is
    missing); a sentence holding several sayings, once; in order."""
    text, passages = _read(body)
    if not passages:
        return []
    ends = [end.end() for end in SENTENCE_END.finditer(text)]
    spans = []
    for passage in passages:
        if passage.by_heading:
            spans.append((passage.start, passage.end))
            continue
        last = -1
        for start, end in passage.sayings:
            first = bisect.bisect_right(ends, start) - 1  # the last end before the saying
            after = bisect.bisect_left(ends, end)  # the first end at or after it
            if after == last:
                continue
            last = after
            begin = max(passage.start, ends[first] if first >= 0 else 0)
            spans.append((begin, min(passage.end, ends[after] if after < len(ends) else len(body))))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):  # a saying over a sentence's end overlaps the next
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


_BLOCK = re.compile(r"\n(?=[ \t\r]*\n|[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]| {0,3}(?:#|```|~~~))")
"""Where a block of Markdown starts: after a blank line, at a list item, a heading or a
code fence."""
_BOLD_TEXT = r"(?:[^*_`\n]|`[^`\n]{1,80}`){1,80}"
"""The text of a bold heading or label: no ``*`` or ``_`` but in code spans, so that
"**Consistency between `deviations_` and `centroids_`: what is missing**" heads its
section (a played answer's list under it had asked for nothing). Each unit starts with
its own character, a code span's ends at its first backtick: linear."""
_HEADING = re.compile(
    r"^ {0,3}(?:#|(?:\*\*|__)" + _BOLD_TEXT + r"(?<![.!?])(?:\*\*|__):?[ \t]*$)", re.MULTILINE
)
"""A heading: an ATX heading, or a short line that is all bold and no sentence
(``**What the context lacks**``, not ``**Note: the body is not shown.**``), as models
write a heading (each part excludes the next: linear)."""
_BOLD_LINE = re.compile(r" {0,3}(?:\*\*|__)" + _BOLD_TEXT + r"(?:\*\*|__)")
"""A line that is all bold (matched whole), a stop before its closing marks or not."""
_LABEL = re.compile(r" {0,3}(?:\*\*|__)" + _BOLD_TEXT + r"?(?::(?:\*\*|__)|(?:\*\*|__):)[ \t]*\S")
"""A bold label that ends with a colon and opens a paragraph, its text on the same line
(``**Still missing:** the definition of `f`; ...``): when it says what the context
lacks, its paragraph is the answer's own list of what it needs, as a heading's section
is (each part excludes the next: linear)."""
_ATX = re.compile(r"^ {0,3}#", re.MULTILINE)
"""An ATX heading: what ends a section a ``#`` heading starts (a bold label inside it
does not)."""
