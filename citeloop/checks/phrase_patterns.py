"""The phrases of format compliance (:class:`PhrasePatterns`) and their compiled form:
token tries matched on whole tokens, case-insensitively.

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

``model`` or ``assistant`` follows. ``"Of course, the function returns None"`` at the
very start is read as a filler (it is one in chatbot answers); in the middle it is
prose. ``"Dear Sir"`` is a greeting even when a letter was requested: pass your own
``patterns`` for such tasks.

Sentences end after ``.!?…`` followed by a space, and at every line break. Indented
code blocks are not told apart from indented prose (see
:func:`citeloop.checks.code_mask.mask_code`).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any

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
SUBSTANCE_WORDS = 10
STRIPPABLE_WORDS = 20


# --- tokens and tries ------------------------------------------------------------------

# A word (letters, digits, combining marks, inner apostrophes: "can't", "I’m") or one
# other visible character. The apostrophe group starts with a character the word class
# excludes, so each repetition has one way to match.
_WORD = r"\w\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
PHRASE_TOKEN = re.compile(rf"[{_WORD}]+(?:['’][{_WORD}]+)*|[^{_WORD}\s]")
WORD_CHAR = re.compile(r"\w")
TERMINATORS = frozenset("!.,:;?…—–")

Token = tuple[str, int, int]
_Trie = dict[str | None, Any]


def _norm(token: str) -> str:
    if token.isascii():
        return token.lower()
    return normalize_text(token).casefold().replace("’", "'")


def phrase_parts(phrase: str) -> tuple[tuple[str, ...], int]:
    """(the phrase's tokens, how many of them the reported match covers)."""
    tokens = [_norm(match.group()) for match in PHRASE_TOKEN.finditer(phrase)]
    if LOOKAHEAD in tokens:
        cut = tokens.index(LOOKAHEAD)
        del tokens[cut]
        return tuple(tokens), cut
    return tuple(tokens), len(tokens)


def _phrase_tokens(phrase: str) -> tuple[str, ...]:
    tokens, cut = phrase_parts(phrase)
    return tokens if cut else ()


def _trie(phrases: Iterable[str], category: str | None = None, root: _Trie | None = None) -> _Trie:
    """A token trie; a leaf holds ``(phrase, cut)``, or ``((category, phrase), cut)``."""
    root = {} if root is None else root
    for phrase in phrases:
        tokens, cut = phrase_parts(phrase)
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
        >>> from citeloop.checks.phrase_scan import find_conversational_phrases
        >>> patterns = DEFAULT_PATTERNS.extend(greetings=["ahoy"])
        >>> [match.category for match in find_conversational_phrases("Ahoy! 42.", patterns)]
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
class CompiledPatterns:
    refusals: _Trie
    refusal_exceptions: _Trie
    self_identification: _Trie
    opening: _Trie  # greetings and fillers: leaf values are (category, phrase)
    filler_sentences: _Trie
    prefaces: _Trie
    redirects: _Trie
    lookahead: int


@functools.lru_cache(maxsize=16)
def compiled_patterns(patterns: PhrasePatterns) -> CompiledPatterns:
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
    return CompiledPatterns(
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


def longest_match(trie: _Trie, tokens: list[Token], index: int) -> tuple[Any, int, int] | None:
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


def token_span(tokens: list[Token], index: int, length: int) -> tuple[int, int]:
    """(start, end) of ``length`` tokens from ``index``, without trailing punctuation
    (``"As an AI,"`` is reported as ``"As an AI"``)."""
    last = index + length - 1
    while last > index and not WORD_CHAR.match(tokens[last][0]):
        last -= 1
    return tokens[index][1], tokens[last][2]


def tokens_between(masked: str, start: int, end: int, limit: int) -> list[Token]:
    found = PHRASE_TOKEN.finditer(masked, start, end)
    return [
        (_norm(match.group()), match.start(), match.end())
        for match in itertools.islice(found, limit)
    ]


def only_prefaces(text: str, patterns: PhrasePatterns) -> bool:
    """Whether ``text`` holds prefaces and punctuation only, at least one preface.

    An apology or hedge opener with nothing after it (``"I'm sorry, but"``,
    ``"Unfortunately,"``, ``"My apologies."``) says nothing; the off-topic rule counts
    it as chatter. Linear: one token pass, each preface looked up in the trie from its
    first token.

    Args:
        text: Any text (usually an answer with its conversational phrases removed).
        patterns: The phrase patterns whose ``prefaces`` are read.

    Returns:
        ``True`` when every word of ``text`` belongs to a preface.
    """
    if not WORD_CHAR.search(text):
        return False
    trie = compiled_patterns(patterns).prefaces
    tokens = tokens_between(text, 0, len(text), len(text) + 1)
    index = 0
    while index < len(tokens):
        found = longest_match(trie, tokens, index)
        if found is not None:
            index += found[1]
        elif WORD_CHAR.match(tokens[index][0]):
            return False
        else:
            index += 1
    return True
