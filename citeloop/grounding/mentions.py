"""What a task names *as code*, and the words it says: the two ways a context is found.

A **mention** is a name the text writes the way code is written:

- in backticks (`` `read` ``, every name inside but the parts of a path,
  `` `pkg/io/tree.py` ``; fenced blocks too);
- CamelCase: an upper-case letter after a lower-case one, or two upper-case letters and a
  lower-case one (``StateGraph``, ``JSONProvider``; not ``Pregel``, ``API``, nor an
  acronym's plural, ``ASTs``, nor a product's name such as ``GitHub`` or ``CPython``:
  :mod:`~citeloop.grounding.proper_nouns`);
- dotted (``StateGraph.compile``, ``os.path``; not ``e.g``, a file name ``state.py``, a
  host ``docs.python.org`` nor anything of a URL or e-mail address:
  :mod:`~citeloop.grounding.links`);
- called (``compile()``);
- with an underscore (``add_node``, ``_private``, ``MAX_SIZE``);
- a requirement or decision id (``REQ-008-013``, ``DEC-7``, ``ADR-0003``);
- capitalized inside a sentence, after a word or a comma (``how does Checkout use
  Cart``): a class name, the only kind of entity it may name (a capitalized word that
  starts a sentence, a line or a list item is none). It is the weakest form: a proper
  noun is capitalized too (``Python's``), so the injector seeds such a class without
  making it core.

A plain word (``run``, ``read``, ``where``) is never a mention, even when an entity has
that name: the task says it in English. It is one of the task's **words**, which lexical
retrieval looks up (split from identifiers too: ``add_node`` gives ``add`` and
``node``). Scanning is linear: one non-backtracking pattern and a few passes.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass

from citeloop.grounding.file_names import (
    FILE_NAMES,
    FILE_SUFFIXES,
    in_file_path,
    is_file_suffix,
)
from citeloop.grounding.links import is_host_name, without_links
from citeloop.grounding.proper_nouns import PROPER_NOUNS
from citeloop.text import is_word_char, normalize_text, plain_hyphens, without_invisible

_IDENTIFIER = r"[^\W\d]\w*"
_ID_PREFIXES = frozenset({"REQ", "DEC", "ADR"})
"""What a requirement's or a decision's id opens with, before its ``-``."""
_TOKEN = re.compile(
    # an id (no backtracking: a hyphen or a dot is no word character)
    rf"(?:{'|'.join(sorted(_ID_PREFIXES))})-\w+(?:-\w+)*(?:\.{_IDENTIFIER})*"
    rf"|{_IDENTIFIER}(?:\.{_IDENTIFIER})*(?:\(\))?"
)
_SHAPED_TOKEN = re.compile(
    r"\b(?=[^\W\d])(?=\w*[^\W_a-z0-9]|\w*_|\w*\.[^\W\d]|\w*\(\))(?:" + _TOKEN.pattern + ")"
)
"""A token that may be code-shaped: its first word has an upper-case or non-ASCII
letter or an underscore, or is followed by a dot and a name or by a call's ``()`` (a
lower-case word is prose, so the regex skips it; :func:`_form` decides). Tried only
where a name starts, each look-ahead within that one word (never across dots, so
``1.1.1...`` is not scanned again from each digit): linear."""
_BACKTICKS = re.compile("`+")
_ALPHANUMERIC = re.compile(r"[^\W_]+")
MAX_MENTIONS = 200
"""Mentions kept per text, in order (a pasted file would otherwise name thousands)."""


def is_file_name(mention: Mention, unknown: Collection[str]) -> bool:
    """Whether a name an answer writes, not called, names a file rather than code: a
    :data:`FILE_NAMES` name, or ``stem.suffix`` whose suffix is a file's
    (:func:`~citeloop.grounding.file_names.is_file_suffix`) and among ``unknown`` (the
    parts no code has), after a stem that is no known class (``pyproject.toml``,
    ``CMakeLists.txt``; not ``Response.json`` where ``json`` is a method, nor
    ``StateGraph.yaml`` where ``StateGraph`` is a class, nor ``parser.json()``).

    Example:
        >>> is_file_name(Mention("CMakeLists.txt", "backticks"), {"CMakeLists", "txt"})
        True
        >>> is_file_name(Mention("StateGraph.yaml", "backticks"), {"yaml"})
        False
    """
    if mention.called:
        return False
    parts = mention.name.split(".")
    if len(parts) == 1:
        return parts[0] in FILE_NAMES
    if len(parts) != 2:
        return False
    stem, suffix = parts
    known_class = stem[:1].isupper() and stem not in unknown and not stem.isupper()
    return suffix in unknown and is_file_suffix(suffix) and not known_class


def same_file(cited: str, known: str) -> bool:
    """Whether a cited path names the file ``known`` (relative to the indexed root): the
    same path, or one ends with the other at a ``/`` (``src/pkg/a.py`` and ``pkg/a.py``).
    A ``\\`` separates as ``/`` does, on either side (a context of a store of one's own,
    written on Windows, has ``pkg\\a.py``)."""
    cited = cited.strip().replace("\\", "/").removeprefix("./")
    known = known.strip().replace("\\", "/").removeprefix("./")
    if not cited or not known:
        return False
    return cited == known or cited.endswith("/" + known) or known.endswith("/" + cited)


def _kind_of_file(span: str) -> bool:
    """Whether a code span is a kind of file (`` `.ps1` ``, `` `.toml` ``), no name."""
    code = span.strip()
    return code.startswith(".") and is_file_suffix(code[1:])


STOP_WORDS = frozenset(
    {
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "call",
        "called",
        "calls",
        "can",
        "class",
        "classes",
        "code",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "file",
        "files",
        "for",
        "from",
        "function",
        "functions",
        "further",
        "get",
        "gets",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "made",
        "make",
        "makes",
        "me",
        "mean",
        "means",
        "method",
        "methods",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "one",
        "only",
        "or",
        "other",
        "our",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "two",
        "under",
        "until",
        "up",
        "use",
        "used",
        "uses",
        "using",
        "value",
        "values",
        "very",
        "via",
        "was",
        "way",
        "ways",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "work",
        "works",
        "would",
        "you",
        "your",
        "yours",
    }
)
"""English words too common to retrieve anything by (and words every code question has)."""


@dataclass(frozen=True, slots=True)
class Mention:
    """A name the text writes as code.

    Attributes:
        name: The name without backticks or call parentheses (``"StateGraph.compile"``).
        form: How it was written: ``"backticks"``, ``"camel"``, ``"dotted"``, ``"call"``,
            ``"underscore"``, ``"id"`` or ``"capitalized"`` (which names classes only).
    """

    name: str
    form: str
    called: bool = False
    """Written as a call: ``()`` or arguments followed it."""


def code_pieces(text: str) -> list[tuple[str, str]]:
    """``(segment, kind)`` pieces of ``normalize_text(text)`` without invisible
    characters, its hyphens ``-`` (:func:`~citeloop.text.plain_hyphens`), ``kind``
    ``"text"``, ``"span"`` or ``"fence"``: a run of backticks opens a code span that the
    next run of the same length in its block closes (a paragraph, a list item or a
    heading: Markdown's inline content, CommonMark §6.1), or a fence that the next run
    of its length closes; a run that nothing closes is text (a quote of ```nan'`` in
    one paragraph does not pair with a backtick of the next, which would make the words
    between two later code spans code: a played answer was failed for the verbs of
    "`fit` uses `kneighbors`"). One pass over the runs: linear. Web and e-mail
    addresses are blanked out first (:func:`~citeloop.grounding.links.without_links`;
    no backtick, blank line or list marker is in one): ``docs.python.org`` and
    ``ops_team`` of them name no code."""
    shown = plain_hyphens(without_invisible(normalize_text(text)))
    return list(_split_code(without_links(shown)))


_BLOCK_START = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*+]|\d{1,9}[.)]|#{1,6})[ \t])")
"""Where a Markdown block ends and another starts: a blank line, or a line that opens
a list item or a heading."""


def _split_code(text: str) -> Iterator[tuple[str, str]]:
    runs = [(match.start(), match.end()) for match in _BACKTICKS.finditer(text)]
    starts = [match.end() for match in _BLOCK_START.finditer(text)] if runs else []
    later: dict[tuple[int, int], list[int]] = {}  # (length, block) -> its runs, last first
    keys = []
    for start, end in runs:  # a fence (3 backticks or more) may hold blank lines
        keys.append((end - start, -1 if end - start >= 3 else bisect.bisect(starts, start)))
    for index in range(len(runs) - 1, -1, -1):
        later.setdefault(keys[index], []).append(index)
    position, index = 0, 0
    while index < len(runs):
        start, end = runs[index]
        same = later[keys[index]]
        while same and same[-1] <= index:
            same.pop()
        if not same:
            index += 1
            continue
        close = same.pop()
        yield text[position:start], "text"
        code = text[end : runs[close][0]]
        if end - start >= 3:  # a fenced block: its first line is the info string ("python")
            yield code.partition("\n")[2], "fence"
        else:
            yield code, "span"
        position = runs[close][1]
        index = close + 1
    yield text[position:], "text"


def _form(token: str) -> str | None:
    """How a token outside backticks is written as code, or ``None`` for a plain word
    (or a product's name: :mod:`~citeloop.grounding.proper_nouns`)."""
    if token in PROPER_NOUNS:
        return None
    if token.endswith("()"):
        return "call"
    if token[3:4] == "-" and token[:3] in _ID_PREFIXES:
        return "id"
    if "." in token:
        parts = token.split(".")
        if parts[-1].lower() in FILE_SUFFIXES or any(len(part) < 2 for part in parts):
            return None  # a file name (state.py) or an abbreviation (e.g, i.e)
        if is_host_name(parts):
            return None  # a host: docs.python.org
        if _capitalized(parts[-1]) and parts[-1].lower() in STOP_WORDS:
            return None  # a missing space: "I read.Then I left"
        return "dotted"
    if "_" in token.strip("_") or token.startswith("_") or token.endswith("_"):
        return "underscore"  # `add_node`, `_private`, `coef_` (a fitted attribute), `class_`
    if token.islower() or token.isupper() or (token[:1].isupper() and token[1:].islower()):
        return None  # one case, or capitalized (most words): no CamelCase
    if token.endswith("s") and token[:-1].isupper():
        return None  # an acronym's plural: ASTs, URLs, IDs
    upper = sum(char.isupper() for char in token)
    if upper and any(char.islower() for char in token):
        inner = any(a.islower() and b.isupper() for a, b in itertools.pairwise(token))
        if inner or upper >= 2:
            return "camel"
    return None


def _capitalized(token: str) -> bool:
    return len(token) > 1 and token[0].isupper() and token[1:].islower() and token.isalpha()


def _mid_sentence(segment: str, match: re.Match[str]) -> bool:
    """Whether the token follows a word, a digit, or a comma or semicolon on its line:
    inside a sentence (not after ``.``, ``?``, ``1)``, a bullet, a quote or the start of
    a line, as after a heading)."""
    before = segment[max(0, match.start() - 8) : match.start()].rstrip(" \t")
    return bool(before) and (before[-1].isalnum() or before[-1] in ",;")


def _in_title(segment: str, match: re.Match[str]) -> bool:
    """Whether the token is one of a run of capitalized words, a space between each: a
    title, a quoted summary or a proper name ("Test Docstring First Line Empty", "New
    York"), not a class name (a played answer's quoted docstring summary had made
    `Docstring`, `First`, `Line` and `Empty` names it asked for); a word that starts the
    sentence ("The Checkout flow") makes none. Reads the word on each side only."""
    start, end = match.start(), match.end()
    before = segment[max(0, start - 2 * _WORD_READ) : start]
    head, _, word = before[:-1].rpartition(" ")
    if before.endswith(" ") and _capitalized(word) and head[-1:].isalnum():
        return True  # after a capitalized word inside the sentence ("The" starts one)
    after = segment[end : end + _WORD_READ]
    return after.startswith(" ") and _capitalized(after[1:].partition(" ")[0])


_WORD_READ = 24
"""Characters read on each side of a capitalized word for a neighbour (a longer word is
no title's)."""


def is_code_shaped(name: str) -> bool:
    """Whether a bare name is written as code on its own (CamelCase, an underscore, an
    id), as opposed to a plain word."""
    return _form(name) is not None


def _first_mentions(
    found: Iterator[tuple[str, str]], most: int | None = MAX_MENTIONS
) -> list[Mention]:
    """``(token, form)`` pairs as mentions: ``()`` dropped, the first of each name, at
    most ``most`` (the rest of the text is not read; ``None``: every one)."""
    mentions: dict[str, Mention] = {}
    for token, form in found:
        name = token.removesuffix("()")
        if name not in mentions:
            mentions[name] = Mention(name, form, name != token)
            if most is not None and len(mentions) >= most:
                break
    return list(mentions.values())


def qualified(
    names: Iterable[str], among: Iterable[str] | None = None, standalone: Collection[str] = ()
) -> tuple[str, ...]:
    """``names`` in order, each once, a bare name that is the last part of a dotted one
    of ``among`` (default: ``names``) led by a class's name replaced by the first such:
    an answer that writes `RequestContext.pop` and then `pop()` means that method (a
    played widening had brought `_AppCtxGlobals.pop` for it); `np.asarray`,
    `self.items.push` or `response.json` say nothing of which `asarray`, `push` or
    `json` the code base's is. A name of ``standalone`` (a class or function of the
    context that no class owns) stays bare: `JavascriptKeyboardEvent` beside
    `EventNamespace.JavascriptKeyboardEvent` is the class (a played widening had sent
    the lines asked of it to another file).

    Example:
        >>> qualified(["pop", "RequestContext.pop", "push", "self.items.push"])
        ('RequestContext.pop', 'push', 'self.items.push')
    """
    names = list(names)
    dotted: dict[str, str] = {}
    for name in names if among is None else among:
        head, dot, _ = name.partition(".")
        if dot and head[:1].isupper() and any(c.islower() for c in head):
            dotted.setdefault(name.rpartition(".")[2], name)
    return tuple(
        dict.fromkeys(name if name in standalone else dotted.get(name, name) for name in names)
    )


def code_mentions(text: str) -> list[Mention]:
    """The names ``text`` writes as code, in order of first appearance, at most
    :data:`MAX_MENTIONS` (see the module docstring).

    Example:
        >>> [m.name for m in code_mentions("Does `read` run StateGraph.compile() here?")]
        ['read', 'StateGraph.compile']
    """
    return _first_mentions(_task_tokens(text))


def product_names(text: str) -> list[str]:
    """The products' names (:data:`~citeloop.grounding.proper_nouns.PROPER_NOUNS`) that
    ``text`` writes outside code, in order of first appearance: no code it names, but a
    class of the code base may bear one (conan's ``CMake`` wraps CMake), so a task's
    may still hint at it as a capitalized word does.

    Example:
        >>> product_names("Where does the CMake variable get set, and is `GitHub` used?")
        ['CMake']
    """
    return list(
        dict.fromkeys(
            match.group()
            for segment, kind in code_pieces(text)
            if kind == "text"
            for match in _TOKEN.finditer(segment)
            if match.group() in PROPER_NOUNS
        )
    )


def _task_tokens(text: str) -> Iterator[tuple[str, str]]:
    for segment, kind in code_pieces(text):
        if kind == "span" and (
            _kind_of_file(segment) or _keyword_phrase(segment) or _hyphenated(segment)
        ):
            continue
        in_path = in_file_path(segment) if kind == "text" else None
        for match in _TOKEN.finditer(segment):
            token = match.group()
            if kind == "span" and _in_path(segment, match.start(), match.end()):
                continue  # `astropy/io/votable/tree.py` names a file, not `io` or `votable`
            if in_path is not None and in_path(match.start()):
                continue  # so does src/_pytest/pathlib.py:1038, not `_pytest`
            form = "backticks" if kind != "text" else _form(token)
            if (
                form is None
                and _capitalized(token)
                and _mid_sentence(segment, match)
                and not _in_title(segment, match)
            ):
                form = "capitalized"
            if form is not None:
                yield token, form


def _hyphenated(span: str) -> bool:
    """Whether a code span is one word of three or more names joined by hyphens, which
    no Python name is and no subtraction is written as (`` `end-start` `` may be one): a
    checker's message (`` `assignment-from-no-return` ``); no names (a played answer's
    lacking message had made `assignment` and `no` names it asked for). An id
    (`` `REQ-auth-login` ``) stays one."""
    parts = span.strip().split("-")
    return (
        len(parts) > 2
        and parts[0] not in _ID_PREFIXES
        and all(part[:1].isalpha() and part.isidentifier() for part in parts)
    )


_STATEMENTS = frozenset(
    {"SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "ALTER", "DROP", "WITH", "MERGE"}
    | {"GROUP", "ORDER", "PARTITION", "LEFT", "RIGHT", "INNER", "OUTER", "FULL", "CROSS"}
    | {"UNION", "REPLACE", "TRUNCATE", "GRANT", "REVOKE", "EXPLAIN", "VALUES", "RETURNING"}
)
"""Upper-case words SQL statements and clauses open with."""


def _keyword_phrase(span: str) -> bool:
    """Whether a code span is a SQL statement or clause: a word of :data:`_STATEMENTS`
    and more after it (`` `CREATE TABLE users` ``, `` `GROUP BY` ``, `` `SELECT * FROM t`
    ``): no names (a played answer's lacking `` `CREATE TABLE` `` statement had
    brought a constant ``TABLE``); `` `MAX * 2` `` is code."""
    words = span.split(maxsplit=1)
    return len(words) == 2 and words[0] in _STATEMENTS


def _in_path(span: str, start: int, end: int) -> bool:
    """Whether the token ``span[start:end]`` is a part of a path: a ``/`` is right
    before or after it (``src/app.py``, ``./tools``)."""
    return span[start - 1 : start] == "/" or span[end : end + 1] == "/"


def answer_mentions(text: str, most: int | None = MAX_MENTIONS) -> list[Mention]:
    """The names an answer writes as code as a claim about the code base, in order of
    first appearance, at most ``most`` (``None``: every one; what an answer claims is
    checked whole, or names after the first 200 would go unchecked).

    Stricter than :func:`code_mentions`, because an answer also writes code of its own:
    fenced blocks are skipped (an example's names are its own), a capitalized word is
    prose, and a code span counts only when it starts with a name (``@`` and ``.`` may
    precede it): a span of one name counts as written (`` `read` ``), a longer one by
    its first name when that is code-shaped (`` `graph.invoke({...})` `` names
    ``graph.invoke``; `` `pip install x` ``, `` `"agent"` ``, `` `--verbose` `` name
    nothing), and a name in quotes outside backticks (``"_resolve_types"``) is one of
    the answer's own making, as the system prompt asks such names written: no claim.

    Example:
        >>> [m.name for m in answer_mentions("Use `read` and StateGraph; the Graph ends.")]
        ['read', 'StateGraph']
    """
    return _first_mentions(_answer_tokens(code_pieces(text)), most)


def answer_code(text: str) -> tuple[list[Mention], frozenset[str]]:
    """``(answer_mentions(text, most=None), defined_in_code(text))``, reading the text's
    code spans once."""
    pieces = code_pieces(text)
    return _first_mentions(_answer_tokens(pieces), None), _defined(pieces)


def _answer_tokens(pieces: list[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    for at, (segment, kind) in enumerate(pieces):
        if kind == "span":
            code = segment.strip().lstrip("@.")
            match = _TOKEN.match(code)
            if match is None or (
                match.end() != len(code.rstrip()) and _form(match.group()) is None
            ):
                continue
            if _kind_of_file(segment):
                continue
            after = pieces[at + 1][0][:12] if at + 1 < len(pieces) else ""
            if token := _unglobbed(match.group(), code + after, match.start(), match.end()):
                called = code.startswith("(", match.end()) and not token.endswith("()")
                yield token + "()" * called, "backticks"
        elif kind == "text" and not _plain_lower_case(segment):
            in_path = in_file_path(segment)
            for match in _SHAPED_TOKEN.finditer(segment):
                start = match.start()
                if in_path(start):
                    continue  # src/_pytest/pathlib.py names a file, not `_pytest`
                if start > 1 and segment[start - 1] == "*" and is_word_char(segment[start - 2]):
                    continue  # the tail of a pattern (`get_*_schema`)
                if _quoted(segment, start, match.end()):
                    continue  # a name of the answer's own making ("a helper such as
                    # "_resolve_types""), as the system prompt asks it written
                token = _unglobbed(match.group(), segment, start, match.end())
                if token and (form := _form(token)):
                    yield token, form


_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}
"""Opening quotes and the closing quote of each."""


def _quoted(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is the whole of a quotation: ``"_resolve_types"``,
    \u201cFooBar\u201d, ``'fill_value'`` (a played answer that wrote its proposed helper
    in quotes, as the system prompt asks of a name of its own making, had been told it
    invented that name)."""
    opening = text[start - 1] if start else ""
    return bool(opening) and text[end : end + 1] == _QUOTES.get(opening, "\0")


_ELLIPSES = ("\u2026", "...")


def _unglobbed(token: str, text: str, start: int, end: int) -> str:
    """``token`` (``text[start:end]``) as a claim. A name pattern names a family, not
    one entity, so only what it is dotted onto is claimed (``Graph`` of
    `` `Graph.attach_*` ``; nothing for a bare ``attach_*``): a name a ``*`` follows
    (`` `get_*_schema` ``; not the closing ``*`` of emphasis, ``*name*``), or a prefix
    (a name ending in ``_``) an ellipsis, a placeholder or the word "prefix" follows
    (`` `parse_tag_…` ``, ``add_...``, `` `repr_<type>` ``, `` `visit_{node}` ``, "no
    `` `test_` `` prefix"; an ellipsis after a whole name, or a call, is prose: ``it
    calls load...``)."""
    after = text[end : end + 1]
    if after == "*":
        if start > 0 and text[start - 1] == "*":  # emphasis
            return token
    elif not (
        token.endswith("_")
        and (
            text.startswith(_ELLIPSES, end)
            or after in _PLACEHOLDERS
            or text[end : end + 12].lstrip("`*_ ").startswith("prefix")
        )
    ):
        return token
    return token.rpartition(".")[0]


_PLACEHOLDERS = ("<", "{")
"""What opens a placeholder after a name's prefix (`` `repr_<type>` ``): a family."""


def _plain_lower_case(segment: str) -> bool:
    """Whether ``segment`` can hold no code-shaped token (:data:`_SHAPED_TOKEN` needs an
    upper-case or non-ASCII letter, an underscore, a dot or a call's ``()``): ASCII
    lower-case prose, ruled out by string methods instead of the regex (an answer's
    prose between its code spans is mostly such)."""
    return (
        segment.islower()
        and segment.isascii()
        and "_" not in segment
        and "." not in segment
        and "(" not in segment
    )


_DEFINED = re.compile(
    rf"^[ \t]*(?:(?:async[ \t]+)?def[ \t]+({_IDENTIFIER})|class[ \t]+({_IDENTIFIER})"
    rf"|({_IDENTIFIER})[ \t]*(?::[^=\n]*)?=|({_IDENTIFIER})[ \t]*:[ \t]*[^\s=])",
    re.MULTILINE,
)


def defined_in_code(text: str) -> frozenset[str]:
    r"""The names the code of ``text`` defines: in fenced blocks, ``def``/``class`` names
    and assignment and annotation targets at the start of a line (an answer's example
    defines its own ``State``, ``write_joke``, ``jokes``); in any code, the names it
    writes as string literals (``add_edge(["a", "b"], "c")`` names nodes ``a``, ``b``,
    ``c``: values of its own, not code of the code base), and the plain lower-case names
    it passes as arguments (``register_hook("response", [h1, h2])``: the example's own
    ``h1`` and ``h2``); and the parameters it declares, of a ``def`` it writes or
    written with an annotation and a default (`` `*, strict: bool = False` ``: a
    refactoring the answer proposes). Imports define nothing: an example that imports
    a name claims the code base has it.

    Example:
        >>> sorted(defined_in_code("```python\nclass State(TypedDict):\n    jokes: list\n```"))
        ['State', 'jokes']
        >>> sorted(defined_in_code('Then `add_edge(["a", "b"], "c")` waits.'))
        ['a', 'b', 'c']
        >>> sorted(defined_in_code('`register_hook("response", [h1, h2], key=fn)` adds both.'))
        ['fn', 'h1', 'h2', 'response']
        >>> sorted(defined_in_code("Add `*, strict: bool = False` to `parse(value)`."))
        ['strict', 'value']
        >>> sorted(defined_in_code("It runs for `style_a | style_b`."))
        ['style_a', 'style_b']
    """
    if "`" not in text:
        return frozenset()
    return _defined(code_pieces(text))


def _defined(pieces: list[tuple[str, str]]) -> frozenset[str]:
    names: set[str] = set()
    # an inline expression's operands (`a | b`), one search for all the spans
    spans = "\n".join(segment for segment, kind in pieces if kind == "span" and " " in segment)
    for match in _OPERANDS.finditer(spans):
        names.update(match.groups())
    for segment, kind in pieces:
        if kind == "text":
            continue
        names.update(match[1] for match in _STRING_NAME.finditer(segment))
        if "(" in segment:
            names.update(match[1] for match in _ARGUMENT_NAME.finditer(segment))
            for header in _DEF_HEADER.finditer(segment):
                names.update(_parameter_names(header[1]))
        if ":" in segment:
            names.update(match[1] for match in _PARAMETER.finditer(segment))
        if kind == "fence":
            for match in _DEFINED.finditer(segment):
                names.update(group for group in match.groups() if group)
    return frozenset(names)


_DEF_HEADER = re.compile(rf"\bdef[ \t]+{_IDENTIFIER}[ \t]*\(([^()]*)")
"""A ``def``'s parameters, on any lines, up to the next bracket (a default's call ends
them). Linear: a match ends at the next bracket, where another may start."""
_PARAMETER = re.compile(
    rf"(?:^|[(,*])[ \t]*({_IDENTIFIER})[ \t]*:[ \t]*[^\W\d][^=,()*\n]*=(?!=)", re.MULTILINE
)
"""A parameter written with an annotation and a default (``*, strict: bool = False``):
declared, as a call's keyword never is; its annotation starts with a name (not a
slice's ``offset:] = values``). Linear: a match starts only after ``(``, ``,`` or
``*``, and its annotation stops at the next of them."""


def _parameter_names(parameters: str) -> Iterator[str]:
    """The names of a ``def``'s ``parameters`` (``value, *, strict=False`` gives
    ``value`` and ``strict``; ``*args`` and ``**kwargs`` their names), split at the
    commas outside brackets: ``req: Union[Request, FakeSession]`` declares ``req``
    only (one pass: linear)."""
    depth, start, pieces = 0, 0, []
    for at, char in enumerate(parameters):
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            pieces.append(parameters[start:at])
            start = at + 1
    pieces.append(parameters[start:])
    for parameter in pieces:
        name = parameter.strip().lstrip("*").split(":", 1)[0].split("=", 1)[0].strip()
        if name.isidentifier():
            yield name


_STRING_NAME = re.compile(rf"[\"']({_IDENTIFIER})[\"']")
"""A string literal that is one identifier (a node's name, a key): a value, not code."""
_ARGUMENT_NAME = re.compile(r"[(\[,=][ \t]*([a-z][a-z0-9]*)\b(?![ \t]*[(.=\[])")
"""A plain lower-case name (no ``_``, no capital) an example passes, in a call's
parentheses, a list, or after ``=``, itself neither called, dotted nor a keyword's name:
a variable of the example (``h1``, ``fn``), not code of the code base."""


_OPERANDS = re.compile(
    r"(?<![\w.])([a-z_][a-z0-9_]*)[ \t]*(?:[|&^+\-*/%@]|[<>]=?|[=!]=)[ \t]*"
    r"([a-z_][a-z0-9_]*)\b(?![ \t]*[(.\[])"
)
"""Two lower-case names an operator joins in a code span, neither dotted nor called
(``style_a | style_b``, ``left == right``): the operands of an example expression, not
code of the code base (a played answer was rejected for "the operator that runs for
`style_a | style_b`"). Neither name starts inside a word or after a dot, and each ends
at the first character that is not of a name: linear."""


def first_name(text: str) -> str:
    """The first name in ``text`` as a mention is read: an identifier, a dotted name or
    a requirement or decision id (``REQ-008-013``), a call's ``()`` left off; ``""``
    when there is none. Linear (the token regex does not backtrack).

    Example:
        >>> first_name("1. `StateGraph.compile()` builds it")
        'StateGraph.compile'
    """
    match = _TOKEN.search(text)
    return match.group().removesuffix("()") if match else ""


def identifier_words(name: str) -> tuple[str, ...]:
    """The words of an identifier, lower-cased: ``DefaultJSONProvider`` -> ``default``,
    ``json``, ``provider``; ``add_node`` -> ``add``, ``node``."""
    return _cached_words(name) if len(name) <= _MAX_CACHED else _words(name)


_MAX_CACHED = 200
"""Longest name whose words are cached (indexing splits the same owners and names often)."""


@functools.lru_cache(maxsize=65_536)
def word_stem(word: str) -> str:
    """The Snowball (Porter 2) English stem of a lower-cased word, so that a task's
    "caching" and "serialization" meet the code's ``f_cached`` and ``serialize``:
    ``cach``, ``serial`` (M. F. Porter, "Snowball: A language for stemming
    algorithms", 2001, https://snowballstem.org; PyStemmer). Cached."""
    return _stemmer().stemWord(word)


@functools.cache
def _stemmer():  # type: ignore[no-untyped-def]
    """PyStemmer's English stemmer, loaded on first use (not at import: start-up)."""
    import Stemmer

    return Stemmer.Stemmer("english")


def _words(name: str) -> tuple[str, ...]:
    return tuple(
        word.lower() for part in _ALPHANUMERIC.findall(name) for word in _camel_words(part)
    )


_cached_words = functools.lru_cache(maxsize=65_536)(_words)


def _camel_words(part: str) -> tuple[str, ...]:
    """``part`` split where the case or the digits change (any script): ``HTTPServer2``
    -> ``HTTP``, ``Server``, ``2``; ``größeVon`` -> ``größe``, ``Von``. One pass (and
    none for a part in one case: most parts of snake_case names)."""
    if part.isalpha() and (part.islower() or part.isupper()):
        return (part,)
    words, start = [], 0
    for index in range(1, len(part)):
        before, char = part[index - 1], part[index]
        if (
            before.isdigit() != char.isdigit()
            or (char.isupper() and not before.isupper() and not before.isdigit())
            or (
                before.isupper()
                and char.isupper()
                and index + 1 < len(part)
                and part[index + 1].islower()
            )
        ):
            words.append(part[start:index])
            start = index
    if part[start:]:
        words.append(part[start:])
    return tuple(words)


MODIFIERS = frozenset({"class", "code", "file", "function", "method", "value"})
"""Stop words that name something when they modify the next word: "the function unit
class" (astropy's ``FunctionUnit``), "file output handlers", "the class attribute"."""


def query_words(text: str, limit: int = 64) -> list[str]:
    """The words of ``text`` worth a lexical lookup: every token split into words
    (identifiers too), lower-cased, without :data:`STOP_WORDS`, numbers and one-letter
    words, in order of first appearance, at most ``limit``. A word of :data:`MODIFIERS`
    written alone is kept when a space, and only a space, separates it from a next word
    that is kept: "function" of "the function unit class", not of "the function that"."""
    found: dict[str, None] = {}
    text = without_invisible(normalize_text(text))
    tokens = _TOKEN.finditer(text)
    match = next(tokens, None)
    while match is not None:
        following = next(tokens, None)
        token = match.group().removesuffix("()")
        words = identifier_words(token)
        alone = len(words) == 1 and words[0] in MODIFIERS and words[0] == token.lower()
        for word in words:
            if len(word) > 1 and not word.isdigit() and word not in STOP_WORDS:
                found.setdefault(word)
            elif alone and following is not None:
                gap, after = text[match.end() : following.start()], following.group().lower()
                if gap == " " and after.isalpha() and after not in STOP_WORDS:
                    found.setdefault(word)
            if len(found) >= limit:
                return list(found)
        match = following
    return list(found)
