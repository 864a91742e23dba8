"""Every case of ``shared/cases/sections.json`` against the CommonMark section reader."""

from __future__ import annotations

from typing import Any

import pytest

from citeloop.checks.section_parser import extract_sections
from citeloop.checks.sections import section_completeness_result, sections_check
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
