"""What an answer's body claims beyond its citation list: the code names it uses, the
locations its citations give, and whether it says the context was not enough.

Four checks of :class:`~citeloop.grounding.GraphContextValidator`:

- **Grounded names.** Each code-shaped name of the body
  (:func:`~citeloop.grounding.mentions.answer_mentions`) must be *grounded*: a
  context entity, a name the prompt (task, payload, context text) contains (a
  compound mixed-case one, ``MySQL``, also in another case, or as a word of one of its
  identifiers or paths: ``dialect_mysql.py``), or a name of Python itself (builtins,
  keywords, dunders, the standard library's modules and what is dotted onto them:
  ``os.path.join``, and the public names of the most used ones: ``TypedDict``,
  ``Path``). For a dotted name, a leading
  ``self.``/``cls.`` is dropped and the last part decides, together with the first
  part when it looks like a class (``FakeGraph.compile``); a last part that is a method
  of a builtin type (``self._nodes.items``) is Python's. Names the answer's own code
  examples define (:func:`~citeloop.grounding.mentions.defined_in_code`) are grounded
  too. An ungrounded name the
  knowledge graph has is *in the graph* (the next widening can bring it in); one it
  has not is *invented*, unless it is an SQL key word or an HTTP method written alone
  (`` `LIMIT` ``, `` `GET` ``: :data:`_NOT_CODE_WORDS`).
- **Locations.** A citation's ``path:line`` or ``path:start-end`` is valid when the
  path is the file of a context entity of that name (the same path, or one ends with
  the other at a ``/``) and every cited line lies inside that entity's span.
- **Insufficient context.** A body that says the context lacks what the answer needs
  ("the context does not show ...", "not enough information", "cannot determine from
  the provided context") asks for more context, however it goes on.
- **Prose.** A body of nothing but headings and lists of names (a citation list given
  twice, no answer) says nothing (:func:`only_lists`).

Everything is linear in the length of the answer and the prompt.
"""

from __future__ import annotations

import bisect
import builtins
import functools
import importlib
import keyword
import re
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass

from citeloop.grounding.context_text import Place
from citeloop.grounding.mentions import (
    answer_mentions,
    code_mentions,
    defined_in_code,
    identifier_words,
    query_words,
)
from citeloop.markdown import atx_heading, fenced, lines_of, list_item

GraphNames = Collection[str] | Callable[[str], bool]
"""The knowledge graph's entity names: a collection, or a predicate (a store lookup)."""

_COMMON_STDLIB = (
    "abc", "asyncio", "collections", "collections.abc", "concurrent.futures", "contextlib",
    "dataclasses", "datetime", "enum", "functools", "inspect", "itertools", "json",
    "logging", "operator", "os", "pathlib", "queue", "re", "threading", "types", "typing",
    "uuid", "weakref",
)  # fmt: skip


def _public_names(module: str) -> set[str]:
    return {name for name in dir(importlib.import_module(module)) if not name.startswith("_")}


@functools.cache
def _python_names() -> frozenset[str]:
    """Names of Python itself: builtins, keywords, standard-library modules, and the
    public names of the modules code uses most (``TypedDict``, ``dataclass``, ``Path``,
    ...). Built on first use: importing those modules costs tens of milliseconds."""
    return frozenset(
        set(dir(builtins))
        | set(keyword.kwlist)
        | set(keyword.softkwlist)
        | set(sys.stdlib_module_names)
        | {"self", "cls"}
        | {name for module in _COMMON_STDLIB for name in _public_names(module)}
    )


_BUILTIN_METHODS = frozenset(
    name
    for kind in (dict, list, set, frozenset, tuple, str, bytes, int, float)
    for name in dir(kind)
    if not name.startswith("_")
)
"""Methods of the builtin types: the last part of ``self._nodes.items`` names one."""
_RECEIVERS = ("self", "cls")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")

_CONTEXT = (
    r"(?:the )?(?:provided |given |supplied |available |injected |above |shown |widened "
    r"|retrieved )?"
    r"(?:context|snippets?|excerpts?|code shown|code provided|provided code|graph context)\b"
)
_NOT = r"(?:not|isn't|aren't|wasn't|weren't)"
_END = r"(?=\s*(?:[.,;:!?)\]\n]|$)|\s+(?:and|so|but|which|because|or|yet|though|although)\b)"
"""The end of a clause: "X is not in the context." but not "not in the context dict"."""
_SAYINGS = (
    _CONTEXT + r" (?:still |also |only |just |even |itself |here )?"
    r"(?:does not|doesn't|did not|didn't|do not|don't) (?:\w+ ){0,2}?"
    r"(?:show|include|contain|provide|have|cover|mention|define|describe|specify"
    r"|reveal|say|explain|expose|give)",
    _CONTEXT + r" (?:is|seems|appears|was) (?:to be )?(?:\w+ )?(?:insufficient"
    r"|incomplete|not enough|not sufficient|too limited|missing)",
    _CONTEXT + r" (?:lacks|omits|is missing|leaves out)",
    _CONTEXT + r" (?:still |also |only |itself |here )?(?:shows|gives|contains|includes|has)"
    r" (?:no|nothing)\b",
    r"\b(?:not|no) (?:enough|sufficient) (?:information|context|detail|code)",
    r"\binsufficient (?:information|context|detail)",
    r"\b(?:cannot|can't|can not|could not|couldn't|unable to|impossible to) "
    r"(?:\S+ ){0,6}?(?:from|in|with|based on) " + _CONTEXT,
    r"\b" + _NOT + r" (?:shown|included|present|visible|available"
    r"|given|provided|defined) (?:here|in " + _CONTEXT + ")",
    r"\b"
    + _NOT
    + r" (?:\w+ )?(?:in|part of|among|within) "
    + _CONTEXT
    + r"(?: (?:entities|entity list|lines|above|here))?"
    + _END,
    r"\b(?:missing|absent) from " + _CONTEXT + _END,
    r"\b(?:its|the|their) (?:body|bodies|source|source code|implementation|definition)"
    r"(?: of(?: \S+){1,3}?)? (?:(?:is|are|was|were) (?:still )?not"
    r"|(?:still )?(?:isn't|aren't|wasn't|weren't)) (?:shown|included|visible)"
    r"(?: (?:here|in " + _CONTEXT + "))?" + _END,
    r"\b(?:unclear|not clear) from " + _CONTEXT,
    # a heading of the answer's own: "## What is still missing", "## Still not shown"
    r"(?<![^\n])[\t\x20]{0,3}#{1,6}[\t\x20][^\n#]{0,60}?\b(?:still missing|is missing"
    r"|are missing|not shown|not visible|still hidden|remains? hidden|not in the context)\b",
    r"\bi (?:don't|do not) have (?:access to )?(?:the |its |their |enough )?"
    r"(?:\w+ ){0,2}?(?:implementation|source|body|definition|details|information)",
)
_INSUFFICIENT = re.compile("|".join(_SAYINGS).replace(" ", r"\s+"))
"""Sayings that the context lacks what is needed, in lower-cased text, any run of white
space between words (bounded gaps only, so matching is linear)."""
_ANCHORS = re.compile(
    r"\b(?:context|enough|sufficient|insufficient|snippets?|excerpts?|shown|provided|clear"
    r"|unclear|have|included|visible|available|present|given|missing|hidden)\b"
)


@functools.cache
def _any_case() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Both, for a text whose lower case is of another length (``İ``): searched as it
    is, so that offsets stay the text's (several times slower than on lower-cased
    text). Compiled on first use: such a text is rare, and compiling costs milliseconds
    at every start-up."""
    return (
        re.compile(_INSUFFICIENT.pattern, re.IGNORECASE),
        re.compile(_ANCHORS.pattern, re.IGNORECASE),
    )


_BEFORE, _AFTER = 200, 200
"""Characters searched before and after an anchor word (a whole word, not part of a
name such as ``ContextThread``): longer than any saying."""


def says_context_insufficient(body: str) -> bool:
    """Whether ``body`` says its context lacks what the answer needs.

    Example:
        >>> says_context_insufficient("The provided context does not show how X is kept.")
        True
        >>> says_context_insufficient("The context shows that X is kept in a dict.")
        False
    """
    return next(_sayings(body), None) is not None


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


@dataclass(frozen=True, slots=True)
class _Passage:
    start: int
    end: int
    by_heading: bool  # said by the heading the passage starts with: its whole section
    sayings: list[tuple[int, int]]  # the spans of its sayings


def _passages(body: str) -> list[_Passage]:
    """The passages of :func:`insufficient_passages`, with their sayings (offsets are
    ``body``'s; fenced code blanked first)."""
    text = _without_fences(body)
    starts = [0, *(block.end() for block in _BLOCK.finditer(text)), len(text)]
    found: list[_Passage] = []
    for saying in _sayings_in(text):
        if found and saying.start() < found[-1].end:
            found[-1].sayings.append(saying.span())  # in the passage of the one before
            continue
        at = bisect.bisect_right(starts, saying.start()) - 1
        start, end = starts[at], starts[at + 1]
        by_heading = bool(_HEADING.match(text, start)) and "\n" not in text[start : saying.start()]
        if by_heading:
            following = _HEADING.search(text, end)
            end = following.start() if following else len(text)
        found.append(_Passage(start, max(end, saying.end()), by_heading, [saying.span()]))
    return found


def _without_fences(body: str) -> str:
    """``body`` with the lines of its fenced code blocks blanked (the same length, so
    offsets stay ``body``'s)."""
    if "```" not in body and "~~~" not in body:
        return body
    lines = body.split("\n")
    return "\n".join(
        " " * len(line) if code else line for line, code in zip(lines, fenced(lines), strict=True)
    )


def lacking_names(body: str) -> tuple[str, ...]:
    """The code ``body`` says its context lacks: the names its
    :func:`insufficient_passages` write as code, in order, each once, without builtin
    types (``set`` in ``set[tuple[str, str]]``), keywords and file names (``state.py``);
    a builtin function's name (``compile``) may well be a method's, and stays.

    Example:
        >>> lacking_names("The body of `add_edge` is not shown: its `list` in `state.py`.")
        ('add_edge',)
    """
    names = (m.name for text in insufficient_passages(body) for m in code_mentions(text))
    return tuple(dict.fromkeys(n for n in names if n not in _TYPES and not n.endswith(".py")))


def lacking_words(body: str) -> tuple[str, ...]:
    """What ``body`` says its context lacks where it names no code for it: the words
    (:func:`~citeloop.grounding.mentions.query_words`) of the sentence of each saying
    (of the whole section under a heading that says it), outside the code and the
    places (``state.py:928``, ``L12-30``) they write and the words of saying it
    (:data:`SAYING_WORDS`), in order, each once, at most :data:`LACKING_WORDS`. A
    widening searches the graph with them as with a task's words.

    Example:
        >>> lacking_words("It is kept. The context does not show where options are checked.")
        ('options', 'checked')
        >>> lacking_words("The body of `add_edge` (graph/state.py:928) is not shown.")
        ()
    """
    words: dict[str, None] = {}
    for sentence in _lacking_sentences(body):
        code = {word for m in code_mentions(sentence) for word in identifier_words(m.name)}
        prose = " ".join(
            token for token in _CODE_SPAN.sub(" ", sentence).split() if not _PLACE.search(token)
        )
        for word in query_words(prose, limit=len(prose)):
            if word not in code and word not in SAYING_WORDS:
                words.setdefault(word)
                if len(words) == LACKING_WORDS:
                    return tuple(words)
    return tuple(words)


LACKING_WORDS = 64
"""Most words :func:`lacking_words` returns (as many as a task's query words)."""


def _lacking_sentences(body: str) -> Iterator[str]:
    """The sentence of each saying of :func:`insufficient_passages` (from the end of the
    sentence before to the first end after it: a saying may run over a line break), or
    the whole section under a heading that says it (each of its items says what is
    missing); a sentence holding several sayings, once."""
    passages = _passages(body)
    if not passages:
        return
    ends = [end.end() for end in _SENTENCE_END.finditer(_without_fences(body))]
    for passage in passages:
        if passage.by_heading:
            yield body[passage.start : passage.end]
            continue
        last = -1
        for start, end in passage.sayings:
            first = bisect.bisect_right(ends, start) - 1  # the last end before the saying
            after = bisect.bisect_left(ends, end)  # the first end at or after it
            if after == last:
                continue
            last = after
            begin = max(passage.start, ends[first] if first >= 0 else 0)
            yield body[begin : min(passage.end, ends[after] if after < len(ends) else len(body))]


_SENTENCE_END = re.compile(
    r"[.!?](?=\s+[^\sa-z])|\n(?=[ \t]*(?:\n|[-*+][ \t]|\d{1,3}[.)][ \t]))"
    r"|(?<![^\n]) {0,3}#[^\n]*\n"
)
"""Where a sentence ends: a stop before a word that is not lower-case (``e.g. the``
goes on), a blank line, a list item, or a heading's line."""
_CODE_SPAN = re.compile(r"`[^`\n]*`")
"""A code span on one line (its backticks hold no backtick: linear)."""
_PLACE = re.compile(r":\d|^\(?L\d|[/\\][^/\\]*\.\w|\.pyi?\b")
"""A token that is a place, not prose: ``state.py:928``, ``L12-30``, ``src/a.py``,
``state.py`` (``read/write`` and ``retries:`` are prose); searched one token at a time,
each ``[^/\\]*`` within one path segment: linear."""


SAYING_WORDS = frozenset(
    """
    context widened shown show shows showing body bodies source code lines line missing
    still included include includes visible present given provided contain contains
    lacks lack lacking implementation definition definitions defined enough sufficient
    insufficient information detail details unclear clear hidden available omitted left
    excerpt excerpts snippet snippets entities entity list listed signature rest part
    parts say says tell know see cannot whether appears appear beyond answer question
    task short exact exactly guess guesses unknown unsure sure certain confirm
    confirmed assume assumed presumably probably likely however according later goes
    becomes including remaining whatever therefore partly anywhere somewhere else
    actually currently particular necessarily clearly simply directly rather either
    several much many every whole another others
    """.split()  # noqa: SIM905 (a word list reads best as words)
) | frozenset(re.findall(r"[a-z]{2,}", " ".join(_SAYINGS)))
"""Words of saying that something is not shown or only guessed (``the body of ... is
still not shown in the context``, ``... is a guess``; every word of the sayings
detected) and of linking what is said (``however``, ``according``), not of what is
missing: :func:`lacking_words` leaves them out (a rare word finds code by chance)."""


_TYPES = frozenset(keyword.kwlist) | frozenset(
    name for name in dir(builtins) if isinstance(getattr(builtins, name), type)
)


_BLOCK = re.compile(r"\n(?=[ \t\r]*\n|[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]| {0,3}(?:#|```|~~~))")
"""Where a block of Markdown starts: after a blank line, at a list item, a heading or a
code fence."""
_HEADING = re.compile(r"^ {0,3}#", re.MULTILINE)


def _sayings(body: str) -> Iterator[re.Match[str]]:
    """Every saying of :data:`_INSUFFICIENT` in ``body`` outside fenced code, in any
    case, in order (offsets are ``body``'s)."""
    return _sayings_in(_without_fences(body))


def _sayings_in(body: str) -> Iterator[re.Match[str]]:
    """:func:`_sayings` of a text whose fenced code is blanked."""
    text, sayings, anchors = body.lower(), _INSUFFICIENT, _ANCHORS
    if len(text) != len(body):
        text, (sayings, anchors) = body, _any_case()
    # Every saying names one of these words: search only around them, a bounded window
    # each, overlapping windows as one (each character searched from once, however
    # close the anchors are), so a long answer costs little and the work stays linear.
    start = end = -1
    for anchor in anchors.finditer(text):
        before, after = max(0, anchor.start() - _BEFORE), anchor.end() + _AFTER
        if before > end:
            if end >= 0:
                yield from sayings.finditer(text, start, end)
            start = before
        end = after
    if end >= 0:
        yield from sayings.finditer(text, start, end)


def prompt_names(texts: Iterable[str]) -> frozenset[str]:
    """Every identifier (each part of a dotted one) written in ``texts``."""
    return frozenset(name for text in texts for name in _IDENTIFIER.findall(text))


def prompt_words(names: Iterable[str]) -> frozenset[str]:
    """The :func:`prompt_names` lower-cased, whole and split at ``_``: the words that
    ground a compound name of the answer written in another case (``MySQL`` beside
    ``dialect_mysql.py``, ``BigQuery`` beside ``bigquery``)."""
    return frozenset(word for name in names for word in (name.lower(), *name.lower().split("_")))


def _compound(part: str) -> bool:
    """A name of two or more words in mixed case (``MySQL``, ``BigQuery``; not ``Node``,
    whose lower case is the word of many an identifier: ``add_node``)."""
    return part.lower() != part != part.upper() and len(identifier_words(part)) > 1


_SQL_KEY_WORDS = (
    "SELECT FROM WHERE GROUP ORDER BY HAVING LIMIT OFFSET FETCH TOP JOIN INNER OUTER LEFT "
    "RIGHT FULL CROSS NATURAL ON USING UNION INTERSECT EXCEPT MINUS INSERT INTO VALUES "
    "UPDATE SET DELETE MERGE UPSERT TRUNCATE CREATE ALTER DROP TABLE VIEW INDEX SCHEMA "
    "DATABASE WITH RECURSIVE AS DISTINCT AND OR NOT NULL IS IN BETWEEN LIKE ILIKE EXISTS "
    "ALL ANY SOME CASE WHEN THEN ELSE END CAST QUALIFY WINDOW OVER PARTITION ROWS RANGE "
    "PRECEDING FOLLOWING UNBOUNDED CURRENT ROW RETURNING PRIMARY FOREIGN KEY REFERENCES "
    "UNIQUE CHECK DEFAULT CONSTRAINT COLLATE ASC DESC NULLS FIRST LAST BEGIN COMMIT "
    "ROLLBACK TRANSACTION GRANT REVOKE LATERAL PIVOT UNPIVOT ESCAPE INTERVAL"
)
"""SQL key words (ISO/IEC 9075 and common dialects) an answer about queries writes."""
_HTTP_METHODS = "GET HEAD POST PUT DELETE CONNECT OPTIONS TRACE PATCH"
"""HTTP methods (RFC 9110, RFC 5789)."""
_NOT_CODE_WORDS = frozenset(f"{_SQL_KEY_WORDS} {_HTTP_METHODS}".split())
"""Upper-case words that name no code in an answer: SQL key words and HTTP methods
(`` `LIMIT` ``, `` `GET` ``). An invented constant (`` `TIMEOUT` ``) is not among them."""


def _looks_like_class(part: str) -> bool:
    return part[:1].isupper() and any(char.islower() for char in part)


def _is_dunder(part: str) -> bool:
    return len(part) > 4 and part.startswith("__") and part.endswith("__")


@dataclass(frozen=True, slots=True)
class UngroundedNames:
    """The body's code names that are not grounded, as written, in order.

    Attributes:
        in_graph: Names the knowledge graph has (not in the context or prompt).
        invented: Names nothing has: neither the context, the prompt, Python, nor the
            graph (every ungrounded name, when no graph is given).
    """

    in_graph: tuple[str, ...] = ()
    invented: tuple[str, ...] = ()


def _in_graph(graph: GraphNames | None) -> Callable[[str], bool]:
    if graph is None:
        return lambda name: False
    if callable(graph):
        return graph
    return graph.__contains__


def ungrounded_names(
    body: str,
    grounded: Collection[str],
    graph: GraphNames | None = None,
    *,
    prompt: Sequence[str] = (),
) -> UngroundedNames:
    """The code names of ``body`` that are not grounded (see the module docstring).

    Args:
        body: The answer without its citation section.
        grounded: Names that are grounded: the context's entity names.
        graph: The knowledge graph's names, or ``None``.
        prompt: Texts whose identifiers are grounded too (:func:`prompt_names`); read
            only when a name is not grounded otherwise.

    Returns:
        The ungrounded names, split by whether the graph has them.
    """
    has = _in_graph(graph)
    own = defined_in_code(body)
    python = _python_names()
    written: frozenset[str] | None = None
    words: frozenset[str] | None = None
    in_graph: list[str] = []
    invented: list[str] = []
    for mention in answer_mentions(body):
        parts = mention.name.split(".")
        while parts and parts[0] in _RECEIVERS:
            parts.pop(0)
        if not parts or parts[0] in python:
            continue  # `dict.items`, `os.path.join`, `ValueError`, `None`
        checked = [parts[-1]]
        if len(parts) > 1 and _looks_like_class(parts[0]):
            checked.append(parts[0])
        missing = [
            part
            for part in checked
            if part not in grounded and part not in own and not _is_dunder(part)
        ]
        if missing and prompt:
            if written is None:
                written = prompt_names(prompt)
            missing = [part for part in missing if part not in written]
            if any(_compound(part) for part in missing):
                words = prompt_words(written) if words is None else words
                missing = [
                    part for part in missing if not (_compound(part) and part.lower() in words)
                ]
        if len(parts) > 1 and parts[-1] in _BUILTIN_METHODS and parts[0] not in missing:
            continue  # `self._nodes.items()`, `config.get`
        if not missing:
            continue
        if all(has(part) for part in missing):
            in_graph.append(mention.name)
        elif mention.name not in _NOT_CODE_WORDS:  # `LIMIT`, `GET`, not `self.LIMIT`
            invented.append(mention.name)
    return UngroundedNames(tuple(in_graph), tuple(invented))


def same_file(cited: str, known: str) -> bool:
    """Whether a cited path names the file ``known`` (relative to the indexed root): the
    same path, or one ends with the other at a ``/`` (``src/pkg/a.py`` and ``pkg/a.py``)."""
    cited = cited.strip().removeprefix("./")
    known = known.strip().removeprefix("./")
    if not cited or not known:
        return False
    return cited == known or cited.endswith("/" + known) or known.endswith("/" + cited)


def location_valid(path: str, start: int, end: int, places: Iterable[Place]) -> bool:
    """Whether lines ``start``-``end`` of ``path`` lie inside one of ``places``."""
    if start < 1 or end < start:
        return False
    return any(
        same_file(path, place.path) and place.start <= start and end <= place.end
        for place in places
    )


_NAME_PART = re.compile(r"\w+")
_TOKEN_EDGES = "`*_~\"'()[]{}<>#|>-–—:;,.!?…"
_LIST_WORDS = frozenset(
    {"entities", "entity", "used", "cited", "citation", "citations", "references"}
    | {"referenced", "sources", "source", "and", "or", "the", "see", "line", "lines"}
)


def only_lists(body: str, names: Collection[str]) -> bool:
    """Whether ``body`` is lists of names and nothing else: it has a list item or a
    heading, and no prose (:func:`has_prose`). A citation list given twice is; a short
    body that names an entity in a sentence fragment (``GraphStore.``) is not."""
    if has_prose(body, names):  # in an answer, decided by its first word
        return False
    return any(
        list_item(stripped) is not None or atx_heading(stripped) is not None
        for stripped in map(str.strip, lines_of(body))
    )


def has_prose(body: str, names: Collection[str]) -> bool:
    """Whether ``body`` says anything beyond names: a word that is no part of a context
    name, no path or location (``a/b.py``, ``x.py:12``) and no word of a list label
    (``Entities used``). A body made of headings and lists of names (a citation list
    given twice) has none. Stops at the first such word: in an answer, its first word.
    """
    parts: set[str] | None = None
    for token in body.split():
        word = token.strip(_TOKEN_EDGES)
        if not any(char.isalpha() for char in word) or any(char in word for char in "/.:#@"):
            continue
        if word.lower() in _LIST_WORDS:
            continue
        if word in names:
            continue
        if parts is None:  # the words of names that are more than one word (`Owner.run`)
            parts = {
                part
                for name in names
                if not name.isidentifier()
                for part in _NAME_PART.findall(name)
            }
        if word not in parts:
            return True
    return False
