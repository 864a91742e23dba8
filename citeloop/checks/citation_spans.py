"""Citation spans (:class:`CitationSpan`) and numeric citations.

**Numeric** (IEEE / Vancouver): ``[3]``, ``[3-5]`` and ``[3–5]`` (hyphen, en or em dash),
``[35, 2, 5]``, ``[1; 4]``, ``[1, 2, and 3]``, ``[1][2]``, ``[1]–[3]`` (a range across
two brackets), ``[3, p. 5]`` (a locator after a comma is dropped), ``2024[3]``
(attached to a number) and ``[1](https://...)`` (a numbered link, as search-grounded
assistants write them). Not citations: an index after an identifier or a closing
bracket or parenthesis (``a[0]``, ``x1[2]``, ``f(x)[1]``, ``[docs][1]``: a reference
link), an image (``![1](a.png)``), a link reference definition (``[1]: https://...``
at the start of a line), ``[docs]``, ``[^1]``, ``[x]``, a wiki link ``[[1]]`` and
numbers of more than nine digits. A bibliography line ``[1] Smith, J. ...`` reads like
a citation and is one. Unfenced code is told apart by where the bracket stands: right
after ``(`` or ``[`` (``print([1, 2])``, ``[[1, 2], ...]``; so ``([1])`` is not read
either), inside the parentheses of a call (a ``(`` right after a word character or a
closing bracket, paired within a paragraph: ``f([1], [2])``, ``np.array( [1, 2] )``)
or after ``=`` (``x = [1, 2]``), it is a list literal. Several numbers or a range
that include 0 (``[0, 1]``, ``[0-255]``) are an interval or a list: 0 is never a
citation number; a lone ``[0]`` is read, so 0-based numbering is reported by
:func:`citations_check`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

NUMERIC = "numeric"
AUTHOR_YEAR = "author_year"
KEY = "key"
STYLES: tuple[str, ...] = (NUMERIC, AUTHOR_YEAR, KEY)
"""The citation styles, as used in :attr:`CitationSpan.kind` and ``style=``."""

MAX_RANGE_SPAN = 1000
"""A range of more numbers than this (``[1-100000000]``) is not expanded."""
MAX_EXPANDED = 100_000
"""At most this many numbers come from expanding ranges, over the whole text."""


@dataclass(frozen=True, slots=True)
class CitationSpan:
    """One citation marker in the text.

    Attributes:
        kind: ``"numeric"``, ``"author_year"`` or ``"key"``.
        start: Offset of the marker's first character in the text (0-based).
        end: Offset one past its last character.
        text: The marker as written (``"[3-5]"``, ``"(Smith, 2020; Doe 2019)"``,
            ``"@knuth1984"``).
        items: What it cites: the numbers (a range expanded; a range too wide to
            expand gives its two ends), the ``(author, year)`` pairs or the keys.
    """

    kind: str
    start: int
    end: int
    text: str
    items: tuple[Any, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        items = [list(item) if isinstance(item, tuple) else item for item in self.items]
        return {
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "items": items,
        }


# --- numeric ---------------------------------------------------------------------------


def word_set(words: str) -> frozenset[str]:
    """The space-separated words of ``words`` as a set."""
    return frozenset(words.split())


BRACKET = re.compile(r"\[([^\[\]\n]{1,200})\]")
_DASHES = "-‐‑‒–—"  # hyphen-minus, hyphen, non-breaking hyphen, figure, en, em dash
_DASH_SET = frozenset(_DASHES)
_NUMBER_ITEM = re.compile(r"([0-9]{1,9})(?:[ \t]*[" + _DASHES + r"][ \t]*([0-9]{1,9}))?")
_LOCATOR_WORD = re.compile(r"§|¶|[^\W\d_]+")
_LOCATORS = word_set(
    "p pp page pages ch chap chapter sec sect section fig figs figure tab table eq eqs eqn "
    "equation thm theorem lemma def para paras paragraph vol volume no nos n l ll line lines "
    "col art app appendix fn note notes at slide slides min esp cf § ¶"
)
# An identifier can precede an index by this many characters at most before we stop
# looking for its start (a long run of digits then reads as an identifier).
_MAX_TOKEN_LOOKBACK = 64


def is_locator(part: str) -> bool:
    """Whether ``part`` starts with a locator word: ``p. 5``, ``pp. 3-4``, ``Fig. 2``."""
    match = _LOCATOR_WORD.match(part)
    return match is not None and match.group().lower() in _LOCATORS


def numeric_ranges(content: str) -> list[tuple[int, int]] | None:
    """The (low, high) ranges of a bracket's content, or ``None`` if it is not numeric."""
    if content.isdigit() and content.isascii() and len(content) <= 9:
        if content[0] == "0" and len(content) > 1:
            return None
        return [(int(content), int(content))]  # the usual [3]
    ranges: list[tuple[int, int]] = []
    for group in content.split(";"):
        for index, raw in enumerate(group.split(",")):
            part = raw.strip()
            if index and part[:4].lower() == "and ":
                part = part[4:].lstrip()  # [1, 2, and 3]
            elif index and part[:2] == "& ":
                part = part[2:].lstrip()
            if not part:
                continue
            match = _NUMBER_ITEM.fullmatch(part)
            if match is not None and part[0] == "0" and part[1:2].isdigit():
                return None  # [1,000] is a number; citation numbers have no leading zero
            if match is not None:
                low = int(match.group(1))
                high = int(match.group(2)) if match.group(2) else low
                ranges.append((min(low, high), max(low, high)))
            elif index and ranges and is_locator(part):
                break  # "[3, pp. 5, 7]": the rest of the group locates within source 3
            else:
                return None
    return ranges or None


def _identifier_before(text: str, position: int) -> bool:
    """Whether the word ending at ``position`` is an identifier (not all digits)."""
    index = position
    floor = max(0, position - _MAX_TOKEN_LOOKBACK)
    while index > floor and (text[index - 1].isalnum() or text[index - 1] == "_"):
        if not text[index - 1].isdigit() or not text[index - 1].isascii():
            return True
        index -= 1
    return index == floor and index > 0 and (text[index - 1].isalnum() or text[index - 1] == "_")


def _zero_list(ranges: list[tuple[int, int]]) -> bool:
    """Whether several numbers or a range include 0: ``[0, 1]``, ``[0-255]`` are
    intervals or lists (a lone ``[0]`` is read, so 0-based numbering is reported)."""
    return any(low == 0 for low, _ in ranges) and (len(ranges) > 1 or ranges[0][1] > 0)


_GROUPING = re.compile(r"[()]|\n[ \t]*\n")


class _Calls:
    """Whether a position lies inside the parentheses of a call: ``f(a, [1])``.

    Parentheses are paired in one forward pass (reset at each blank line); a ``(``
    right after a word character (``print(``, ``np.array(``) or a closing bracket opens
    a call. Positions must be asked in increasing order, so the whole scan is linear.
    """

    def __init__(self, masked: str) -> None:
        self.masked = masked
        self.events = _GROUPING.finditer(masked)
        self.pending = next(self.events, None)
        self.open: list[bool] = []  # per unclosed "(": whether it opens a call

    def inside(self, position: int) -> bool:
        while self.pending is not None and self.pending.start() < position:
            char = self.pending.group()
            if char == "(":
                start = self.pending.start()
                before = self.masked[start - 1] if start else " "
                self.open.append(before.isalnum() or before in "_])")
            elif char == ")":
                if self.open:
                    self.open.pop()
            else:
                self.open.clear()
            self.pending = next(self.events, None)
        return bool(self.open) and self.open[-1]


_ASSIGNMENT = re.compile(r"=[ \t]*\Z")


def _line_start(text: str, position: int) -> bool:
    """Whether only up to three spaces precede ``position`` on its line."""
    line_start = text.rfind("\n", max(0, position - 4), position) + 1
    if line_start == 0 and position > 3:
        return False
    return not text[line_start:position].strip(" ") and position - line_start <= 3


class RangeExpander:
    """Expands ranges within :data:`MAX_RANGE_SPAN` and the :data:`MAX_EXPANDED` budget."""

    def __init__(self) -> None:
        self.numbers: set[int] = set()
        self.capped: list[tuple[int, int]] = []
        self.budget = MAX_EXPANDED

    def add(self, low: int, high: int) -> tuple[int, ...]:
        width = high - low + 1
        if width <= 2:
            cited: tuple[int, ...] = tuple(range(low, high + 1))
        elif width <= MAX_RANGE_SPAN and width <= self.budget:
            self.budget -= width
            cited = tuple(range(low, high + 1))
        else:
            self.capped.append((low, high))
            cited = (low, high)
        self.numbers.update(cited)
        return cited


def numeric_spans(text: str, masked: str, expander: RangeExpander) -> list[CitationSpan]:
    """The numeric citations of ``text`` (``masked`` is ``text`` with its code blanked out)."""
    spans: list[CitationSpan] = []
    last_end = -1
    single: int | None = None  # the number of the last span, when it cites one alone
    calls = _Calls(masked)
    for match in BRACKET.finditer(masked):
        start, end = match.span()
        ranges = numeric_ranges(match.group(1))
        inside_call = calls.inside(start)
        if ranges is None or _zero_list(ranges):
            continue  # [0, 1], [0-255]: an interval or a list
        before = masked[start - 1] if start else ""
        if before in ("!", "\\"):
            continue  # an image, or an escaped bracket
        if before in ("(", "["):
            continue  # print([1, 2]), [[1, 2], ...]: a list literal; [[1]] a wiki link
        if inside_call or _ASSIGNMENT.search(masked, max(0, start - 8), start):
            continue  # f([1], [2]), g(a, [3]), x = [1, 2]: code
        if before in (")", "]") and start != last_end:
            continue  # f(x)[1], [docs][1]: an index or a reference link
        if (before.isalnum() or before == "_") and _identifier_before(masked, start):
            continue  # a[0], x1[2]; a number before it (2024[3]) is fine
        if masked.startswith(":", end) and _line_start(masked, start):
            continue  # [1]: https://... is a link reference definition
        between = masked[last_end:start].strip(" ") if single is not None else ""
        if (
            single is not None
            and between in _DASH_SET
            and len(ranges) == 1
            and ranges[0][0] == ranges[0][1]
        ):
            # [1]–[3]: one range written across two brackets.
            previous = spans.pop()
            low, high = sorted((single, ranges[0][0]))
            items = expander.add(low, high)
            spans.append(
                CitationSpan(NUMERIC, previous.start, end, text[previous.start : end], items)
            )
            single, last_end = None, end
            continue
        items: tuple[int, ...] = ()
        for low, high in ranges:
            items += expander.add(low, high)
        spans.append(CitationSpan(NUMERIC, start, end, text[start:end], items))
        single = ranges[0][0] if len(ranges) == 1 and ranges[0][0] == ranges[0][1] else None
        last_end = end
    return spans
