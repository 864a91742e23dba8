"""Find the structured citations of an answer: ``[3]``, ``(Smith et al., 2020)``, ``@key``.

A signal check: :func:`extract_citations` reads any text and never raises on it; it
reports what it found, and :func:`citations_check` turns requirements (how many
sources, which style, numbers within ``1..max_number``) into a :class:`Check`.

Three styles are read, each after code spans and fenced code blocks are blanked out
(:func:`mask_code`), so ``a[0]``, ``print("[1]")`` and ``@decorator`` in code are never
citations:

**Numeric** (IEEE / Vancouver: ``[3]``, ``[3-5]``, ``[1, 2]``) and **author-year** (APA /
Harvard / Chicago author-date: ``(Smith et al., 2020; Doe 2019)``, ``Smith (2020)``) are
read by :mod:`citeloop.checks.citation_spans` and :mod:`citeloop.checks.author_year`,
whose docstrings give the rules.

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
from dataclasses import dataclass
from typing import Any

from citeloop.checks.author_year import author_year_spans
from citeloop.checks.check import Check, CheckOutcome, Problem, failed, require_text
from citeloop.checks.citation_spans import (
    AUTHOR_YEAR,
    KEY,
    MAX_RANGE_SPAN,
    NUMERIC,
    STYLES,
    CitationSpan,
    RangeExpander,
    numeric_spans,
    word_set,
)
from citeloop.checks.code_mask import mask_code
from citeloop.errors import ConfigurationError

_EXAMPLES = {
    NUMERIC: "numeric citations such as [1] or [2-4]",
    AUTHOR_YEAR: "author-year citations such as (Smith et al., 2020)",
    KEY: "citation keys such as @knuth1984 or [@knuth1984, p. 5]",
}


@dataclass(frozen=True, slots=True)
class Citations:
    """The citations of a text (see :func:`extract_citations`).

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


# --- keys ------------------------------------------------------------------------------

_KEY = re.compile(r"@(?:\{([^{}\n]{1,200})\}|([^\W][\w]*(?:[:.#$%&\-+?<>~/][\w]+)*))")
_NOT_BEFORE_KEY = frozenset(".+%/@&#$~\\=:")
_NPM_SCOPED = re.compile(r"[a-z0-9][a-z0-9._~-]*/[a-z0-9._~-]+")
_LINE_REST = re.compile(r"[ \t]*(?:\n|\Z)")
_HANDLE_CUES = word_set(
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


def extract_citations(text: str) -> Citations:
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
        >>> found = extract_citations("Known [3-5], [1] (Smith et al., 2020); see @knuth1984.")
        >>> found.numeric, found.author_year, found.keys
        ((1, 3, 4, 5), (('Smith et al.', 2020),), ('knuth1984',))
    """
    require_text(text)
    masked = mask_code(text)
    expander = RangeExpander()
    spans = numeric_spans(text, masked, expander)
    spans += author_year_spans(text, masked)
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
    """A :class:`Check` named ``"citations"`` over :func:`extract_citations`.

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
        found = extract_citations(text)
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
