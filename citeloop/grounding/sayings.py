"""What an answer says its context lacks: whether it says so, where, and what.

A body that says the context lacks what the answer needs ("the context does not show
...", "not enough information", "cannot determine from the provided context") asks for
more context, however it goes on (:func:`says_context_insufficient`, the
``insufficient_context`` rule of :class:`~citeloop.grounding.GraphContextValidator`).
Its passages that say so (:func:`insufficient_passages`) give the code it says it lacks
(:func:`lacking_names`) and, where it names none, the words in which it says what it
lacks (:func:`lacking_words`): a widening brings in both. Fenced code says nothing of
the context. Everything is linear in the length of the answer.
"""

from __future__ import annotations

import bisect
import builtins
import functools
import keyword
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from citeloop.grounding.mentions import (
    code_mentions,
    identifier_words,
    is_file_suffix,
    query_words,
)
from citeloop.markdown import fenced
from citeloop.text import is_word_char, replace_chars

_CONTEXT = (
    r"(?:the )?(?:provided |given |supplied |available |injected |above |shown |widened "
    r"|retrieved )?"
    r"(?<!\w)(?:context|snippets?|excerpts?|code shown|code provided|provided code"
    r"|graph context)\b"
)
_NOT = r"(?:not|isn't|aren't|wasn't|weren't)"
_END = r"(?=\s*(?:[.,;:!?()\]\n]|\*\*|$)|\s+(?:and|so|but|which|because|or|yet|though|although)\b)"
"""The end of a clause: "X is not in the context." (or the end of a bold line: "**Missing
from the context**", or what a parenthesis adds: "**Missing from the context (needed
to answer)**") but not "not in the context dict"."""
_HEADING_SAYING = (
    r"(?:still missing|is missing|are missing|'s missing|not shown|not visible|still hidden"
    r"|remains? hidden|not in the context|i would need|i'd need)"
)
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
    r"\b(?:cannot|can't|can not|could not|couldn't|unable to|impossible to|not possible to"
    r"|hard to|no way to) (?:\S+ ){0,6}?(?:from|in|with|based on) " + _CONTEXT + r"(?! of\b)",
    r"\b" + _NOT + r" (?:shown|included|present|visible|available"
    r"|given|provided|defined) (?:here|in " + _CONTEXT + ")",
    r"\b"
    + _NOT
    + r" (?:\w+ )?(?:in|part of|among|within) "
    + _CONTEXT
    + r"(?: (?:entities|entity list|lines|above|here))?"
    + _END,
    r"\b(?:missing|absent) from " + _CONTEXT + _END,
    r"(?:\b(?:its|the|their)|'s) (?:\w+ )?(?:body|bodies|source|source code|implementation"
    r"|definition|constructor|initializer|methods|members|fields|attributes|tests)"
    r"(?: of(?: \S+){1,3}?)? (?:(?:is|are|was|were) (?:still )?not"
    r"|(?:still )?(?:isn't|aren't|wasn't|weren't)) (?:shown|included|visible)"
    r"(?: (?:here|in " + _CONTEXT + r"))?(?: either| yet)?" + _END,
    r"\b(?:its|their) code (?:(?:is|are|was|were) (?:still )?not|(?:still )?(?:isn't|aren't"
    r"|wasn't|weren't)) (?:shown|included|visible|provided)" + _END,
    r"\b(?:unclear|not clear) from " + _CONTEXT,
    # a heading of the answer's own: "## What is still missing", "## Still not shown",
    # or a line all bold: "**Still missing**"
    r"(?<![^\n])[\t\x20]{0,3}(?:#{1,6}[\t\x20][^\n#]{0,60}?|\*\*[^\n*]{0,60}?)\b"
    + _HEADING_SAYING
    + r"\b",
    # a line or list item labelled so: "- Not shown: the body of `f` (L12-30)"
    r"(?<![^\n])[\t\x20]{0,3}(?:(?:[-*+]|\d{1,3}[.)])[\t\x20]{1,4})?(?:\*\*)?"
    r"(?:still[\t\x20])?(?:not[\t\x20](?:shown|visible)|missing|hidden)(?:\*\*)?[\t\x20]{0,4}:",
    # or one that starts with the word: "**Missing, needed to answer**", "## Gaps", but
    # not "## Missing values" (an answer about imputation)
    r"(?<![^\n])[\t\x20]{0,3}(?:#{1,6}[\t\x20]{1,4}|\*\*)(?:missing|gaps)"
    r"(?=[\t\x20]*(?:[:,(*\n]|$)|[\t\x20](?:code|lines|pieces|parts|information|details"
    r"|bodies|definitions|source)\b|[\t\x20]in[\t\x20]" + _CONTEXT + r")",
    # or a plain line so, that ends with a colon and says what for: "Missing, and
    # needed to answer:", "Still missing from the context:" (a list follows), but not
    # "Missing values are dropped:" nor "Missing, with a default:"
    r"(?<![^\n])[\t\x20]{0,3}(?:still[\t\x20])?missing(?:[\t\x20]?[,(]|[\t\x20](?:code"
    r"|lines|pieces|parts|information|details|bodies|definitions|source)\b)"
    r"(?=[^\n:]{0,60}?\b(?:needs?|needed|requires?|required|context|answer|answering"
    r"|question|task|shown|show|see|lacks?|lacking)\b)[^\n:]{0,60}"
    r"(?=:[\t\x20]*(?:\r?\n|$))",
    r"\bi (?:don't|do not) have (?:access to )?(?:the |its |their |enough )?"
    r"(?:\w+ ){0,2}?(?:implementation|source|body|definition|details|information)",
    # the answer's own doubt: "I cannot say how ...", "I can't tell what it returns"
    r"\bi(?: cannot| can't| can not| could not| couldn't|'m unable to| am unable to"
    r"|'m not able to| am not able to) (?:\w+ )?(?:(?:say|tell|confirm|determine|verify)"
    r" (?:how|what|whether|if|which|where|why|when|who|exactly|for sure|for certain|from"
    r"|without|that|more|much|anything)\b|be (?:sure|certain)\b)",
    r"\bi(?:'m| am) not (?:sure|certain) (?:how|what|whether|if|which|where|why|when)\b",
    r"\bi (?:don't|do not) know (?:how|what|whether|if|which|where|why|when)\b",
    r"\bi (?:cannot|can't|can not|don't|do not) see (?:the |its |their )(?:\w+ )?"
    r"(?:body|bodies|source|implementation|definition)",
    r"\b(?:i|we)(?:'d| would) need (?:to (?:see|inspect|look at) (?:the |its |their )(?:\w+ )"
    r"{0,2}?(?:body|bodies|source|code|implementation|definition)|more (?:context|code)"
    r"|(?:these|the following) (?:\w+ ){0,2}?(?:lines|bodies|definitions))",
    r"\bwithout seeing (?:the |its |their )(?:\w+ ){0,2}?(?:body|bodies|source|code"
    r"|implementation|definition)",
    r"\b(?:outside|beyond) what "
    + _CONTEXT
    + r" (?:shows?|covers?|includes?|contains?|gives?)"
    + _END,
)
_INSUFFICIENT = re.compile(
    r"(?:\b|(?<![^\n])|(?='))(?:" + "|".join(_SAYINGS).replace(" ", r"\s+") + ")"
)
"""Sayings that the context lacks what is needed, in lower-cased text, any run of white
space between words (bounded gaps only, so matching is linear). Each starts at a word's
edge, a line's start or an apostrophe (``'s body``): said first, that halves the time a
search takes, which no longer tries every saying inside every word."""
_ANCHOR_WORDS = (
    *("context", "enough", "sufficient", "insufficient", "snippet", "snippets", "excerpt"),
    *("excerpts", "shown", "provided", "clear", "unclear", "have", "included", "visible"),
    *("available", "present", "given", "missing", "gaps", "hidden", "say", "tell"),
    *("confirm", "determine", "verify", "know", "sure", "certain", "need", "see", "seeing"),
)
"""Words every saying has one of (its anchors)."""
_ANCHORS = re.compile(r"\b(?:" + "|".join(_ANCHOR_WORDS) + r")\b")
_QUOTED = re.compile(r'`[^`\n]*`|"[^"\n]*"|\u201c[^\u201c\u201d\n]*\u201d')
"""A code span or a quotation on one line: what the answer quotes (an error message,
a docstring) says nothing of its context. Each run ends at the next mark of its kind
or the line's end, so a failed one is not scanned again: linear."""


def _blanked(quoted: re.Match[str]) -> str:
    """The quotation with its inside made ``x`` (the same length: offsets stay)."""
    text = quoted.group()
    return text[0] + "x" * (len(text) - 2) + text[-1]


_APOSTROPHES = "\u2019\u2018\u02bc"
"""Typographic apostrophes models write (``doesn\u2019t``), read as ``'``: one character
for one, so offsets stay the text's."""


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


def _listed_and_said(body: str) -> tuple[list[str], list[str]]:
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
        at = start
        while at < end:
            line_end = text.find("\n", at, end)
            line_end = end if line_end < 0 else line_end
            line = text[at:line_end]
            if _LIST_ITEM.match(line):
                if item is not None:
                    spans.append((item, at))
                item = at
            elif item is not None and not (line.strip() and line[:1] in " \t"):
                spans.append((item, at))
                item = None
            at = line_end + 1
        if item is not None:
            spans.append((item, end))
    return spans


_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]")
"""A list item's first line."""


def _asked_first(body: str) -> list[str]:
    """:func:`insufficient_passages`, those a heading says first
    (:func:`_listed_and_said`)."""
    listed, said = _listed_and_said(body)
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
    answer a widening reads twice (:func:`lacking_names`, then :func:`lacking_words`)."""
    text = _without_fences(body)
    starts = [0, *(block.end() for block in _BLOCK.finditer(text)), len(text)]
    found: list[tuple[int, int, bool, bool, list[tuple[int, int]]]] = []
    for saying in _sayings_in(text):
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
        # a label that ends with its colon ("Missing:") is on the line the list follows
        elif (listed := _list_after(text, saying.end() - saying.group().endswith(":"))) is not None:
            by_heading, end = True, listed  # "Still missing from the context:" and a list
        elif (label := _LABEL.match(text, head)) and saying.end() <= label.end():
            by_heading = True  # "**Still missing:** `a`; the body of `b`": its paragraph
        found.append((start, max(end, saying.end()), by_heading, headed, [saying.span()]))
    return text, tuple(_Passage(a, b, c, h, tuple(d)) for a, b, c, h, d in found)


_LIST_LINE = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]|[ \t]+\S")
"""A list item's line, or a line that goes on with an item (indented)."""


def _list_after(text: str, at: int) -> int | None:
    """Where the list ends that follows the line ``at`` is on, when that line ends with
    a colon ("Still missing from the context:", then "1. ...", "2. ..."): the list says
    what is missing, as a heading's section does. ``None`` when the line ends otherwise
    or no list follows. Reads each line once."""
    line_end = text.find("\n", at)
    if line_end < 0 or not text[at:line_end].rstrip().endswith(":"):
        return None
    end, position, items = None, line_end + 1, 0
    while position < len(text):
        next_end = text.find("\n", position)
        next_end = len(text) if next_end < 0 else next_end
        line = text[position:next_end]
        if _LIST_LINE.match(line):
            items, end = items + 1, next_end
        elif line.strip():  # prose ends it (blank lines do not)
            break
        position = next_end + 1
    return end if items else None


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

    A passage that asks for a class's constructor (initializer) names its ``__init__``
    too, right after the class: the code it lacks is that method.

    Example:
        >>> lacking_names("The body of `add_edge` is not shown: its `list` in `state.py`.")
        ('add_edge',)
        >>> lacking_names("The constructor of `EnvVars` is not shown.")
        ('EnvVars', 'EnvVars.__init__')
    """
    return _code_names(_asked_first(body))


def listed_lacking_names(body: str) -> tuple[str, ...]:
    """The names of :func:`lacking_names` that ``body`` writes in a section a heading
    says is what the context lacks (``## Still missing``): those it lists as needed,
    not those of its prose (which also names code it used, beside a saying).

    Example:
        >>> listed_lacking_names("Uses `call`; `run` is not shown.\\n\\n## Missing\\n- `_Err`")
        ('_Err',)
    """
    return _code_names(_listed_and_said(body)[0])


def _code_names(passages: Iterable[str]) -> tuple[str, ...]:
    """The code names ``passages`` write (:func:`_passage_names`), in order, each once,
    without builtin types and file names."""
    names = (name for text in passages for name in _passage_names(text))
    return tuple(dict.fromkeys(n for n in names if n not in _TYPES and not n.endswith(".py")))


def _passage_names(passage: str) -> Iterator[str]:
    """The code names a passage writes, each class's ``__init__`` after it when the
    passage asks for a constructor."""
    constructor = _CONSTRUCTOR.search(passage.lower()) is not None
    for mention in code_mentions(passage):
        yield mention.name
        if constructor and _is_class_name(mention.name):
            yield f"{mention.name}.__init__"


_CONSTRUCTOR = re.compile(r"\b(?:constructors?|initiali[sz]ers?|__init__)(?!\w)")


def _is_class_name(name: str) -> bool:
    """Whether ``name`` is written as a class's (``EnvVars``, ``HTTPServer``), not as a
    matrix's or a constant's (``W``, ``K``, ``W_sr``, ``MAX_SIZE``): only a class has a
    constructor to ask for."""
    return (
        name[:1].isupper()
        and name.isalnum()
        and any(c.islower() for c in name)
        and not keyword.iskeyword(name)  # `None`, `False`
    )


def lacking_members(body: str) -> tuple[str, ...]:
    """The names whose body or members ``body`` says its context lacks, in order, each
    once: "the test methods of `Mixin`", "the body of the class `Field`", "`Field`'s
    members", in its :func:`insufficient_passages`. A widening brings the best members
    of such a class, whose own lines are its ``class`` line and docstring.

    Example:
        >>> lacking_members("The context lacks the methods of `Mixin` and `add_edge`'s body.")
        ('Mixin', 'add_edge')
    """
    names = [
        match.group(1) or match.group(2)
        for passage in _asked_first(body)
        for match in _MEMBERS_ASKED.finditer(passage)
    ]
    # A class named in a sentence (or list item) of what is lacking that asks for a
    # method, attribute or property of it: "`ChromiumWebbrowser` ... its base class,
    # and the method that fetches the debugger URL" (a played answer's; its widening
    # had shown the class line alone).
    for passage in _asked_first(body):
        for sentence in _split_sentences(passage):
            if _A_MEMBER.search(sentence):
                names += (
                    span.group(1)
                    for span in _NAME_SPAN.finditer(sentence)
                    if "." not in span.group(1) and _is_class_name(span.group(1))
                )
    return tuple(dict.fromkeys(names))


_A_MEMBER = re.compile(
    r"\b(?:methods?|members?|attributes?|propert(?:y|ies)|fields?)\b", re.IGNORECASE
)
"""A sentence that asks for part of a class (see :func:`lacking_members`)."""
_NAME_SPAN = re.compile(r"`((?:[^\W\d]\w*\.)*[^\W\d]\w*)`")
"""A code span of one (dotted) name."""


def _split_sentences(text: str) -> Iterator[str]:
    """The sentences of ``text`` (:data:`SENTENCE_END`: a list item is one)."""
    start = 0
    for end in SENTENCE_END.finditer(text):
        yield text[start : end.end()]
        start = end.end()
    yield text[start:]


_WHOLE = r"(?:bod(?:y|ies)|methods|members|fields|attributes|tests|definition|implementation)"
_MEMBERS_ASKED = re.compile(
    rf"\b{_WHOLE}\s+of\s+(?:the\s+)?(?:(?:base|test|mixin|parent)\s+)?(?:class(?:es)?\s+)?"
    rf"`([^`\s]+)`|`([^`\s]+)`(?:'|\u2019)s\s+(?:\w+\s+)?{_WHOLE}\b",
    re.IGNORECASE,
)


def lacking_callers(body: str) -> tuple[str, ...]:
    """The names whose callers ``body`` says its context lacks, in order, each once:
    "the method that calls `save_session`", "where the request flow calls `push()`",
    "the callers of `push`", "where `compile()` is called", "`attach_edge`'s call
    sites", in the sentences that say it (or the section a heading says it of). A
    widening brings the code that calls such an entity, with its source.

    Example:
        >>> lacking_callers("Not shown: the method that calls `Session.save` during a request.")
        ('Session.save',)
    """
    names = (
        _CALLED_NAME.match(next(group for group in match.groups() if group))
        for sentence in _lacking_sentences(body)
        for match in _CALLERS_ASKED.finditer(sentence)
    )
    return tuple(dict.fromkeys(name.group(1) for name in names if name))


_CALLERS_ASKED = re.compile(
    r"\b(?:(?:that|which|what|who|where)\s+(?:\w+\s+){0,4}(?:calls?|invokes?)|callers?\s+of"
    r"|call[- ]sites?\s+of|calls\s+to)\s+(?:the\s+)?`([^`\s]+)`"
    r"|\bwhere\s+`([^`\s]+)`\s+(?:is|gets)\s+(?:called|invoked)\b"
    r"|`([^`\s]+)`(?:'|\u2019)s\s+(?:callers?|call[- ]sites?)\b",
    re.IGNORECASE,
)
"""Where a passage asks for the code that calls a name (each alternative starts at a
word or a backtick and reads a bounded run of words: linear)."""

_CALLED_NAME = re.compile(r"((?:[^\W\d]\w*\.)*[^\W\d]\w*)(?:\((?:\.\.\.|\u2026)?\))?$")
"""A code span that names code: a dotted name, a call's ``()`` or ``(...)`` left off
(not ``app.py:12`` or ``...``)."""


def lacking_files(body: str) -> tuple[str, ...]:
    """The files ``body`` says code it lacks is in: the paths its
    :func:`insufficient_passages` write (``sklearn/ensemble/_bagging.py``, in backticks
    or not, with a line or not: ``tree.py:323``), in order, each once. A widening
    brings a name said lacking that several entities have from those files first.

    Example:
        >>> lacking_files("The body of `predict` in `sklearn/ensemble/_bagging.py` is not shown.")
        ('sklearn/ensemble/_bagging.py',)
    """
    found: dict[str, None] = {}
    for passage in _asked_first(body):
        for token in _PATH_TOKEN.findall(passage):
            path = token.strip("./-").partition(":")[0]
            stem, dot, suffix = path.rpartition("/")[2].rpartition(".")
            if dot and stem and is_file_suffix(suffix) and not suffix.isdigit():
                found.setdefault(path)
    return tuple(found)


_PATH_TOKEN = re.compile(r"[\w./:-]+")
"""A run of the characters of a path (and of a ``:line`` after it); each character is
read once: linear."""


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


def lacking_lines(body: str) -> tuple[tuple[str | None, int, int], ...]:
    """The source lines ``body`` says its context lacks: ``(path or None, first, last)``
    for each line or range its :func:`insufficient_passages` write (``L366-371``,
    ``L366-L371``, ``lines 366-371``, ``line 12``, ``pathlib.py:366-371``,
    ``pathlib.py#L366``), in order, each once; a range written backwards is read
    forwards. When a section headed as what the context lacks (``## Still missing``)
    writes lines, only those of such sections: a passage of the answer's prose that
    says code is left out also cites the lines it saw (``validate_params (L150-233)
    calls it at L208-209``). An excerpt names what it leaves out so (``… 6 lines
    (L366-371)``), and the system prompt asks for the lines left out by number: a
    widening shows them.

    Example:
        >>> lacking_lines("The context does not show L366-371 of `ensure_deletable`.")
        ((None, 366, 371),)
        >>> lacking_lines("Lines 12-14 (src/a.py:12-14) are not shown in the context.")
        ((None, 12, 14), ('src/a.py', 12, 14))
        >>> lacking_lines("The context does not show test_vo.py L748-761 or L791.")
        (('test_vo.py', 748, 761), (None, 791, 791))
    """
    listed, said = _listed_and_said(body)
    # A section that lists them: the others' lines are often those cited.
    return tuple(_lines_of(listed) or _lines_of(said))


def _lines_of(passages: list[str]) -> dict[tuple[str | None, int, int], None]:
    """:func:`lacking_lines` of these passages, in order."""
    found: dict[tuple[str | None, int, int], None] = {}
    for passage in passages:
        for match in _LINES.finditer(passage):
            first = int(match["first"])
            last = int(match["last"]) if match["last"] else first
            path = None
            if match["mark"] in (":", "#L", ":L"):
                path = _word_ending(passage, match.start(), " \t\n(`[").lstrip("\"'*_<") or None
                if path is not None and "." not in path.rpartition("/")[2]:
                    continue  # `note:12`, `retries:3`: no file
                if path is not None and not is_file_suffix(path.rpartition(".")[2]):
                    path = None  # `TfidfTransformer.fit:1658`: code, not a file
            elif match["mark"] == "L":  # `test_vo.py L748-761`: the file just before
                path = _file_before(passage, match.start())
            if first > 0 and last > 0:
                found.setdefault((path, min(first, last), max(first, last)))
    return found


_MAX_PATH = 260
"""Longest path read back from a ``:`` (each read is bounded, so many marks stay linear)."""


def _file_before(passage: str, end: int) -> str | None:
    """The file name written right before ``end`` and one space (``test_vo.py`` of
    ``test_vo.py L748``, in backticks or not; and of ``test_vo.py (L748-761)``), or
    ``None`` when the word there is no file name (``of L12``, ```add_edge` L40``,
    ```TfidfTransformer.fit` L1658``, whose suffix is no file's). Reads at most
    :data:`_MAX_PATH` characters back."""
    if end >= 3 and passage[end - 1] == "(":
        end -= 1  # `tree.py` (L323-356): the range in brackets after the file
    if end < 2 or passage[end - 1] != " ":
        return None
    word = _word_ending(passage, end - 1, " \t\n([").strip("`*\"'")
    stem, dot, suffix = word.rpartition("/")[2].rpartition(".")
    return word if dot and stem and is_file_suffix(suffix) else None


def _word_ending(passage: str, end: int, stops: str) -> str:
    """The text of ``passage`` before ``end`` back to the last of ``stops`` (a path
    written before a line mark), at most :data:`_MAX_PATH` characters: each read is
    bounded, so many marks stay linear."""
    begin = max(0, end - _MAX_PATH)
    start = max(passage.rfind(c, begin, end) for c in stops) + 1
    return passage[max(start, begin) : end]


_LINES = re.compile(
    r"(?P<mark>#L|:L|:|\bL|\b[Ll]ines?[ \t]+)(?P<first>\d{1,7})"
    r"(?:[ \t]*(?:-|–|—|to|through)[ \t]*L?(?P<last>\d{1,7}))?\b"
)
"""A line or range a passage writes: after ``L``, ``line``/``lines``, ``:`` or ``#L`` (the
path before ``:`` read back to the space before it, by string methods: linear)."""


def _lacking_sentences(body: str) -> Iterator[str]:
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


SENTENCE_END = re.compile(
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
_HEADING = re.compile(
    r"^ {0,3}(?:#|(?:\*\*|__)[^*_\n]{1,80}(?<![.!?])(?:\*\*|__):?[ \t]*$)", re.MULTILINE
)
"""A heading: an ATX heading, or a short line that is all bold and no sentence
(``**What the context lacks**``, not ``**Note: the body is not shown.**``), as models
write a heading (each part excludes the next: linear)."""
_LABEL = re.compile(r" {0,3}(?:\*\*|__)[^*_\n]{1,80}?(?::(?:\*\*|__)|(?:\*\*|__):)[ \t]*\S")
"""A bold label that ends with a colon and opens a paragraph, its text on the same line
(``**Still missing:** the definition of `f`; ...``): when it says what the context
lacks, its paragraph is the answer's own list of what it needs, as a heading's section
is (each part excludes the next: linear)."""
_ATX = re.compile(r"^ {0,3}#", re.MULTILINE)
"""An ATX heading: what ends a section a ``#`` heading starts (a bold label inside it
does not)."""


def _sayings(body: str) -> Iterator[re.Match[str]]:
    """Every saying of :data:`_INSUFFICIENT` in ``body`` outside fenced code, in any
    case, in order (offsets are ``body``'s)."""
    return _sayings_in(_without_fences(body))


_NOT_NEEDED = re.compile(
    r"\b(?:not\s+needed|not\s+required|not\s+necessary|unnecessary|not\s+essential"
    r"|(?:does|do|did)\s+not\s+(?:affect|change|matter)"
    r"|(?:doesn't|don't|didn't)\s+(?:affect|change|matter))\b",
    re.IGNORECASE,
)
"""What says that code not shown does not bear on the answer (each alternative a fixed
sequence of words: linear)."""
BACK_REFERENCE = re.compile(
    r"\W*(?:this|that|these|those|it|they|both|neither|none|all\s+of\s+them)\b",
    re.IGNORECASE,
)
"""The start of a sentence that goes on about the one before it ("This does not affect
...", "They are not part of ...", "That is not needed to answer ...")."""
_NEEDED_WINDOW = 400
"""Characters after a saying read for a "not needed" (a bounded window each: linear)."""
_NOTHING_MISSING = re.compile(
    r"\bnothing\b[^.;:!?\n]{0,60}?\b(?:is|was)\s+(?:missing|lacking|absent)\b", re.IGNORECASE
)
"""What says that nothing the answer needs is lacking ("Nothing needed for the question
is missing": what else the answer says is not shown is an aside). Bounded between its
words, so each match is short: linear."""


_NOTHING = re.compile(
    r"[\s*:]{0,8}(?:(?:nothing|none|n/a)\b"
    r"|(?:[-*+]|\d{1,3}[.)])[\t\x20]{1,4}(?:nothing|none|n/a)[.\t\x20]*(?:\r?\n|$))",
    re.IGNORECASE,
)
"""What a label says when nothing is lacking: "**Missing:** nothing the question
needs", or a list of nothing ("Missing:" and "- none", the item all of it: not "- None
of the bodies ... are shown")."""


def _needed(text: str, saying: re.Match[str]) -> bool:
    """Whether a saying says code is lacking that the answer needs: not when its
    sentence, or the next one that goes on about it, says that code is not needed
    ("Still not shown (not needed for the answer above):", "... are left out. This does
    not affect the behaviour asked about."), nor when the bold label or heading that
    opens its paragraph says so ("**Not shown, though not needed.** The context doesn't
    show ..."), nor when what it labels is nothing ("**Missing:** nothing the question
    needs"), nor when its sentence, the next or one before it in its paragraph says
    nothing needed is missing ("Nothing needed for the question is missing. The test
    ... is not shown, so I cannot say what it checks."): played answers that were
    complete were asked again for such lists."""
    if _NOTHING.match(text, saying.end()):
        return False
    window = text[saying.start() : saying.end() + _NEEDED_WINDOW]
    end = SENTENCE_END.search(window, saying.end() - saying.start())
    after = SENTENCE_END.search(window, end.end() + 1) if end is not None else None
    if _NOTHING_MISSING.search(window, 0, after.end() if after else len(window)):
        return False  # its sentence or the next says nothing needed is missing
    if end is not None and BACK_REFERENCE.match(window, end.end()):
        end = after
    if _NOT_NEEDED.search(window, 0, end.end() if end else len(window)):
        return False
    # The label that opens its paragraph (its first sentence, bold or a heading), or a
    # sentence before it there that says nothing needed is missing.
    start = text.rfind("\n\n", max(0, saying.start() - _NEEDED_WINDOW), saying.start())
    if start >= 0:
        start += 2
    elif saying.start() <= _NEEDED_WINDOW:
        start = 0  # the paragraph is the answer's first
    else:
        return True  # its paragraph starts out of reach
    if _NOTHING_MISSING.search(text, start, saying.start()):
        return False
    if not text.startswith(("**", "#"), start):
        return True
    first = SENTENCE_END.search(text, start, saying.start())
    return _NOT_NEEDED.search(text, start, first.end() if first else saying.start()) is None


def _sayings_in(body: str) -> Iterator[re.Match[str]]:
    """:func:`_sayings` of a text whose fenced code is blanked, but for those that say
    the code is not needed (:func:`_needed`)."""
    return (saying for saying in _all_sayings_in(body) if _needed(body, saying))


def _anchor_words(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each :data:`_ANCHOR_WORDS` word of lower-cased ``text``,
    in order: what :data:`_ANCHORS` finds (a whole word: no word character, ``\\w``, on
    either side), found with one ``str.find`` pass a word, several times faster than
    the pattern tried at every word of a long answer. Linear."""
    spans = []
    size = len(text)
    for word in _ANCHOR_WORDS:
        at = text.find(word)
        while at >= 0:
            stop = at + len(word)
            before = at and is_word_char(text[at - 1])
            if not before and not (stop < size and is_word_char(text[stop])):
                spans.append((at, stop))
            at = text.find(word, stop)
    spans.sort()
    return spans


def _quotes_blanked_near(text: str, anchors: list[tuple[int, int]]) -> str:
    """``text`` with its quotations blanked (:data:`_QUOTED`) on the lines within reach
    of an anchor word of it (``anchors``): only there can a saying be (a quotation holds
    no line break, so a line is blanked alike whole or alone). Blanking costs a call per
    quotation: a long answer of code spans far from any anchor is not blanked. Each line
    is blanked once: linear."""
    pieces, done = [], 0
    for at, stop in anchors:
        if at < done:
            continue  # on a line already blanked
        start = max(done, text.rfind("\n", 0, max(0, at - _BEFORE)) + 1)
        end = text.find("\n", stop + _AFTER)
        end = len(text) if end < 0 else end
        pieces += [text[done:start], _QUOTED.sub(_blanked, text[start:end])]
        done = end
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


def _all_sayings_in(body: str) -> Iterator[re.Match[str]]:
    """Every saying of a text whose fenced code is blanked."""
    body = replace_chars(body, _APOSTROPHES, "'")
    text, sayings = body.lower(), _INSUFFICIENT
    if len(text) == len(body):
        found = _anchor_words(text)
    else:
        text, (sayings, anchors) = body, _any_case()
        found = [(anchor.start(), anchor.end()) for anchor in anchors.finditer(text)]
    raw, text = text, _quotes_blanked_near(text, found)
    # Every saying names one of these words: search only around them, a bounded window
    # each, overlapping windows as one (each character searched from once, however
    # close the anchors are), so a long answer costs little and the work stays linear.
    # A word quoted is none (blanked; a quotation's marks are no word characters, so a
    # word is wholly in one or out of it).
    start = end = -1
    for at, stop in found:
        if not text.startswith(raw[at:stop], at):
            continue
        before, after = max(0, at - _BEFORE), stop + _AFTER
        if before > end:
            if end >= 0:
                yield from sayings.finditer(text, start, end)
            start = before
        end = after
    if end >= 0:
        yield from sayings.finditer(text, start, end)
