"""The error contract of every output validator, on odd and adversarial text.

Signal checks return values and never raise on odd text; schema-level checks raise only
``citeloop.ValidationError``; every ``*_check`` returns a ``CheckOutcome``. Each
function must also stay linear on the inputs that break naive scanners, such as an
unclosed fence followed by 200,000 spaces.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeloop.checks import (
    CheckOutcome,
    ResponseMode,
    calculate_unique_content_ratio,
    citations_check,
    clean_repetitive_output,
    complete_check,
    completeness_result,
    compliance_check,
    compliance_result,
    deduplicate_sections,
    detect_repetition,
    estimate_tokens,
    extract_citations,
    extract_json,
    extract_sections,
    find_conversational_phrases,
    formatting_check,
    formatting_result,
    has_on_topic_signals,
    is_off_topic,
    json_check,
    length_check,
    length_result,
    long_response_result,
    repetition_check,
    repetition_within_limit,
    response_structure_result,
    section_completeness_result,
    sections_check,
    short_response_result,
    structure_check,
)
from citeloop.errors import ValidationError

SCHEMA = {"type": "object", "required": ["a"]}

SIGNALS = {
    "estimate_tokens": estimate_tokens,
    "length_result": lambda t: length_result(t, max_chars=10),
    "short_response_result": short_response_result,
    "long_response_result": long_response_result,
    "extract_citations": extract_citations,
    "formatting_result": formatting_result,
    "validate_complete_standard": completeness_result,
    "validate_complete_short": lambda t: completeness_result(t, mode=ResponseMode.SHORT),
    "validate_complete_long": lambda t: completeness_result(t, mode=ResponseMode.LONG),
    "validate_complete_raw": lambda t: completeness_result(t, mode=ResponseMode.RAW),
    "is_off_topic": lambda t: is_off_topic(t, ["graph"]),
    "has_on_topic_signals": lambda t: has_on_topic_signals(t, ["graph"]),
    "find_conversational_phrases": find_conversational_phrases,
    "compliance_result": compliance_result,
    "detect_repetition": detect_repetition,
    "calculate_unique_content_ratio": calculate_unique_content_ratio,
    "deduplicate_sections": deduplicate_sections,
    "repetition_within_limit": repetition_within_limit,
    "clean_repetitive_output": clean_repetitive_output,
    "extract_sections": extract_sections,
    "section_completeness_result": lambda t: section_completeness_result(t, ["Risks"]),
    "response_structure_result": lambda t: response_structure_result(t, ["Risks"]),
}
SCHEMA_LEVEL = {
    "extract_json": extract_json,
    "validate_complete_structured": lambda t: completeness_result(
        t, mode=ResponseMode.STRUCTURED, schema=SCHEMA
    ),
}
CHECKS = {
    "json_check": json_check(),
    "structure_check": structure_check(SCHEMA),
    "length_check": length_check(max_chars=100),
    "citations_check": citations_check(),
    "formatting_check": formatting_check(),
    "complete_check": complete_check(),
    "compliance_check": compliance_check(["graph"]),
    "repetition_check": repetition_check(),
    "sections_check": sections_check(["Risks"]),
}
ODD = [
    "",
    "   \n\t ",
    "\x00\xff\ufffd",
    "\ud800 lone surrogate",
    "e\u0301" * 50,
    "```json\n{",
    "{" * 1000,
    "[" * 1000 + "]" * 999,
    "## \n## \n**",
    "אבג ‏ 漢字 🙂",
]


def _call(name: str, func, text: str) -> object:
    if name in SCHEMA_LEVEL:
        try:
            return func(text)
        except ValidationError:
            return None
    return func(text)


ALL = {**SIGNALS, **SCHEMA_LEVEL, **CHECKS}


@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("text", ODD, ids=range(len(ODD)))
def test_odd_text_follows_the_error_contract(name, text):
    result = _call(name, ALL[name], text)
    if name in CHECKS:
        assert isinstance(result, CheckOutcome)


@pytest.mark.parametrize("name", sorted(ALL))
@settings(deadline=None, max_examples=50)
@given(text=st.text())
def test_generated_text_follows_the_error_contract(name, text):
    _call(name, ALL[name], text)


@pytest.mark.parametrize("name", sorted(ALL))
def test_an_unclosed_fence_before_200000_spaces_stays_linear(name):
    def seconds(spaces: int) -> float:
        text = "```json" + " " * spaces + "x"
        start = time.perf_counter()
        _call(name, ALL[name], text)
        return time.perf_counter() - start

    small, large = seconds(50_000), seconds(200_000)
    assert large < 10 * small + 1.0, f"{name}: {small:.3f} s -> {large:.3f} s for 4x"
