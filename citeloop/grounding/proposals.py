"""The new names an answer proposes in its prose: code that does not exist yet.

A refactoring or design answer names what it would add: "keep the old `test_1` next to
a new `test_1_cases`", "rename `run` to `run_once`", "add a `timeout` parameter". Such a
name is in no context and no graph, and it claims nothing of the code base; failing it
as invented code (:func:`~citeloop.grounding.substance.ungrounded_names`) had a played
answer drop its proposal on the retry. A name is *proposed* when the prose right before
its code span, in the same sentence, says so:

- ``new``, ``proposed``, ``hypothetical`` or ``introduce`` among the last three words
  (five when the last is ``called`` or ``named``: "a new test function called `X`"),
  with no code span between, nor a word that ties the span to another noun
  (:data:`_LINKS`: "a new test for `X`", "a new subclass of `X`" name the code base's
  `X`); ``new`` right after ``a``/``an`` or a verb of adding: "a new `X`", "a new
  private helper `X`", "add new `X` helpers", "introduce `Retry`", not "the new API
  exposes `X`"; and not after a verb that says what the code does or did, its
  third-person or past form (:func:`_does`): "`send` creates a new `X`",
  "it returns a new `X`", "`Session` has a new `X`" claim the code base's class `X`;
- ``to`` or ``into`` last, after ``rename``, ``extract`` or ``factor`` (or their
  ``-ing`` form) with no ``and``/``or``/``then``/``but`` between (:func:`_moves`), in
  the sentence's last seven words: "rename `run` to `run_once`", "renaming the `run`
  method to `X`", "extract the check into `X`", or after ``be renamed``/``be
  extracted``/``be factored``: "it should be renamed to `X`"; not "it was renamed to
  `X`", "the migration renames `a` to `X`" (a rename done, or one the code does: `X` is
  the code base's name), "rename it and pass it to `X`";
- a verb of adding (``add``, ``create``, ``define``, ``extract``, ``introduce``,
  ``write``) and ``a`` or ``an``, then at most one word: "add a `timeout` parameter".

A span whose next word says the code uses its name (:data:`_USES`: "add a `close()`
call", "a new `Session` object", "create a `Session` instance") is not proposed: the
name is the code base's.

Only a name nothing else grounds is spared by this (a proposed name the graph has is
still the graph's, to bring in: "wrap it in a new `Variable`"); fenced code defines its own
names (:func:`~citeloop.grounding.mentions.defined_in_code`). One pass over the words
and code spans: linear.
"""

from __future__ import annotations

import re
from collections import deque

from citeloop.grounding.mentions import code_pieces

_CUES = frozenset({"proposed", "hypothetical", "introduce"})
_NAMING = frozenset({"called", "named"})
_MOVING = frozenset({"rename", "renaming", "extract", "extracting", "factor", "factoring"})
_MOVED = frozenset({"renamed", "extracted", "factored"})
_TO = frozenset({"to", "into"})
_CONJUNCTIONS = frozenset({"and", "or", "then", "but"})
_ADD = frozenset({"add", "create", "define", "extract", "introduce", "write"})
_ARTICLES = frozenset({"a", "an"})
_LINKS = frozenset(
    {"about", "as", "at", "by", "for", "from", "in", "into", "like", "of", "on", "onto"}
    | {"over", "per", "than", "that", "to", "under", "via", "where", "which", "with"}
)
"""Words after which a span is another noun's, not the one a cue opens."""
_NOT_VERBS = frozenset(
    {"as", "besides", "perhaps", "plus", "thus", "unless", "whereas"}
    | {"need", "needs", "requires", "indeed", "instead"}
)
"""Words ending like a verb's third-person or past form that say nothing the code does."""
_USES = frozenset({"call", "calls", "check", "import", "instance", "instances", "object"})
"""Words after a span that say the code uses its name, so has it: "add a `close()`
call", "a new `Session` object"."""
_SPAN = "`"
"""A code span among the sentence's words."""
_WINDOW = 7
"""The words (and spans) of the sentence kept before a code span: the longest cue's
("needs a new private test function called `X`"), a rename's reach."""
_WORD = re.compile(r"\b(?:[Ee]\.[Gg]|[Ii]\.[Ee])\.|[A-Za-z]+|[.!?;:\n]")
"""A word, ``e.g.`` or ``i.e.`` (neither a word of the sentence nor its end: "a
*proposed* helper, e.g. `_describe_operand`"), or the end of a sentence, clause or
line: fixed alternatives, linear."""
_ABBREVIATIONS = frozenset({"e.g.", "i.e."})
_NAME = re.compile(r"[^\W\d][\w.]*")
"""A code span's leading name, dotted or not (`` `Session.retry_once()` ``)."""
_KEYWORDS = ("class ", "def ", "async def ")


def proposed_names(text: str) -> frozenset[str]:
    """The names ``text`` proposes as new code (see the module docstring), as written
    in their code spans without a call's brackets (``"Session.retry_once"``).

    Example:
        >>> sorted(proposed_names("Keep `test_1` next to a new `test_1_cases`."))
        ['test_1_cases']
        >>> sorted(proposed_names("Rename `run` to `run_once` and add a `timeout` flag."))
        ['run_once', 'timeout']
    """
    if "`" not in text:
        return frozenset()
    names: set[str] = set()
    before: deque[str] = deque(maxlen=_WINDOW)  # the sentence's last words and spans
    proposed = ""  # the last span's name, if proposed, until the next word keeps it
    for segment, kind in code_pieces(text):
        if kind == "text":
            for match in _WORD.finditer(segment):
                word = match.group().lower()
                if word not in _USES:  # not "add a `close()` call": `close` exists
                    names.add(proposed)
                proposed = ""
                if word in _ABBREVIATIONS:
                    continue
                if word in ".!?;:\n":
                    before.clear()
                else:
                    before.append(word)
            continue
        names.add(proposed)
        proposed = ""
        if kind == "fence":
            before.clear()
        else:
            proposed = _span_name(segment) if _proposes(list(before)) else ""
            before.append(_SPAN)
    names.add(proposed)
    names.discard("")
    return frozenset(names)


def _proposes(before: list[str]) -> bool:
    """Whether the words (and spans) before a code span, in its sentence, propose it."""
    words: list[str] = []  # the words after the last span, last first
    for word in reversed(before):
        if word == _SPAN:
            break
        words.append(word)
    reach = 5 if words[:1] and words[0] in _NAMING else 3
    for at, word in enumerate(words[:reach]):
        if word in _LINKS:
            break  # "a new test for `parse`": `parse` is not what is new
        if word in _CUES:
            return True
        # "a new `X`", "add new `X` helpers"; not "the new API exposes `X`", nor "it
        # creates a new `X`" (the code base's class `X`)
        opener, verb = [*words[at + 1 : at + 3], "", ""][:2]
        if word == "new" and (opener in _ADD or (opener in _ARTICLES and not _does(verb))):
            return True
    if _TO.intersection(words[:1]) and _moves(before):
        return True
    # a verb of adding, an article, and at most one word: "add a `timeout` parameter"
    return any(
        words[at] in _ARTICLES and words[at + 1 : at + 2] and words[at + 1] in _ADD
        for at in (0, 1)
        if at < len(words)
    )


def _moves(before: list[str]) -> bool:
    """Whether the ``to`` or ``into`` that ends ``before`` is a proposed rename's or
    extraction's (see the module docstring)."""
    for at in range(len(before) - 2, -1, -1):
        word = before[at]
        if word in _CONJUNCTIONS:
            return False  # "rename it and pass it to `X`"
        if word in _MOVING:
            return True
        if word in _MOVED:
            return before[at - 1 : at] == ["be"]  # "should be renamed", not "was renamed"
    return False


def _does(verb: str) -> bool:
    """Whether a word right before "a new" is a verb's third-person or past form
    ("creates", "returns", "has", "is", "used"), not a proposal's ("add", "need")."""
    third_person = verb.endswith("s") and not verb.endswith("ss")
    return (third_person or verb.endswith("ed")) and verb not in _NOT_VERBS


def _span_name(code: str) -> str:
    """The name a code span writes first (after ``class``/``def``), without a trailing
    dot: ``"class Retry(Base)"`` gives ``"Retry"``."""
    code = code.strip()
    for keyword in _KEYWORDS:
        if code.startswith(keyword):
            code = code[len(keyword) :].lstrip()
            break
    match = _NAME.match(code)
    return match.group().rstrip(".") if match else ""
