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


@pytest.mark.parametrize("pattern", [r"(?<=a)b", r"(?!x)a", r"(a)\1", r"a{1001}"])
def test_a_pattern_re2_cannot_match_is_refused_with_the_schema(pattern: str) -> None:
    in_value = {"properties": {"a": {"pattern": pattern}}}
    for schema in (in_value, {"patternProperties": {pattern: {}}}):
        with pytest.raises(ConfigurationError, match=re.escape(repr(pattern))) as raised:
            compile_schema(schema)
        assert "rewrite the pattern" in str(raised.value)


def test_a_pattern_key_in_data_keywords_is_data() -> None:
    schema = {
        "properties": {"pattern": {"type": "string"}},
        "const": {"pattern": "(?!x)"},
        "enum": [{"pattern": "(?!x)"}],
        "default": {"pattern": "(?!x)"},
        "examples": [{"pattern": "(?!x)"}],
    }
    compile_schema(schema)  # no pattern to compile: nothing refused
