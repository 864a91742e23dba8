"""Whether an answer says its context lacks what it needs: the sayings that say so.

A body that says the context lacks what the answer needs ("the context does not show
...", "not enough information", "cannot determine from the provided context") asks for
more context, however it goes on (:func:`says_context_insufficient`, the
``insufficient_context`` rule of :class:`~citeloop.grounding.GraphContextValidator`).
Its sayings (:func:`sayings_in`; not those that say the code not shown is not needed)
are read into passages by :mod:`~citeloop.grounding.lacking_passages`, and what they
say is lacking by :mod:`~citeloop.grounding.lacking`. Fenced code says nothing of the
context. Everything is linear in the length of the answer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from citeloop.markdown import fenced
from citeloop.text import is_word_char, replace_chars

_CONTEXT = (
    r"(?:the )?(?:provided |given |supplied |available |injected |above |shown |widened "
    r"|retrieved )?"
    r"(?<!\w)(?:context|snippets?|excerpts?|code shown|code provided|provided code"
    r"|graph context)\b"
)
_NOT = r"(?:not|isn't|aren't|wasn't|weren't)"
_EXCEPT = r"(?:except|besides|apart\s+from|aside\s+from|other\s+than|save\s+for)"
"""The words that open an exception ("... except the body of `f`")."""
_END = (
    r"(?=\s*(?:[.,;:!?()\]\n]|\*\*|$)"
    r"|\s+(?:and|so|but|which|because|or|yet|though|although|" + _EXCEPT + r")\b)"
)
"""The end of a clause: "X is not in the context." (or the end of a bold line: "**Missing
from the context**", or what a parenthesis adds: "**Missing from the context (needed
to answer)**", or an exception: "Nothing is missing from the context except the body
of `f`") but not "not in the context dict"."""
_HEADING_SAYING = (
    r"(?:still missing|is missing|are missing|'s missing|not shown|not visible|still hidden"
    r"|remains? hidden|not in the context|i would need|i'd need)"
)
_SAYINGS = (
    _CONTEXT + r" (?:still |also |only |just |even |itself |here )?"
    r"(?:does not|doesn't|did not|didn't|do not|don't) (?:\w+ ){0,2}?"
    r"(?:show|include|contain|provide|have|cover|mention|define|describe|specify"
    r"|reveal|say|explain|expose|give)",
    _CONTEXT + r" (?:is|seems|appears|was) (?:to be )?(?:(?!not |never )\w+ )?(?:insufficient"
    r"|incomplete|not enough|not sufficient|too limited|missing)",
    _CONTEXT + r" (?:still |also |now )?(?:lacks|omits|is missing|leaves out)",
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
    r"(?:\b(?:its|the|their)|'s) (?:\w+ )?(?:body|bodies|sources?|source code|implementations?"
    r"|definitions?|constructors?|initiali[sz]ers?|methods|members|fields|attributes|tests)"
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
    # "I would need the source of `X` (L152)": not "we would need the implementation to
    # hold a lock", which says what the code would need
    r"\b(?:i|we)(?:'d| would)? need (?:the |its |their )(?:\w+ ){0,2}?(?:body|bodies|source"
    r"|code|implementation|definition) of\b",
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


def without_fences(body: str) -> str:
    """``body`` with the lines of its fenced code blocks blanked (the same length, so
    offsets stay ``body``'s)."""
    if "```" not in body and "~~~" not in body:
        return body
    lines = body.split("\n")
    return "\n".join(
        " " * len(line) if code else line for line, code in zip(lines, fenced(lines), strict=True)
    )


SENTENCE_END = re.compile(
    r"[.!?](?=\s+[^\sa-z])|\n(?=[ \t]*(?:\n|[-*+][ \t]|\d{1,3}[.)][ \t]))"
    r"|(?<![^\n]) {0,3}#[^\n]*\n"
)
"""Where a sentence ends: a stop before a word that is not lower-case (``e.g. the``
goes on), a blank line, a list item, or a heading's line."""


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
missing: :func:`~citeloop.grounding.lacking.lacking_words` leaves them out (a rare word
finds code by chance)."""


def _sayings(body: str) -> Iterator[re.Match[str]]:
    """Every saying of :data:`_INSUFFICIENT` in ``body`` outside fenced code, in any
    case, in order (offsets are ``body``'s)."""
    return sayings_in(without_fences(body))


_NOT_NEEDED = re.compile(
    r"\b(?:not\s+needed|not\s+required|not\s+necessary|unnecessary|not\s+essential"
    r"|(?:is|are|was|were)n['\u2019]t\s+(?:needed|required|necessary|essential)"
    r"|(?:does|do|did)\s+not\s+(?:affect|change|matter)"
    r"|(?:doesn't|don't|didn't)\s+(?:affect|change|matter)"
    r"|(?:neither|none(?:\s+of\s+(?:them|these|those|this|it))?)\s+(?:is|are|was|were)"
    r"\s+(?:needed|required|necessary|essential))\b",
    re.IGNORECASE,
)
"""What says that code not shown does not bear on the answer ("Neither is needed to
locate the decision"; each alternative a fixed sequence of words: linear)."""
BACK_REFERENCE = re.compile(
    r"\W*(?:this|that|these|those|it|they|both|neither|none|all\s+of\s+them)\b",
    re.IGNORECASE,
)
"""The start of a sentence that goes on about the one before it ("This does not affect
...", "They are not part of ...", "That is not needed to answer ...")."""
_NEEDED_WINDOW = 400
"""Characters after a saying read for a "not needed" (a bounded window each: linear)."""
_IN_CONTEXT = r"\s+(?:from|in)\s+" + _CONTEXT.replace(" ", r"\s+")
_BUT_FOR = r"(?!(?:" + _IN_CONTEXT + r")?(?:\s+but\b|\s*,?\s*" + _EXCEPT + r"\b))"
"""What makes a denial an exception's frame: "Nothing is missing from the context
except the body of `f`" (or "but the body of `f`") says that body is missing; ", but"
opens another clause, an aside."""
_NOTHING_MISSING = re.compile(
    r"\b(?:nothing\b(?:(?!\b(?:and|but|because|so|though|although|yet|while|whereas)\b)"
    r"[^.,;:!?\n]){0,60}?(?:is|are|was|were)\s+(?:missing|lacking|absent)\b"
    + _BUT_FOR
    + r"|no\s+(?!doubt\b|wonder\b)(?:\w+\s+){1,3}?(?:is|are|was|were)\s+(?:missing|lacking"
    r"|absent)\b" + _BUT_FOR + _IN_CONTEXT + ")",
    re.IGNORECASE,
)
"""What says that nothing the answer needs is lacking ("Nothing needed for the question
is missing", "No code is missing from the context": what else the answer says is not
shown is an aside). Its subject is one clause: in "There is nothing wrong with `f`,
but its body is missing" the nothing is another clause's. A "no ..." says so of the
context only: "no values are missing" is what code does with its data, not a denial.
Neither is one followed by an exception (:data:`_BUT_FOR`). Bounded between its words,
so each match is short: linear."""
_LEAD_WINDOW = 80
"""Characters before a saying read for the start of its sentence, which may deny it
("Nothing is missing from the context.")."""
_NEW_NAMES = re.compile(
    r"\b(?:(?:is|are)\s+(?:\w+\s+)?(?:new|proposed|hypothetical)|marked\s+\W{0,2}(?:new"
    r"|proposed|hypothetical))\b",
    re.IGNORECASE,
)
"""What says, in a saying's clause before it, that the names it is about are new code
the answer proposes ("names marked *proposed* are new and do not exist in the context"):
a played refactoring answer's heading had been read as saying what its context lacks.
Fixed words, a bounded gap: linear."""
_OWN_KNOWLEDGE = re.compile(
    r"\s*(?:from\s+|per\s+|by\s+)?(?:(?:general|background|standard)\s+(?:python|knowledge"
    r"|library|language)\b|python(?:'s)?\s+(?:semantics|behaviou?r|documentation|docs)\b)",
    re.IGNORECASE,
)
"""What opens the brackets of a saying that qualifies what a section says as the
answer's own knowledge, not code it needs ("### Why `str` + `enum.Enum` (general
Python, not shown in the context)"): a played answer's section so headed had been read
as its list of what it lacks. Fixed words, bounded gaps: linear."""
_CLAUSE_BREAKS = (". ", "! ", "? ", "\n", ": ", "; ")


def _own_knowledge(text: str, start: int, end: int) -> bool:
    """Whether the saying that ends at ``end`` is in brackets that open, after ``start``
    (its clause), with the answer's own knowledge (:data:`_OWN_KNOWLEDGE`), or that
    follow a clause that opens so: "(general Python, not shown in the context)" and
    "From general Python and pandas knowledge (not shown in the context):" qualify what
    follows them (a played answer's list of pandas facts under the second had been
    told back to it as code it lacked). Not a sentence that says both ("From general
    Python knowledge I would guess it logs, but the context does not show
    `Ledger.record`": an attack's answer had passed)."""
    opened = text.rfind("(", start, end)
    return (
        opened >= 0
        and text.find(")", opened, end) < 0
        and (
            _OWN_KNOWLEDGE.match(text, opened + 1, end) is not None
            or _OWN_KNOWLEDGE.match(text, start, opened) is not None
        )
    )


_NOTHING = re.compile(
    r"[\s*:]{0,8}(?:(?:nothing|none|n/a)\b"
    r"|(?:[-*+]|\d{1,3}[.)])[\t\x20]{1,4}(?:nothing|none|n/a)[.\t\x20]*(?:\r?\n|$))",
    re.IGNORECASE,
)
"""What a label says when nothing is lacking: "**Missing:** nothing the question
needs", or a list of nothing ("Missing:" and "- none", the item all of it: not "- None
of the bodies ... are shown")."""
_NOTHING_NEEDED = re.compile(
    r"[\s*:.#]{0,8}nothing\s+(?:the\s+(?:question|task|answer)\s+needs|(?:that\s+)?(?:is\s+)?"
    r"(?:needed|essential|important|relevant|critical)|that\s+matters)\b",
    re.IGNORECASE,
)
"""What a paragraph's label is followed by when the paragraph's sayings are asides:
"**What the context still lacks.** Nothing the question needs: ... For background only,
... so I cannot say ..." (a played answer that said so was asked again). Fixed words:
linear."""


def _needed(text: str, saying: re.Match[str]) -> bool:
    """Whether a saying says code is lacking that the answer needs: not when its clause
    says the names it is about are new (:data:`_NEW_NAMES`) or what it is about is the
    answer's own knowledge (:data:`_OWN_KNOWLEDGE`), nor when its
    sentence, or the next one that goes on about it, says that code is not needed
    ("Still not shown (not needed for the answer above):", "... are left out. This does
    not affect the behaviour asked about."; after the list its line introduces: "Not
    shown in the context:", a list, "Neither is needed to answer ..."), nor when the
    bold label or heading that opens its paragraph says so ("**Not shown, though not
    needed.** The context doesn't show ..."), nor when what it labels is nothing
    ("**Missing:** nothing the question needs"), nor when its sentence, the next or one
    before it in its paragraph says nothing needed is missing ("Nothing needed for the
    question is missing. The test ... is not shown, so I cannot say what it checks."):
    played answers that were complete were asked again for such lists."""
    if _NOTHING.match(text, saying.end()):
        return False
    lead = max(0, saying.start() - _LEAD_WINDOW)
    opens = max(text.rfind(stop, lead, saying.start()) for stop in (". ", "! ", "? ", "\n"))
    # A denial that starts in its sentence before it ends, read on past its end for an
    # exception ("... from the context but the body of `f`").
    denial = _NOTHING_MISSING.search(text, max(lead, opens + 1), saying.end() + _LEAD_WINDOW)
    if denial is not None and denial.start() < saying.end():
        return False  # its own sentence denies it: "Nothing is missing from the context."
    clause = max(text.rfind(stop, lead, saying.start()) for stop in _CLAUSE_BREAKS)
    if _NEW_NAMES.search(text, max(lead, clause + 1), saying.start()):
        return False  # "the names marked *proposed* are new and do not exist in the context"
    if _own_knowledge(text, max(lead, clause + 1), saying.end()):
        return False  # "### Why `X` (general Python, not shown in the context)"
    window = text[saying.start() : saying.end() + _NEEDED_WINDOW]
    end = SENTENCE_END.search(window, saying.end() - saying.start())
    after = SENTENCE_END.search(window, end.end() + 1) if end is not None else None
    if _NOTHING_MISSING.search(window, 0, after.end() if after else len(window)):
        return False  # its sentence or the next says nothing needed is missing
    if end is not None and BACK_REFERENCE.match(window, end.end()):
        end = after
    if _NOT_NEEDED.search(window, 0, end.end() if end else len(window)):
        return False
    if (prose := _prose_after_list(text, saying.end())) is not None and BACK_REFERENCE.match(
        text, prose
    ):
        stop = SENTENCE_END.search(text, prose, prose + _NEEDED_WINDOW)
        if _NOT_NEEDED.search(text, prose, stop.end() if stop else prose + _NEEDED_WINDOW):
            return False  # "Not shown in the context:", a list, "Neither is needed ..."
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
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    # the label ends with its closing `**` (a heading, or a bold line left open: its line)
    closing = text.find("**", start + 2, line_end) if text.startswith("**", start) else -1
    label_end = closing + 2 if closing >= 0 else line_end
    if _NOTHING_NEEDED.match(text, label_end):
        return False  # "**What the context lacks.** Nothing the question needs: ..."
    first = SENTENCE_END.search(text, start, saying.start())
    return _NOT_NEEDED.search(text, start, first.end() if first else saying.start()) is None


_LIST_LINE = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]|[ \t]+\S")
"""A list item's line, or a line that goes on with an item (indented)."""
_LIST_WINDOW = 2000
"""Characters of a list after a saying read for the prose that follows it (linear)."""


def list_below(text: str, position: int, limit: int) -> tuple[int | None, int | None]:
    """``(end, prose)`` of the list that starts at ``position`` (a line's start), read up
    to ``limit``: the end of its last line and the start of the prose that ends it
    (blank lines do not), each ``None`` when there is none (no list line, or no prose
    before ``limit``). Reads each line once."""
    end = None
    for start, stop in line_spans(text, position, limit):
        line = text[start:stop]
        if _LIST_LINE.match(line):
            end = stop
        elif line.strip():
            return end, start if end is not None else None
    return end, None


def line_spans(text: str, position: int, limit: int) -> Iterator[tuple[int, int]]:
    """The ``(start, end)`` offsets of the lines of ``text`` from ``position`` (a line's
    start) up to ``limit``, the end before the line break."""
    while position < limit:
        end = text.find("\n", position, limit)
        end = limit if end < 0 else end
        yield position, end
        position = end + 1


def _prose_after_list(text: str, at: int) -> int | None:
    """Where the prose starts that follows the list a saying's line introduces (the line
    ends with a colon: "Not shown in the context:", then "- ...", "- ..."), within
    :data:`_LIST_WINDOW` characters; ``None`` when no list follows or it runs on."""
    line_end = text.find("\n", at, at + _NEEDED_WINDOW)
    if line_end < 0 or not text[at:line_end].rstrip().endswith(":"):
        return None
    return list_below(text, line_end + 1, min(len(text), line_end + _LIST_WINDOW))[1]


def sayings_in(body: str) -> Iterator[re.Match[str]]:
    """:func:`_sayings` of a text whose fenced code is blanked, but for those that say
    the code is not needed (:func:`_needed`)."""
    return (saying for saying in _all_sayings_in(body) if _needed(body, saying))


SENTENCE_SHOWN = 200
"""Most characters of the sentence :func:`first_saying` gives."""


SAID_BEFORE = 60
"""Most characters of a long sentence :func:`first_saying` gives before its saying."""


def first_saying(body: str) -> str | None:
    """The sentence of ``body`` that first says its context lacks what it needs, on one
    line, or ``None``: what a reader fixes, or checks, when the rule fails. A sentence
    longer than :data:`SENTENCE_SHOWN` characters is cut (``…``) to at most
    :data:`SAID_BEFORE` of them before the saying, and to that length. Fenced code is
    read as :func:`says_context_insufficient` reads it: not at all (a code comment "the
    context does not show ..." is no saying)."""
    body = without_fences(body)  # blanked, the same length: a fence is no sentence
    saying = next(sayings_in(body), None)
    if saying is None:
        return None
    start = max(0, saying.start() - SENTENCE_SHOWN)
    # One character past the saying's start, so that a stop's look-ahead sees the word
    # that opens it ("It calls f. The context ..."); only the ends before it count.
    ends = SENTENCE_END.finditer(body, start, saying.start() + 1)
    before = [end.end() for end in ends if end.end() <= saying.start()]
    start = before[-1] if before else start
    end = SENTENCE_END.search(body, saying.end(), saying.end() + SENTENCE_SHOWN)
    stop = saying.end() + SENTENCE_SHOWN
    if end is not None:  # after its stop; before a line break or the heading that ends it
        stop = end.end() if body[end.start()] in ".!?" else end.start()
    lead = ""
    if stop - start > SENTENCE_SHOWN and saying.start() - start > SAID_BEFORE:
        start, lead = saying.start() - SAID_BEFORE, "…"
    sentence = lead + " ".join(body[start:stop].split())
    if len(sentence) > SENTENCE_SHOWN:
        sentence = sentence[: SENTENCE_SHOWN - 1] + "…"
    return sentence


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
