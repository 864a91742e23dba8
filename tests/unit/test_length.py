"""Length in characters and tokens: estimate, tokenizers, bounds, the length check."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.checks.length import (
    DEFAULT_LONG_MIN_TOKENS,
    DEFAULT_SHORT_MAX_TOKENS,
    LengthResult,
    estimate_tokens,
    length_check,
    length_result,
    long_response_result,
    short_response_result,
)
from citeloop.errors import ConfigurationError

# --- estimate and tokenizers ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("x" * 400, 100), ("é" * 5, 2)],
)
def test_estimate_is_a_quarter_of_the_characters_rounded_up(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


class Encoder:
    """Like tiktoken.Encoding: not callable, ``encode`` returns a list."""

    def encode(self, text: str) -> list[int]:
        return [ord(char) for char in text.split()[0]] if text.strip() else []


class Encoding:
    """Like tokenizers.Encoding: the tokens are in ``ids``."""

    def __init__(self, ids: list[int]) -> None:
        self.ids = ids


class IdsTokenizer:
    def encode(self, text: str) -> Encoding:
        return Encoding(list(range(len(text.split()))))


@pytest.mark.parametrize(
    ("tokenizer", "tokens"),
    [
        (lambda text: 7, 7),
        (str.split, 3),
        (lambda text: tuple(text), 11),
        (Encoder(), 3),
        (IdsTokenizer(), 3),
    ],
    ids=["count", "list", "tuple", "encode", "encode-ids"],
)
def test_tokenizer_kinds(tokenizer: Any, tokens: int) -> None:
    assert estimate_tokens("one two six", tokenizer) == tokens
    result = length_result("one two six", tokenizer=tokenizer)
    assert (result.tokens, result.estimated) == (tokens, False)


@pytest.mark.parametrize(
    ("tokenizer", "match"),
    [
        (42, "callable"),
        ("cl100k_base", "not the name"),
        (lambda text: "3", "returned '3'"),
        (lambda text: None, "returned None"),
        (lambda text: -1, "returned -1"),
    ],
)
def test_unusable_tokenizer_is_a_configuration_error(tokenizer: Any, match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        estimate_tokens("text", tokenizer)


def test_unusable_tokenizer_is_refused_by_the_check_factory() -> None:
    with pytest.raises(ConfigurationError):
        length_check(tokenizer=3.5)


def test_tokenizer_refusing_lone_surrogates_gets_them_replaced() -> None:
    def strict_utf8(text: str) -> list[bytes]:
        return text.encode("utf-8").split()

    result = length_result("a \ud800 b", tokenizer=strict_utf8)
    assert (result.tokens, result.estimated) == (3, False)


def test_tokenizer_refusing_a_text_falls_back_to_the_estimate() -> None:
    def refuses_special_tokens(text: str) -> list[str]:
        if "<|endoftext|>" in text:
            raise ValueError("disallowed special token")
        return text.split()

    result = length_result("x <|endoftext|>", tokenizer=refuses_special_tokens)
    assert (result.tokens, result.estimated) == (4, True)


# --- bounds ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "text", "codes"),
    [
        ({"max_chars": 5}, "12345", ()),
        ({"max_chars": 5}, "123456", ("too_long",)),
        ({"min_chars": 5}, "1234", ("too_short",)),
        ({"min_chars": 5, "max_chars": 5}, "12345", ()),
        ({"max_tokens": 2}, "12345678", ()),
        ({"max_tokens": 2}, "123456789", ("too_long",)),
        ({"min_tokens": 3}, "12345678", ("too_short",)),
        ({"min_chars": 10, "min_tokens": 3}, "1234", ("too_short", "too_short")),
        ({}, "", ()),
        ({"max_chars": 0}, "", ()),
    ],
)
def test_bounds_are_inclusive(settings: dict[str, int], text: str, codes: tuple[str, ...]) -> None:
    result = length_result(text, **settings)
    assert result.codes == codes
    assert result.passed == (not codes)
    assert result.chars == len(text)


def test_problem_says_what_was_measured_and_the_limit() -> None:
    (problem,) = length_result("x" * 2_000, max_tokens=100).problems
    assert problem.details == {"code": "too_long", "unit": "tokens", "limit": 100, "actual": 500}
    assert "500 tokens" in problem.message and "100" in problem.message
    assert problem.expected == "at most 100 tokens (about 75 words)"
    assert "Shorten" in problem.fix


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        ({"max_chars": -1}, "max_chars"),
        ({"min_tokens": 1.5}, "min_tokens"),
        ({"max_tokens": True}, "max_tokens"),
        ({"min_chars": "3"}, "min_chars"),
        ({"min_chars": 10, "max_chars": 5}, "min_chars=10 is greater than max_chars=5"),
        ({"min_tokens": 3, "max_tokens": 2}, "min_tokens=3"),
    ],
)
def test_bad_bounds_are_configuration_errors(settings: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        length_result("text", **settings)
    with pytest.raises(ConfigurationError, match=match):
        length_check(**settings)


def test_non_str_text_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="str"):
        length_result(None)  # type: ignore[arg-type]


# --- short and long -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("Yes.", ()),
        ("x" * (4 * DEFAULT_SHORT_MAX_TOKENS), ()),
        ("x" * (4 * DEFAULT_SHORT_MAX_TOKENS + 1), ("too_long",)),
        ("", ("empty",)),
        (" \n\t", ("empty",)),
    ],
)
def test_short_response(text: str, codes: tuple[str, ...]) -> None:
    assert short_response_result(text).codes == codes


def test_short_response_custom_ceiling() -> None:
    assert short_response_result("one two three", max_tokens=2, tokenizer=str.split).codes == (
        "too_long",
    )


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("x" * (4 * DEFAULT_LONG_MIN_TOKENS), ()),
        ("x" * (4 * DEFAULT_LONG_MIN_TOKENS - 4), ("too_short",)),
        ("", ("empty", "too_short")),
    ],
)
def test_long_response(text: str, codes: tuple[str, ...]) -> None:
    assert long_response_result(text).codes == codes


def test_long_response_with_ceiling() -> None:
    result = long_response_result("a b c d", min_tokens=2, max_tokens=3, tokenizer=str.split)
    assert result.codes == ("too_long",)


# --- the check ------------------------------------------------------------------------


def test_length_check_has_no_fix_and_carries_the_measure() -> None:
    check = length_check(max_chars=10, on_fail="fix")
    outcome = check("x" * 11)
    assert not outcome.passed
    assert outcome.fixed is None  # cutting the answer would lose what it says
    assert isinstance(outcome.value, LengthResult) and outcome.value.chars == 11
    passed = check("x" * 10)
    assert passed.passed and passed.problems == ()


def test_length_check_policy_and_repr() -> None:
    assert repr(length_check(name="brief")) == "Check('brief', on_fail='reask')"
    with pytest.raises(ConfigurationError):
        length_check(on_fail="truncate")


ODD_TEXTS = ["", " ", "\x00\xff", "\ud800", "é" * 10, "🙂" * 10, "\u200b" * 3, "a" * 1_000_000]


@pytest.mark.parametrize("text", ODD_TEXTS, ids=range(len(ODD_TEXTS)))
def test_odd_text_is_measured(text: str) -> None:
    result = length_result(text, min_chars=1, max_tokens=10)
    assert result.chars == len(text)
    assert result.tokens == -(-len(text) // 4)


@settings(deadline=None, max_examples=200)
@given(text=st.text())
def test_never_raises_on_any_text(text: str) -> None:
    assert length_result(text, max_chars=50, min_tokens=1).chars == len(text)
    assert short_response_result(text).tokens == estimate_tokens(text)
    long_response_result(text, tokenizer=str.split)
    assert length_check(max_tokens=5)(text).passed == (estimate_tokens(text) <= 5)


# --- linear time ----------------------------------------------------------------------


def _seconds(run: Callable[[str], object], text: str) -> float:
    started = time.perf_counter()
    run(text)
    return time.perf_counter() - started


@pytest.mark.parametrize(
    "make",
    [lambda n: "x" * n, lambda n: " \n" * (n // 2), lambda n: "word " * (n // 5)],
    ids=["letters", "blank-lines", "words"],
)
def test_length_takes_linear_time(make: Callable[[int], str]) -> None:
    def run(text: str) -> object:
        return long_response_result(text, tokenizer=str.split)

    short, long = _seconds(run, make(250_000)), _seconds(run, make(1_000_000))
    assert long < 10 * short + 1.0
