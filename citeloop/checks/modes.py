"""Formatting hygiene and response modes: is an answer well-formed and complete?

:func:`validate_formatting` reports these issues (``details["code"]`` of each problem):

- ``empty``: the text is empty, or only whitespace and invisible format characters
  (zero-width spaces and joiners, direction marks, word joiner, BOM, soft hyphen, CGJ).
  Nothing else is checked then.
- ``unclosed_fence``: a fenced code block (CommonMark §4.5, see
  :func:`~citeloop.checks.json_output.find_code_fences`) is never closed; usually
  the answer was cut off inside it.
- ``unbalanced_backticks``: outside fenced code, a run of backticks with no run of the
  same length after it in the same paragraph (CommonMark §6.1; a backslash-escaped
  backtick opens nothing) that reads as an inline code span left open: it is not
  preceded by a letter or digit (``don`t`` uses it as an apostrophe), it is directly
  followed by a non-blank character (``"uses ` for code"`` shows a backtick), it is not
  a LaTeX opening quote (two backticks closed by ``''`` later on the line), and it would
  swallow the rest of its line: four words or more follow it on that line
  (``"Call `build_index with a root."``). An odd number of fence lines is reported as
  ``unclosed_fence``.
- ``control_characters``: C0/C1 control characters other than tab, line feed and
  carriage return (NUL, ESC, vertical tab, form feed, DEL, U+0080-U+009F).
- ``replacement_characters``: U+FFFD, left where text was lost in decoding.
- ``lone_surrogates``: unpaired UTF-16 surrogates (U+D800-U+DFFF), which cannot be
  encoded as UTF-8.
- ``blank_lines``: outside fenced code, more than ``max_blank_lines`` (default 2)
  consecutive blank lines.

:class:`ResponseMode` bundles checks for :func:`validate_complete`:

- ``SHORT``: formatting, and at most 250 tokens (``max_tokens``; see
  :func:`~citeloop.checks.length.validate_short_response`). Not checked for being
  cut off: a short reply often has no full stop, and one that hit a token limit is long.
- ``LONG``: formatting, at least 500 tokens (``min_tokens``; see
  :func:`~citeloop.checks.length.validate_long_response`), and not cut off.
- ``STANDARD``: formatting and not cut off.
- ``RAW``: only not empty.
- ``STRUCTURED``: one JSON value (see :func:`~citeloop.checks.json_output.validate_json`;
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

Error contract: :func:`validate_formatting` and every mode but ``STRUCTURED`` are signal
checks: they return results and never raise on odd text. ``STRUCTURED`` is a
schema-level check: it raises :class:`~citeloop.errors.ValidationError`. Bad settings
(an unknown mode, a negative limit, a schema outside ``STRUCTURED``) raise
:class:`~citeloop.errors.ConfigurationError`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from citeloop.checks.check import Check, CheckOutcome, OnFail, Problem, failed, require_text
from citeloop.checks.json_output import (
    CodeFence,
    find_code_fences,
    json_check,
    outside_fences,
    validate_json,
    value_problems,
)
from citeloop.checks.length import (
    DEFAULT_LONG_MIN_TOKENS,
    DEFAULT_SHORT_MAX_TOKENS,
    LengthResult,
    Tokenizer,
    estimate_tokens,
    validate_length,
    validate_long_response,
    validate_short_response,
)
from citeloop.checks.structure import compile_schema, validate_with
from citeloop.errors import ConfigurationError, ValidationError
from citeloop.markdown import atx_heading, is_thematic_break, list_item, unquote

_UNUSABLE_VALUE = frozenset({"truncated", "multiple", "non_finite"})
"""The :func:`~citeloop.checks.json_output.value_problems` that make a structured
answer unusable (duplicate keys leave one value per key: the last)."""

DEFAULT_MAX_BLANK_LINES = 2
"""Most consecutive blank lines :func:`validate_formatting` accepts outside code."""


class ResponseMode(StrEnum):
    """What kind of answer is expected; each mode bundles checks (module docstring)."""

    SHORT = "short"
    LONG = "long"
    STRUCTURED = "structured"
    RAW = "raw"
    STANDARD = "standard"


_INVISIBLE = re.compile(r"[\s\u00ad\u034f\u200b-\u200f\u2060-\u2064\ufeff]*+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_BACKTICK_RUN = re.compile(r"`++")
_WORD = re.compile(r"\S++")
_BRACKET = re.compile(r"[()\[\]{}]")
_DANGLING = frozenset(",;:([{-–—")
_EMOTICONS = (":(", ":-(", ";(", ";-(")
_FIXABLE = frozenset({"control_characters", "lone_surrogates", "blank_lines"})
# An unclosed inline code span is a problem when this many words follow it on its line.
_SPAN_MIN_WORDS = 4
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


def _issue(code: str, message: str, expected: str, fix: str, **details: Any) -> Problem:
    return Problem(message, expected, fix, {"code": code, **details})


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def is_blank(text: str) -> bool:
    """Whether ``text`` is empty, or only whitespace and invisible format characters."""
    return _INVISIBLE.fullmatch(text) is not None


# --- formatting -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FormattingResult:
    """What :func:`validate_formatting` found.

    Attributes:
        problems: One :class:`~citeloop.checks.check.Problem` per kind of issue;
            ``details`` holds ``code``, ``count``, and the first one's ``position``
            (offset) and ``line`` (1-based) where there is one.
    """

    problems: tuple[Problem, ...] = ()

    @property
    def passed(self) -> bool:
        """No issue was found."""
        return not self.problems

    @property
    def codes(self) -> tuple[str, ...]:
        """The issues' codes, in the order of the module docstring."""
        return tuple(problem.details["code"] for problem in self.problems)


def _lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of each line of ``text[start:end]`` (split at ``\\n``)."""
    lines, pos = [], start
    while pos < end:
        stop = text.find("\n", pos, end)
        stop = end if stop == -1 else stop
        lines.append((pos, stop))
        pos = stop + 1
    return lines


def _blank_runs(text: str, spans: list[tuple[int, int]], limit: int) -> list[int]:
    """Offsets where a run of more than ``limit`` blank lines starts (outside code)."""
    starts: list[int] = []
    for start, end in spans:
        run, run_start = 0, start
        for line_start, line_end in _lines(text, start, end):
            if text[line_start:line_end].strip():
                run = 0
                continue
            run, run_start = run + 1, line_start if run == 0 else run_start
            if run == limit + 1:
                starts.append(run_start)
    return starts


def _escaped(text: str, position: int) -> bool:
    """Whether an odd number of backslashes comes right before ``position``."""
    index = position - 1
    while index >= 0 and text[index] == "\\":
        index -= 1
    return (position - 1 - index) % 2 == 1


def _backtick_runs(
    text: str, start: int, end: int
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(code spans, unmatched runs) of the backtick runs in ``text[start:end]``.

    A run opens a code span when a later run has exactly its length (CommonMark §6.1);
    the span then ends there. Spans are ``(start, end)`` offsets from the opening run to
    past the closing one; unmatched runs are ``(position, length)``. Per length, a
    pointer moves forward through the runs of that length, so the walk is linear.
    """
    runs = [
        (match.start(), len(match.group())) for match in _BACKTICK_RUN.finditer(text, start, end)
    ]
    by_length: dict[int, list[int]] = {}
    for index, (_, length) in enumerate(runs):
        by_length.setdefault(length, []).append(index)
    pointers: dict[int, int] = {}
    spans: list[tuple[int, int]] = []
    unmatched: list[tuple[int, int]] = []
    index = 0
    while index < len(runs):
        position, length = runs[index]
        if _escaped(text, position):
            # The escaped backtick is literal; the rest of the run may still open.
            position, length = position + 1, length - 1
        candidates = by_length.get(length, [])
        pointer = pointers.get(length, 0)
        while pointer < len(candidates) and candidates[pointer] <= index:
            pointer += 1
        pointers[length] = pointer
        if length and pointer < len(candidates):
            index = candidates[pointer]
            spans.append((position, runs[index][0] + length))
            index += 1
            continue
        if length:
            unmatched.append((position, length))
        index += 1
    return spans, unmatched


def _open_spans(text: str, runs: list[tuple[int, int]]) -> list[int]:
    """Offsets of the unmatched runs (in order) that read as a code span left open.

    See the module docstring. Each line is split into words once, and a run's words are
    counted by bisection, so the whole is linear.
    """
    found: list[int] = []
    line_end = -1
    ends: list[int] = []
    latex_close = -1
    for position, length in runs:
        if position >= line_end:
            line_start = text.rfind("\n", 0, position) + 1
            line_end = text.find("\n", position)
            line_end = len(text) if line_end == -1 else line_end
            ends = [match.end() for match in _WORD.finditer(text, line_start, line_end)]
            latex_close = max(
                text.rfind("''", line_start, line_end), text.rfind("’’", line_start, line_end)
            )
        after = position + length
        if position > 0 and text[position - 1].isalnum():
            continue  # don`t: an apostrophe
        if after >= line_end or text[after].isspace():
            continue  # "uses ` for code": a backtick shown, not a span opened
        if length == 2 and latex_close >= after:
            continue  # ``quotes'': LaTeX
        if len(ends) - bisect_right(ends, after) >= _SPAN_MIN_WORDS:
            found.append(position)
    return found


def _paragraphs(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(start, end) of each run of non-blank lines outside code."""
    paragraphs: list[tuple[int, int]] = []
    for start, end in spans:
        first: int | None = None
        last = start
        for line_start, line_end in _lines(text, start, end):
            if text[line_start:line_end].strip():
                first = line_start if first is None else first
                last = line_end
            elif first is not None:
                paragraphs.append((first, last))
                first = None
        if first is not None:
            paragraphs.append((first, last))
    return paragraphs


def _character_problems(text: str) -> list[Problem]:
    problems: list[Problem] = []
    controls = [match.start() for match in _CONTROL.finditer(text)]
    if controls:
        first = controls[0]
        problems.append(
            _issue(
                "control_characters",
                f"the response contains {len(controls)} control character(s), the first "
                f"U+{ord(text[first]):04X} at line {_line_of(text, first)}",
                "plain text without control characters",
                "Remove the control characters.",
                count=len(controls),
                position=first,
                line=_line_of(text, first),
            )
        )
    replacements = text.count("\ufffd")
    if replacements:
        first = text.find("\ufffd")
        problems.append(
            _issue(
                "replacement_characters",
                f"the response contains {replacements} U+FFFD replacement character(s) "
                f"(text lost in decoding), the first at line {_line_of(text, first)}",
                "text without U+FFFD replacement characters",
                "Rewrite the garbled parts in full.",
                count=replacements,
                position=first,
                line=_line_of(text, first),
            )
        )
    surrogates = [match.start() for match in _SURROGATE.finditer(text)]
    if surrogates:
        first = surrogates[0]
        problems.append(
            _issue(
                "lone_surrogates",
                f"the response contains {len(surrogates)} unpaired surrogate code point(s), "
                f"the first at line {_line_of(text, first)}",
                "valid Unicode text",
                "Rewrite the characters that were garbled.",
                count=len(surrogates),
                position=first,
                line=_line_of(text, first),
            )
        )
    return problems


def _max_blank_lines(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(f"max_blank_lines must be a non-negative int, got {value!r}")
    return value


def _empty_problem() -> Problem:
    return _issue("empty", "the response is empty", "a non-empty answer", "Write the answer.")


def validate_formatting(
    text: str, *, max_blank_lines: int = DEFAULT_MAX_BLANK_LINES
) -> FormattingResult:
    """Check the formatting hygiene of an answer (rules in the module docstring).

    One pass over the lines and one regex pass per character rule: linear in the text.

    Args:
        text: Any text.
        max_blank_lines: Most consecutive blank lines allowed outside code.

    Returns:
        A :class:`FormattingResult`; it never raises on odd text.

    Raises:
        ConfigurationError: ``text`` is not a str, or ``max_blank_lines`` is negative.

    Example:
        >>> validate_formatting("Use `x and close it.\\n\\n```python\\nprint(1)\\n").codes
        ('unclosed_fence', 'unbalanced_backticks')
    """
    text = require_text(text)
    limit = _max_blank_lines(max_blank_lines)
    if is_blank(text):
        return FormattingResult((_empty_problem(),))
    problems: list[Problem] = []
    fences = find_code_fences(text)
    if fences and not fences[-1].closed:
        fence = fences[-1]
        line = _line_of(text, fence.start)
        problems.append(
            _issue(
                "unclosed_fence",
                f"the code block opened with {fence.marker} at line {line} is never closed "
                "(the answer may have been cut off)",
                "every code block closed by a matching fence line",
                f"Close the code block with {fence.marker} on its own line, and finish the "
                "answer if it was cut off.",
                count=1,
                position=fence.start,
                line=line,
            )
        )
    spans = outside_fences(text, fences)
    unmatched = [
        position
        for start, end in _paragraphs(text, spans)
        for position in _open_spans(text, _backtick_runs(text, start, end)[1])
    ]
    if unmatched:
        line = _line_of(text, unmatched[0])
        problems.append(
            _issue(
                "unbalanced_backticks",
                f"{len(unmatched)} inline-code backtick run(s) are never closed, the first "
                f"at line {line}",
                "inline code wrapped in matching backticks (`code`)",
                "Close each inline code span with as many backticks as opened it.",
                count=len(unmatched),
                position=unmatched[0],
                line=line,
            )
        )
    problems.extend(_character_problems(text))
    runs = _blank_runs(text, spans, limit)
    if runs:
        line = _line_of(text, runs[0])
        problems.append(
            _issue(
                "blank_lines",
                f"{len(runs)} run(s) of more than {limit} blank lines, the first at line {line}",
                f"at most {limit} consecutive blank lines",
                "Remove the extra blank lines.",
                count=len(runs),
                position=runs[0],
                line=line,
            )
        )
    return FormattingResult(tuple(problems))


def _collapse_blank_lines(text: str, limit: int) -> str:
    pieces: list[str] = []
    last = 0
    for start, end in outside_fences(text, find_code_fences(text)):
        pieces.append(text[last:start])
        kept: list[str] = []
        run = 0
        for line in text[start:end].split("\n"):
            run = run + 1 if not line.strip() else 0
            if run <= limit:
                kept.append(line)
        pieces.append("\n".join(kept))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def fix_formatting(text: str, *, max_blank_lines: int = DEFAULT_MAX_BLANK_LINES) -> str:
    """``text`` without control characters and lone surrogates, and with runs of blank
    lines outside code cut to ``max_blank_lines``. Nothing else changes.

    Example:
        >>> fix_formatting("a\\x00b\\n\\n\\n\\n\\nc")
        'ab\\n\\n\\nc'
    """
    text = _SURROGATE.sub("", _CONTROL.sub("", require_text(text)))
    return _collapse_blank_lines(text, _max_blank_lines(max_blank_lines))


def _fixed(text: str, problems: tuple[Problem, ...], max_blank_lines: int) -> str | None:
    """The fixed text when every problem is fixable and the fix passes, else ``None``."""
    codes = {problem.details.get("code") for problem in problems}
    if not codes or not codes <= _FIXABLE:
        return None
    fixed = fix_formatting(text, max_blank_lines=max_blank_lines)
    # Removing characters can leave nothing, or join two backtick runs into one.
    if not validate_formatting(fixed, max_blank_lines=max_blank_lines).passed:
        return None
    return fixed


def formatting_check(
    *,
    max_blank_lines: int = DEFAULT_MAX_BLANK_LINES,
    on_fail: OnFail | str = "reask",
    name: str = "formatting",
) -> Check:
    """A :class:`Check` of :func:`validate_formatting`.

    ``fixed`` is offered when every issue can be fixed without guessing and the fixed
    text passes: control characters and lone surrogates are removed and extra blank
    lines dropped (:func:`fix_formatting`). An unclosed fence, unmatched backticks or
    U+FFFD need the model: closing a cut-off block would hide that text is missing.

    Args:
        max_blank_lines: Most consecutive blank lines allowed outside code.
        on_fail: The failure policy.
        name: The check's name.

    Returns:
        The check.

    Raises:
        ConfigurationError: A negative ``max_blank_lines`` or an unknown policy.

    Example:
        >>> formatting_check(on_fail="fix")("Done.\\x00").fixed
        'Done.'
    """
    limit = _max_blank_lines(max_blank_lines)

    def check_formatting(text: str) -> CheckOutcome:
        result = validate_formatting(text, max_blank_lines=limit)
        if result.passed:
            return CheckOutcome(name, True, value=result)
        fixed = _fixed(text, result.problems, limit)
        return failed(name, result.problems, fixed=fixed, value=result)

    return Check(name, check_formatting, on_fail)


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
    skipped = _backtick_runs(text, start, end)[0]
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
    return _issue(
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
        return _issue(
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
    """What :func:`validate_complete` found.

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


def validate_complete(
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
        max_tokens: The ceiling of mode ``SHORT`` (default 250), or of ``LONG`` (none).
        tokenizer: Optional tokenizer for the token counts.

    Returns:
        A :class:`CompletenessResult`. Every mode but ``STRUCTURED`` returns one for any
        text; ``STRUCTURED`` returns one only when it passes.

    Raises:
        ValidationError: Mode ``STRUCTURED`` only: no JSON (see
            :func:`~citeloop.checks.json_output.validate_json`), JSON that was cut
            off (``reason="truncated"``), an answer holding more than one JSON value
            (``reason="multiple"``), a value holding ``NaN`` or an infinite number
            (``reason="non_finite"``), or JSON that does not match ``schema``
            (``reason="schema"``, with every failing path in ``errors``).
        ConfigurationError: An unknown mode, a schema outside ``STRUCTURED``, a token
            bound the mode does not use, or an invalid schema.

    Example:
        >>> validate_complete("Paris is the capital. It is also the largest city of").codes
        ('truncated',)
        >>> validate_complete("Paris is the capital. It lies on the Seine [1]").codes
        ()
        >>> validate_complete('{"a": 1}', "structured").value
        {'a': 1}
    """
    mode = _settings(mode, schema, min_tokens, max_tokens)
    if mode is ResponseMode.STRUCTURED:
        # A bad schema is the caller's error, whatever the text: compiled first.
        validator = compile_schema(schema) if schema is not None else None
        found = validate_json(text)
        for problem in value_problems(found):
            if problem.details["reason"] in _UNUSABLE_VALUE:
                raise ValidationError(problem.message, **problem.details)
        if validator is not None:
            validate_with(validator, found.value)
        return CompletenessResult(mode, True, value=found.value)
    text = require_text(text)
    if is_blank(text):
        return CompletenessResult(mode, False, (_empty_problem(),))
    if mode is ResponseMode.RAW:
        return CompletenessResult(mode, True)
    problems = list(validate_formatting(text).problems)
    length: LengthResult | None = None
    if mode is ResponseMode.SHORT:
        ceiling = DEFAULT_SHORT_MAX_TOKENS if max_tokens is None else max_tokens
        length = validate_short_response(text, ceiling, tokenizer=tokenizer)
    elif mode is ResponseMode.LONG:
        floor = DEFAULT_LONG_MIN_TOKENS if min_tokens is None else min_tokens
        length = validate_long_response(text, floor, max_tokens=max_tokens, tokenizer=tokenizer)
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
    """A :class:`Check` of :func:`validate_complete` for one mode.

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
        validate_length("", max_tokens=max_tokens)
    elif mode is ResponseMode.LONG:
        validate_length("", min_tokens=min_tokens, max_tokens=max_tokens)
    if tokenizer is not None:
        estimate_tokens("", tokenizer)

    def check_complete(text: str) -> CheckOutcome:
        result = validate_complete(
            text, mode, min_tokens=min_tokens, max_tokens=max_tokens, tokenizer=tokenizer
        )
        if result.passed:
            return CheckOutcome(name, True, value=result)
        fixed = _fixed(text, result.problems, DEFAULT_MAX_BLANK_LINES)
        return failed(name, result.problems, fixed=fixed, value=result)

    return Check(name, check_complete, on_fail)
