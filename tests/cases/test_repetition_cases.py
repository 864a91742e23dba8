"""``shared/cases/sections.json`` against the section splitter of the repetition checks.

Repeated sections are found between Markdown headings, so the headings must be read
as CommonMark reads them: setext underlines, a rule after a list, ``#`` in a fence.
"""

from __future__ import annotations

from typing import Any

import pytest

from citeloop.checks.deduplication import deduplicate_sections
from citeloop.checks.similarity import split_blocks as _split_blocks
from tests.cases.conftest import load_cases

DOCUMENT = load_cases("sections.json")
CASES = DOCUMENT["cases"]
FILLER = "This paragraph is long enough to be compared with every other section."


def _headings(text: str) -> list[tuple[str, bool]]:
    """(title, has content before the next heading) of every heading of ``text``."""
    blocks = _split_blocks(text.split("\n"))
    headings: list[tuple[str, bool]] = []
    for block in blocks:
        if block.kind == "heading":
            headings.append((block.title, False))
        elif block.kind in ("prose", "code") and headings:
            headings[-1] = (headings[-1][0], True)
    return headings


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_headings_of_case(case: dict[str, Any]) -> None:
    headings = _headings(case["input"])
    titles = [title for title, _ in headings]
    if "expected_sections" in case:
        assert titles == case["expected_sections"]
    for required in case.get("required", []):
        assert any(required.lower() in title.lower() for title in titles), required
    for empty in case.get("expected_empty", []):
        assert (empty, False) in headings


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_repeating_a_case_body_removes_only_the_repeat(case: dict[str, Any]) -> None:
    # The case text, a filler paragraph, then the case text again: the second copy's
    # long-enough sections go, and the document keeps its first half intact.
    text = case["input"].rstrip("\n")
    doubled = f"{text}\n\n{FILLER}\n\n{text}\n"
    result = deduplicate_sections(
        doubled, max_repetitions=1, min_content_preservation=0, min_section_chars=5
    )
    assert result.startswith(f"{text}\n\n{FILLER}\n")
    assert len(result) < len(doubled)
