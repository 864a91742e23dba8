"""Source excerpts: the numbered lines of the code a context is most about.

A context's entity lines are a map (names, signatures, summaries, where); a question
about what a function does is answered by its body. So the best-placed functions,
methods and properties show their lines under their entity line, while they fit in a
share (:data:`EXCERPT_SHARE`) of the token budget: first a look at each of the core and
of what a previous answer named (:data:`FIRST_LOOK_LINES`), so that no long body leaves
another of them without source, then longer bodies for those, then the rest in rank
order (a class shows none: its best members follow it in that order, unless a retry's
answer said the context lacks it, when it shows its ``class`` line and docstring, where
a class says what it is for, and a line for the rest of its body: :func:`shows_docstring`)::

    Selectable.select_info: SelectStatementColumnsAndTables  # L74-144 — Returns …
        74 |     def select_info(self) -> SelectStatementColumnsAndTables:
           | … docstring (L75-76)
        77 |         if self.selectable.is_type("select_statement"):
        78 |             return get_select_statement_info(self.selectable, self.dialect)
           | … 66 more lines (L79-144)

An excerpt line is ``<line number> | <code>``, the code passed through
:func:`citeloop.text.data_line` (it can neither end the context block nor start a
line of its own) and cut at :data:`MAX_EXCERPT_LINE_CHARS`. A body longer than
:data:`MAX_EXCERPT_LINES` (or than the share left) is cut: it leaves out its signature
after the ``def`` line and its docstring (the entity line has the signature and the
summary; the signature's type names are not lines that use what the context is about),
and after its first line (and its ``def`` line, after decorators) it shows the lines that use
what the context is about (the names of what it calls, weighing more when the task's
words found them, then the task's words; a term used on fewer lines of the body weighs
more), each with a line either side (and a comment above read from its start), so
that a 200-line ``compile`` shows where it calls ``attach_edge`` rather than its
parameters. Each run left out is one line:
``       | … docstring (L75-80)``, ``       | … signature (L668-690)``, ``       | …
signature and docstring (L668-775)``, ``       | … 89 lines (L1302-1390)``. The lines are
read from the indexed folder only while the file is the one the graph indexed
(:class:`~citeloop.knowledge.source.SourceReader`), so the numbers are the graph's: an
answer cites ``path:line`` from them exactly. A store without the indexed folder, or a
file edited since indexing, gives the entity line alone.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

from citeloop.grounding.mentions import identifier_words, word_stem
from citeloop.knowledge.block_headers import block_headers
from citeloop.knowledge.model import Entity, EntityKind
from citeloop.knowledge.source import LineSource
from citeloop.text import counted, data_line

EXCERPT_SHARE = 0.25
"""Share of the context's token budget that source excerpts may take."""

MAX_EXCERPT_LINES = 40
"""Most lines of one excerpt."""

MIN_EXCERPT_LINES = 4
"""Fewest lines of an excerpt cut short to fit; a shorter one is left out."""

MAX_EXCERPT_LINE_CHARS = 160
"""Longest excerpt line, in characters of code (cut with ``…``)."""

MAX_EXCERPTS = 8
"""Most entities whose source one context shows (times a widening's budget multiplier)."""

MAX_ASKED_LINES = 60
"""Most lines a widening shows of those a previous answer said the context lacks
(:attr:`~citeloop.knowledge.model.ContextExpansion.lines`; :func:`with_asked_lines` also
bounds their tokens): they enter as the lines shown before do, whatever the share."""

MAX_COMMENT_ABOVE = 4
"""Most lines of a comment shown above the line before a focus line (so a comment is
read from its start)."""

FIRST_LOOK_LINES = 8
"""Lines of code each excerpt gets before any grows longer: the source of every entity
a context is most about is shown before one long body takes the share."""

_EXCERPT_KINDS = frozenset(
    {EntityKind.FUNCTION, EntityKind.METHOD, EntityKind.TEST, EntityKind.ATTRIBUTE}
)


def excerptable(entity: Entity) -> bool:
    """Whether ``entity`` may show its source: a function, method or test, or a
    property (an attribute of more than one line), with a path and a line span (from
    line 1 on, its end not before its start: a store of one's own may hold others)."""
    return (
        entity.kind in _EXCERPT_KINDS
        and bool(entity.path)
        and entity.line is not None
        and entity.end_line is not None
        and 1 <= entity.line <= entity.end_line
        and (entity.kind is not EntityKind.ATTRIBUTE or entity.end_line > entity.line)
    )


def shows_docstring(entity: Entity) -> bool:
    """Whether ``entity`` is a class whose excerpt may show its ``class`` line and its
    docstring (nothing of its body: its members are entities of their own), when asked
    for: one whose docstring says more than its summary (which its entity line shows),
    with a path and a line span as :func:`excerptable` requires."""
    return (
        entity.kind is EntityKind.CLASS
        and " ".join(entity.docstring.split()) != entity.summary
        and bool(entity.path)
        and entity.line is not None
        and entity.end_line is not None
        and 1 <= entity.line <= entity.end_line
    )


def candidates(
    ids: Iterable[str],
    entities: Mapping[str, Entity],
    most: int = MAX_EXCERPTS,
    classes: Collection[str] = (),
) -> list[Entity]:
    """The first ``most`` :func:`excerptable` entities of ``ids`` (best first, each
    once), and the classes among them that ``classes`` holds (:func:`shows_docstring`):
    those :func:`choose_excerpts` may show."""
    wanted: list[Entity] = []
    for entity_id in dict.fromkeys(ids):
        if len(wanted) >= most:
            break
        entity = entities[entity_id]
        if excerptable(entity) or (entity_id in classes and shows_docstring(entity)):
            wanted.append(entity)
    return wanted


def excerpt_lines(
    entity: Entity, lines: tuple[str, ...], shown: int, focus: Mapping[str, int] | None = None
) -> list[str]:
    """The excerpt of ``entity`` (see the module docstring): at most ``shown`` of its
    lines of code, with a line for each run left out that says which.

    A definition longer than ``shown`` lines leaves out its signature after the
    ``def`` line and its docstring (the entity line has both) and shows its first line
    (and its ``def`` line), then the lines that use the most ``focus`` terms with a
    line either side, then its first lines, in file order.

    Args:
        entity: An :func:`excerptable` entity.
        lines: The lines of its file, as indexed.
        shown: Most lines of code to show, >= 1.
        focus: Weight by lower-cased term (a whole identifier, or one of its words):
            what the context is about (see :func:`focus_terms`).
    """
    return _Body(entity, lines, focus or {}).excerpt(shown)


class _Body:
    """The lines of one definition, to excerpt at any length: the order its lines are
    taken in is worked out once (an excerpt of ``n`` lines shows the first ``n`` of
    it, so more room only adds lines)."""

    def __init__(
        self,
        entity: Entity,
        lines: tuple[str, ...],
        focus: Mapping[str, int],
        first: Sequence[int] = (),
    ) -> None:
        self.lines = lines
        self.start = max(entity.line or 1, 1)
        self.end = min(max(entity.end_line or self.start, self.start), len(lines))
        self.focus = focus
        self.first = [n for n in dict.fromkeys(first) if self.start <= n <= self.end]
        """Lines taken before any other (those an earlier excerpt showed)."""
        self.head = (
            _definition_line(lines, self.start, self.end) if self.start <= self.end else self.start
        )
        """The ``def`` line (after decorators)."""
        self.body_end = self.end
        """The definition's last line: a class's excerpt ends before its body."""
        if entity.kind is EntityKind.CLASS:  # its head and docstring: all it shows
            ends = _signature_end(lines, self.head, self.end) if self.head <= self.end else None
            docstring = _docstring_span(lines, self.end, ends)
            self.end = docstring[1] if docstring else ends or self.head
            ends = None
        # Only a definition has a signature and a docstring (not a constant's string).
        elif not (self.head <= self.end and _defines(lines[self.head - 1])):
            ends = None
        else:
            ends = _signature_end(lines, self.head, self.end)
        self.signature = (self.head + 1, ends) if ends is not None and ends > self.head else None
        """The lines of the signature after its first (``(L2-5)``), or ``None``."""
        self.docstring = _docstring_span(lines, self.end, ends)
        self._order: list[int] | None = None
        self._code_after: dict[int, int] | None = None

    def lines_of_code(self, most: int) -> int:
        """How many lines of code an excerpt of at most ``most`` shows."""
        return min(most, self.end - self.start + 1)

    def numbers(self, shown: int) -> list[int]:
        """The line numbers an excerpt of ``shown`` lines of code shows, in order; a
        single line left out between two shown (or last) is shown too, but for one of
        the signature or the docstring: its marker would take about as much room. A
        comment is shown only with the line of code it stands above (a comment shown
        alone read as what the function returns)."""
        if self.end - self.start + 1 <= shown:
            return list(range(self.start, self.end + 1))
        taken = self._first_taken(shown)
        skipped = self._left_out()
        gaps = [
            a + 1
            for a, b in itertools.pairwise([*taken, self.end + 1])
            if b - a == 2 and not any(first <= a + 1 <= last for first, last in skipped)
        ]
        return sorted([*taken, *gaps])

    def _first_taken(self, shown: int) -> list[int]:
        """The first ``shown`` lines of :meth:`_taken`, in order, but a comment's only
        with the line of code it stands above (the next line that is neither blank nor
        a comment): one taken before that line waits for it, and comes with it while
        there is room; lines shown before always come."""
        if self._code_after is None:  # the next line of code after each line, once
            code_after: dict[int, int] = {}
            following = self.end + 1
            for number in range(self.end, self.start - 1, -1):
                code_after[number] = following
                text = self.lines[number - 1].strip()
                if text and not text.startswith("#"):
                    following = number
            self._code_after = code_after
        chosen: set[int] = set()
        waiting: dict[int, list[int]] = {}  # comment lines by the line of code below
        for number in self._taken():
            if len(chosen) >= shown:
                break
            below = self._code_after[number]
            comment = self.lines[number - 1].lstrip().startswith("#")
            if comment and number not in self.first and below not in chosen:
                waiting.setdefault(below, []).append(number)
                continue
            chosen.add(number)
            for above in waiting.pop(number, ()):
                if len(chosen) < shown:
                    chosen.add(above)
        return sorted(chosen)

    def _left_out(self) -> list[tuple[int, int]]:
        """The spans a body cut short leaves out: its signature after the ``def`` line,
        and its docstring (the entity line gives both)."""
        return [span for span in (self.signature, self.docstring) if span is not None]

    def excerpt(self, shown: int) -> list[str]:
        return self._render(self.numbers(shown))

    def _taken(self) -> list[int]:
        """Every line but the signature's after the ``def`` line and the docstring's
        (:meth:`_left_out`), in the order an excerpt takes them: the first (with the
        ``def`` line, after decorators); the lines that use the most telling ``focus``
        terms (a term's weight divided by the number of the lines that use it, summed),
        each after the lines that open its blocks, outermost first
        (:func:`~citeloop.knowledge.block_headers.block_headers`: the ``for`` it is in,
        the ``try:`` of an ``except``) and followed by the lines before and after it;
        then the rest from the top."""
        if self._order is not None:
            return self._order
        head = self.head
        skipped = {n for first, last in self._left_out() for n in range(first, last + 1)}
        numbers = [n for n in range(self.start, self.end + 1) if n not in skipped]
        # Lines shown before, or asked for, come first: the signature's and the
        # docstring's only when an answer asked for them (with_asked_lines).
        order = dict.fromkeys([*self.first, self.start, head])
        if self.focus:
            used = {n: _terms(self.lines[n - 1], self.focus) for n in numbers if n > head}
            lines_using = Counter(term for terms in used.values() for term in terms)
            # Summed in one order (a set's depends on the hash seed, and so would the
            # last bit of a float sum): the same lines in every process.
            score = {
                n: sum(self.focus[t] / lines_using[t] for t in sorted(ts)) for n, ts in used.items()
            }
            rest = set(numbers)
            opened = block_headers(self.lines, head + 1, self.end, skipped)
            for number in sorted(score, key=lambda n: (-score[n], n)):
                if not score[number]:
                    break
                # Its blocks' opening lines first, outermost first: an `except` shown
                # without its `try:` reads as catching what the line before it raises.
                headers = opened.get(number, ())[::-1]
                for near in (*headers, number, *self._comment_above(number - 1, rest), number + 1):
                    if near in rest:
                        order.setdefault(near)
        order.update(dict.fromkeys(numbers))
        self._order = list(order)
        return self._order

    def code_lines(self, first: int, last: int) -> list[int]:
        """The lines ``first``-``last`` of the definition but for its signature after
        the ``def`` line and its docstring (:meth:`_left_out`)."""
        skipped = self._left_out()
        return [
            n
            for n in range(max(first, self.start), min(last, self.end) + 1)
            if not any(a <= n <= b for a, b in skipped)
        ]

    def span_lines(self, first: int, last: int) -> list[int]:
        """The lines ``first``-``last`` of the definition, its signature's and its
        docstring's too."""
        return list(range(max(first, self.start), min(last, self.end) + 1))

    def _comment_above(self, number: int, rest: Collection[int]) -> list[int]:
        """``number`` (the line before a focus line) and, when it is a comment, the
        comment lines right above it (at most :data:`MAX_COMMENT_ABOVE`), bottom up: a
        comment is shown from its start, not cut in half."""

        def comment(line: int) -> bool:
            return line in rest and self.lines[line - 1].lstrip().startswith("#")

        above = [number]
        while len(above) <= MAX_COMMENT_ABOVE and comment(above[-1]) and comment(above[-1] - 1):
            above.append(above[-1] - 1)
        return above

    def _run(self, first: int, final: int, at_end: bool) -> str:
        """What the run of lines ``first``-``final`` left out is: the docstring, the
        signature (after the ``def`` line), both, or a count of lines."""
        named = {self.docstring: "docstring", self.signature: "signature"}
        if self.signature and self.docstring:
            named[(self.signature[0], self.docstring[1])] = "signature and docstring"
        return named.get((first, final)) or counted(
            final - first + 1, "more line" if at_end else "line"
        )

    def _render(self, numbers: Iterable[int]) -> list[str]:
        width = len(str(self.end))
        out: list[str] = []
        last = self.start - 1
        for number in [*numbers, self.end + 1]:
            # A run left out; at the end, a class's body too (its members are lines of
            # their own, but the excerpt says where the class goes on).
            final = number - 1 if number <= self.end else self.body_end
            if final > last:
                what = self._run(last + 1, final, number > self.end)
                out.append(f"    {'':>{width}} | … {what} (L{last + 1}-{final})")
            if number > self.end:
                break
            out.append(_line(number, self.lines[number - 1], width))
            last = number
        return out


def _line(number: int, code: str, width: int = 0) -> str:
    """Line ``number`` of an excerpt, ``code`` cut at :data:`MAX_EXCERPT_LINE_CHARS`, its
    number right-aligned in ``width`` characters."""
    code = code.rstrip()
    if len(code) > MAX_EXCERPT_LINE_CHARS:
        code = code[: MAX_EXCERPT_LINE_CHARS - 1] + "…"
    return data_line(f"    {number:>{width}} | {code}".rstrip())


def focus_terms(
    words: Iterable[str],
    names: Iterable[str],
    found_by_task: Collection[str] = (),
    lacking: Iterable[str] = (),
) -> dict[str, int]:
    """The terms an excerpt's lines are chosen by: ``names`` (whole, lower-cased: what
    the entity calls) weigh 2, or 3 when in ``found_by_task`` (the names the task's
    mentions and words found), ahead of the task's ``words`` (lower-cased; weight 1);
    the names a retry's answer said the context lacks (``lacking``, the last part of a
    dotted one: ``self.edges`` is ``edges``) weigh 4. A word also finds the words of
    identifiers that share its stem (:func:`~citeloop.grounding.mentions.word_stem`:
    "caching" finds ``f_cached``). The same terms choose the same
    lines, and the lines shown before are taken first, so an excerpt only grows when a
    retry widens the context."""
    strong = {name.lower() for name in found_by_task}
    terms = dict.fromkeys((word.lower() for word in words), 1)
    # a word's stem too: "caching" finds `f_cached` (see _terms)
    terms.update((_STEM + word_stem(word), 1) for word in list(terms) if word.isalpha())
    for name in names:
        key = name.lower()
        terms[key] = 3 if key in strong else 2
    for name in lacking:
        if key := name.rpartition(".")[2].lower():
            terms[key] = 4
    return terms


_IDENTIFIER = re.compile(r"[^\W\d]\w*")


_STRING = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'")
"""A one-line string literal (a message's words are not the code's)."""


_STEM = "\x00"
"""Marks a stem among the focus terms (no word of code starts with it)."""


def _terms(line: str, focus: Mapping[str, int]) -> set[str]:
    """The ``focus`` terms ``line`` uses: its identifiers (not the words of its string
    literals), whole or by their words, or by their words' stems."""
    found = set()
    for token in _IDENTIFIER.findall(_STRING.sub("", line)):
        if (whole := token.lower()) in focus:
            found.add(whole)
        for word in identifier_words(token):
            if word in focus:
                found.add(word)
            elif word.isalpha() and (stem := _STEM + word_stem(word)) in focus:
                found.add(stem)
    return found


_DOCSTRING_START = re.compile(r"[rRuU]?(\"\"\"|\'\'\')")
"""A docstring's opening: a bytes or f-string literal is none (Python keeps no docstring)."""


def _definition_line(lines: tuple[str, ...], start: int, end: int) -> int:
    """The ``def`` line of the definition at ``start``: the first line,
    from ``start`` on, that is no part of a decorator (a line that starts with ``@``,
    and the lines its brackets span); ``start`` when there is none."""
    depth = 0
    for number in range(start, end + 1):
        text = lines[number - 1].lstrip()
        if depth <= 0 and not text.startswith("@"):
            return number
        depth = _code_and_depth(text, max(depth, 0))[1]
    return start


_DEFINITION = re.compile(r"\s*(?:async\s+)?def\s")


def _defines(line: str) -> bool:
    """Whether ``line`` starts a function definition (``def``, ``async def``)."""
    return _DEFINITION.match(line) is not None


def _signature_end(lines: tuple[str, ...], start: int, end: int) -> int | None:
    """The last line of the signature whose ``def`` line is ``start``, or ``None``: the
    first line, from ``start`` on, where the brackets opened since ``start`` are closed
    and the code (before a ``#``) ends with ``:``; strings inside the signature are
    skipped. Linear in the lines read."""
    depth = 0
    for number in range(start, end + 1):
        code, depth = _code_and_depth(lines[number - 1], depth)
        if depth <= 0 and code.rstrip().endswith(":"):
            return number
    return None


def _docstring_span(
    lines: tuple[str, ...], end: int, signature_end: int | None
) -> tuple[int, int] | None:
    """The first and last line of the docstring of a definition (its first statement, a
    triple-quoted string after the signature, which ends at ``signature_end``
    (:func:`_signature_end`), and any blank or comment lines, up to line ``end``), or
    ``None``."""
    if signature_end is None:
        return None
    first = signature_end + 1  # blank and comment lines may stand before it: no statements
    while first <= end and (not lines[first - 1].strip() or lines[first - 1].lstrip()[0] == "#"):
        first += 1
    if first > end:
        return None
    text = lines[first - 1].lstrip()
    opening = _DOCSTRING_START.match(text)
    if opening is None:
        return None
    quote = opening.group(1)
    if quote in text[opening.end() :]:
        rest = text[opening.end() :].split(quote, 1)[1]
        return (first, first) if _ends_statement(rest) else None
    for last in range(first + 1, end + 1):
        if quote in lines[last - 1]:
            rest = lines[last - 1].split(quote, 1)[1]
            return (first, last) if _ends_statement(rest) else None
    return None


def _ends_statement(rest: str) -> bool:
    """Whether what follows a string's closing quotes ends the statement (nothing, a
    comment): a triple-quoted string followed by ``.split(",")`` is an expression, not
    a docstring."""
    rest = rest.strip()
    return not rest or rest.startswith("#")


def _code_and_depth(line: str, depth: int) -> tuple[str, int]:
    """``line`` up to a comment, and the bracket depth after it (strings, and the
    quotes a backslash escapes in them, skipped)."""
    quote, escaped = "", False
    for at, char in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:at], depth
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
    return line, depth


class Excerpts(NamedTuple):
    """The excerpts chosen for one context."""

    blocks: dict[str, list[str]]
    """Each excerpt's lines, by entity id, best first."""
    shown: dict[str, tuple[int, ...]]
    """The line numbers each shows (its markers aside), by entity id."""
    tokens: int
    """The tokens they take, each with its line break."""

    def within(self, ids: Collection[str]) -> Excerpts:
        """The excerpts of ``ids`` only (the entities a context holds); ``tokens``
        stays what the chosen ones took."""
        blocks = {key: block for key, block in self.blocks.items() if key in ids}
        shown = {key: lines for key, lines in self.shown.items() if key in blocks}
        return self._replace(blocks=blocks, shown=shown)

    def without_nested(self, entities: Mapping[str, Entity]) -> Excerpts:
        """Without the excerpt of a nested function whose every line the excerpt of a
        function enclosing it shows (the same lines are not shown twice); ``tokens``
        stays what the chosen ones took."""
        spans = {key: _span(entities[key]) for key in self.shown if key in entities}
        nested = {
            key
            for key, (path, first, last) in spans.items()
            if any(
                other != key
                and other_path == path
                and other_first <= first <= last <= other_last
                and (other_first, other_last) != (first, last)
                and set(range(first, last + 1)) <= set(self.shown[other])
                for other, (other_path, other_first, other_last) in spans.items()
            )
        }
        return self.within([key for key in self.blocks if key not in nested])


def _span(entity: Entity) -> tuple[str, int, int]:
    first = entity.line or 0
    return entity.path or "", first, max(entity.end_line or first, first)


def with_asked_lines(
    asked: Iterable[tuple[str, int, int]],
    entities: Mapping[str, Entity],
    reader: LineSource,
    shown: Mapping[str, Sequence[int]],
    tokens: float,
    count: Callable[[str], int],
) -> dict[str, tuple[int, ...]]:
    """``shown`` (the lines each entity showed before, by id) with the code lines of
    ``asked`` (``(entity id, first, last)``: lines a previous answer said the context
    lacks) added: of an :func:`excerptable` entity of ``entities`` (or a class that
    :func:`shows_docstring`: its ``class`` line and docstring), its code in the range
    (:meth:`_Body.code_lines`: not its signature or docstring, which the entity line
    gives, unless the range holds nothing else: ``… signature and docstring (L203-212)``
    asked for whole, as the brief line or the summary leaves them out), at most
    :data:`MAX_EXCERPT_LINES` a range, :data:`MAX_ASKED_LINES` in all and, as ``count``
    counts their excerpt lines, ``tokens`` (asked lines enter as lines shown before do,
    whatever the share: this bound keeps a context near its budget). The ranges take a
    line each in turn, in the order asked, each its lines from the top: when not all
    fit, a short range is shown whole before a long one grows (max-min fair shares),
    so "L103-104" is not crowded out by a function's whole body asked first."""
    result = {entity_id: tuple(lines) for entity_id, lines in shown.items()}
    wanted = [(entities[i], a, b) for i, a, b in asked if i in entities]
    wanted = [(e, a, b) for e, a, b in wanted if excerptable(e) or shows_docstring(e)]
    files = reader.lines({entity.path for entity, _, _ in wanted if entity.path})
    added: dict[str, set[int]] = {}
    turns: list[tuple[str, tuple[str, ...], Iterator[int]]] = []
    for entity, first, last in wanted:
        lines = files.get(entity.path or "")
        if lines is None:
            continue
        added.setdefault(entity.id, set(result.get(entity.id, ())))
        body = _Body(entity, lines, {})
        numbers = body.code_lines(first, last) or body.span_lines(first, last)
        turns.append((entity.id, lines, iter(numbers[:MAX_EXCERPT_LINES])))
    left, room = MAX_ASKED_LINES, tokens
    while turns and left > 0:
        going = []
        for entity_id, lines, numbers in turns:
            taken = added[entity_id]
            number = next((n for n in numbers if n not in taken), None)
            if number is None or left <= 0:
                continue  # the range is shown whole, or no line is left to give
            cost = count(_line(number, lines[number - 1])) + 1
            if cost > room:
                continue  # its next line does not fit: the range ends here
            taken.add(number)
            left, room = left - 1, room - cost
            going.append((entity_id, lines, numbers))
        turns = going
    result.update((entity_id, tuple(sorted(lines))) for entity_id, lines in added.items())
    return result


def choose_excerpts(
    ids: Iterable[str],
    entities: Mapping[str, Entity],
    reader: LineSource,
    budget: float,
    count: Callable[[str], int],
    focus: Callable[[Entity], Mapping[str, int]] | None = None,
    previous: Mapping[str, Sequence[int]] | None = None,
    named: Collection[str] = (),
    most: int = MAX_EXCERPTS,
    more: Collection[str] = (),
) -> Excerpts:
    """The excerpts of the first ``most`` excerptable entities of ``ids`` (best first)
    that fit in ``budget`` tokens.

    The ``named`` ones (and those of ``previous``) come first, breadth before depth:
    each gets a first look of up to :data:`FIRST_LOOK_LINES` lines of code, best first,
    before any grows, so that one long body never leaves another named entity without
    source; the ``more`` ones go first of all (a first look at those not shown before,
    then a look more at those shown before).
    Then each grows to its whole body (at most :data:`MAX_EXCERPT_LINES`), the named
    first, then the others in order, a long one to at most half of ``budget`` while
    another excerpt may follow it.

    An excerpt that does not fit whole is cut to the lines that do (at least
    :data:`MIN_EXCERPT_LINES`); one that cannot be cut so is left out and the next one
    tried. An entity of ``previous`` (the excerpts of the context being widened) shows
    every line it showed, and room is kept for those that follow it: a widened context
    only adds lines.

    Args:
        ids: Entity ids, best first (every one a key of ``entities``).
        entities: The entities by id.
        reader: Reads the indexed files.
        budget: Tokens the excerpts may take.
        count: Counts the tokens of a text (as the whole context is counted).
        focus: The terms each entity's long body has its lines chosen by
            (:func:`focus_terms`).
        previous: The line numbers shown before, by entity id (:attr:`Excerpts.shown`).
        named: The ids the task or a previous answer named (a context's core, and on a
            retry what the last answer named).
        most: Most excerpts (:data:`MAX_EXCERPTS` in a context of the default budget).
        more: Ids of the code a retry's answer said the context lacks: they look first,
            those of ``previous`` with up to :data:`FIRST_LOOK_LINES` lines more than
            they showed.

    Returns:
        The excerpts, best first, and the tokens they take.
    """
    previous = previous or {}
    wanted = candidates(ids, entities, most, {*more, *previous})
    if not wanted or budget <= 0:
        return Excerpts({}, {}, 0)
    files = reader.lines({entity.path for entity in wanted if entity.path})
    bodies = {}
    for entity in wanted:
        lines = files.get(entity.path or "")
        if lines is not None and (entity.line or 0) <= len(lines):
            terms = focus(entity) if focus else {}
            bodies[entity.id] = _Body(entity, lines, terms, previous.get(entity.id, ()))
    floors = {i: len(bodies[i].first) for i in previous if i in bodies and bodies[i].first}
    kept = {i: count("\n".join(bodies[i].excerpt(n))) + 1 for i, n in floors.items()}
    reserve = sum(kept.values())
    chosen: dict[str, tuple[int, int]] = {}  # (lines of code shown, tokens) by id
    used = 0
    named = {*named, *previous, *more}
    first = [entity.id for entity in wanted if entity.id in named and entity.id in bodies]

    pending = dict(kept)  # the room reserved for what was shown before, until it shows

    def look(ids: Iterable[str], extra: int) -> None:
        """A look at each of ``ids``, best first: what it showed before (kept whole: its
        room is reserved) and ``extra`` lines more, or at least FIRST_LOOK_LINES."""
        nonlocal used, reserve
        for entity_id in ids:
            body, floor = bodies[entity_id], floors.get(entity_id, 0)
            shown, cost = chosen.get(entity_id, (0, 0))
            reserve -= pending.pop(entity_id, 0)
            lines = min(body.lines_of_code(MAX_EXCERPT_LINES), max(FIRST_LOOK_LINES, floor + extra))
            least = max(MIN_EXCERPT_LINES, floor, shown)  # what it showed is never cut
            room = max(budget - used - reserve + cost, kept.get(entity_id, 0))
            fitted = _fit(body, max(lines, floor, shown), least, room, count)
            if fitted is not None and fitted[0] > shown:
                chosen[entity_id] = fitted
                used += fitted[1] - cost

    # What a retry's answer said the context lacks comes first: a first look at what of
    # it was not shown, then a look more where it was (breadth before depth: code asked
    # for by name twice had never come, its room taken by bodies shown before growing);
    # then the other named ones look, best first.
    asked = [i for i in first if i in more]
    look(asked, 0)
    look([i for i in asked if floors.get(i)], FIRST_LOOK_LINES)
    look([i for i in first if i not in more], 0)
    # Then the named ones grow, and the others follow, best first: a long body takes at
    # most half the share while another excerpt may follow it.
    rest = [entity.id for entity in wanted if entity.id not in named and entity.id in bodies]
    order = [*chosen, *rest]
    for position, entity_id in enumerate(order):
        body = bodies[entity_id]
        shown, cost = chosen.get(entity_id, (0, 0))
        full = body.lines_of_code(MAX_EXCERPT_LINES)
        if full <= shown:
            continue
        room = budget - used + cost
        room = room if position == len(order) - 1 else min(room, max(budget / 2, cost))
        fitted = _fit(body, full, max(shown, MIN_EXCERPT_LINES), room, count)
        if fitted is not None and fitted[0] > shown:
            chosen[entity_id] = fitted
            used += fitted[1] - cost
    found = Excerpts({}, {}, used)
    for entity in wanted:  # best first
        if entity.id in chosen:
            shown = chosen[entity.id][0]
            found.blocks[entity.id] = bodies[entity.id].excerpt(shown)
            found.shown[entity.id] = tuple(bodies[entity.id].numbers(shown))
    return found


def _fit(
    body: _Body, most: int, least: int, room: float, count: Callable[[str], int]
) -> tuple[int, int] | None:
    """(lines of code, tokens with the line break) of the longest excerpt of ``body``
    of at most ``most`` lines of code that fits in ``room`` tokens, cut to no fewer than
    ``least`` (or ``most``, when fewer), or ``None`` when none fits."""
    shown = most
    cost = count("\n".join(body.excerpt(shown))) + 1
    while cost > room and shown > least:
        shown = max(least, int(shown * room / cost) - 1)
        cost = count("\n".join(body.excerpt(shown))) + 1
    return (shown, cost) if cost <= room else None
