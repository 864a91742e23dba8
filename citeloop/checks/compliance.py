"""Format compliance: refusals, talk about being an AI, greetings and chatbot fillers.

An answer should be the answer: not a refusal ("I cannot help with that"), not a
statement about the model ("As an AI language model, ..."), not wrapped in a greeting
("Hello!") or filler ("Certainly! Here is ...", "I hope this helps!"). The checks here
find those phrases precisely enough to act on them without flagging ordinary prose.

**Phrases** come from a :class:`PhrasePatterns` (general-purpose defaults in
:data:`DEFAULT_PATTERNS`, built from the sets in :mod:`citeloop.checks.phrases`;
callers extend or replace any group). A phrase is matched on
whole tokens, case-insensitively, with ``’`` read as ``'``: ``"i can't help"`` matches
``I can’t help you`` but not ``I can't helpfully``. A ``|`` token ends the reported
match while the tokens after it must still follow: ``"i'm an ai | and"`` matches ``I'm
an AI and ...`` and reports ``I'm an AI``. Where a phrase may match depends on its
group:

- ``greetings`` and ``fillers`` (``"Hello"``, ``"Hi there"``, ``"Dear Sir"``,
  ``"Certainly"``, ``"Sure"``, ``"Of course"``, ``"Great question"``) only *open the
  answer* (one after another, the whole run however long: ``"Hi! Sure, here is ..."``;
  ``"Sure! " * 1000`` is all chatter), and only as a clause of
  their own: followed by punctuation (``! . , : ; ? … — –``), a symbol such as an emoji,
  or the end of the line. ``"Hello World program"``, ``"Hello, World!"`` (the program),
  ``"Sure enough"`` and a mid-sentence ``"certainly"`` are not matched. A short
  vocative after a greeting belongs to it (``"Greetings, traveler."``, ``"Hello,
  John!"``).
- ``filler_sentences`` (``"I hope this helps"``, ``"Let me know if you have any other
  questions"``, ``"Feel free to ask"``, ``"I'd be happy to help"``) start a sentence
  anywhere.
- ``self_identification`` (``"As an AI,"``, ``"I am a large language model"``, ``"I'm
  ChatGPT"``) starts a sentence anywhere, possibly after ``prefaces``.
- ``refusals`` start one of the first three sentences (or any sentence of an answer of
  at most five), possibly after ``prefaces`` (``"I'm sorry, but"``, ``"Unfortunately,"``)
  and self-identification (``"As an AI language model, I can't ..."`` refuses whatever
  the verb: the model excuses itself). The default
  refusals bind a first-person refusal (``I cannot``, ``I'm unable to``, ``I won't``,
  ``I must decline to``, ``I'm not comfortable``, ...) to a verb of helping, providing,
  answering or complying, so ``"I'm sorry to hear that."`` and ``"I cannot let you
  pass"`` are not refusals. ``refusal_exceptions`` cancel a refusal at the same place
  (``"I can't help but notice"``).
- **Hedges are not refusals.** A refusal phrase followed in the same sentence by a
  contrast clause (``", but"``, ``"; however,"``, ``" - but"``, ``"—but"``) that carries
  content is a hedge: ``"I can't give an exact number, but the population is about 2.1
  million."`` is an answer. The clause carries content when it has at least three
  words and does not open (after ``prefaces``) with a refusal, self-identification,
  filler sentence or one of the ``redirects`` that offer other help instead (``"but I
  can help with something else"``, ``"but you should consult a doctor"``, ``"but if
  you share the logs"``): those stay refusals. A hedge is not reported; only its
  phrase (from the sentence start) counts as chatter, so on-topic signals in the rest
  of the sentence count. A contrast in a later sentence (``"I cannot provide medical
  advice. Ibuprofen ..."``) leaves the refusal a refusal.

**Speaker's own voice.** Sentences inside quotation marks (``"…"``, ``“…”``, ``«…»``, a
sentence opening with ``'`` or ``‘``) and blockquotes (``> ...``) are someone else's
words and are never matched; neither is code (code spans and fenced blocks). A
character in a story who says "I cannot help you" is quoted; unquoted, the line is a
refusal only in the answer's first sentences or in a short answer.

**Ambiguous phrases, decided.** ``"As an AI researcher, I ..."`` and ``"I'm an AI
ethicist"`` are *not* self-identification: "AI" modifies a human role. ``"As an AI"``
counts when a comma follows; ``"I'm an AI"``, ``"I'm Claude"`` and ``"I'm an assistant"``
count when punctuation, a conjunction or a word such as ``developed``, ``trained``,
``model`` or ``assistant`` follows. ``"Of course, the function returns None"`` at the
very start is read as a filler (it is one in chatbot answers); in the middle it is
prose. ``"Dear Sir"`` is a greeting even when a letter was requested: pass your own
``patterns`` for such tasks.

Sentences end after ``.!?…`` followed by a space, and at every line break. Indented
code blocks are not told apart from indented prose (see
:func:`citeloop.checks.citations.mask_code`).

**Fix** (:attr:`ComplianceResult.fixed`): when greetings and fillers are the only
problems, and all of them sit in the opening run or in short filler sentences at the
start or end of the answer, the fix strips them (``"Sure, here's X"`` becomes
``"Here's X"``); it is offered only when the fixed text passes the same check.
Stripping can expose another opening (``"I hope this helps! Okay. X"``): the fix is
re-checked and fixed again, in a loop of at most three rounds.

**Off-topic** (:func:`is_off_topic`): an answer is off-topic when

1. it has no word characters at all (``"empty"``);
2. nothing of substance is left once greetings, fillers, refusals and
   self-identification are removed (``"no_substance"``: ``"As an AI, I have no
   opinions."``, ``"Hello! How can I help you today?"``, ``"Sure! " * 1000``); a
   refusal removes its whole sentence, a hedge only its phrase; a self-identification
   sentence with more than ten words after the phrase is substance;
3. it refuses (``"refusal"``), unless on-topic signals are given and appear in the
   rest of the answer (a disclaimer followed by the answer);
4. on-topic signals are given and none appears outside those phrases
   (``"no_on_topic_signal"``).

Work is linear in the text length: sentences are found in one regex pass, each
sentence is matched on at most a bounded number of leading tokens against a trie, the
opening run is walked once (each phrase looks a bounded number of tokens ahead), a
hedge's contrast is searched once in its sentence, and the fix is re-checked at most
three times.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Any

from citeloop.checks.check import Check, CheckOutcome, Problem, failed, require_text
from citeloop.checks.citations import mask_code
from citeloop.checks.phrases import (
    DEFAULT_FILLER_SENTENCES,
    DEFAULT_FILLERS,
    DEFAULT_GREETINGS,
    DEFAULT_PREFACES,
    DEFAULT_REDIRECTS,
    DEFAULT_REFUSAL_EXCEPTIONS,
    DEFAULT_REFUSALS,
    DEFAULT_SELF_IDENTIFICATION,
    LOOKAHEAD,
)
from citeloop.errors import ConfigurationError
from citeloop.text import normalize_text

REFUSAL = "refusal"
SELF_IDENTIFICATION = "self_identification"
GREETING = "greeting"
FILLER = "filler"
CATEGORIES: tuple[str, ...] = (REFUSAL, SELF_IDENTIFICATION, GREETING, FILLER)
"""The categories of :attr:`PhraseMatch.category`."""

REFUSAL_SENTENCES = 3
"""A refusal is looked for in this many first sentences ..."""
SHORT_ANSWER_SENTENCES = 5
"""... or in every sentence of an answer of at most this many."""
_SUBSTANCE_WORDS = 10
_STRIPPABLE_WORDS = 20


# --- tokens and tries ------------------------------------------------------------------

# A word (letters, digits, combining marks, inner apostrophes: "can't", "I’m") or one
# other visible character. The apostrophe group starts with a character the word class
# excludes, so each repetition has one way to match.
_WORD = r"\w\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_TOKEN = re.compile(rf"[{_WORD}]+(?:['’][{_WORD}]+)*|[^{_WORD}\s]")
_WORD_CHAR = re.compile(r"\w")
_TERMINATORS = frozenset("!.,:;?…—–")

_Token = tuple[str, int, int]
_Trie = dict[str | None, Any]


def _norm(token: str) -> str:
    if token.isascii():
        return token.lower()
    return normalize_text(token).casefold().replace("’", "'")


def _phrase_parts(phrase: str) -> tuple[tuple[str, ...], int]:
    """(the phrase's tokens, how many of them the reported match covers)."""
    tokens = [_norm(match.group()) for match in _TOKEN.finditer(phrase)]
    if LOOKAHEAD in tokens:
        cut = tokens.index(LOOKAHEAD)
        del tokens[cut]
        return tuple(tokens), cut
    return tuple(tokens), len(tokens)


def _phrase_tokens(phrase: str) -> tuple[str, ...]:
    tokens, cut = _phrase_parts(phrase)
    return tokens if cut else ()


def _trie(phrases: Iterable[str], category: str | None = None, root: _Trie | None = None) -> _Trie:
    """A token trie; a leaf holds ``(phrase, cut)``, or ``((category, phrase), cut)``."""
    root = {} if root is None else root
    for phrase in phrases:
        tokens, cut = _phrase_parts(phrase)
        node = root
        for token in tokens:
            node = node.setdefault(token, {})
        leaf = node.get(None)
        if leaf is None or leaf[1] < cut:
            # Of two phrases on the same tokens, the one reporting more of them wins:
            # "i'm an ai assistant" over "i'm an ai | assistant".
            node[None] = ((category, phrase) if category else phrase, cut)
    return root


# --- patterns --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PhrasePatterns:
    """Phrases per category; where each group may match is described in the module doc.

    Every field is a tuple of phrases (lists and other iterables are converted).
    Extend the defaults with :meth:`extend`, replace a group with
    ``dataclasses.replace(DEFAULT_PATTERNS, greetings=(...))`` or build your own.

    Attributes:
        refusals: Phrases that refuse (``"i cannot help"``), category ``"refusal"``.
        refusal_exceptions: Phrases that cancel a refusal at the same place
            (``"i can't help but"``).
        self_identification: Statements about being an AI (``"as an ai,"``).
        greetings: Greetings and letter openers that open the answer (``"hello"``).
        fillers: Interjections that open the answer (``"certainly"``), category
            ``"filler"``.
        filler_sentences: Filler sentence openings anywhere (``"i hope this helps"``),
            category ``"filler"``.
        prefaces: Openings allowed before a refusal or self-identification in the same
            sentence (``"i'm sorry, but"``, ``"unfortunately,"``); never reported.
        redirects: Openings of a contrast clause that offer other help instead of
            content (``"i can help"``, ``"you should consult"``): ``"I can't help with
            that, but you should consult a doctor"`` stays a refusal, not a hedge; never
            reported.

    Raises:
        ConfigurationError: A group is not an iterable of strings, or a phrase has no
            token (empty or only spaces).

    Example:
        >>> patterns = DEFAULT_PATTERNS.extend(greetings=["ahoy"])
        >>> [match.category for match in detect_conversational_phrases("Ahoy! 42.", patterns)]
        ['greeting']
    """

    refusals: tuple[str, ...] = DEFAULT_REFUSALS
    refusal_exceptions: tuple[str, ...] = DEFAULT_REFUSAL_EXCEPTIONS
    self_identification: tuple[str, ...] = DEFAULT_SELF_IDENTIFICATION
    greetings: tuple[str, ...] = DEFAULT_GREETINGS
    fillers: tuple[str, ...] = DEFAULT_FILLERS
    filler_sentences: tuple[str, ...] = DEFAULT_FILLER_SENTENCES
    prefaces: tuple[str, ...] = DEFAULT_PREFACES
    redirects: tuple[str, ...] = DEFAULT_REDIRECTS

    def __post_init__(self) -> None:
        for group in fields(self):
            value = getattr(self, group.name)
            if isinstance(value, str) or not isinstance(value, Iterable):
                raise ConfigurationError(
                    f"PhrasePatterns.{group.name} must be a tuple of phrases, got "
                    f"{type(value).__name__}; e.g. {group.name}=('first phrase', 'second')"
                )
            phrases = tuple(value)
            for phrase in phrases:
                if not isinstance(phrase, str) or not _phrase_tokens(phrase):
                    raise ConfigurationError(
                        f"PhrasePatterns.{group.name}: {phrase!r} is not a phrase; "
                        "give non-empty strings such as 'i cannot help'"
                    )
            object.__setattr__(self, group.name, phrases)

    def __repr__(self) -> str:
        counts = ", ".join(
            f"{group.name}={len(getattr(self, group.name))}" for group in fields(self)
        )
        return f"PhrasePatterns({counts} phrases)"

    def extend(self, **groups: Iterable[str]) -> PhrasePatterns:
        """These patterns with more phrases added to the named groups.

        Raises:
            ConfigurationError: An unknown group name, or phrases that are not strings.
        """
        known = {group.name for group in fields(self)}
        unknown = sorted(set(groups) - known)
        if unknown:
            raise ConfigurationError(
                f"unknown phrase group(s) {', '.join(unknown)}; use {', '.join(sorted(known))}"
            )
        changes: dict[str, Any] = {}
        for name, phrases in groups.items():
            if isinstance(phrases, str) or not isinstance(phrases, Iterable):
                raise ConfigurationError(
                    f"{name} must be a list of phrases, got {type(phrases).__name__}"
                )
            changes[name] = (*getattr(self, name), *phrases)
        return replace(self, **changes)


DEFAULT_PATTERNS = PhrasePatterns()
"""The general-purpose English phrase sets."""


@dataclass(frozen=True, slots=True)
class PhraseMatch:
    """A conversational phrase found in an answer.

    Attributes:
        category: ``"refusal"``, ``"self_identification"``, ``"greeting"`` or
            ``"filler"``.
        phrase: The pattern that matched, as written in :class:`PhrasePatterns`.
        start: Offset of the match's first character in the text.
        end: Offset one past its last character.
        text: ``text[start:end]``.
    """

    category: str
    phrase: str
    start: int
    end: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "phrase": self.phrase,
            "start": self.start,
            "end": self.end,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class _Compiled:
    refusals: _Trie
    refusal_exceptions: _Trie
    self_identification: _Trie
    opening: _Trie  # greetings and fillers: leaf values are (category, phrase)
    filler_sentences: _Trie
    prefaces: _Trie
    redirects: _Trie
    lookahead: int


@functools.lru_cache(maxsize=16)
def _compiled(patterns: PhrasePatterns) -> _Compiled:
    opening = _trie(patterns.fillers, FILLER)
    _trie(patterns.greetings, GREETING, opening)
    longest = max(
        (
            len(_phrase_tokens(phrase))
            for group in fields(patterns)
            for phrase in getattr(patterns, group.name)
        ),
        default=1,
    )
    return _Compiled(
        refusals=_trie(patterns.refusals),
        refusal_exceptions=_trie(patterns.refusal_exceptions),
        self_identification=_trie(patterns.self_identification),
        opening=opening,
        filler_sentences=_trie(patterns.filler_sentences),
        prefaces=_trie(patterns.prefaces),
        redirects=_trie(patterns.redirects),
        # Up to four prefaces or identifications before a refusal, one more token after.
        lookahead=5 * longest + 1,
    )


def _longest(trie: _Trie, tokens: list[_Token], index: int) -> tuple[Any, int, int] | None:
    """(leaf value, tokens matched, tokens reported) of the longest phrase at
    ``tokens[index]``."""
    node = trie
    best: tuple[Any, int, int] | None = None
    position = index
    while position < len(tokens):
        node = node.get(tokens[position][0])  # type: ignore[assignment]
        if node is None:
            break
        position += 1
        if None in node:
            value, cut = node[None]
            best = (value, position - index, cut)
    return best


def _span(tokens: list[_Token], index: int, length: int) -> tuple[int, int]:
    """(start, end) of ``length`` tokens from ``index``, without trailing punctuation
    (``"As an AI,"`` is reported as ``"As an AI"``)."""
    last = index + length - 1
    while last > index and not _WORD_CHAR.match(tokens[last][0]):
        last -= 1
    return tokens[index][1], tokens[last][2]


def _tokens(masked: str, start: int, end: int, limit: int) -> list[_Token]:
    found = _TOKEN.finditer(masked, start, end)
    return [
        (_norm(match.group()), match.start(), match.end())
        for match in itertools.islice(found, limit)
    ]


# --- sentences -------------------------------------------------------------------------

_BREAK = re.compile(r"[.!?…]+|\n|[\"“”«»„]")
_CLOSERS = frozenset("\"'”’)]*_»")
_OPENING_QUOTES = frozenset("\"'“‘«„「『")
_SPACES = re.compile(r"[ \t]*")
_HASHES = re.compile(r"#+")
_LIST_MARKER = re.compile(r"(?:[-*+]|[0-9]{1,9}[.)])[ \t]")
_AFTER_PHRASE = re.compile(r"[!.,:;?…—–-]*[*_]*[ \t]*(?:\n[ \t]*)*")
_MAX_MARKERS = 16


@dataclass(slots=True)
class _Sentence:
    start: int  # where its content starts (after Markdown markers and opening quotes)
    end: int
    quoted: bool


def _content_start(masked: str, position: int, end: int) -> tuple[int, bool]:
    """Skip Markdown markers and opening quotes; (content start, whether it is quoted)."""
    quoted = False
    for _ in range(_MAX_MARKERS):
        position = _SPACES.match(masked, position, end).end()  # type: ignore[union-attr]
        if position >= end:
            break
        char = masked[position]
        if char == ">" or char in _OPENING_QUOTES:
            quoted, position = True, position + 1
        elif char == "#":
            position = _HASHES.match(masked, position, end).end()  # type: ignore[union-attr]
        elif (marker := _LIST_MARKER.match(masked, position, end)) is not None:
            position = marker.end()
        elif char in "*_":
            position += 1
        else:
            break
    return position, quoted


def _sentences(masked: str) -> list[_Sentence]:
    """The sentences of ``masked``: split after ``.!?…`` followed by a space, and at
    newlines; a sentence that starts inside a quotation is marked quoted (quotation
    state is reset at each line)."""
    sentences: list[_Sentence] = []
    in_quote = quote_at_start = False
    segment = skip_until = 0

    def add(start: int, end: int, quoted: bool) -> None:
        content, leading_quote = _content_start(masked, start, end)
        if content < end:
            sentences.append(_Sentence(content, end, quoted or leading_quote))

    for match in _BREAK.finditer(masked):
        if match.start() < skip_until:
            continue
        char = match.group()
        if char == "\n":
            add(segment, match.start(), quote_at_start)
            segment, in_quote, quote_at_start = match.end(), False, False
        elif char == '"':
            in_quote = not in_quote
        elif char in "“«„":
            in_quote = True
        elif char in "”»":
            in_quote = False
        else:
            end = match.end()
            while end < len(masked) and masked[end] in _CLOSERS:
                if masked[end] == '"':
                    in_quote = not in_quote
                elif masked[end] in "”»":
                    in_quote = False
                end += 1
            skip_until = end
            if end < len(masked) and not masked[end].isspace():
                continue  # 3.14, e.g.x, file.txt: not the end of a sentence
            add(segment, end, quote_at_start)
            segment, quote_at_start = end, in_quote
    add(segment, len(masked), quote_at_start)
    return [
        sentence
        for sentence in sentences
        if _WORD_CHAR.search(masked, sentence.start, sentence.end)
    ]


def _word_count(masked: str, start: int, end: int, limit: int) -> int:
    words = (
        match for match in _TOKEN.finditer(masked, start, end) if _WORD_CHAR.match(match.group())
    )
    return sum(1 for _ in itertools.islice(words, limit + 1))


# --- detection -------------------------------------------------------------------------


@dataclass(slots=True)
class _Scan:
    matches: list[PhraseMatch] = field(default_factory=list)
    # Spans of text that are only conversation: the opening run and whole sentences.
    conversational: list[tuple[int, int]] = field(default_factory=list)
    opening_end: int = 0  # end of the run of opening greetings and fillers (0: none)
    opening_start: int = 0
    opening_mid_sentence: bool = False
    # (start, end, short enough to strip) of sentences that open with a filler
    filler_sentences: list[tuple[int, int, bool]] = field(default_factory=list)
    sentences: list[_Sentence] = field(default_factory=list)


def _terminates(token: _Token | None, masked: str, phrase_end: int) -> bool:
    """Whether the phrase ending at ``phrase_end`` is a clause of its own."""
    if token is None or "\n" in masked[phrase_end : token[1]]:
        return True
    text = token[0]
    return text in _TERMINATORS or (len(text) == 1 and unicodedata.category(text) == "So")


_SENTENCE_ENDS = frozenset(".!?…")
_NOT_VOCATIVE = frozenset(
    [
        "i",
        "i'm",
        "i'd",
        "i'll",
        "i've",
        "we",
        "we're",
        "it",
        "it's",
        "this",
        "that",
        "here",
        "here's",
        "there",
        "there's",
        "let",
        "let's",
        "you",
        "you're",
        "thanks",
        "thank",
    ]
)
_MAX_VOCATIVE_WORDS = 3


def _vocative_end(masked: str, tokens: list[_Token], index: int, end: int) -> int:
    """The end of a short vocative after a greeting (``Greetings, traveler.``,
    ``Hello, John!``), or ``end`` when the sentence goes on (``Hi, the answer is 4``)."""
    if index >= len(tokens) or tokens[index][0] in _NOT_VOCATIVE:
        return end
    words = 0
    for position in range(index, len(tokens)):
        token, first, last = tokens[position]
        if "\n" in masked[tokens[position - 1][2] : first]:
            return end
        if token in _SENTENCE_ENDS:
            return last if words else end
        if _WORD_CHAR.match(token):
            words += 1
            if words > _MAX_VOCATIVE_WORDS:
                return end
    return end


def _opening(text: str, masked: str, compiled: _Compiled, sentence: _Sentence, scan: _Scan) -> None:
    position = sentence.start
    # The whole run, however long ("Hello! " * 10_000): each phrase consumes at least one
    # token and looks at most ``lookahead`` tokens ahead, so the run is linear.
    while True:
        tokens = _tokens(masked, position, len(masked), compiled.lookahead)
        found = _longest(compiled.opening, tokens, 0)
        if found is None:
            break
        (category, phrase), length, _ = found
        phrase_end = tokens[length - 1][2]
        following = tokens[length] if length < len(tokens) else None
        if not _terminates(following, masked, phrase_end):
            break
        # The terminator is part of the clause ("Sure," "Hello 👋"); a line end is not.
        on_line = following is not None and "\n" not in masked[phrase_end : following[1]]
        end = following[2] if on_line and following is not None else phrase_end
        after = tokens[length + (following is not None and following[0] == ",") :][:1]
        if category == GREETING and after and after[0][0] == "world":
            break  # "Hello, World!" is the classic program, not a greeting
        if category == GREETING and on_line and tokens[length][0] == ",":
            end = _vocative_end(masked, tokens, length + 1, end)
        start = tokens[0][1]
        if not scan.matches:
            scan.opening_start = start
        scan.matches.append(
            PhraseMatch(category, phrase, start, phrase_end, text[start:phrase_end])
        )
        position = _AFTER_PHRASE.match(masked, end).end()  # type: ignore[union-attr]
        scan.opening_end = position
        scan.opening_mid_sentence = masked[phrase_end:end].strip() in (",", "—", "–", ":", ";")
        if not on_line or end > (following[2] if following is not None else end):
            scan.opening_mid_sentence = False
    if scan.opening_end:
        scan.conversational.append((scan.opening_start, scan.opening_end))


def _scan_sentence(
    text: str,
    masked: str,
    compiled: _Compiled,
    sentence: _Sentence,
    start: int,
    refusal_allowed: bool,
    scan: _Scan,
) -> None:
    tokens = _tokens(masked, start, sentence.end, compiled.lookahead)
    if not tokens:
        return
    found = _longest(compiled.filler_sentences, tokens, 0)
    if found is not None:
        phrase, _, cut = found
        first, end = _span(tokens, 0, cut)
        scan.matches.append(PhraseMatch(FILLER, phrase, first, end, text[first:end]))
        short = _word_count(masked, start, sentence.end, _STRIPPABLE_WORDS) <= _STRIPPABLE_WORDS
        scan.filler_sentences.append((start, sentence.end, short))
        scan.conversational.append((start, sentence.end))
        return
    index = 0
    conversational = False
    for _ in range(4):
        identity = _longest(compiled.self_identification, tokens, index)
        if identity is not None:
            first, end = _span(tokens, index, identity[2])
            match = PhraseMatch(SELF_IDENTIFICATION, identity[0], first, end, text[first:end])
            scan.matches.append(match)
            rest = _word_count(masked, end, sentence.end, _SUBSTANCE_WORDS)
            conversational = conversational or rest <= _SUBSTANCE_WORDS
        refusal = _longest(compiled.refusals, tokens, index) if refusal_allowed else None
        exception = _longest(compiled.refusal_exceptions, tokens, index) if refusal else None
        if refusal is not None and (exception is None or exception[1] < refusal[1]):
            first, end = _span(tokens, index, refusal[2])
            if _hedged(masked, compiled, tokens[index + refusal[1] - 1][2], sentence.end):
                # "I can't be sure, but the cause is X": a hedge, not a refusal. Only the
                # phrase (and what precedes it) is chatter; the contrast clause is content.
                scan.conversational.append((start, end))
                return
            scan.matches.append(PhraseMatch(REFUSAL, refusal[0], first, end, text[first:end]))
            conversational = True
            break
        if identity is not None:
            index += identity[2]
            continue
        preface = _longest(compiled.prefaces, tokens, index)
        if preface is None:
            break
        index += preface[1]
    if conversational:
        scan.conversational.append((start, sentence.end))


_CONTRAST = re.compile(
    r"(?:[,;]|[ \t][-—–]{1,2}|[—–])[ \t]*(?:but|however)(?![\w'’])[ \t]*,?", re.IGNORECASE
)
_HEDGE_WORDS = 3


def _hedged(masked: str, compiled: _Compiled, start: int, end: int) -> bool:
    """Whether the refusal phrase ending at ``start`` is hedged: a contrast clause
    (``", but"``, ``"; however,"``, ``" - but"``, ``"—but"``) follows in the same sentence
    (which ends at ``end``) and carries content: at least :data:`_HEDGE_WORDS` words,
    not opening (after prefaces) with a refusal, self-identification, filler sentence
    or redirect (``"but I can help with something else"``)."""
    contrast = _CONTRAST.search(masked, start, end)
    if contrast is None:
        return False
    clause = contrast.end()
    if _word_count(masked, clause, end, _HEDGE_WORDS) < _HEDGE_WORDS:
        return False
    tokens = _tokens(masked, clause, end, compiled.lookahead)
    chatter = (
        compiled.refusals,
        compiled.self_identification,
        compiled.filler_sentences,
        compiled.redirects,
    )
    index = 0
    for _ in range(4):
        if any(_longest(trie, tokens, index) is not None for trie in chatter):
            return False
        preface = _longest(compiled.prefaces, tokens, index)
        if preface is None:
            break
        index += preface[1]
    return True


def _scan(text: str, patterns: PhrasePatterns | None) -> _Scan:
    compiled = _compiled(_patterns(patterns))
    masked = mask_code(text)
    scan = _Scan(sentences=_sentences(masked))
    if not scan.sentences:
        return scan
    first = scan.sentences[0]
    if not first.quoted:
        _opening(text, masked, compiled, first, scan)
    everywhere = len(scan.sentences) <= SHORT_ANSWER_SENTENCES
    for number, sentence in enumerate(scan.sentences):
        if sentence.quoted or sentence.end <= scan.opening_end:
            continue
        start = max(sentence.start, scan.opening_end)
        allowed = everywhere or number < REFUSAL_SENTENCES
        _scan_sentence(text, masked, compiled, sentence, start, allowed, scan)
    scan.matches.sort(key=lambda match: (match.start, match.end))
    return scan


def _patterns(patterns: PhrasePatterns | None) -> PhrasePatterns:
    if patterns is None:
        return DEFAULT_PATTERNS
    if not isinstance(patterns, PhrasePatterns):
        raise ConfigurationError(
            f"patterns must be a PhrasePatterns or None, got {type(patterns).__name__}; "
            "e.g. DEFAULT_PATTERNS.extend(greetings=['ahoy'])"
        )
    return patterns


def detect_conversational_phrases(
    text: str, patterns: PhrasePatterns | None = None
) -> list[PhraseMatch]:
    """Find refusals, self-identification, greetings and fillers in ``text``.

    Where each kind of phrase may match, and what is deliberately not matched, is
    described in the module docstring.

    Args:
        text: The answer.
        patterns: The phrases (default :data:`DEFAULT_PATTERNS`).

    Returns:
        The matches in text order (a refusal after a self-identification, as in "As
        an AI, I can't help", gives both).

    Raises:
        ConfigurationError: ``text`` is not a str or ``patterns`` not a
            :class:`PhrasePatterns`.

    Example:
        >>> [(m.category, m.text) for m in detect_conversational_phrases(
        ...     "Sure! The answer is 4. I hope this helps!")]
        [('filler', 'Sure'), ('filler', 'I hope this helps')]
    """
    return list(_scan(require_text(text), patterns).matches)


# --- signals ---------------------------------------------------------------------------


def _signals(signals: object, name: str = "on_topic_signals") -> tuple[str, ...] | None:
    if signals is None:
        return None
    if isinstance(signals, str) or not isinstance(signals, Iterable):
        raise ConfigurationError(
            f"{name} must be a list of words or phrases, got {type(signals).__name__}; "
            f"e.g. {name}=['graph', 'citation']"
        )
    checked = tuple(signals)
    for signal in checked:
        if not isinstance(signal, str) or not signal.strip():
            raise ConfigurationError(
                f"{name}: {signal!r} is not a word or phrase; give non-empty strings"
            )
    return checked


@functools.lru_cache(maxsize=1024)
def _signal_pattern(signal: str) -> re.Pattern[str]:
    words = normalize_text(signal).casefold().split()
    body = r"\s+".join(re.escape(word) for word in words)
    before = r"(?<!\w)" if _WORD_CHAR.match(words[0][0]) else ""
    after = r"(?!\w)" if _WORD_CHAR.match(words[-1][-1]) else ""
    return re.compile(before + body + after)


def _found_signals(folded: str, signals: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(signal for signal in signals if _signal_pattern(signal).search(folded))


def _fold(text: str) -> str:
    return normalize_text(text).casefold()


def has_on_topic_signals(text: str, signals: Iterable[str]) -> bool:
    """Whether any of ``signals`` occurs in ``text``: whole words, any case.

    A signal is a word or phrase (``"graph"``, ``"knowledge graph"``, ``"C++"``); it
    matches where its ends fall on word boundaries (``"graph"`` is not in
    ``"paragraph"``; ``"C++"`` is in ``"C++17"``), with any whitespace between its words.
    Both sides are NFC-normalized and case-folded. Linear in ``len(text)`` per signal.

    Args:
        text: The answer.
        signals: Words or phrases; none (``None`` or an empty list) is never found.

    Returns:
        ``True`` when at least one signal occurs.

    Raises:
        ConfigurationError: ``text`` is not a str, ``signals`` is a str or not an
            iterable, or a signal is empty.

    Example:
        >>> has_on_topic_signals("The Knowledge\\ngraph is built.", ["knowledge graph"])
        True
        >>> has_on_topic_signals("A paragraph.", ["graph"])
        False
    """
    checked = _signals(signals, "signals") or ()
    return bool(checked) and bool(_found_signals(_fold(require_text(text)), checked))


# --- results ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ComplianceResult:
    """The format compliance of an answer (see :func:`check_format_compliance`).

    Attributes:
        matches: Every conversational phrase found, in text order.
        off_topic: Whether the answer is off-topic (rules in the module docstring).
        off_topic_reasons: Why: ``"empty"``, ``"no_substance"``, ``"refusal"``,
            ``"no_on_topic_signal"`` (empty when on-topic).
        signals_given: The on-topic signals checked (empty when none were given).
        signals_found: Those that occur outside conversational phrases.
        fixed: The answer without its opening greetings/fillers and closing filler
            sentences, when those are its only problems; else ``None``.
        allow_fillers: Whether greetings and fillers were allowed.
    """

    matches: tuple[PhraseMatch, ...]
    off_topic: bool
    off_topic_reasons: tuple[str, ...] = ()
    signals_given: tuple[str, ...] = ()
    signals_found: tuple[str, ...] = ()
    fixed: str | None = None
    allow_fillers: bool = False

    def of(self, category: str) -> tuple[PhraseMatch, ...]:
        """The matches of one category."""
        return tuple(match for match in self.matches if match.category == category)

    @property
    def refusals(self) -> tuple[PhraseMatch, ...]:
        return self.of(REFUSAL)

    @property
    def self_identifications(self) -> tuple[PhraseMatch, ...]:
        return self.of(SELF_IDENTIFICATION)

    @property
    def greetings(self) -> tuple[PhraseMatch, ...]:
        return self.of(GREETING)

    @property
    def fillers(self) -> tuple[PhraseMatch, ...]:
        return self.of(FILLER)

    @property
    def compliant(self) -> bool:
        """On-topic, no refusal or self-identification, and no greeting or filler
        unless they are allowed."""
        if self.off_topic or self.refusals or self.self_identifications:
            return False
        return self.allow_fillers or not (self.greetings or self.fillers)

    def to_dict(self) -> dict[str, Any]:
        return {
            "compliant": self.compliant,
            "off_topic": self.off_topic,
            "off_topic_reasons": list(self.off_topic_reasons),
            "matches": [match.to_dict() for match in self.matches],
            "signals_given": list(self.signals_given),
            "signals_found": list(self.signals_found),
            "fixed": self.fixed,
        }


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    pieces: list[str] = []
    last = 0
    for start, end in sorted(spans):
        if start > last:
            pieces.append(text[last:start])
        last = max(last, end)
    pieces.append(text[last:])
    return "\n".join(pieces)


_THEMATIC_BREAK = re.compile(r"\n[ \t]*[-*_][-*_ \t]*\Z")


def _fixed(text: str, scan: _Scan) -> str | None:
    """The answer without its opening run of greetings/fillers and its closing filler
    sentences, or ``None`` when a filler sits elsewhere (or nothing would be left)."""
    cut = scan.opening_end
    fillers = sorted(scan.filler_sentences)
    first = 0
    # Short whole filler sentences right after the opening run (or opening the answer).
    while (
        first < len(fillers)
        and fillers[first][2]
        and not _WORD_CHAR.search(text, cut, fillers[first][0])
    ):
        cut = _AFTER_PHRASE.match(text, fillers[first][1]).end()  # type: ignore[union-attr]
        first += 1
    last = len(fillers)
    closing = len(text)
    # Short filler sentences that end the answer (only punctuation or symbols after).
    while (
        last > first
        and fillers[last - 1][2]
        and not _WORD_CHAR.search(text, fillers[last - 1][1], closing)
    ):
        closing = fillers[last - 1][0]
        last -= 1
    if last > first or (cut == 0 and closing == len(text)):
        return None
    kept = text[cut:closing]
    if scan.opening_end:
        prefix = text[: scan.opening_start]
        consumed = text[scan.opening_start : scan.opening_end]
        # "**Sure, here is the point**": the emphasis opened before the filler stays.
        if any(mark in prefix for mark in "*_") and not any(mark in consumed for mark in "*_"):
            kept = prefix.lstrip() + kept
        if scan.opening_mid_sentence and cut == scan.opening_end:
            offset = len(kept) - len(kept.lstrip(" *_#\"'“‘"))
            kept = kept[:offset] + kept[offset : offset + 1].upper() + kept[offset + 1 :]
    kept = kept.rstrip()
    if closing < len(text):
        kept = _THEMATIC_BREAK.sub("", kept).rstrip()
    if not _WORD_CHAR.search(kept):
        return None
    return kept + ("\n" if text.endswith("\n") else "")


def check_format_compliance(
    text: str,
    on_topic_signals: Iterable[str] | None = None,
    *,
    patterns: PhrasePatterns | None = None,
    allow_fillers: bool = False,
) -> ComplianceResult:
    """Check ``text`` for refusals, self-identification, greetings, fillers and topic.

    Args:
        text: The answer.
        on_topic_signals: Words or phrases an on-topic answer mentions (whole words,
            any case); ``None`` or empty: no topic check.
        patterns: The phrases (default :data:`DEFAULT_PATTERNS`).
        allow_fillers: Accept greetings and fillers (they are still reported).

    Returns:
        The :class:`ComplianceResult`; ``fixed`` is set when the only problems are an
        opening run of greetings/fillers or closing filler sentences (and
        ``allow_fillers`` is false), and the fixed text passes this same check.

    Raises:
        ConfigurationError: Wrong argument types (see :func:`is_off_topic`).

    Example:
        >>> result = check_format_compliance("Certainly! Paris is the capital.", ["Paris"])
        >>> result.compliant, result.off_topic, result.fixed
        (False, False, 'Paris is the capital.')
    """
    signals = _signals(on_topic_signals) or ()
    if not isinstance(allow_fillers, bool):
        raise ConfigurationError(f"allow_fillers must be a bool, got {allow_fillers!r}")
    return _compliance(require_text(text), signals, _patterns(patterns), allow_fillers)


_FIX_ROUNDS = 3
"""Stripping an opening can expose another (``"I hope this helps! Okay. ..."``): the fix
is re-checked, and fixed again, at most this many times (a loop, each round linear)."""


def _evaluate(
    text: str,
    signals: tuple[str, ...],
    patterns: PhrasePatterns,
    allow_fillers: bool,
) -> tuple[ComplianceResult, _Scan]:
    """The result without a fix, and the scan it came from."""
    scan = _scan(text, patterns)
    substance = _without(text, scan.conversational)
    found = _found_signals(_fold(substance), signals) if signals else ()
    refused = any(match.category == REFUSAL for match in scan.matches)
    reasons: list[str] = []
    if not _WORD_CHAR.search(text):
        reasons.append("empty")
    elif not _WORD_CHAR.search(substance):
        reasons.append("no_substance")
    else:
        if refused and not found:
            reasons.append("refusal")
        if signals and not found:
            reasons.append("no_on_topic_signal")
    result = ComplianceResult(
        matches=tuple(scan.matches),
        off_topic=bool(reasons),
        off_topic_reasons=tuple(reasons),
        signals_given=signals,
        signals_found=found,
        allow_fillers=allow_fillers,
    )
    return result, scan


def _fixable(result: ComplianceResult) -> bool:
    """Whether greetings and fillers are the only possible problems (and not allowed)."""
    return not (
        result.off_topic or result.allow_fillers or result.refusals or result.self_identifications
    )


def _compliance(
    text: str,
    signals: tuple[str, ...],
    patterns: PhrasePatterns,
    allow_fillers: bool,
) -> ComplianceResult:
    result, scan = _evaluate(text, signals, patterns, allow_fillers)
    if not _fixable(result):
        return result
    for _ in range(_FIX_ROUNDS):
        fixed = _fixed(text, scan)
        if fixed is None:
            break
        # The fix is offered only when it is itself compliant; a fix that exposes
        # another opening is fixed again, up to _FIX_ROUNDS times.
        again, scan = _evaluate(fixed, signals, patterns, allow_fillers)
        if again.compliant:
            return replace(result, fixed=fixed)
        if not _fixable(again):
            break
        text = fixed
    return result


def is_off_topic(
    text: str,
    on_topic_signals: Iterable[str] | None = None,
    *,
    patterns: PhrasePatterns | None = None,
) -> bool:
    """Whether ``text`` fails to answer: empty, only conversation, a refusal, or off
    the expected topic (the rules are in the module docstring).

    Args:
        text: The answer.
        on_topic_signals: Words or phrases an on-topic answer mentions; ``None`` or
            empty: only the refusal and substance rules apply.
        patterns: The phrases (default :data:`DEFAULT_PATTERNS`).

    Returns:
        ``True`` when off-topic.

    Raises:
        ConfigurationError: ``text`` is not a str; ``on_topic_signals`` is a str, not
            an iterable, or holds an empty or non-str signal; ``patterns`` is not a
            :class:`PhrasePatterns`.

    Example:
        >>> is_off_topic("I'm sorry, but I can't help with that.")
        True
        >>> is_off_topic("The graph has 3 nodes.", ["graph"]), is_off_topic("Hi.", ["graph"])
        (False, True)
    """
    return check_format_compliance(text, on_topic_signals, patterns=patterns).off_topic


# --- check -----------------------------------------------------------------------------

_REASON_PROBLEMS = {
    "empty": (
        "the answer is empty",
        "an answer to the task",
        "answer the task",
    ),
    "no_substance": (
        "the answer holds only conversational phrases (greetings, fillers, refusals or "
        "statements about being an AI), no content",
        "an answer to the task",
        "answer the task itself",
    ),
}


def _quoted(matches: tuple[PhraseMatch, ...]) -> str:
    shown = [repr(match.text) for match in matches[:3]]
    return ", ".join(shown) + (", ..." if len(matches) > 3 else "")


def _problems(result: ComplianceResult) -> list[Problem]:
    problems: list[Problem] = []
    for reason in result.off_topic_reasons:
        if reason in _REASON_PROBLEMS:
            message, expected, fix = _REASON_PROBLEMS[reason]
            problems.append(Problem(message, expected, fix, {"reason": reason}))
    if result.refusals:
        problems.append(
            Problem(
                f"the answer refuses the request ({_quoted(result.refusals)})",
                "a direct answer to the task",
                "answer the task; do not refuse, apologise or explain what you cannot do",
                {"reason": "refusal", "position": result.refusals[0].start},
            )
        )
    if "no_on_topic_signal" in result.off_topic_reasons:
        topics = ", ".join(repr(signal) for signal in result.signals_given[:10])
        problems.append(
            Problem(
                f"the answer is off-topic: it mentions none of {topics}",
                f"an answer about {topics}",
                "answer the question that was asked, using its terms",
                {"reason": "no_on_topic_signal", "signals": topics},
            )
        )
    if result.self_identifications:
        problems.append(
            Problem(
                f"the answer talks about itself as an AI ({_quoted(result.self_identifications)})",
                "an answer about the task only",
                "remove statements about being an AI, a language model or an assistant",
                {"reason": "self_identification", "position": result.self_identifications[0].start},
            )
        )
    if not result.allow_fillers:
        chatter = result.greetings + result.fillers
        if chatter:
            problems.append(
                Problem(
                    f"the answer has greetings or filler phrases ({_quoted(chatter)})",
                    "the content alone, without greetings or chatbot filler",
                    "start with the answer itself and end when it is complete; drop "
                    "greetings, 'Certainly!', 'I hope this helps' and offers of more help",
                    {"reason": "filler", "position": chatter[0].start},
                )
            )
    return problems


def compliance_check(
    on_topic_signals: Iterable[str] | None = None,
    *,
    allow_fillers: bool = False,
    patterns: PhrasePatterns | None = None,
    on_fail: str = "reask",
) -> Check:
    """A :class:`Check` named ``"compliance"`` over :func:`check_format_compliance`.

    It fails on an off-topic answer, a refusal, self-identification and (unless
    ``allow_fillers``) greetings and fillers. When the only problems are an opening
    greeting/filler or closing filler sentences, the outcome's ``fixed`` text is the
    answer without them; otherwise there is no fix. ``value`` is the
    :class:`ComplianceResult`.

    Args:
        on_topic_signals: Words or phrases an on-topic answer mentions.
        allow_fillers: Accept greetings and fillers.
        patterns: The phrases (default :data:`DEFAULT_PATTERNS`).
        on_fail: The failure policy (see :class:`citeloop.checks.check.OnFail`).

    Raises:
        ConfigurationError: Bad signals, a non-bool ``allow_fillers``, bad ``patterns``
            or an unknown ``on_fail``.

    Example:
        >>> outcome = compliance_check()("Sure! The answer is 4.")
        >>> outcome.passed, outcome.fixed
        (False, 'The answer is 4.')
    """
    signals = _signals(on_topic_signals)
    if not isinstance(allow_fillers, bool):
        raise ConfigurationError(f"allow_fillers must be a bool, got {allow_fillers!r}")
    checked_patterns = _patterns(patterns)

    def run(text: str) -> CheckOutcome:
        result = check_format_compliance(
            text, signals, patterns=checked_patterns, allow_fillers=allow_fillers
        )
        if result.compliant:
            return CheckOutcome("compliance", True, value=result)
        return failed("compliance", _problems(result), fixed=result.fixed, value=result)

    return Check("compliance", run, on_fail)  # type: ignore[arg-type]
