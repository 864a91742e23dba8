"""Every case of ``shared/cases/sections.json`` against the CommonMark section reader."""

from __future__ import annotations

from typing import Any

import pytest

from citeloop.checks.section_parser import extract_sections
from citeloop.checks.sections import section_completeness_result, sections_check
from citeloop.grounding.sayings import says_context_insufficient
from tests.cases.conftest import load_cases

DOCUMENT = load_cases("sections.json")
EXPECTATIONS = ("expected_sections", "expected_missing", "expected_empty")


@pytest.mark.parametrize("case", DOCUMENT["cases"], ids=[case["id"] for case in DOCUMENT["cases"]])
def test_case(case: dict[str, Any]) -> None:
    assert any(key in case for key in EXPECTATIONS), f"case {case['id']} expects nothing"
    text = case["input"]
    if "expected_sections" in case:
        titles = [section.title for section in extract_sections(text)]
        assert titles == case["expected_sections"]
    if "required" not in case:
        return
    report = section_completeness_result(text, case["required"])
    if "expected_missing" in case:
        assert list(report.missing) == case["expected_missing"]
    if "expected_empty" in case:
        assert list(report.empty) == case["expected_empty"]
    # The Check reports the same sections, by name.
    outcome = sections_check(case["required"])(text)
    assert outcome.passed == report.passed
    named = sorted(problem.details["section"] for problem in outcome.problems)
    assert named == sorted(report.missing + report.empty + report.duplicates)


def _hash_lines(case: dict[str, Any]) -> list[tuple[int, bool]]:
    """``(line number, is a heading)`` of each line of a case's input that starts with
    ``#``, a heading when the case's expected sections name it."""
    titles = set(case.get("expected_sections", ()))
    return [
        (at, line.strip().lstrip("#").strip() in titles)
        for at, line in enumerate(case["input"].split("\n"))
        if line.lstrip().startswith("#")
    ]


HASH_CASES = [
    case for case in DOCUMENT["cases"] if "expected_sections" in case and _hash_lines(case)
]


@pytest.mark.parametrize("case", HASH_CASES, ids=[case["id"] for case in HASH_CASES])
def test_only_a_heading_of_a_case_can_say_the_context_lacks_code(case: dict[str, Any]) -> None:
    """The detector of "the context is not enough" reads headings as the section reader
    does: a ``#`` line in fenced code (``# install``) that says ``not shown`` is a
    comment of the code, while a heading that says it asks for more context."""
    lines = case["input"].split("\n")
    for at, heading in _hash_lines(case):
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        said = "## Still not shown" if heading else "# ... (other steps not shown)"
        variant = "\n".join([*lines[:at], indent + said, *lines[at + 1 :]])
        assert says_context_insufficient(variant) is heading, (at, variant)
