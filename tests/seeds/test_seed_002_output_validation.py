"""Conformance with the source design 002 (``002-llm-output-validation.txt``).

Each test names the section of the design whose documented behaviour it asserts; the
design's own unit tests and usage examples are restated here in citeloop's words, with
only the import path changed to ``citeloop``.
"""

from __future__ import annotations

import logging
import re

import pytest

import citeloop
import citeloop.checks
from citeloop import (
    CONVERSATIONAL_PATTERNS,
    OFF_TOPIC_PATTERNS_ANYWHERE,
    OFF_TOPIC_PATTERNS_START,
    ON_TOPIC_SIGNALS,
    RepetitionResult,
    ResponseMode,
    ValidationError,
    calculate_unique_content_ratio,
    check_format_compliance,
    clean_repetitive_output,
    deduplicate_sections,
    detect_conversational_phrases,
    detect_repetition,
    estimate_tokens,
    extract_structured_sections,
    has_on_topic_signals,
    is_off_topic,
    validate_citations,
    validate_complete,
    validate_formatting,
    validate_json,
    validate_length,
    validate_long_response,
    validate_no_repetition,
    validate_response_structure,
    validate_section_completeness,
    validate_short_response,
    validate_structure,
)

DOCUMENTED = (
    "validate_json",
    "validate_length",
    "estimate_tokens",
    "validate_short_response",
    "validate_long_response",
    "validate_structure",
    "validate_citations",
    "validate_formatting",
    "validate_complete",
    "validate_no_repetition",
    "clean_repetitive_output",
    "is_off_topic",
    "has_on_topic_signals",
    "detect_conversational_phrases",
    "check_format_compliance",
    "OFF_TOPIC_PATTERNS_START",
    "OFF_TOPIC_PATTERNS_ANYWHERE",
    "CONVERSATIONAL_PATTERNS",
    "ON_TOPIC_SIGNALS",
    "RepetitionResult",
    "detect_repetition",
    "calculate_unique_content_ratio",
    "deduplicate_sections",
    "validate_section_completeness",
    "extract_structured_sections",
    "validate_response_structure",
)

PARAGRAPH = "Every fact in the graph names the source file and the line it came from."
OTHER = "The store answers neighbour queries from one SQLite file with an index."


# --- Overview: public symbols importable from the package root ------------------------


@pytest.mark.parametrize("name", DOCUMENTED)
def test_every_documented_name_is_importable_from_the_root_and_from_checks(name: str) -> None:
    """Overview: "Public symbols are importable directly from" the package."""
    assert getattr(citeloop, name) is getattr(citeloop.checks, name)


# --- Testing > Unit Tests (the design's six tests, restated) --------------------------


def test_unit_validate_json_strips_fences() -> None:
    """Testing > Unit Tests: ``validate_json`` strips a ```json fence and returns data."""
    assert validate_json('```json\n{"key": "value"}\n```') == {"key": "value"}


def test_unit_validate_json_raises_on_bad_input() -> None:
    """Testing > Unit Tests: text without JSON raises ``ValidationError``."""
    with pytest.raises(ValidationError):
        validate_json("not json at all")


def test_unit_detect_repetition_finds_duplicates() -> None:
    """Testing > Unit Tests: two identical short sections are found, ratio below 1."""
    found, examples, ratio = detect_repetition(
        "## Introduction\nSame content.\n\n## Introduction\nSame content."
    )
    assert found
    assert ratio < 1.0
    assert examples


def test_unit_is_off_topic_rejects_ai_refusal() -> None:
    """Testing > Unit Tests: a refusal is off-topic."""
    assert is_off_topic("I can't help with that request.")


def test_unit_is_off_topic_accepts_manuscript_review() -> None:
    """Testing > Unit Tests: a review with on-topic markers is not off-topic."""
    review = "## Overview\nThe manuscript presents strong methodology.\nThe authors clearly..."
    assert not is_off_topic(review)


def test_unit_validate_section_completeness() -> None:
    """Testing > Unit Tests: ``ok, missing, _`` unpacks; both headers present."""
    response = "## Overview\nContent.\n\n## Results\nData."
    ok, missing, _ = validate_section_completeness(response, ["## Overview", "## Results"])
    assert ok
    assert missing == []


# --- Core Validation > Functions ------------------------------------------------------


def test_validate_length_takes_min_len_and_max_len_and_returns_bool() -> None:
    """Core > Functions: ``validate_length(content, min_len=0, max_len=None)`` -> bool."""
    assert validate_length("abcde") is True
    assert validate_length("abcde", min_len=0, max_len=5) is True
    assert validate_length("abcde", min_len=6) is False
    assert validate_length("abcde", max_len=4) is False


def test_estimate_tokens_is_four_characters_a_token() -> None:
    """Core > Functions: heuristic token estimate, 1 token ≈ 4 characters."""
    assert estimate_tokens("x" * 400) == 100


def test_short_response_defaults_to_150_tokens() -> None:
    """Core > Functions: ``validate_short_response(content, max_tokens=150)`` -> bool."""
    assert validate_short_response("x" * (4 * 150)) is True
    assert validate_short_response("x" * (4 * 150 + 4)) is False
    assert validate_short_response("x" * 40, max_tokens=5) is False


def test_long_response_defaults_to_500_tokens() -> None:
    """Core > Functions: ``validate_long_response(content, min_tokens=500)`` -> bool."""
    assert validate_long_response("x" * (4 * 500)) is True
    assert validate_long_response("x" * (4 * 499)) is False
    assert validate_long_response("x" * 40, min_tokens=10) is True


def test_validate_structure_returns_true_or_raises() -> None:
    """Core > Functions and JSON Response Validation: ``validate_structure(data, schema)``
    returns True or raises ``ValidationError`` (required keys, basic types)."""
    schema = {
        "required": ["title", "summary"],
        "properties": {"title": {"type": "string"}, "summary": {"type": "string"}},
    }
    assert validate_structure({"title": "T", "summary": "S"}, schema) is True
    with pytest.raises(ValidationError):
        validate_structure({"title": "T"}, schema)
    with pytest.raises(ValidationError):
        validate_structure({"title": 3, "summary": "S"}, schema)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Known since [1] and [2-3].", ["[1]", "[2]", "[3]"]),
        ("As shown (Smith, 2020).", ["(Smith, 2020)"]),
        ("See @knuth1984 for details.", ["@knuth1984"]),
        (
            "Miller (2000; 2002; 2003) says so.",
            ["(Miller, 2000)", "(Miller, 2002)", "(Miller, 2003)"],
        ),
        ("(Smith, 2019; Jones, 2020)", ["(Smith, 2019)", "(Jones, 2020)"]),
        ("(Doe 2019, 2020a; Roe 2001)", ["(Doe, 2019)", "(Doe, 2020)", "(Roe, 2001)"]),
        ("Lee and Park (2001, 2004) found it.", ["(Lee and Park, 2001)", "(Lee and Park, 2004)"]),
        ("No citation here, `a[0]` is code.", []),
    ],
)
def test_validate_citations_returns_one_string_per_citation(text: str, expected: list[str]) -> None:
    """Core > Functions: ``validate_citations`` extracts (Author Year), [1] and @key
    citations as ``list[str]``; several years of one author are several citations."""
    assert validate_citations(text) == expected


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("Wow!!!  Really???", False),
        ("Really???", False),
        ("Two  spaces between words.", False),
        ("A clean sentence. Another one!", True),
        ("Code `a  b` keeps its spaces, and a hard break  \nends a line.", True),
    ],
)
def test_validate_formatting_flags_punctuation_runs_and_double_spaces(text: str, ok: bool) -> None:
    """Core > Functions: lightweight formatting check (``!!!``, ``???``, double spaces)
    returning bool."""
    assert validate_formatting(text) is ok


def test_signal_validators_log_a_warning_and_never_raise(caplog: pytest.LogCaptureFixture) -> None:
    """Error Handling: signal validators return False and log a warning."""
    with caplog.at_level(logging.WARNING):
        assert validate_formatting("Wow!!!") is False
        assert validate_length("", min_len=1) is False
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 2


def test_validate_complete_dispatches_on_the_mode() -> None:
    """Core > Functions: True/False for SHORT and LONG; True or raises for the others."""
    assert validate_complete("A short answer.", mode=ResponseMode.SHORT) is True
    assert validate_complete("x" * 4000, mode=ResponseMode.SHORT) is False
    assert validate_complete("A short answer.", mode=ResponseMode.LONG) is False
    assert validate_complete("An answer.") is True
    assert validate_complete("An answer.", mode=ResponseMode.RAW) is True
    schema = {"type": "object", "required": ["a"]}
    assert validate_complete('{"a": 1}', mode=ResponseMode.STRUCTURED, schema=schema) is True


@pytest.mark.parametrize(
    ("content", "mode", "schema", "reason"),
    [
        ("", ResponseMode.STANDARD, None, "empty"),
        ("  \n ", ResponseMode.SHORT, None, "empty"),
        ('{"a": 1}', ResponseMode.STRUCTURED, None, "missing_schema"),
        ('{"b": 1}', ResponseMode.STRUCTURED, {"required": ["a"]}, "schema"),
    ],
)
def test_validate_complete_raises_on_structural_problems(
    content: str, mode: ResponseMode, schema: dict | None, reason: str
) -> None:
    """Error Handling: ``validate_complete`` raises for empty content, a missing schema in
    STRUCTURED mode and a failed structure check."""
    with pytest.raises(ValidationError) as caught:
        validate_complete(content, mode=mode, schema=schema)
    assert caught.value.context["reason"] == reason


def test_validate_no_repetition_returns_a_verdict_and_details() -> None:
    """Core > Functions: ``is_valid, details = validate_no_repetition(content,
    max_allowed_ratio=0.3)``."""
    repetitive = "\n\n".join([PARAGRAPH, PARAGRAPH, OTHER])
    is_valid, details = validate_no_repetition(repetitive)
    assert is_valid is False
    assert isinstance(details, dict)
    assert details["repeated_ratio"] == pytest.approx(1 / 3)
    assert validate_no_repetition(repetitive, max_allowed_ratio=0.5)[0] is True
    assert validate_no_repetition("\n\n".join([PARAGRAPH, OTHER]))[0] is True


def test_clean_repetitive_output_keeps_two_occurrences_by_default() -> None:
    """Core > Functions: ``clean_repetitive_output(content, max_repetitions=2)``."""
    text = "\n\n".join([PARAGRAPH, OTHER, PARAGRAPH, PARAGRAPH])
    cleaned = clean_repetitive_output(text, min_content_preservation=0)
    assert cleaned.count(PARAGRAPH) == 2
    assert (
        clean_repetitive_output(text, max_repetitions=1, min_content_preservation=0).count(
            PARAGRAPH
        )
        == 1
    )


# --- Format Compliance ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, but",
        "I apologize, but",
        "Unfortunately,",
        "Sorry, but...",
        "My apologies.",
        "As an AI language model, I cannot do that.",
    ],
)
def test_apologies_and_refusals_alone_are_off_topic(text: str) -> None:
    """Format Compliance: refusal phrases are off-topic; an apology opener with nothing
    after it says nothing either."""
    assert is_off_topic(text) is True


def test_two_on_topic_signals_override_off_topic_detection() -> None:
    """Format Compliance: "Returns False immediately if ≥2 ON_TOPIC_SIGNALS match"."""
    text = "I can't help with that.\n## Overview\nThe authors test the hypothesis."
    assert has_on_topic_signals(text) is True
    assert is_off_topic(text) is False
    assert has_on_topic_signals("The manuscript is short.") is False  # one marker only


def test_detect_conversational_phrases_returns_strings() -> None:
    """Format Compliance: a ``list`` of matched phrases, up to 50 characters each."""
    phrases = detect_conversational_phrases("Sure! The cache is cold. I hope this helps!")
    assert phrases == ["Sure", "I hope this helps"]
    assert all(isinstance(p, str) and len(p) <= 50 for p in phrases)


def test_check_format_compliance_unpacks_into_three() -> None:
    """Format Compliance: ``is_compliant, issues, details = check_format_compliance(...)``."""
    ok, issues, details = check_format_compliance("The graph has three nodes.")
    assert (ok, issues) == (True, [])
    assert isinstance(details, dict)
    ok, issues, details = check_format_compliance("As an AI, I can't help with that.")
    assert ok is False
    assert issues and all(isinstance(issue, str) for issue in issues)
    assert details["off_topic"] is True


@pytest.mark.parametrize(
    ("constant", "sample"),
    [
        (OFF_TOPIC_PATTERNS_START, "Hello there! Here is the review."),
        (OFF_TOPIC_PATTERNS_ANYWHERE, "I cannot help with that."),
        (CONVERSATIONAL_PATTERNS, "I hope this helps!"),
        (ON_TOPIC_SIGNALS, "## Overview"),
    ],
)
def test_pattern_constants_are_lists_of_regexes(constant: list[str], sample: str) -> None:
    """Format Compliance > Pattern constants: ``list[str]`` of regex patterns, each
    matching what its row describes."""
    assert isinstance(constant, list) and all(isinstance(p, str) for p in constant)
    assert any(re.search(pattern, sample) for pattern in constant)


# --- Repetition Detection -------------------------------------------------------------


def test_repetition_result_is_a_named_tuple_of_three() -> None:
    """Repetition Detection: fields ``found``, ``examples``, ``unique_ratio``; positional
    unpacking works."""
    result = detect_repetition("\n\n".join([PARAGRAPH, PARAGRAPH]))
    assert isinstance(result, RepetitionResult) and isinstance(result, tuple)
    found, examples, ratio = result
    assert (found, ratio) == (result.found, result.unique_ratio) == (True, 0.5)
    assert isinstance(examples, list) and all(isinstance(e, str) for e in examples)


def test_unique_content_ratio_takes_a_chunk_size() -> None:
    """Repetition Detection: ``calculate_unique_content_ratio(text, chunk_size=200)``;
    lower is more repetitive."""
    long_section = " ".join([PARAGRAPH] * 4 + [OTHER])  # one section of 372 characters
    assert calculate_unique_content_ratio(long_section) < 1.0
    assert calculate_unique_content_ratio(long_section, chunk_size=None) == 1.0
    assert calculate_unique_content_ratio("\n\n".join([PARAGRAPH, OTHER])) == 1.0


def test_deduplicate_sections_modes() -> None:
    """Repetition Detection: conservative keeps at least three occurrences, balanced uses
    the caller's settings, aggressive keeps one."""
    text = "\n\n".join([PARAGRAPH] * 4 + [OTHER])
    kept = {
        mode: deduplicate_sections(
            text, max_repetitions=2, mode=mode, min_content_preservation=0
        ).count(PARAGRAPH)
        for mode in ("conservative", "balanced", "aggressive")
    }
    assert kept == {"conservative": 3, "balanced": 2, "aggressive": 1}
    called = deduplicate_sections(
        text,
        max_repetitions=2,
        mode="conservative",
        similarity_threshold=0.85,
        min_content_preservation=0.7,
    )
    assert called.count(PARAGRAPH) == 3


# --- Structure Validation -------------------------------------------------------------


def test_extract_structured_sections_returns_a_dict_of_header_to_content() -> None:
    """Structure Validation: ``dict[header_text, section_content]``."""
    sections = extract_structured_sections("## Overview\nText.\n\n## Results\nData.")
    assert sections == {"Overview": "Text.", "Results": "Data."}


def test_section_completeness_reports_what_is_missing_flexibly() -> None:
    """Structure Validation: ``flexible=True`` accepts "overview" for "## Overview";
    ``(is_complete, missing, details)``."""
    ok, missing, details = validate_section_completeness(
        "## 1. Overview\nText.", ["overview", "## Results"], flexible=True
    )
    assert (ok, missing) == (False, ["## Results"])
    assert isinstance(details, dict)


def test_validate_response_structure_counts_words_and_sections() -> None:
    """Structure Validation: word count and section completeness,
    ``(is_valid, issues, details)``."""
    response = "## Overview\n" + "word " * 250 + "\n\n## Results\nData."
    headers = ["## Overview", "## Results"]
    args = {"min_word_count": 200, "max_word_count": 5000, "flexible_headers": True}
    assert validate_response_structure(response, headers, **args)[:2] == (True, [])
    ok, issues, details = validate_response_structure("## Overview\nShort.", headers, **args)
    assert ok is False
    assert len(issues) == 2 and details["word_count"] == 3


# --- Validation Integration (the design's three examples, restated) -------------------


def _validate_llm_response(response: str, required_headers: list[str] | None = None) -> str:
    if is_off_topic(response):
        raise ValidationError("Response is off-topic")
    is_valid, _details = validate_no_repetition(response)
    if not is_valid:
        response = clean_repetitive_output(response)
    if required_headers:
        is_valid, issues, _ = validate_response_structure(response, required_headers)
        if not is_valid:
            raise ValidationError(f"Structure issues: {issues}")
    validate_complete(response, mode=ResponseMode.STANDARD)
    return response


def test_integration_post_generation_validation() -> None:
    """Validation Integration > Post-Generation Validation runs as written."""
    review = "## Overview\nThe manuscript is clear.\n\n## Results\nThe authors report data."
    assert _validate_llm_response(review, ["## Overview", "## Results"]) == review
    with pytest.raises(ValidationError):
        _validate_llm_response("I can't help with that request.")
    with pytest.raises(ValidationError, match="Structure issues"):
        _validate_llm_response("## Overview\nThe authors are clear.", ["## Results"])


def test_integration_json_response_validation() -> None:
    """Validation Integration > JSON Response Validation; Error Handling: ``e.context``
    holds structured details."""
    schema = {
        "required": ["title", "summary"],
        "properties": {"title": {"type": "string"}, "summary": {"type": "string"}},
    }
    data = validate_json('```json\n{"title": "T", "summary": "S"}\n```')
    assert validate_structure(data, schema) is True
    with pytest.raises(ValidationError) as caught:
        validate_structure(validate_json('{"title": "T"}'), schema)
    assert caught.value.context["errors"][0]["keyword"] == "required"


def test_integration_repetition_cleaning_pipeline() -> None:
    """Validation Integration > Repetition Cleaning Pipeline runs as written."""
    text = "\n\n".join([PARAGRAPH, PARAGRAPH, PARAGRAPH, OTHER])
    found, examples, ratio = detect_repetition(text)
    assert found and len(examples) == 2 and ratio == 0.5
    cleaned = deduplicate_sections(text, mode="balanced", similarity_threshold=0.8)
    assert cleaned.count(PARAGRAPH) == 2
    assert deduplicate_sections(text, mode="conservative") == text
