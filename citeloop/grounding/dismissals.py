"""The code an answer names only to set it aside.

An answer that sorts its context says so of what it does not use: "`VarianceThreshold`
and `SelectFromModel` are different threshold mechanisms. They are not part of the
shrinkage, so I do not use them."; "**Not relevant:** the `KFold` and `GroupKFold`
entries are cross-validation splitters"; "the `ThreadingXMLRPCServer.log` attribute
belongs to a different class". A widening that brought that code back (its source, its
neighbours) spent the room on what the answer had just ruled out (two played questions
in three). :func:`dismissed_names` reads those names, so that the widening leaves them
out.
"""

from __future__ import annotations

import re

from citeloop.grounding.mentions import code_mentions
from citeloop.grounding.sayings import BACK_REFERENCE, SENTENCE_END

_DISMISSAL = re.compile(
    r"\b(?:unrelated|irrelevant|not\s+relevant|not\s+related|not\s+part\s+of"
    r"|nothing\s+to\s+do\s+with|(?:do|does|did)\s+not\s+use\s+(?:them|it|these|those)"
    r"|(?:don't|doesn't|didn't)\s+use\s+(?:them|it|these|those)"
    r"|belongs?\s+to\s+(?:a|an)\s+(?:different|other|unrelated)"
    r"|(?:is|are)\s+a\s+different\s+(?:class|function|method|module|object|attribute)"
    r"|(?:is|are)\s+not\s+(?:that|the)\s+(?:checker|class|function|method|code|one)"
    r"|(?:do|does|did)\s+not\s+affect\s+(?:the|this|my)\s+answer"
    r"|(?:play|plays|played)\s+no\s+part|(?:do|does|did)\s+not\s+relate\s+to"
    r"|none\s+of\s[^.;:\n]{0,80}?\s(?:is|are|was|were)\s+(?:related|relevant)"
    r"|(?P<bear>(?:do|does|did)\s+not\s+bear\s+on|(?:has|have)\s+no\s+bearing\s+on))\b"
    r"(?P<subject>(?:\s+(?:to|on|for|with))?\s+(?:the|this|your|my)"
    r"\s+(?:question|task|answer|class|function|method)\b)?"
    r"(?:\s+(?:to|for|with)(?:\s+[\w-]+){1,4}(?=\**\s*:))?"
    r"(?P<label>\**\s*:)?",
    re.IGNORECASE,
)
"""A phrase that sets code aside (each alternative a fixed sequence of words: linear),
with what it is set aside from when that is the question or what it asks about
(``subject``: ``not relevant to the question``, ``has no bearing on this class``);
``label`` when a colon follows it (``Not relevant:``, ``**Unrelated:**``, "Most of the
added context does not bear on the question: the `CharField` fixtures", also after a
topic of a few words: "Much of the context is unrelated to navigation: `PermissionType`,
..."); ``bear`` for a
phrase that sets aside only what such a label lists, or what it says has no bearing on
the question or its class ("`flush` has no bearing on durability by itself" still asks
for `flush`)."""

_EXAMPLES = re.compile(
    r"\W*(?:e\.g\.|examples?\s*:|(?:examples?\s+(?:are|include)|for\s+(?:example|instance)|such\s+as"
    r"|(?:these|they)\s+include|this\s+includes|among\s+(?:them|these|those))\b)",
    re.IGNORECASE,
)
"""The start of a sentence that gives examples of what the one before it set aside
without naming any ("Much of the context is unrelated to this question. Examples are
`calc_max_rows_first`, ..."); each alternative a fixed sequence of words: linear."""

_CLAUSE_MARKS = ("; ", ": ", " \u2014 ", " - ")
"""What ends a clause within a sentence (with its space: ``state.py:12`` ends none)."""


def dismissed_names(body: str) -> frozenset[str]:
    """The code names ``body`` sets aside: those a clause writes before a phrase that
    sets them aside (``unrelated``, ``not relevant``, ``not part of``, ``I do not use
    them``, ``belongs to a different class``), or, when that clause writes none, after
    such a phrase that a colon ends (``Not relevant:``, "Most of the added context does
    not bear on the question:", the only use of ``does not bear on`` and ``has no
    bearing on``); when such a sentence starts with ``They``, ``These`` or ``This`` and
    writes none before the phrase, those of the sentence before it; when it writes none
    at all and the next gives examples ("Examples are", "For example"), those of the
    next (``does not affect the answer`` sets aside too); of several such phrases in a
    sentence that writes no code before them, the one a colon ends. What follows the
    phrase otherwise is what they are set aside from (``unrelated to the tree
    `Splitter` ``): not set aside.

    Example:
        >>> sorted(dismissed_names("`KFold` and `GroupKFold` are unrelated to `Splitter`."))
        ['GroupKFold', 'KFold']
    """
    text = body.replace("\u2019", "'")
    if _DISMISSAL.search(text) is None:
        return frozenset()
    starts = [0, *(end.end() for end in SENTENCE_END.finditer(text))]
    sentences = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    dismissed: set[str] = set()
    for at, sentence in enumerate(sentences):
        phrases = list(_DISMISSAL.finditer(sentence))
        if not phrases:
            continue
        found = phrases[0]
        # "... are unrelated to this question and I did not use them: `Unset`": the
        # phrase a colon ends labels the list, when nothing before it is code.
        labelled = next((p for p in phrases if p["label"]), found)
        if not code_mentions(sentence[: labelled.start()]):
            found = labelled
        # The clause before the phrase: "`Cart` is not shown; `Ledger` is unrelated"
        # sets aside `Ledger` only.
        clause = sentence[: found.start()]
        clause = clause[max(clause.rfind(mark) for mark in _CLAUSE_MARKS) + 1 :]
        if found["label"] and not code_mentions(clause):
            written = sentence[found.end() :]  # what it labels, when it has no subject
        elif found["bear"] and (found["label"] or not found["subject"]):
            continue  # "`X` does not bear on the question: the cause is `Y`" asks of both
        elif (
            not code_mentions(sentence)
            and at + 1 < len(sentences)
            and _EXAMPLES.match(sentences[at + 1])
        ):
            written = sentences[at + 1]  # "... unrelated to this question. Examples are"
        elif not code_mentions(clause) and at and BACK_REFERENCE.match(sentence):
            written = sentences[at - 1]
        else:
            written = clause
        dismissed.update(mention.name for mention in code_mentions(written))
    return frozenset(dismissed)
