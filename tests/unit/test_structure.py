"""validate_structure (JSON Schema, every failing path) and structure_check."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.checks.schema import MAX_CHECK_PROBLEMS, MAX_MESSAGE_CHARS, json_path
from citeloop.checks.structure import structure_check, validate_structure
from citeloop.errors import ConfigurationError, ValidationError

PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer", "minimum": 0},
        "tags": {"type": "array", "items": {"type": "string"}},
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}


def errors_of(data: object, schema: object, **settings: object) -> list[dict[str, str]]:
    with pytest.raises(ValidationError) as caught:
        validate_structure(data, schema, **settings)  # type: ignore[arg-type]
    assert caught.value.details["reason"] == "schema"
    return caught.value.details["errors"]


def test_valid_data_is_returned_as_is() -> None:
    data = {"name": "Ada", "age": 36, "tags": ["math"], "address": {"city": "London"}}
    assert validate_structure(data, PERSON) is True


def test_every_failing_path_is_listed_sorted_by_path() -> None:
    data = {"age": -1, "tags": ["a", 2, None], "address": {}, "extra": True}
    errors = errors_of(data, PERSON)
    assert [(error["path"], error["keyword"]) for error in errors] == [
        ("$", "required"),
        ("$", "additionalProperties"),
        ("$.address", "required"),
        ("$.age", "minimum"),
        ("$.tags[1]", "type"),
        ("$.tags[2]", "type"),
    ]
    assert all(error["message"] for error in errors)


def test_array_indices_sort_as_numbers() -> None:
    data = ["x"] * 12
    errors = errors_of(data, {"items": {"type": "integer"}})
    assert [error["path"] for error in errors] == [f"$[{index}]" for index in range(12)]


def test_error_message_counts_and_summarizes() -> None:
    with pytest.raises(ValidationError) as caught:
        validate_structure([1, 2, 3, 4, 5], {"items": {"type": "string"}})
    message = str(caught.value)
    assert "(5 errors)" in message and "$[0]" in message and "and 2 more" in message


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ([], "$"),
        (["a", 0, "b"], "$.a[0].b"),
        (["first name"], "$['first name']"),
        (["it's"], "$['it\\'s']"),
        (['say "hi"'], "$['say \"hi\"']"),
        (["back\\slash"], "$['back\\\\slash']"),
        (["line\nbreak"], "$['line\\nbreak']"),
        (["1abc"], "$['1abc']"),
        (["_ok", "é"], "$._ok.é"),
    ],
)
def test_json_path(path: list[str | int], expected: str) -> None:
    assert json_path(path) == expected


def test_long_messages_are_cut() -> None:
    (error,) = errors_of(list(range(10_000)), {"type": "object"})
    assert len(error["message"]) <= MAX_MESSAGE_CHARS + 3
    assert error["message"].endswith("is not of type 'object'")


# --- drafts and schema errors ---------------------------------------------------------

DRAFT7_TUPLE = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "items": [{"type": "integer"}, {"type": "string"}],
}


def test_schema_draft_named_by_dollar_schema_is_used() -> None:
    # Tuple-form `items` is Draft 7; Draft 2020-12 would reject the schema itself.
    assert validate_structure([1, "a"], DRAFT7_TUPLE) is True
    assert [error["path"] for error in errors_of(["a", 1], DRAFT7_TUPLE)] == ["$[0]", "$[1]"]


def test_default_draft_is_2020_12() -> None:
    schema = {"prefixItems": [{"type": "integer"}]}
    assert [error["path"] for error in errors_of(["a"], schema)] == ["$[0]"]
    with pytest.raises(ConfigurationError, match="Draft202012"):
        validate_structure([1], {"items": [{"type": "integer"}]})


@pytest.mark.parametrize(
    ("schema", "match"),
    [
        ({"type": "nope"}, r"at \$\.type"),
        ({"properties": {"a": {"minimum": "zero"}}}, r"\$\.properties\.a\.minimum"),
        ("not a schema", "dict or a bool"),
        ([{"type": "string"}], "dict or a bool"),
        ({"$ref": "#/definitions/missing"}, r"\$ref"),
    ],
)
def test_invalid_schema_is_a_configuration_error(schema: object, match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        validate_structure({}, schema)  # type: ignore[arg-type]


def test_boolean_schemas() -> None:
    assert validate_structure({"a": 1}, True) is True
    assert [error["path"] for error in errors_of({"a": 1}, False)] == ["$"]


def test_formats_are_annotations_unless_asked() -> None:
    schema = {"type": "string", "format": "email"}
    assert validate_structure("not an email", schema) is True
    assert errors_of("not an email", schema, check_formats=True)[0]["keyword"] == "format"


def test_data_too_deep_to_validate_is_a_validation_error() -> None:
    data: list = []
    for _ in range(5_000):
        data = [data]
    with pytest.raises(ValidationError) as caught:
        validate_structure(data, {"type": "array", "items": {"$ref": "#"}})
    assert caught.value.details["reason"] == "too_deep"


# --- structure_check ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "Ada", "age": 36}',
        'Here it is:\n```json\n{"name": "Ada", "age": 36,}\n```',
        "{'name': 'Ada', 'age': 36} // repaired",
    ],
)
def test_structure_check_judges_the_json_wherever_it_is(text: str) -> None:
    outcome = structure_check(PERSON)(text)
    assert outcome.passed, outcome.problems
    assert outcome.value == {"name": "Ada", "age": 36}
    assert outcome.fixed is None


def test_structure_check_problems_name_each_path_and_fix() -> None:
    outcome = structure_check(PERSON)('{"name": 1, "age": "old"}')
    assert not outcome.passed and outcome.fixed is None
    assert [problem.details["path"] for problem in outcome.problems] == ["$.age", "$.name"]
    for problem in outcome.problems:
        assert problem.details["path"] in problem.message
        assert problem.details["path"] in problem.fix
        assert problem.expected


def test_structure_check_without_json() -> None:
    outcome = structure_check(PERSON)("Sorry, I cannot help with that.")
    assert not outcome.passed
    assert outcome.problems[0].details["reason"] == "no_json"


def test_structure_check_fails_truncated_json_even_when_it_matches() -> None:
    outcome = structure_check({"type": "array"})('[{"a": 1}, {"a": 2}, {"a"')
    assert not outcome.passed
    assert outcome.problems[0].details["reason"] == "truncated"


def test_structure_check_caps_the_problems() -> None:
    outcome = structure_check({"items": {"type": "string"}})(str(list(range(500))))
    assert len(outcome.problems) == MAX_CHECK_PROBLEMS + 1
    assert outcome.problems[-1].details == {"more": 500 - MAX_CHECK_PROBLEMS}


def test_structure_check_checks_the_schema_at_once() -> None:
    with pytest.raises(ConfigurationError):
        structure_check({"type": 3})
    assert repr(structure_check(True)) == "Check('structure', on_fail='reask')"


@settings(deadline=None, max_examples=200)
@given(text=st.text())
def test_structure_check_never_raises(text: str) -> None:
    outcome = structure_check(PERSON)(text)
    assert outcome.passed == (not outcome.problems)


JSON_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=25,
)


@settings(deadline=None, max_examples=200)
@given(data=JSON_DATA)
def test_validate_structure_raises_only_validation_error(data: object) -> None:
    try:
        validate_structure(data, PERSON)
    except ValidationError as exc:
        paths = [error["path"] for error in exc.details["errors"]]
        assert paths and all(path.startswith("$") for path in paths)


# --- linear time ----------------------------------------------------------------------


def _seconds(count: int) -> float:
    data = [{"name": index, "age": "x"} for index in range(count)]
    started = time.perf_counter()
    with pytest.raises(ValidationError):
        validate_structure(data, {"type": "array", "items": PERSON})
    return time.perf_counter() - started


def test_many_errors_take_near_linear_time() -> None:
    # Sorting the errors is n log n; 4x the errors must not take ~16x the time.
    short, long = _seconds(2_000), _seconds(8_000)
    assert long < 10 * short + 1.0


def test_a_remote_ref_is_refused_and_never_fetched():
    import http.server
    import socketserver
    import threading

    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'{"type": "string"}')

        def log_message(self, *args):
            pass

    with socketserver.TCPServer(("127.0.0.1", 0), Handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/internal"
        for schema in ({"properties": {"a": {"$ref": url}}}, {"$ref": "file:///etc/passwd"}):
            with pytest.raises(ConfigurationError, match="never fetches"):
                validate_structure({"a": 1}, schema)
        server.shutdown()
    assert hits == []


def test_refs_inside_the_schema_resolve():
    local = {"$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}}
    assert validate_structure({"a": 1}, local) is True
    by_id = {
        "$id": "https://example.org/s",
        "$defs": {"n": {"type": "integer"}},
        "properties": {"a": {"$ref": "https://example.org/s#/$defs/n"}},
    }
    with pytest.raises(ValidationError):
        validate_structure({"a": "x"}, by_id)
