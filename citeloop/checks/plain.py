"""The output validators of the source design 002, with the plain return values it
documents (``bool``, ``list[str]``, ``dict``, tuples).

Each function here is a thin layer over a citeloop function that returns a richer result
object, and says which one; use that one for offsets, problem codes and fixes:

============================== =========================================================
documented (this module)       richer result
============================== =========================================================
``validate_json``              :func:`~citeloop.checks.json_output.extract_json`
``validate_length``            :func:`~citeloop.checks.length.length_result`
``validate_short_response``    :func:`~citeloop.checks.length.short_response_result`
``validate_long_response``     :func:`~citeloop.checks.length.long_response_result`
``validate_citations``         :func:`~citeloop.checks.citations.extract_citations`
``validate_formatting``        :func:`~citeloop.checks.formatting.formatting_result`
``validate_complete``          :func:`~citeloop.checks.modes.completeness_result`
``detect_conversational_...``  :func:`~citeloop.checks.phrase_scan.find_conversational_phrases`
``check_format_compliance``    :func:`~citeloop.checks.compliance.compliance_result`
``extract_structured_sections`` :func:`~citeloop.checks.section_parser.extract_sections`
``validate_section_comp...``   :func:`~citeloop.checks.sections.section_completeness_result`
``validate_response_structure`` :func:`~citeloop.checks.sections.response_structure_result`
============================== =========================================================

The other documented names keep their modules: ``validate_structure``
(:mod:`citeloop.checks.structure`), ``detect_repetition``,
``calculate_unique_content_ratio`` and ``validate_no_repetition``
(:mod:`citeloop.checks.repetition`), ``deduplicate_sections`` and
``clean_repetitive_output`` (:mod:`citeloop.checks.deduplication`), ``is_off_topic`` and
``has_on_topic_signals`` (:mod:`citeloop.checks.compliance`), the pattern constants
(:mod:`citeloop.checks.patterns`) and ``estimate_tokens`` (:mod:`citeloop.checks.length`).

Error contract (as documented): ``validate_json``, ``validate_structure`` and
``validate_complete`` raise :class:`citeloop.ValidationError` (its ``context`` holds the
details); the signal validators return ``False`` and log a warning (logger
``citeloop.checks.plain``); none raises on odd text. Bad settings raise
:class:`citeloop.ConfigurationError`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from citeloop.checks.check import require_text
from citeloop.checks.citations import extract_citations
from citeloop.checks.compliance import compliance_result, has_on_topic_signals
from citeloop.checks.formatting import formatting_result, is_blank
from citeloop.checks.json_output import extract_json
from citeloop.checks.length import (
    DEFAULT_LONG_MIN_TOKENS,
    DEFAULT_SHORT_MAX_TOKENS,
    length_result,
    long_response_result,
    short_response_result,
)
from citeloop.checks.modes import ResponseMode, response_mode
from citeloop.checks.phrase_patterns import PhrasePatterns
from citeloop.checks.phrase_scan import find_conversational_phrases
from citeloop.checks.section_parser import extract_sections, require_bool
from citeloop.checks.sections import response_structure_result, section_completeness_result
from citeloop.checks.structure import validate_structure
from citeloop.errors import ConfigurationError, ValidationError

__all__ = [
    "MAX_PHRASE_CHARS",
    "check_format_compliance",
    "detect_conversational_phrases",
    "extract_structured_sections",
    "validate_citations",
    "validate_complete",
    "validate_formatting",
    "validate_json",
    "validate_length",
    "validate_long_response",
    "validate_response_structure",
    "validate_section_completeness",
    "validate_short_response",
]

MAX_PHRASE_CHARS = 50
"""Longest phrase :func:`detect_conversational_phrases` returns (longer ones are cut)."""

_LOG = logging.getLogger(__name__)


def _signal(name: str, passed: bool, why: object) -> bool:
    if not passed:
        _LOG.warning("%s failed: %s", name, why)
    return passed


def validate_json(content: str) -> Any:
    """The JSON value of an LLM answer, parsed; code fences and surrounding prose are
    stripped (rules: :mod:`citeloop.checks.json_output`).

    Args:
        content: The answer.

    Returns:
        The parsed value (``dict``, ``list`` or a scalar).

    Raises:
        ValidationError: No JSON value, or one that was cut off
            (``context["reason"]``: ``"no_json"``, ``"truncated"``, ...).

    Example:
        >>> validate_json('```json\\n{"key": "value"}\\n```')
        {'key': 'value'}
    """
    found = extract_json(content)
    if found.truncated:
        raise ValidationError(
            "the JSON value was cut off before its end; ask for the complete value",
            reason="truncated",
            start=found.start,
            end=found.end,
        )
    return found.value


def validate_length(content: str, min_len: int = 0, max_len: int | None = None) -> bool:
    """Whether ``content`` has ``min_len`` to ``max_len`` characters (code points,
    inclusive; ``None``: no ceiling).

    Raises:
        ConfigurationError: A negative or crossed bound.
    """
    result = length_result(content, min_chars=min_len, max_chars=max_len)
    return _signal("validate_length", result.passed, result.codes)


def validate_short_response(content: str, max_tokens: int = DEFAULT_SHORT_MAX_TOKENS) -> bool:
    """Whether ``content`` is a short answer: not blank, at most ``max_tokens`` tokens
    (default 150; 1 token ≈ 4 characters, :func:`~citeloop.checks.length.estimate_tokens`).

    Raises:
        ConfigurationError: A negative ``max_tokens``.
    """
    result = short_response_result(content, max_tokens)
    return _signal("validate_short_response", result.passed, result.codes)


def validate_long_response(content: str, min_tokens: int = DEFAULT_LONG_MIN_TOKENS) -> bool:
    """Whether ``content`` is a long answer: at least ``min_tokens`` tokens (default 500).

    Raises:
        ConfigurationError: A negative ``min_tokens``.
    """
    result = long_response_result(content, min_tokens)
    return _signal("validate_long_response", result.passed, result.codes)


def validate_citations(content: str) -> list[str]:
    """The citations of ``content``, one string per cited source, in order of first
    appearance: ``"[3]"`` per number (ranges expanded), ``"(Smith, 2020)"`` per author
    and year (``Miller (2000; 2002)`` gives two), ``"@key"`` per key. Code is never
    read (rules: :mod:`citeloop.checks.citations`).

    Example:
        >>> validate_citations("As shown [1-2] and by Miller (2000; 2002), see @knuth.")
        ['[1]', '[2]', '(Miller, 2000)', '(Miller, 2002)', '@knuth']
    """
    found: dict[str, None] = {}
    for span in extract_citations(content).spans:
        for item in span.items:
            if span.kind == "numeric":
                found.setdefault(f"[{item}]")
            elif span.kind == "author_year":
                found.setdefault(f"({item[0]}, {item[1]})")
            else:
                found.setdefault(f"@{item}")
    return list(found)


def validate_formatting(content: str) -> bool:
    """Whether ``content`` is well formatted: no ``!!!``/``???`` runs, no double spaces
    in prose, no unclosed code, stray control characters or blank-line runs (the codes
    of :func:`~citeloop.checks.formatting.formatting_result` with ``style=True``).

    Example:
        >>> validate_formatting("Wow!!!  Really???"), validate_formatting("Fine.")
        (False, True)
    """
    result = formatting_result(content, style=True)
    return _signal("validate_formatting", result.passed, result.codes)


def validate_complete(
    content: str,
    mode: ResponseMode | str = ResponseMode.STANDARD,
    schema: Mapping[str, Any] | bool | None = None,
) -> bool:
    """Check an answer as its :class:`~citeloop.checks.modes.ResponseMode` asks.

    ``SHORT`` and ``LONG`` return :func:`validate_short_response` /
    :func:`validate_long_response`; ``STRUCTURED`` parses the JSON
    (:func:`validate_json`) and checks it against ``schema``
    (:func:`~citeloop.checks.structure.validate_structure`); ``RAW`` and ``STANDARD``
    only require content.

    Returns:
        ``True``, or ``False`` when a ``SHORT``/``LONG`` length bound fails.

    Raises:
        ValidationError: Empty content (``context["reason"] == "empty"``), no schema in
            mode ``STRUCTURED`` (``"missing_schema"``), no JSON, or data that does not
            match the schema.
        ConfigurationError: An unknown mode, an invalid schema, or a schema given in
            another mode than ``STRUCTURED``.
    """
    checked = response_mode(mode)
    if schema is not None and checked is not ResponseMode.STRUCTURED:
        raise ConfigurationError(
            f"schema is only used in mode STRUCTURED, got mode {checked.name}; "
            "pass mode=ResponseMode.STRUCTURED or drop the schema"
        )
    if is_blank(require_text(content)):
        raise ValidationError(
            "the response is empty; the model must write an answer", reason="empty"
        )
    if checked is ResponseMode.SHORT:
        return validate_short_response(content)
    if checked is ResponseMode.LONG:
        return validate_long_response(content)
    if checked is ResponseMode.STRUCTURED:
        if schema is None:
            raise ValidationError(
                "mode STRUCTURED needs a JSON Schema: pass schema=...", reason="missing_schema"
            )
        validate_structure(validate_json(content), schema)
    return True


def detect_conversational_phrases(text: str, patterns: PhrasePatterns | None = None) -> list[str]:
    """The conversational phrases of ``text`` (refusals, self-identification, greetings,
    fillers), as written, each cut to :data:`MAX_PHRASE_CHARS` characters.

    Example:
        >>> detect_conversational_phrases("Sure! The cache is cold. I hope this helps!")
        ['Sure', 'I hope this helps']
    """
    return [match.text[:MAX_PHRASE_CHARS] for match in find_conversational_phrases(text, patterns)]


def check_format_compliance(
    response: str, patterns: PhrasePatterns | None = None
) -> tuple[bool, list[str], dict[str, Any]]:
    """The full format-compliance check of an answer.

    Returns:
        ``(is_compliant, issues, details)``: compliant when the answer is on-topic
        (:func:`~citeloop.checks.compliance.is_off_topic`) and holds no refusal,
        self-identification, greeting or filler. ``issues`` has one readable string per
        problem (``"refusal: 'I can't help'"``, ``"off-topic: no_substance"``);
        ``details`` holds ``off_topic``, ``off_topic_reasons``, ``matches`` (dicts with
        ``category``, ``text``, ``start``, ``end``) and ``fixed`` (the answer without
        its greetings and fillers, when those are its only problems).

    Example:
        >>> ok, issues, _ = check_format_compliance("Sure! The graph has 3 nodes.")
        >>> ok, issues
        (False, ["filler: 'Sure'"])
    """
    result = compliance_result(response, patterns=patterns)
    on_topic = has_on_topic_signals(response)
    reasons = () if on_topic else result.off_topic_reasons
    issues = [f"{match.category}: {match.text!r}" for match in result.matches]
    issues += [f"off-topic: {reason}" for reason in reasons]
    compliant = not reasons and not result.matches
    details = {
        "off_topic": bool(reasons),
        "off_topic_reasons": list(reasons),
        "matches": [match.to_dict() for match in result.matches],
        "fixed": result.fixed,
    }
    return compliant, issues, details


def extract_structured_sections(response: str) -> dict[str, str]:
    """The Markdown sections of ``response`` as ``{header_text: section_content}``, in
    order (headers without their ``#`` markers; text before the first header belongs to
    none). A header written twice keeps one key, its contents joined by a blank line.

    Example:
        >>> extract_structured_sections("## Overview\\nText.\\n\\n## Results\\nData.")
        {'Overview': 'Text.', 'Results': 'Data.'}
    """
    sections: dict[str, str] = {}
    for section in extract_sections(response):
        earlier = sections.get(section.title)
        sections[section.title] = (
            section.body if earlier is None else f"{earlier}\n\n{section.body}"
        )
    return sections


def validate_section_completeness(
    response: str, required_headers: Sequence[str], flexible: bool = True
) -> tuple[bool, list[str], dict[str, Any]]:
    """Whether every required header is present (level- and number-agnostic with
    ``flexible``: ``"overview"`` matches ``## 1. Overview``).

    Returns:
        ``(is_complete, missing, details)``: ``missing`` lists the required headers
        not found, as given; ``details`` is the
        :class:`~citeloop.checks.sections.SectionReport` as a dict (its ``passed`` also
        requires content and no duplicates).

    Raises:
        ConfigurationError: ``required_headers`` is not a list of strings.
    """
    report = section_completeness_result(response, required_headers, flexible)
    return not report.missing, list(report.missing), report.to_dict()


def validate_response_structure(
    response: str,
    required_headers: Sequence[str] = (),
    min_word_count: int = 0,
    max_word_count: int | None = None,
    flexible_headers: bool = True,
) -> tuple[bool, list[str], dict[str, Any]]:
    """Word count and section completeness in one check.

    Words are runs of non-space characters. Valid when every required header is
    present and ``min_word_count <= words <= max_word_count`` (``None``: no ceiling).

    Returns:
        ``(is_valid, issues, details)``: ``issues`` has one readable string per problem
        (``"missing section: Results"``, ``"too few words: 12 (at least 200)"``);
        ``details`` holds ``word_count``, ``min_word_count``, ``max_word_count`` and
        ``sections`` (the section report as a dict).

    Raises:
        ConfigurationError: A negative or crossed word bound, or bad headers.
    """
    require_bool("flexible_headers", flexible_headers)
    for name, value in (("min_word_count", min_word_count), ("max_word_count", max_word_count)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 0
        ):
            raise ConfigurationError(f"{name} must be a non-negative int, got {value!r}")
    if max_word_count is not None and max_word_count < min_word_count:
        raise ConfigurationError(
            f"max_word_count ({max_word_count}) is below min_word_count ({min_word_count})"
        )
    report = response_structure_result(response, required_headers, flexible=flexible_headers)
    words = len(response.split())
    issues = [f"missing section: {name}" for name in report.missing]
    if words < min_word_count:
        issues.append(f"too few words: {words} (at least {min_word_count})")
    if max_word_count is not None and words > max_word_count:
        issues.append(f"too many words: {words} (at most {max_word_count})")
    details = {
        "word_count": words,
        "min_word_count": min_word_count,
        "max_word_count": max_word_count,
        "sections": report.to_dict(),
    }
    return not issues, issues, details
