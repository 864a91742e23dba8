"""Required Markdown sections, read with a CommonMark parser (offline, deterministic)."""

from __future__ import annotations

import json
import time
import unicodedata
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from citeloop.checks import section_parser as sections_module
from citeloop.checks.check import Check, CheckOutcome, OnFail
from citeloop.checks.section_parser import (
    BOLD_LEVEL,
    MAX_BOLD_TITLE_CHARS,
    MAX_PARSED_NESTING,
    MAX_QUOTE_DEPTH,
    MAX_TITLE_CHARS,
    Section,
    extract_sections,
)
from citeloop.checks.sections import (
    SectionReport,
    response_structure_result,
    section_completeness_result,
    sections_check,
)
from citeloop.errors import ConfigurationError


def titles(text: str, **settings: bool) -> list[str]:
    return [section.title for section in extract_sections(text, **settings)]


def complete(text: str, *required: str, flexible: bool = True) -> SectionReport:
    return section_completeness_result(text, list(required), flexible=flexible)


# --- what CommonMark calls a heading --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# One\n## Two\n###### Six\n", ["One", "Two", "Six"]),
        ("One\n===\n\nTwo\n---\n", ["One", "Two"]),
        ("Two lines\nof title\n===\nBody.\n", ["Two lines of title"]),
        ("## Risks ##\nx\n", ["Risks"]),  # closing sequence is not part of the title
        ("   ## Indented three\nx\n", ["Indented three"]),
        ("    ## Indented four\n", []),  # indented code block
        ("```\n# comment\n```\n~~~\n## also code\n~~~\n", []),
        ("```bash\n# install\n", []),  # an unclosed fence runs to the end
        ("<div>\n# inside html\n</div>\n", []),
        ("#hashtag\n\\# escaped\n", []),  # no space after '#', and an escaped '#'
        ("- one\n- two\n---\nText.\n", []),  # thematic break after a list
        ("Para\n\n---\n", []),  # a blank line before '---' makes it a break
        ("Para\n---\n", ["Para"]),  # a paragraph then '---' is a setext heading
        ("> ## Quoted\n> text\n", []),  # only top-level headings make the outline
        ("- ## In a list item\n", []),
        ("# Real\n> # Quoted\n", ["Real"]),
    ],
)
def test_headings_follow_commonmark(text: str, expected: list[str]) -> None:
    assert titles(text, flexible=False) == expected


@pytest.mark.parametrize(
    ("heading", "title"),
    [
        ("## 11. **Risks**", "11. Risks"),
        ("## `build_index` & [the docs](https://x.y)", "build_index & the docs"),
        ("## ![warning](w.png) Risks", "warning Risks"),
        ("## Q&amp;A", "Q&A"),
        ("## \\*Not\\* emphasis", "*Not* emphasis"),
        ("## snake_case_name", "snake_case_name"),
        ("## <span>Risks</span>", "Risks"),
        ("##    spaced     out   ", "spaced out"),
        ("##", ""),
    ],
)
def test_title_is_the_heading_text_with_inline_markup_stripped(heading: str, title: str) -> None:
    (section,) = extract_sections(heading + "\n")
    assert section.title == title


# --- level- and number-agnostic matching ----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "## Risks",
        "## 11. Risks",
        "### 3) Risks",
        "# Risks:",
        "## RISKS",
        "#### (2) Risks",
        "## 1.2 Risks",
        "## 1.2. Risks",
        "## 4 - Risks",
        "## IV. Risks",
        "## xii) Risks",
        "## A. Risks",
        "## b) Risks",
        "## **Risks**",
        "## `Risks`",
        "## Risks.",
        "## Risks!?",
        "## ⚠️ Risks",
        "Risks\n=====",
    ],
)
def test_required_name_matches_any_level_numbering_and_markup(text: str) -> None:
    report = complete(text + "\nSome risk.\n", "Risks")
    assert report.present == ("Risks",)
    assert report.passed


@pytest.mark.parametrize(
    ("text", "required"),
    [
        ("## Risks and mitigations", "Risks"),
        ("## Risk", "Risks"),
        ("## 2024 Roadmap", "Roadmap"),  # a year is not an enumeration
        ("## Mix. Notes", "Notes"),  # "Mix" is not a section number
        ("## Ｒisks", "Risks"),  # NFC, not NFKC: a fullwidth letter is another letter
        ("Risks\n\nSome text.", "Risks"),  # a plain paragraph is no heading
    ],
)
def test_other_titles_do_not_match(text: str, required: str) -> None:
    assert complete(text + "\nBody.\n", required).missing == (required,)


def test_unicode_titles_compare_in_nfc() -> None:
    decomposed = unicodedata.normalize("NFD", "## Résumé\nText.\n")
    assert complete(decomposed, "Résumé").passed
    assert complete("## Résumé\nText.\n", unicodedata.normalize("NFD", "Résumé")).passed


@pytest.mark.parametrize("name", ["## Risks", "**Risks**", "`Risks`", " risks: ", "3. Risks"])
def test_required_names_are_normalized_like_titles(name: str) -> None:
    report = complete("## Risks\nSome.\n", name)
    assert report.present == (name,)


# --- bold pseudo-headings -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "**Risks**\nLate data.",
        "**Risks:**\nLate data.",
        "**Risks**:\nLate data.",
        "__Risks__\n\nLate data.",
        "***Risks***\n\n- late data",
        "**11. Risks**\n\nLate data.",
        "1. **Overview**\n   A plan.\n2. **Risks**\n   Late data.",
        "- **Risks**\n  - late data",
    ],
)
def test_bold_first_line_is_a_heading_when_flexible(text: str) -> None:
    report = complete(text + "\n", "Risks")
    assert report.passed, report
    section = next(section for section in report.sections if section.normalized == "risks")
    assert (section.kind, section.level) == ("bold", BOLD_LEVEL)
    assert complete(text + "\n", "Risks", flexible=False).missing == ("Risks",)


@pytest.mark.parametrize(
    "text",
    [
        "**Risks:** late data.",  # a run-in label, not a heading
        "**Risks** and more",
        "*Risks*\n\nx",  # emphasis is not bold
        "`Risks`\n\nx",
        "**Risks\n\nx",  # unclosed
        "Intro **Risks**\n\nx",
        "> **Risks**\n> x",  # inside a block quote
        "- item\n  - **Risks**\n    x",  # a nested list item
        "Text\n**Risks**\nx",  # not the first line of its paragraph
    ],
)
def test_partly_bold_or_nested_lines_are_not_headings(text: str) -> None:
    assert complete(text + "\n", "Risks").missing == ("Risks",)


def test_bold_heading_too_long_is_not_a_heading() -> None:
    longest = "a" * (MAX_BOLD_TITLE_CHARS - 4)
    assert titles(f"**{longest}**\n") == [longest]
    assert titles(f"**{longest}a**\n") == []


def test_bold_sections_end_at_any_heading() -> None:
    text = "## Plan\n**Setup**\nInstall.\n\n**Run**\n\n## Next\nGo.\n"
    found = extract_sections(text)
    assert [(s.title, s.level, s.line_range, s.empty) for s in found] == [
        ("Plan", 2, (0, 6), False),
        ("Setup", BOLD_LEVEL, (1, 4), False),
        ("Run", BOLD_LEVEL, (4, 6), True),
        ("Next", 2, (6, 8), False),
    ]


# --- sections, bodies, empty sections -------------------------------------------------


def test_section_fields() -> None:
    report = "## 1. Overview\nA plan.\n\n### Detail\nMore.\n\nResults\n-------\nData."
    text = "Preamble.\n\n# Report\n\n" + report + "\n\n"
    assert extract_sections(text) == (
        Section("Report", "report", 1, "atx", (2, 14), report, False),
        Section(
            "1. Overview", "overview", 2, "atx", (4, 10), "A plan.\n\n### Detail\nMore.", False
        ),
        Section("Detail", "detail", 3, "atx", (7, 10), "More.", False),
        Section("Results", "results", 2, "setext", (10, 14), "Data.", False),
    )


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_lines_split_like_commonmark(newline: str) -> None:
    text = newline.join(["## A", "x", "## B", "y", ""])
    found = extract_sections(text)
    assert [(s.line_range, s.body) for s in found] == [((0, 2), "x"), ((2, 4), "y")]


@pytest.mark.parametrize(
    ("text", "empty"),
    [
        ("## Overview\n## Results\nData.\n", ["Overview"]),
        ("## Plan\n### Step 1\nDo it.\n", []),  # a sub-section is a body
        ("## Plan\n### Step 1\n## Next\nGo.\n", ["Plan", "Step 1"]),  # only empty subs
        ("# Report\n## A\nText.\n", []),
        ("## A\n---\n## B\nx\n", ["A"]),  # a thematic break is no content
        ("## A\n<!-- todo -->\n## B\nx\n", ["A"]),  # nor an HTML comment
        ("## A\n[ref]: https://x.y\n## B\nx\n", ["A"]),  # nor a link definition
        ("## A\n```\n```\n## B\nx\n", ["A"]),  # nor a blank code block
        ("## A\n```\ncode\n```\n## B\nx\n", []),
        ("## A\n    indented code\n## B\nx\n", []),
        ("## A\n> quoted\n## B\nx\n", []),
        ("## A\n- item\n## B\nx\n", []),
        ("## A\n<div>x</div>\n## B\nx\n", []),
        ("## A\nx\n## B\n\n\n", ["B"]),  # last section, nothing after it
        ("**A**\n\n**B**\nx\n", ["A"]),
    ],
)
def test_empty_sections(text: str, empty: list[str]) -> None:
    found = extract_sections(text)
    assert [section.title for section in found if section.empty] == empty


def test_text_before_the_first_heading_is_no_section() -> None:
    assert extract_sections("Just prose.\n\nMore prose.\n") == ()


# --- the completeness report ----------------------------------------------------------


def test_report_present_missing_empty_in_required_order() -> None:
    text = "## Risks\n## Overview\nA plan.\n"
    report = complete(text, "Overview", "Budget", "Risks")
    assert report.required == ("Overview", "Budget", "Risks")
    assert report.present == ("Overview", "Risks")
    assert report.missing == ("Budget",)
    assert report.empty == ("Risks",)
    assert report.duplicates == ()
    assert not report.passed


@pytest.mark.parametrize(
    "text",
    [
        "## Risks\nA.\n## Risks\nB.\n",
        "## Risks\nA.\n### 2. RISKS\nB.\n",
        "## Risks\nA.\n\n**Risks:**\nB.\n",
    ],
)
def test_duplicate_required_sections_are_reported(text: str) -> None:
    report = complete(text, "Risks")
    assert report.duplicates == ("Risks",)
    assert report.present == ("Risks",)
    assert not report.passed


def test_duplicates_of_other_sections_are_the_answers_own_business() -> None:
    text = "## Option A\n### Pros\nFast.\n## Option B\n### Pros\nCheap.\n"
    report = complete(text, "Option A", "Option B")
    assert report.duplicates == ()
    assert report.passed


def test_first_matching_section_decides_emptiness() -> None:
    assert complete("## Risks\n## Risks\nB.\n", "Risks").empty == ("Risks",)
    assert complete("## Risks\nA.\n## Risks\n", "Risks").empty == ()


def test_no_required_sections_pass() -> None:
    assert complete("anything").passed
    assert response_structure_result("").passed


@pytest.mark.parametrize(
    ("order", "required", "out_of_order"),
    [
        ("ABC", "ABC", ""),
        ("CAB", "ABC", "C"),
        ("BA", "AB", "B"),
        ("BCA", "ABC", "A"),
        ("ACB", "ABC", "C"),
        ("DCBA", "ABCD", "BCD"),
        ("CA", "ABC", "C"),  # B is missing, not misplaced
    ],
)
def test_order_is_checked_when_asked(order: str, required: str, out_of_order: str) -> None:
    text = "".join(f"## {name}\nText.\n" for name in order)
    report = response_structure_result(text, list(required), ordered=True)
    assert report.out_of_order == tuple(out_of_order)
    assert report.passed == (not out_of_order and set(required) <= set(order))
    assert response_structure_result(text, list(required)).out_of_order == ()


def test_min_sections_counts_every_section() -> None:
    text = "## A\nx\n### B\ny\n\n**C**\nz\n"
    assert response_structure_result(text, min_sections=3).passed
    report = response_structure_result(text, min_sections=4)
    assert report.too_few_sections and not report.passed
    assert response_structure_result(text, min_sections=3, flexible=False).too_few_sections


def test_allow_empty_accepts_bare_headings() -> None:
    text = "## Overview\n## Risks\n"
    assert response_structure_result(text, ["Overview", "Risks"]).empty == ("Overview", "Risks")
    report = response_structure_result(text, ["Overview", "Risks"], allow_empty=True)
    assert report.empty == () and report.passed


def test_reports_are_json_ready() -> None:
    report = response_structure_result("## A\nx\n## A\n", ["A", "B"], ordered=True)
    data = json.loads(json.dumps(report.to_dict()))
    assert data["passed"] is False
    assert data["missing"] == ["B"] and data["duplicates"] == ["A"]
    assert data["sections"][0] == {
        "title": "A",
        "normalized": "a",
        "level": 2,
        "kind": "atx",
        "line_range": [0, 2],
        "body": "x",
        "empty": False,
    }


# --- bad arguments --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("required", "says"),
    [
        ("Risks", "list of section names"),
        (None, "list of section names"),
        ({"Risks"}, "list of section names"),
        (["Risks", 3], "only strings"),
        ([""], "empty section name"),
        (["   "], "empty section name"),
        (["##"], "empty section name"),
        (["Risks", "2. RISKS:"], "same section twice"),
    ],
)
def test_bad_required_headers_raise_configuration_error(required: object, says: str) -> None:
    for call in (
        lambda: section_completeness_result("## Risks\n", required),  # type: ignore[arg-type]
        lambda: response_structure_result("## Risks\n", required),  # type: ignore[arg-type]
        lambda: sections_check(required),  # type: ignore[arg-type]
    ):
        with pytest.raises(ConfigurationError, match=says):
            call()


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"min_sections": -1}, "min_sections"),
        ({"min_sections": True}, "min_sections"),
        ({"min_sections": 1.5}, "min_sections"),
        ({"flexible": "yes"}, "flexible"),
        ({"ordered": None}, "ordered"),
        ({"allow_empty": 1}, "allow_empty"),
    ],
)
def test_bad_settings_raise_configuration_error(settings: dict[str, object], says: str) -> None:
    with pytest.raises(ConfigurationError, match=says):
        response_structure_result("## A\n", ["A"], **settings)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", [None, b"## Risks", 42])
def test_text_that_is_not_a_str_raises_configuration_error(text: object) -> None:
    with pytest.raises(ConfigurationError, match="text must be a str"):
        section_completeness_result(text, ["Risks"])  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="text must be a str"):
        extract_sections(text)  # type: ignore[arg-type]


def test_check_factory_validates_its_settings() -> None:
    with pytest.raises(ConfigurationError, match="on_fail"):
        sections_check(["Risks"], on_fail="retry")
    with pytest.raises(ConfigurationError, match="ordered"):
        sections_check(["Risks"], ordered="yes")  # type: ignore[arg-type]


# --- the Check ------------------------------------------------------------------------


def test_check_passes_with_the_report_as_value() -> None:
    check = sections_check(["Overview", "Risks"], on_fail="exception")
    assert isinstance(check, Check)
    assert check.name == "sections" and check.on_fail is OnFail.EXCEPTION
    outcome = check("## Overview\nA plan.\n## 3. Risks\nLate data.\n")
    assert isinstance(outcome, CheckOutcome)
    assert outcome.passed and outcome.problems == () and outcome.fixed is None
    assert isinstance(outcome.value, SectionReport) and outcome.value.present == (
        "Overview",
        "Risks",
    )


def test_check_names_every_problem_with_its_expected_heading() -> None:
    text = "## Next\nGo.\n## Overview\n## Overview\nA plan.\n"
    outcome = sections_check(["Overview", "## Risks", "Next"], ordered=True)(text)
    assert not outcome.passed and outcome.fixed is None
    found = {(p.details["reason"], p.details["section"]): p for p in outcome.problems}
    assert set(found) == {
        ("missing", "## Risks"),
        ("empty", "Overview"),
        ("duplicate", "Overview"),
        ("out_of_order", "Next"),
    }
    missing = found["missing", "## Risks"]
    assert missing.message == "the answer has no 'Risks' section"
    assert missing.expected == "## Risks"
    assert "## Overview\n## Risks\n## Next" in missing.fix
    assert found["empty", "Overview"].expected.startswith("## Overview")
    assert found["empty", "Overview"].details["line_range"] == [2, 3]
    assert found["duplicate", "Overview"].details["line_ranges"] == [[2, 3], [3, 5]]
    assert found["out_of_order", "Next"].expected == "## Overview\n## Risks\n## Next"
    assert "Overview, Risks, Next" in found["out_of_order", "Next"].fix
    json.dumps(outcome.to_dict())


def test_check_uses_the_heading_level_of_the_answer() -> None:
    outcome = sections_check(["Overview", "Risks"])("# 1. Overview\nA plan.\n")
    (problem,) = outcome.problems
    assert problem.expected == "# Risks"
    assert "'# Risks'" in problem.fix


def test_check_accepts_bold_headings_unless_strict() -> None:
    text = "**Overview**\nA plan.\n"
    assert sections_check(["Overview"])(text).passed
    assert not sections_check(["Overview"], flexible=False)(text).passed


# --- odd input ------------------------------------------------------------------------

ODD = [
    "",
    " ",
    "\n\n\n",
    "\t\r\n\r",
    "\x00\xff",
    "\x00# Risks\x00\n",
    "\ud800",
    "# \ud800\udfff\n",
    "\u202e# Risks",
    "#\u00a0Risks",
    "🦜" * 100,
    "# " + "\u0301" * 5000,
    bytes(range(256)).decode("latin-1"),
]


@pytest.mark.parametrize("text", ODD, ids=range(len(ODD)))
def test_odd_text_gives_a_report(text: str) -> None:
    extract_sections(text)
    report = response_structure_result(text, ["Risks"], ordered=True, min_sections=1)
    assert report.missing == ("Risks",) and not report.passed
    outcome = sections_check(["Risks"])(text)
    assert not outcome.passed


def test_huge_text_gives_a_report() -> None:
    text = ("## Section\n" + "Some prose line.\n" * 20) * 2000 + "## Risks\nLate.\n"
    report = complete(text, "Risks", "Section")
    assert report.present == ("Risks", "Section")
    assert report.duplicates == ("Section",)


def test_long_heading_is_taken_as_written() -> None:
    source = "**a** " * (MAX_TITLE_CHARS // 6 + 1)
    (section,) = extract_sections("# " + source + "\nx\n")
    assert section.title == source.strip()  # too long to be inline-parsed
    (short,) = extract_sections("# **a** **b**\nx\n")
    assert short.title == "a b"


MARKDOWNISH = st.text(alphabet=st.sampled_from(list("#*_-=>`~ \n\t1.)[]()!<:aRisk")), max_size=300)


@settings(deadline=None, max_examples=200)
@given(text=st.text())
def test_never_raises_on_arbitrary_text(text: str) -> None:
    for section in extract_sections(text):
        assert section.line_range[0] < section.line_range[1]
    response_structure_result(text, ["Risks", "Overview"], ordered=True, min_sections=2)
    sections_check(["Risks"])(text)


@settings(deadline=None, max_examples=200)
@given(text=MARKDOWNISH)
def test_never_raises_on_markdown_fragments(text: str) -> None:
    found = extract_sections(text)
    starts = [section.line_range[0] for section in found]
    assert starts == sorted(starts)
    for section in found:
        assert section.level in range(1, BOLD_LEVEL + 1)
        # A section ends where a heading of its level or higher starts, or at the end.
        later = [s for s in found if s.line_range[0] > section.line_range[0]]
        ender = next((s for s in later if s.level <= section.level), None)
        if ender is not None:
            assert section.line_range[1] == ender.line_range[0]
        # Content is text: a section with content has a non-blank body.
        assert section.empty or section.body.strip()


# --- the nesting guard keeps CommonMark's top-level structure --------------------------

_REFERENCE = MarkdownIt("commonmark", {"maxNesting": 10_000}).disable("inline")


def _top_level(tokens: list) -> list[tuple[str, list[int] | None]]:
    return [(t.type, t.map) for t in tokens if t.level == 0 and t.nesting != -1]


def _depths(tokens: list) -> tuple[int, int]:
    quotes = deepest_quote = deepest = 0
    for token in tokens:
        quotes += {"blockquote_open": 1, "blockquote_close": -1}.get(token.type, 0)
        deepest_quote = max(deepest_quote, quotes)
        deepest = max(deepest, token.level)
    return deepest_quote, deepest


NESTED = st.lists(
    st.sampled_from(["> ", "- ", "1. ", "  ", "    ", "\n", "\n\n", "x", "## H", "**B**", "---"]),
    max_size=60,
).map("".join)


@settings(deadline=None, max_examples=200)
@given(text=NESTED)
def test_guarded_parser_matches_commonmark_below_the_guard(text: str) -> None:
    reference = _REFERENCE.parse(text)
    quote_depth, level = _depths(reference)
    if quote_depth < MAX_QUOTE_DEPTH and level < MAX_PARSED_NESTING:
        assert _top_level(sections_module._BLOCK.parse(text, {})) == _top_level(reference)


@pytest.mark.parametrize(
    ("prefix", "found"),
    [
        ("- " * 30 + "x\n\n", True),  # markdown-it alone drops the rest of the document
        ("1. " * 30 + "x\n", True),  # a heading interrupts the deep paragraph
        ("> " * 30 + "x\nlazy line\n\n", True),
        ("> " * 30 + "x\n", True),
        ("".join("  " * depth + "- x\n" for depth in range(40)) + "\n", True),
        ("> " * 30 + "x\n**Risks**\n", False),  # a lazy continuation line, as in CommonMark
        ("> > x\n**Risks**\n", False),
    ],
)
def test_headings_after_deep_nesting_are_found(prefix: str, found: bool) -> None:
    text = prefix + ("## Risks\nBody.\n" if found else "Body.\n")
    assert complete(text, "Risks").passed is found


# --- pathological input: bounded, linear ----------------------------------------------

MEGABYTE = 1_000_000
TAIL = "\n\n## Risks\nBody.\n"
PATHOLOGICAL = {
    "hashes": "#" * 200_000,
    "nested-quotes": ">" * 100_000,
    "nested-quotes-spaced": "> " * 100_000 + "x",
    "nested-lists": "- " * 100_000 + "x",
    "nested-ordered": "1. " * 100_000 + "x",
    "stars": "*" * MEGABYTE,
    "star-runs": "*a" * (MEGABYTE // 2),
    "underscores": "_" * MEGABYTE,
    "brackets": "![" * (MEGABYTE // 2),
    "backticks": "a" + "`" * MEGABYTE,  # at the start of a line, an unclosed code fence
    "long-heading": "# " + "![" * (MEGABYTE // 2),
    "long-bold-line": "**" + "![" * (MEGABYTE // 2) + "**",
    "setext": "x\n" + "=" * MEGABYTE,
    "spaces": " " * MEGABYTE,
    "binaryish": bytes(range(256)).decode("latin-1") * (MEGABYTE // 256),
}


@pytest.mark.parametrize("text", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_pathological_text_completes_and_keeps_later_headings(text: str) -> None:
    assert complete(text + TAIL, "Risks").passed


def _seconds(text: str) -> float:
    started = time.perf_counter()
    response_structure_result(text, ["Risks"], ordered=True)
    return time.perf_counter() - started


LINEAR = {
    "heading-lines": lambda n: "#\n" * (n // 2),
    "nested-headings": lambda n: "".join("#" * (i % 6 + 1) + " t\n" for i in range(n // 6)),
    "bold-lines": lambda n: ("**" + "![" * 90 + "**\n\n") * (n // 186),
    "title-junk": lambda n: ("# " + "![" * 400 + "\n") * (n // 803),
    "quote-lazy-lines": lambda n: "> " * 50 + "x\n" + "y\n" * (n // 2),
    "quote-list-lazy-lines": lambda n: "> - " * 50 + "x\n" + "y\n" * (n // 2),
    "nested-list-lines": lambda n: "".join("  " * (i % 40) + "- x\n" for i in range(n // 44)),
    "list-markers": lambda n: "1. " * (n // 3) + "x",
    "prose": lambda n: "Some *prose* with `code` and [links](u).\n" * (n // 42),
}


@pytest.mark.parametrize("make", LINEAR.values(), ids=LINEAR.keys())
def test_time_is_linear_in_text_length(make: Callable[[int], str]) -> None:
    # 4x the text takes about 4x the time; a super-linear path would take 16x or more.
    short, long = _seconds(make(20_000)), _seconds(make(80_000))
    assert long < 10 * short + 2.0


@pytest.mark.parametrize("marker", ["> ", "> - "])
def test_deep_quotes_cost_a_bounded_factor(marker: str) -> None:
    # Every open block quote re-reads each lazy line after it: 50 quotes cost ~15x one
    # quote without the guard; past MAX_QUOTE_DEPTH they are one opaque block (~3.5x).
    lazy = "y\n" * 20_000
    shallow, deep = _seconds(marker + "x\n" + lazy), _seconds(marker * 50 + "x\n" + lazy)
    assert deep < 6 * shallow + 0.2
