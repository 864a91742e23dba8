"""extract_json: fences, prose around JSON, repairs, truncation, limits; json_check."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.checks import json_search
from citeloop.checks.fences import find_code_fences
from citeloop.checks.json_output import extract_json, json_check
from citeloop.checks.json_values import MAX_JSON_DEPTH, JsonExtraction
from citeloop.errors import ConfigurationError, ValidationError


def value_of(text: str) -> object:
    return extract_json(text).value


def reason_of(text: str) -> str:
    with pytest.raises(ValidationError) as caught:
        extract_json(text)
    return caught.value.details["reason"]


# --- fenced code blocks ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"a": 1}\n```',
        '``` JSON\n{"a": 1}\n```',
        '```Json   \n{"a": 1}\n```',
        '~~~json\n{"a": 1}\n~~~',
        '````json\n{"a": 1}\n```\n````',  # a shorter fence line does not close it...
        '  ```json\n  {"a": 1}\n  ```',  # ...and indented fences (in list items) count
        '```jsonc\n{"a": 1}\n```',
        '```json {.output}\n{"a": 1}\n```',
        'Here you go:\n\n```json\n{"a": 1}\n```\n\nAnything else?',
    ],
)
def test_fenced_json_is_found_in_any_fence_form(text: str) -> None:
    found = extract_json(text)
    assert found.value == {"a": 1}
    assert found.source == "fence"
    assert text[found.start : found.end].strip().startswith("{")


def test_fence_inside_a_json_string_on_one_line_does_not_close_the_block() -> None:
    found = extract_json('```json\n{"bio": "```html<p>hi</p>```"}\n```')
    assert found.value == {"bio": "```html<p>hi</p>```"}
    assert not found.repaired


def test_fence_line_inside_a_multiline_json_string_does_not_close_the_block() -> None:
    text = '```json\n{"code": "```python\nprint(1)\n```\n", "n": 2}\n```\nDone.'
    found = extract_json(text)
    assert found.value == {"code": "```python\nprint(1)\n```\n", "n": 2}
    assert found.source == "fence"
    assert found.repaired  # raw newlines inside a string are not strict JSON


def test_json_tagged_fence_wins_over_earlier_untagged_and_other_fences() -> None:
    text = "```python\nconfig = {'a': 0}\n```\n\n```\n[0]\n```\n\n```json\n{\"a\": 1}\n```\n"
    assert value_of(text) == {"a": 1}


def test_untagged_fence_is_used_when_there_is_no_json_fence() -> None:
    found = extract_json('Run it:\n```bash\necho "[x]"\n```\nResult:\n```\n{"a": 1}\n```')
    assert (found.value, found.source) == ({"a": 1}, "fence")


def test_other_language_fence_is_only_read_as_text() -> None:
    found = extract_json('```javascript\nconst x = {"a": 1}\n```')
    assert (found.value, found.source) == ({"a": 1}, "text")


def test_json_fence_may_hold_a_scalar() -> None:
    assert value_of('```json\n"just a string"\n```') == "just a string"
    assert value_of("```json\n42\n```") == 42


def test_fence_then_prose_brackets() -> None:
    assert value_of('```json\n{"a": 1}\n```\nSee [docs] and [1].') == {"a": 1}


def test_json_fence_without_json_falls_back_to_the_text() -> None:
    found = extract_json('```json\nI cannot do that.\n```\nBut: {"a": 1}')
    assert (found.value, found.source) == ({"a": 1}, "text")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("```py\nx\n```", [("py", True, "x\n")]),
        ("~~~~\na\n~~~\n~~~~~\nb", [("", True, "a\n~~~\n")]),
        ("```\nopen", [("", False, "open")]),
        ("``` a`b\nnot a fence\n", []),
        ("text ```json\n{}\n```", [("", False, "")]),
        ("```a\n```\n```b\n```\n", [("a", True, ""), ("b", True, "")]),
    ],
)
def test_find_code_fences(text: str, expected: list[tuple[str, bool, str]]) -> None:
    fences = find_code_fences(text)
    got = [
        (fence.language, fence.closed, text[fence.content_start : fence.content_end])
        for fence in fences
    ]
    assert got == expected


# --- JSON in prose --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Here is the result [as requested]:\n{"ok": true}', {"ok": True}),
        ('As shown in [1], the output is:\n{"a": 1}', {"a": 1}),
        ('See [docs](https://x.io) then {"a": 1}', {"a": 1}),
        ('Use the {name} placeholder: {"name": "x"}', {"name": "x"}),
        ('{"a": 1} and then {"b": 2}', {"a": 1}),
        ('Result: [{"id": 1}] (see [2])', [{"id": 1}]),
        ("The primes:\n[2, 3, 5]", [2, 3, 5]),
        ('f(x) = {1, 2} and {"a": 1}', {"a": 1}),
        ('["it\'s", "fine"]', ["it's", "fine"]),
        ('{"a": "x [y] {z}"}', {"a": "x [y] {z}"}),
    ],
)
def test_first_json_value_in_prose(text: str, expected: object) -> None:
    assert value_of(text) == expected


def test_offsets_point_at_the_json_text() -> None:
    text = 'Sure, here it is:  {"a": [1, 2]}  Hope it helps [1].'
    found = extract_json(text)
    assert text[found.start : found.end] == '{"a": [1, 2]}'
    assert found.source == "text" and not found.repaired and not found.truncated


def test_whole_text_json_with_surrounding_whitespace() -> None:
    found = extract_json("\n  [1, 2]\n")
    assert found == JsonExtraction([1, 2], "text", False, False, 3, 9)


# --- repairs --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a":1,"b":{"x":1,"y":2,},}', {"a": 1, "b": {"x": 1, "y": 2}}),
        ('["a", "b"  # note\n, "c" // more\n]', ["a", "b", "c"]),
        ('{"a": /* inline */ 1}', {"a": 1}),
        ("{'a': True, 'b': None}", {"a": True, "b": None}),
        ('{a: 1, b: "x"}', {"a": 1, "b": "x"}),
        ('{"a": 1 "b": 2}', {"a": 1, "b": 2}),
        ('{"a": [1, 2}', {"a": [1, 2]}),
    ],
)
def test_repairs(text: str, expected: object) -> None:
    found = extract_json(text)
    assert found.value == expected
    assert found.repaired and not found.truncated


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": "line one\nline two\n"}', {"a": "line one\nline two\n"}),
        ('{"a": "tab\there"}', {"a": "tab\there"}),
        ("[NaN, -Infinity]", None),
    ],
    ids=["raw-newlines", "raw-tab", "non-finite"],
)
def test_lenient_slips_are_kept_exactly(text: str, expected: object) -> None:
    found = extract_json(text)
    assert found.repaired  # not RFC 8259 JSON as written
    if expected is None:
        nan, minus_infinity = found.value
        assert nan != nan and minus_infinity == float("-inf")
    else:
        assert found.value == expected


def test_json_check_offers_no_fix_for_non_finite_numbers() -> None:
    outcome = json_check(on_fail="fix")("[1, NaN]")
    assert not outcome.passed and outcome.fixed is None


def test_comment_markers_inside_strings_stay() -> None:
    found = extract_json('{"u": "a//b", "t": "x#y", "c": "/* no */"}')
    assert found.value == {"u": "a//b", "t": "x#y", "c": "/* no */"}
    assert not found.repaired


# --- no JSON --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I could not produce the table you asked for.", "no_json"),
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("See [docs] and [the guide].", "not_json"),
        ("Use the {name} and {value} placeholders.", "not_json"),
        ("[as requested] nothing here", "not_json"),
        ("```json\nSorry, no.\n```", "no_json"),
        ("\x00\xff\ud800", "no_json"),
    ],
)
def test_no_json_raises_with_reason(text: str, reason: str) -> None:
    assert reason_of(text) == reason


def test_error_names_the_position() -> None:
    with pytest.raises(ValidationError) as caught:
        extract_json("Intro text [oops here]")
    assert caught.value.details["position"] == 12  # where "oops" breaks the candidate


def test_non_str_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="str"):
        extract_json(b'{"a": 1}')  # type: ignore[arg-type]


# --- truncation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[{"a": 1}, {"a": 2}, {"a": ', [{"a": 1}, {"a": 2}]),
        ('[{"a": 1}, {"a": 2}, {"a"', [{"a": 1}, {"a": 2}]),
        ('{"items": ["x", "y", "z', {"items": ["x", "y"]}),
        ('{"items": ["x", "y"', {"items": ["x", "y"]}),
        ('{"a": 1, "b": {"c": 2, "d": [', {"a": 1, "b": {"c": 2}}),
        ('{"a": 1, b', {"a": 1}),
        ('{"answer": "a long essay that was cu', {"answer": "a long essay that was cu"}),
        ('{"a": "ends in a backslash\\', {"a": "ends in a backslash"}),
        ("[1, 2 /* a comment that never ends", [1]),
        ('```json\n[{"a": 1}, {"a": 2}, {"a": 3', [{"a": 1}, {"a": 2}]),
        ('```json\n[{"a": 1},\n  {"b": 2\n```\nMore text.', [{"a": 1}]),
    ],
)
def test_truncated_json_recovers_complete_items(text: str, expected: object) -> None:
    found = extract_json(text)
    assert found.value == expected
    assert found.truncated and found.repaired


# --- limits ---------------------------------------------------------------------------


def test_nesting_deeper_than_the_limit_is_refused_with_the_limit() -> None:
    with pytest.raises(ValidationError) as caught:
        extract_json("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))
    assert caught.value.details["reason"] == "too_deep"
    assert caught.value.details["limit"] == MAX_JSON_DEPTH
    assert str(MAX_JSON_DEPTH) in str(caught.value)


def test_nesting_at_the_limit_is_accepted_also_when_repaired() -> None:
    deep = "[" * MAX_JSON_DEPTH + "1," + "]" * MAX_JSON_DEPTH
    value = extract_json(deep).value
    for _ in range(MAX_JSON_DEPTH - 1):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == [1]


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000, "{" * 100_000, '{"a":' * 50_000, "[" * 100_000 + "]" * 100_000],
    ids=["brackets", "braces", "keys", "balanced"],
)
def test_deep_nesting_never_hits_recursion_error(text: str) -> None:
    with pytest.raises(ValidationError):
        extract_json(text)


def test_broken_json_longer_than_the_repair_limit_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(json_search, "MAX_REPAIR_CHARS", 1_000)
    broken = "[" + '"item", ' * 200 + "]"
    assert reason_of(broken) == "too_long"
    # Valid JSON has no such limit.
    assert len(value_of("[" + '"item", ' * 200 + '"end"]')) == 201


def test_search_gives_up_beyond_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_search, "_SEARCH_BUDGET_FACTOR", 0)
    monkeypatch.setattr(json_search, "_SEARCH_BUDGET_BASE", 50)
    assert reason_of("Intro [a] " + '{"key": "' + "x" * 100 + '"') == "search_limit"


def test_value_nested_in_broken_json_is_not_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    # The outer object reads as JSON but is not repaired (too long for the patched
    # limit); its valid inner object is not the answer, a later value is.
    monkeypatch.setattr(json_search, "MAX_REPAIR_CHARS", 20)
    assert value_of('{"outer": {"inner": 1}, "x": [1,],} and later {"b": 2}') == {"b": 2}
    with pytest.raises(ValidationError) as caught:
        extract_json('{"outer": {"inner": 1}, "x": [1,],}')
    assert caught.value.details == {"reason": "too_long", "position": 0}


# --- json_check -----------------------------------------------------------------------


def test_json_check_passes_json_alone() -> None:
    outcome = json_check()('  {"a": 1}\n')
    assert outcome.passed and outcome.value == {"a": 1} and outcome.fixed is None


@pytest.mark.parametrize(
    ("text", "fixed", "reasons"),
    [
        ('```json\n{"a": 1}\n```', '{"a": 1}', ["fenced"]),
        ('Sure! {"a":  1} Hope it helps.', '{"a":  1}', ["wrapped"]),
        ('{"a": 1,}', '{"a": 1}', ["repaired"]),
        ("```json\n{'a': 'é'}\n```", '{"a": "é"}', ["fenced", "repaired"]),
    ],
)
def test_json_check_fixes_wrapped_or_repaired_json(
    text: str, fixed: str, reasons: list[str]
) -> None:
    check = json_check(on_fail="fix")
    outcome = check(text)
    assert not outcome.passed
    assert [problem.details["reason"] for problem in outcome.problems] == reasons
    assert outcome.fixed == fixed
    assert check(outcome.fixed).passed  # the fix passes the same check
    assert all(problem.expected and problem.fix for problem in outcome.problems)


def test_json_check_does_not_fix_truncated_json() -> None:
    outcome = json_check()('[{"a": 1}, {"a": 2}, {"a"')
    assert not outcome.passed and outcome.fixed is None
    assert outcome.value == [{"a": 1}, {"a": 2}]
    assert outcome.problems[0].details["reason"] == "truncated"


def test_json_check_reports_missing_json() -> None:
    outcome = json_check()("I could not produce the table you asked for.")
    assert not outcome.passed
    (problem,) = outcome.problems
    assert problem.details["reason"] == "no_json"
    assert "JSON" in problem.expected and problem.fix


def test_json_check_with_schema_lists_every_failing_path() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "tags": {"items": {"type": "string"}}},
        "required": ["n", "id"],
    }
    outcome = json_check(schema)('{"n": "x", "tags": ["a", 2, 3]}')
    assert not outcome.passed and outcome.fixed is None
    paths = [problem.details["path"] for problem in outcome.problems]
    assert paths == ["$", "$.n", "$.tags[1]", "$.tags[2]"]


def test_json_check_rejects_an_invalid_schema_at_once() -> None:
    with pytest.raises(ConfigurationError, match="schema"):
        json_check({"type": "nope"})


def test_json_check_repr_and_policy() -> None:
    assert repr(json_check(on_fail="fix_reask")) == "Check('json', on_fail='fix_reask')"
    with pytest.raises(ConfigurationError):
        json_check(on_fail="retry")


# --- properties -----------------------------------------------------------------------

JSONISH = st.text(alphabet=st.sampled_from(list("{}[]:,\"'\\/#*\n `~abtrueflsn01.-")), max_size=300)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)
PROSE = st.text(alphabet=st.characters(blacklist_characters="{}[]`~"), max_size=40)


@settings(deadline=None, max_examples=200)
@given(text=st.text())
def test_validate_json_raises_only_validation_error_on_any_text(text: str) -> None:
    try:
        found = extract_json(text)
    except ValidationError:
        return
    assert 0 <= found.start <= found.end <= len(text)


@settings(deadline=None, max_examples=200)
@given(text=JSONISH)
def test_validate_json_on_json_fragments(text: str) -> None:
    try:
        found = extract_json(text)
    except ValidationError:
        return
    assert 0 <= found.start <= found.end <= len(text)
    if not found.repaired and found.source == "text":
        # A value that was not repaired is exactly the JSON text at its offsets.
        assert json.loads(text[found.start : found.end]) == found.value


@settings(deadline=None, max_examples=200)
@given(value=JSON_VALUES.filter(lambda value: isinstance(value, dict | list)), before=PROSE)
def test_json_after_prose_is_found(value: object, before: str) -> None:
    text = before + "\n" + json.dumps(value) + "\n"
    assert extract_json(text).value == value


@settings(deadline=None, max_examples=200)
@given(text=st.text())
def test_json_check_never_raises(text: str) -> None:
    outcome = json_check({"type": "object"})(text)
    assert outcome.passed == (not outcome.problems)


# --- linear time ----------------------------------------------------------------------

ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "open-braces": lambda n: "{" * n,
    "open-brackets-spaced": lambda n: "[ " * (n // 2),
    "brackets-and-words": lambda n: "[a" * (n // 2),
    "quotes": lambda n: '"' * n,
    "bracket-then-quotes": lambda n: "[" + '"' * n,
    "strings-and-brackets": lambda n: '["a' * (n // 3),
    "unclosed-fence-spaces": lambda n: "```json" + " " * n + "x",
    "unclosed-fence-line-of-spaces": lambda n: "```json\n" + " " * n + "x",
    "fences-with-open-strings": lambda n: '```json\n{"a": "\n```\n' * (n // 20),
    "citation-markers": lambda n: "[1] " * (n // 4),
    "truncated-array": lambda n: "[" + '{"a": 1}, ' * (n // 10),
    "unterminated-string-with-colons": lambda n: '{"a": "' + "b: c, " * (n // 6),
    "keys-and-colons": lambda n: "{" + '"a":' * (n // 4),
    "comments-with-brackets": lambda n: "[" + "// [ {\n" * (n // 7),
    "many-values-on-one-line": lambda n: '{"a": 1} ' * (n // 9),
    "jsonl": lambda n: '{"a": 1}\n' * (n // 9),
    "number-lists-in-prose": lambda n: "x [1, 2] " * (n // 9),
    "long-integers": lambda n: "[" + ("1" * 19_000 + ",") * (n // 19_001) + "1]",
    "duplicate-keys": lambda n: "{" + '"a": 1, ' * (n // 8) + '"b": 2}',
    "other-language-fences": lambda n: "```py\nx = {'a': 1}\n```\n" * (n // 22),
}


def _seconds(text: str) -> float:
    started = time.perf_counter()
    with contextlib.suppress(ValidationError):
        extract_json(text)
    return time.perf_counter() - started


@pytest.mark.parametrize("make", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_adversarial_inputs_take_linear_time(make: Callable[[int], str]) -> None:
    # A quadratic scan takes ~16x longer on 4x the text; a linear one ~4x.
    short, long = _seconds(make(25_000)), _seconds(make(100_000))
    assert long < 10 * short + 1.0


def test_unclosed_fence_with_long_whitespace_is_fast() -> None:
    assert _seconds("```json" + " " * 200_000 + "x") < 0.1


# --- review regressions: prose around JSON, several values (H5) -------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, I cannot produce JSON. See [1].",
        "The probability lies in [0, 1] for every event we looked at.",
        "The primes are [2, 3, 5].",
        "Values [1.5, 2] and [3] are in the table [4].",
    ],
)
def test_numbers_in_brackets_inside_prose_are_never_json(text: str) -> None:
    assert reason_of(text) == "not_json"
    outcome = json_check(on_fail="fix_reask")(text)
    assert not outcome.passed and outcome.fixed is None


def test_number_list_in_prose_does_not_hide_the_object_after_it() -> None:
    text = 'We sorted [3, 1, 4, 1, 5] first. The result:\n{"sorted": [1, 1, 3, 4, 5]}'
    found = extract_json(text)
    assert found.value == {"sorted": [1, 1, 3, 4, 5]} and found.others == 0
    # A list of numbers on its own line, or ending a line after a colon, is a value.
    assert value_of("The primes:\n[2, 3, 5]\n") == [2, 3, 5]
    assert value_of("Here: [1, 2, 3]") == [1, 2, 3]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"id": 1}\n{"id": 2}', {"id": 1}),
        ('```json\n{"id": 1}\n```\n\nAnd:\n\n```json\n{"id": 2}\n```', {"id": 1}),
        ('```jsonl\n{"id": 1}\n{"id": 2}\n```', {"id": 1}),
        ('We tried ["a", "b"] first. The result:\n{"x": 1}', {"x": 1}),
        ('Use {"a": 1} as input. Result:\n{"b": 2}', {"b": 2}),
    ],
    ids=["jsonl", "two-fences", "jsonl-fence", "list-in-prose-then-object", "prefer-own-line"],
)
def test_several_json_values_are_counted(text: str, expected: object) -> None:
    found = extract_json(text)
    assert found.value == expected
    assert found.others == 1
    outcome = json_check(on_fail="fix_reask")(text)
    assert not outcome.passed and outcome.fixed is None
    assert outcome.problems[0].details["reason"] == "multiple"
    assert "2 JSON values found; reply with exactly one" in outcome.problems[0].message


def test_one_json_value_has_no_others() -> None:
    assert extract_json('```json\n{"a": 1}\n```\nSee [docs] and [1].').others == 0
    assert extract_json('Result: [{"id": 1}] (see [2])').others == 0


def test_json_in_long_prose_is_not_fixed_but_reasked() -> None:
    prose = "This is a long explanation of how the value was computed, step by step. " * 4
    text = prose + '\n{"a": 1}\n' + prose
    outcome = json_check(on_fail="fix_reask")(text)
    assert not outcome.passed and outcome.fixed is None
    (problem,) = outcome.problems
    assert problem.details["reason"] == "wrapped"
    assert "JSON value only" in problem.fix
    fenced = prose + '\n```json\n{"a": 1}\n```\n'
    assert json_check(on_fail="fix")(fenced).fixed is None
    # 200 characters of prose at most, or a quarter of the text, is cut away.
    value = json.dumps({"items": ["x" * 40] * 20})
    text = "Here is the JSON you asked for, with every item listed. " * 4 + "\n" + value
    assert 200 < len(text) - len(value) <= len(text) / 4
    assert json_check(on_fail="fix")(text).fixed == value
    assert json_check(on_fail="fix")('Sure! {"a": 1} Hope it helps.').fixed == '{"a": 1}'


# --- review regressions: top-level scalars (M1) --------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("42", 42), (' "yes" \n', "yes"), ("true", True), ("null", None), ("-1.5e3", -1500.0)],
)
def test_whole_text_scalar_is_json(text: str, expected: object) -> None:
    found = extract_json(text)
    assert found.value == expected and not found.repaired and found.source == "text"
    assert json_check()(text).passed


def test_fenced_scalar_is_fixed_to_a_scalar_that_passes() -> None:
    check = json_check({"type": "integer"}, on_fail="fix")
    outcome = check("```json\n42\n```")
    assert outcome.fixed == "42" and check(outcome.fixed).passed
    assert value_of("```\n42\n```") == 42
    # A scalar is never searched for in prose.
    for text in ["The answer is 42", "yes", "42 apples", "NaN", "'yes'"]:
        with pytest.raises(ValidationError):
            extract_json(text)


# --- review regressions: numbers and keys ---------------------------------------------


def test_integer_longer_than_python_str_limit_stays_an_integer() -> None:
    digits = "1" + "0" * 5000
    assert value_of(digits) == 10**5000
    found = extract_json('{"n": ' + digits + "}")
    assert found.value == {"n": 10**5000} and not found.repaired
    assert json_check()('{"n": ' + digits + "}").passed


@pytest.mark.parametrize("text", ['{"x": 1e999999}', "[-1e999999]", "1e999999"])
def test_number_overflowing_to_infinity_is_reported(text: str) -> None:
    found = extract_json(text)
    assert found.non_finite
    outcome = json_check(on_fail="fix")(text)
    assert not outcome.passed and outcome.fixed is None
    assert [problem.details["reason"] for problem in outcome.problems] == ["non_finite"]


def test_duplicate_keys_keep_the_last_value_but_fail_the_check() -> None:
    found = extract_json('{"x": 1, "y": {"x": 0}, "x": 2}')
    assert found.value == {"x": 2, "y": {"x": 0}}
    assert found.duplicate_keys == ("x",)
    outcome = json_check(on_fail="fix")('{"x": 1, "x": 2}')
    assert not outcome.passed and outcome.fixed is None
    assert "duplicate key 'x'" in outcome.problems[0].message
    assert outcome.problems[0].details["reason"] == "duplicate_keys"


def test_an_integer_too_long_to_show_is_a_problem_not_a_crash() -> None:
    """jsonschema shows the failing value in its message; an integer of more than 4,300
    digits cannot be shown, so the check names the number instead of raising."""
    from citeloop import json_check, validate_structure

    big = '{"a": ' + "9" * 5000 + "}"
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    outcome = json_check(schema=schema)(big)
    assert not outcome.passed
    (problem,) = outcome.problems
    assert "integer too long" in problem.message and "as a string" in problem.fix
    assert "CheckOutcome(" in repr(outcome)  # its repr leaves the value out
    with pytest.raises(ValidationError, match="integer too long"):
        validate_structure({"a": 10**5000}, schema)


def test_a_schema_problem_writes_values_as_the_json_the_model_wrote() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"enum": ["x"]}}}
    outcome = json_check(schema=schema)('{"a": null, "b": false}')
    messages = [problem.message for problem in outcome.problems]
    assert messages == ["$.a: null is not of type 'string'", "$.b: false is not one of ['x']"]
    (nothing,) = json_check(schema=False)('{"a": 1}').problems
    assert "satisfy the schema's 'false'" in nothing.expected and "None" not in nothing.expected
