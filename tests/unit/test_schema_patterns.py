"""Schema patterns are matched with RE2: linear in the text, with jsonschema's meaning."""

from __future__ import annotations

import re

import pytest
from jsonschema import Draft202012Validator

from citeloop.checks.schema import _as_json, compile_schema, schema_problems
from citeloop.checks.structure import validate_structure
from citeloop.errors import ConfigurationError, ValidationError

CATASTROPHIC = r"^(\w+\s?)*$"
"""Exponential in Python's re on words that end in a character it cannot match."""


def _messages(schema: dict, data: object) -> list[str]:
    return [problem.details["message"] for problem in schema_problems(compile_schema(schema), data)]


@pytest.fixture
def no_backtracking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's re may not be used to match a schema's pattern against data."""
    import jsonschema._keywords
    import jsonschema._utils

    class NoSearch:
        def __getattr__(self, name: str) -> object:
            return getattr(re, name)

        def search(self, *args: object) -> None:
            raise AssertionError(f"jsonschema called re.search{args}")

    for module in (jsonschema._keywords, jsonschema._utils):
        monkeypatch.setattr(module, "re", NoSearch())


def test_a_catastrophic_pattern_fails_the_value_at_once(no_backtracking: None) -> None:
    title = {"type": "string", "pattern": CATASTROPHIC}
    schema = {"type": "object", "properties": {"title": title}}
    words = "word " * 40 + "!"
    assert _messages(schema, {"title": words}) == [f'"{words}" does not match {CATASTROPHIC!r}']
    assert _messages(schema, {"title": "word " * 40}) == []


def test_catastrophic_property_patterns_are_linear(no_backtracking: None) -> None:
    schema = {
        "type": "object",
        "patternProperties": {"^x(a+)+$": {"type": "integer"}},
        "additionalProperties": False,
    }
    name = "x" + "a" * 60 + "!"
    assert _messages(schema, {name: 1, "xaa": "no"}) == [
        f"{name!r} does not match any of the regexes: '^x(a+)+$'",
        "\"no\" is not of type 'integer'",
    ]


@pytest.mark.parametrize(
    "schema",
    [
        {"pattern": "b"},
        {"pattern": "^b"},
        {"pattern": "^[a-z]+-[0-9]{2,3}$"},
        {"patternProperties": {"^s_": {"type": "string"}}},
        {"patternProperties": {"^s_": {"type": "string"}}, "additionalProperties": False},
        {"patternProperties": {"n$": True}, "additionalProperties": {"type": "integer"}},
        {"properties": {"a": True}, "additionalProperties": False},
        {"propertyNames": {"pattern": "^[a-z]+$"}},
    ],
)
@pytest.mark.parametrize(
    "data",
    ["abc", "b", "ab-12", "ab-1234", {"s_a": 1, "s_b": "x"}, {"an": "x", "a": 1, "B": 2}, {}],
)
def test_the_same_verdicts_and_messages_as_jsonschema(schema: dict, data: object) -> None:
    theirs = Draft202012Validator(schema).iter_errors(data)
    assert sorted(_messages(schema, data)) == sorted(_as_json(error) for error in theirs)


def test_older_drafts_match_with_re2_too(no_backtracking: None) -> None:
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "pattern": CATASTROPHIC}
    with pytest.raises(ValidationError, match="does not match"):
        validate_structure("word " * 40 + "!", schema)


LOOKAROUND = "no lookaround or backreferences"
SYNTAX = "the syntax RE2 reads"


@pytest.mark.parametrize(
    ("pattern", "fix"),
    [
        (r"(?<=a)b", LOOKAROUND),
        (r"(?!x)a", LOOKAROUND),
        (r"(a)\1", LOOKAROUND),
        (r"a{1001}", SYNTAX),
        (r"\Z", SYNTAX),
    ],
)
def test_a_pattern_re2_cannot_match_is_refused_with_the_schema(pattern: str, fix: str) -> None:
    in_value = {"properties": {"a": {"pattern": pattern}}}
    for schema in (in_value, {"patternProperties": {pattern: {}}}):
        with pytest.raises(ConfigurationError, match=re.escape(repr(pattern))) as raised:
            compile_schema(schema)
        assert fix in str(raised.value)


def test_a_huge_pattern_is_shown_cut() -> None:
    pattern = "(?:abc|def)" * 200_000
    with pytest.raises(ConfigurationError) as raised:
        compile_schema({"pattern": pattern})
    assert len(str(raised.value)) < 600
    assert "2,200,002 characters" in str(raised.value)


def test_a_pattern_that_is_not_a_string_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="is not a string"):
        compile_schema({"patternProperties": {1: {}}})


ROOT_DIALECT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "name": {"type": "string", "pattern": CATASTROPHIC},
        "children": {"type": "array", "items": {"$ref": "#"}},
    },
}


@pytest.mark.parametrize(
    "schema",
    [
        ROOT_DIALECT,
        {
            "allOf": [
                {"$schema": "http://json-schema.org/draft-07/schema#", "pattern": CATASTROPHIC}
            ]
        },
        {
            "$defs": {
                "t": {"$schema": "http://json-schema.org/draft-07/schema#", "pattern": CATASTROPHIC}
            },
            "$ref": "#/$defs/t",
        },
    ],
)
def test_a_subschema_naming_a_draft_matches_with_re2_too(
    schema: dict, no_backtracking: None
) -> None:
    words = "word " * 40 + "!"
    data = {"name": "a", "children": [{"name": words}]} if schema is ROOT_DIALECT else words
    with pytest.raises(ValidationError, match="does not match"):
        validate_structure(data, schema)


def test_a_property_named_schema_is_kept() -> None:
    schema = {
        "type": "object",
        "properties": {"$schema": {"type": "string"}},
        "required": ["$schema"],
    }
    assert validate_structure({"$schema": "x"}, schema) is True
    with pytest.raises(ValidationError, match="is not of type"):
        validate_structure({"$schema": 1}, schema)


def test_a_lone_surrogate_in_the_data_is_judged_not_raised() -> None:
    assert _messages({"pattern": "^x"}, "\ud800") == ["\"\\ud800\" does not match '^x'"]
    assert _messages({"pattern": "^.$"}, "\ud800") == []
    closed = {"patternProperties": {"a": {}}, "additionalProperties": False}
    assert _messages(closed, {"\udc00": 1}) == ["'\\udc00' does not match any of the regexes: 'a'"]
    with pytest.raises(ConfigurationError, match="lone surrogate"):
        compile_schema({"pattern": "\ud800"})


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        (r"^[\u0041-\u005a]+$", "ABC", True),
        (r"^[\u0041-\u005a]+$", "abc", False),
        (r"^\\u0041$", "\\u0041", True),  # an escaped backslash, then "u0041"
        (r"^\S+$", "a\u00a0b", False),  # ECMA-262's \s holds the no-break space
        (r"^\s+$", "\u3000\v\u2028\ufeff", True),
        (r"^[\s]+$", "\u3000\v", True),
        (r"^[^\s]+$", "a\u00a0b", False),
        (r"^[]a]+$", "]a", True),
        (r"^[^]a]+$", "b", True),
        (r"^\d+$", "\u0663", False),  # ECMA-262's \d is ASCII, as RE2's
    ],
)
def test_ecma_262_meanings(pattern: str, text: str, matches: bool) -> None:
    assert (_messages({"pattern": pattern}, text) == []) is matches


def test_only_schema_objects_hold_patterns() -> None:
    # A pattern in data (const, enum, default, examples, an unknown keyword) is data.
    schema = {
        "properties": {"pattern": {"type": "string"}},
        "const": {"pattern": "(?!x)"},
        "enum": [{"pattern": "(?!x)"}],
        "default": {"pattern": "(?!x)"},
        "examples": [{"pattern": "(?!x)"}],
        "x-meta": {"pattern": "(?!x)"},
    }
    compile_schema(schema)  # no pattern to compile: nothing refused
    # A property named as a data keyword is a schema: its pattern is refused at once.
    for name in ("default", "const", "enum", "examples"):
        with pytest.raises(ConfigurationError, match="lookaround"):
            compile_schema({"properties": {name: {"pattern": "(?=a)"}}})
