"""The search behind :func:`citeloop.checks.json_output.extract_json`: one linear, string-
and comment-aware lexing pass per candidate start (``{`` or ``[``), parsing with
:mod:`json` and repair with ``json_repair``, under one character budget per answer
(``8 * len(text) + 10_000``). The rules it implements are in the docstring of
:mod:`citeloop.checks.json_output`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from citeloop.checks.fences import CodeFence, outside_fences
from citeloop.checks.json_values import (
    JSON_FENCE_LANGUAGES,
    MAX_JSON_DEPTH,
    MAX_REPAIR_CHARS,
    NOT_FOUND,
    JsonExtraction,
    is_number_list,
    nesting_depth,
    parse_int,
    reject_constant,
    repair_json_text,
)
from citeloop.errors import ValidationError

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
_SPACES = re.compile(r"[ \t]*+")


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


class JsonSearch:
    """One :func:`extract_json` call: the text, the shared budget, the first failure."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.budget = _SEARCH_BUDGET_FACTOR * len(text) + _SEARCH_BUDGET_BASE
        self.failure: tuple[str, int, str] | None = None
        self.parsed_failure = False
        self.duplicates: list[str] = []
        # One pair of decoders per search: the object hook records into this search.
        self.rfc_8259 = json.JSONDecoder(
            parse_constant=reject_constant, parse_int=parse_int, object_pairs_hook=self._object
        )
        self.lenient = json.JSONDecoder(
            strict=False, parse_int=parse_int, object_pairs_hook=self._object
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
        """``json.loads(raw)`` as RFC 8259 has it (no ``NaN``/``Infinity``), or ``NOT_FOUND``.

        ``lenient`` accepts raw control characters (line breaks, tabs) in strings and the
        ``NaN``/``Infinity`` constants, keeping both exactly: two common slips that
        ``json_repair`` would alter (it turns ``-Infinity`` into the string
        ``"Infinity"``). Repeated keys are recorded in ``self.duplicates``.
        """
        self.duplicates = []
        try:
            return (self.lenient if lenient else self.rfc_8259).decode(raw)
        except (ValueError, RecursionError):
            return NOT_FOUND

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
        """(value, repaired) of a closed or cut-off candidate, or (``NOT_FOUND``, _).

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
            return NOT_FOUND, True
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
            return NOT_FOUND, True
        value = repair_json_text(raw)
        if isinstance(value, expected):
            return value, True
        self.fail(
            "not_json",
            scan.start,
            f"the text at character {scan.start} looks like JSON but could not be parsed "
            "or repaired",
            parsed=True,
        )
        return NOT_FOUND, True

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
        if value is NOT_FOUND or nesting_depth(value) > MAX_JSON_DEPTH:
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
            if value is NOT_FOUND:
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
        if not is_number_list(found.value):
            return False
        before, after = self._text_around(found)
        return bool(after) or (bool(before) and before != ":")


def collect_values(
    search: JsonSearch, fences: list[CodeFence]
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
