"""The lines of one definition an excerpt shows, at any length.

An excerpt line is ``<line number> | <code>``, the code passed through
:func:`citeloop.text.data_line` (it can neither end the context block nor start a
line of its own) and cut at :data:`MAX_EXCERPT_LINE_CHARS`. A body longer than the
lines it may show (:data:`~citeloop.knowledge.excerpts.MAX_EXCERPT_LINES`, or the share
left) is cut: it leaves out its signature after the ``def`` line and its docstring
(the entity line has the signature and the summary; the signature's type names are
not lines that use what the context is about), and after its first line (and its
``def`` line, after decorators) it shows the lines that use what the context is about
(the names of what it calls, weighing more when the task's words found them, then the
task's words; a term used on fewer lines of the body weighs more; a comment's
terms are those of the line of code it stands above), each with a line either side
(and a comment above read from its start), so that a 200-line ``compile``
shows where it calls ``attach_edge`` rather than its parameters. Each run left out is
one line: ``       | … docstring (L75-80)``, ``       | … signature (L668-690)``,
``       | … signature and docstring (L668-775)``, ``       | … 89 lines (L1302-1390)``;
a docstring of :data:`MIN_NAMED_RUN` lines or more is a run of its own.
The lines are read from the indexed folder only while the file is the one the graph
indexed (:class:`~citeloop.knowledge.source.SourceReader`), so the numbers are the
graph's: an answer cites ``path:line`` from them exactly. A store without the indexed
folder, or a file edited since indexing, gives the entity line alone.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from keyword import iskeyword

from citeloop.grounding.mentions import identifier_words, word_stem
from citeloop.knowledge.abbreviations import ABBREVIATIONS, BUILTIN_WORDS
from citeloop.knowledge.block_headers import block_headers
from citeloop.knowledge.model import Entity, EntityKind
from citeloop.knowledge.render import signature_cut
from citeloop.text import counted, data_line

MIN_NAMED_RUN = 3
"""Fewest lines of a docstring that a marker names apart from the lines left out beside
it (a marker of its own takes the room of about two lines, and a docstring of one line
is the summary the entity line gives)."""

MAX_EXCERPT_LINE_CHARS = 160
"""Longest excerpt line, in characters of code (cut with ``…``)."""

MAX_COMMENT_ABOVE = 4
"""Most lines of a comment shown above the line before a focus line (so a comment is
read from its start)."""

MAX_CONTINUED = 3
"""Most lines of a statement's continuation an excerpt shows with its first line (the
call's arguments after ``f(``)."""
STUB_RAISE_LINES = 3
"""Most lines of a ``raise NotImplementedError`` that is a stub's body alone
(:meth:`BodyLines.says_nothing_more`): its message may run over a few lines."""


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
        entity: An :func:`~citeloop.knowledge.excerpts.excerptable` entity.
        lines: The lines of its file, as indexed.
        shown: Most lines of code to show, >= 1.
        focus: Weight by lower-cased term (a whole identifier, or one of its words):
            what the context is about (see :func:`focus_terms`).
    """
    return BodyLines(entity, lines, focus or {}).excerpt(shown)


class BodyLines:
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
        self.signature_end = ends
        """The signature's last line, or ``None`` (not a definition, or a class)."""
        self.signature = (
            (self.head + 1, ends)
            if ends is not None and ends > self.head and not signature_cut(entity)
            else None
        )
        """The lines of the signature after its first (``(L2-5)``) that its entity line
        gives whole (:func:`~citeloop.knowledge.render.signature_cut`), or ``None``."""
        self.docstring = _docstring_span(lines, self.end, ends)
        self._order: list[int] | None = None
        self._opens: dict[int, tuple[int, ...]] = {}
        """By a focus line of :meth:`_taken` in a block, and by each line it takes as
        the opening line of one of its blocks: the lines that open its blocks
        (outermost first), then the focus line."""
        self._beside: dict[int, int] = {}
        """By a line :meth:`_taken` takes beside a focus line (the comment above it, the
        line after it): that focus line."""
        self._focus: set[int] = set()
        """The lines :meth:`_taken` takes for the focus terms they use."""
        self._code_after: dict[int, int] | None = None
        self._starts: dict[int, int] | None = None

    def says_nothing_more(self) -> bool:
        """Whether the definition's lines past its signature and docstring, comments
        and blank lines aside, are none or a stub alone (``pass``, ``...``, or a
        ``raise NotImplementedError`` of at most :data:`STUB_RAISE_LINES` lines): its
        entity line already says what an excerpt would (``JSONTag.check(value) -> bool
        — Check if the given value should be tagged by this tag.``). A class's shows
        its docstring: never."""
        if self.signature_end is None or self.signature_end >= self.end:
            return False  # not a function's definition, a class's head, or on one line
        skipped = {n for first, last in self._left_out() for n in range(first, last + 1)}
        code = [
            text
            for n in range(self.signature_end + 1, self.end + 1)
            if n not in skipped and (text := self.lines[n - 1].strip()) and text[0] != "#"
        ]
        if not code:
            return True
        if code[0].startswith("raise NotImplementedError"):
            depth = 0
            for count, text in enumerate(code[:STUB_RAISE_LINES], 1):
                depth += text.count("(") - text.count(")")
                if depth <= 0:  # the statement ends here: the stub, if nothing follows
                    return count == len(code)
            return False
        return len(code) == 1 and code[0].partition("#")[0].rstrip() in ("pass", "...")

    def lines_of_code(self, most: int) -> int:
        """How many lines of code an excerpt of at most ``most`` shows."""
        return min(most, self.end - self.start + 1)

    def numbers(self, shown: int) -> list[int]:
        """The line numbers an excerpt of ``shown`` lines of code shows, in order; a
        single line left out between two shown (or first, or last) is shown too, but
        for one of the signature or the docstring: its marker would take about as much
        room (a played excerpt of a two-line setter had read ``… 1 line (L145-145)``
        above its one line shown). A
        comment is shown only with the line of code it stands above (a comment shown
        alone read as what the function returns)."""
        if self.end - self.start + 1 <= shown:
            return list(range(self.start, self.end + 1))
        taken = self._first_taken(shown)
        skipped = self._left_out()
        gaps = [
            a + 1
            for a, b in itertools.pairwise([self.start - 1, *taken, self.end + 1])
            if b - a == 2 and not any(first <= a + 1 <= last for first, last in skipped)
        ]
        return sorted([*taken, *gaps])

    def _first_taken(self, shown: int) -> list[int]:
        """The first ``shown`` lines of :meth:`_taken`, in order, but a comment's only
        with the line of code it stands above (the next line that is neither blank nor
        a comment): one taken before that line waits for it, and comes with it while
        there is room; and no blank line (a played excerpt of scikit-learn's
        ``_fit_context`` had shown its ``def`` line and the blank line after its
        docstring, and not the ``estimator._validate_params()`` asked about); lines
        shown before always come."""
        code_after = self._code_below()
        chosen: set[int] = set()
        waiting: dict[int, list[int]] = {}  # comment lines by the line of code below
        passed: set[int] = set()  # focus lines whose opening lines did not fit
        first_left = set(self.first)  # shown before: they come, whatever comes first
        continues = self._statement_starts()
        for number in self._taken():
            if len(chosen) >= shown:
                break
            if number in self._opens and number not in self.first:
                # A block's opening lines come with the line they were taken for, or not
                # at all (a played excerpt of `HTTPAdapter.send` had shown `try:`, an
                # `except` and an `if`, and none of the `raise` lines they open).
                group = [n for n in self._opens[number] if n not in chosen]
                if len(chosen) + len(group) <= shown:
                    chosen.update(group)
                else:
                    passed.add(self._opens[number][-1])
                continue
            if number in passed or self._beside.get(number, number) in passed:
                continue
            if not self.lines[number - 1].strip() and number not in self.first:
                continue  # a blank line shows nothing (a gap between two shown is)
            opening = continues.get(number)
            if opening is not None and opening not in chosen and number not in self.first:
                if number not in self._focus or len(chosen) + 2 > shown:
                    continue  # `)` alone: a statement's later line only with its first
                chosen.add(opening)  # `warnings.warn(` above the focus line inside it
            below = code_after[number]
            comment = self._comment(number)
            if comment and number not in self.first and below not in chosen:
                waiting.setdefault(below, []).append(number)
                continue
            chosen.add(number)
            for above in waiting.pop(number, ()):
                if len(chosen) < shown:
                    chosen.add(above)
            # a focus line's continuation, in the room the lines shown before leave
            if number in self._focus and (continued := self._continued(number)):
                owed = len(first_left - chosen)
                for after in continued:
                    if len(chosen) + owed < shown:
                        chosen.add(after)
        return sorted(chosen)

    def _statement_starts(self) -> dict[int, int]:
        """The first line of the statement each later line of a statement goes on with
        (inside brackets, a triple-quoted string or after a backslash), by line, worked
        out once in one pass (a demo excerpt had shown three lines that were ``)``
        alone)."""
        if self._starts is None:
            starts: dict[int, int] = {}
            depth, quote, joined, start = 0, "", False, self.head
            for number in range(self.head, self.end + 1):
                line = self.lines[number - 1]
                if depth > 0 or quote or joined:
                    starts[number] = start
                else:
                    start = number
                if quote:  # in a triple-quoted string: only what follows its end counts
                    if quote not in line:
                        continue
                    line, quote = line.split(quote, 1)[1], ""
                code, depth = _code_and_depth(line, depth)
                depth = max(depth, 0)
                opened = [mark for mark in ('"""', "'''") if code.count(mark) % 2]
                quote = opened[0] if opened else ""
                joined = code.rstrip().endswith("\\")
            self._starts = starts
        return self._starts

    def _continued(self, number: int) -> list[int]:
        """The later lines of the statement ``number`` starts (a focus line), at most
        :data:`MAX_CONTINUED` (a played excerpt had shown
        ``skip_user = self._events.emit_firstresult(`` and not the event it names); none
        for the ``def`` line, whose signature the entity line gives."""
        if number == self.head:
            return []
        starts = self._statement_starts()
        lines: list[int] = []
        following = number + 1
        while starts.get(following) == number and len(lines) < MAX_CONTINUED:
            lines.append(following)
            following += 1
        return lines

    def _code_below(self) -> dict[int, int]:
        """The next line of code (neither blank nor a comment) after each line of the
        definition (``end + 1`` after its last), worked out once."""
        if self._code_after is None:
            code_after: dict[int, int] = {}
            following = self.end + 1
            for number in range(self.end, self.start - 1, -1):
                code_after[number] = following
                text = self.lines[number - 1].strip()
                if text and not text.startswith("#"):
                    following = number
            self._code_after = code_after
        return self._code_after

    def _first_definition_end(self) -> int:
        """The last line of the definition the ``def`` line opens: before the next line
        indented no deeper than it (a property's ``@name.setter``, which its span holds
        too), or the span's end."""
        text = self.lines[self.head - 1] if self.head <= self.end else ""
        indent = len(text) - len(text.lstrip())
        # After the signature: its closing `) -> T:` may be indented as the `def` is.
        for number in range(max(self.head, self.signature_end or 0) + 1, self.end + 1):
            line = self.lines[number - 1]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                return number - 1
        return self.end

    def _comment(self, number: int) -> bool:
        return self.lines[number - 1].lstrip().startswith("#")

    def _left_out(self) -> list[tuple[int, int]]:
        """The spans a body cut short leaves out: its signature after the ``def`` line,
        and its docstring (the entity line gives both)."""
        return [span for span in (self.signature, self.docstring) if span is not None]

    def excerpt(self, shown: int) -> list[str]:
        return self.render(self.numbers(shown))

    def _taken(self) -> list[int]:
        """Every line but the signature's after the ``def`` line and the docstring's
        (:meth:`_left_out`), in the order an excerpt takes them: the first (with the
        ``def`` line, after decorators); the lines that use the most telling ``focus``
        terms (a term's weight divided by the number of the lines that use it, but the
        task's code's (:class:`FocusTerms`), summed; a
        comment's prose terms count for the line of code below it, which it
        describes; a property's getter first),
        each after the lines that open its blocks, outermost first
        (:func:`~citeloop.knowledge.block_headers.block_headers`: the ``for`` it is in,
        the ``try:`` of an ``except``) and followed by the lines before and after it,
        each after the lines that open its own blocks; then the rest from the top."""
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
            # A comment's terms are the line of code below it's: the comment says what
            # that line does ("# With a diagonal coefficient matrix, ..." above
            # `coef = np.eye(...)`), and comes with it (_comment_above).
            # Only its prose counts: the task's words, and names an answer said lacking
            # (a call's name, `to` or `ref`, is an English word in a comment).
            below = self._code_below()
            described: dict[int, set[str]] = {}
            for number in [n for n in used if self._comment(n)]:
                terms = {t for t in used.pop(number) if self.focus[t] in _PROSE_WEIGHTS}
                if below[number] in used:
                    described.setdefault(below[number], set()).update(terms)
            # A term weighs by the lines of code that use it: a comment that names a
            # call does not halve the weight of the line that makes it (a played
            # excerpt of flask's `RequestContext.push` had shown the lines around
            # `open_session(...)`, named in the comment above, but not that one).
            lines_using = Counter(term for terms in used.values() for term in terms)
            for number, terms in described.items():
                used[number] |= terms
            # Summed in one order (a set's depends on the hash seed, and so would the
            # last bit of a float sum): the same lines in every process.
            score = {
                n: sum(self.focus[t] / _spread(t, lines_using, self.focus) for t in sorted(ts))
                for n, ts in used.items()
            }
            rest = set(numbers)
            opened = block_headers(self.lines, head + 1, self.end, skipped)
            # A property's getter (its value) before its setter and deleter.
            getter = self._first_definition_end()
            for number in sorted(score, key=lambda n: (n > getter, -score[n], n)):
                if not score[number]:
                    continue  # no term (the getter's, then the setter's, lines have some)
                self._focus.add(number)
                # Its blocks' opening lines first, outermost first: an `except` shown
                # without its `try:` reads as catching what the line before it raises.
                headers = opened.get(number, ())[::-1]
                for header in (*headers, number) if headers else ():
                    if header in rest and header not in order:
                        self._opens.setdefault(header, (*headers, number))
                for near in (*self._comment_above(number - 1, rest), number + 1):
                    if near in rest and near not in order and near not in headers:
                        self._beside[near] = number
                for near in (*headers, number, *self._comment_above(number - 1, rest), number + 1):
                    # A line beside it after the lines that open its own blocks too: the
                    # line after an `if` body's last is often past the `if` (a played
                    # excerpt had shown `default_value = None` without its `if`).
                    for header in opened.get(near, ())[::-1] if near not in headers else ():
                        if header in rest and header not in order:
                            self._beside.setdefault(header, number)
                            order.setdefault(header)
                    if near in rest:
                        order.setdefault(near)
        order.update(dict.fromkeys(numbers))
        self._order = list(order)
        return self._order

    def in_taken_order(self, numbers: Iterable[int]) -> list[int]:
        """``numbers`` in the order an excerpt takes them (:meth:`_taken`: the lines
        that use the most telling ``focus`` terms first, after the lines that open their
        blocks), those it never takes (the signature's and docstring's) last, in order."""
        at = {number: index for index, number in enumerate(self._taken())}
        return sorted(numbers, key=lambda number: (at.get(number, len(at)), number))

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
        comment is shown from its start, not cut in half; across one blank line, the
        comment paragraph before it too (requests' "# Note that prepare_auth must be
        last ..." above "# This MUST go after prepare_auth": played excerpts had shown
        the second only, and the first answered the task)."""

        def comment(line: int) -> bool:
            return line in rest and self.lines[line - 1].lstrip().startswith("#")

        def blank(line: int) -> bool:
            return line in rest and not self.lines[line - 1].strip()

        above = [number]
        while len(above) <= MAX_COMMENT_ABOVE and comment(above[-1]):
            if comment(above[-1] - 1):
                above.append(above[-1] - 1)
            elif len(above) < MAX_COMMENT_ABOVE and blank(above[-1] - 1) and comment(above[-1] - 2):
                above += [above[-1] - 1, above[-1] - 2]  # a comment's paragraph before
            else:
                break
        return above

    def _run(self, first: int, final: int, at_end: bool) -> str:
        """What the run of lines ``first``-``final`` left out is: the docstring, the
        signature (after the ``def`` line), both (blank lines after them too), or a
        count of lines."""
        named = {self.docstring: "docstring", self.signature: "signature"}
        if self.signature and self.docstring:
            named[(self.signature[0], self.docstring[1])] = "signature and docstring"
        code = final
        while code > first and not self.lines[code - 1].strip():
            code -= 1
        return named.get((first, code)) or counted(
            final - first + 1, "more line" if at_end else "line"
        )

    def _parts(self, first: int, final: int) -> list[tuple[int, int]]:
        """The run ``first``-``final`` split around a docstring of at least
        :data:`MIN_NAMED_RUN` lines that lies whole inside it beside other lines (the
        blank lines after it go with it): a played excerpt's ``… 78 lines (L209-286)``
        held five lines of parameters and the docstring, and the answer asked for them
        all (``… 5 lines (L209-213)``, ``… docstring (L214-286)``)."""
        span = self.docstring
        if span is None or not first <= span[0] <= span[1] <= final:
            return [(first, final)]
        if span[1] - span[0] + 1 < MIN_NAMED_RUN:
            return [(first, final)]
        end = span[1]
        while end < final and not self.lines[end].strip():
            end += 1
        parts = [(first, span[0] - 1), (span[0], end), (end + 1, final)]
        parts = [(start, stop) for start, stop in parts if start <= stop]
        if self.signature and parts[0] == self.signature:  # one marker for both
            parts[:2] = [(first, end)]
        return parts

    def render(self, numbers: Iterable[int]) -> list[str]:
        """The excerpt lines of exactly ``numbers`` (sorted line numbers of the
        definition), a marker for each run left out (one for each of its parts,
        :meth:`_parts`)."""
        width = len(str(self.end))
        out: list[str] = []
        last = self.start - 1
        for number in [*numbers, self.end + 1]:
            # A run left out; at the end, a class's body too (its members are lines of
            # their own, but the excerpt says where the class goes on).
            final = number - 1 if number <= self.end else self.body_end
            if final > last:
                for start, end in self._parts(last + 1, final):
                    what = self._run(start, end, number > self.end and end == final)
                    out.append(f"    {'':>{width}} | … {what} (L{start}-{end})")
            if number > self.end:
                break
            out.append(excerpt_line(number, self.lines[number - 1], width))
            last = number
        return out


def excerpt_line(number: int, code: str, width: int = 0) -> str:
    """Line ``number`` of an excerpt, ``code`` cut at :data:`MAX_EXCERPT_LINE_CHARS`, its
    number right-aligned in ``width`` characters."""
    code = code.rstrip()
    if len(code) > MAX_EXCERPT_LINE_CHARS:
        code = code[: MAX_EXCERPT_LINE_CHARS - 1] + "…"
    return data_line(f"    {number:>{width}} | {code}".rstrip())


class FocusTerms(dict[str, int]):
    """:func:`focus_terms`: weight by term, and the terms that weigh whole on every line
    that uses them (``whole``)."""

    whole: frozenset[str] = frozenset()


def _spread(term: str, lines_using: Mapping[str, int], focus: Mapping[str, int]) -> int:
    """What a term's weight is divided by on a line: the number of lines that use it, so
    a rare term tells more; 1 for a term of ``focus.whole`` (the task's code)."""
    if term in getattr(focus, "whole", ()):
        return 1
    return max(lines_using[term], 1)


def focus_terms(
    words: Iterable[str],
    names: Iterable[str],
    found_by_task: Collection[str] = (),
    lacking: Iterable[str] = (),
    core: Iterable[str] = (),
) -> FocusTerms:
    """The terms an excerpt's lines are chosen by: ``names`` (whole, lower-cased: what
    the entity calls) weigh 2, or 3 when in ``found_by_task`` (the names the task's
    mentions and words found), ahead of the task's ``words`` (lower-cased; weight 1);
    the names the task writes as code (``core``) weigh 3 wherever a line uses them,
    called or not (a played excerpt of ``_check_psd_eigenvalues`` had hidden the three
    ``warnings.warn(..., PositiveSpectrumWarning)`` the task asked about), and whole on
    each such line (``whole``: another term's weight is shared by the lines that use it,
    and a played excerpt of ``HTTPAdapter.send`` had shown the one call of a helper, not
    the two ``raise ProxyError`` lines the task asked about); the names a
    retry's answer said the context lacks (``lacking``, the last part of a dotted one:
    ``self.edges`` is ``edges``) weigh 4. A word also finds the words of
    identifiers that share its stem (:func:`~citeloop.grounding.mentions.word_stem`:
    "caching" finds ``f_cached``). The same terms choose the same
    lines, and the lines shown before are taken first, so an excerpt only grows when a
    retry widens the context."""
    strong = {name.lower() for name in found_by_task}
    terms = FocusTerms.fromkeys((word.lower() for word in words), 1)
    # a word's stem too: "caching" finds `f_cached` (see _terms)
    terms.update((_STEM + word_stem(word), 1) for word in list(terms) if word.isalpha())
    for name in names:
        key = name.lower()
        terms[key] = 3 if key in strong else 2
    for name in core:
        terms[name.lower()] = max(terms.get(name.lower(), 0), 3)
    for name in lacking:
        if key := name.rpartition(".")[2].lower():
            terms[key] = 4
    terms.whole = frozenset(name.lower() for name in core)
    return terms


_IDENTIFIER = re.compile(r"[^\W\d]\w*")


_STRING = re.compile(r"\"([^\"\n]*)\"|'([^'\n]*)'")
"""A one-line string literal: a message's words are not the code's, but a key's are
(``config["PROVIDE_AUTOMATIC_OPTIONS"]``, ``getattr(obj, "methods")``): see
:func:`code_terms`. Linear: a match starts at a quote and ends at the next one."""

_KEY = re.compile(r"[^\W\d]\w*")
"""A string literal that is a key: one identifier (a name, a setting's key)."""


def code_terms(line: str) -> list[str]:
    """The identifiers of ``line`` a focus term may match: those of its code, and a
    one-line string literal that is one identifier (a key), not a message's words."""
    return _IDENTIFIER.findall(_STRING.sub(_key_or_nothing, line))


def _key_or_nothing(match: re.Match[str]) -> str:
    text = match.group(1) if match.group(1) is not None else match.group(2)
    return f" {text} " if _KEY.fullmatch(text) else " "


_PROSE_WEIGHTS = frozenset({1, 4})
"""The focus weights of the task's words (and their stems) and of the names an answer
said lacking (see :func:`focus_terms`): the terms a comment's prose may use."""

_STEM = "\x00"
"""Marks a stem among the focus terms (no word of code starts with it)."""


def _terms(line: str, focus: Mapping[str, int]) -> set[str]:
    """The ``focus`` terms ``line`` uses: its identifiers and keys (not the words of a
    message: :func:`code_terms`), whole or by their words (an abbreviation's by its
    full words too, :mod:`~citeloop.knowledge.abbreviations`, a builtin's as well:
    ``__dict__`` is a "dictionary"), or by their words' stems."""
    found = set()
    for token in code_terms(line):
        if (whole := token.lower()) in focus:
            found.add(whole)
        # an abbreviation's full words too ("configuration" finds `self.config`), but
        # not a keyword's: every `def` line is no "definition"
        full = not iskeyword(token)
        for word in identifier_words(token):
            fulls = (*ABBREVIATIONS.get(word, ()), *BUILTIN_WORDS.get(word, ())) if full else ()
            for each in (word, *fulls):
                if each in focus:
                    found.add(each)
                elif each.isalpha() and (stem := _STEM + word_stem(each)) in focus:
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
