"""Find, parse and repair the JSON value in an LLM answer.

:func:`extract_json` takes the JSON value a reader would take:

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

Error contract: :func:`extract_json` is a schema-level check and raises
:class:`citeloop.errors.ValidationError` when there is no JSON; :func:`json_check` wraps
it as a :class:`~citeloop.checks.check.Check` that never raises on odd text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from citeloop.checks.check import Check, CheckOutcome, OnFail, Problem, failed
from citeloop.checks.fences import iter_fences
from citeloop.checks.json_search import JsonSearch, collect_values
from citeloop.checks.json_values import (
    JSON_FENCE_LANGUAGES,
    JsonExtraction,
    is_non_finite,
)
from citeloop.checks.schema import compile_schema, schema_problems
from citeloop.errors import ConfigurationError, ValidationError

MAX_PROSE_CHARS = 200
"""Most characters of other text around the JSON that :func:`json_check` cuts away."""
MAX_PROSE_SHARE = 0.25
"""Other text beyond :data:`MAX_PROSE_CHARS` is still cut away when it is at most this
share of the answer (a long JSON value with a paragraph of explanation)."""


# --- the result and the search --------------------------------------------------------


def extract_json(text: str) -> JsonExtraction:
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
        >>> found = extract_json('Sure! [as asked]:\\n```json\\n{"a": [1, 2,],}\\n```')
        >>> found.value, found.source, found.repaired
        ({'a': [1, 2]}, 'fence', True)
        >>> extract_json('[{"id": 1}, {"id": 2}, {"id"').value
        [{'id': 1}, {'id': 2}]
        >>> found = extract_json('{"id": 1}\\n{"id": 2}')
        >>> found.value, found.others
        ({'id': 1}, 1)
    """
    if not isinstance(text, str):
        raise ConfigurationError(
            f"extract_json needs the response as str, got {type(text).__name__}; decode it first"
        )
    if not text.strip():
        raise ValidationError(
            "the response is empty; expected a JSON value", reason="empty", position=0
        )
    search = JsonSearch(text)
    found = search.whole(0, len(text), "text")
    if found is None:
        values, uncounted = collect_values(search, list(iter_fences(text, JSON_FENCE_LANGUAGES)))
        if not values:
            raise search.error()
        # The best rank, the first of it (min keeps the first of equal keys).
        found = min(values, key=lambda item: item[0])[1]
        found = replace(found, others=len(values) - 1 + uncounted)
    return replace(found, non_finite=is_non_finite(found.value))


# --- the check ------------------------------------------------------------------------

_JSON_FIX = "Reply with the JSON value only: no code fence, no text before or after it."


def json_problem(exc: ValidationError) -> Problem:
    """The :class:`Problem` for a :func:`extract_json` failure (what, expected, fix)."""
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
        for fence in iter_fences(text, JSON_FENCE_LANGUAGES):
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
    validator = compile_schema(schema) if schema is not None else None

    def check_json(text: str) -> CheckOutcome:
        try:
            found = extract_json(text)
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
