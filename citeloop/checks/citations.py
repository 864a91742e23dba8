"""Find the structured citations of an answer: ``[3]``, ``(Smith et al., 2020)``, ``@key``.

A signal check: :func:`validate_citations` reads any text and never raises on it; it
reports what it found, and :func:`citations_check` turns requirements (how many
sources, which style, numbers within ``1..max_number``) into a :class:`Check`.

Three styles are read, each after code spans and fenced code blocks are blanked out
(:func:`mask_code`), so ``a[0]``, ``print("[1]")`` and ``@decorator`` in code are never
citations:

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

**Author-year** (APA / Harvard / Chicago author-date), in parentheses or brackets:
``(Smith et al., 2020; Doe 2019)``, ``(Walker, 2008, p. 34)`` (locators are dropped),
``(Smith and Jones 2019)``, ``(Smith & Jones, 2019)``, ``(Doe 2019, 2020a)``,
``(see e.g. van der Berg, 2018)``, ``[Smith 2020]``; and narrative forms
``Smith et al. (2020)``, ``Smith's (2020)``, ``according to Smith (2020)`` and
``Smith (2020) found`` (a reporting verb follows). A single capitalized word before a
parenthesized year without such a cue (``Inception (2010) is a film``) is a title or
a product as often as an author, so it is not read. Years are 1500-2099 with an
optional letter (``2020a``); the pair keeps the year as an ``int`` (the letter is
dropped). An author is one to twelve words: capitalized names, initials, particles
(``van``, ``de``, ...), ``and``/``&``/``et al.``; ``et al`` is written ``et al.``.
Months, seasons and words such as ``Since`` or ``Published`` are not authors, so
``(March 2020)`` and ``(since 2019)`` are not citations. Nor are products and releases
named with a year: a single word from a short product list (``Windows``, ``Office``,
``Python``, ``Java``, ``Excel``, ``Linux``, ...: ``(Windows 2000)``), an author ending
in a release word (``Version``, ``Release``, ``Edition``, ``Model``, ``Series``,
``Update``, ``Server``, ``Studio``, ...: ``(Visual Studio 2019)``), or ending in a
product word without a comma before the year (``(Microsoft Office 2019)``; the
corporate author ``(Cabinet Office, 2020)`` is read). Acronyms stay authors:
``(WHO, 2020)``, ``(IBM 2019)``.

**Keys** (pandoc, https://pandoc.org/MANUAL.html#citation-syntax): ``@knuth1984``,
``[@lamport1994, p. 12]``, ``[-@doe99]``, ``@{braced key}``. A key starts with a letter,
digit or ``_`` and may contain the internal punctuation ``:.#$%&-+?<>~/`` (a
punctuation character followed by a letter, digit or ``_``, so ``@knuth1984.`` is
``knuth1984``). An ``@`` after a word character or ``.+%/@&#$~\\=:`` is not a citation:
``team@example.org`` and ``user@host`` are addresses. Nor is code or a handle: a
decorator (a key followed directly by ``(``: ``@app.route("/")``, ``@lru_cache(1)``;
or alone on its line after at most indentation: ``@dataclass``, ``@Override``), an npm
scoped package (``@scope/name`` in lower case: ``npm install @types/node``) and a
handle after a cue word (``contact``, ``ping``, ``cc``, ``follow``, ``dm``,
``message``, ``mention``, ``tag``, ``tweet``, ``reply``, ``thanks``: ``contact
@john_doe``; ``by`` and ``to`` are not cues, as ``shown by @knuth1984`` is a
citation). LaTeX ``\\cite{a,b}`` (and ``\\citep``, ``\\parencite``, ...) give keys
too.

Work is linear in the text length: every pattern is a character class or a bounded
repetition, and range expansion is capped (:data:`MAX_RANGE_SPAN` per range,
:data:`MAX_EXPANDED` numbers per text).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from citeloop.checks.check import Check, CheckOutcome, Problem, failed, require_text
from citeloop.errors import ConfigurationError
from citeloop.text import normalize_text

NUMERIC = "numeric"
AUTHOR_YEAR = "author_year"
KEY = "key"
STYLES: tuple[str, ...] = (NUMERIC, AUTHOR_YEAR, KEY)
"""The citation styles, as used in :attr:`CitationSpan.kind` and ``style=``."""

MAX_RANGE_SPAN = 1000
"""A range of more numbers than this (``[1-100000000]``) is not expanded."""
MAX_EXPANDED = 100_000
"""At most this many numbers come from expanding ranges, over the whole text."""

_EXAMPLES = {
    NUMERIC: "numeric citations such as [1] or [2-4]",
    AUTHOR_YEAR: "author-year citations such as (Smith et al., 2020)",
    KEY: "citation keys such as @knuth1984 or [@knuth1984, p. 5]",
}


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


@dataclass(frozen=True, slots=True)
class Citations:
    """The citations of a text (see :func:`validate_citations`).

    Attributes:
        numeric: Every cited number, sorted, each once (ranges expanded).
        author_year: ``(author, year)`` pairs in order of first appearance, each once.
        keys: Citation keys in order of first appearance, each once.
        spans: Every marker in text order.
        capped_ranges: ``(low, high)`` ranges wider than :data:`MAX_RANGE_SPAN` (or past
            the :data:`MAX_EXPANDED` budget): only their two ends are in ``numeric``.
    """

    numeric: tuple[int, ...] = ()
    author_year: tuple[tuple[str, int], ...] = ()
    keys: tuple[str, ...] = ()
    spans: tuple[CitationSpan, ...] = ()
    capped_ranges: tuple[tuple[int, int], ...] = ()

    @property
    def styles(self) -> frozenset[str]:
        """The styles used: a subset of ``{"numeric", "author_year", "key"}``."""
        return frozenset(span.kind for span in self.spans)

    def source_count(self, style: str | None = None) -> int:
        """How many distinct sources are cited (of one style, or of all).

        Raises:
            ConfigurationError: ``style`` is not one of :data:`STYLES` or ``None``.
        """
        style = _check_style(style)
        counts = {NUMERIC: len(self.numeric), AUTHOR_YEAR: len(self.author_year)}
        counts[KEY] = len(self.keys)
        return counts[style] if style else sum(counts.values())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: lists instead of tuples."""
        return {
            "numeric": list(self.numeric),
            "author_year": [[author, year] for author, year in self.author_year],
            "keys": list(self.keys),
            "spans": [span.to_dict() for span in self.spans],
            "capped_ranges": [list(pair) for pair in self.capped_ranges],
        }


# --- code ------------------------------------------------------------------------------

# CommonMark §4.5: a fence is three or more backticks or tildes, indented 0-3 spaces.
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)", re.MULTILINE)
_BACKTICKS = re.compile(r"`+")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_NOT_NEWLINE = re.compile(r"[^\n]+")


def _fenced_blocks(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each fenced code block; an unclosed fence runs to the end."""
    fences = list(_FENCE.finditer(text))
    index = 0
    while index < len(fences):
        opening = fences[index]
        marker = opening.group(1)
        if marker[0] == "`" and "`" in opening.group(2):
            index += 1  # CommonMark: a backtick fence's info string has no backtick
            continue
        index += 1
        end = len(text)
        while index < len(fences):
            closing = fences[index]
            index += 1
            run = closing.group(1)
            if run[0] == marker[0] and len(run) >= len(marker) and not closing.group(2).strip():
                end = closing.end()
                break
        yield opening.start(), end


def _code_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each code span in ``text[start:end]`` (one paragraph).

    CommonMark §6.1: a run of N backticks opens a span that the next run of exactly N
    backticks closes; a run with no such partner is literal. The partner of every run
    is found in one backward pass, so the whole scan is linear.
    """
    runs = [(match.start(), match.end()) for match in _BACKTICKS.finditer(text, start, end)]
    partner: list[int] = [-1] * len(runs)
    last_of_length: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        length = runs[index][1] - runs[index][0]
        partner[index] = last_of_length.get(length, -1)
        last_of_length[length] = index
    index = 0
    while index < len(runs):
        if partner[index] == -1:
            index += 1
            continue
        yield runs[index][0], runs[partner[index]][1]
        index = partner[index] + 1


def mask_code(text: str) -> str:
    """``text`` with code spans and fenced code blocks blanked out.

    Every character inside code (backticks and fences included) becomes a space,
    newlines excepted, so offsets and line numbers of the rest are unchanged. Indented
    code blocks are left alone: four spaces also continue a list item's text. Linear
    in ``len(text)``.

    Example:
        >>> mask_code("see `a[0]` and [1]")
        'see        and [1]'
    """
    if "`" not in text and "~~~" not in text:
        return text
    regions = list(_fenced_blocks(text))
    outside: list[tuple[int, int]] = []
    last = 0
    for start, end in regions:
        outside.append((last, start))
        last = end
    outside.append((last, len(text)))
    for start, end in outside:
        if "`" not in text[start:end]:
            continue
        paragraph_start = start
        for match in _PARAGRAPH_BREAK.finditer(text, start, end):
            regions.extend(_code_spans(text, paragraph_start, match.start()))
            paragraph_start = match.end()
        regions.extend(_code_spans(text, paragraph_start, end))
    if not regions:
        return text
    regions.sort()
    pieces: list[str] = []
    last = 0
    for start, end in regions:
        pieces.append(text[last:start])
        pieces.append(_NOT_NEWLINE.sub(lambda match: " " * len(match.group()), text[start:end]))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


# --- numeric ---------------------------------------------------------------------------


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_BRACKET = re.compile(r"\[([^\[\]\n]{1,200})\]")
_DASHES = "-‐‑‒–—"  # hyphen-minus, hyphen, non-breaking hyphen, figure, en, em dash
_DASH_SET = frozenset(_DASHES)
_NUMBER_ITEM = re.compile(r"([0-9]{1,9})(?:[ \t]*[" + _DASHES + r"][ \t]*([0-9]{1,9}))?")
_LOCATOR_WORD = re.compile(r"§|¶|[^\W\d_]+")
_LOCATORS = _word_set(
    "p pp page pages ch chap chapter sec sect section fig figs figure tab table eq eqs eqn "
    "equation thm theorem lemma def para paras paragraph vol volume no nos n l ll line lines "
    "col art app appendix fn note notes at slide slides min esp cf § ¶"
)
# An identifier can precede an index by this many characters at most before we stop
# looking for its start (a long run of digits then reads as an identifier).
_MAX_TOKEN_LOOKBACK = 64


def _is_locator(part: str) -> bool:
    """Whether ``part`` starts with a locator word: ``p. 5``, ``pp. 3-4``, ``Fig. 2``."""
    match = _LOCATOR_WORD.match(part)
    return match is not None and match.group().lower() in _LOCATORS


def _numeric_ranges(content: str) -> list[tuple[int, int]] | None:
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
            elif index and ranges and _is_locator(part):
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


class _Expander:
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


def _numeric_spans(text: str, masked: str, expander: _Expander) -> list[CitationSpan]:
    spans: list[CitationSpan] = []
    last_end = -1
    single: int | None = None  # the number of the last span, when it cites one alone
    calls = _Calls(masked)
    for match in _BRACKET.finditer(masked):
        start, end = match.span()
        ranges = _numeric_ranges(match.group(1))
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


# --- author-year -----------------------------------------------------------------------

_PARENS = re.compile(r"\(([^()]{1,500})\)")
_YEAR = re.compile(r"(?<![\w./\-])(1[5-9][0-9]{2}|20[0-9]{2})[a-z]?(?![\w/\-])")
_PREFIXES = (
    "see also",
    "see, e.g.,",
    "see e.g.",
    "see",
    "also",
    "e.g.,",
    "e.g.",
    "eg,",
    "eg",
    "cf.",
    "cf",
    "i.e.,",
    "i.e.",
    "for example,",
    "for example",
    "for instance,",
    "for instance",
    "as cited in",
    "cited in",
    "quoted in",
    "as reviewed in",
    "reviewed in",
    "discussed in",
    "adapted from",
    "data from",
    "based on",
    "according to",
    "compare",
    "but see",
    "contra",
    "following",
    "after",
    "in",
    "by",
)
_PARTICLES = _word_set(
    "van von de der den del della dei des di da du la le ter ten dos das do zu al el bin "
    "ibn st. mac d' l'"
)
_CONNECTORS = frozenset(("and", "&", "et", "al.", "al", "y", "und"))
# Lower-case words allowed between the capitalized words of an organisation's name.
_ORG_WORDS = frozenset(("of", "for", "the", "on", "in"))
_NOT_AUTHORS = _word_set(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec spring summer fall autumn winter "
    "monday tuesday wednesday thursday friday saturday sunday "
    "since in by from until till before after during circa ca est published released "
    "updated accessed retrieved founded established copyright version revised edition ed "
    "eds vol volume no fig figure table page pp year years fy ad bc bce ce usd eur gbp "
    "early late mid around about approx approximately born died see also cf e.g i.e "
    "as at to a an this that these those our we it its there here"
)
# Products and releases named with a year: (Windows 2000), (Office 2019), (Visual Studio
# 2019). Such a word alone is not an author; a release word never ends one; a product
# word ends one only before a comma (the APA form of a corporate author: Cabinet Office,
# 2020), so (Microsoft Office 2019) is not read.
_PRODUCTS = _word_set(
    "windows office python java javascript excel word powerpoint outlook access android "
    "ubuntu debian fedora linux macos chrome chromium firefox safari matlab iphone ipad "
    "xbox playstation photoshop sql mysql postgresql postgres node django"
)
_RELEASES = _word_set(
    "version release edition model series update server studio pro professional enterprise ultimate"
)
_MAX_AUTHOR_WORDS = 12
_REPORTING_VERBS = _word_set(
    "found finds find show showed shows shown argue argued argues report reported reports "
    "note noted notes suggest suggested suggests demonstrate demonstrated demonstrates "
    "propose proposed proposes describe described describes observe observed observes "
    "conclude concluded concludes claim claimed claims state stated states write wrote "
    "writes explain explained explains introduce introduced introduces present presented "
    "presents develop developed develops define defined defines estimate estimated "
    "estimates measure measured measures discuss discussed discusses identify identified "
    "identifies examine examined examines investigate investigated investigates analyze "
    "analyzed analyzes analyse analysed analyses point pointed points emphasize emphasized "
    "emphasizes highlight highlighted highlights reviewed reviews review surveyed surveys "
    "compared compares tested tests studied studies recommend recommended recommends "
    "observe coined coins established establishes confirmed confirms"
)
_BRIDGE_WORDS = frozenset(("also", "further", "later", "first", "similarly", "recently"))
_NARRATIVE_LEAD = ("according to", "as noted by", "as shown by", "as argued by", "following")
_NARRATIVE_WINDOW = 120


def _is_name_word(word: str) -> bool:
    """A capitalized name or initial: ``Smith``, ``O'Neil``, ``García-Márquez``, ``J.``."""
    if not word[:1].isupper():
        return False
    return all(
        char.isalpha() or char in "-'’." or unicodedata.category(char).startswith("M")
        for char in word
    )


def _strip_prefixes(lead: str) -> str:
    changed = True
    while changed and lead:
        changed = False
        lowered = lead.lower()
        for prefix in _PREFIXES:
            if lowered.startswith(prefix) and (
                len(lowered) == len(prefix) or not lowered[len(prefix)].isalnum()
            ):
                lead = lead[len(prefix) :].lstrip(" ,:")
                changed = True
                break
    return lead


def _author_name(lead: str, comma: bool = False) -> str | None:
    """The author named by ``lead`` (the text before a year), or ``None``.

    ``comma``: a comma separates ``lead`` from the year (``Cabinet Office, 2020``).
    """
    words = _strip_prefixes(" ".join(lead.split())).rstrip(" ,:").split()
    if not 1 <= len(words) <= _MAX_AUTHOR_WORDS:
        return None
    final = words[-1].rstrip(",.").lower()
    if final in _RELEASES or (final in _PRODUCTS and (len(words) == 1 or not comma)):
        return None  # (Windows 2000), (Visual Studio 2019), (Microsoft Office 2019)
    names = 0
    for index, written in enumerate(words):
        word = written.rstrip(",")
        lowered = word.lower()
        if lowered == "the" and index == 0:
            continue  # (The Guardian, 2020); "The" alone names nothing
        if _is_name_word(word):
            if lowered.rstrip(".") in _NOT_AUTHORS:
                return None  # (March 2020), (Since 2019), (Published 2021)
            names += 1
        elif lowered in _CONNECTORS:
            if index == 0 or (lowered in ("al", "al.") and words[index - 1].lower() != "et"):
                return None
        elif lowered in _PARTICLES:
            if index == len(words) - 1:
                return None
        elif lowered in _ORG_WORDS:
            if (index == 0 and lowered != "the") or index == len(words) - 1:
                return None
        else:
            return None
    last = words[-1].rstrip(",").lower()
    if not names or last in ("and", "&", "et") or last in _ORG_WORDS:
        return None
    return _tidy_author(words)


def _tidy_author(words: list[str]) -> str:
    author = " ".join(words).rstrip(",")
    if author.endswith(" et al"):
        author += "."
    return normalize_text(author)


def _year_pairs(content: str, narrative: str | None = None) -> list[tuple[str, int]]:
    """The (author, year) pairs of a citation's content (``Smith, 2020; Doe 2019``).

    ``narrative`` is the author written before the parenthesis (``Smith et al. (2020)``);
    it names a year that opens the content.
    """
    pairs: list[tuple[str, int]] = []
    for number, group in enumerate(content.split(";")):
        author: str | None = None
        position = 0
        for match in _YEAR.finditer(group):
            raw = group[position : match.start()]
            lead = raw.strip(" \t\n,:")
            comma = raw.rstrip(" \t\n").endswith(",")
            position = match.end()
            if not lead:
                if author is None and number == 0 and narrative and not pairs:
                    author = narrative
            elif lead.lower() in ("and", "&") and author is not None:
                pass  # (Smith 2019 and 2020)
            else:
                author = _author_name(lead, comma)
                if author is None and _is_locator(lead):
                    break  # (Walker, 2008, p. 1234): the rest of the group is a locator
            if author is not None:
                pairs.append((author, int(match.group(1))))
    return pairs


def _year_first(content: str) -> bool:
    """Whether ``content`` opens with a year (``2020``, ``2020a, p. 5``)."""
    match = _YEAR.search(content)
    return match is not None and not content[: match.start()].strip()


def _narrative_author(text: str, position: int) -> str | None:
    """The author written right before the parenthesis at ``position``, if cued.

    ``Smith et al. (2020)`` always counts; ``Smith's (2020)``, ``according to Smith
    (2020)`` and ``Smith (2020) found`` (a reporting verb follows) count; other names
    before a year are as often titles (``Inception (2010)``) and do not.
    """
    words = text[max(0, position - _NARRATIVE_WINDOW) : position].split()
    if not words:
        return None
    cued = False
    index = len(words) - 1
    collected: list[str] = []
    if words[index] in ("al.", "al") and index and words[index - 1] == "et":
        collected = ["et", "al."]
        index -= 2
        cued = True
    if index < 0:
        return None
    last = words[index]
    for suffix in ("'s", "’s"):
        if last.endswith(suffix) and not collected:
            last, cued = last[: -len(suffix)], True
    if not _is_name_word(last) or last.lower().rstrip(".") in _NOT_AUTHORS:
        return None
    collected.insert(0, last)
    index -= 1
    while index >= 0 and words[index].lower() in _PARTICLES:
        collected.insert(0, words[index])
        index -= 1
    if index >= 1 and words[index].lower() in ("and", "&"):
        # Smith and Jones (2020); Smith, Jones, and Lee (2020)
        collected.insert(0, words[index])
        index -= 1
        while index >= 0:
            word = words[index]
            bare = word.rstrip(",")
            if not _is_name_word(bare) or bare.lower().rstrip(".") in _NOT_AUTHORS:
                break
            collected.insert(0, word)
            index -= 1
            if index < 0 or not words[index].endswith(","):
                break
        if collected[0].lower() in ("and", "&"):
            return None
    preceding = " ".join(words[max(0, index - 2) : index + 1]).lower()
    if preceding.endswith(_NARRATIVE_LEAD):
        cued = True
    if not cued:
        following = text[position : position + _NARRATIVE_WINDOW + 40]
        close = following.find(")")
        after = following[close + 1 :].split()[:2] if close != -1 else []
        after = [word.strip(",.;:").lower() for word in after]
        if after and after[0] in _BRIDGE_WORDS:
            after = after[1:]
        cued = bool(after) and after[0] in _REPORTING_VERBS
    return _tidy_author(collected) if cued else None


def _author_year_spans(text: str, masked: str) -> list[CitationSpan]:
    spans: list[CitationSpan] = []
    for pattern in (_PARENS, _BRACKET):
        for match in pattern.finditer(masked):
            content = match.group(1)
            if _YEAR.search(content) is None or "@" in content:
                continue
            start, end = match.span()
            if pattern is _BRACKET and (
                _numeric_ranges(content) is not None or masked[start - 1 : start] == "!"
            ):
                continue
            narrative = None
            if pattern is _PARENS and _year_first(content):
                narrative = _narrative_author(masked, start)
                if narrative is None:
                    continue
            pairs = _year_pairs(content, narrative)
            if pairs:
                spans.append(CitationSpan(AUTHOR_YEAR, start, end, text[start:end], tuple(pairs)))
    return spans


# --- keys ------------------------------------------------------------------------------

_KEY = re.compile(r"@(?:\{([^{}\n]{1,200})\}|([^\W][\w]*(?:[:.#$%&\-+?<>~/][\w]+)*))")
_NOT_BEFORE_KEY = frozenset(".+%/@&#$~\\=:")
_NPM_SCOPED = re.compile(r"[a-z0-9][a-z0-9._~-]*/[a-z0-9._~-]+")
_LINE_REST = re.compile(r"[ \t]*(?:\n|\Z)")
_HANDLE_CUES = _word_set(
    "contact contacting ping cc follow dm message mention tag tweet reply thanks"
)
_CUE_WORD = re.compile(r"([^\W\d_]+)[ \t]*\Z")


def _not_a_key(masked: str, start: int, end: int, key: str) -> bool:
    """Whether the ``@key`` at ``start:end`` is code or a handle, not a citation.

    A decorator: a key followed directly by ``(`` (``@app.route("/")``,
    ``@lru_cache(maxsize=1)``), or alone on its line after at most indentation
    (``@dataclass``, ``@Override``). An npm scoped package: ``@scope/name`` in lower
    case (``@types/node``). A handle after a cue word: ``contact @john_doe``, ``ping
    @ops``, ``follow @citeloop``.
    """
    if masked.startswith("(", end):
        return True
    indent = start
    while indent and masked[indent - 1] in " \t":
        indent -= 1  # each blank is walked back over by the one key after it: linear
    if (not indent or masked[indent - 1] == "\n") and _LINE_REST.match(masked, end):
        return True
    if _NPM_SCOPED.fullmatch(key):
        return True
    cue = _CUE_WORD.search(masked, max(0, start - 24), start)
    return cue is not None and cue.group(1).lower() in _HANDLE_CUES


_LATEX_CITE = re.compile(
    r"\\(?:[A-Za-z]{0,12}cite[A-Za-z]{0,12})\*?(?:\[[^\]\n]{0,100}\]){0,2}\{([^{}\n]{1,500})\}"
)


def _key_spans(text: str, masked: str) -> list[CitationSpan]:
    spans: list[CitationSpan] = []
    if "@" in masked:
        for match in _KEY.finditer(masked):
            start = match.start()
            before = masked[start - 1] if start else ""
            if before.isalnum() or before == "_" or before in _NOT_BEFORE_KEY:
                continue  # team@example.org, a handle inside a word
            key = (match.group(1) or match.group(2)).strip()
            if key and (match.group(2) is None or not _not_a_key(masked, start, match.end(), key)):
                end = match.end()
                spans.append(CitationSpan(KEY, start, end, text[start:end], (key,)))
    if "\\" in masked:
        for match in _LATEX_CITE.finditer(masked):
            keys = tuple(key.strip() for key in match.group(1).split(",") if key.strip())
            if keys:
                start, end = match.span()
                spans.append(CitationSpan(KEY, start, end, text[start:end], keys))
    return spans


# --- API -------------------------------------------------------------------------------


def validate_citations(text: str) -> Citations:
    """Find the numeric, author-year and key citations of ``text``.

    See the module docstring for the forms read and those deliberately not read. A
    signal check: it never raises on odd text (empty, huge, binary, broken Markdown).

    Args:
        text: The answer.

    Returns:
        The :class:`Citations` found; empty when there are none.

    Raises:
        ConfigurationError: ``text`` is not a str.

    Example:
        >>> found = validate_citations("Known [3-5], [1] (Smith et al., 2020); see @knuth1984.")
        >>> found.numeric, found.author_year, found.keys
        ((1, 3, 4, 5), (('Smith et al.', 2020),), ('knuth1984',))
    """
    require_text(text)
    masked = mask_code(text)
    expander = _Expander()
    spans = _numeric_spans(text, masked, expander)
    spans += _author_year_spans(text, masked)
    spans += _key_spans(text, masked)
    spans.sort(key=lambda span: (span.start, span.end))
    pairs: dict[tuple[str, int], None] = {}
    keys: dict[str, None] = {}
    for span in spans:
        if span.kind == AUTHOR_YEAR:
            pairs.update(dict.fromkeys(span.items))
        elif span.kind == KEY:
            keys.update(dict.fromkeys(span.items))
    return Citations(
        numeric=tuple(sorted(expander.numbers)),
        author_year=tuple(pairs),
        keys=tuple(keys),
        spans=tuple(spans),
        capped_ranges=tuple(expander.capped),
    )


def _check_style(style: str | None) -> str | None:
    if style is not None and style not in STYLES:
        raise ConfigurationError(
            f"style must be None or one of {', '.join(map(repr, STYLES))}; got {style!r}"
        )
    return style


def _check_int(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigurationError(f"{name} must be an int >= {minimum}, got {value!r}")


def citations_check(
    *,
    min_count: int = 1,
    style: str | None = None,
    max_number: int | None = None,
    on_fail: str = "reask",
) -> Check:
    """A :class:`Check` named ``"citations"`` over :func:`validate_citations`.

    It fails when the answer cites fewer than ``min_count`` distinct sources (numbers,
    author-year pairs and keys each count once; only the given ``style`` counts when
    set), uses another style than ``style``, cites a number outside
    ``1..max_number``, or writes a range too wide to expand (:data:`MAX_RANGE_SPAN`).
    The outcome's ``value`` is the :class:`Citations`; there is no ``fixed`` text
    (citations cannot be invented).

    Args:
        min_count: Fewest distinct sources to cite (``0``: no minimum).
        style: ``None`` (any), ``"numeric"``, ``"author_year"`` or ``"key"``.
        max_number: The number of sources, for numeric citations ``[1]..[max_number]``.
        on_fail: The failure policy (see :class:`citeloop.checks.check.OnFail`).

    Returns:
        The check.

    Raises:
        ConfigurationError: A negative or non-int ``min_count``, an unknown ``style``, a
            ``max_number`` below 1, or an unknown ``on_fail``.

    Example:
        >>> check = citations_check(style="numeric", max_number=3)
        >>> check("As shown [2].").passed, check("As shown [7].").passed
        (True, False)
    """
    _check_int("min_count", min_count, 0)
    _check_style(style)
    if max_number is not None:
        _check_int("max_number", max_number, 1)
    expected = _EXAMPLES[style] if style else "citations such as [1], (Smith, 2020) or @key"
    if max_number is not None and style in (None, NUMERIC):
        expected += f"; numbers from 1 to {max_number}"

    def run(text: str) -> CheckOutcome:
        found = validate_citations(text)
        problems = _count_problems(found, min_count, style, expected)
        if style is not None:
            problems += _style_problems(found, style)
        problems += _number_problems(found, max_number, expected)
        if problems:
            return failed("citations", problems, value=found)
        return CheckOutcome("citations", True, value=found)

    return Check("citations", run, on_fail)  # type: ignore[arg-type]


def _count_problems(
    found: Citations, min_count: int, style: str | None, expected: str
) -> list[Problem]:
    count = found.source_count(style)
    if count >= min_count:
        return []
    kind = f"{style.replace('_', '-')} " if style else ""
    message = (
        f"the answer cites {count} {kind}source{'s' if count != 1 else ''}; "
        f"at least {min_count} {'are' if min_count != 1 else 'is'} required"
    )
    fix = f"cite the sources each claim comes from, using {expected}"
    details = {"count": count, "min_count": min_count, "style": style}
    return [Problem(message, expected, fix, details)]


def _style_problems(found: Citations, style: str) -> list[Problem]:
    problems = []
    for span in found.spans:
        if span.kind != style:
            message = (
                f"the citation {span.text!r} is in {span.kind.replace('_', '-')} style; "
                f"only {_EXAMPLES[style]} are accepted"
            )
            fix = f"rewrite {span.text!r} as one of the {_EXAMPLES[style]}"
            details = {"position": span.start, "citation": span.text, "kind": span.kind}
            problems.append(Problem(message, _EXAMPLES[style], fix, details))
    return problems


def _number_problems(found: Citations, max_number: int | None, expected: str) -> list[Problem]:
    problems = []
    for low, high in found.capped_ranges:
        message = (
            f"the citation range {low}-{high} spans more than {MAX_RANGE_SPAN} numbers, "
            "so it cannot name the sources used"
        )
        fix = "cite the specific sources, e.g. [1, 3] or [2-4]"
        problems.append(Problem(message, expected, fix, {"low": low, "high": high}))
    if max_number is not None:
        outside = [number for number in found.numeric if not 1 <= number <= max_number]
        if outside:
            shown = ", ".join(map(str, outside[:10])) + (", ..." if len(outside) > 10 else "")
            message = (
                f"citation number{'s' if len(outside) > 1 else ''} {shown} "
                f"{'are' if len(outside) > 1 else 'is'} outside 1..{max_number} "
                f"(there are {max_number} sources)"
            )
            fix = f"cite only sources 1 to {max_number}, by their numbers in the source list"
            details = {"numbers": ", ".join(map(str, outside[:100])), "max_number": max_number}
            problems.append(Problem(message, expected, fix, details))
    return problems
