"""What an answer says its context lacks, read from the passages that say it.

Its passages that say so (:mod:`~citeloop.grounding.lacking_passages`) give the code it
says it lacks (:func:`lacking_names`; the classes whose members and the names whose
callers it asks for: :func:`lacking_members`, :func:`lacking_callers`), the files and
source lines it writes (:func:`lacking_files`, :func:`lacking_lines`) and, where it
names none, the words in which it says what it lacks (:func:`lacking_words`): a
widening brings in all of them. Everything is linear in the length of the answer.
"""

from __future__ import annotations

import builtins
import itertools
import keyword
import re
import typing
from collections.abc import Iterable, Iterator

from citeloop.grounding.file_names import is_file_suffix
from citeloop.grounding.lacking_passages import asked_first, lacking_sentences, listed_and_said
from citeloop.grounding.mentions import MAX_MENTIONS, code_mentions, identifier_words, query_words
from citeloop.grounding.sayings import SAYING_WORDS, SENTENCE_END


def lacking_names(body: str) -> tuple[str, ...]:
    """The code ``body`` says its context lacks: the names its
    :func:`~citeloop.grounding.lacking_passages.insufficient_passages` write as code, in
    order, each once, without builtin types (``set`` in ``set[tuple[str, str]]``),
    the typing module's where subscripted (``Literal`` in ``dict[str, Literal["a"]]``),
    keywords and file names (``state.py``); a builtin function's name (``compile``) may
    well be a method's, and stays.

    A passage that asks for a class's constructor (initializer) names its ``__init__``
    too, right after the class: the code it lacks is that method.

    Example:
        >>> lacking_names("The body of `add_edge` is not shown: its `list` in `state.py`.")
        ('add_edge',)
        >>> lacking_names("The constructor of `EnvVars` is not shown.")
        ('EnvVars', 'EnvVars.__init__')
    """
    return _code_names(asked_first(body))


def listed_lacking_names(body: str) -> tuple[str, ...]:
    """The names of :func:`lacking_names` that ``body`` writes in a section a heading
    says is what the context lacks (``## Still missing``): those it lists as needed,
    not those of its prose (which also names code it used, beside a saying).

    Example:
        >>> listed_lacking_names("Uses `call`; `run` is not shown.\\n\\n## Missing\\n- `_Err`")
        ('_Err',)
    """
    return _code_names(listed_and_said(body)[0])


def _code_names(passages: Iterable[str]) -> tuple[str, ...]:
    """The code names ``passages`` write (:func:`_passage_names`), in order, each once,
    without keywords, builtin types, the relation words of a context's lines and file
    names."""
    names = (name for text in passages for name in _passage_names(text))
    return tuple(dict.fromkeys(n for n in names if n not in _NOT_ASKED and not n.endswith(".py")))


def _passage_names(passage: str) -> Iterator[str]:
    """The code names a passage writes (at most :data:`MAX_MENTIONS`), each class's
    ``__init__`` after it when the passage asks for a constructor: the list item that
    writes the class, with its sub-items ("1. **Constructors**" and its sub-list;
    "- `ForeignKey`:" and its "- its constructor"), or the lines before the passage's
    first item ("The constructors of these are not shown:" and its list); one item's
    "The constructors." asks for no other item's."""
    hints = {name for name in _SUBSCRIPTED.findall(passage) if name in _TYPING}
    items = [(item.start(), len(item["indent"])) for item in _ITEM_START.finditer(passage)]
    top = min((indent for _, indent in items), default=0)
    starts = [0, *(at for at, indent in items if indent == top), len(passage)]
    lead, count = False, 0
    for at, (start, end) in enumerate(itertools.pairwise(starts)):
        piece = passage[start:end]
        constructor = _CONSTRUCTOR.search(piece.lower()) is not None
        lead = lead or (at == 0 and constructor)
        mentions = [mention.name for mention in code_mentions(piece) if mention.name not in hints]
        classes = [name for name in mentions if _is_class_name(name)][:MAX_OWNERS]
        for name in mentions:
            if count == MAX_MENTIONS:
                return
            count += 1
            if classes and _is_special(name):  # "`UnifiedReadWrite` ... any `__call__`"
                yield from (f"{owner}.{name}" for owner in classes)
                continue
            yield name
            if (constructor or lead) and name in classes:
                yield f"{name}.__init__"


_ITEM_START = re.compile(r"^(?P<indent>[ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]", re.MULTILINE)
"""Where a list item starts (its line's start), and its indent."""


_CONSTRUCTOR = re.compile(r"\b(?:constructors?|initiali[sz]ers?|__init__)(?!\w)")

MAX_OWNERS = 3
"""Most classes of one list item (or passage) a special method it names bare is asked
of."""


def _is_special(name: str) -> bool:
    """Whether ``name`` is a special method's, written bare (``__call__``): every class
    may define one, so a list item that names classes asks for theirs (a played
    widening had brought an unrelated nested ``__call__`` for "`UnifiedReadWrite` ...
    plus any `__call__`/`__get__`")."""
    return len(name) > 4 and name.startswith("__") and name.endswith("__") and "." not in name


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
    members", in its :func:`~citeloop.grounding.lacking_passages.insufficient_passages`. A
    widening brings the best members of such a class, whose own lines are its ``class``
    line and docstring.

    Example:
        >>> lacking_members("The context lacks the methods of `Mixin` and `add_edge`'s body.")
        ('Mixin', 'add_edge')
    """
    names = [
        match.group(1) or match.group(2)
        for passage in asked_first(body)
        for match in _MEMBERS_ASKED.finditer(passage)
    ]
    # A class named in a sentence (or list item) of what is lacking that asks for a
    # method, attribute or property of it: "`ChromiumWebbrowser` ... its base class,
    # and the method that fetches the debugger URL" (a played answer's; its widening
    # had shown the class line alone).
    for passage in asked_first(body):
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
        for sentence in lacking_sentences(body)
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
    :func:`~citeloop.grounding.lacking_passages.insufficient_passages` write
    (``sklearn/ensemble/_bagging.py``, in backticks or not, with a line or not:
    ``tree.py:323``), in order, each once. A widening brings a name said lacking that
    several entities have from those files first.

    Example:
        >>> lacking_files("The body of `predict` in `sklearn/ensemble/_bagging.py` is not shown.")
        ('sklearn/ensemble/_bagging.py',)
    """
    found: dict[str, None] = {}
    for passage in asked_first(body):
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
    for sentence in lacking_sentences(body):
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
    for each line or range its
    :func:`~citeloop.grounding.lacking_passages.insufficient_passages` write
    (``L366-371``, ``L366-L371``, ``lines 366-371``, ``line 12``, ``pathlib.py:366-371``,
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
    listed, said = listed_and_said(body)
    # A section that lists them: the others' lines are often those cited.
    return tuple(_lines_of(listed) or _lines_of(said))


def cited_places(body: str) -> tuple[tuple[str, int, int], ...]:
    """The places with a file that ``body`` writes anywhere (``event.py:579-590``,
    ``test_vo.py L748``), as ``(path, first, last)``, in order, each once: the file of a
    range a passage of it asks for without one (:func:`lacking_lines`) when one of them
    holds the range.

    Example:
        >>> cited_places("`Event` (reflex/event.py:579-590) ... lacks L580-585 and b.py L3.")
        (('reflex/event.py', 579, 590), ('b.py', 3, 3))
    """
    return tuple((path, a, b) for path, a, b in _lines_of([body]) if path is not None)


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
            if _USED_AT.search(passage, max(0, match.start() - _USED_AT_CHARS), match.start()):
                continue  # "as used at L999": where the code it asks about is used
            if first > 0 and last > 0:
                found.setdefault((path, min(first, last), max(first, last)))
    return found


_USED_AT = re.compile(r"\b(?:used|called|invoked|passed|referenced|read)[ \t]+(?:at|on)[ \t]+$")
"""The words before a line that say where the code a passage asks about is used ("I
cannot confirm that it accepts `dim` as used at L999"): a line the answer read, not one
it asks for (a played widening had shown another file's lines 999 and 1012 for it).
Searched in the :data:`_USED_AT_CHARS` characters before the line only: linear."""
_USED_AT_CHARS = 24

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


_CODE_SPAN = re.compile(r"`[^`\n]*`")
"""A code span on one line (its backticks hold no backtick: linear)."""
_PLACE = re.compile(r":\d|^\(?L\d|[/\\][^/\\]*\.\w|\.pyi?\b")
"""A token that is a place, not prose: ``state.py:928``, ``L12-30``, ``src/a.py``,
``state.py`` (``read/write`` and ``retries:`` are prose); searched one token at a time,
each ``[^/\\]*`` within one path segment: linear."""


_NOT_ASKED = (
    frozenset(keyword.kwlist)
    | frozenset(name for name in dir(builtins) if isinstance(getattr(builtins, name), type))
    # the context's own words: "no `inherits` line" asks for no code named `inherits`
    # (a played retry had been told that the graph has no `inherits`)
    | frozenset({"calls", "inherits", "overrides"})
)
"""Names a passage writes that ask for no code: keywords, builtin types, and the words of
a context's relation lines."""
_TYPING = frozenset(name for name in typing.__all__ if name[:1].isupper())
"""The typing module's names: one subscripted in a passage (``Literal[``) is a type
hint's, no code asked for (a played answer's lacking ``dict[str, Literal["a", "b"]]``
had been told that `Literal` is ``typing.Literal``); written alone, it may name a class
of the code base (pymongo's ``Collection``)."""
_SUBSCRIPTED = re.compile(r"([A-Z]\w*)\[")
"""A capitalized name and the ``[`` of its subscription (linear)."""
