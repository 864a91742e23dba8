"""Formatting hygiene: is an answer well-formed?

:func:`formatting_result` reports these issues (``details["code"]`` of each problem):

- ``empty``: the text is empty, or only whitespace and invisible format characters
  (zero-width spaces and joiners, direction marks, word joiner, BOM, soft hyphen, CGJ).
  Nothing else is checked then.
- ``unclosed_fence``: a fenced code block (CommonMark §4.5, see
  :func:`~citeloop.checks.fences.find_code_fences`) is never closed; usually
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
- With ``style=True``: ``repeated_punctuation`` and ``double_spaces`` in prose
  (:mod:`citeloop.checks.style`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from citeloop.checks.check import Check, CheckOutcome, OnFail, Problem, failed, require_text
from citeloop.checks.fences import find_code_fences, outside_fences
from citeloop.checks.style import style_problems
from citeloop.errors import ConfigurationError

DEFAULT_MAX_BLANK_LINES = 2
"""Most consecutive blank lines :func:`formatting_result` accepts outside code."""

_WORD = re.compile(r"\S++")
_INVISIBLE = re.compile(r"[\s\u00ad\u034f\u200b-\u200f\u2060-\u2064\ufeff]*+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_BACKTICK_RUN = re.compile(r"`++")
_FIXABLE = frozenset({"control_characters", "lone_surrogates", "blank_lines"})
# An unclosed inline code span is a problem when this many words follow it on its line.
_SPAN_MIN_WORDS = 4


def format_issue(code: str, message: str, expected: str, fix: str, **details: Any) -> Problem:
    """A :class:`Problem` whose ``details["code"]`` is ``code`` (see the module docstring)."""
    return Problem(message, expected, fix, {"code": code, **details})


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def is_blank(text: str) -> bool:
    """Whether ``text`` is empty, or only whitespace and invisible format characters."""
    return _INVISIBLE.fullmatch(text) is not None


@dataclass(frozen=True, slots=True)
class FormattingResult:
    """What :func:`formatting_result` found.

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


def backtick_runs(
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
            format_issue(
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
            format_issue(
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
            format_issue(
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


def empty_problem() -> Problem:
    """The ``empty`` problem: the text holds nothing visible."""
    return format_issue("empty", "the response is empty", "a non-empty answer", "Write the answer.")


def formatting_result(
    text: str, *, max_blank_lines: int = DEFAULT_MAX_BLANK_LINES, style: bool = False
) -> FormattingResult:
    """Check the formatting hygiene of an answer (rules in the module docstring).

    One pass over the lines and one regex pass per character rule: linear in the text.

    Args:
        text: Any text.
        max_blank_lines: Most consecutive blank lines allowed outside code.
        style: Also report typographic style (``repeated_punctuation``,
            ``double_spaces``; :mod:`citeloop.checks.style`).

    Returns:
        A :class:`FormattingResult`; it never raises on odd text.

    Raises:
        ConfigurationError: ``text`` is not a str, or ``max_blank_lines`` is negative.

    Example:
        >>> formatting_result("Use `x and close it.\\n\\n```python\\nprint(1)\\n").codes
        ('unclosed_fence', 'unbalanced_backticks')
    """
    text = require_text(text)
    limit = _max_blank_lines(max_blank_lines)
    if is_blank(text):
        return FormattingResult((empty_problem(),))
    problems: list[Problem] = []
    fences = find_code_fences(text)
    if fences and not fences[-1].closed:
        fence = fences[-1]
        line = _line_of(text, fence.start)
        problems.append(
            format_issue(
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
        for position in _open_spans(text, backtick_runs(text, start, end)[1])
    ]
    if unmatched:
        line = _line_of(text, unmatched[0])
        problems.append(
            format_issue(
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
            format_issue(
                "blank_lines",
                f"{len(runs)} run(s) of more than {limit} blank lines, the first at line {line}",
                f"at most {limit} consecutive blank lines",
                "Remove the extra blank lines.",
                count=len(runs),
                position=runs[0],
                line=line,
            )
        )
    if style:
        problems.extend(style_problems(text))
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


def fixed_formatting(text: str, problems: tuple[Problem, ...], max_blank_lines: int) -> str | None:
    """The fixed text when every problem is fixable and the fix passes, else ``None``."""
    codes = {problem.details.get("code") for problem in problems}
    if not codes or not codes <= _FIXABLE:
        return None
    fixed = fix_formatting(text, max_blank_lines=max_blank_lines)
    # Removing characters can leave nothing, or join two backtick runs into one.
    if not formatting_result(fixed, max_blank_lines=max_blank_lines).passed:
        return None
    return fixed


def formatting_check(
    *,
    max_blank_lines: int = DEFAULT_MAX_BLANK_LINES,
    on_fail: OnFail | str = "reask",
    name: str = "formatting",
) -> Check:
    """A :class:`Check` of :func:`formatting_result`.

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
        result = formatting_result(text, max_blank_lines=limit)
        if result.passed:
            return CheckOutcome(name, True, value=result)
        fixed = fixed_formatting(text, result.problems, limit)
        return failed(name, result.problems, fixed=fixed, value=result)

    return Check(name, check_formatting, on_fail)
