"""Response modes: is an answer complete, in the shape its mode asks for?

Formatting hygiene (:func:`formatting_result`) is in :mod:`citeloop.checks.formatting`.


:class:`ResponseMode` bundles checks for :func:`completeness_result`:

- ``SHORT``: formatting, and at most 150 tokens (``max_tokens``; see
  :func:`~citeloop.checks.length.short_response_result`). Not checked for being
  cut off: a short reply often has no full stop, and one that hit a token limit is long.
- ``LONG``: formatting, at least 500 tokens (``min_tokens``; see
  :func:`~citeloop.checks.length.long_response_result`), and not cut off.
- ``STANDARD``: formatting and not cut off.
- ``RAW``: only not empty.
- ``STRUCTURED``: one JSON value (see :func:`~citeloop.checks.json_output.extract_json`;
  an object, an array, or a whole answer that is one scalar such as ``42``) that is
  not cut off, is the only JSON value of the answer, holds no ``NaN`` or infinite
  number and, with ``schema``, matches it. Its check is
  :func:`~citeloop.checks.json_output.json_check`: JSON in a fence or a little
  prose is fixed; JSON in longer prose, several values or repeated keys are asked again.

"Cut off" (code ``truncated``) is reported only on strong signals, read from the last
line outside code (blockquote markers and a list marker removed):

- the line is a heading with nothing under it;
- it ends with a character no sentence ends with: ``,`` ``;`` ``:`` ``(`` ``[`` ``{``,
  or a dangling connector ``-`` ``–`` ``—`` (``":("`` and ``":-("`` are emoticons);
- a bracket or parenthesis opened in that line is never closed (``"(see Table"``);
  brackets inside inline code spans and URLs do not count, any closer closes the last
  opener (``"[0, 1)"`` is an interval), and a ``(`` right after ``:`` or ``;`` is an
  emoticon;
- the line has three words or more and its last word (as written: ``"the."`` is a
  finished sentence) is one that cannot end an English sentence, in any case:
  :data:`CUT_OFF_WORDS`, the articles, coordinating and subordinating conjunctions,
  ``of``, ``as``, ``than``, ``including`` and the possessive determiners. A capital
  ``A`` is a label (``"plan A"``), not the article. Prepositions that English strands
  (``to``, ``for``, ``with``, ``from``, ``in``, ``on``, ``at``, ``by``, ``about``,
  ``into``, ``between``: ``"the one I was telling you about"``, ``"if you'd like me
  to"``) and pronouns or adverbs (``that``, ``which``, ``when``, ``where``, ``while``,
  ``such``) are not in the list: they end sentences too often.

An answer cut inside a code block is reported as ``unclosed_fence``. Nothing else is
read as a cut: a last line without a full stop that ends in a word, a number, a URL, a
citation or footnote marker (``[1]``, ``[1][2]``, ``[^2]``), a closing ``)`` ``]``
``}`` or ``->`` is a finished answer (signatures, reference entries, list items,
closing offers, other languages). Every rule reads the last line once: linear.

Error contract: :func:`formatting_result` and every mode but ``STRUCTURED`` are signal
checks: they return results and never raise on odd text. ``STRUCTURED`` is a
schema-level check: it raises :class:`~citeloop.errors.ValidationError`. Bad settings
(an unknown mode, a negative limit, a schema outside ``STRUCTURED``) raise
:class:`~citeloop.errors.ConfigurationError`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from citeloop.checks.check import Check, CheckOutcome, OnFail, Problem, failed, require_text
from citeloop.checks.fences import CodeFence, find_code_fences
from citeloop.checks.formatting import (
    DEFAULT_MAX_BLANK_LINES,
    backtick_runs,
    empty_problem,
    fixed_formatting,
    format_issue,
    formatting_result,
    is_blank,
)
from citeloop.checks.json_output import (
    extract_json,
    json_check,
    value_problems,
)
from citeloop.checks.length import (
    DEFAULT_LONG_MIN_TOKENS,
    DEFAULT_SHORT_MAX_TOKENS,
    LengthResult,
    Tokenizer,
    estimate_tokens,
    length_result,
    long_response_result,
    short_response_result,
)
from citeloop.checks.schema import compile_schema, validate_with
from citeloop.errors import ConfigurationError, ValidationError
from citeloop.markdown import atx_heading, is_thematic_break, list_item, unquote

_UNUSABLE_VALUE = frozenset({"truncated", "multiple", "non_finite"})
"""The :func:`~citeloop.checks.json_output.value_problems` that make a structured
answer unusable (duplicate keys leave one value per key: the last)."""


class ResponseMode(StrEnum):
    """What kind of answer is expected; each mode bundles checks (module docstring)."""

    SHORT = "short"
    LONG = "long"
    STRUCTURED = "structured"
    RAW = "raw"
    STANDARD = "standard"


_WORD = re.compile(r"\S++")
_BRACKET = re.compile(r"[()\[\]{}]")
_DANGLING = frozenset(",;:([{-–—")
_EMOTICONS = (":(", ":-(", ";(", ";-(")
# The function-word rule reads lines of at least this many words.
_CUT_OFF_MIN_WORDS = 3

CUT_OFF_WORDS = frozenset(
    {
        # articles and possessive determiners: a noun must follow
        "a",
        "an",
        "the",
        "my",
        "your",
        "its",
        "our",
        "their",
        # coordinating conjunctions: a second conjunct must follow
        "and",
        "or",
        "nor",
        "but",
        # subordinating conjunctions and relatives that take a clause
        "because",
        "although",
        "unless",
        "whereas",
        "whether",
        "if",
        "than",
        "whose",
        # prepositions English does not strand
        "of",
        "as",
        "including",
    }
)
"""Words that cannot end an English sentence (compared in lower case; see the module
docstring for the rule and for the words left out on purpose)."""


# --- formatting -----------------------------------------------------------------------

# --- completeness ---------------------------------------------------------------------


def _after_emoticon_eyes(text: str, start: int, position: int) -> bool:
    """Whether ``:``, ``;``, ``:-`` or ``;-`` comes right before ``position``."""
    before = text[max(start, position - 2) : position].rstrip("-")
    return before[-1:] in (":", ";")


def _unclosed_bracket(text: str, start: int, end: int) -> int | None:
    """Offset of the first bracket opened in ``text[start:end]`` and never closed.

    Brackets in inline code spans and in URLs are skipped; any closer closes the last
    opener (``[0, 1)``); a ``(`` right after ``:`` or ``;`` (``:(``, ``:-(``) is an
    emoticon. One pass over the line.
    """
    skipped = backtick_runs(text, start, end)[0]
    skipped += [
        (match.start(), match.end())
        for match in _WORD.finditer(text, start, end)
        if "://" in match.group()
    ]
    skipped.sort()
    stack: list[int] = []
    index, skip_end = 0, -1
    for match in _BRACKET.finditer(text, start, end):
        position = match.start()
        while index < len(skipped) and skipped[index][0] <= position:
            skip_end = max(skip_end, skipped[index][1])
            index += 1
        if position < skip_end:
            continue
        char = match.group()
        if char in ")]}":
            if stack:
                stack.pop()
        elif char != "(" or not _after_emoticon_eyes(text, start, position):
            stack.append(position)
    return stack[0] if stack else None


def _cut_off_problem(message: str, position: int) -> Problem:
    return format_issue(
        "truncated",
        message,
        "a complete answer that ends with a finished sentence",
        "Finish the last sentence; if the answer is long, make it shorter so it fits.",
        position=position,
    )


def _cut_off(text: str, fences: list[CodeFence]) -> Problem | None:
    """The ``truncated`` problem when the answer ends mid-sentence (module docstring)."""
    if fences and (not fences[-1].closed or not text[fences[-1].end :].strip()):
        return None  # cut inside a code block (unclosed_fence), or it ends with one
    body = text.rstrip()
    line_start = body.rfind("\n") + 1
    line = unquote(body[line_start:]).strip()
    if not line or is_thematic_break(line) or line[0] in "|<":
        return None
    heading = atx_heading(line)
    if heading is not None:
        return format_issue(
            "truncated",
            f"the response ends with the heading {line!r} and nothing under it",
            "a complete answer",
            "Write the section under the last heading, or remove the heading.",
            position=line_start,
        )
    item = list_item(line)
    content = line if item is None else item
    if not content:
        return None
    tail = f"…{content[-60:]!r}"
    if content[-1] in _DANGLING and not content.endswith(_EMOTICONS):
        return _cut_off_problem(
            f"the response ends mid-sentence, with {content[-1]!r}: {tail}", line_start
        )
    opened = _unclosed_bracket(content, 0, len(content))
    if opened is not None:
        return _cut_off_problem(
            f"the response ends mid-sentence: the {content[opened]!r} opened in its last "
            f"line is never closed: {tail}",
            line_start,
        )
    words = content.split()
    last = words[-1]
    if len(words) >= _CUT_OFF_MIN_WORDS and last != "A" and last.lower() in CUT_OFF_WORDS:
        return _cut_off_problem(
            f"the response ends mid-sentence, with the word {last!r}: {tail}", line_start
        )
    return None


@dataclass(frozen=True, slots=True)
class CompletenessResult:
    """What :func:`completeness_result` found.

    Attributes:
        mode: The mode checked.
        passed: No problem was found.
        problems: The problems (``details["code"]``: a formatting code, ``"empty"``,
            ``"too_long"``, ``"too_short"`` or ``"truncated"``).
        length: The length measured (modes ``SHORT`` and ``LONG``), else ``None``.
        value: The parsed JSON (mode ``STRUCTURED``), else ``None``.
    """

    mode: ResponseMode
    passed: bool
    problems: tuple[Problem, ...] = ()
    length: LengthResult | None = None
    value: Any = None

    @property
    def codes(self) -> tuple[str, ...]:
        """The problems' codes."""
        return tuple(problem.details.get("code", "") for problem in self.problems)


def response_mode(mode: ResponseMode | str) -> ResponseMode:
    """``mode`` as a :class:`ResponseMode` (names and values, any case).

    Raises:
        ConfigurationError: An unknown mode.
    """
    if isinstance(mode, str):
        try:
            return ResponseMode(mode.strip().lower())
        except ValueError:
            pass
    choices = ", ".join(repr(member.value) for member in ResponseMode)
    raise ConfigurationError(f"mode must be one of {choices}; got {mode!r}")


def _settings(
    mode: ResponseMode | str,
    schema: Mapping[str, Any] | bool | None,
    min_tokens: int | None,
    max_tokens: int | None,
) -> ResponseMode:
    mode = response_mode(mode)
    if schema is not None and mode is not ResponseMode.STRUCTURED:
        raise ConfigurationError(
            f"a schema is checked only in mode 'structured', not {mode.value!r}; "
            "set mode='structured' or drop the schema"
        )
    if min_tokens is not None and mode is not ResponseMode.LONG:
        raise ConfigurationError(f"min_tokens applies to mode 'long' only, not {mode.value!r}")
    if max_tokens is not None and mode not in (ResponseMode.SHORT, ResponseMode.LONG):
        raise ConfigurationError(
            f"max_tokens applies to modes 'short' and 'long' only, not {mode.value!r}"
        )
    return mode


def completeness_result(
    text: str,
    mode: ResponseMode | str = ResponseMode.STANDARD,
    schema: Mapping[str, Any] | bool | None = None,
    *,
    min_tokens: int | None = None,
    max_tokens: int | None = None,
    tokenizer: Tokenizer | None = None,
) -> CompletenessResult:
    """Check that an answer is complete for its mode (see the module docstring).

    Args:
        text: The answer.
        mode: A :class:`ResponseMode` or its value (``"short"``, ...).
        schema: JSON Schema the value must match (mode ``STRUCTURED`` only).
        min_tokens: The floor of mode ``LONG`` (default 500).
        max_tokens: The ceiling of mode ``SHORT`` (default 150), or of ``LONG`` (none).
        tokenizer: Optional tokenizer for the token counts.

    Returns:
        A :class:`CompletenessResult`. Every mode but ``STRUCTURED`` returns one for any
        text; ``STRUCTURED`` returns one only when it passes.

    Raises:
        ValidationError: Mode ``STRUCTURED`` only: no JSON (see
            :func:`~citeloop.checks.json_output.extract_json`), JSON that was cut
            off (``reason="truncated"``), an answer holding more than one JSON value
            (``reason="multiple"``), a value holding ``NaN`` or an infinite number
            (``reason="non_finite"``), or JSON that does not match ``schema``
            (``reason="schema"``, with every failing path in ``errors``).
        ConfigurationError: An unknown mode, a schema outside ``STRUCTURED``, a token
            bound the mode does not use, or an invalid schema.

    Example:
        >>> completeness_result("Paris is the capital. It is also the largest city of").codes
        ('truncated',)
        >>> completeness_result("Paris is the capital. It lies on the Seine [1]").codes
        ()
        >>> completeness_result('{"a": 1}', "structured").value
        {'a': 1}
    """
    mode = _settings(mode, schema, min_tokens, max_tokens)
    if mode is ResponseMode.STRUCTURED:
        # A bad schema is the caller's error, whatever the text: compiled first.
        validator = compile_schema(schema) if schema is not None else None
        found = extract_json(text)
        for problem in value_problems(found):
            if problem.details["reason"] in _UNUSABLE_VALUE:
                raise ValidationError(problem.message, **problem.details)
        if validator is not None:
            validate_with(validator, found.value)
        return CompletenessResult(mode, True, value=found.value)
    text = require_text(text)
    if is_blank(text):
        return CompletenessResult(mode, False, (empty_problem(),))
    if mode is ResponseMode.RAW:
        return CompletenessResult(mode, True)
    problems = list(formatting_result(text).problems)
    length: LengthResult | None = None
    if mode is ResponseMode.SHORT:
        ceiling = DEFAULT_SHORT_MAX_TOKENS if max_tokens is None else max_tokens
        length = short_response_result(text, ceiling, tokenizer=tokenizer)
    elif mode is ResponseMode.LONG:
        floor = DEFAULT_LONG_MIN_TOKENS if min_tokens is None else min_tokens
        length = long_response_result(text, floor, max_tokens=max_tokens, tokenizer=tokenizer)
    if length is not None:
        problems.extend(length.problems)
    if mode is not ResponseMode.SHORT:
        cut = _cut_off(text, find_code_fences(text))
        if cut is not None:
            problems.append(cut)
    return CompletenessResult(mode, not problems, tuple(problems), length)


def complete_check(
    mode: ResponseMode | str = ResponseMode.STANDARD,
    schema: Mapping[str, Any] | bool | None = None,
    on_fail: OnFail | str = "fix_reask",
    *,
    min_tokens: int | None = None,
    max_tokens: int | None = None,
    tokenizer: Tokenizer | None = None,
    name: str = "complete",
) -> Check:
    """A :class:`Check` of :func:`completeness_result` for one mode.

    In mode ``STRUCTURED`` it is :func:`~citeloop.checks.json_check`: the output
    must be the JSON value alone, and JSON wrapped in a fence or a little prose, or
    repaired, fails with ``fixed`` set to the JSON. That is why the default policy is
    ``fix_reask``: such output is fixed without asking the model again, and every other
    failure (which offers no fix, or a fix that does not pass) is asked again: JSON in
    long prose, an answer with several JSON values, repeated keys, non-finite numbers,
    a cut-off value, a schema mismatch, and prose with no JSON (a citation ``[1]`` or
    an interval ``[0, 1]`` in a sentence is not JSON). In the
    other modes ``fixed`` is offered when every problem is a fixable formatting one
    (see :func:`formatting_check`).

    Args:
        mode: A :class:`ResponseMode` or its value.
        schema: JSON Schema (mode ``STRUCTURED`` only); checked once, here.
        on_fail: The failure policy (default ``"fix_reask"``).
        min_tokens: The floor of mode ``LONG``.
        max_tokens: The ceiling of mode ``SHORT`` or ``LONG``.
        tokenizer: Optional tokenizer.
        name: The check's name.

    Returns:
        The check; ``outcome.value`` is the :class:`CompletenessResult` (the parsed JSON
        in mode ``STRUCTURED``).

    Raises:
        ConfigurationError: Bad mode, schema, bounds, tokenizer or policy (at once).

    Example:
        >>> complete_check("short", max_tokens=2)("One two three four five.").passed
        False
    """
    mode = _settings(mode, schema, min_tokens, max_tokens)
    if mode is ResponseMode.STRUCTURED:
        return json_check(schema, on_fail, name=name)
    # Check the bounds and the tokenizer now, not on the first output.
    if mode is ResponseMode.SHORT:
        length_result("", max_tokens=max_tokens)
    elif mode is ResponseMode.LONG:
        length_result("", min_tokens=min_tokens, max_tokens=max_tokens)
    if tokenizer is not None:
        estimate_tokens("", tokenizer)

    def check_complete(text: str) -> CheckOutcome:
        result = completeness_result(
            text, mode, min_tokens=min_tokens, max_tokens=max_tokens, tokenizer=tokenizer
        )
        if result.passed:
            return CheckOutcome(name, True, value=result)
        fixed = fixed_formatting(text, result.problems, DEFAULT_MAX_BLANK_LINES)
        return failed(name, result.problems, fixed=fixed, value=result)

    return Check(name, check_complete, on_fail)
