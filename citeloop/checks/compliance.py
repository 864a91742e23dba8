"""Format compliance: refusals, talk about being an AI, greetings and chatbot fillers.

An answer should be the answer: not a refusal ("I cannot help with that"), not a
statement about the model ("As an AI language model, ..."), not wrapped in a greeting
("Hello!") or filler ("Certainly! Here is ...", "I hope this helps!"). The checks here
find those phrases precisely enough to act on them without flagging ordinary prose.

Which phrases there are and where each group may match is described in
:mod:`citeloop.checks.phrase_patterns`; how an answer is read (sentences, the opening
run, hedges, quoted speech, code) in :mod:`citeloop.checks.phrase_scan`.

**Fix** (:attr:`ComplianceResult.fixed`): when greetings and fillers are the only
problems, and all of them sit in the opening run or in short filler sentences at the
start or end of the answer, the fix strips them (``"Sure, here's X"`` becomes
``"Here's X"``); it is offered only when the fixed text passes the same check.
Stripping can expose another opening (``"I hope this helps! Okay. X"``): the fix is
re-checked and fixed again, in a loop of at most three rounds.

**Off-topic** (:func:`is_off_topic`): an answer is off-topic when

0. without on-topic signals given, it shows two or more default review markers
   (:data:`~citeloop.checks.patterns.ON_TOPIC_SIGNALS`): then it is on-topic at once;
1. it has no word characters at all (``"empty"``);
2. nothing of substance is left once greetings, fillers, refusals and
   self-identification are removed, or only prefaces are, an apology or hedge with
   nothing after it (``"no_substance"``: ``"As an AI, I have no opinions."``,
   ``"Hello! How can I help you today?"``, ``"Sure! " * 1000``, ``"I'm sorry, but"``,
   ``"Unfortunately,"``); a refusal removes its whole sentence, a hedge only its
   phrase; a self-identification sentence with more than ten words after the phrase
   is substance;
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
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from citeloop.checks.check import require_text
from citeloop.checks.patterns import ON_TOPIC_SIGNALS
from citeloop.checks.phrase_patterns import (
    FILLER,
    GREETING,
    REFUSAL,
    SELF_IDENTIFICATION,
    WORD_CHAR,
    PhraseMatch,
    PhrasePatterns,
    only_prefaces,
)
from citeloop.checks.phrase_scan import (
    AFTER_PHRASE,
    PhraseScan,
    phrase_patterns_or_default,
    scan_phrases,
)
from citeloop.errors import ConfigurationError
from citeloop.text import normalize_text

MIN_DEFAULT_SIGNALS = 2
"""Default review markers that make an answer on-topic (source design 002)."""


# --- signals ---------------------------------------------------------------------------


def check_signals(signals: object, name: str = "on_topic_signals") -> tuple[str, ...] | None:
    """``signals`` as a tuple of non-empty strings (``None`` stays ``None``).

    Raises:
        ConfigurationError: ``signals`` is a string or not a list of non-empty strings.
    """
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
    before = r"(?<!\w)" if WORD_CHAR.match(words[0][0]) else ""
    after = r"(?!\w)" if WORD_CHAR.match(words[-1][-1]) else ""
    return re.compile(before + body + after)


def _found_signals(folded: str, signals: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(signal for signal in signals if _signal_pattern(signal).search(folded))


def _fold(text: str) -> str:
    return normalize_text(text).casefold()


def has_on_topic_signals(text: str, signals: Iterable[str] | None = None) -> bool:
    """Whether ``text`` shows on-topic signals.

    With ``signals`` given, whether any of them occurs: a signal is a word or phrase
    (``"graph"``, ``"knowledge graph"``, ``"C++"``) that matches where its ends fall on
    word boundaries (``"graph"`` is not in ``"paragraph"``; ``"C++"`` is in ``"C++17"``),
    with any whitespace between its words; both sides NFC-normalized and case-folded.
    Without ``signals`` (the source design 002's form), whether at least
    :data:`MIN_DEFAULT_SIGNALS` (2) of the regexes of
    :data:`~citeloop.checks.patterns.ON_TOPIC_SIGNALS` match. Linear in ``len(text)``
    per signal.

    Args:
        text: The answer.
        signals: Words or phrases, or ``None`` for the default review markers; an
            empty list is never found.

    Returns:
        ``True`` when a given signal occurs, or two default markers do.

    Raises:
        ConfigurationError: ``text`` is not a str, ``signals`` is a str or not an
            iterable, or a signal is empty.

    Example:
        >>> has_on_topic_signals("The Knowledge\\ngraph is built.", ["knowledge graph"])
        True
        >>> has_on_topic_signals("A paragraph.", ["graph"])
        False
        >>> has_on_topic_signals("## Overview\\nThe authors test it.")
        True
    """
    text = require_text(text)
    if signals is None:
        found = sum(1 for pattern in _default_signals() if pattern.search(text))
        return found >= MIN_DEFAULT_SIGNALS
    checked = check_signals(signals, "signals") or ()
    return bool(checked) and bool(_found_signals(_fold(text), checked))


@functools.cache
def _default_signals() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(pattern) for pattern in ON_TOPIC_SIGNALS)


# --- results ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ComplianceResult:
    """The format compliance of an answer (see :func:`compliance_result`).

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


def _fixed(text: str, scan: PhraseScan) -> str | None:
    """The answer without its opening run of greetings/fillers and its closing filler
    sentences, or ``None`` when a filler sits elsewhere (or nothing would be left)."""
    cut = scan.opening_end
    fillers = sorted(scan.filler_sentences)
    first = 0
    # Short whole filler sentences right after the opening run (or opening the answer).
    while (
        first < len(fillers)
        and fillers[first][2]
        and not WORD_CHAR.search(text, cut, fillers[first][0])
    ):
        cut = AFTER_PHRASE.match(text, fillers[first][1]).end()  # type: ignore[union-attr]
        first += 1
    last = len(fillers)
    closing = len(text)
    # Short filler sentences that end the answer (only punctuation or symbols after).
    while (
        last > first
        and fillers[last - 1][2]
        and not WORD_CHAR.search(text, fillers[last - 1][1], closing)
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
    if not WORD_CHAR.search(kept):
        return None
    return kept + ("\n" if text.endswith("\n") else "")


def compliance_result(
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
        >>> result = compliance_result("Certainly! Paris is the capital.", ["Paris"])
        >>> result.compliant, result.off_topic, result.fixed
        (False, False, 'Paris is the capital.')
    """
    signals = check_signals(on_topic_signals) or ()
    if not isinstance(allow_fillers, bool):
        raise ConfigurationError(f"allow_fillers must be a bool, got {allow_fillers!r}")
    return _compliance(
        require_text(text), signals, phrase_patterns_or_default(patterns), allow_fillers
    )


_FIX_ROUNDS = 3
"""Stripping an opening can expose another (``"I hope this helps! Okay. ..."``): the fix
is re-checked, and fixed again, at most this many times (a loop, each round linear)."""


def _evaluate(
    text: str,
    signals: tuple[str, ...],
    patterns: PhrasePatterns,
    allow_fillers: bool,
) -> tuple[ComplianceResult, PhraseScan]:
    """The result without a fix, and the scan it came from."""
    scan = scan_phrases(text, patterns)
    substance = _without(text, scan.conversational)
    found = _found_signals(_fold(substance), signals) if signals else ()
    refused = any(match.category == REFUSAL for match in scan.matches)
    reasons: list[str] = []
    if not WORD_CHAR.search(text):
        reasons.append("empty")
    elif not WORD_CHAR.search(substance) or only_prefaces(substance, patterns):
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

    Without ``on_topic_signals``, an answer showing two or more of the default review
    markers (:func:`has_on_topic_signals` without signals) is on-topic at once, as the
    source design 002 documents; the other rules apply otherwise.

    Args:
        text: The answer.
        on_topic_signals: Words or phrases an on-topic answer mentions; ``None`` or
            empty: only the default markers, the refusal and the substance rules apply.
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
    if on_topic_signals is None and has_on_topic_signals(text):
        return False
    return compliance_result(text, on_topic_signals, patterns=patterns).off_topic
