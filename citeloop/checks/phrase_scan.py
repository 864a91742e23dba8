"""Find the phrases of format compliance in an answer: sentences, the opening run,
hedges, quoted speech (:func:`find_conversational_phrases`).

sentence opening with ``'`` or ``‘``) and blockquotes (``> ...``) are someone else's
words and are never matched; neither is code (code spans and fenced blocks). A
character in a story who says "I cannot help you" is quoted; unquoted, the line is a
refusal only in the answer's first sentences or in a short answer.

**Ambiguous phrases, decided.** ``"As an AI researcher, I ..."`` and ``"I'm an AI
ethicist"`` are *not* self-identification: "AI" modifies a human role. ``"As an AI"``
counts when a comma follows; ``"I'm an AI"``, ``"I'm Claude"`` and ``"I'm an assistant"``
count when punctuation, a conjunction or a word such as ``developed``, ``trained``,


**Fix** (:attr:`ComplianceResult.fixed`): when greetings and fillers are the only
problems, and all of them sit in the opening run or in short filler sentences at the

Work is linear in the text length: sentences are found in one regex pass, each
sentence is matched on at most a bounded number of leading tokens against a trie, the
opening run is walked once (each phrase looks a bounded number of tokens ahead), and a
hedge's contrast is searched once in its sentence.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass, field

from citeloop.checks.check import require_text
from citeloop.checks.code_mask import mask_code
from citeloop.checks.phrase_patterns import (
    DEFAULT_PATTERNS,
    FILLER,
    GREETING,
    PHRASE_TOKEN,
    REFUSAL,
    REFUSAL_SENTENCES,
    SELF_IDENTIFICATION,
    SHORT_ANSWER_SENTENCES,
    STRIPPABLE_WORDS,
    SUBSTANCE_WORDS,
    TERMINATORS,
    WORD_CHAR,
    CompiledPatterns,
    PhraseMatch,
    PhrasePatterns,
    Token,
    compiled_patterns,
    longest_match,
    token_span,
    tokens_between,
)
from citeloop.errors import ConfigurationError

# --- sentences -------------------------------------------------------------------------

_BREAK = re.compile(r"[.!?…]+|\n|[\"“”«»„]")
_CLOSERS = frozenset("\"'”’)]*_»")
_OPENING_QUOTES = frozenset("\"'“‘«„「『")
_SPACES = re.compile(r"[ \t]*")
_HASHES = re.compile(r"#+")
_LIST_MARKER = re.compile(r"(?:[-*+]|[0-9]{1,9}[.)])[ \t]")
AFTER_PHRASE = re.compile(r"[!.,:;?…—–-]*[*_]*[ \t]*(?:\n[ \t]*)*")
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
        sentence for sentence in sentences if WORD_CHAR.search(masked, sentence.start, sentence.end)
    ]


def _word_count(masked: str, start: int, end: int, limit: int) -> int:
    words = (
        match
        for match in PHRASE_TOKEN.finditer(masked, start, end)
        if WORD_CHAR.match(match.group())
    )
    return sum(1 for _ in itertools.islice(words, limit + 1))


# --- detection -------------------------------------------------------------------------


@dataclass(slots=True)
class PhraseScan:
    matches: list[PhraseMatch] = field(default_factory=list)
    # Spans of text that are only conversation: the opening run and whole sentences.
    conversational: list[tuple[int, int]] = field(default_factory=list)
    opening_end: int = 0  # end of the run of opening greetings and fillers (0: none)
    opening_start: int = 0
    opening_mid_sentence: bool = False
    # (start, end, short enough to strip) of sentences that open with a filler
    filler_sentences: list[tuple[int, int, bool]] = field(default_factory=list)
    sentences: list[_Sentence] = field(default_factory=list)


def _terminates(token: Token | None, masked: str, phrase_end: int) -> bool:
    """Whether the phrase ending at ``phrase_end`` is a clause of its own."""
    if token is None or "\n" in masked[phrase_end : token[1]]:
        return True
    text = token[0]
    return text in TERMINATORS or (len(text) == 1 and unicodedata.category(text) == "So")


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


def _vocative_end(masked: str, tokens: list[Token], index: int, end: int) -> int:
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
        if WORD_CHAR.match(token):
            words += 1
            if words > _MAX_VOCATIVE_WORDS:
                return end
    return end


def _opening(
    text: str, masked: str, compiled: CompiledPatterns, sentence: _Sentence, scan: PhraseScan
) -> None:
    position = sentence.start
    # The whole run, however long ("Hello! " * 10_000): each phrase consumes at least one
    # token and looks at most ``lookahead`` tokens ahead, so the run is linear.
    while True:
        tokens = tokens_between(masked, position, len(masked), compiled.lookahead)
        found = longest_match(compiled.opening, tokens, 0)
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
        position = AFTER_PHRASE.match(masked, end).end()  # type: ignore[union-attr]
        scan.opening_end = position
        scan.opening_mid_sentence = masked[phrase_end:end].strip() in (",", "—", "–", ":", ";")
        if not on_line or end > (following[2] if following is not None else end):
            scan.opening_mid_sentence = False
    if scan.opening_end:
        scan.conversational.append((scan.opening_start, scan.opening_end))


def _scan_sentence(
    text: str,
    masked: str,
    compiled: CompiledPatterns,
    sentence: _Sentence,
    start: int,
    refusal_allowed: bool,
    scan: PhraseScan,
) -> None:
    tokens = tokens_between(masked, start, sentence.end, compiled.lookahead)
    if not tokens:
        return
    found = longest_match(compiled.filler_sentences, tokens, 0)
    if found is not None:
        phrase, _, cut = found
        first, end = token_span(tokens, 0, cut)
        scan.matches.append(PhraseMatch(FILLER, phrase, first, end, text[first:end]))
        short = _word_count(masked, start, sentence.end, STRIPPABLE_WORDS) <= STRIPPABLE_WORDS
        scan.filler_sentences.append((start, sentence.end, short))
        scan.conversational.append((start, sentence.end))
        return
    index = 0
    conversational = False
    for _ in range(4):
        identity = longest_match(compiled.self_identification, tokens, index)
        if identity is not None:
            first, end = token_span(tokens, index, identity[2])
            match = PhraseMatch(SELF_IDENTIFICATION, identity[0], first, end, text[first:end])
            scan.matches.append(match)
            rest = _word_count(masked, end, sentence.end, SUBSTANCE_WORDS)
            conversational = conversational or rest <= SUBSTANCE_WORDS
        refusal = longest_match(compiled.refusals, tokens, index) if refusal_allowed else None
        exception = longest_match(compiled.refusal_exceptions, tokens, index) if refusal else None
        if refusal is not None and (exception is None or exception[1] < refusal[1]):
            first, end = token_span(tokens, index, refusal[2])
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
        preface = longest_match(compiled.prefaces, tokens, index)
        if preface is None:
            break
        index += preface[1]
    if conversational:
        scan.conversational.append((start, sentence.end))


_CONTRAST = re.compile(
    r"(?:[,;]|[ \t][-—–]{1,2}|[—–])[ \t]*(?:but|however)(?![\w'’])[ \t]*,?", re.IGNORECASE
)
_HEDGE_WORDS = 3


def _hedged(masked: str, compiled: CompiledPatterns, start: int, end: int) -> bool:
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
    tokens = tokens_between(masked, clause, end, compiled.lookahead)
    chatter = (
        compiled.refusals,
        compiled.self_identification,
        compiled.filler_sentences,
        compiled.redirects,
    )
    index = 0
    for _ in range(4):
        if any(longest_match(trie, tokens, index) is not None for trie in chatter):
            return False
        preface = longest_match(compiled.prefaces, tokens, index)
        if preface is None:
            break
        index += preface[1]
    return True


def scan_phrases(text: str, patterns: PhrasePatterns | None) -> PhraseScan:
    compiled = compiled_patterns(phrase_patterns_or_default(patterns))
    masked = mask_code(text)
    scan = PhraseScan(sentences=_sentences(masked))
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


def phrase_patterns_or_default(patterns: PhrasePatterns | None) -> PhrasePatterns:
    if patterns is None:
        return DEFAULT_PATTERNS
    if not isinstance(patterns, PhrasePatterns):
        raise ConfigurationError(
            f"patterns must be a PhrasePatterns or None, got {type(patterns).__name__}; "
            "e.g. DEFAULT_PATTERNS.extend(greetings=['ahoy'])"
        )
    return patterns


def find_conversational_phrases(
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
        >>> [(m.category, m.text) for m in find_conversational_phrases(
        ...     "Sure! The answer is 4. I hope this helps!")]
        [('filler', 'Sure'), ('filler', 'I hope this helps')]
    """
    return list(scan_phrases(require_text(text), patterns).matches)
