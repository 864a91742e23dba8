"""Find, parse and repair the JSON value in an LLM answer.

:func:`validate_json` takes the JSON value a reader would take:

1. The whole answer, when it is one strict JSON value (the fast path). This is the only
   place a top-level scalar (``42``, ``"yes"``, ``true``, ``null``) is accepted, besides
   a fenced block that holds exactly one: scalars are never searched for in prose.
2. Fenced code blocks (CommonMark §4.5, https://spec.commonmark.org/0.31.2/#fenced-code-blocks):
   backtick or tilde fences of three or more characters, closed by a fence of the same
   character at least as long; an unclosed fence runs to the end of the answer. Blocks
   whose language tag is JSON-like (``json``, ``jsonc``, ``json5``, ``jsonl``,
   ``ndjson``; in any case and spacing: ``"``` JSON"``) and untagged blocks are read;
   blocks tagged with another language are read (as text) only when nothing else holds
   JSON. Two deliberate leniencies: a fence may be indented any amount (fences nest in
   list items), and in a JSON-tagged block a fence line inside a JSON string (a string
   with raw newlines) does not close the block.
3. The text outside fenced blocks. Candidate starts (``{`` or ``[``) are tried in
   order; one that parses, or repairs, to a value spanning a balanced region is a value,
   and the search goes on after it. A list of numbers (``[1]``, ``[0, 1]``, ``[]``) with
   other text on its line is a citation marker or an interval, never JSON, unless it
   ends its line after a colon (``"Here: [1, 2, 3]"``).

Every value found is counted. The one returned is the first value of a JSON-tagged
block, else of an untagged block, else the first value standing on lines of its own,
else the first value inside a line of prose; :attr:`JsonExtraction.others` says how
many more there were (JSONL, two fenced blocks, a list in prose and an object), so a
check can ask for exactly one.

Each candidate is first read by one linear, string- and comment-aware scan that finds
its balanced end and rejects prose: outside strings and comments only JSON punctuation,
numbers, ``true``/``false``/``null`` (and ``True``/``False``/``None``/``NaN``/
``Infinity``), and bare words used as object keys (``{a: 1}``) may appear, so
``"[as requested]"`` or ``"{name}"`` is never a candidate. A candidate that passes is
parsed with :mod:`json`; when that fails, it is repaired with ``json_repair``
(https://github.com/mangiucugna/json_repair: trailing commas, ``//``, ``#`` and
``/* */`` comments outside strings, single quotes, missing commas, Python literals) and
kept only when the repaired value is a dict for a ``{`` candidate or a list for a ``[``
candidate. Strict means RFC 8259: ``NaN`` and ``Infinity`` are not JSON. Before
``json_repair`` is tried, raw line breaks and tabs inside strings and the ``NaN``/
``Infinity`` constants are accepted as they are (``json.loads(strict=False)``), since
``json_repair`` would alter them; the value then counts as repaired.

Numbers: an integer longer than Python's 4300-digit ``int`` limit is still an ``int``
(up to :data:`MAX_INT_DIGITS` digits; a longer one, like ``1e999999``, is out of range
and becomes an infinite float). A value holding ``NaN`` or an infinity is flagged
(:attr:`JsonExtraction.non_finite`): JSON cannot carry it, so :func:`json_check` fails
it. Keys an object repeats are listed in :attr:`JsonExtraction.duplicate_keys` (the
value keeps the last, as JSON parsers do); only strict and lenient parses see them, not
``json_repair``.

A candidate that reaches the end of its region with brackets still open was cut off (a
model that hit its token limit): the items that were complete are recovered and the
result is flagged ``truncated``. The value is cut after its last complete item (one
followed by a comma, a closed object or array, or a closed string value; a number or
literal at the very end may be cut, so it is dropped) and its brackets are closed; with
no complete item, an unterminated string is closed where it was cut
(``{"answer": "a long essay th`` gives that string). A cut-off candidate with no value
at all (``{`` or ``[{"ke``) is not JSON.

Work is linear in the length of the answer: fences are found in one pass over the
lines; candidates are found with one regex search each; a scan that rejects a candidate
as prose marks the brackets it opened so they are not scanned again, a candidate that
reads as JSON but cannot be parsed is skipped whole (a value nested in broken JSON is
not the answer), and the search resumes after each value found; all scans together may
read at most ``8 * len(text) + 10_000`` characters (``reason="search_limit"`` beyond,
or, once a value was found, the count of further values stops there). Nesting deeper
than :data:`MAX_JSON_DEPTH` is refused (``json`` and ``json_repair`` recurse per
level), and broken JSON longer than :data:`MAX_REPAIR_CHARS` is not repaired.

Error contract: :func:`validate_json` is a schema-level check and raises
:class:`citeloop.errors.ValidationError` when there is no JSON; :func:`json_check` wraps
it as a :class:`~citeloop.checks.check.Check` that never raises on odd text.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, Literal

import json_repair

from citeloop.checks.check import Check, CheckOutcome, OnFail, Problem, failed
from citeloop.errors import ConfigurationError, ValidationError

MAX_JSON_DEPTH = 100
"""Deepest nesting of objects and arrays :func:`validate_json` accepts."""
MAX_REPAIR_CHARS = 500_000
"""Longest broken JSON (in characters) handed to ``json_repair``; valid JSON has no limit."""
JSON_FENCE_LANGUAGES = frozenset({"json", "jsonc", "json5", "jsonl", "ndjson"})
"""Language tags of fenced code blocks that hold JSON (compared in lower case)."""
MAX_INT_DIGITS = 20_000
"""Longest integer (in digits) parsed as an ``int``; a longer one becomes an infinite
float (out of range). Text to ``int`` conversion is quadratic, so this bounds it."""
MAX_PROSE_CHARS = 200
"""Most characters of other text around the JSON that :func:`json_check` cuts away."""
MAX_PROSE_SHARE = 0.25
"""Other text beyond :data:`MAX_PROSE_CHARS` is still cut away when it is at most this
share of the answer (a long JSON value with a paragraph of explanation)."""

_SEARCH_BUDGET_FACTOR = 8
_SEARCH_BUDGET_BASE = 10_000
_MAX_DUPLICATES_LISTED = 5
_LITERALS = frozenset({"true", "false", "null", "True", "False", "None", "NaN", "Infinity"})
_OPENERS = {"{": "}", "[": "]"}
_CLOSERS = {"}": "{", "]": "["}

# One token of JSON-like text. Possessive quantifiers (Python 3.11) never backtrack, so
# each match is linear in its length; an unterminated string or block comment runs to
# the end of the region, which is how a cut-off answer ends.
_TOKEN = re.compile(
    r"""
      (?P<space>\s++)
    | (?P<open>[{\[])
    | (?P<close>[}\]])
    | (?P<comma>,)
    | (?P<colon>:)
    | (?P<dq>"(?:[^"\\]++|\\[\s\S]?)*+(?P<dq_end>")?)
    | (?P<sq>'(?:[^'\\]++|\\[\s\S]?)*+(?P<sq_end>')?)
    | (?P<comment>(?://|\#)[^\n]*+)
    | (?P<block>/\*(?:[^*]++|\*(?!/))*+(?P<block_end>\*/)?)
    | (?P<number>[-+.0-9][-+.0-9eE]*+)
    | (?P<word>[^\W\d][\w$]*+|\$[\w$]*+)(?P<key>\s*+:)?
    """,
    re.VERBOSE,
)
_OPEN = re.compile(r"[{\[]")
_BLANK = re.compile(r"[ \t\r]*+")
_SPACES = re.compile(r"[ \t]*+")
_BACKTICKS = re.compile(r"`*+")
_TILDES = re.compile(r"~*+")
_LANGUAGE = re.compile(r"[\w+.#-]*+")
_QUOTE_OR_ESCAPE = re.compile(r'\\.|"')


# --- fenced code blocks ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CodeFence:
    """A fenced code block (CommonMark §4.5).

    Offsets index the text the block was found in (``text[start:end]`` is the block).

    Attributes:
        start: Offset of the opening fence line.
        end: Offset just past the closing fence line (its newline included), or the
            length of the text when the block is not closed.
        content_start: Offset of the first content line.
        content_end: Offset of the closing fence line (or the end of the text).
        marker: The opening fence, e.g. ``"```"`` or ``"~~~~"``.
        info: The info string after the opening fence, stripped (``"JSON"``).
        language: The info string's first word in lower case, cut at the first character
            that is not a letter, digit or one of ``+.#-_`` (``"json"``; ``""`` if none).
        closed: Whether a closing fence was found.
    """

    start: int
    end: int
    content_start: int
    content_end: int
    marker: str
    info: str
    language: str
    closed: bool


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end == -1 else end


def _opening_fence(text: str, start: int, end: int) -> tuple[str, str] | None:
    """(marker, info string) when ``text[start:end]`` is an opening fence line."""
    index = _SPACES.match(text, start, end).end()
    if index >= end or text[index] not in "`~":
        return None
    run = (_BACKTICKS if text[index] == "`" else _TILDES).match(text, index, end).end()
    if run - index < 3:
        return None
    info = text[run:end].strip()
    # CommonMark: the info string of a backtick fence may not contain a backtick, so an
    # inline "```code```" line is not a fence.
    if text[index] == "`" and "`" in info:
        return None
    return text[index:run], info


def _is_closing_fence(text: str, start: int, end: int, marker: str) -> bool:
    index = _SPACES.match(text, start, end).end()
    if not text.startswith(marker, index):
        return False
    run = (_BACKTICKS if marker[0] == "`" else _TILDES).match(text, index, end).end()
    return _BLANK.match(text, run, end).end() == end


def _inside_string_after(text: str, start: int, end: int, inside: bool) -> bool:
    """Whether a JSON string is open after ``text[start:end]``, given the state before."""
    for match in _QUOTE_OR_ESCAPE.finditer(text, start, end):
        if match.group() == '"':
            inside = not inside
    return inside


def _close_of(text: str, start: int, marker: str, string_aware: bool) -> tuple[int, int, bool]:
    """(content end, block end, string-aware search failed) of a block from ``start``.

    With ``string_aware``, a fence line inside a JSON string does not close the block;
    when no fence line outside a string is found, the first fence line closes it, as
    CommonMark says (the quotes were not JSON's after all).
    """
    pos, inside, first = start, False, None
    while pos < len(text):
        end = _line_end(text, pos)
        if _is_closing_fence(text, pos, end, marker):
            if not inside:
                return pos, min(end + 1, len(text)), False
            if first is None:
                first = (pos, min(end + 1, len(text)))
            if not string_aware:
                break
        elif string_aware:
            inside = _inside_string_after(text, pos, end, inside)
        pos = end + 1
    if first is not None:
        return first[0], first[1], string_aware
    return len(text), len(text), string_aware


def _iter_fences(text: str, string_aware: frozenset[str] = frozenset()) -> Iterator[CodeFence]:
    """The fenced code blocks of ``text`` in order; see :func:`find_code_fences`.

    Blocks whose language is in ``string_aware`` are closed only by a fence line outside
    a JSON string. Once such a search reads to the end without finding one, later blocks
    are closed the plain way, so no line is read more than twice.
    """
    pos = 0
    while pos < len(text):
        end = _line_end(text, pos)
        opening = _opening_fence(text, pos, end)
        if opening is None:
            pos = end + 1
            continue
        marker, info = opening
        first_word = info.split(maxsplit=1)[0] if info else ""
        language = _LANGUAGE.match(first_word).group().lower()
        content_start = min(end + 1, len(text))
        aware = language in string_aware
        content_end, block_end, gave_up = _close_of(text, content_start, marker, aware)
        if gave_up:
            string_aware = frozenset()
        yield CodeFence(
            pos,
            block_end,
            content_start,
            content_end,
            marker,
            info,
            language,
            content_end < len(text) or block_end > content_end,
        )
        pos = block_end


def find_code_fences(text: str) -> list[CodeFence]:
    """The fenced code blocks of ``text``, in order (CommonMark §4.5 fences).

    An opening fence is a line of three or more backticks or tildes (any indentation)
    and an info string (which, for backticks, may not contain a backtick); the block
    ends at the next line holding only a fence of the same character at least as long,
    or at the end of the text. Lines are read once, so work is linear.

    Args:
        text: Any text.

    Returns:
        One :class:`CodeFence` per block.

    Example:
        >>> [(fence.language, fence.closed) for fence in find_code_fences("``` JSON\\n{}\\n```")]
        [('json', True)]
    """
    return list(_iter_fences(text))


# --- the result and the search --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JsonExtraction:
    """The JSON value found in an answer.

    Attributes:
        value: The parsed value: a dict or a list, or a scalar when the whole answer
            (or a whole fenced block) is one strict JSON scalar.
        source: ``"fence"`` when it came from a fenced code block, ``"text"`` otherwise.
        repaired: The value's text was not strict JSON and was repaired (``json_repair``,
            or closed after it was cut off).
        truncated: The value was cut off before its closing brackets; ``value`` holds
            the items that were complete.
        start: Offset in the answer where the value's text starts.
        end: Offset just past the value's text (for a truncated value: past the last
            character read).
        others: How many more JSON values the answer holds (``0`` when it holds one).
        duplicate_keys: Keys an object of the value repeats (the last value is kept),
            the first few, in order; empty when there are none.
        non_finite: The value holds ``NaN`` or an infinity (``NaN``/``Infinity``
            literals, or a number out of range such as ``1e999999``): not JSON.
    """

    value: Any
    source: Literal["fence", "text"]
    repaired: bool
    truncated: bool
    start: int
    end: int
    others: int = 0
    duplicate_keys: tuple[str, ...] = ()
    non_finite: bool = False


@dataclass(slots=True)
class _Scan:
    """What one lexing pass from a candidate start found."""

    kind: Literal["closed", "open", "aborted", "too_deep", "exhausted"]
    start: int
    end: int
    stack: list[str]
    open_positions: list[int]
    safe_end: int | None = None
    safe_depth: int = 0
    has_value: bool = False
    """A value token (string, number, literal) was read outside key position."""
    tail: str = ""
    """What closes an unterminated string or comment at the end (a quote, ``*/``)."""
    drop: int = 0
    """Characters to drop before ``tail``: a dangling backslash would escape the quote."""


_NOT_FOUND = object()


def _depth(value: Any) -> int:
    """Nesting depth of dicts and lists in ``value`` (``[]`` is 1), without recursion."""
    deepest = 0
    pending = [(value, 1)]
    while pending:
        item, level = pending.pop()
        children = item.values() if isinstance(item, dict) else item
        if not isinstance(item, dict | list):
            continue
        deepest = max(deepest, level)
        if deepest > MAX_JSON_DEPTH:
            break
        pending.extend((child, level + 1) for child in children)
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259 §6)")


def _parse_int(digits: str) -> int | float:
    """An integer of any length up to :data:`MAX_INT_DIGITS` digits (Python refuses
    ``int(text)`` beyond 4300 digits; ``Decimal`` does not); a longer one is infinite."""
    if len(digits) > MAX_INT_DIGITS:
        return float(digits)  # out of range: flagged as non-finite
    try:
        return int(digits)
    except ValueError:  # longer than sys.get_int_max_str_digits()
        return int(Decimal(digits))


def _is_non_finite(value: Any) -> bool:
    """Whether ``value`` holds ``NaN`` or an infinity, without recursion."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _is_number_list(value: Any) -> bool:
    """A list of numbers only (``[]``, ``[1]``, ``[0, 1.5]``): a citation or an interval."""
    return isinstance(value, list) and all(
        isinstance(item, int | float) and not isinstance(item, bool) for item in value
    )


def _repair(raw: str) -> Any:
    try:
        return json_repair.repair_json(raw, return_objects=True, skip_json_loads=True)
    except Exception:  # a heuristic third-party parser: any failure means "not repaired"
        return _NOT_FOUND


class _Search:
    """One :func:`validate_json` call: the text, the shared budget, the first failure."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.budget = _SEARCH_BUDGET_FACTOR * len(text) + _SEARCH_BUDGET_BASE
        self.failure: tuple[str, int, str] | None = None
        self.parsed_failure = False
        self.duplicates: list[str] = []
        # One pair of decoders per search: the object hook records into this search.
        self.rfc_8259 = json.JSONDecoder(
            parse_constant=_no_constant, parse_int=_parse_int, object_pairs_hook=self._object
        )
        self.lenient = json.JSONDecoder(
            strict=False, parse_int=_parse_int, object_pairs_hook=self._object
        )

    def _object(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        value = dict(pairs)
        if len(value) < len(pairs) and len(self.duplicates) < _MAX_DUPLICATES_LISTED:
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen and key not in self.duplicates:
                    self.duplicates.append(key)
                seen.add(key)
        return value

    def decode(self, raw: str, *, lenient: bool = False) -> Any:
        """``json.loads(raw)`` as RFC 8259 has it (no ``NaN``/``Infinity``), or ``_NOT_FOUND``.

        ``lenient`` accepts raw control characters (line breaks, tabs) in strings and the
        ``NaN``/``Infinity`` constants, keeping both exactly: two common slips that
        ``json_repair`` would alter (it turns ``-Infinity`` into the string
        ``"Infinity"``). Repeated keys are recorded in ``self.duplicates``.
        """
        self.duplicates = []
        try:
            return (self.lenient if lenient else self.rfc_8259).decode(raw)
        except (ValueError, RecursionError):
            return _NOT_FOUND

    def fail(self, reason: str, position: int, message: str, *, parsed: bool = False) -> None:
        """Remember the first failure; one of a candidate that read as JSON wins."""
        if self.failure is None or (parsed and not self.parsed_failure):
            self.failure = (reason, position, message)
            self.parsed_failure = parsed

    def error(self) -> ValidationError:
        if self.failure is None:
            return ValidationError(
                "no JSON object or array found in the response",
                reason="no_json",
                position=0,
            )
        reason, position, message = self.failure
        return ValidationError(message, reason=reason, position=position)

    # -- lexing ------------------------------------------------------------------------

    def lex(self, start: int, stop: int) -> _Scan:
        """Scan one candidate from ``start`` (a bracket) up to ``stop``."""
        text = self.text
        limit = min(stop, start + self.budget)
        stack: list[str] = []
        positions: list[int] = []
        expect_key = False
        safe_end: int | None = None
        safe_depth = 0
        pos = start
        scan = _Scan("open", start, start, stack, positions)
        while pos < limit:
            match = _TOKEN.match(text, pos, limit)
            if match is None:
                scan.kind = "aborted"
                break
            kind = match.lastgroup
            end = match.end()
            if kind == "open":
                if expect_key:
                    scan.kind = "aborted"
                    break
                if len(stack) >= MAX_JSON_DEPTH:
                    scan.kind = "too_deep"
                    break
                stack.append(text[pos])
                positions.append(pos)
                expect_key = text[pos] == "{"
            elif kind == "close":
                opener = _CLOSERS[text[pos]]
                if opener not in stack:
                    scan.kind = "aborted"
                    break
                # A missing closer inside (`{"a": [1}`) is repairable: close it here.
                while stack[-1] != opener:
                    stack.pop()
                    positions.pop()
                stack.pop()
                positions.pop()
                expect_key = False
                if not stack:
                    scan.kind, scan.end = "closed", end
                    break
                safe_end, safe_depth = end, len(stack)
            elif kind == "comma":
                # Cut before the comma: every item before it is complete.
                safe_end, safe_depth = pos, len(stack)
                expect_key = stack[-1] == "{"
            elif kind in ("dq", "sq"):
                scan.has_value = scan.has_value or not expect_key
                if match.group(f"{kind}_end") is None:
                    token = match.group()
                    scan.tail = token[0]
                    # An odd run of trailing backslashes would escape the closing quote.
                    scan.drop = (len(token) - len(token.rstrip("\\"))) % 2
                elif expect_key:
                    expect_key = False
                else:
                    safe_end, safe_depth = end, len(stack)
            elif kind == "block":
                if match.group("block_end") is None:
                    scan.tail = "*/"
            elif kind == "key":
                if not expect_key:
                    scan.kind = "aborted"
                    break
                expect_key = False
            elif kind == "colon" or kind == "number":
                if expect_key:
                    scan.kind = "aborted"
                    break
                scan.has_value = scan.has_value or kind == "number"
            elif kind == "word" and end < stop and (expect_key or match.group() not in _LITERALS):
                # A bare word must be a literal; a partial last word of a cut-off answer
                # is let through (the cut drops it).
                scan.kind = "aborted"
                break
            elif kind == "word":
                scan.has_value = True
            pos = end
        if scan.kind != "closed":
            scan.end = pos
        if scan.kind == "open" and pos < stop:
            scan.kind = "exhausted"
        scan.safe_end, scan.safe_depth = safe_end, safe_depth
        self.budget -= scan.end - start
        return scan

    # -- parsing -----------------------------------------------------------------------

    def parse(self, scan: _Scan) -> tuple[Any, bool]:
        """(value, repaired) of a closed or cut-off candidate, or (``_NOT_FOUND``, _).

        ``self.duplicates`` then holds the keys the value repeats (strict parses only).
        """
        text = self.text
        if scan.kind == "open" and scan.safe_end is None and not scan.has_value:
            self.fail(
                "not_json",
                scan.start,
                f"the JSON at character {scan.start} is cut off before its first value",
                parsed=True,
            )
            return _NOT_FOUND, True
        if scan.kind == "closed":
            raw = text[scan.start : scan.end]
        elif scan.safe_end is not None:
            closers = "".join(_OPENERS[char] for char in reversed(scan.stack[: scan.safe_depth]))
            raw = text[scan.start : scan.safe_end] + closers
        else:
            closers = "".join(_OPENERS[char] for char in reversed(scan.stack))
            raw = text[scan.start : scan.end - scan.drop] + scan.tail + closers
        expected = dict if text[scan.start] == "{" else list
        value = self.decode(raw)
        if isinstance(value, expected):
            return value, scan.kind != "closed"
        value = self.decode(raw, lenient=True)
        if isinstance(value, expected):
            return value, True
        self.duplicates = []
        if len(raw) > MAX_REPAIR_CHARS:
            self.fail(
                "too_long",
                scan.start,
                f"the JSON at character {scan.start} is not valid and is too long to repair "
                f"({len(raw):,} characters; the limit is {MAX_REPAIR_CHARS:,})",
                parsed=True,
            )
            return _NOT_FOUND, True
        value = _repair(raw)
        if isinstance(value, expected):
            return value, True
        self.fail(
            "not_json",
            scan.start,
            f"the text at character {scan.start} looks like JSON but could not be parsed "
            "or repaired",
            parsed=True,
        )
        return _NOT_FOUND, True

    # -- searching ---------------------------------------------------------------------

    def whole(self, lo: int, hi: int, source: Literal["fence", "text"]) -> JsonExtraction | None:
        """The fast path: ``text[lo:hi]`` is one strict JSON value, a scalar included
        (no depth limit hit)."""
        text = self.text
        segment = text[lo:hi]
        stripped = segment.strip()
        if not stripped:
            return None
        value = self.decode(stripped)
        if value is _NOT_FOUND or _depth(value) > MAX_JSON_DEPTH:
            return None
        start = lo + len(segment) - len(segment.lstrip())
        return JsonExtraction(
            value,
            source,
            False,
            False,
            start,
            start + len(stripped),
            duplicate_keys=tuple(self.duplicates),
        )

    def values(
        self, lo: int, hi: int, source: Literal["fence", "text"]
    ) -> Iterator[JsonExtraction]:
        """The JSON values in ``text[lo:hi]``, in order."""
        text = self.text
        skip: set[int] = set()
        pos = lo
        while (match := _OPEN.search(text, pos, hi)) is not None:
            start = match.start()
            pos = start + 1
            if start in skip:
                continue
            scan = self.lex(start, hi)
            if scan.kind == "too_deep":
                raise ValidationError(
                    f"the JSON at character {start} is nested deeper than {MAX_JSON_DEPTH} "
                    "levels; flatten it",
                    reason="too_deep",
                    position=scan.end,
                    limit=MAX_JSON_DEPTH,
                )
            if scan.kind == "exhausted":
                raise ValidationError(
                    "gave up looking for JSON: the search read "
                    f"{_SEARCH_BUDGET_FACTOR} times the response's length",
                    reason="search_limit",
                    position=scan.end,
                )
            if scan.kind == "aborted":
                # Brackets still open at the bad token would stop at it too.
                skip.update(scan.open_positions)
                if self.failure is None:
                    self.fail(
                        "not_json",
                        scan.end,
                        f"no JSON value found: the text at character {start} is not JSON "
                        f"(stopped at character {scan.end})",
                    )
                continue
            value, repaired = self.parse(scan)
            if value is _NOT_FOUND:
                # It reads as JSON but is broken: a value nested in it is not the answer.
                pos = max(pos, scan.end)
                continue
            found = JsonExtraction(
                value,
                source,
                repaired,
                scan.kind == "open",
                start,
                self._end(scan),
                duplicate_keys=tuple(self.duplicates),
            )
            pos = max(pos, found.end)
            if source == "text" and self._in_prose_line(found):
                self.fail(
                    "not_json",
                    start,
                    f"no JSON value found: the numbers in brackets at character {start} are "
                    "inside a line of prose (a citation marker or an interval), not JSON",
                )
                continue
            yield found

    def _end(self, scan: _Scan) -> int:
        if scan.kind == "closed":
            return scan.end
        return scan.start + len(self.text[scan.start : scan.end].rstrip())

    def _text_around(self, found: JsonExtraction) -> tuple[str, str]:
        """The characters just before and after ``found`` on its line, past blanks
        (``""`` at a line break or the end of the text).

        Only the blanks next to the value are read, so this stays linear however many
        values a line holds.
        """
        text = self.text
        before = found.start - 1
        while before >= 0 and text[before] in " \t":
            before -= 1
        after = _SPACES.match(text, found.end).end()
        char_before = text[before] if before >= 0 and text[before] not in "\r\n" else ""
        char_after = text[after] if after < len(text) and text[after] not in "\r\n" else ""
        return char_before, char_after

    def on_own_lines(self, found: JsonExtraction) -> bool:
        """Nothing but blanks shares the value's first and last lines."""
        return self._text_around(found) == ("", "")

    def _in_prose_line(self, found: JsonExtraction) -> bool:
        """A list of numbers with prose on its line: ``"see [1]"``, ``"in [0, 1] for"``.

        A list that ends its line after a colon (``"Here: [1, 2, 3]"``) is a value.
        """
        if not _is_number_list(found.value):
            return False
        before, after = self._text_around(found)
        return bool(after) or (bool(before) and before != ":")


def outside_fences(text: str, fences: list[CodeFence]) -> list[tuple[int, int]]:
    """The (start, end) spans of ``text`` outside fenced code blocks."""
    spans, last = [], 0
    for fence in fences:
        spans.append((last, fence.start))
        last = fence.end
    spans.append((last, len(text)))
    return [(start, end) for start, end in spans if start < end]


def _collect(
    search: _Search, fences: list[CodeFence]
) -> tuple[list[tuple[int, JsonExtraction]], int]:
    """(every JSON value of the answer with its rank, in order; uncounted values).

    Ranks (lower is preferred): 0 a JSON-tagged block, 1 an untagged block, 2 text on
    lines of its own, 3 text inside a line of prose. Blocks of another language are read
    as text only when nothing else holds JSON. Once one value is found, a later search
    failure ends the count instead of raising; a value nested too deep is one more
    value (the second number is then 1).
    """
    text = search.text
    found: list[tuple[int, JsonExtraction]] = []

    def from_text(lo: int, hi: int) -> Iterator[tuple[int, JsonExtraction]]:
        for value in search.values(lo, hi, "text"):
            yield (2 if search.on_own_lines(value) else 3), value

    def from_fence(fence: CodeFence) -> Iterator[tuple[int, JsonExtraction]]:
        rank = 0 if fence.language else 1
        lo, hi = fence.content_start, fence.content_end
        whole = search.whole(lo, hi, "fence")
        for value in [whole] if whole is not None else search.values(lo, hi, "fence"):
            yield rank, value

    json_fences: list[CodeFence] = []
    other_fences: list[CodeFence] = []
    for fence in fences:
        holds_json = not fence.language or fence.language in JSON_FENCE_LANGUAGES
        (json_fences if holds_json else other_fences).append(fence)
    sources: list[Iterator[tuple[int, JsonExtraction]]] = [
        *(from_fence(fence) for fence in json_fences),
        *(from_text(lo, hi) for lo, hi in outside_fences(text, fences)),
    ]
    try:
        for source in sources:
            found.extend(source)
        if not found:
            for fence in other_fences:
                found.extend(from_text(fence.content_start, fence.content_end))
    except ValidationError as exc:
        if not found:
            raise
        return found, int(exc.details.get("reason") == "too_deep")
    return found, 0


def validate_json(text: str) -> JsonExtraction:
    """Find and parse the JSON value in an answer (see the module docstring for the rules).

    Args:
        text: The answer.

    Returns:
        A :class:`JsonExtraction`: the value, where it came from (``"fence"`` or
        ``"text"``), whether it was repaired or cut off, its offsets in ``text``, how
        many other values the answer holds, the keys it repeats, and whether it holds a
        non-finite number.

    Raises:
        ValidationError: No JSON value. ``details["reason"]`` is ``"empty"`` (blank
            text), ``"no_json"`` (no ``{`` or ``[``), ``"not_json"`` (candidates, none
            JSON), ``"too_deep"`` (nesting deeper than :data:`MAX_JSON_DEPTH`;
            ``details["limit"]`` names it), ``"too_long"`` (broken JSON longer than
            :data:`MAX_REPAIR_CHARS`) or ``"search_limit"`` (the bounded search gave up);
            ``details["position"]`` is the offset where the failure was found.
        ConfigurationError: ``text`` is not a ``str``.

    Example:
        >>> found = validate_json('Sure! [as asked]:\\n```json\\n{"a": [1, 2,],}\\n```')
        >>> found.value, found.source, found.repaired
        ({'a': [1, 2]}, 'fence', True)
        >>> validate_json('[{"id": 1}, {"id": 2}, {"id"').value
        [{'id': 1}, {'id': 2}]
        >>> found = validate_json('{"id": 1}\\n{"id": 2}')
        >>> found.value, found.others
        ({'id': 1}, 1)
    """
    if not isinstance(text, str):
        raise ConfigurationError(
            f"validate_json needs the response as str, got {type(text).__name__}; decode it first"
        )
    if not text.strip():
        raise ValidationError(
            "the response is empty; expected a JSON value", reason="empty", position=0
        )
    search = _Search(text)
    found = search.whole(0, len(text), "text")
    if found is None:
        values, uncounted = _collect(search, list(_iter_fences(text, JSON_FENCE_LANGUAGES)))
        if not values:
            raise search.error()
        # The best rank, the first of it (min keeps the first of equal keys).
        found = min(values, key=lambda item: item[0])[1]
        found = replace(found, others=len(values) - 1 + uncounted)
    return replace(found, non_finite=_is_non_finite(found.value))


# --- the check ------------------------------------------------------------------------

_JSON_FIX = "Reply with the JSON value only: no code fence, no text before or after it."


def json_problem(exc: ValidationError) -> Problem:
    """The :class:`Problem` for a :func:`validate_json` failure (what, expected, fix)."""
    reason = exc.details.get("reason", "not_json")
    fixes = {
        "too_deep": "Return a flatter structure.",
        "too_long": "Return shorter, valid JSON.",
    }
    details = {key: value for key, value in exc.details.items() if key in ("reason", "position")}
    if "limit" in exc.details:
        details["limit"] = exc.details["limit"]
    return Problem(
        str(exc),
        "a JSON object or array",
        fixes.get(reason, "Reply with valid JSON only (double-quoted keys and strings)."),
        details,
    )


def prose_chars(text: str, found: JsonExtraction) -> int:
    """How many characters of other text surround ``found`` in ``text``.

    Blanks at either end of each side, and the fence lines of the block holding the
    value, do not count: ``"Sure! {...} Hope it helps."`` has 19.
    """
    lo, hi = found.start, found.end
    inner = 0
    if found.source == "fence":
        for fence in _iter_fences(text, JSON_FENCE_LANGUAGES):
            if fence.content_start <= lo and hi <= fence.content_end:
                inner = len(text[fence.content_start : lo].strip()) + len(
                    text[hi : fence.content_end].strip()
                )
                lo, hi = fence.start, fence.end
                break
    return inner + len(text[:lo].strip()) + len(text[hi:].strip())


def _prose_is_short(text: str, prose: int) -> bool:
    return prose <= MAX_PROSE_CHARS or prose <= MAX_PROSE_SHARE * len(text)


def _wrapping_problems(text: str, found: JsonExtraction, prose: int) -> list[Problem]:
    problems: list[Problem] = []
    long_prose = not _prose_is_short(text, prose)
    details: dict[str, Any] = {"prose_chars": prose} if long_prose else {}
    if found.source == "fence":
        problems.append(
            Problem(
                "the JSON is wrapped in a Markdown code fence"
                + (f" with {prose:,} characters of other text around it" if long_prose else ""),
                "the JSON value alone",
                _JSON_FIX,
                {"reason": "fenced", "position": found.start, **details},
            )
        )
    elif prose:
        problems.append(
            Problem(
                f"the JSON is surrounded by {prose:,} characters of other text"
                if long_prose
                else "the JSON is surrounded by other text",
                "the JSON value alone",
                _JSON_FIX,
                {"reason": "wrapped", "position": found.start, **details},
            )
        )
    if found.repaired and not found.truncated:
        problems.append(
            Problem(
                "the JSON is not valid as written and had to be repaired",
                "strict JSON (RFC 8259): double-quoted strings, no comments, no trailing commas",
                "Reply with strict JSON: double quotes, no comments, no trailing commas.",
                {"reason": "repaired", "position": found.start},
            )
        )
    return problems


def truncation_problem(found: JsonExtraction) -> Problem:
    """The :class:`Problem` for a cut-off JSON value."""
    return Problem(
        "the JSON is cut off before its end (the output probably hit its token limit)",
        "a complete JSON value with every bracket closed",
        "Return the complete JSON; if it is too long, return fewer or shorter items.",
        {"reason": "truncated", "position": found.end},
    )


def value_problems(found: JsonExtraction) -> list[Problem]:
    """The problems of the value itself that no fix can mend: cut off, one of several
    values, repeated keys, non-finite numbers (``details["reason"]``: ``"truncated"``,
    ``"multiple"``, ``"duplicate_keys"``, ``"non_finite"``)."""
    problems: list[Problem] = []
    if found.truncated:
        problems.append(truncation_problem(found))
    if found.others:
        problems.append(
            Problem(
                f"{found.others + 1} JSON values found; reply with exactly one",
                "exactly one JSON value",
                "Reply with one JSON value only; to return several items, put them in one array.",
                {"reason": "multiple", "position": found.start, "count": found.others + 1},
            )
        )
    if found.duplicate_keys:
        keys = ", ".join(repr(key) for key in found.duplicate_keys)
        plural = "s" if len(found.duplicate_keys) > 1 else ""
        problems.append(
            Problem(
                f"duplicate key{plural} {keys} in a JSON object (only the last value counts)",
                "each key at most once per object",
                "Write each key once per object; merge the values of a repeated key.",
                {"reason": "duplicate_keys", "position": found.start},
            )
        )
    if found.non_finite:
        problems.append(
            Problem(
                "the JSON holds NaN or an infinite number (a NaN/Infinity literal, or a "
                "number too large for a float, such as 1e999999), which JSON cannot carry",
                "finite numbers",
                "Write finite numbers; give a value out of range as a string.",
                {"reason": "non_finite", "position": found.start},
            )
        )
    return problems


def serialize_json(text: str, found: JsonExtraction) -> str | None:
    """The JSON text of ``found``: the original text when it was valid, else the value
    re-serialised; ``None`` when the value holds ``NaN`` or ``Infinity`` (not JSON)."""
    if not found.repaired:
        return text[found.start : found.end]
    try:
        return json.dumps(found.value, ensure_ascii=False, allow_nan=False)
    except ValueError:
        return None


def json_check(
    schema: Mapping[str, Any] | bool | None = None,
    on_fail: OnFail | str = "reask",
    *,
    name: str = "json",
) -> Check:
    """A :class:`Check` that the output is one JSON value (and, optionally, matches a schema).

    The output passes when it is one strict JSON value and nothing else (surrounding
    whitespace aside). JSON wrapped in a code fence or a little prose (at most
    :data:`MAX_PROSE_CHARS` characters, or :data:`MAX_PROSE_SHARE` of the answer; fence
    lines do not count), or JSON that needed repair, fails with ``fixed`` set to the
    JSON alone (the original text when it was valid, else the repaired value
    re-serialised), so ``on_fail="fix"`` or ``"fix_reask"`` accepts it without asking
    again. These fail without ``fixed``, so the model is asked again: JSON in more
    prose than that (``reason`` ``"wrapped"`` or ``"fenced"`` with ``prose_chars``), a
    value that was cut off (dropping the items that were cut is not a fix), an answer
    holding more than one JSON value, repeated keys, ``NaN`` or infinite numbers (see
    :func:`value_problems`), and a value that does not match ``schema``.
    ``outcome.value`` is the parsed value whenever one was found.

    Args:
        schema: Optional JSON Schema the value must match (see
            :func:`citeloop.checks.structure.validate_structure`); checked here, once.
        on_fail: The failure policy (:class:`OnFail` or its value).
        name: The check's name.

    Returns:
        The check.

    Raises:
        ConfigurationError: An invalid schema or policy.

    Example:
        >>> check = json_check({"type": "object", "required": ["a"]}, on_fail="fix")
        >>> outcome = check('```json\\n{"a": 1}\\n```')
        >>> outcome.passed, outcome.fixed
        (False, '{"a": 1}')
        >>> check('{"b": 1}').problems[0].message
        "$: 'a' is a required property"
    """
    # structure.py parses text with validate_json, so it imports this module.
    from citeloop.checks.structure import compile_schema, schema_problems

    validator = compile_schema(schema) if schema is not None else None

    def check_json(text: str) -> CheckOutcome:
        try:
            found = validate_json(text)
        except ValidationError as exc:
            return failed(name, [json_problem(exc)])
        problems = value_problems(found)
        if validator is not None:
            problems.extend(schema_problems(validator, found.value))
        prose = prose_chars(text, found)
        wrapping = _wrapping_problems(text, found, prose)
        if not problems and not wrapping:
            return CheckOutcome(name, True, value=found.value)
        fixable = not problems and _prose_is_short(text, prose)
        fixed = serialize_json(text, found) if fixable else None
        return failed(name, [*problems, *wrapping], fixed=fixed, value=found.value)

    return Check(name, check_json, on_fail)
