"""The pattern constants of the source design 002 (format compliance), as regexes.

The source design documents four ``list[str]`` constants of regex patterns. citeloop
matches phrases with token tries (:mod:`citeloop.checks.phrase_patterns`); the first
three constants are the same phrases written as regexes, generated from
:data:`~citeloop.checks.phrase_patterns.DEFAULT_PATTERNS`, so there is one list of
phrases to maintain and callers who scan with :mod:`re` get the same phrases:

- :data:`OFF_TOPIC_PATTERNS_START`: greetings, openers and letter headers; they mean
  chatter only at the start of an answer (the design checks its first 100 characters).
- :data:`OFF_TOPIC_PATTERNS_ANYWHERE`: refusals and self-identification ("As an AI").
- :data:`CONVERSATIONAL_PATTERNS`: chatbot filler sentences ("I hope this helps").
- :data:`ON_TOPIC_SIGNALS`: markers of a structured review (``## Overview``, ``the
  manuscript``, ``the authors``). Two or more of them present make an answer on-topic
  whatever else it says (:func:`citeloop.checks.compliance.has_on_topic_signals`).

Every pattern is case-insensitive (an inline ``(?i)``), compiles with :mod:`re`, and has
no nested quantifier, so a search is linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from citeloop.checks.phrase_patterns import DEFAULT_PATTERNS, WORD_CHAR, phrase_parts

__all__ = [
    "CONVERSATIONAL_PATTERNS",
    "LETTER_HEADERS",
    "OFF_TOPIC_PATTERNS_ANYWHERE",
    "OFF_TOPIC_PATTERNS_START",
    "ON_TOPIC_SIGNALS",
    "START_WINDOW",
    "phrase_regex",
]

START_WINDOW = 100
"""Characters at the start of an answer that :data:`OFF_TOPIC_PATTERNS_START` apply to."""

LETTER_HEADERS: tuple[str, ...] = (
    "to whom it may concern",
    "dear editor",
    "dear reviewer",
    "dear author",
    "subject :",
    "re :",
)
"""Letter and e-mail headers that open chatter rather than an answer."""


def phrase_regex(phrase: str) -> str:
    """The regex of one phrase of :class:`~citeloop.checks.phrase_patterns.PhrasePatterns`.

    Tokens are joined by white space (``\\s+`` between two words, ``\\s*`` next to
    punctuation); ``'`` also matches ``’``; a phrase that starts or ends with a word
    matches only at a word boundary; tokens after a ``|`` must follow but are not part
    of the reported phrase, so they become a lookahead.

    Example:
        >>> import re
        >>> bool(re.search(phrase_regex("i can't help"), "Sorry, I can’t  help you."))
        True
    """
    tokens, cut = phrase_parts(phrase)
    pieces: list[str] = []
    for index, token in enumerate(tokens):
        escaped = re.escape(token).replace("'", "['’]")
        if index:
            both_words = WORD_CHAR.match(tokens[index - 1][-1]) and WORD_CHAR.match(token[0])
            separator = r"\s+" if both_words else r"\s*"
            if index == cut > 0:
                pieces.append("(?=" + separator)
            else:
                pieces.append(separator)
        pieces.append(escaped)
    if 0 < cut < len(tokens):
        pieces.append(")")
    start = r"(?<!\w)" if tokens and WORD_CHAR.match(tokens[0][0]) else ""
    end = r"(?!\w)" if tokens and WORD_CHAR.match(tokens[-1][-1]) else ""
    return "(?i)" + start + "".join(pieces) + end


def _regexes(*groups: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for group in groups:
        for phrase in group:
            seen.setdefault(phrase_regex(phrase))
    return list(seen)


OFF_TOPIC_PATTERNS_START: list[str] = _regexes(
    DEFAULT_PATTERNS.greetings, DEFAULT_PATTERNS.fillers, LETTER_HEADERS
)
"""Greetings, openers (``"Certainly"``) and letter headers, as regexes."""

OFF_TOPIC_PATTERNS_ANYWHERE: list[str] = _regexes(
    DEFAULT_PATTERNS.refusals, DEFAULT_PATTERNS.self_identification
)
"""Refusals and self-identification, as regexes."""

CONVERSATIONAL_PATTERNS: list[str] = _regexes(DEFAULT_PATTERNS.filler_sentences)
"""Chatbot filler sentences (``"I hope this helps"``), as regexes."""

_SECTION_TITLES = (
    "overview|summary|introduction|background|methods?|methodology|results|discussion|"
    "conclusions?|strengths|weaknesses|limitations|recommendations?|assessment|"
    "major (?:issues|comments|concerns)|minor (?:issues|comments|concerns)"
)
ON_TOPIC_SIGNALS: list[str] = [
    rf"(?im)^[ \t]{{0,3}}#{{1,6}}[ \t]+(?:{_SECTION_TITLES})\b",
    rf"(?im)^[ \t]{{0,3}}\*\*(?:{_SECTION_TITLES})\b[^*\n]{{0,40}}\*\*",
    r"(?i)\bthe (?:manuscript|paper|submission|study|article)\b",
    r"(?i)\bthe authors?\b",
    r"(?i)\b(?:methodology|findings|hypothes[ie]s|experimental design)\b",
]
"""Markers of a structured review: section headings (``## Overview``, ``**Results**``),
``the manuscript``, ``the authors``, methodology words."""
