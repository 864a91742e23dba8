"""Every case of ``shared/cases/citations.json`` against extract_citations.

A case's ``expected`` names only the fields it is about: ``numeric`` (sorted unique
numbers), ``author_year`` (``[author, year]`` pairs in text order) and ``keys`` (in
text order); each is compared with the JSON-ready form of the result.
"""

from __future__ import annotations

from typing import Any

import pytest

from citeloop.checks.citations import extract_citations
from tests.cases.conftest import load_cases

DOCUMENT = load_cases("citations.json")
FIELDS = ("numeric", "author_year", "keys")


@pytest.mark.parametrize("case", DOCUMENT["cases"], ids=[case["id"] for case in DOCUMENT["cases"]])
def test_case(case: dict[str, Any]) -> None:
    result = extract_citations(case["input"]).to_dict()
    assert case["expected"], f"case {case['id']} expects nothing"
    for key, value in case["expected"].items():
        assert key in FIELDS, f"unknown expected field {key!r}"
        assert result[key] == value, f"{key}: got {result[key]!r}, expected {value!r}"


@pytest.mark.parametrize("case", DOCUMENT["cases"], ids=[case["id"] for case in DOCUMENT["cases"]])
def test_case_spans_point_into_the_input(case: dict[str, Any]) -> None:
    text = case["input"]
    for span in extract_citations(text).spans:
        assert text[span.start : span.end] == span.text
