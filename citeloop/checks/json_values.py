"""The JSON value found in an answer (:class:`JsonExtraction`) and the value-level helpers
the search uses: nesting depth, integers of any length, non-finite numbers, repair with
``json_repair`` (https://github.com/mangiucugna/json_repair). Strict means RFC 8259.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

import json_repair

MAX_JSON_DEPTH = 100
"""Deepest nesting of objects and arrays :func:`extract_json` accepts."""
MAX_REPAIR_CHARS = 500_000
"""Longest broken JSON (in characters) handed to ``json_repair``; valid JSON has no limit."""
JSON_FENCE_LANGUAGES = frozenset({"json", "jsonc", "json5", "jsonl", "ndjson"})
"""Language tags of fenced code blocks that hold JSON (compared in lower case)."""
MAX_INT_DIGITS = 20_000
"""Longest integer (in digits) parsed as an ``int``; a longer one becomes an infinite
float (out of range). Text to ``int`` conversion is quadratic, so this bounds it."""


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

    value: Any = field(repr=False)  # its repr may raise (an int of over 4,300 digits)
    source: Literal["fence", "text"]
    repaired: bool
    truncated: bool
    start: int
    end: int
    others: int = 0
    duplicate_keys: tuple[str, ...] = ()
    non_finite: bool = False


NOT_FOUND = object()


def nesting_depth(value: Any) -> int:
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


def reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259 §6)")


def parse_int(digits: str) -> int | float:
    """An integer of any length up to :data:`MAX_INT_DIGITS` digits (Python refuses
    ``int(text)`` beyond 4300 digits; ``Decimal`` does not); a longer one is infinite."""
    if len(digits) > MAX_INT_DIGITS:
        return float(digits)  # out of range: flagged as non-finite
    try:
        return int(digits)
    except ValueError:  # longer than sys.get_int_max_str_digits()
        return int(Decimal(digits))


def is_non_finite(value: Any) -> bool:
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


def is_number_list(value: Any) -> bool:
    """A list of numbers only (``[]``, ``[1]``, ``[0, 1.5]``): a citation or an interval."""
    return isinstance(value, list) and all(
        isinstance(item, int | float) and not isinstance(item, bool) for item in value
    )


def repair_json_text(raw: str) -> Any:
    try:
        return json_repair.repair_json(raw, return_objects=True, skip_json_loads=True)
    except Exception:  # a heuristic third-party parser: any failure means "not repaired"
        return NOT_FOUND
